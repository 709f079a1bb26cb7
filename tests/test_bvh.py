"""BVH: every build method x node kind validates, answers like brute force, refits, saves.

Query semantics under test: ``tree.query(v)`` returns the primitives whose AABB overlaps
each query volume (closed), whatever the node kind. Oracles below are numpy broadcasts
over all (query, primitive) pairs, independent of the kernels.
"""

import dataclasses
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import trimesh
from hypothesis import given, settings
from hypothesis import strategies as st

import hitbox as hb
from hitbox import OBBs, Spheres
from hitbox._kernels import bv
from hitbox._kernels import bvh_fit as _fit
from hitbox._kernels import bvh_traverse as _traverse
from hitbox.bvh import BVH, KINDS, METHODS
from tests import oracles, oracles_obb
from tests.strategies import rotation

# -- inputs ------------------------------------------------------------------------------


def soup(seed, n, spread=10.0, size=0.6):
    """n random triangles of about ``size`` scattered over a cube of side ``spread``."""
    rng = np.random.default_rng(seed)
    base = rng.random((n, 1, 3)) * spread
    return base + rng.normal(scale=size, size=(n, 3, 3))


def icosphere():
    m = trimesh.creation.icosphere(subdivisions=2)
    return np.ascontiguousarray(m.vertices[m.faces])


def degenerate_inputs():
    rng = np.random.default_rng(7)
    tri = rng.random((1, 3, 3))
    p = rng.random((40, 1, 3)) * 4
    d = rng.random((40, 1, 3))
    return {
        "one": tri,
        "identical": np.repeat(tri, 37, axis=0),
        "zero_area_lines": p + d * np.array([0.0, 0.5, 1.0])[None, :, None],
        "zero_area_points": np.repeat(p, 3, axis=1),
        "coplanar": np.concatenate(
            [rng.random((30, 3, 2)), np.zeros((30, 3, 1))], axis=2
        ),
        "points": rng.random((25, 1, 3)),
        "empty": np.zeros((0, 3, 3)),
        "far_from_origin": soup(3, 60) + 1e6,
    }


def random_boxes(rng, n, spread=10.0, size=3.0):
    lo = rng.random((n, 3)) * spread - 1.0
    return np.stack([lo, lo + rng.random((n, 3)) * size], axis=1)


def random_spheres(rng, n, spread=10.0, size=2.0):
    return Spheres(rng.random((n, 3)) * spread - 1.0, rng.random(n) * size)


def random_obbs(rng, n, spread=10.0, size=2.0):
    rot = np.stack([rotation(rng) for _ in range(n)]) if n else np.zeros((0, 3, 3))
    return OBBs(rng.random((n, 3)) * spread - 1.0, rng.random((n, 3)) * size, rot)


def prim_boxes(points):
    return np.stack([points.min(axis=1), points.max(axis=1)], axis=1)


# -- oracles -----------------------------------------------------------------------------


def pairs_from(hit):
    return np.array(np.nonzero(hit), dtype=np.intp).reshape(2, -1)


def box_sphere_hits(boxes, spheres):
    """(Q, N) closed: squared distance from each centre to each box within r^2."""
    c = spheres.center[:, None, :]
    q = np.clip(c, boxes[None, :, 0], boxes[None, :, 1])
    d2 = ((c - q) ** 2).sum(axis=2)
    return d2 <= spheres.radius[:, None] ** 2


def box_obb_slack(boxes, obbs):
    """(Q, N) exact edge-clipping slack of each OBB against each box (as an OBB)."""
    q, n = len(obbs.center), len(boxes)
    as_obb = OBBs(
        np.repeat(0.5 * (boxes[:, 0] + boxes[:, 1])[None], q, 0).reshape(-1, 3),
        np.repeat(0.5 * (boxes[:, 1] - boxes[:, 0])[None], q, 0).reshape(-1, 3),
        np.broadcast_to(np.eye(3), (q * n, 3, 3)),
    )
    rep = OBBs(*(np.repeat(x, n, axis=0) for x in obbs))
    return oracles_obb.slack(rep, as_obb).reshape(q, n)


def oracle_query(points, volumes):
    """The answer ``query`` must give, from the primitives' points alone."""
    boxes = prim_boxes(points) if len(points) else np.zeros((0, 2, 3))
    if isinstance(volumes, Spheres):
        return pairs_from(box_sphere_hits(boxes, volumes))
    return oracles.overlap_pairs(np.asarray(volumes, dtype=float), boxes)


def assert_query_matches(tree, points, volumes):
    got = tree.query(volumes)
    np.testing.assert_array_equal(got, tree.query_brute(volumes))
    if isinstance(volumes, OBBs):
        boxes = prim_boxes(points)
        s = box_obb_slack(boxes, volumes)
        clear = np.abs(s) > 1e-9  # ties are a matter of rounding, not of the tree
        hit = np.zeros(s.shape, bool)
        hit[tuple(got)] = True
        np.testing.assert_array_equal(hit[clear], (s >= 0)[clear])
    else:
        np.testing.assert_array_equal(got, oracle_query(points, volumes))
    assert got.dtype == np.intp and got.shape[0] == 2


# -- building ----------------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("kind", KINDS)
def test_build_validates_and_answers_like_brute_force(method, kind):
    rng = np.random.default_rng(1)
    for pts in (soup(11, 300), icosphere()):
        tree = BVH.build(pts, node=kind, method=method)
        tree.validate(pts)
        assert tree.kind == kind and tree.n_prims == len(pts)
        assert tree.n_nodes == 2 * tree.n_leaves - 1
        assert np.all(tree.node_count <= 4) and tree.depth <= 64
        span = pts.reshape(-1, 3).max(0) - pts.reshape(-1, 3).min(0)
        boxes = random_boxes(rng, 40, spread=span.max(), size=span.max() / 4)
        boxes += pts.reshape(-1, 3).min(0)
        assert_query_matches(tree, pts, boxes)
        spheres = random_spheres(rng, 40, spread=span.max(), size=span.max() / 6)
        assert_query_matches(tree, pts, spheres)
        assert_query_matches(tree, pts, random_obbs(rng, 20, span.max(), span.max() / 6))


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("case", sorted(degenerate_inputs()))
def test_degenerate_inputs(method, case):
    pts = degenerate_inputs()[case]
    rng = np.random.default_rng(2)
    lo = pts.reshape(-1, 3).min(0) if len(pts) else np.zeros(3)
    boxes = random_boxes(rng, 30, spread=5.0) + lo
    for kind in KINDS:
        tree = BVH.build(pts, node=kind, method=method, leaf_size=2)
        tree.validate(pts)
        assert_query_matches(tree, pts, boxes)
        s = random_spheres(rng, 10, 5.0)
        assert_query_matches(tree, pts, Spheres(s.center + lo, s.radius))
    if len(pts) == 0:
        assert tree.n_nodes == 0 and tree.depth == 0
        assert tree.query(boxes).shape == (2, 0)
        assert tree.query(boxes[0]).shape == (0,)


@pytest.mark.parametrize("method", METHODS)
def test_leaf_size_one_gives_n_leaves_and_n_minus_1_inner_nodes(method):
    """SPEC §8: split to single triangles, n leaves and n - 1 inner nodes."""
    for pts in (soup(5, 123), degenerate_inputs()["identical"]):
        tree = BVH.build(pts, method=method, leaf_size=1)
        tree.validate(pts)
        assert tree.n_leaves == len(pts) and tree.n_nodes == 2 * len(pts) - 1
        assert np.all(tree.node_count[tree.node_count > 0] == 1)


@pytest.mark.parametrize("method", METHODS)
def test_depth_limit(method):
    pts = soup(6, 500)
    for max_depth in (0, 1, 3):
        tree = BVH.build(pts, method=method, leaf_size=1, max_depth=max_depth)
        tree.validate(pts)
        assert tree.depth <= max_depth
    assert BVH.build(pts, method=method, max_depth=0).n_nodes == 1


def test_median_follows_the_seed_rule():
    """The seed's split: the node box's longest axis at its middle, by centre."""
    pts = np.zeros((4, 3, 3))
    pts[:, :, 0] = [[0, 1, 2], [1, 2, 3], [7, 8, 9], [9, 9.5, 10]]  # box x in [0, 10]
    tree = BVH.build(pts, method="median", leaf_size=1)
    left, right = tree.node_first[0], tree.node_first[0] + 1
    lo, hi = _spans(tree)
    assert set(tree.prim_order[lo[left] : hi[left]]) == {0, 1}
    assert set(tree.prim_order[lo[right] : hi[right]]) == {2, 3}


def test_sah_separates_clusters_better_than_halving():
    """Binned SAH cuts between two clusters even when they hold unequal counts."""
    a = soup(1, 30, spread=1.0, size=0.01)
    b = soup(2, 3, spread=1.0, size=0.01) + 100.0
    tree = BVH.build(np.concatenate([a, b]), method="sah", leaf_size=1)
    lo, hi = _spans(tree)
    f = tree.node_first[0]
    assert sorted(hi[[f, f + 1]] - lo[[f, f + 1]]) == [3, 30]


def test_oriented_sah_cuts_across_a_patch_lying_askew():
    """Two long thin rods side by side along the xy diagonal: on the world axes their
    centres interleave, so no cut parts them; in the root's principal frame one cut
    across the rods does, and each child holds one rod."""
    rng = np.random.default_rng(7)
    along = np.array([1.0, 1.0, 0.0]) / np.sqrt(2.0)
    across = np.array([1.0, -1.0, 0.0]) / np.sqrt(2.0)
    s = rng.uniform(0.0, 10.0, 64)
    rods = [s[:32, None] * along, s[32:, None] * along + across]
    pts = np.concatenate(rods)[:, None, :] + rng.normal(scale=1e-3, size=(64, 3, 3))
    for method, parted in (("oriented_sah", True), ("sah", False)):
        tree = BVH.build(pts, node="obb", method=method, leaf_size=1)
        tree.validate(pts)
        lo, hi = _spans(tree)
        f = tree.node_first[0]
        halves = [set(tree.prim_order[lo[c] : hi[c]]) for c in (f, f + 1)]
        rod_sets = [set(range(32)), set(range(32, 64))]
        assert (sorted(halves, key=min) == rod_sets) == parted, method


def test_oriented_sah_small_nodes_keep_their_ancestors_frame():
    """A node under ``reframe`` primitives splits in the frame of its nearest ancestor
    that took one: with only the root framed, the oriented build is the world-axis SAH
    build of the points turned into the root's principal frame, node for node; framing
    more nodes changes the tree. BVH.build frames by bvh_sah.reframe_size."""
    from hitbox._kernels import bvh_build, bvh_sah
    from hitbox.bvh import LEAF_SIZE, MAX_DEPTH, SAH_BINS

    pts = soup(5, 3_000, spread=20.0)
    n = len(pts)
    frame = np.empty((3, 3))
    bvh_sah._node_frame(pts, 0, n, frame)
    # each coordinate as framed_bounds forms it: x f0c + y f1c + z f2c, left to right
    x, y, z = pts[..., 0:1], pts[..., 1:2], pts[..., 2:3]
    turned = np.ascontiguousarray(x * frame[0] + y * frame[1] + z * frame[2])
    boxes, centres = np.empty((n, 2, 3)), np.empty((n, 3))
    bvh_build.primitive_bounds(turned, boxes, centres)
    world = bvh_sah.build_sah(boxes, centres, LEAF_SIZE, MAX_DEPTH, SAH_BINS, 2)

    def oriented(reframe):
        return bvh_sah.build_sah_oriented(
            pts.copy(), LEAF_SIZE, MAX_DEPTH, SAH_BINS, 2, reframe
        )

    root_only = oriented(n + 1)
    for got, want in zip(root_only[:3], world[:3], strict=True):
        np.testing.assert_array_equal(got, want)
    for reframe in (0, 64):  # every node, or those of 64 primitives up
        assert not np.array_equal(oriented(reframe)[2], world[2])
    tree = BVH.build(pts, node="obb")
    np.testing.assert_array_equal(tree.prim_order, oriented(bvh_sah.reframe_size(n))[2])
    tree.validate(pts)


@pytest.mark.parametrize("method", METHODS)
def test_point_groups_without_points(method):
    """K = 0: legal, bounds nothing; every method splits by count without reading a
    point (the oriented build once divided by the zero point count)."""
    pts = np.zeros((11, 0, 3))
    boxes = random_boxes(np.random.default_rng(4), 5)
    for kind in KINDS:
        tree = BVH.build(pts, node=kind, method=method, leaf_size=2)
        tree.validate(pts)
        assert tree.n_prims == 11 and tree.n_leaves >= 6
        assert tree.query(boxes).shape == (2, 0)


def test_default_method_by_node_kind():
    from hitbox.bvh import DEFAULT_METHOD

    pts = soup(3, 200)
    for kind in KINDS:
        tree = BVH.build(pts, node=kind)
        same = BVH.build(pts, node=kind, method=DEFAULT_METHOD[kind])
        np.testing.assert_array_equal(tree.prim_order, same.prim_order)
        np.testing.assert_array_equal(tree.node_first, same.node_first)
    assert DEFAULT_METHOD["obb"] == "oriented_sah" and DEFAULT_METHOD["aabb"] == "sah"


def _spans(tree):
    lo = np.empty(tree.n_nodes, np.intp)
    hi = np.empty(tree.n_nodes, np.intp)
    _fit.spans(tree.node_first, tree.node_count, lo, hi)
    return lo, hi


def test_arrays_are_read_only_and_typed():
    tree = BVH.build(soup(1, 50), node="obb")
    for arr in (
        tree.node_first,
        tree.node_count,
        tree.prim_order,
        tree.node_box,
        *tree.node_bv,
    ):
        assert not arr.flags.writeable
    assert tree.node_first.dtype == np.intp and tree.node_box.dtype == np.float64
    with pytest.raises(dataclasses.FrozenInstanceError):
        tree.depth = 3
    assert "obb" in repr(tree)


# -- volumes -----------------------------------------------------------------------------


def test_obb_nodes_fit_flat_triangles_tightly():
    """A leaf holding one slanted triangle gets a flat OBB (PCA normal), not its AABB."""
    tri = np.array([[[0.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 1.0]]])
    tree = BVH.build(tri, node="obb")
    assert np.min(tree.node_bv.half[0]) < 1e-9
    np.testing.assert_allclose(
        tree.node_bv.rot[0].T @ tree.node_bv.rot[0], np.eye(3), atol=1e-12
    )
    assert np.linalg.det(tree.node_bv.rot[0]) > 0


def test_obb_nodes_take_a_frame_from_their_extreme_points_where_it_is_smaller():
    """A flat 4 x 1 rectangle with slivers along its diagonal rising to 0.045 above it,
    turned: the slivers pull the covariance axes askew, while a frame along an edge of
    the triangle the extreme points span (corners of the rectangle) bounds it all in
    exactly 4 x 1 x 0.045, the least volume."""
    length, width, rise = 4.0, 1.0, 0.05
    a, b, c, d = (0, 0, 0), (length, 0, 0), (length, width, 0), (0, width, 0)
    tris = [[a, b, c], [a, c, d]]
    for s in np.linspace(0.1, 0.9, 6):  # 8 triangles: within FRAME_SLOTS
        p = np.array([s * length, s * width, s * rise])
        tris.append([p, p + [0.01, 0.0, 0.0], p + [0.0, 0.01, 0.0]])
    rot = rotation(np.random.default_rng(5))
    tris = np.array(tris) @ rot.T + np.array([0.5, -2.0, 1.0])
    assert len(tris) <= _fit.FRAME_SLOTS  # a node that tries the extra frames
    tree = BVH.build(tris, node="obb", leaf_size=64)
    assert tree.node_count[0] == len(tris)  # one leaf: the root's fit is under test
    fitted = np.prod(2 * tree.node_bv.half[0])
    assert fitted == pytest.approx(length * width * 0.9 * rise, rel=1e-9)
    # the covariance frame alone is far worse, so the test has teeth
    pts = tris.reshape(-1, 3)
    _, axes = np.linalg.eigh(np.cov(pts.T))
    proj = (pts - pts.mean(axis=0)) @ axes
    assert np.prod(proj.max(axis=0) - proj.min(axis=0)) > 1.5 * fitted
    rot_fit = tree.node_bv.rot[0]
    np.testing.assert_allclose(rot_fit.T @ rot_fit, np.eye(3), atol=1e-12)
    assert np.linalg.det(rot_fit) > 0
    tree.validate(tris)  # and it still holds every point


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), tilt=st.sampled_from([0.0, 1e-15, 1e-9, 1e-3]))
def test_obb_nodes_of_nearly_collinear_points_stay_orthonormal_and_hold(seed, tilt):
    """Leaves of thin or collinear triangles: the frames from extreme points must stay
    orthonormal (a thin triangle's normal is mostly rounding) and every point inside."""
    rng = np.random.default_rng(seed)
    n = 6
    start, step = rng.normal(size=(n, 1, 3)), rng.normal(size=(n, 1, 3))
    s = np.sort(rng.uniform(-1, 1, size=(n, 3, 1)), axis=1)
    tris = start + s * step + tilt * rng.normal(size=(n, 3, 3))
    tree = BVH.build(tris, node="obb", leaf_size=2)
    rot = tree.node_bv.rot
    eye = np.broadcast_to(np.eye(3), rot.shape)
    np.testing.assert_allclose(np.einsum("nji,njk->nik", rot, rot), eye, atol=1e-12)
    assert np.all(np.linalg.det(rot) > 0)
    tree.validate(tris)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 400),
    method=st.sampled_from(METHODS),
    leaf_size=st.sampled_from([1, 4]),
)
def test_obb_nodes_are_tight_on_every_face(seed, n, method, leaf_size):
    """Brute-force twin of the fit's search from seed points (nodes over DIRECT_SLOTS
    slots): every node's OBB has a point of its own on each of its six faces, that is
    its extents are the exact least and greatest projections, whichever nodes keep
    seeds for their parent's search."""
    pts = soup(seed, n, spread=30.0)
    tree = BVH.build(pts, node="obb", method=method, leaf_size=leaf_size)
    tree.validate(pts)
    m_nodes = len(tree.node_first)
    lo_s = np.empty(m_nodes, np.intp)
    hi_s = np.empty(m_nodes, np.intp)
    _fit.spans(tree.node_first, tree.node_count, lo_s, hi_s)
    slot_pts = pts[tree.prim_order]
    center, half, rot = (np.asarray(x) for x in tree.node_bv)
    for m in range(m_nodes):
        u = (slot_pts[lo_s[m] : hi_s[m]].reshape(-1, 3) - center[m]) @ rot[m]
        slack = 1e-9 * (np.abs(center[m]).sum() + half[m].sum() + 1.0)
        assert np.all(u.max(axis=0) >= half[m] - slack), m
        assert np.all(u.min(axis=0) <= -half[m] + slack), m


def test_obb_nodes_never_worse_than_their_box():
    pts = icosphere()
    obb = BVH.build(pts, node="obb")
    vol_obb = np.prod(2 * obb.node_bv.half, axis=1)
    vol_box = np.prod(obb.node_box[:, 1] - obb.node_box[:, 0], axis=1)
    assert np.all(vol_obb <= vol_box * (1 + 1e-9) + 1e-12)


def test_sphere_nodes_never_worse_than_the_box_centred_sphere():
    pts = soup(8, 400)
    tree = BVH.build(pts, node="sphere")
    lo, hi = _spans(tree)
    slot_pts = pts[tree.prim_order]
    for m in range(tree.n_nodes):
        p = slot_pts[lo[m] : hi[m]].reshape(-1, 3)
        c = tree.node_box[m].mean(axis=0)
        assert tree.node_bv.radius[m] <= np.sqrt(((p - c) ** 2).sum(1)).max() * (1 + 1e-9)


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=60)
def test_eigvecs_sym3_matches_numpy(seed):
    rng = np.random.default_rng(seed)
    kind = seed % 4
    if kind == 0:
        a = rng.normal(size=(3, 3))
    elif kind == 1:  # repeated eigenvalue
        r = rotation(rng)
        a = r @ np.diag([2.0, 2.0, rng.random()]) @ r.T
    elif kind == 2:  # rank one (flat point sets), tiny scale
        x = rng.normal(size=3) * 1e-7
        a = np.outer(x, x)
    else:
        a = np.diag(rng.random(3))
    a = 0.5 * (a + a.T)
    v = np.empty((3, 3))
    _fit.eigvecs_sym3(a[0, 0], a[0, 1], a[0, 2], a[1, 1], a[1, 2], a[2, 2], v)
    np.testing.assert_allclose(v.T @ v, np.eye(3), atol=1e-12)
    assert np.linalg.det(v) > 0
    d = v.T @ a @ v
    off = np.abs(d - np.diag(np.diag(d))).max()
    assert off <= 1e-9 * np.abs(a).max() + 1e-300


def test_cubic_roots_match_the_trigonometric_form():
    """The eigenvalues' cubic t^3 - 3t = 2x solved by Newton steps: its top and middle
    roots within a few ulps of 2 cos(acos(x) / 3 - 2 pi k / 3), x over [0, 1] and at
    both ends (the middle root is a double root at x = 1)."""
    from hitbox._kernels.covariance import _cubic_roots

    xs = np.concatenate([np.linspace(0.0, 1.0, 2001), [1e-300, 1.0 - 2.0**-53]])
    angle = np.arccos(xs) / 3.0
    top_want = 2.0 * np.cos(angle)
    mid_want = 2.0 * np.cos(angle - 2.0 * np.pi / 3.0)
    got = np.array([_cubic_roots(x) for x in xs])
    np.testing.assert_allclose(got[:, 0], top_want, rtol=0, atol=4e-16)
    # near the double root the middle one is as ill-conditioned for both forms
    np.testing.assert_allclose(got[:, 1], mid_want, rtol=0, atol=1e-7)
    apart = xs < 0.99  # the two lower roots at least 0.15 apart
    np.testing.assert_allclose(got[apart, 1], mid_want[apart], rtol=0, atol=2e-14)


# -- queries -----------------------------------------------------------------------------


@given(
    st.integers(0, 2**32 - 1),
    st.integers(0, 40),
    st.sampled_from(METHODS),
    st.sampled_from(KINDS),
    st.integers(1, 6),
)
@settings(max_examples=80)
def test_query_matches_oracle(seed, n, method, kind, leaf_size):
    rng = np.random.default_rng(seed)
    # grid coordinates: touching boxes and shared faces are common
    pts = np.round(soup(seed, n, spread=6.0, size=1.0) * 2) / 2
    tree = BVH.build(pts, node=kind, method=method, leaf_size=leaf_size)
    tree.validate(pts)
    boxes = np.round(random_boxes(rng, 12, spread=7.0) * 2) / 2
    boxes[::5] = boxes[::5, ::-1]  # some empty boxes
    assert_query_matches(tree, pts, boxes)
    spheres = random_spheres(rng, 8, spread=7.0)
    assert_query_matches(
        tree, pts, Spheres(np.round(spheres.center), np.round(spheres.radius))
    )
    assert_query_matches(tree, pts, random_obbs(rng, 5, spread=7.0))


def test_single_query_gives_primitive_indices():
    pts = soup(4, 200)
    tree = BVH.build(pts)
    box = np.array([[2.0, 2.0, 2.0], [5.0, 5.0, 5.0]])
    got = tree.query(box)
    assert got.ndim == 1 and got.dtype == np.intp
    np.testing.assert_array_equal(got, oracle_query(pts, box[None])[1])
    np.testing.assert_array_equal(got, tree.query_brute(box))
    sphere = Spheres(np.array([3.0, 3.0, 3.0]), np.array(2.0))
    np.testing.assert_array_equal(
        tree.query(sphere),
        oracle_query(pts, Spheres(sphere.center[None], np.array([2.0])))[1],
    )
    assert tree.query(np.zeros((0, 2, 3))).shape == (2, 0)
    assert tree.query(np.array([[np.inf] * 3, [-np.inf] * 3])).shape == (0,)
    everything = np.array([[-np.inf] * 3, [np.inf] * 3])
    np.testing.assert_array_equal(tree.query(everything), np.arange(200))


def test_query_is_invariant_under_permuting_primitives():
    pts = soup(9, 300)
    perm = np.random.default_rng(0).permutation(len(pts))
    boxes = random_boxes(np.random.default_rng(1), 30)
    for method in METHODS:
        a = BVH.build(pts, method=method).query(boxes)
        b = BVH.build(pts[perm], method=method).query(boxes)
        b = np.stack([b[0], perm[b[1]]])
        b = b[:, np.lexsort((b[1], b[0]))]
        np.testing.assert_array_equal(a, b)


def test_nearly_orthonormal_obb_queries_hold_their_parallelepiped():
    """A query OBB whose rotation is orthonormal only to 5e-7 (legal) is the
    parallelepiped its matrix spans: a primitive box touching one of its corners is
    found, and the tree agrees with the brute-force twin."""
    rng = np.random.default_rng(4)
    tree = BVH.build(soup(5, 300))
    boxes = np.empty_like(tree.slot_box)
    boxes[tree.prim_order] = tree.slot_box
    for _ in range(100):
        rot = rotation(rng) * (1.0 + rng.choice([4.9e-7, -4.9e-7]))
        i = rng.integers(len(boxes))
        half = np.abs(rng.normal(size=3)) + 0.1
        signs = rng.choice([-1.0, 1.0], size=3)
        corner = np.where(signs > 0, boxes[i, 0], boxes[i, 1])
        query = OBBs((corner + rot @ (signs * half))[None], half[None], rot[None])
        got = tree.query(query)
        np.testing.assert_array_equal(got, tree.query_brute(query))
        assert i in got[1]


@pytest.mark.parametrize("kind", KINDS)
def test_node_kind_pruning_is_conservative(kind):
    """The traversal kernel pruning on the kind's own volumes (what a tree-vs-tree descent
    sees) keeps every primitive with a point inside the query, and only box hits."""
    pts = soup(12, 400)
    tree = BVH.build(pts, node=kind)
    rng = np.random.default_rng(3)
    for queries in (random_boxes(rng, 40), random_spheres(rng, 40), random_obbs(rng, 20)):
        got = _traverse.query_pairs(
            tree.node_bv,
            tree.node_first,
            tree.node_count,
            tree.slot_box,
            tree.prim_order,
            tree.depth,
            queries,
        )
        full = tree.query(queries)
        got_set = set(zip(*got.tolist(), strict=True))
        assert got_set <= set(zip(*full.tolist(), strict=True))
        flat = pts.reshape(-1, 3)
        inside = _points_inside(queries, flat).reshape(-1, len(pts), 3)
        must = pairs_from(inside.any(axis=2))
        assert set(zip(*must.tolist(), strict=True)) <= got_set


def _points_inside(queries, points):
    """(Q, P) closed containment of points in each query volume."""
    if isinstance(queries, Spheres):
        d2 = ((points[None] - queries.center[:, None]) ** 2).sum(2)
        return d2 <= queries.radius[:, None] ** 2
    if isinstance(queries, OBBs):
        u = np.einsum("qji,qpj->qpi", queries.rot, points[None] - queries.center[:, None])
        return np.all(np.abs(u) <= queries.half[:, None] * (1 - 1e-9), axis=2)
    return np.all(
        (queries[:, None, 0] <= points) & (points <= queries[:, None, 1]), axis=2
    )


# -- refit -------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("method", METHODS)
def test_refit_equals_rebuild_in_what_it_bounds(kind, method):
    pts = soup(13, 250)
    tree = BVH.build(pts, node=kind, method=method)
    rng = np.random.default_rng(4)
    moved = pts + rng.normal(scale=0.8, size=pts.shape) + np.array([3.0, 0.0, -1.0])
    refit = tree.refit(moved)
    refit.validate(moved)
    for name in ("node_first", "node_count", "prim_order"):
        assert getattr(refit, name) is getattr(tree, name)  # same topology, shared
    tree.validate(pts)  # the original is untouched
    boxes = random_boxes(rng, 40) + np.array([3.0, 0.0, -1.0])
    assert_query_matches(refit, moved, boxes)
    np.testing.assert_array_equal(
        refit.query(boxes), BVH.build(moved, node=kind, method=method).query(boxes)
    )
    with pytest.raises(ValueError, match="primitives"):
        tree.refit(moved[:-1])


# -- files -------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_save_load_round_trip(kind, tmp_path):
    pts = soup(14, 150)
    tree = BVH.build(pts, node=kind)
    path = tmp_path / "tree.npz"
    tree.save(path)
    back = BVH.load(path)
    back.validate(pts)
    assert back.kind == kind and back.depth == tree.depth
    for name in ("node_first", "node_count", "prim_order", "node_box", "slot_box"):
        np.testing.assert_array_equal(getattr(back, name), getattr(tree, name))
    for x, y in zip(bv_arrays(back.node_bv), bv_arrays(tree.node_bv), strict=True):
        np.testing.assert_array_equal(x, y)
    rng = np.random.default_rng(5)
    for q in (random_boxes(rng, 30), random_spheres(rng, 30), random_obbs(rng, 10)):
        np.testing.assert_array_equal(back.query(q), tree.query(q))


def bv_arrays(bvs):
    return list(bvs) if isinstance(bvs, tuple) else [bvs]


def test_load_rejects_damaged_files(tmp_path):
    tree = BVH.build(soup(15, 80), node="sphere")
    good = tmp_path / "good.npz"
    tree.save(good)
    data = dict(np.load(good))
    for damage in ("missing", "kind", "children", "floats"):
        bad = dict(data)
        if damage == "missing":
            del bad["node_radius"]
        elif damage == "kind":
            bad["kind"] = np.array("octree")
        elif damage == "children":
            nf = bad["node_first"].copy()
            nf[0] = 0
            bad["node_first"] = nf
        else:
            bad["node_box"] = bad["node_box"].astype(np.int64)
        path = tmp_path / f"{damage}.npz"
        np.savez(path, **bad)
        with pytest.raises(ValueError):
            BVH.load(path)


# -- validate catches broken trees -------------------------------------------------------


def test_validate_catches_broken_trees():
    pts = soup(16, 120)
    tree = BVH.build(pts, node="obb", leaf_size=2)

    def broken(**changes):
        fixed = {}
        for k, val in changes.items():
            val = val.copy() if isinstance(val, np.ndarray) else val
            if isinstance(val, np.ndarray):
                val.flags.writeable = False
            fixed[k] = val
        return dataclasses.replace(tree, **fixed)

    order = tree.prim_order.copy()
    order[[0, 1]] = order[[1, 0]]
    cases = {
        "prim_order swapped": (broken(prim_order=order), True),
        "prim_order repeat": (broken(prim_order=np.zeros_like(order)), False),
        "depth": (broken(depth=tree.depth + 1), False),
        "count": (broken(node_count=np.where(tree.node_count > 0, 1, 0)), False),
    }
    half = tree.node_bv.half.copy()
    half[0] *= 0.5
    cases["small root"] = (
        broken(node_bv=OBBs(tree.node_bv.center, half, tree.node_bv.rot)),
        True,
    )
    box = tree.node_box.copy()
    box[3, 1, 0] += 1.0
    cases["loose box"] = (broken(node_box=box), True)
    for bad, needs_points in cases.values():
        if not needs_points:
            with pytest.raises(ValueError, match="BVH invalid"):
                bad.validate()
        with pytest.raises(ValueError, match="BVH invalid"):
            bad.validate(pts)
    writeable = dataclasses.replace(tree, node_first=tree.node_first.copy())
    with pytest.raises(ValueError, match="read-only"):
        writeable.validate()


# -- bad input ---------------------------------------------------------------------------


def test_bad_input():
    pts = soup(17, 20)
    with pytest.raises(ValueError, match="node"):
        BVH.build(pts, node="octree")
    with pytest.raises(ValueError, match="method"):
        BVH.build(pts, method="greedy")
    with pytest.raises(ValueError, match="leaf_size"):
        BVH.build(pts, leaf_size=0)
    with pytest.raises(ValueError, match="max_depth"):
        BVH.build(pts, max_depth=-1)
    bad = pts.copy()
    bad[3, 1, 2] = np.nan
    with pytest.raises(ValueError, match=r"primitives\[3\]"):
        BVH.build(bad)
    with pytest.raises(ValueError, match="shape"):
        BVH.build(pts[..., :2])
    with pytest.raises(TypeError):
        BVH.build(pts.astype(complex))
    tree = BVH.build(pts)
    with pytest.raises(ValueError):
        tree.query(np.zeros((4, 2, 2)))
    with pytest.raises(ValueError, match="NaN"):
        tree.query(np.full((1, 2, 3), np.nan))
    with pytest.raises(ValueError, match="orthonormal"):
        tree.query(OBBs(np.zeros((1, 3)), np.ones((1, 3)), np.ones((1, 3, 3))))
    single = BVH.build(pts[0])  # one (K, 3) group is one primitive
    assert single.n_prims == 1 and single.n_nodes == 1


# -- the overlap dispatch ----------------------------------------------------------------


def test_kdop_axes_match_the_public_table():
    for k in (14, 18, 26):
        rows = [bv.axis_row(k // 2, s) for s in range(k // 2)]
        np.testing.assert_array_equal(bv._AXES[rows], hb.kdop.AXES[k])


def _all_pairs(a, b):
    """(len a, len b) bool of bv.overlap over every pair, both argument orders."""
    got = np.zeros((bv.count(a), bv.count(b)), bool)
    ab = _traverse.query_pairs_brute(b, a)  # (i in a, j in b)
    got[tuple(ab)] = True
    ba = _traverse.query_pairs_brute(a, b)  # (j in b, i in a)
    swapped = np.zeros_like(got)
    swapped[ba[1], ba[0]] = True
    np.testing.assert_array_equal(got, swapped)  # symmetric
    i, j = np.nonzero(got) if got.any() else (np.zeros(1, int), np.zeros(1, int))
    assert bv.overlap(a, int(i[0]), b, int(j[0])) == got[i[0], j[0]]  # the Python entry
    return got


def test_overlap_dispatch_matches_oracles():
    rng = np.random.default_rng(6)
    boxes = np.round(random_boxes(rng, 25, spread=6.0) * 2) / 2
    boxes[0] = [[np.inf] * 3, [-np.inf] * 3]
    boxes[1] = [[-np.inf, 0, 0], [np.inf, 1, 1]]
    spheres = random_spheres(rng, 20, spread=6.0)
    spheres.radius[0] = -1.0  # empty
    obbs = random_obbs(rng, 15, spread=6.0)
    np.testing.assert_array_equal(
        pairs_from(_all_pairs(boxes, boxes)), oracles.overlap_pairs(boxes, boxes)
    )
    d2 = ((spheres.center[:, None] - spheres.center[None]) ** 2).sum(2)
    rr = spheres.radius[:, None] + spheres.radius[None]
    expect = (d2 <= rr**2) & (spheres.radius[:, None] >= 0) & (spheres.radius[None] >= 0)
    np.testing.assert_array_equal(_all_pairs(spheres, spheres), expect)
    expect = box_sphere_hits(boxes, spheres) & (spheres.radius[:, None] >= 0)
    np.testing.assert_array_equal(_all_pairs(spheres, boxes), expect)
    finite = boxes[2:]
    s = box_obb_slack(finite, obbs)
    got = _all_pairs(obbs, finite)
    clear = np.abs(s) > 1e-9
    np.testing.assert_array_equal(got[clear], (s >= 0)[clear])
    assert not _all_pairs(obbs, boxes[:1]).any()
    s = oracles_obb.slack(
        OBBs(*(np.repeat(x, 15, axis=0) for x in obbs)),
        OBBs(*(np.tile(x, (15,) + (1,) * (x.ndim - 1)) for x in obbs)),
    ).reshape(15, 15)
    got = _all_pairs(obbs, obbs)
    clear = np.abs(s) > 1e-9
    np.testing.assert_array_equal(got[clear], (s >= 0)[clear])
    # sphere vs OBB: distance from the centre to the box, in the box frame
    u = np.einsum("oji,soj->soi", obbs.rot, spheres.center[:, None] - obbs.center[None])
    out = np.maximum(np.abs(u) - obbs.half[None], 0.0)
    dist = np.sqrt((out**2).sum(2))
    got = _all_pairs(spheres, obbs)
    clear = np.abs(dist - spheres.radius[:, None]) > 1e-9
    expect = (dist <= spheres.radius[:, None]) & (spheres.radius[:, None] >= 0)
    np.testing.assert_array_equal(got[clear], expect[clear])


@pytest.mark.parametrize("k", (14, 18, 26))
def test_kdop_overlaps_are_conservative(k):
    """k-DOP vs sphere / OBB / AABB never says disjoint when a common point exists, and
    does separate clearly disjoint volumes."""
    rng = np.random.default_rng(k)
    pts = soup(k, 60, spread=6.0)
    kd = hb.kdop.fit(pts, k)
    spheres = random_spheres(rng, 60, spread=6.0, size=1.0)
    obbs = random_obbs(rng, 30, spread=6.0, size=1.0)
    boxes = random_boxes(rng, 30, spread=6.0, size=1.5)
    for vols in (spheres, obbs, boxes):
        got = _all_pairs(kd, vols)
        # a vertex of triangle i inside volume j: they share a point
        inside = _points_inside(vols, pts.reshape(-1, 3)).reshape(
            bv.count(vols), len(pts), 3
        )
        assert got[inside.any(axis=2).T].all()
        assert got.sum() < got.size  # and it does separate something
    far = Spheres(np.array([[100.0, 100.0, 100.0]]), np.array([1.0]))
    assert not _all_pairs(kd, far).any()


def test_works_without_the_jit():
    """NUMBA_DISABLE_JIT=1: every kernel runs as Python, dispatching overlap by value."""
    script = textwrap.dedent(
        """
        import numpy as np
        from hitbox import OBBs, Spheres
        from hitbox.bvh import BVH
        rng = np.random.default_rng(0)
        pts = rng.random((40, 1, 3)) * 5 + rng.normal(scale=0.3, size=(40, 3, 3))
        boxes = np.sort(rng.random((6, 2, 3)) * 5, axis=1)
        sph = Spheres(rng.random((4, 3)) * 5, rng.random(4))
        obb = OBBs(rng.random((3, 3)) * 5, rng.random((3, 3)), np.stack([np.eye(3)] * 3))
        out = []
        for method in ("sah", "oriented_sah", "median", "bottom_up"):
            for kind in ("aabb", "sphere", "obb", "kdop18"):
                tree = BVH.build(pts, node=kind, method=method, leaf_size=2)
                tree.validate(pts)
                tree.refit(pts + 1.0).validate(pts + 1.0)
                for q in (boxes, sph, obb):
                    out.append(tree.query(q).tolist())
                    assert tree.query(q).tolist() == tree.query_brute(q).tolist()
        print(repr(out))
        """
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    slow = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert slow.returncode == 0, slow.stderr
    env.pop("NUMBA_DISABLE_JIT")
    fast = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert fast.returncode == 0, fast.stderr
    assert slow.stdout == fast.stdout


@pytest.mark.parametrize("method", ["sah", "oriented_sah"])
@pytest.mark.parametrize("n", [1, 7, 511, 513, 2_049, 9_000])
def test_parallel_builds_are_the_tree_of_one_thread(method, n):
    """SAH builds split the top on one thread and build the subtrees below
    bvh_sah.task_size in parallel, then stitch them: the tree (every array, every node
    volume) is the same on any number of threads, and valid."""
    import numba

    pts = soup(n % 97, n, spread=30.0)
    threads = numba.get_num_threads()
    trees = []
    try:
        for n_threads in sorted({1, min(2, threads), threads}):
            numba.set_num_threads(n_threads)
            trees.append(BVH.build(pts, node="obb", method=method))
    finally:
        numba.set_num_threads(threads)
    trees[0].validate(pts)
    for tree in trees[1:]:
        for name in ("node_first", "node_count", "prim_order", "node_box", "slot_box"):
            np.testing.assert_array_equal(getattr(tree, name), getattr(trees[0], name))
        for got, want in zip(tree.node_bv, trees[0].node_bv, strict=True):
            np.testing.assert_array_equal(got, want)
        assert tree.depth == trees[0].depth


def test_stitched_subtrees_split_like_one_serial_walk():
    """The task split changes node numbers only: the same slot order and the same
    leaves as one serial SAH walk over the whole tree (no tasks)."""
    from hitbox._kernels import bvh_sah
    from hitbox.bvh import LEAF_SIZE, MAX_DEPTH, SAH_BINS

    pts = soup(3, 9_000, spread=30.0)
    permuted = pts.copy()
    reframe = bvh_sah.reframe_size(len(pts))
    first, count, order, depth, tasks = bvh_sah.build_sah_oriented(
        permuted, LEAF_SIZE, MAX_DEPTH, SAH_BINS, 2, reframe
    )
    np.testing.assert_array_equal(permuted, pts[order])  # in slot order, in place
    assert len(tasks) > 1
    n = len(pts)
    s_first = np.empty(2 * n - 1, np.intp)
    s_count = np.empty(2 * n - 1, np.intp)
    s_order = np.arange(n)
    n_nodes, s_depth, n_tasks = bvh_sah._sah_split(
        np.empty((n, 2, 3)), np.empty((n, 3)), pts.copy(), s_order, reframe, LEAF_SIZE,
        MAX_DEPTH, SAH_BINS, 0, 0, n, 0, s_first, s_count, 1, 0, np.empty((0, 4), np.intp),
    )  # fmt: skip
    assert n_tasks == 0 and n_nodes == len(first) and s_depth == depth
    np.testing.assert_array_equal(order, s_order)

    def leaves(f, c):
        return sorted((int(a), int(b)) for a, b in zip(f, c, strict=True) if b > 0)

    assert leaves(first, count) == leaves(s_first[:n_nodes], s_count[:n_nodes])
