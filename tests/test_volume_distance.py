"""Distances between bounding volumes (hitbox.volume_distance).

Oracles: closed forms in numpy (sphere, box and clamp distances); for every pair a
certificate built from independent code: the points lie in their volumes (tested on the
volumes' half-space forms) and, for separated pairs, the plane through each point normal
to the gap supports its volume (support functions in closed form, k-DOPs by their
vertices from a numpy solve of every plane triple). Both together pin the distance:
``|d - exact| <= 2 tol``. Further: distance 0 against the overlap tests, symmetry,
translation, the k-DOP vertex twin, python-fcl and Coal.
"""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import hitbox as hb
from hitbox import OBBs, Spheres, mixed
from hitbox import volume_distance as vd
from hitbox._kernels import volume_distance as _k
from tests.strategies import count, grid, rotations, take

KINDS = ("sphere", "aabb", "kdop", "obb")
GJK_REL = 1e-9  # the documented accuracy of GJK pairs: 1e-9 d + 1e-12 scale
seeds = st.integers(0, 2**32 - 1)


# -- volumes ----------------------------------------------------------------------------


def volumes(kind, n, rng, k=18, side=4.0, dim=3):
    """n random volumes about 1 across, centres in [0, side]^D; some k-DOPs flat."""
    c = rng.uniform(0.0, side, (n, dim))
    if kind == "sphere":
        return Spheres(c, rng.uniform(0.05, 1.0, n))
    if kind == "aabb":
        h = rng.uniform(0.05, 1.0, (n, dim))
        return np.stack([c - h, c + h], axis=1)
    if kind == "obb":
        return OBBs(c, rng.uniform(0.05, 1.0, (n, 3)), rotations(n, rng))
    pts = rng.normal(size=(n, 10, 3)) * rng.uniform(0.2, 1.0, (n, 1, 3))
    flat = rng.random(n) < 0.2
    pts[flat, :, 2] = 0.0  # flat k-DOPs: a polygon
    pts = np.einsum("nij,nmj->nmi", rotations(n, rng), pts)
    return hb.kdop.fit(c[:, None, :] + pts, k)


def translated(vols, t):
    if isinstance(vols, Spheres):
        return Spheres(vols.center + t, vols.radius)
    if isinstance(vols, OBBs):
        return OBBs(vols.center + t, vols.half, vols.rot)
    if vols.shape[2] == len(t):
        return vols + t
    return vols + hb.kdop.AXES[{7: 14, 9: 18, 13: 26}[vols.shape[2]]] @ t


# -- oracles: membership and support functions, independent of the kernels ---------------


def kdop_axes(kd):
    return hb.kdop.AXES[{3: 6, 7: 14, 9: 18, 13: 26}[kd.shape[-1]]]


def kdop_vertices_oracle(kd):
    """Every plane triple solved by numpy, kept within 1e-9 of every slab."""
    axes = kdop_axes(kd)
    normals = np.concatenate([axes, axes])
    bounds = np.concatenate([kd[0], kd[1]])
    tri = np.array(list(itertools.combinations(range(len(normals)), 3)))
    m = normals[tri]  # (T, 3, 3)
    ok = np.abs(np.linalg.det(m)) > 0.5
    x = np.linalg.solve(m[ok], bounds[tri[ok]][..., None])[..., 0]
    p = x @ axes.T
    inside = np.all((p >= kd[0] - 1e-9) & (p <= kd[1] + 1e-9), axis=1)
    return x[inside]


def support(kind, vol, i, u):
    """max over volume i of u . x."""
    if kind == "sphere":
        return vol.center[i] @ u + vol.radius[i] * np.linalg.norm(u)
    if kind == "aabb":
        return np.maximum(vol[i, 0] * u, vol[i, 1] * u).sum()
    if kind == "obb":
        return vol.center[i] @ u + vol.half[i] @ np.abs(vol.rot[i].T @ u)
    return (kdop_vertices_oracle(vol[i]) @ u).max()


def excess(kind, vol, i, x):
    """How far outside volume i the point x lies (<= 0 inside), in its half-spaces."""
    if kind == "sphere":
        return np.linalg.norm(x - vol.center[i]) - vol.radius[i]
    if kind == "aabb":
        return max((vol[i, 0] - x).max(), (x - vol[i, 1]).max())
    if kind == "obb":
        return (np.abs(vol.rot[i].T @ (x - vol.center[i])) - vol.half[i]).max()
    axes = kdop_axes(vol[i])
    norms = np.linalg.norm(axes, axis=1)
    p = axes @ x
    return max(((vol[i, 0] - p) / norms).max(), ((p - vol[i, 1]) / norms).max())


def scale_of(ka, a, kb, b, i, j):
    boxes = [
        mixed.enclosing_boxes(take(a, [i]))[0],
        mixed.enclosing_boxes(take(b, [j]))[0],
    ]
    return max(np.abs(x).max() for x in boxes)


def certify(ka, a, kb, b, out, rel, abs_tol):
    """Each pair's distance is the exact one within rel * d + abs_tol * scale."""
    for n in range(count(a)):
        d, pa, pb = out.distance[n], out.point_a[n], out.point_b[n]
        tol = rel * d + abs_tol * max(scale_of(ka, a, kb, b, n, n), 1e-300)
        assert excess(ka, a, n, pa) <= tol, (n, "point_a outside A")
        assert excess(kb, b, n, pb) <= tol, (n, "point_b outside B")
        assert abs(np.linalg.norm(pb - pa) - d) <= tol, (n, "points do not realise d")
        if d > 0:  # supporting planes through both points: no pair is closer than d
            u = (pb - pa) / np.linalg.norm(pb - pa)
            # the points' errors turn u by up to (2 tol + rounding) / d: the volumes'
            # extent (at most 2 scale) times that is the planes' slack
            sc = scale_of(ka, a, kb, b, n, n)
            tilt = tol + 2 * sc * (2 * tol + 1e-15 * sc) / d
            assert support(ka, a, n, u) <= u @ pa + tilt, (n, "A reaches past point_a")
            assert support(kb, b, n, -u) <= -u @ pb + tilt, (n, "B reaches past point_b")


# -- closed forms ------------------------------------------------------------------------


@st.composite
def grid_spheres(draw, n, dim):
    c = draw(hnp.arrays(np.float64, (n, dim), elements=grid))
    r = draw(
        hnp.arrays(np.float64, (n,), elements=st.integers(0, 6).map(lambda x: x / 2))
    )
    return Spheres(c, r)


@st.composite
def grid_boxes(draw, n, dim):
    a = draw(hnp.arrays(np.float64, (n, 2, dim), elements=grid))
    return np.stack([a.min(axis=1), a.max(axis=1)], axis=1)


def gap_boxes(a, b):
    g = np.maximum(np.maximum(b[:, 0] - a[:, 1], a[:, 0] - b[:, 1]), 0.0)
    return np.linalg.norm(g, axis=1)


@settings(max_examples=60)
@given(st.integers(1, 3), st.data())
def test_closed_forms_match_numpy_and_overlap_exactly(dim, data):
    n = 6
    s1, s2 = data.draw(grid_spheres(n, dim)), data.draw(grid_spheres(n, dim))
    b1, b2 = data.draw(grid_boxes(n, dim)), data.draw(grid_boxes(n, dim))
    ss = vd.distance(s1, s2)
    want = np.maximum(
        np.linalg.norm(s1.center - s2.center, axis=1) - s1.radius - s2.radius, 0
    )
    np.testing.assert_allclose(ss.distance, want, rtol=1e-12, atol=1e-300)
    np.testing.assert_array_equal(ss.distance == 0, hb.sphere.overlap(s1, s2))
    bb = vd.distance(b1, b2)
    np.testing.assert_allclose(bb.distance, gap_boxes(b1, b2), rtol=1e-12)
    np.testing.assert_array_equal(bb.distance == 0, hb.aabb.overlap(b1, b2))
    sb = vd.distance(s1, b2)
    q = np.clip(s1.center, b2[:, 0], b2[:, 1])
    want = np.maximum(np.linalg.norm(q - s1.center, axis=1) - s1.radius, 0)
    np.testing.assert_allclose(sb.distance, want, rtol=1e-12, atol=1e-300)
    np.testing.assert_array_equal(sb.distance == 0, mixed.overlap(s1, b2))
    for out in (ss, bb, sb):  # the points realise the distance
        np.testing.assert_allclose(
            np.linalg.norm(out.point_b - out.point_a, axis=1), out.distance, atol=1e-12
        )
    np.testing.assert_array_equal(sb.point_b, q)


@settings(max_examples=25)
@given(seeds)
def test_sphere_obb_is_the_clamp_and_agrees_with_the_overlap_test(seed):
    rng = np.random.default_rng(seed)
    s, o = volumes("sphere", 20, rng), volumes("obb", 20, rng)
    out = vd.distance(s, o)
    local = np.einsum("nk,nkm->nm", s.center - o.center, o.rot)
    want = np.linalg.norm(np.maximum(np.abs(local) - o.half, 0.0), axis=1) - s.radius
    np.testing.assert_allclose(out.distance, np.maximum(want, 0), rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(out.distance == 0, mixed.overlap(s, o))
    certify("sphere", s, "obb", o, out, 1e-12, 1e-14)


# -- every kind pair: certificates, overlap, symmetry, translation -----------------------

PAIRS = [(ka, kb) for ka in KINDS for kb in KINDS]
# overlap tests exact up to their 1e-12 slack (the others are conservative)
EXACT = {("sphere", "sphere"), ("aabb", "aabb"), ("sphere", "aabb"), ("sphere", "obb"),
         ("sphere", "kdop"), ("aabb", "obb"), ("obb", "obb")}  # fmt: skip


@pytest.mark.parametrize("ka, kb", PAIRS)
@settings(max_examples=6)
@given(seed=seeds, k=st.sampled_from([14, 18, 26]))
def test_every_kind_pair_is_certified(ka, kb, seed, k):
    rng = np.random.default_rng(seed)
    n = 12
    a, b = volumes(ka, n, rng, k), volumes(kb, n, rng, k)
    out = vd.distance(a, b)
    certify(ka, a, kb, b, out, GJK_REL, 1e-12)
    hit = mixed.overlap(a, b)
    assert not (out.distance == 0)[~hit].any(), "distance 0 where the test says apart"
    exact = tuple(sorted((ka, kb), key=KINDS.index)) in EXACT
    if exact or (k == 18 and {ka, kb} == {"aabb", "kdop"}):
        scale = np.array([scale_of(ka, a, kb, b, m, m) for m in range(n)])
        assert (out.distance[hit] <= 1e-9 * scale[hit]).all()
    # symmetry: the same distance (bit for bit for the closed forms), valid points
    rev = vd.distance(b, a)
    if {ka, kb} <= {"sphere", "aabb"} or {ka, kb} == {"sphere", "obb"}:
        np.testing.assert_array_equal(rev.distance, out.distance)
    else:
        assert (
            np.abs(rev.distance - out.distance) <= GJK_REL * out.distance + 1e-11
        ).all()
    certify(kb, b, ka, a, rev, GJK_REL, 1e-12)
    # translating both moves nothing but the points
    t = np.array([3.0, -2.0, 5.0])
    moved = vd.distance(translated(a, t), translated(b, t))
    tol = GJK_REL * out.distance + 1e-11
    assert (np.abs(moved.distance - out.distance) <= tol).all()


def test_touching_pairs_are_at_distance_zero():
    rng = np.random.default_rng(7)
    rot = rotations(20, rng)
    h = rng.uniform(0.2, 1.0, (20, 3))
    c = rng.uniform(-2, 2, (20, 3))
    a = OBBs(c, h, rot)
    # face to face along A's first axis (rounding leaves them 1e-16 apart or over)
    b = OBBs(c + rot[:, :, 0] * (h[:, :1] + 0.5), np.full((20, 3), 0.5), rot)
    assert (vd.distance(a, b).distance == 0).all() and hb.obb.overlap(a, b).all()
    # exact integer scenes: box corner on a sphere, box faces, a k-DOP on a box face
    s = Spheres(np.array([[0.0, 0, 0]]), np.array([3.0]))
    box = np.array([[[0.0, 0, 3], [1, 1, 4]]])
    assert vd.distance(s, box).distance[0] == 0 and mixed.overlap(s, box)[0]
    corner = np.array([[[3.0, 4, 0], [5, 5, 1]]])  # at (3, 4, 0): |c| = 5
    s5 = Spheres(np.array([[0.0, 0, 0]]), np.array([5.0]))
    assert vd.distance(s5, corner).distance[0] == 0
    assert vd.distance(Spheres(s5.center, np.array([4.999])), corner).distance[0] > 0
    cube = hb.kdop.fit(np.array(list(itertools.product([0.0, 1], repeat=3))), 26)
    on_top = np.array([[[0.25, 0.25, 1.0], [2, 2, 3]]])
    assert vd.distance(on_top, cube).distance == 0 and mixed.overlap(on_top, cube)
    assert vd.distance(on_top + [0, 0, 1e-6], cube).distance == pytest.approx(1e-6)
    # the 26-DOP's cut corner: (1, 1, 1) is out, the plane x + y + z <= 3 - 0.3 cuts it
    cut = cube.copy()
    cut[1, 3] = 2.7  # the (1, 1, 1) corner direction
    ball = Spheres(np.array([2.0, 2, 2]), 0.0)
    want = (6 - 2.7) / np.sqrt(3)
    assert vd.distance(ball, cut).distance == pytest.approx(want, rel=1e-12)


def test_common_points_lie_in_both_volumes():
    rng = np.random.default_rng(3)
    for ka, kb in PAIRS:
        a, b = volumes(ka, 40, rng, side=1.0), volumes(kb, 40, rng, side=1.0)
        out = vd.distance(a, b)
        zero = np.flatnonzero(out.distance == 0)
        assert len(zero) > 10
        np.testing.assert_array_equal(out.point_a[zero], out.point_b[zero])
        for m in zero:
            assert excess(ka, a, m, out.point_a[m]) <= 1e-11
            assert excess(kb, b, m, out.point_b[m]) <= 1e-11


# -- k-DOP vertices ----------------------------------------------------------------------


@settings(max_examples=30)
@given(seed=seeds, k=st.sampled_from([14, 18, 26]), shape=st.sampled_from(
    ["solid", "flat", "segment", "point", "grid"]))  # fmt: skip
def test_kdop_vertices_by_clipping_equal_the_brute_force_twin(seed, k, shape):
    rng = np.random.default_rng(seed)
    m = {"solid": 8, "flat": 6, "segment": 2, "point": 1, "grid": 5}[shape]
    pts = rng.normal(size=(30, m, 3))
    if shape == "flat":
        pts[:, :, 2] = 0.0
        pts = np.einsum("nij,nmj->nmi", rotations(30, rng), pts)
    if shape == "grid":
        pts = np.round(2 * pts) / 2
    kd = hb.kdop.fit(pts, k)
    v1, c1 = vd._kdop_vertices(kd, k)
    v2, c2 = vd._kdop_vertices(kd, k, brute=True)
    np.testing.assert_array_equal(c1, c2)
    f = np.concatenate([[0], np.cumsum(c1)])
    for i in range(len(kd)):
        x, y = v1[f[i] : f[i + 1]], v2[f[i] : f[i + 1]]
        gap = np.abs(x[:, None] - y[None]).max(axis=2)
        assert gap.min(axis=1).max() <= 1e-12 * (np.abs(kd[i]).max() + 1)
        assert gap.min(axis=0).max() <= 1e-12 * (np.abs(kd[i]).max() + 1)
        ref = kdop_vertices_oracle(kd[i])  # the numpy solve: the same point set
        assert np.abs(x[:, None] - ref[None]).max(axis=2).min(axis=0).max() < 1e-9


def test_kdops_whose_slabs_never_meet_are_empty():
    cube = hb.kdop.fit(np.array(list(itertools.product([0.0, 1], repeat=3))), 18)
    bad = cube.copy()
    bad[:, 3] += 10.0  # x + y in [10, 12] while x, y in [0, 1]
    out = vd.distance(bad, cube)
    assert out.distance == np.inf and np.isnan(out.point_a).all()


# -- batching, empty volumes, validation -------------------------------------------------


def test_pairs_broadcasting_and_distance_pairs_match_brute_force():
    rng = np.random.default_rng(11)
    for ka, kb in [
        ("obb", "kdop"),
        ("sphere", "aabb"),
        ("aabb", "obb"),
        ("kdop", "sphere"),
    ]:
        a, b = volumes(ka, 9, rng), volumes(kb, 7, rng)
        ii, jj = (x.ravel() for x in np.indices((9, 7)))
        brute = vd.distance(take(a, ii), take(b, jj))
        by_pairs = vd.distance(a, b, np.stack([ii, jj]))
        np.testing.assert_array_equal(by_pairs.distance, brute.distance)
        one = vd.distance(take(a, [4]), b)  # one against many
        np.testing.assert_array_equal(one.distance, brute.distance[ii == 4])
        for reach in (0.0, 0.7, np.inf):
            got = vd.distance_pairs(a, b, reach)
            keep = brute.distance <= reach
            np.testing.assert_array_equal(got.pairs, np.stack([ii[keep], jj[keep]]))
            np.testing.assert_array_equal(got.distance, brute.distance[keep])
        near = vd.distance_pairs(a, b, 0.0).pairs
        over = mixed.overlap_pairs(a, b)
        assert {tuple(p) for p in near.T} <= {tuple(p) for p in over.T}


def test_parallel_kernel_equals_serial():
    rng = np.random.default_rng(5)
    a, b = volumes("obb", 5000, rng), volumes("kdop", 5000, rng)
    out = vd.distance(a, b)  # 5000 pairs: the parallel kernel
    sa, _ = vd._shapes("obb", a)
    sb, _ = vd._shapes("kdop", (b, 18))
    idx = np.arange(5000)
    d, qa, qb = np.empty(5000), np.empty((5000, 3)), np.empty((5000, 3))
    _k.gjk_pairs(sa, idx, sb, idx, d, qa, qb)
    np.testing.assert_array_equal(out.distance, d)
    np.testing.assert_array_equal(out.point_a, qa)


def test_single_volumes_give_a_float_and_points():
    out = vd.distance(Spheres([0.0, 0.0], 1.0), np.array([[3.0, 0], [4, 1]]))
    assert isinstance(out.distance, float) and out.distance == 2.0
    np.testing.assert_array_equal(out.point_a, [1.0, 0.0])
    np.testing.assert_array_equal(out.point_b, [3.0, 0.0])
    one_d = vd.distance(np.array([[0.0], [1]]), np.array([[3.0], [4]]))
    assert one_d.distance == 2.0


def test_empty_input_and_empty_volumes():
    rng = np.random.default_rng(2)
    for ka, kb in PAIRS:
        a, b = volumes(ka, 3, rng), volumes(kb, 3, rng)
        out = vd.distance(take(a, []), b[:0] if not isinstance(b, tuple) else take(b, []))
        assert out.distance.shape == (0,) and out.point_a.shape == (0, 3)
        assert vd.distance_pairs(take(a, []), b, 1.0).pairs.shape == (2, 0)
    empty_box = hb.aabb.empty(2, 3)
    out = vd.distance(empty_box, volumes("obb", 2, rng))
    assert np.isinf(out.distance).all() and np.isnan(out.point_b).all()
    out = vd.distance(
        Spheres(np.zeros((1, 3)), np.array([-1.0])), volumes("kdop", 2, rng)
    )
    assert np.isinf(out.distance).all()
    kd_empty = np.array([[[1.0] * 9, [0.0] * 9]])
    assert vd.distance(kd_empty, volumes("sphere", 1, rng)).distance[0] == np.inf


def test_infinite_volumes():
    whole = Spheres(np.zeros((1, 3)), np.array([np.inf]))
    out = vd.distance(whole, volumes("kdop", 3, np.random.default_rng(0)))
    assert (out.distance == 0).all()
    slab = np.array([[[-np.inf, 0, -np.inf], [np.inf, 1, np.inf]]])
    assert vd.distance(slab, np.array([[[5.0, 3, 5], [6, 4, 6]]])).distance[0] == 2.0
    with pytest.raises(ValueError, match=r"a\[0\] is unbounded"):
        vd.distance(slab, volumes("obb", 1, np.random.default_rng(0)))


def test_bad_input_names_the_argument():
    rng = np.random.default_rng(0)
    o, s = volumes("obb", 3, rng), volumes("sphere", 3, rng)
    with pytest.raises(TypeError, match="^a must be Spheres"):
        vd.distance(hb.Rays(np.zeros((1, 3)), np.ones((1, 3)), np.ones(1)), o)
    with pytest.raises(TypeError, match="^b must hold real numbers"):
        vd.distance(o, np.zeros((3, 2, 3), complex))
    with pytest.raises(ValueError, match="b must be Spheres, OBBs"):
        vd.distance(o, np.zeros((3, 4, 3)))
    with pytest.raises(ValueError, match="a must be 3-dimensional"):
        vd.distance(np.zeros((3, 2, 2)), o)
    with pytest.raises(ValueError, match="b.center must have D = 2"):
        vd.distance(np.zeros((3, 2, 2)), s)
    nan = OBBs(o.center.copy(), o.half, o.rot)
    nan.center[1, 0] = np.nan
    with pytest.raises(ValueError, match=r"b.center\[1\]"):
        vd.distance(s, nan)
    with pytest.raises(ValueError, match="cannot broadcast 3 volumes in a against 2"):
        vd.distance(o, take(s, [0, 1]))
    with pytest.raises(ValueError, match=r"pairs\[1, 0\] = 3 is out of range"):
        vd.distance(o, s, [[0], [3]])
    with pytest.raises(TypeError, match="pairs must hold integers"):
        vd.distance(o, s, [[0.5], [1]])
    with pytest.raises(ValueError, match="max_distance must be >= 0"):
        vd.distance_pairs(o, s, -1.0)


# -- second opinions ---------------------------------------------------------------------


def test_obb_and_sphere_box_distances_match_fcl_and_coal():
    fcl = pytest.importorskip("fcl")
    coal = pytest.importorskip("coal")
    rng = np.random.default_rng(9)
    n = 40
    a, b, s = (
        volumes("obb", n, rng, side=6),
        volumes("obb", n, rng, side=6),
        volumes("sphere", n, rng, side=6),
    )
    ours_bb, ours_sb = vd.distance(a, b).distance, vd.distance(s, b).distance
    for m in range(n):
        ga, gb = fcl.Box(*(2 * a.half[m])), fcl.Box(*(2 * b.half[m]))
        oa = fcl.CollisionObject(ga, fcl.Transform(a.rot[m], a.center[m]))
        ob = fcl.CollisionObject(gb, fcl.Transform(b.rot[m], b.center[m]))
        os_ = fcl.CollisionObject(fcl.Sphere(s.radius[m]), fcl.Transform(s.center[m]))
        req = fcl.DistanceRequest()
        d_fcl = fcl.distance(oa, ob, req, fcl.DistanceResult())
        ds_fcl = fcl.distance(os_, ob, req, fcl.DistanceResult())
        creq = coal.DistanceRequest()
        tb = coal.Transform3s(b.rot[m], b.center[m])
        box_b, res = coal.Box(*(2 * b.half[m])), coal.DistanceResult()
        ta = coal.Transform3s(a.rot[m], a.center[m])
        d_coal = coal.distance(coal.Box(*(2 * a.half[m])), ta, box_b, tb, creq, res)
        ts = coal.Transform3s(np.eye(3), s.center[m])
        res = coal.DistanceResult()
        ds_coal = coal.distance(coal.Sphere(s.radius[m]), ts, box_b, tb, creq, res)
        for ours, theirs in ((ours_bb[m], d_fcl), (ours_bb[m], d_coal),
                             (ours_sb[m], ds_fcl), (ours_sb[m], ds_coal)):  # fmt: skip
            if theirs > 1e-9 or ours > 1e-9:
                assert ours == pytest.approx(theirs, rel=1e-6, abs=1e-9)
            else:
                assert ours == 0.0
