"""Batched scene queries through the top-level tree (hitbox.scene_queries.raycast,
overlapping, nearest; hitbox._scene_tlas): each against its brute-force twin on random
scenes of meshes, spheres, boxes and OBBs, plus ties, limits, masks and bad input."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hitbox import scene_queries as sq
from hitbox import shapes
from hitbox._types import OBBs, Spheres
from hitbox.pipeline import Scene

SEEDS = st.integers(0, 2**32 - 1)
FEW = settings(max_examples=12, deadline=None,
               suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip


@pytest.fixture(scope="module")
def meshes():
    return [shapes.torus(300), shapes.icosphere(0.6, 1), shapes.box((0.8, 0.5, 1.2))]


def _pose(rng, spread=3.0):
    q = rng.normal(size=4)
    w, x, y, z = q / np.linalg.norm(q)
    pose = np.eye(4)
    pose[:3, :3] = [
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ]
    pose[:3, 3] = rng.uniform(-spread, spread, 3)
    return pose


def _random_scene(meshes, seed, n=14):
    """Meshes, spheres, boxes and OBBs; every fifth object a copy of an earlier one at
    the same pose (exact ties); groups 1, 2 or 4."""
    rng = np.random.default_rng(seed)
    scene, added = Scene(), []
    for k in range(n):
        if k % 5 == 4 and added:
            shape, pose = added[rng.integers(len(added))]
        else:
            pose, kind = _pose(rng), k % 4
            if kind == 0:
                shape = meshes[rng.integers(len(meshes))]
            elif kind == 1:
                shape = Spheres(
                    rng.uniform(-0.2, 0.2, (1, 3)), np.array([rng.uniform(0, 0.7)])
                )
            elif kind == 2:
                lo = rng.uniform(-0.6, 0.0, 3)
                shape = np.stack([lo, lo + rng.uniform(0.0, 0.9, 3)])
            else:
                shape = OBBs(rng.uniform(-0.2, 0.2, (1, 3)), rng.uniform(0.05, 0.6, (1, 3)),
                             _pose(rng)[None, :3, :3])  # fmt: skip
        added.append((shape, pose))
        scene.add(shape, pose, group=int(1 << rng.integers(3)))
    return scene, rng


def _same_rays(a, b):
    np.testing.assert_array_equal(a.object, b.object)
    np.testing.assert_array_equal(a.face, b.face)
    np.testing.assert_array_equal(a.t, b.t)


def _same_nearest(a, b):
    np.testing.assert_array_equal(a.object, b.object)
    np.testing.assert_array_equal(a.face, b.face)
    np.testing.assert_array_equal(a.distance, b.distance)
    np.testing.assert_allclose(a.point, b.point, rtol=1e-12, atol=1e-12)


# -- raycast --------------------------------------------------------------------------------


@FEW
@given(seed=SEEDS)
def test_raycast_equals_brute(meshes, seed):
    scene, rng = _random_scene(meshes, seed)
    n = 400
    origins = rng.uniform(-5, 5, (n, 3))
    directions = rng.normal(size=(n, 3))
    directions[:50] = -origins[:50]  # towards the middle: mostly hits
    directions[50:80] = origins[50:80]  # outwards from far away: some miss everything
    t_max = np.where(rng.random(n) < 0.5, np.inf, rng.uniform(0, 4, n))
    got = sq.raycast(scene, origins, directions, t_max=t_max)
    _same_rays(got, sq.raycast_brute(scene, origins, directions, t_max=t_max))
    assert (got.object >= 0).any() and (got.object < 0).any()
    mask = int(rng.integers(1, 8))
    _same_rays(
        sq.raycast(scene, origins, directions, mask=mask),
        sq.raycast_brute(scene, origins, directions, mask=mask),
    )


def test_raycast_through_many_rays_takes_the_parallel_kernel(meshes):
    scene, rng = _random_scene(meshes, 7, n=30)
    origins = rng.uniform(-5, 5, (5000, 3))
    directions = -origins + rng.normal(size=(5000, 3))
    _same_rays(sq.raycast(scene, origins, directions),
               sq.raycast_brute(scene, origins, directions))  # fmt: skip


def test_raycast_ties_go_to_the_lower_id(meshes):
    scene = Scene()
    pose = np.eye(4)
    ball = Spheres(np.array([[0.0, 3, 0]]), np.array([1.0]))
    scene.add(np.array([[5.0, -1, -1], [6, 1, 1]]))  # 0: a box
    scene.add(meshes[2], pose)  # 1: the box mesh, a face on x = -0.4
    scene.add(ball)  # 2
    scene.add(meshes[2], pose)  # 3: a copy of 1
    scene.add(ball)  # 4: a copy of 2
    scene.add(np.array([[5.0, -1, -1], [6, 1, 1]]))  # 5: a copy of 0
    origins = np.array([[-3.0, 0.05, 0.02], [-3.0, 3, 0], [8.0, 0, 0], [0, 9.0, 0]])
    directions = np.array([[1.0, 0, 0], [1.0, 0, 0], [-1.0, 0, 0], [0, -1.0, 0]])
    got = sq.raycast(scene, origins, directions)
    _same_rays(got, sq.raycast_brute(scene, origins, directions))
    assert got.object.tolist() == [1, 2, 0, 2]
    np.testing.assert_allclose(got.t, [2.6, 2.0, 2.0, 5.0], rtol=1e-15)
    assert got.face[0] >= 0 and got.face[1:].tolist() == [-1, -1, -1]


def test_raycast_t_max_is_inclusive_and_limits(meshes):
    scene = Scene()
    scene.add(Spheres(np.zeros((1, 3)), np.array([1.0])))
    o, d = np.array([-3.0, 0, 0]), np.array([1.0, 0, 0])
    assert sq.raycast(scene, o, d, t_max=2.0) == (0, -1, 2.0)
    assert sq.raycast_brute(scene, o, d, t_max=2.0) == (0, -1, 2.0)
    assert sq.raycast(scene, o, d, t_max=1.999) == (-1, -1, np.inf)


def test_raycast_sees_poses_set_since_the_last_query(meshes):
    scene, rng = _random_scene(meshes, 3)
    origins, directions = rng.uniform(-5, 5, (300, 3)), rng.normal(size=(300, 3))
    sq.raycast(scene, origins, directions)
    for i in scene.ids[::2]:
        scene.set_pose(i, _pose(rng))
    scene.step(0.1)
    _same_rays(sq.raycast(scene, origins, directions),
               sq.raycast_brute(scene, origins, directions))  # fmt: skip


# -- overlapping ----------------------------------------------------------------------------


@FEW
@given(seed=SEEDS)
def test_overlapping_equals_brute(meshes, seed):
    scene, rng = _random_scene(meshes, seed)
    lo = rng.uniform(-5, 5, (120, 3))
    boxes = np.stack([lo, lo + rng.uniform(0, 2.5, (120, 3))], axis=1)
    boxes[:10, 1] = boxes[:10, 0]  # points
    boxes[10:15, 1, 0] = boxes[10:15, 0, 0] - 1  # empty
    boxes[15:20, 0, 1] = -np.inf  # unbounded
    boxes[20:22] = [[-np.inf] * 3, [np.inf] * 3]  # everything
    got = sq.overlapping(scene, boxes)
    np.testing.assert_array_equal(got, sq.overlapping_brute(scene, boxes))
    assert got.shape[1] and set(got[0].tolist()).isdisjoint(range(10, 15))
    assert set(got[1, got[0] == 20].tolist()) == set(scene.ids.tolist())
    mask = int(rng.integers(1, 8))
    np.testing.assert_array_equal(sq.overlapping(scene, boxes, mask=mask),
                                  sq.overlapping_brute(scene, boxes, mask=mask))  # fmt: skip


def test_overlapping_is_a_mesh_surface_and_solid_volumes(meshes):
    scene = Scene()
    scene.add(shapes.box((4.0, 4.0, 4.0)))  # 0: a hollow surface from -2 to 2
    scene.add(Spheres(np.array([[10.0, 0, 0]]), np.array([1.0])))  # 1: solid
    inside = np.array([[-0.5, -0.5, -0.5], [0.5, 0.5, 0.5]])
    touching = np.array([[1.9, -0.1, -0.1], [2.0, 0.1, 0.1]])
    ball_corner = np.array([[11.0, -1, -1], [12, 1, 1]])  # touches the ball at x = 11
    in_ball = np.array([[9.9, -0.1, -0.1], [10.1, 0.1, 0.1]])
    got = sq.overlapping(scene, np.stack([inside, touching, ball_corner, in_ball]))
    assert got.tolist() == [[1, 2, 3], [0, 1, 1]]
    assert sq.overlapping(scene, touching).tolist() == [0]  # one box: object ids


# -- nearest --------------------------------------------------------------------------------


@FEW
@given(seed=SEEDS)
def test_nearest_equals_brute(meshes, seed):
    scene, rng = _random_scene(meshes, seed)
    pts = rng.uniform(-6, 6, (300, 3))
    pts[:20] = [scene.pose(i)[:3, 3] for i in rng.choice(scene.ids, 20)]  # at centres
    _same_nearest(sq.nearest(scene, pts), sq.nearest_brute(scene, pts))
    reach = float(rng.uniform(0, 2))
    got = sq.nearest(scene, pts, max_distance=reach)
    _same_nearest(got, sq.nearest_brute(scene, pts, max_distance=reach))
    assert np.all((got.object < 0) == ~(got.distance <= reach))
    mask = int(rng.integers(1, 8))
    _same_nearest(
        sq.nearest(scene, pts, mask=mask), sq.nearest_brute(scene, pts, mask=mask)
    )


def test_nearest_solid_volumes_and_surfaces(meshes):
    scene = Scene()
    scene.add(shapes.box((2.0, 2.0, 2.0)))  # 0: surface
    scene.add(OBBs(np.array([[5.0, 0, 0]]), np.array([[1.0, 1, 1]]), np.eye(3)[None]))
    pts = np.array([[0.0, 0, 0], [5.2, 0.1, 0], [7.0, 0, 0], [3.0, 0, 0]])
    got = sq.nearest(scene, pts)
    _same_nearest(got, sq.nearest_brute(scene, pts))
    # the box mesh's centre is 1 from its faces; inside the solid box: 0; at x = 3 the
    # two are 2 and 1 away
    assert got.object.tolist() == [0, 1, 1, 1]
    np.testing.assert_allclose(got.distance, [1.0, 0.0, 1.0, 1.0])
    assert got.face[0] >= 0 and got.face[1] == -1
    np.testing.assert_allclose(got.point[1:], [[5.2, 0.1, 0], [6, 0, 0], [4, 0, 0]])
    one = sq.nearest(scene, [3.0, 0.0, 0.0], max_distance=0.5)
    assert (one.object, one.distance, one.face) == (-1, np.inf, -1)


# -- edges and bad input --------------------------------------------------------------------


def test_empty_scenes_and_empty_queries(meshes):
    scene = Scene()
    assert sq.raycast(scene, [0.0, 0, 0], [1.0, 0, 0]) == (-1, -1, np.inf)
    assert sq.nearest(scene, np.zeros((2, 3))).object.tolist() == [-1, -1]
    assert sq.overlapping(scene, np.zeros((3, 2, 3))).shape == (2, 0)
    scene.add(meshes[0])
    hits = sq.raycast(scene, np.zeros((0, 3)), np.zeros((0, 3)))
    assert hits.object.shape == (0,) and hits.t.dtype == float
    assert sq.nearest(scene, np.zeros((0, 3))).point.shape == (0, 3)
    assert sq.overlapping(scene, np.zeros((0, 2, 3))).shape == (2, 0)
    assert sq.raycast(scene, [0.0, 0, 5], [0.0, 0, 1], mask=0) == (-1, -1, np.inf)


def test_extreme_magnitudes_take_the_twins(meshes):
    scene = Scene()
    scene.add(meshes[1])
    far = np.array([[2.0**95, 0, 0]])
    hits = sq.raycast(scene, far, [[-1.0, 0, 0]])
    assert hits.object.tolist() == [0]
    np.testing.assert_allclose(hits.t, 2.0**95 - 0.6, rtol=1e-12)
    near = sq.nearest(scene, far)
    np.testing.assert_allclose(near.distance, 2.0**95, rtol=1e-12)


def test_a_query_group_meets_the_objects_masks(meshes):
    """Box2D's rule with the query as one party: an object is looked at when its group
    shares a bit with ``mask`` and its mask shares a bit with ``group``."""
    scene = Scene()
    ball = Spheres(np.zeros(3), 1.0)
    ids = [scene.add(ball, np.eye(4), group=g, mask=m) for g, m in
           ((1, 0b11), (2, 0b01), (4, 0b10), (1, 0))]  # fmt: skip
    origin, up = [0.0, 0.0, -5.0], [0.0, 0.0, 1.0]
    for mask, group in ((None, None), (0b101, None), (None, 0b10), (0b11, 0b01), (7, 8)):
        want = [
            i
            for i, (g, m) in zip(
                ids, ((1, 0b11), (2, 0b01), (4, 0b10), (1, 0)), strict=True
            )
            if (mask is None or g & mask) and (group is None or m & group)
        ]
        got = sq.overlapping(scene, [[-0.5] * 3, [0.5] * 3], mask=mask, group=group)
        assert got.tolist() == want, (mask, group)
        hit = sq.raycast(scene, origin, up, mask=mask, group=group)
        assert hit.object == (want[0] if want else -1)
        near = scene.nearest([0.0, 0.0, 3.0], mask=mask, group=group)
        assert near.object == (want[0] if want else -1)
        twin = sq.nearest_brute(scene, [0.0, 0.0, 3.0], mask=mask, group=group)
        assert (twin.object, twin.distance) == (near.object, near.distance)
    with pytest.raises(ValueError, match="group"):
        sq.raycast(scene, origin, up, group=-1)


def test_bad_input_names_the_argument(meshes):
    scene = Scene()
    scene.add(meshes[0])
    with pytest.raises(TypeError, match="mask"):
        sq.raycast(scene, [0.0, 0, 0], [1.0, 0, 0], mask=1.5)
    with pytest.raises(ValueError, match="mask"):
        sq.nearest(scene, [0.0, 0, 0], mask=-1)
    with pytest.raises(ValueError, match="max_distance"):
        sq.nearest(scene, [0.0, 0, 0], max_distance=-1.0)
    with pytest.raises(TypeError, match="max_distance"):
        sq.nearest(scene, [0.0, 0, 0], max_distance="far")
    with pytest.raises(ValueError, match="boxes"):
        sq.overlapping(scene, np.zeros((4, 3)))
    with pytest.raises(ValueError, match="points"):
        sq.nearest(scene, [[np.nan, 0, 0]])
    flat = Scene(dim=2)
    with pytest.raises(ValueError, match="points"):
        sq.nearest(flat, [0.0, 0, 0])  # a 3D point in a 2D scene
    with pytest.raises(ValueError, match="origins"):
        sq.raycast(flat, [0.0, 0, 0], [1.0, 0, 0])
    with pytest.raises(ValueError, match="boxes"):
        sq.overlapping(flat, np.zeros((2, 3)))


# -- 2D scenes: the queries asked in the plane z = 0 -----------------------------------


def _scene_2d(seed, n=12):
    """Discs, boxes and oriented rectangles at random; their plain 2D descriptions."""
    rng = np.random.default_rng(seed)
    scene, plain = Scene(dim=2), []
    for k in range(n):
        c = rng.uniform(-3, 3, 2)
        if k % 3 == 0:
            r = rng.uniform(0.1, 0.9)
            scene.add(Spheres(c, r))
            plain.append(("disc", c, r))
        elif k % 3 == 1:
            h = rng.uniform(0.05, 0.8, 2)
            scene.add(np.stack([c - h, c + h]))
            plain.append(("rect", c, h, np.eye(2)))
        else:
            h, a = rng.uniform(0.05, 0.8, 2), rng.uniform(0, np.pi)
            rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
            scene.add(OBBs(c, h, rot))
            plain.append(("rect", c, h, rot))
    return scene, plain


def _ray_t_2d(obj, o, d):
    """Entry t of the ray o + t d (t >= 0) into a disc or rectangle, in the plane."""
    if obj[0] == "disc":
        _, c, r = obj
        f = o - c
        a, b, q = d @ d, f @ d, f @ f - r * r
        disc = b * b - a * q
        if disc < 0:
            return np.inf
        t0, t1 = (-b - np.sqrt(disc)) / a, (-b + np.sqrt(disc)) / a
        return np.inf if t1 < 0 else max(t0, 0.0)
    _, c, h, rot = obj
    lo_t, hi_t = 0.0, np.inf
    for ol, dl, hl in zip(rot.T @ (o - c), rot.T @ d, h, strict=True):
        if dl == 0.0:
            if abs(ol) > hl:
                return np.inf
            continue
        t0, t1 = sorted(((-hl - ol) / dl, (hl - ol) / dl))
        lo_t, hi_t = max(lo_t, t0), min(hi_t, t1)
    return lo_t if lo_t <= hi_t else np.inf


def _distance_2d(obj, p):
    if obj[0] == "disc":
        return max(0.0, np.linalg.norm(p - obj[1]) - obj[2])
    _, c, h, rot = obj
    q = rot.T @ (p - c)
    return float(np.linalg.norm(np.maximum(np.abs(q) - h, 0.0)))


def _box_gap_2d(obj, lo, hi):
    """The separation (> 0 apart, <= 0 meeting) of a 2D query box and an object, by
    the separating axes of the plane (a disc: the distance less its radius)."""
    if obj[0] == "disc":
        _, c, r = obj
        return np.linalg.norm(np.maximum(np.maximum(lo - c, c - hi), 0.0)) - r
    _, c, h, rot = obj
    corners = np.array([[x, y] for x in (lo[0], hi[0]) for y in (lo[1], hi[1])])
    mine = c + (np.array([[sx, sy] for sx in (-1, 1) for sy in (-1, 1)]) * h) @ rot.T
    gap = -np.inf
    for axis in (*np.eye(2), *rot.T):
        a, b = corners @ axis, mine @ axis
        gap = max(gap, a.min() - b.max(), b.min() - a.max())
    return gap


@FEW
@given(seed=SEEDS)
def test_2d_queries_equal_their_twins_and_the_plane(seed):
    scene, plain = _scene_2d(seed)
    rng = np.random.default_rng(seed + 1)
    o, d = rng.uniform(-4, 4, (60, 2)), rng.normal(size=(60, 2))
    hits = sq.raycast(scene, o, d)
    twin = sq.raycast_brute(scene, o, d)
    np.testing.assert_array_equal(hits.object, twin.object)
    np.testing.assert_array_equal(hits.t, twin.t)
    for r in range(len(o)):
        ts = np.array([_ray_t_2d(obj, o[r], d[r]) for obj in plain])
        assert np.isclose(hits.t[r], ts.min(), rtol=1e-12, atol=1e-12)
        if np.isfinite(ts.min()):
            assert np.isclose(ts[hits.object[r]], ts.min(), rtol=1e-12, atol=1e-12)
    pts = rng.uniform(-4, 4, (60, 2))
    near = sq.nearest(scene, pts)
    twin = sq.nearest_brute(scene, pts)
    np.testing.assert_array_equal(near.object, twin.object)
    np.testing.assert_array_equal(near.distance, twin.distance)
    assert near.point.shape == (60, 2)
    for k, p in enumerate(pts):
        ds = np.array([_distance_2d(obj, p) for obj in plain])
        assert np.isclose(near.distance[k], ds.min(), atol=1e-12)
        assert np.isclose(np.linalg.norm(near.point[k] - p), near.distance[k], atol=1e-12)
    lo = rng.uniform(-4, 3, (40, 2))
    boxes = np.stack([lo, lo + rng.uniform(0, 1.5, (40, 2))], axis=1)
    pairs = sq.overlapping(scene, boxes)
    np.testing.assert_array_equal(pairs, sq.overlapping_brute(scene, boxes))
    found = set(map(tuple, pairs.T.tolist()))
    for q in range(len(boxes)):
        for k, obj in enumerate(plain):
            gap = _box_gap_2d(obj, boxes[q, 0], boxes[q, 1])
            if abs(gap) > 1e-9:  # clear of touching, where rounding may go either way
                assert ((q, k) in found) == (gap < 0), (q, k, gap)


def _polygon(obj):
    _, c, h, rot = obj
    return c + (np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * h) @ rot.T


def _segment_distance(p, a, b):
    t = np.clip((p - a) @ (b - a) / ((b - a) @ (b - a)), 0.0, 1.0)
    return np.linalg.norm(p - (a + t * (b - a)))


def _shape_distance_2d(x, y):
    """Distance of two discs or rectangles in the plane (0 when they meet)."""
    if x[0] == "disc" and y[0] == "disc":
        return max(0.0, np.linalg.norm(x[1] - y[1]) - x[2] - y[2])
    if x[0] == "disc" or y[0] == "disc":
        disc, rect = (x, y) if x[0] == "disc" else (y, x)
        return max(0.0, _distance_2d(rect, disc[1]) - disc[2])
    px, py = _polygon(x), _polygon(y)
    apart = False
    for axis in (*x[3].T, *y[3].T):
        a, b = px @ axis, py @ axis
        apart |= a.min() > b.max() or b.min() > a.max()
    if not apart:
        return 0.0
    return min(
        _segment_distance(v, q[k], q[(k + 1) % 4])
        for p, q in ((px, py), (py, px))
        for v in p
        for k in range(4)
    )


@FEW
@given(seed=SEEDS)
def test_2d_within_is_the_plane_distance(seed):
    scene, plain = _scene_2d(seed)
    reach = 0.8
    pairs, dists = sq.within(scene, reach)
    found = dict(zip(map(tuple, pairs.T.tolist()), dists.tolist(), strict=True))
    for i in range(len(plain)):
        for j in range(i + 1, len(plain)):
            want = _shape_distance_2d(plain[i], plain[j])
            if abs(want - reach) < 1e-9:
                continue  # on the threshold: rounding may go either way
            assert ((i, j) in found) == (want < reach), (i, j, want)
            if (i, j) in found:
                assert abs(found[i, j] - want) <= 1e-9, (i, j, found[i, j], want)


def test_2d_queries_worked_example():
    scene = Scene(dim=2)
    disc = scene.add(Spheres(np.array([0.0, 0.0]), 1.0))
    box = scene.add(np.array([[-5.0, -1.0], [-3.0, 1.0]]))
    hits = sq.raycast(scene, [[-10.0, 0.0], [0.0, 5.0], [0.0, 5.0]],
                      [[1.0, 0.0], [0.0, -1.0], [1.0, 0.0]])  # fmt: skip
    assert hits.object.tolist() == [box, disc, -1]
    assert hits.t.tolist() == [5.0, 4.0, np.inf]
    near = sq.nearest(scene, [0.0, 3.0])
    assert (near.object, near.distance) == (disc, 2.0)
    np.testing.assert_array_equal(near.point, [0.0, 1.0])
    # touching counts: the box [1, 2] x [0, 0.5] touches the disc at (1, 0)
    assert sq.overlapping(scene, [[1.0, 0.0], [2.0, 0.5]]).tolist() == [disc]
    assert sq.overlapping(scene, [[2.0, 1.0], [1.0, 2.0]]).tolist() == []  # empty box
    assert sq.raycast(scene, np.zeros((0, 2)), np.zeros((0, 2))).object.shape == (0,)
