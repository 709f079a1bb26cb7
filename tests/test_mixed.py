"""Cross-kind overlap and the choice of a bounding volume (hitbox.mixed, SPEC §7).

Oracles: closed forms in numpy (sphere-box, sphere-OBB), the OBB module's own SAT, Coal
(sphere-box, box-box, sphere against the convex hull of a k-DOP), the enumeration twin of
the sphere-k-DOP kernel, and a separating-axis oracle for two polytopes over every face
normal and edge cross of their vertex sets (``kdop.vertices``, box corners), which is
exact for convex polytopes.
"""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import hitbox as hb
from hitbox import Rays, mixed
from hitbox._types import OBBs, Spheres
from tests.strategies import count, grid, rotations, take

try:
    import coal
except ImportError:  # the Coal comparisons are skipped, the rest still runs
    coal = None
needs_coal = pytest.mark.skipif(
    coal is None, reason="coal (python bindings) not installed"
)

KINDS = ("sphere", "aabb", "kdop", "obb")
TOUCH = 1e-9  # pairs this close to touching are left out of comparisons with other codes


# -- random scenes -----------------------------------------------------------------------


def volumes(kind, n, rng, k=18, side=4.0):
    """n random volumes, centres in [0, side]^3, about 1 across."""
    c = rng.uniform(0.0, side, (n, 3))
    if kind == "sphere":
        return Spheres(c, rng.uniform(0.1, 1.0, n))
    if kind == "aabb":
        h = rng.uniform(0.1, 1.0, (n, 3))
        return np.stack([c - h, c + h], axis=1)
    if kind == "obb":
        return OBBs(c, rng.uniform(0.1, 1.0, (n, 3)), rotations(n, rng))
    pts = rng.normal(size=(n, 12, 3)) * rng.uniform(0.2, 1.0, (n, 1, 3))
    pts = np.einsum("nij,nmj->nmi", rotations(n, rng), pts)
    return hb.kdop.fit(c[:, None, :] + pts, k)


def all_pairs_brute(a, b):
    """Pairs from the elementwise test over every (i, j): the oracle of overlap_pairs."""
    ii, jj = np.meshgrid(np.arange(count(a)), np.arange(count(b)), indexing="ij")
    ii, jj = ii.ravel(), jj.ravel()
    if len(ii) == 0:
        return np.empty((2, 0), np.intp)
    hit = mixed.overlap(take(a, ii), take(b, jj))
    return np.stack([ii[hit], jj[hit]]).astype(np.intp)


# -- closed-form and SAT oracles ---------------------------------------------------------


def sphere_box_distance(centers, boxes):
    q = np.clip(centers, boxes[:, 0], boxes[:, 1])
    return np.linalg.norm(q - centers, axis=1)


def sphere_obb_distance(centers, obbs):
    local = np.einsum("nk,nkm->nm", centers - obbs.center, obbs.rot)
    return np.linalg.norm(np.maximum(np.abs(local) - obbs.half, 0.0), axis=1)


def edge_directions(k):
    axes = hb.kdop.AXES[k]
    out = [
        np.cross(axes[p], axes[q]) for p, q in itertools.combinations(range(len(axes)), 2)
    ]
    return np.array([d / np.linalg.norm(d) for d in out if np.linalg.norm(d) > 0])


def unit_or(x, fallback):
    n = np.linalg.norm(x, axis=-1, keepdims=True)
    return np.where(n > 1e-9, x / np.where(n > 0, n, 1.0), fallback)


def padded_vertices(kdops):
    verts = hb.kdop.vertices(kdops)
    out = np.empty((len(verts), max(len(x) for x in verts), 3))
    for i, x in enumerate(verts):
        out[i, : len(x)], out[i, len(x) :] = x, x[0]
    return out


def sat_gap(va, vb, axes):
    """Largest separation of vertex sets (n, V, 3) over unit axes (n, A, 3): > 0 apart."""
    pa = va @ np.swapaxes(axes, 1, 2)
    pb = vb @ np.swapaxes(axes, 1, 2)
    gap = np.maximum(pb.min(axis=1) - pa.max(axis=1), pa.min(axis=1) - pb.max(axis=1))
    return gap.max(axis=1)


def polytope_gap(va, vb, k, rot_b=None, chunk=2000):
    """Exact gap between k-DOP polytopes va and boxes vb (an AABB when rot_b is None)."""
    normals = hb.kdop.AXES[k] / np.linalg.norm(hb.kdop.AXES[k], axis=1, keepdims=True)
    edges = edge_directions(k)
    out = np.empty(len(va))
    for s in range(0, len(va), chunk):
        sl = slice(s, s + chunk)
        n = len(va[sl])
        u = (
            np.broadcast_to(np.eye(3), (n, 3, 3))
            if rot_b is None
            else np.swapaxes(rot_b[sl], 1, 2)
        )
        cross = np.cross(edges[None, :, None, :], u[:, None, :, :]).reshape(n, -1, 3)
        axes = np.concatenate(
            [
                np.broadcast_to(normals, (n,) + normals.shape),
                u,
                unit_or(cross, normals[0]),
            ],
            axis=1,
        )
        out[sl] = sat_gap(va[sl], vb[sl], axes)
    return out


def coal_convex(points):
    vec = coal.StdVec_Vec3s()
    for p in points:
        vec.append(np.asarray(p, dtype=float))
    return coal.ConvexBase.convexHull(vec, False, "")


def coal_transform(rot=None, trans=None):
    t = coal.Transform3s()
    if rot is not None:
        t.setRotation(np.asarray(rot, dtype=float))
    if trans is not None:
        t.setTranslation(np.asarray(trans, dtype=float))
    return t


def coal_distance(shape_a, tf_a, shape_b, tf_b):
    result = coal.DistanceResult()
    return coal.distance(shape_a, tf_a, shape_b, tf_b, coal.DistanceRequest(), result)


def coal_collide(shape_a, tf_a, shape_b, tf_b):
    result = coal.CollisionResult()
    return bool(
        coal.collide(shape_a, tf_a, shape_b, tf_b, coal.CollisionRequest(), result)
    )


# -- kinds and dispatch ------------------------------------------------------------------


def test_kind_of():
    rng = np.random.default_rng(0)
    assert mixed.kind_of(volumes("sphere", 2, rng)) == "sphere"
    assert mixed.kind_of(volumes("obb", 2, rng)) == "obb"
    assert mixed.kind_of(volumes("aabb", 2, rng)) == "aabb"
    assert mixed.kind_of(np.zeros((4, 2, 2))) == "aabb"
    assert mixed.kind_of([[0, 0, 0], [1, 1, 1]]) == "aabb"
    for k in (14, 18, 26):
        assert mixed.kind_of(np.zeros((3, 2, k // 2))) == "kdop"
        assert mixed.kind_of(np.zeros((2, k // 2))) == "kdop"


@pytest.mark.parametrize(
    "bad, error",
    [
        (Rays(np.zeros((1, 3)), np.ones((1, 3)), np.ones(1)), TypeError),
        (np.zeros((3, 2, 5)), ValueError),
        (np.zeros((3, 3, 3)), ValueError),
        (np.zeros(3), ValueError),
        ([[0, 0], [1, 1, 1]], ValueError),
    ],
)
def test_unknown_kinds_raise_naming_the_argument(bad, error):
    good = np.array([[0.0, 0, 0], [1, 1, 1]])
    for fn in (mixed.overlap, mixed.overlap_pairs):
        with pytest.raises(error, match="^a "):
            fn(bad, good)
        with pytest.raises(error, match="^b "):
            fn(good, bad)


def test_dispatch_covers_all_16_combinations():
    rng = np.random.default_rng(1)
    sets = {kind: volumes(kind, 40, rng) for kind in KINDS}
    named = {
        ("sphere", "aabb"): mixed.overlap_sphere_aabb,
        ("sphere", "kdop"): mixed.overlap_sphere_kdop,
        ("sphere", "obb"): mixed.overlap_sphere_obb,
        ("aabb", "kdop"): mixed.overlap_aabb_kdop,
        ("aabb", "obb"): mixed.overlap_aabb_obb,
        ("kdop", "obb"): mixed.overlap_kdop_obb,
    }
    own = {"sphere": hb.sphere, "aabb": hb.aabb, "kdop": hb.kdop, "obb": hb.obb}
    for ka, kb in itertools.product(KINDS, KINDS):
        a, b = sets[ka], take(sets[kb], rng.permutation(40))
        got = mixed.overlap(a, b)
        if ka == kb:
            np.testing.assert_array_equal(got, own[ka].overlap(a, b))
            np.testing.assert_array_equal(
                mixed.overlap_pairs(a, b), own[ka].overlap_pairs(a, b)
            )
        elif (ka, kb) in named:
            np.testing.assert_array_equal(got, named[ka, kb](a, b))
        else:
            np.testing.assert_array_equal(got, named[kb, ka](b, a))
        pairs = mixed.overlap_pairs(a, b)
        assert pairs.dtype == np.intp and pairs.shape[0] == 2
        np.testing.assert_array_equal(pairs, all_pairs_brute(a, b), err_msg=f"{ka}-{kb}")
        assert 0 < pairs.shape[1] < 40 * 40


@pytest.mark.parametrize("ka, kb", list(itertools.combinations(KINDS, 2)))
def test_swapping_arguments_swaps_pair_rows(ka, kb):
    rng = np.random.default_rng(2)
    a, b = volumes(ka, 300, rng, side=10.0), volumes(kb, 200, rng, side=10.0)
    ab, ba = mixed.overlap_pairs(a, b), mixed.overlap_pairs(b, a)
    assert ab.shape[1] > 0
    order = np.lexsort((ab[0], ab[1]))
    np.testing.assert_array_equal(ba, ab[::-1][:, order])
    assert np.all(np.diff(ba[0]) >= 0)
    head = take(a, np.arange(200))
    np.testing.assert_array_equal(mixed.overlap(head, b), mixed.overlap(b, head))


@pytest.mark.parametrize("ka, kb", list(itertools.product(KINDS, KINDS)))
def test_empty_sets_give_empty_results(ka, kb):
    rng = np.random.default_rng(3)
    a, b = take(volumes(ka, 3, rng), np.arange(0)), volumes(kb, 1, rng)
    got = mixed.overlap(a, b)
    assert got.shape == (0,) and got.dtype == np.bool_
    for x, y in ((a, b), (b, a), (a, take(b, np.arange(0)))):
        pairs = mixed.overlap_pairs(x, y)
        assert pairs.shape == (2, 0) and pairs.dtype == np.intp


def test_single_items_give_bools_and_broadcast():
    s = Spheres(np.zeros(3), 1.0)
    box = np.array([[0.5, 0.5, 0.5], [2.0, 2.0, 2.0]])
    assert mixed.overlap(s, box) is True
    assert mixed.overlap_sphere_aabb(s, box) is True
    boxes = np.stack([box, box + 5.0])
    np.testing.assert_array_equal(mixed.overlap(s, boxes), [True, False])
    np.testing.assert_array_equal(mixed.overlap(boxes, s), [True, False])
    with pytest.raises(ValueError, match="broadcast"):
        mixed.overlap(Spheres(np.zeros((3, 3)), np.ones(3)), boxes)


def test_bad_input_raises_naming_the_argument():
    box = np.array([[0.0, 0, 0], [1, 1, 1]])
    k18 = hb.kdop.fit(np.eye(3), 18)
    with pytest.raises(ValueError, match=r"b\.center"):
        mixed.overlap(box, Spheres(np.array([np.nan, 0, 0]), 1.0))
    with pytest.raises(ValueError, match=r"spheres\.radius"):
        mixed.overlap_sphere_aabb(Spheres(np.zeros(3), np.nan), box)
    with pytest.raises(ValueError, match="^a"):
        mixed.overlap(np.array([[np.nan, 0, 0], [1, 1, 1]]), k18)
    with pytest.raises(ValueError, match="kdops"):
        mixed.overlap_aabb_kdop(box, np.full((2, 9), np.nan))
    with pytest.raises(ValueError, match="18-DOPs"):
        mixed.overlap(k18, hb.kdop.fit(np.eye(3), 14))
    with pytest.raises(ValueError, match="3-dimensional|D = 3"):
        mixed.overlap(np.zeros((2, 2)), hb.obb.from_boxes(box))
    with pytest.raises(TypeError):
        mixed.overlap(box, np.array([["a", "b", "c"], ["d", "e", "f"]]))
    with pytest.raises(ValueError, match="orthonormal"):
        mixed.overlap(box, OBBs(np.zeros(3), np.ones(3), np.ones((3, 3))))
    with pytest.raises(TypeError):
        mixed.overlap_sphere_obb(box, box)


# -- exact tests against independent oracles ---------------------------------------------


@needs_coal
def test_sphere_aabb_matches_closed_form_and_coal():
    rng = np.random.default_rng(4)
    n = 12_000
    s, boxes = volumes("sphere", n, rng), volumes("aabb", n, rng)
    got = mixed.overlap_sphere_aabb(s, boxes)
    d = sphere_box_distance(s.center, boxes) - s.radius
    far = np.abs(d) > TOUCH
    np.testing.assert_array_equal(got[far], d[far] <= 0)
    sizes = boxes[:, 1] - boxes[:, 0]
    mids = 0.5 * (boxes[:, 1] + boxes[:, 0])
    ref = np.array(
        [
            coal_collide(
                coal.Sphere(s.radius[i]),
                coal_transform(trans=s.center[i]),
                coal.Box(*sizes[i]),
                coal_transform(trans=mids[i]),
            )
            for i in range(n)
        ]
    )
    assert far.sum() >= 10_000
    np.testing.assert_array_equal(got[far], ref[far])
    assert 0.05 < got.mean() < 0.95


@needs_coal
def test_sphere_obb_matches_closed_form_and_coal():
    rng = np.random.default_rng(5)
    n = 12_000
    s, obbs = volumes("sphere", n, rng), volumes("obb", n, rng)
    got = mixed.overlap_sphere_obb(s, obbs)
    d = sphere_obb_distance(s.center, obbs) - s.radius
    far = np.abs(d) > TOUCH
    np.testing.assert_array_equal(got[far], d[far] <= 0)
    ref = np.array(
        [
            coal_collide(
                coal.Sphere(s.radius[i]),
                coal_transform(trans=s.center[i]),
                coal.Box(*(2 * obbs.half[i])),
                coal_transform(obbs.rot[i], obbs.center[i]),
            )
            for i in range(n)
        ]
    )
    assert far.sum() >= 10_000
    np.testing.assert_array_equal(got[far], ref[far])
    assert 0.05 < got.mean() < 0.95


@needs_coal
def test_aabb_obb_matches_obb_sat_and_coal():
    rng = np.random.default_rng(6)
    n = 12_000
    boxes, obbs = volumes("aabb", n, rng), volumes("obb", n, rng)
    got = mixed.overlap_aabb_obb(boxes, obbs)
    sizes = boxes[:, 1] - boxes[:, 0]
    mids = 0.5 * (boxes[:, 1] + boxes[:, 0])
    dist = np.array(
        [
            coal_distance(
                coal.Box(*sizes[i]),
                coal_transform(trans=mids[i]),
                coal.Box(*(2 * obbs.half[i])),
                coal_transform(obbs.rot[i], obbs.center[i]),
            )
            for i in range(n)
        ]
    )
    far = np.abs(dist) > 1e-6  # Coal's distance is good to about 1e-10 here
    assert far.sum() >= 10_000
    np.testing.assert_array_equal(got[far], dist[far] <= 0)
    as_obbs = hb.obb.from_boxes(boxes)
    np.testing.assert_array_equal(got[far], hb.obb.overlap(as_obbs, obbs)[far])
    assert 0.05 < got.mean() < 0.95


@needs_coal
def test_sphere_kdop_matches_coal_on_the_kdop_hull():
    rng = np.random.default_rng(7)
    n = 10_500
    got = {}
    ref = {}
    for k in (14, 18, 26):
        kd = volumes("kdop", n // 3, rng, k)
        sub = volumes("sphere", n // 3, rng)
        got[k] = mixed.overlap_sphere_kdop(sub, kd)
        ref[k] = np.array(
            [
                coal_distance(
                    coal_convex(v),
                    coal_transform(),
                    coal.Sphere(sub.radius[i]),
                    coal_transform(trans=sub.center[i]),
                )
                for i, v in enumerate(hb.kdop.vertices(kd))
            ]
        )
    total = 0
    for k in got:
        far = np.abs(ref[k]) > 1e-6
        total += far.sum()
        np.testing.assert_array_equal(got[k][far], ref[k][far] <= 0, err_msg=f"k={k}")
        assert 0.05 < got[k].mean() < 0.95
    assert total >= 10_000


@settings(max_examples=300)
@given(
    hnp.arrays(np.float64, (6, 3), elements=grid),
    hnp.arrays(np.float64, (3,), elements=grid),
    st.integers(0, 8).map(lambda x: x / 2),
    st.sampled_from((6, 14, 18, 26)),
)
def test_sphere_kdop_matches_its_enumeration_twin(points, center, radius, k):
    """On grid data (touching, shared planes, flat k-DOPs) the fast path and the
    exhaustive enumeration over faces, edges and vertices agree exactly."""
    from hitbox._kernels import sphere_kdop as ksk

    kd = hb.kdop.fit(points, k)
    got = mixed.overlap_sphere_kdop(Spheres(center, radius), kd)
    axes = np.array(hb.kdop.AXES[k])
    tol = 1e-12 * (np.abs(center).sum() + radius + np.abs(kd).max())
    inside = hb.kdop.contains_points(kd, center)
    twin = inside or ksk._enumerate(kd[None], 0, axes, *center, float(radius), tol)
    assert got == twin
    # and the distance to the polytope's vertices bounds it: a vertex within r is a hit
    verts = hb.kdop.vertices(kd)
    if len(verts) and np.min(np.linalg.norm(verts - center, axis=1)) <= radius:
        assert got


@settings(max_examples=300)
@given(
    hnp.arrays(np.float64, (2, 3), elements=grid),
    hnp.arrays(np.float64, (3,), elements=grid),
    st.integers(-1, 8).map(lambda x: x / 2),
)
def test_sphere_aabb_on_the_grid(corners, center, radius):
    """Integers and halves: touching spheres and boxes are exact, and must overlap."""
    box = np.stack([corners.min(axis=0), corners.max(axis=0)])
    got = mixed.overlap_sphere_aabb(Spheres(center, radius), box)
    d2 = np.sum((np.clip(center, box[0], box[1]) - center) ** 2)
    assert got == (radius >= 0 and d2 <= radius * radius)
    assert got == mixed.overlap_sphere_kdop(Spheres(center, radius), box)  # the 6-DOP


def test_huge_and_tiny_scenes_answer_like_unit_scenes():
    rng = np.random.default_rng(8)
    s, boxes, obbs = (
        volumes("sphere", 2000, rng),
        volumes("aabb", 2000, rng),
        volumes("obb", 2000, rng),
    )
    kd = volumes("kdop", 2000, rng)
    base = [
        mixed.overlap(s, boxes),
        mixed.overlap(s, obbs),
        mixed.overlap(s, kd),
        mixed.overlap(boxes, obbs),
        mixed.overlap(boxes, kd),
        mixed.overlap(kd, obbs),
    ]
    for scale in (2.0**-600, 2.0**500):
        ss = Spheres(s.center * scale, s.radius * scale)
        oo = OBBs(obbs.center * scale, obbs.half * scale, obbs.rot)
        got = [
            mixed.overlap(ss, boxes * scale),
            mixed.overlap(ss, oo),
            mixed.overlap(ss, kd * scale),
            mixed.overlap(boxes * scale, oo),
            mixed.overlap(boxes * scale, kd * scale),
            mixed.overlap(kd * scale, oo),
        ]
        for g, b in zip(got, base, strict=True):
            np.testing.assert_array_equal(g, b)


# -- edges: touching, parallel edges, empty and unbounded volumes ------------------------


def test_touching_counts_as_overlapping():
    box = np.array([[0.0, 0, 0], [1, 1, 1]])
    ident = OBBs(np.array([2.0, 0.5, 0.5]), np.array([1.0, 0.5, 0.5]), np.eye(3))
    assert mixed.overlap(box, ident)  # face on face, parallel edges everywhere
    turned = OBBs(
        np.array([1.5, 0.5, 0.5]),
        np.array([0.5, 0.5, 0.5]),
        np.array([[0.0, -1, 0], [1, 0, 0], [0, 0, 1]]),
    )  # 90 degrees about z
    assert mixed.overlap(box, turned)
    assert not mixed.overlap(
        box, OBBs(turned.center + [1e-6, 0, 0], turned.half, turned.rot)
    )
    s = Spheres(np.array([2.0, 0.5, 0.5]), 1.0)
    assert mixed.overlap(s, box) and mixed.overlap(s, hb.obb.from_boxes(box))
    corner = Spheres(np.array([2.0, 2.0, 1.0]), np.sqrt(2.0))
    assert mixed.overlap(corner, box)  # touches the edge x = y = 1
    assert not mixed.overlap(Spheres(corner.center, np.sqrt(2.0) * (1 - 1e-9)), box)
    # an 18-DOP cut at x + y <= 1: the corner sphere is now away from the cut edge
    cut = hb.kdop.fit(
        np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [0, 1, 1]]), 18
    )
    d = np.sqrt(2.0) * 1.5  # distance from (2, 2) to the line x + y = 1
    assert mixed.overlap(Spheres(corner.center, d), cut)
    assert not mixed.overlap(Spheres(corner.center, d * (1 - 1e-9)), cut)
    assert mixed.overlap(box, cut) and mixed.overlap(cut, ident)


def test_empty_volumes_overlap_nothing():
    big = np.array([[-np.inf] * 3, [np.inf] * 3])
    empties = {
        "sphere": Spheres(np.zeros(3), -1.0),
        "aabb": np.array([[1.0, 0, 0], [0, 1, 1]]),
        "kdop": hb.kdop.fit(np.zeros((0, 3)), 18),
        "obb": OBBs(np.zeros(3), np.array([1.0, -1.0, 1.0]), np.eye(3)),
    }
    fulls = {
        "sphere": Spheres(np.zeros(3), np.inf),
        "aabb": big,
        "kdop": np.array([[-np.inf] * 9, [np.inf] * 9]),
        "obb": OBBs(np.zeros(3), np.full(3, 1e300), np.eye(3)),
    }
    for ka, kb in itertools.product(KINDS, KINDS):
        assert not mixed.overlap(empties[ka], fulls[kb]), (ka, kb)
        assert not mixed.overlap(fulls[ka], empties[kb]), (ka, kb)
        if ka != kb:
            assert mixed.overlap(fulls[ka], fulls[kb]), (ka, kb)


def test_unbounded_boxes_are_exact_against_obbs():
    rng = np.random.default_rng(9)
    obbs = volumes("obb", 2000, rng)
    half_space = np.array([[2.0, -np.inf, -np.inf], [np.inf, np.inf, np.inf]])
    got = mixed.overlap(half_space, obbs)
    reach = obbs.center[:, 0] + np.einsum(
        "nk,nk->n", np.abs(obbs.rot[:, 0, :]), obbs.half
    )
    np.testing.assert_array_equal(got, reach >= 2.0)
    slab = np.array([[-np.inf, 1.0, -np.inf], [np.inf, 1.5, np.inf]])
    ext = np.einsum("nk,nk->n", np.abs(obbs.rot[:, 1, :]), obbs.half)
    np.testing.assert_array_equal(
        mixed.overlap(slab, obbs),
        (obbs.center[:, 1] + ext >= 1.0) & (obbs.center[:, 1] - ext <= 1.5),
    )


def test_enclosing_boxes_hold_the_volumes():
    rng = np.random.default_rng(10)
    s = volumes("sphere", 50, rng)
    np.testing.assert_allclose(
        mixed.enclosing_boxes(s)[:, 1], s.center + s.radius[:, None]
    )
    obbs = volumes("obb", 50, rng)
    boxes = mixed.enclosing_boxes(obbs)
    corners = hb.obb.corners(obbs)
    assert np.all(corners >= boxes[:, None, 0] - 1e-12) and np.all(
        corners <= boxes[:, None, 1] + 1e-12
    )
    np.testing.assert_allclose(boxes, hb.aabb.from_points(corners), atol=1e-12)
    kd = volumes("kdop", 50, rng)
    np.testing.assert_array_equal(mixed.enclosing_boxes(kd), kd[:, :, :3])


# -- conservative tests never miss -------------------------------------------------------


def unit_axes(k):
    axes = hb.kdop.AXES[k]
    return axes / np.linalg.norm(axes, axis=1, keepdims=True)


def support(verts, axes):
    """(lo, hi) of padded vertex sets (n, V, 3) projected on axes (A, 3): (n, A) each."""
    proj = verts @ axes.T
    return proj.min(axis=1), proj.max(axis=1)


def box_support(half_edges, center, axes):
    """(lo, hi) on axes ((A, 3) or (n, A, 3)) of boxes with centres (n, 3) and half-edge
    vectors as the rows of half_edges (n, 3, 3)."""
    if axes.ndim == 2:
        axes = np.broadcast_to(axes, (len(center),) + axes.shape)
    at = np.swapaxes(axes, -1, -2)
    mid = (center[:, None, :] @ at)[:, 0]
    ext = np.abs(half_edges @ at).sum(axis=1)
    return mid - ext, mid + ext


def paired_kdops(k, distinct, n, rng):
    """n k-DOPs drawn from ``distinct`` random ones: (the k-DOPs, index, vertices)."""
    kd = volumes("kdop", distinct, rng, k)
    idx = rng.integers(0, distinct, n)
    return kd, idx, padded_vertices(kd)


def aabb_kdop_gap(boxes, kd, idx, verts, k):
    """Exact gap (SAT over face normals and every box edge x k-DOP edge cross)."""
    cross = np.cross(np.eye(3)[:, None, :], edge_directions(k)[None, :, :]).reshape(-1, 3)
    axes = np.concatenate([unit_axes(k), unit_or(cross, unit_axes(k)[0])])
    klo, khi = support(verts, axes)
    center = 0.5 * (boxes[:, 0] + boxes[:, 1])
    half = np.einsum("nk,km->nkm", 0.5 * (boxes[:, 1] - boxes[:, 0]), np.eye(3))
    blo, bhi = box_support(half, center, axes)
    return np.maximum(blo - khi[idx], klo[idx] - bhi).max(axis=1)


def kdop_obb_gap(kd, idx, verts, obbs, k, chunk=4000):
    """Exact gap between k-DOP polytopes and OBBs. First the k-DOP's normals and the OBB's
    axes (a positive gap there already proves the pair apart), then, for the pairs those
    leave, every edge cross as well."""
    half = np.swapaxes(obbs.rot, 1, 2) * obbs.half[:, :, None]  # rows: half-edge vectors
    normals = unit_axes(k)
    klo, khi = support(verts, normals)
    blo, bhi = box_support(half, obbs.center, normals)
    gap = np.maximum(blo - khi[idx], klo[idx] - bhi).max(axis=1)
    u = np.swapaxes(obbs.rot, 1, 2)  # rows: the OBB's axes
    proj = verts[idx] @ obbs.rot  # on the OBB's axes (the columns of rot)
    mid = (obbs.center[:, None, :] @ obbs.rot)[:, 0]
    own = np.maximum(
        proj.min(axis=1) - (mid + obbs.half), mid - obbs.half - proj.max(axis=1)
    ).max(axis=1)
    gap = np.maximum(gap, own)
    rest = np.flatnonzero(gap <= TOUCH)
    edges = edge_directions(k)
    for s in range(0, len(rest), chunk):
        sel = rest[s : s + chunk]
        cross = np.cross(edges[None, :, None, :], u[sel][:, None, :, :]).reshape(
            len(sel), -1, 3
        )
        axes = unit_or(cross, normals[0])
        pv = verts[idx[sel]] @ np.swapaxes(axes, 1, 2)
        olo, ohi = box_support(half[sel], obbs.center[sel], axes)
        g = np.maximum(olo - pv.max(axis=1), pv.min(axis=1) - ohi).max(axis=1)
        gap[sel] = np.maximum(gap[sel], g)
    return gap


def test_aabb_kdop_never_misses_and_is_exact_for_18():
    rng = np.random.default_rng(11)
    n = 40_000
    for k in (14, 18, 26):
        kd, idx, verts = paired_kdops(k, 4000, n, rng)
        boxes = volumes("aabb", n, rng, k)
        got = mixed.overlap_aabb_kdop(boxes, kd[idx])
        gap = aabb_kdop_gap(boxes, kd, idx, verts, k)
        over, apart = gap < -TOUCH, gap > TOUCH
        assert not np.any(~got & over), f"k={k}: said apart for overlapping volumes"
        assert over.mean() > 0.1 and apart.mean() > 0.5
        if k == 18:
            assert not np.any(got & apart), "the 18-DOP test is exact"
        else:
            assert np.mean(got[apart]) < 0.02


def test_kdop_obb_never_misses():
    rng = np.random.default_rng(12)
    n = 15_000
    for k in (14, 18, 26):
        kd, idx, verts = paired_kdops(k, 4000, n, rng)
        obbs = volumes("obb", n, rng)
        got = mixed.overlap_kdop_obb(kd[idx], obbs)
        gap = kdop_obb_gap(kd, idx, verts, obbs, k)
        over, apart = gap < -TOUCH, gap > TOUCH
        assert not np.any(~got & over), f"k={k}: said apart for overlapping volumes"
        assert over.mean() > 0.1 and apart.mean() > 0.5
        assert np.mean(got[apart]) < 0.06  # measured 2.5 %: bench_mixed


def test_gap_oracles_agree_with_the_plain_sat():
    """The staged oracles above against the one-pass SAT over every axis."""
    rng = np.random.default_rng(16)
    for k in (14, 26):
        kd, idx, verts = paired_kdops(k, 300, 3000, rng)
        boxes, obbs = volumes("aabb", 3000, rng), volumes("obb", 3000, rng)
        np.testing.assert_allclose(
            aabb_kdop_gap(boxes, kd, idx, verts, k),
            polytope_gap(verts[idx], hb.aabb.corners(boxes), k),
            atol=1e-12,
        )
        staged = kdop_obb_gap(kd, idx, verts, obbs, k)
        plain = polytope_gap(verts[idx], hb.obb.corners(obbs), k, obbs.rot)
        np.testing.assert_array_equal(staged > TOUCH, plain > TOUCH)
        np.testing.assert_array_equal(staged < -TOUCH, plain < -TOUCH)


@needs_coal
def test_polytope_oracle_agrees_with_coal():
    """The SAT oracle of the two tests above, checked on a sample against Coal's GJK."""
    rng = np.random.default_rng(13)
    n = 300
    kd, obbs = volumes("kdop", n, rng, 26), volumes("obb", n, rng)
    verts = padded_vertices(kd)
    gap = polytope_gap(verts, hb.obb.corners(obbs), 26, obbs.rot)
    ref = np.array(
        [
            coal_distance(
                coal_convex(v),
                coal_transform(),
                coal.Box(*(2 * obbs.half[i])),
                coal_transform(obbs.rot[i], obbs.center[i]),
            )
            for i, v in enumerate(hb.kdop.vertices(kd))
        ]
    )
    far = np.abs(ref) > 1e-6
    np.testing.assert_array_equal(gap[far] > 0, ref[far] > 0)
    # a separating axis's gap never exceeds the distance (equal when a face or an edge
    # pair realises it)
    assert np.all(gap[far] <= ref[far] + 1e-9)


# -- choosing a volume -------------------------------------------------------------------


def rotation_about(axis, degrees):
    t = np.radians(degrees)
    c, s = np.cos(t), np.sin(t)
    i, j = [(1, 2), (0, 2), (0, 1)][axis]
    r = np.eye(3)
    r[i, i] = r[j, j] = c
    r[i, j], r[j, i] = -s, s
    return r


def long_box(rng):
    corners = np.array(list(itertools.product([-5, 5], [-0.5, 0.5], [-0.5, 0.5])), float)
    return np.concatenate([corners, rng.uniform(-1, 1, (500, 3)) * [5, 0.5, 0.5]])


def sphere_cloud(rng):
    u = rng.normal(size=(2000, 3))
    return 3.0 * u / np.linalg.norm(u, axis=1, keepdims=True) + [1.0, -2.0, 0.5]


def octahedron_cloud(rng):
    u = rng.normal(size=(2000, 3))
    return u / np.abs(u).sum(axis=1, keepdims=True)


def chamfered_cube(rng):
    """A cube with its 12 edges cut: |x|, |y|, |z| <= 1 and |x +- y| etc. <= 1.5."""
    p = rng.uniform(-1, 1, (20_000, 3))
    x, y, z = p.T
    keep = np.all(np.abs([x + y, x - y, x + z, x - z, y + z, y - z]) <= 1.5, axis=0)
    return p[keep]


def test_choose_on_shapes_with_a_clear_answer():
    rng = np.random.default_rng(14)
    turn = rotation_about(0, 30) @ rotation_about(1, 30)
    assert mixed.choose(sphere_cloud(rng)) == "sphere"
    assert mixed.choose(sphere_cloud(rng), rotating=True) == "sphere"
    assert mixed.choose(long_box(rng)) == "aabb"
    assert mixed.choose(long_box(rng) @ turn.T) == "obb"
    assert mixed.choose(octahedron_cloud(rng)) == "kdop18"
    assert mixed.choose(chamfered_cube(rng)) == "kdop18"
    assert mixed.choose(octahedron_cloud(rng), k=26) == "kdop26"
    # turning often: a compact shape takes the sphere; a long box keeps the OBB, whose
    # volume is 50 times smaller than its sphere's
    assert mixed.choose(chamfered_cube(rng), rotating=True) == "sphere"
    assert mixed.choose(long_box(rng), rotating=True) == "obb"
    assert mixed.choose(long_box(rng) @ turn.T, rotating=True) == "obb"


def test_choose_report_and_the_rule():
    rng = np.random.default_rng(15)
    pts = long_box(rng) @ (rotation_about(0, 30) @ rotation_about(1, 30)).T
    rep = mixed.choose_report(pts)
    assert set(rep) == {
        "kind",
        "volume",
        "ratio",
        "cost",
        "score",
        "rotating",
        "miss_cost",
    }
    names = ("sphere", "aabb", "kdop18", "obb")
    assert set(rep["volume"]) == set(names)
    np.testing.assert_allclose(rep["volume"]["obb"], 10.0, rtol=1e-6)
    np.testing.assert_allclose(
        rep["volume"]["aabb"], hb.aabb.volume(hb.aabb.from_points(pts))
    )
    for n in names:
        assert rep["score"][n] == pytest.approx(
            rep["cost"][n] + rep["miss_cost"] * rep["ratio"][n]
        )
    assert rep["kind"] == min(names, key=rep["score"].get) == "obb"
    assert min(rep["ratio"].values()) == pytest.approx(1.0)
    # miss_cost 0 picks the cheapest test; a dearer OBB test tips the choice to the k-DOP
    assert mixed.choose(pts, miss_cost=0.0) == "sphere"
    assert mixed.choose(pts, costs={"obb": 1000.0}) == "kdop18"
    rot = mixed.choose_report(pts, rotating=True)
    r = rot["volume"]["sphere"] / (4 / 3 * np.pi)
    np.testing.assert_allclose(rot["volume"]["aabb"], 8 * r, rtol=1e-12)


def test_kdop_volume_is_exact_on_known_polytopes():
    cube = np.array(list(itertools.product([-1, 1], repeat=3)), float)
    octa = np.concatenate([np.eye(3), -np.eye(3)])
    for k in (6, 14, 18, 26):
        assert mixed._kdop_volume(hb.kdop.fit(cube, k), k) == pytest.approx(8.0)
    assert mixed._kdop_volume(hb.kdop.fit(octa, 18), 18) == pytest.approx(2.0)
    assert mixed._kdop_volume(hb.kdop.fit(octa, 26), 26) == pytest.approx(4 / 3)
    assert mixed._kdop_volume(hb.kdop.fit(octa, 14), 14) == pytest.approx(4 / 3)
    flat = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0]])
    assert mixed._kdop_volume(hb.kdop.fit(flat, 18), 18) == pytest.approx(0.0, abs=1e-12)


def test_choose_degenerate_objects():
    assert mixed.choose(np.zeros((1, 3))) == "sphere"  # a point: all volumes 0, cheapest
    flat = np.array(list(itertools.product([0, 4], [0, 1], [0])), float)
    assert mixed.choose(flat) == "aabb"


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"points": np.zeros((0, 3))}, ValueError, "points"),
        ({"points": np.zeros((4, 2))}, ValueError, "points"),
        ({"points": [[np.nan, 0, 0]]}, ValueError, "points"),
        ({"points": np.zeros((4, 3)), "k": 12}, ValueError, "k"),
        ({"points": np.zeros((4, 3)), "miss_cost": -1.0}, ValueError, "miss_cost"),
        ({"points": np.zeros((4, 3)), "miss_cost": "x"}, TypeError, "miss_cost"),
        ({"points": np.zeros((4, 3)), "costs": {"cone": 1.0}}, ValueError, "costs"),
        ({"points": np.zeros((4, 3)), "costs": {"obb": np.inf}}, ValueError, "costs"),
        ({"points": np.zeros((4, 3)), "rotating": "yes"}, TypeError, "rotating"),
    ],
)
def test_choose_bad_input(kwargs, error, match):
    with pytest.raises(error, match=match):
        mixed.choose(**kwargs)
