"""Scene queries beyond touching pairs (hitbox.scene_queries): contact segments, nested
meshes, pairs within a distance; each against its slow twin."""

import numpy as np
import pytest

from hitbox import shapes
from hitbox._scene_objects import MESH, SPHERE
from hitbox.mesh import TriangleMesh
from hitbox.pipeline import Scene
from hitbox.sphere import Spheres


def closest_points_brute(tris, points):
    """Distance from each point to the nearest of the (T, 3, 3) triangles, every one."""
    soup = TriangleMesh(tris.reshape(-1, 3), np.arange(3 * len(tris)).reshape(-1, 3))
    return soup.closest_point_brute(points).distance


def _at(x, y=0.0, z=0.0, turn=0.0):
    c, s = np.cos(turn), np.sin(turn)
    pose = np.eye(4)
    pose[:3, :3] = [[c, 0, s], [0, 1, 0], [-s, 0, c]]
    pose[:3, 3] = x, y, z
    return pose


@pytest.fixture(scope="module")
def torus():
    return shapes.torus(300)


def test_contact_segments_lie_on_both_triangles(torus):
    scene = Scene()
    scene.add(torus, _at(0.1, 0.0, 0.0, 0.4))
    scene.add(torus, _at(1.3, 0.1, 0.05, 1.1))
    scene.add(Spheres(np.zeros((1, 3)), np.array([0.4])), _at(-1.0))
    result = scene.query("contacts")
    brute = scene.query_brute("all")
    np.testing.assert_array_equal(result.pairs, brute.pairs)
    np.testing.assert_array_equal(result.triangles, brute.triangles)
    assert result.segments.shape == (result.triangles.shape[1], 2, 3)
    for k in range(result.pairs.shape[1]):
        i, j = result.pairs[:, k]
        cols = slice(result.offsets[k], result.offsets[k + 1])
        seg = result.segments[cols]
        if i == 2 or j == 2:  # the sphere: no triangle pair
            assert np.isnan(seg).all()
            continue
        for which, obj in ((0, i), (1, j)):
            pose = scene.pose(obj)
            tris = torus.triangles[result.triangles[which, cols]]
            world = tris @ pose[:3, :3].T + pose[:3, 3]
            for end in range(2):
                d = closest_points_brute(world, seg[:, end])
                assert np.all(d <= 1e-9)


def test_contacts_mode_is_all_with_segments_and_run_refuses_it(torus):
    scene = Scene()
    scene.add(torus)
    scene.add(torus, _at(1.2))
    plain = scene.query("all")
    with_segments = scene.query("contacts")
    np.testing.assert_array_equal(plain.triangles, with_segments.triangles)
    assert plain.segments is None and with_segments.segments is not None
    with pytest.raises(ValueError, match="mode"):
        scene.run(0.1, 2, mode="contacts")


def test_inside_finds_nested_meshes_only():
    big, small = shapes.box((3.0, 3.0, 3.0)), shapes.icosphere(0.3, 1)
    scene = Scene()
    scene.add(big)
    inner = scene.add(small, velocity=[10.0, 0.0, 0.0])
    assert scene.query().pairs.shape[1] == 0
    assert scene.query(inside=True).pairs.tolist() == [[0], [1]]
    # crossing the wall at x = 1.5: touching, reported once
    assert scene.step(0.14, inside=True).pairs.tolist() == [[0], [1]]
    assert scene.query().pairs.tolist() == [[0], [1]]
    assert scene.step(0.1, inside=True).pairs.shape[1] == 0  # outside
    scene.set_pose(inner, np.eye(4))
    assert scene.query(inside=True).pairs.tolist() == [[0], [1]]
    scene.ignore(0, inner)
    assert scene.query(inside=True).pairs.shape[1] == 0  # filtered
    with pytest.raises(ValueError, match="mode='any'"):
        scene.query("all", inside=True)


def _brute_distance(scene, i, j):
    """Every triangle pair, every vertex, or closed forms: the surface/solid rule."""
    objs = [scene._objects[k] for k in (i, j)]
    poses = [scene.pose(k) for k in (i, j)]
    worlds = []
    for obj, pose in zip(objs, poses, strict=True):
        if obj.kind == MESH:
            worlds.append(("mesh", obj.mesh.triangles @ pose[:3, :3].T + pose[:3, 3]))
        else:
            worlds.append(("ball", pose[:3, :3] @ obj.center + pose[:3, 3], obj.radius))
    (ka, *a), (kb, *b) = worlds
    if ka == "mesh" and kb == "mesh":
        ma = TriangleMesh(a[0].reshape(-1, 3), np.arange(3 * len(a[0])).reshape(-1, 3))
        mb = TriangleMesh(b[0].reshape(-1, 3), np.arange(3 * len(b[0])).reshape(-1, 3))
        return ma.distance_brute(mb)[0]
    if ka == "ball" and kb == "ball":
        return max(0.0, np.linalg.norm(a[0] - b[0]) - a[1] - b[1])
    tris, (centre, radius) = (a[0], b) if ka == "mesh" else (b[0], a)
    return max(0.0, closest_points_brute(tris, centre[None])[0] - radius)


def test_within_equals_brute_force(torus):
    scene = Scene()
    rng = np.random.default_rng(3)
    for k in range(6):
        pose = _at(*rng.uniform(-2.5, 2.5, 3), turn=rng.uniform(0, 3))
        if k % 3 == 2:
            scene.add(Spheres(np.zeros((1, 3)), np.array([0.3])), pose, static=k == 5)
        else:
            scene.add(torus, pose, static=k == 4)
    reach = 1.0
    pairs, dists = scene.within(reach)
    want = {}
    for i in range(6):
        for j in range(i + 1, 6):
            if scene._objects[i].static and scene._objects[j].static:
                continue
            d = _brute_distance(scene, i, j)
            if d <= reach:
                want[(i, j)] = d
    assert [tuple(p) for p in pairs.T.tolist()] == sorted(want)
    np.testing.assert_allclose(dists, [want[tuple(p)] for p in pairs.T.tolist()],
                               rtol=1e-12, atol=1e-12)  # fmt: skip
    touching = {tuple(p) for p in scene.query_brute().pairs.T.tolist()}
    assert all(want[p] == 0.0 for p in touching if p in want)


def test_within_a_mesh_inside_a_box_is_at_zero(torus):
    scene = Scene()
    scene.add(np.array([[-3.0, -3, -3], [3, 3, 3]]))
    scene.add(torus, velocity=[1.0, 0, 0])
    pairs, dists = scene.within(0.0)
    assert pairs.tolist() == [[0], [1]] and dists.tolist() == [0.0]
    with pytest.raises(ValueError, match="distance"):
        scene.within(-1.0)
    with pytest.raises(TypeError, match="distance"):
        scene.within("far")


def test_scene_raycast_equals_every_object_tested(torus):
    from hitbox import ray, triangle
    from hitbox._types import OBBs

    scene = Scene()
    rng = np.random.default_rng(9)
    for k in range(7):
        pose = _at(*rng.uniform(-3, 3, 3), turn=rng.uniform(0, 3))
        if k % 3 == 1:
            scene.add(Spheres(np.zeros((1, 3)), np.array([0.4])), pose)
        elif k % 3 == 2:
            scene.add(np.array([[-0.3, -0.2, -0.5], [0.3, 0.2, 0.5]]), pose)
        else:
            scene.add(torus, pose)
    origins = rng.uniform(-4, 4, (400, 3))
    dirs = rng.normal(size=(400, 3))
    got = scene.raycast(origins, dirs, t_max=6.0)
    best = np.full(400, np.inf)
    obj = np.full(400, -1)
    face = np.full(400, -1)
    for i in range(7):
        o = scene._objects[i]
        pose = scene.pose(i)
        if o.kind == MESH:
            world = torus.triangles @ pose[:3, :3].T + pose[:3, 3]
            hits = triangle.raycast(world, origins, dirs, t_max=6.0)
            t, f = hits.t, hits.face
        else:
            centre = pose[:3, :3] @ o.center + pose[:3, 3]
            if o.kind == SPHERE:
                h = ray.cast_sphere(Spheres(centre[None], np.array([o.radius])), origins, dirs,
                                    t_max=6.0)  # fmt: skip
            else:
                h = ray.cast_obb(OBBs(centre[None], o.half[None], (pose[:3, :3] @ o.rot)[None]),
                                 origins, dirs, t_max=6.0)  # fmt: skip
            t, f = np.where(h.hit, h.t_enter, np.inf), np.full(400, -1)
        closer = t < best
        best[closer], obj[closer], face[closer] = t[closer], i, f[closer]
    assert (obj >= 0).any() and (obj < 0).any()
    np.testing.assert_array_equal(got.object, obj)
    np.testing.assert_array_equal(got.face, face)
    np.testing.assert_allclose(got.t, best, rtol=1e-9, atol=1e-12)


def test_within_many_objects_equals_every_pair():
    # a hundred balls, some static, one pair ignored, and a ground half-space: the
    # broad phase's candidates must hold every pair within reach (closed forms here)
    from hitbox import convex

    rng = np.random.default_rng(11)
    scene = Scene()
    centres = rng.uniform(0.0, 6.0, (100, 3))
    radii = rng.uniform(0.05, 0.4, 100)
    for k in range(100):
        scene.add(Spheres(centres[k : k + 1], radii[k : k + 1]), static=k % 7 == 0)
    ground = scene.add(convex.halfspace([0, 0, 1], 0.2), static=True)
    scene.ignore(3, 4)
    reach = 0.35
    pairs, dists = scene.within(reach)
    want = {}
    for i in range(100):
        for j in range(i + 1, 100):
            if (i % 7 == 0 and j % 7 == 0) or (i, j) == (3, 4):
                continue
            gap = np.linalg.norm(centres[i] - centres[j]) - radii[i] - radii[j]
            if gap <= reach:
                want[(i, j)] = max(0.0, gap)
        gap = centres[i, 2] - radii[i] - 0.2  # above the ground z <= 0.2
        if i % 7 and gap <= reach:
            want[(i, ground)] = max(0.0, gap)
    assert len(want) > 20
    assert [tuple(p) for p in pairs.T.tolist()] == sorted(want)
    np.testing.assert_allclose(dists, [want[tuple(p)] for p in pairs.T.tolist()],
                               rtol=1e-12, atol=1e-12)  # fmt: skip
