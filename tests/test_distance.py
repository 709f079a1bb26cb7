"""Mesh-mesh distance against the brute-force twin (every triangle pair), python-fcl,
the exact intersection test and its own contract (points, bounds, tolerances)."""

import numpy as np
import pytest
import trimesh
from hypothesis import given, settings
from hypothesis import strategies as st

from hitbox import distance as hd
from hitbox._kernels.triangle_distance import (
    closest_on_triangle,
    segment_segment,
    tri_tri_distance,
    tri_tri_distance_brute,
)
from hitbox._torus import torus_mesh
from hitbox.mesh import TriangleMesh
from tests import oracles_triangle as ot
from tests.strategies import rotation

NODES = ("aabb", "obb", "sphere", "kdop18")


def _shapes():
    ico = trimesh.creation.icosphere(subdivisions=1, radius=0.7)
    box = trimesh.creation.box(extents=(1.0, 0.5, 0.3))
    tv, tf = torus_mesh(240, r_major=0.8, r_minor=0.25)
    return [(ico.vertices, ico.faces), (box.vertices, box.faces), (tv, tf)]


SHAPES = _shapes()


def _pose(rng, reach):
    pose = np.eye(4)
    pose[:3, :3] = rotation(rng)
    direction = rng.normal(size=3)
    pose[:3, 3] = direction / np.linalg.norm(direction) * reach
    return pose


def _point_on_face(mesh, face, point, pose=None):
    tri = mesh.triangles[face]
    if pose is not None:
        tri = tri @ pose[:3, :3].T + pose[:3, 3]
    x, _ = closest_on_triangle(tuple(point), *(tuple(p) for p in tri))
    return np.linalg.norm(np.array(x) - point)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 2**32 - 1), st.sampled_from(NODES), st.sampled_from(NODES),
    st.floats(0.0, 3.5),
)  # fmt: skip
def test_distance_equals_every_triangle_pair(seed, node_a, node_b, reach):
    rng = np.random.default_rng(seed)
    va, fa = SHAPES[rng.integers(len(SHAPES))]
    vb, fb = SHAPES[rng.integers(len(SHAPES))]
    a = TriangleMesh(va, fa, node=node_a)
    b = TriangleMesh(vb, fb, node=node_b)
    pose = _pose(rng, reach)
    got = hd.distance(a, b, pose)
    want, face_a, face_b = hd.distance_brute(a, b, pose)
    assert got.distance == want
    assert (got.distance == 0.0) == (a.intersect_brute(b, pose).shape[1] > 0)
    assert got.lower_bound == got.distance
    assert abs(np.linalg.norm(got.point_a - got.point_b) - want) <= 1e-12 * (1 + want)
    scale = 1 + np.abs(pose[:3, 3]).sum()
    assert _point_on_face(a, got.face_a, got.point_a) <= 1e-12 * scale
    assert _point_on_face(b, got.face_b, got.point_b, pose) <= 1e-12 * scale
    if got.distance > 0:  # the reported faces realise it (ties may pick others)
        pair = hd.distance_brute(
            TriangleMesh(a.vertices, a.faces[[got.face_a]]),
            TriangleMesh(b.vertices, b.faces[[got.face_b]]), pose,
        )  # fmt: skip
        assert pair[0] == want


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0.5, 3.0), st.floats(0.0, 1.0))
def test_early_stop_and_tolerances_keep_their_promise(seed, reach, rtol):
    rng = np.random.default_rng(seed)
    a = TriangleMesh(*SHAPES[2])
    b = TriangleMesh(*SHAPES[0])
    pose = _pose(rng, reach)
    exact = hd.distance(a, b, pose).distance
    approx = hd.distance(a, b, pose, rtol=rtol, atol=1e-3)
    assert exact <= approx.distance <= exact * (1 + rtol) + 1e-3
    assert approx.lower_bound <= exact
    limit = float(rng.uniform(0.01, 2.0))
    capped = hd.distance(a, b, pose, max_distance=limit)
    if exact < limit:
        assert capped.distance == exact
    else:
        assert capped.distance == np.inf and capped.face_a == -1
        assert capped.lower_bound == limit


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0.5, 3.0), st.floats(0.0, 1.0),
       st.floats(0.0, 0.3), st.floats(0.2, 1.8))  # fmt: skip
def test_max_distance_with_tolerances_keeps_both_promises(seed, reach, rtol, atol, at):
    """max_distance with rtol and atol: "farther than max_distance" only when it is
    (exactly, not within the tolerances), else a distance within them; the lower
    bound below the truth either way, one pose or many."""
    rng = np.random.default_rng(seed)
    a = TriangleMesh(*SHAPES[2])
    b = TriangleMesh(*SHAPES[0])
    pose = _pose(rng, reach)
    exact = hd.distance(a, b, pose).distance
    limit = max(exact * at, 1e-3)  # around the truth: below, at and above it
    got = hd.distance(a, b, pose, max_distance=limit, rtol=rtol, atol=atol)
    many = hd.distance_many(a, b, pose[None], max_distance=limit, rtol=rtol, atol=atol)
    assert many.distance[0] == got.distance and many.lower_bound[0] == got.lower_bound
    if exact < limit:
        assert exact <= got.distance <= exact * (1 + rtol) + atol
    else:
        assert got.distance == np.inf and got.lower_bound == limit
    assert got.lower_bound <= exact
    one = TriangleMesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]])
    lift = np.eye(4)
    lift[2, 3] = 1.0  # the case: 1 apart, max_distance 1.1, rtol 0.5
    close = hd.distance(one, one, lift, max_distance=1.1, rtol=0.5)
    assert close.distance == 1.0 and close.lower_bound <= 1.0


def test_many_poses_equal_one_at_a_time():
    rng = np.random.default_rng(4)
    a = TriangleMesh(*SHAPES[2], node="obb")
    b = TriangleMesh(*SHAPES[1], node="aabb")
    poses = np.stack([_pose(rng, r) for r in rng.uniform(0.0, 3.0, 40)])
    many = hd.distance_many(a, b, poses)
    for k, pose in enumerate(poses):
        one = hd.distance(a, b, pose)
        assert many.distance[k] == one.distance
        assert (many.face_a[k], many.face_b[k]) == (one.face_a, one.face_b)
        np.testing.assert_array_equal(many.point_a[k], one.point_a)
    few = hd.distance_many(a, b, poses[:3])  # one thread below 8 poses
    np.testing.assert_array_equal(few.distance, many.distance[:3])
    empty = hd.distance_many(a, b, np.zeros((0, 4, 4)))
    assert empty.distance.shape == (0,) and empty.point_a.shape == (0, 3)


def test_agrees_with_python_fcl():
    fcl = pytest.importorskip("fcl")
    rng = np.random.default_rng(7)
    a = TriangleMesh(*SHAPES[2])
    b = TriangleMesh(*SHAPES[0])
    models = []
    for m in (a, b):
        model = fcl.BVHModel()
        model.beginModel(len(m.vertices), len(m.faces))
        model.addSubModel(m.vertices, m.faces)
        model.endModel()
        models.append(model)
    compared = 0
    for reach in rng.uniform(1.2, 3.0, 20):
        pose = _pose(rng, reach)
        ours = hd.distance(a, b, pose)
        if ours.distance == 0.0:
            continue
        res = fcl.DistanceResult()
        theirs = fcl.distance(
            fcl.CollisionObject(models[0], fcl.Transform()),
            fcl.CollisionObject(models[1], fcl.Transform(pose[:3, :3], pose[:3, 3])),
            fcl.DistanceRequest(enable_nearest_points=True), res,
        )  # fmt: skip
        assert ours.distance == pytest.approx(theirs, rel=1e-9, abs=1e-12)
        compared += 1
    assert compared >= 10


def test_triangle_pairs_touching_and_not():
    def tri(*rows):
        return tuple(tuple(float(x) for x in row) for row in rows)

    p = tri((0, 0, 0), (1, 0, 0), (0, 1, 0))
    above = tri((0.2, 0.2, 1e-300), (0.3, 0.2, 1), (0.2, 0.3, 1))
    crossing = tri((0.2, 0.2, -1), (0.3, 0.2, 1), (0.2, 0.3, 1))
    d2, _, _ = tri_tri_distance(*p, *above)
    assert d2 > 0.0  # apart by 1e-300: never reported as touching
    d2, x, y = tri_tri_distance(*p, *crossing)
    assert d2 == 0.0 and x == y and abs(x[2]) < 1e-15  # where the edge pierces p
    d2, x, y = tri_tri_distance(*p, *tri((0, 0, 2), (1, 0, 2), (0, 1, 2)))
    assert d2 == 4.0 and abs(x[2] - y[2]) == 2.0


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_segment_pairs_nearly_parallel_or_not_are_exact(seed):
    """segment_segment against exact rationals: nearly parallel pairs (Ericson's
    parameters lose eps / sin^2 there: 1.6e-8 of the size before), crossing, skew and
    zero-length ones, to rounding; the points lie on their segments."""
    rng = np.random.default_rng(seed)
    for k in range(100):
        p1, q1 = rng.normal(size=3), rng.normal(size=3)
        p2 = p1 + rng.normal(size=3) * 10.0 ** rng.uniform(-12, 0)
        if k % 4 == 3:
            q2 = rng.normal(size=3)
        else:  # nearly parallel, or (k % 4 == 2) nearly a point
            tiny = 10.0 ** rng.uniform(-17, -5)
            q2 = p2 + (q1 - p1) * (rng.uniform(-2, 2) if k % 4 < 2 else tiny)
            q2 = q2 + rng.normal(size=3) * tiny
        x, y = segment_segment(*(tuple(v) for v in (p1, q1, p2, q2)))
        want = np.sqrt(float(ot.segment_distance2(p1, q1, p2, q2)))
        scale = max(1.0, np.abs([p1, q1, p2, q2]).max())
        assert abs(np.linalg.norm(np.subtract(x, y)) - want) <= 4e-15 * scale
        for point, a, b in ((x, p1, q1), (y, p2, q2)):
            assert ot.point_segment_distance(np.array(point), a, b) <= 1e-14 * scale


def _triangle_pair(rng, kind):
    """Two triangles (as tuples of 3-tuples) of one of the shapes the shortcuts of
    tri_tri_distance meet: apart at random, face to face nearly parallel, one of them
    a sliver, tiny, on an integer grid (coplanar, parallel and touching features)."""
    p = rng.normal(size=(3, 3))
    if kind == "random":
        q = rng.normal(size=(3, 3)) + rng.normal(0, 2, 3)
    elif kind == "parallel":
        n = np.cross(p[1] - p[0], p[2] - p[0])
        n /= np.linalg.norm(n)
        q = p[[1, 2, 0]] * rng.uniform(0.5, 1.5) + n * rng.uniform(0.01, 1)
        q += rng.normal(0, 1e-9, (3, 3))
    elif kind == "sliver":
        q = rng.normal(size=(3, 3)) + rng.normal(0, 2, 3)
        q[2] = q[0] + 10.0 ** rng.uniform(-16, -6) * (q[1] - q[0])
    elif kind == "tiny":
        p = p * 1e-3
        q = p + rng.normal(0, 1e-3, 3) + rng.normal(0, 3e-4, (3, 3))
    else:  # grid
        p = rng.integers(-3, 4, (3, 3)).astype(float)
        q = rng.integers(-3, 4, (3, 3)).astype(float)
        q[:, 2] += rng.integers(0, 3)
    return tuple(map(tuple, p)), tuple(map(tuple, q))


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.sampled_from(["random", "parallel", "sliver", "tiny", "grid"]),
)
def test_triangle_distance_shortcuts_equal_every_feature_pair(seed, kind):
    """tri_tri_distance's shortcuts (a vertex over the other's face, an edge pair whose
    planes part the triangles) against the least of all fifteen feature pairs: the
    same distance to rounding, 0 on the same pairs, points on their triangles that
    realise it."""
    rng = np.random.default_rng(seed)
    for _ in range(200):
        p, q = _triangle_pair(rng, kind)
        d2, x, y = tri_tri_distance(*p, *q)
        want, _, _ = tri_tri_distance_brute(*p, *q)
        scale = max(1.0, np.abs(p).max(), np.abs(q).max())
        assert (d2 == 0.0) == (want == 0.0)
        assert abs(np.sqrt(d2) - np.sqrt(want)) <= 1e-12 * scale
        assert abs(np.sum((np.subtract(x, y)) ** 2) - d2) <= 1e-12 * scale**2
        for point, tri in ((x, p), (y, q)):
            assert float(ot.point_triangle_distance2(point, tri)) <= (1e-12 * scale) ** 2


def _sheet(rng, n=8):
    """A triangulated square sheet, its grid jittered, turned at random: flat to within
    10^-16..10^-8 of its size."""
    grid = np.stack(np.meshgrid(np.linspace(0, 1, n), np.linspace(0, 1, n)), -1)
    grid = grid.reshape(-1, 2) + rng.normal(0, 0.02, (n * n, 2))
    lift = rng.normal(size=n * n) * 10.0 ** rng.uniform(-16, -8)
    faces = []
    for i in range(n - 1):
        for j in range(n - 1):
            a = i * n + j
            faces += [[a, a + 1, a + n], [a + 1, a + n + 1, a + n]]
    return np.c_[grid, lift] @ rotation(rng).T, np.array(faces)


@pytest.mark.parametrize("seed", [50, 51, 52])
def test_nearly_flat_meshes_equal_every_triangle_pair(seed):
    """qhull, merging a nearly flat set's facets, dropped corners of the sheet's hull,
    and the hull certificate answered 0.8354 where the triangles say 0.8327 (seed 50):
    such meshes get no certificate, and the walk answers."""
    rng = np.random.default_rng(seed)
    v, f = _sheet(rng)
    sheet, other = TriangleMesh(v, f), TriangleMesh(0.5 * v + 0.25, f)
    for _ in range(10):
        pose = np.eye(4)
        pose[:3, :3] = rotation(rng)
        pose[:3, 3] = rng.normal(size=3) * 0.8
        assert (
            sheet.distance(other, pose).distance
            == hd.distance_brute(sheet, other, pose)[0]
        )


def test_empty_meshes_and_bad_input():
    a = TriangleMesh(*SHAPES[0])
    empty = TriangleMesh(np.zeros((0, 3)), np.zeros((0, 3), np.intp))
    far = hd.distance(a, empty)
    assert far.distance == np.inf and far.face_b == -1
    assert hd.distance_brute(a, empty)[0] == np.inf
    for kwargs, err in (({"max_distance": 0.0}, ValueError),
                        ({"max_distance": "far"}, TypeError),
                        ({"rtol": -1.0}, ValueError), ({"atol": np.nan}, ValueError),
                        ({"rtol": np.inf}, ValueError)):  # fmt: skip
        with pytest.raises(err):
            hd.distance(a, a, None, **kwargs)
    with pytest.raises(ValueError, match="transform"):
        hd.distance(a, a, np.eye(3))
    with pytest.raises(ValueError, match="rigid"):
        hd.distance(a, a, np.diag([2.0, 1, 1, 1]))
    with pytest.raises(ValueError, match="transforms"):
        hd.distance_many(a, a, np.zeros((2, 3, 3)))
    # not a mesh: a TypeError naming the argument (was an AttributeError)
    for call in (lambda: a.distance("x"), lambda: a.distance_brute(1),
                 lambda: a.distance_many(None, np.eye(4)[None])):  # fmt: skip
        with pytest.raises(TypeError, match="b must be a TriangleMesh"):
            call()
    with pytest.raises(TypeError, match="a must be a TriangleMesh"):
        hd.distance(np.zeros((3, 3)), a)


def test_every_form_of_a_pose_gives_the_same_answer():
    # a C-ordered float64 4x4 is checked and answered in one compiled call; any other
    # form, and a pose that must be solved scaled, takes the checked path: same answer
    a = TriangleMesh(*SHAPES[2])
    b = TriangleMesh(*SHAPES[0])
    rng = np.random.default_rng(7)
    for reach in (0.2, 1.0, 2.5):
        pose = _pose(rng, reach)
        want = hd.distance(a, b, pose)
        for form in (np.asfortranarray(pose), pose.tolist(), pose.astype(np.float32)):
            got = hd.distance(a, b, form)
            if isinstance(form, np.ndarray) and form.dtype == np.float32:
                assert got.distance == pytest.approx(want.distance, rel=1e-6, abs=1e-6)
                continue
            assert got.distance == want.distance
            assert (got.face_a, got.face_b) == (want.face_a, want.face_b)
            np.testing.assert_array_equal(got.point_a, want.point_a)
        assert hd.distance_brute(a, b, pose)[0] == pytest.approx(want.distance, abs=1e-12)
    far = np.eye(4)
    far[0, 3] = 2.0**110  # beyond 2**100: solved at a smaller power-of-two scale
    got = hd.distance(a, b, far)
    assert got.distance == pytest.approx(2.0**110, rel=1e-9)
    bad = np.eye(4)
    bad[1, 2] = np.nan
    with pytest.raises(ValueError, match="transform"):
        hd.distance(a, b, bad)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0.0, 4.0))
def test_node_pair_bound_is_below_the_exact_box_distance(seed, reach):
    # the walk prunes a node pair by this bound: above the boxes' distance it would
    # lose the closest triangles; GJK on the boxes (1e-9) is the oracle
    from hitbox import OBBs
    from hitbox import volume_distance as vd
    from hitbox._kernels.distance import node_pair_bounds

    rng = np.random.default_rng(seed)
    n = 40
    half = rng.uniform(0.0, 1.0, (2, n, 3)) * (rng.uniform(size=(2, n, 3)) > 0.15)
    centre = rng.uniform(-1.0, 1.0, (2, n, 3))
    axes = np.stack([[rotation(rng) for _ in range(n)] for _ in range(2)])
    pose = _pose(rng, reach)
    rot, trans = pose[:3, :3], pose[:3, 3]
    idx = np.arange(n)
    out = np.empty(n)
    node_pair_bounds(centre[0], half[0], axes[0], idx, centre[1], half[1], axes[1],
                     idx, rot, trans, out)  # fmt: skip
    moved = OBBs(centre[1] @ rot.T + trans, half[1], rot @ axes[1])
    exact = vd.distance(OBBs(centre[0], half[0], axes[0]), moved).distance
    scale = np.abs(centre).max() + np.abs(trans).max() + 2.0
    assert np.all(out >= 0.0)
    assert np.all(out <= exact * (1 + 1e-9) + 1e-12 * scale)
    # never weaker than the bounding spheres' gap, less the bound's documented lowering
    # (1e-12 of |centres' offset| + both radii + |t|_1: pair_gap) and rounding
    apart = np.linalg.norm(centre[0] - (centre[1] @ rot.T + trans), axis=1)
    ra, rb = np.linalg.norm(half[0], axis=1), np.linalg.norm(half[1], axis=1)
    lowered = 1e-12 * (apart + ra + rb + np.abs(trans).sum())
    assert np.all(out >= apart - ra - rb - lowered - 1e-12 * scale)


def _wide_rows(rng, n, used):
    """n rows of a wide table (hitbox._kernels.obb_wide layout) of random boxes, the
    first ``used`` lanes of each in use; and those boxes as (centre, half, axes)."""
    centre = rng.uniform(-1.0, 1.0, (n, 4, 3))
    half = rng.uniform(0.0, 1.0, (n, 4, 3)) * (rng.uniform(size=(n, 4, 3)) > 0.15)
    axes = np.array([[rotation(rng) for _ in range(4)] for _ in range(n)])
    wide = np.zeros((n, 16, 4))
    wide[:, 0:3] = centre.transpose(0, 2, 1)
    wide[:, 3:6] = half.transpose(0, 2, 1)
    wide[:, 6:15] = axes.reshape(n, 4, 9).transpose(0, 2, 1)
    wide[:, 15] = np.where(np.arange(4) < used, np.arange(4), -1.0)
    return wide, (centre, half, axes)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 2**32 - 1), st.floats(0.0, 4.0), st.floats(0.01, 3.0),
    st.integers(1, 4),
)  # fmt: skip
def test_wide_walk_bounds_are_the_node_bound_rounded_down(seed, reach, stop, used):
    # the wide walk's four lanes at once: each the scalar node-pair bound (itself below
    # the boxes' distance, by GJK to 1e-9) rounded down to stop / CAP; a lane at or
    # beyond stop dropped (inf), an unused lane too
    from hitbox import OBBs
    from hitbox import volume_distance as vd
    from hitbox._kernels.distance import node_pair_bounds
    from hitbox._kernels.distance_wide import wide_bounds
    from hitbox._kernels.obb_wide import GAP_CAP as CAP

    rng = np.random.default_rng(seed)
    n = 12
    wide, (wc, wh, wr) = _wide_rows(rng, n, used)
    centre = rng.uniform(-1.0, 1.0, (n, 3))
    half = rng.uniform(0.0, 1.0, (n, 3)) * (rng.uniform(size=(n, 3)) > 0.15)
    axes = np.array([rotation(rng) for _ in range(n)])
    pose = _pose(rng, reach)
    rot, trans = np.ascontiguousarray(pose[:3, :3]), np.ascontiguousarray(pose[:3, 3])
    idx = np.arange(n)
    lanes = np.empty((n, 4))
    boxes = (centre, half, axes)
    wide_bounds(*boxes, *boxes, wide, idx, idx, True, rot, trans, stop, lanes)
    lanes_a = np.empty((n, 4))
    wide_bounds(*boxes, *boxes, wide, idx, idx, False, rot, trans, stop, lanes_a)
    unit = stop * (1 + 1e-9) / CAP
    scale = 2.0 + np.abs(trans).max()
    flat = (wc.reshape(-1, 3), wh.reshape(-1, 3), wr.reshape(-1, 3, 3))
    rows = np.repeat(idx, 4)
    # B's lanes moved against A's nodes, then A's lanes against B's nodes moved
    for got, a_boxes, ia, b_boxes, ib in (
        (lanes, (centre, half, axes), rows, flat, np.arange(4 * n)),
        (lanes_a, flat, np.arange(4 * n), (centre, half, axes), rows),
    ):
        got = got.ravel()
        scalar = np.empty(4 * n)
        node_pair_bounds(*a_boxes, ia, *b_boxes, ib, rot, trans, scalar)
        moved = OBBs(b_boxes[0][ib] @ rot.T + trans, b_boxes[1][ib], rot @ b_boxes[2][ib])
        exact = vd.distance(
            OBBs(a_boxes[0][ia], a_boxes[1][ia], a_boxes[2][ia]), moved
        ).distance
        live = np.tile(np.arange(4) < used, n)
        assert np.all(np.isinf(got[~live]))
        kept = live & np.isfinite(got)
        assert np.all(got[kept] >= 0.0)
        assert np.all(got[kept] <= exact[kept] * (1 + 1e-9) + 1e-12 * scale)
        assert np.all(got[kept] <= scalar[kept] + 1e-12 * scale)
        assert np.all(got[kept] >= scalar[kept] - unit - 1e-12 * scale)
        # dropped lanes are at least stop away
        assert np.all(scalar[live & ~kept] >= stop - 1e-12 * scale)


def test_repeated_queries_of_a_pair_answer_the_same():
    # from its second query a pair runs the kernel's compiled entry point directly;
    # switching partners, and poses the fast path does not take, must not confuse it
    rng = np.random.default_rng(11)
    a = TriangleMesh(*SHAPES[2])
    partners = [TriangleMesh(*SHAPES[0]), TriangleMesh(*SHAPES[1], node="aabb")]
    poses = [_pose(rng, r) for r in (0.0, 0.8, 2.5)]
    want = {(m, k): hd.distance_brute(a, partners[m], pose)[0]
            for m in range(2) for k, pose in enumerate(poses)}  # fmt: skip
    for m in (0, 0, 1, 1, 0, 1):
        for k, pose in enumerate(poses):
            assert hd.distance(a, partners[m], pose).distance == want[m, k]
            frozen = pose.copy()
            frozen.flags.writeable = False
            assert hd.distance(a, partners[m], frozen).distance == want[m, k]
            assert hd.distance(a, partners[m], pose.tolist()).distance == want[m, k]


def test_the_walk_grows_its_heap_without_changing_an_answer():
    """The walk's scratch holds 128 x depth + 512 entries, half for its heap and half
    for the lanes that wait for a first leaf, each doubled when full; from no room at
    all (depth -8) both grow on their first entries and the answers are the same."""
    from hitbox._kernels.distance_wide import mesh_distance_wide

    a = TriangleMesh(*SHAPES[2])
    b = TriangleMesh(*SHAPES[0])
    walk_a, _, walk_b, _ = hd._args(a, b)
    rng = np.random.default_rng(4)
    for _ in range(20):
        pose = _pose(rng, 0.3)
        rot, trans = np.ascontiguousarray(pose[:3, :3]), np.ascontiguousarray(pose[:3, 3])
        got = []
        for depth in (a.bvh.depth + b.bvh.depth + 4, -8):
            out_f, out_i = np.empty(6), np.empty(2, np.intp)
            d = mesh_distance_wide(*walk_a, *walk_b, rot, trans, depth, np.inf, 0.0, 0.0,
                                   out_f, out_i, np.empty(0), np.empty(0, np.int64))  # fmt: skip
            got.append((d, out_i.tolist(), out_f.tolist()))
        assert got[0] == got[1]
        assert got[0][0] == hd.distance_brute(a, b, pose)[0]
