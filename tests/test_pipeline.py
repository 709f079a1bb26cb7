"""The scene pipeline (SPEC §9): every step equals the brute-force twin; kernels against
independent oracles; statics, groups, masks, ignore lists; bad input changes nothing."""

import numpy as np
import pytest
import trimesh

import hitbox as hb
from hitbox import _scene_editing
from hitbox._kernels import pipeline as kp
from hitbox._kernels import scene_layout as kl
from hitbox._torus import torus_mesh
from hitbox._types import OBBs, Spheres
from hitbox.mesh import TriangleMesh
from hitbox.pipeline import Scene
from tests.strategies import rotation

FUNNEL = (
    "skipped_static",
    "skipped_far",
    "skipped_filtered",
    "skipped_scheduled",
    "rejected_by_boxes",
    "broadphase_candidates",
)


def _pose(rng, reach):
    pose = np.eye(4)
    pose[:3, :3] = rotation(rng)
    pose[:3, 3] = rng.uniform(-reach, reach, 3)
    return pose


def _meshes():
    ico = trimesh.creation.icosphere(subdivisions=1, radius=0.6)
    box = trimesh.creation.box(extents=(1.2, 0.4, 0.5))
    tv, tf = torus_mesh(200, r_major=0.7, r_minor=0.2)
    cyl = trimesh.creation.cylinder(radius=0.25, height=1.5, sections=10)
    return [
        (ico.vertices, ico.faces),
        (box.vertices, box.faces),
        (tv, tf),
        (cyl.vertices, cyl.faces),
    ]


def _random_scene(seed, broadphase, n=20, node="obb"):
    """About n objects in a box of half-width 2.5: meshes, spheres, AABBs and OBBs, a
    quarter static, the rest moving, some rotating or accelerating. Volume kinds vary."""
    rng = np.random.default_rng(seed)
    scene = Scene(
        threshold=float(rng.choice([0.0, 0.5, 2.0])), broadphase=broadphase, trace=True
    )
    meshes = _meshes()
    volumes = [None, "sphere", "aabb", "obb", "kdop14", "kdop18", "kdop26"]
    for k in range(n):
        static = k % 4 == 0
        motion = {}
        if not static:
            motion["velocity"] = rng.normal(0, 0.6, 3)
            if rng.random() < 0.5:
                motion["angular_velocity"] = rng.normal(0, 1.5, 3)
            if rng.random() < 0.4:
                motion["acceleration"] = rng.normal(0, 0.3, 3)
            if rng.random() < 0.3:
                motion["angular_acceleration"] = 0.5
        kind = k % 5
        if kind <= 1:
            vv, ff = meshes[rng.integers(len(meshes))]
            shape = TriangleMesh(vv, ff, node=node)
            motion["volume"] = volumes[rng.integers(len(volumes))]
        elif kind == 2:
            # spheres off their origin, so turning moves their centre
            shape = Spheres(rng.uniform(-0.5, 0.5, 3), rng.uniform(0.1, 0.6))
        elif kind == 3:
            lo = rng.uniform(-0.6, 0.0, 3)
            shape = np.stack([lo, lo + rng.uniform(0.0, 0.8, 3)])
        else:
            shape = OBBs(
                rng.uniform(-0.3, 0.3, 3), rng.uniform(0.05, 0.5, 3), rotation(rng)
            )
        scene.add(shape, _pose(rng, 2.5), static=static, **motion)
    return scene, rng


def _same(result, twin):
    np.testing.assert_array_equal(result.pairs, twin.pairs)
    np.testing.assert_array_equal(result.offsets, twin.offsets)
    np.testing.assert_array_equal(result.triangles, twin.triangles)


def _check_stats(scene, stats):
    assert sum(getattr(stats, name) for name in FUNNEL) == stats.pairs
    assert stats.broadphase_candidates == stats.rejected_by_volumes + stats.narrow_tested
    assert stats.colliding <= stats.narrow_tested
    static = {i for i in scene.ids.tolist() if scene._t["static"][i]}
    for stage, pairs in scene.trace.items():
        for i, j in pairs.T.tolist():
            assert not (i in static and j in static), (
                f"static pair {i, j} reached {stage}"
            )


@pytest.mark.parametrize("seed, broadphase", [(0, "auto"), (1, "sap"), (2, "brute")])
def test_every_step_equals_brute_force(seed, broadphase):
    """200 steps of moving, turning, accelerating objects; every step's pairs and
    triangles equal the brute-force twin's, while objects are moved, sped up, added,
    removed and ignored by hand along the way."""
    scene, rng = _random_scene(seed, broadphase)
    totals = dict.fromkeys(
        (
            "skipped_far",
            "skipped_scheduled",
            "colliding",
            "rejected_by_volumes",
            "rejected_by_boxes",
        ),
        0,
    )
    spare = _meshes()[0]
    for step in range(200):
        mode = "all" if step % 2 == 0 else "any"
        result = scene.step(0.04, mode=mode)
        _same(result, scene.query_brute(mode=mode))
        _check_stats(scene, result.stats)
        for name in totals:
            totals[name] += getattr(result.stats, name)
        ids = scene.ids
        if step % 37 == 5:
            scene.set_pose(int(rng.choice(ids)), _pose(rng, 2.0))
        if step % 41 == 7:
            mover = int(rng.choice(ids[scene._t["static"][ids] == 0]))
            scene.set_velocity(
                mover,
                velocity=rng.normal(0, 0.8, 3),
                angular_velocity=rng.normal(0, 1.0, 3),
            )
        if step % 53 == 11:
            scene.remove(int(rng.choice(ids)))
            scene.add(
                TriangleMesh(*spare), _pose(rng, 2.0), velocity=rng.normal(0, 0.5, 3)
            )
        if step == 60:
            hit = result.pairs if result.pairs.shape[1] else np.array([ids[:2]]).T
            scene.ignore(int(hit[0, 0]), int(hit[1, 0]))
    # the run exercised every way of skipping a pair, and found contacts
    assert all(value > 0 for value in totals.values()), totals


def test_static_structure_path_equals_brute_force(monkeypatch):
    """Above SMALL dynamic objects the broad phase sorts and sweeps (the order kept)."""
    monkeypatch.setattr(_scene_editing, "SMALL", 3)
    scene, _ = _random_scene(7, "auto", n=24)
    for step in range(60):
        result = scene.step(0.05, mode="all")
        _same(result, scene.query_brute(mode="all"))
        _check_stats(scene, result.stats)
        if step == 30:
            static = int(scene.ids[scene._t["static"][scene.ids] != 0][0])
            scene.set_pose(static, np.eye(4))


@pytest.mark.parametrize("seed, broadphase", [(3, "sap"), (4, "brute")])
def test_many_plain_volumes_through_the_incremental_structures(seed, broadphase):
    """Above the structures' brute-force sizes (and SMALL): 300 moving spheres, boxes and
    OBBs and 40 static ones; the sort-and-sweep or tree path equals brute force."""
    rng = np.random.default_rng(seed)
    scene = Scene(threshold=0.3, broadphase=broadphase)
    for k in range(340):
        kind = k % 3
        if kind == 0:
            shape = Spheres(rng.uniform(-0.2, 0.2, 3), rng.uniform(0.05, 0.4))
        elif kind == 1:
            lo = rng.uniform(-0.3, 0.0, 3)
            shape = np.stack([lo, lo + rng.uniform(0.05, 0.5, 3)])
        else:
            shape = OBBs(np.zeros(3), rng.uniform(0.05, 0.3, 3), rotation(rng))
        static = k >= 300
        motion = {}
        if not static:
            motion = {
                "velocity": rng.normal(0, 0.5, 3),
                "angular_velocity": rng.normal(0, 1, 3),
            }
        scene.add(shape, _pose(rng, 6.0), static=static, **motion)
    total = 0
    for step in range(12):  # the brute twin tests 57,000 pairs in Python each step
        result = scene.step(0.05, mode="all")
        _same(result, scene.query_brute(mode="all"))
        total += result.pairs.shape[1]
        if step == 5:
            scene.remove(5)
            scene.set_pose(310, np.eye(4))
    assert total > 40


def test_rotation_about_the_origin_moves_the_sphere_centre():
    """A ball whose centre sits 5 off its origin, turning at 1 rad/s about z, sweeps into
    a ball at (0, 5, 0) near t = pi/2 with no linear velocity at all: only the |w| |c|
    bound of the pretreatment can wake the pair in time."""
    scene = Scene(threshold=100.0)
    a = scene.add(Spheres(np.array([5.0, 0.0, 0.0]), 0.5), angular_velocity=(0, 0, 1.0))
    b = scene.add(Spheres(np.array([0.0, 5.0, 0.0]), 0.5), static=True)
    first = None
    for _ in range(200):
        result = scene.step(0.01)
        _same(result, scene.query_brute())
        if result.pairs.shape[1] and first is None:
            first = scene.time
    assert result.stats.skipped_scheduled == 1
    # contact when the chord between the centres is 1: angle pi/2 - 2 asin(0.1)
    assert first == pytest.approx(np.pi / 2 - 2 * np.arcsin(0.1), abs=0.011)
    assert (a, b) == (0, 1)


def test_scheduling_skips_until_the_time_bound():
    """Two balls closing at 2 m/s from a gap of 10 m: the pair sleeps for 5 s, then the
    contact is reported at the step where they touch (touching counts)."""
    scene = Scene(threshold=20.0)
    scene.add(Spheres(np.zeros(3), 1.0), velocity=(1.0, 0, 0))
    pose = np.eye(4)
    pose[0, 3] = 12.0
    scene.add(Spheres(np.zeros(3), 1.0), pose, velocity=(-1.0, 0, 0))
    verdicts = []
    for _ in range(6):
        result = scene.step(1.0)
        verdicts.append(
            (
                result.stats.scheduled_new,
                result.stats.skipped_scheduled,
                result.pairs.shape[1],
            )
        )
    # t=1: gap 8, scheduled; t=2..4 asleep; t=5 the wake time is reached: touching
    assert verdicts[0] == (1, 1, 0)
    assert verdicts[1:4] == [(0, 1, 0)] * 3
    assert verdicts[4][2] == 1 and verdicts[5][2] == 1


def test_motion_is_integrated_exactly():
    scene = Scene()
    v, w, a = (
        np.array([0.3, -0.2, 0.1]),
        np.array([0.4, 1.1, -0.7]),
        np.array([0.0, 0.5, 1.0]),
    )
    start = np.eye(4)
    start[:3, :3] = rotation(np.random.default_rng(3))
    start[:3, 3] = [1.0, 2.0, 3.0]
    i = scene.add(
        Spheres(np.zeros(3), 0.1), start, velocity=v, angular_velocity=w, acceleration=a
    )
    for _ in range(100):
        scene.step(0.03)
    t = scene.time
    turn = trimesh.transformations.rotation_matrix(np.linalg.norm(w) * t, w)[:3, :3]
    pose = scene.pose(i)
    np.testing.assert_allclose(
        pose[:3, 3], start[:3, 3] + v * t + a * t * t / 2, atol=1e-12
    )
    np.testing.assert_allclose(pose[:3, :3], turn @ start[:3, :3], atol=1e-12)
    np.testing.assert_allclose(scene._t["vel"][i], v + a * t, atol=1e-13)


def test_groups_masks_and_ignore_list():
    scene = Scene()
    # four unit balls all overlapping at the origin
    a = scene.add(Spheres(np.zeros(3), 1.0), group=0b01, mask=0b10)
    b = scene.add(Spheres(np.zeros(3), 1.0), group=0b10, mask=0b01)
    c = scene.add(Spheres(np.zeros(3), 1.0), group=0b01, mask=0b01)
    d = scene.add(np.array([[-1.0, -1, -1], [1, 1, 1]]), group=0b11)
    scene.ignore(d, c)
    expected = [(a, b), (a, d), (b, d)]  # a-c: a's mask lacks c's group; c-d ignored
    for result in (scene.query(), scene.query_brute()):
        assert list(map(tuple, result.pairs.T.tolist())) == expected
    stats = scene.query().stats
    assert stats.skipped_filtered == 3  # a-c, b-c, c-d
    assert stats.colliding == 3


def test_static_pairs_are_never_formed():
    scene = Scene(trace=True)
    s1 = scene.add(Spheres(np.zeros(3), 1.0), static=True)
    s2 = scene.add(np.array([[-1.0, -1, -1], [1, 1, 1]]), static=True)
    d = scene.add(Spheres(np.array([0.5, 0, 0]), 0.2))
    result = scene.query()
    assert result.pairs.T.tolist() == [[s1, d], [s2, d]]
    assert result.stats.skipped_static == 1
    assert [s1, s2] not in scene.trace["near"].T.tolist()


def test_triangles_of_each_kind_of_pair():
    ico = trimesh.creation.icosphere(subdivisions=1)
    scene = Scene()
    m = scene.add(TriangleMesh(ico.vertices, ico.faces))
    s = scene.add(Spheres(np.array([1.0, 0, 0]), 0.2))
    b = scene.add(np.array([[0.9, -0.1, -0.1], [1.3, 0.1, 0.1]]))
    result = scene.query(mode="all")
    assert result.pairs.T.tolist() == [[m, s], [m, b], [s, b]]
    off = result.offsets
    mesh_sphere = result.triangles[:, off[0] : off[1]]
    assert mesh_sphere.shape[1] > 0 and np.all(mesh_sphere[1] == -1)
    tris = ico.vertices[ico.faces][mesh_sphere[0]]
    closest = trimesh.triangles.closest_point(
        tris, np.repeat([[1.0, 0, 0]], len(tris), 0)
    )
    assert np.all(np.linalg.norm(closest - [1.0, 0, 0], axis=1) <= 0.2 + 1e-12)
    np.testing.assert_array_equal(result.triangles[:, off[2] : off[3]], [[-1], [-1]])
    assert scene.query(mode="any").triangles.shape == (2, 0)


def test_mesh_pairs_with_different_tree_kinds():
    v, f = torus_mesh(200)
    scene = Scene()
    scene.add(TriangleMesh(v, f, node="obb"))
    pose = np.eye(4)
    pose[:3, :3] = [[1, 0, 0], [0, 0, -1], [0, 1, 0]]
    pose[0, 3] = 1.0
    scene.add(TriangleMesh(v, f, node="kdop18"), pose)
    pose[0, 3] = 0.3
    scene.add(TriangleMesh(v, f, node="sphere"), pose)
    _same(scene.query(mode="all"), scene.query_brute(mode="all"))


# -- kernels against independent oracles -------------------------------------------------


def _triangles(rng, n):
    tris = rng.uniform(-1.5, 1.5, (n, 3, 3))
    tris[: n // 8, 2] = tris[: n // 8, 0] + 0.5 * (tris[: n // 8, 1] - tris[: n // 8, 0])
    tris[n // 8 : n // 6, 1:] = tris[n // 8 : n // 6, :1]  # points
    return tris


def test_triangle_sphere_matches_closest_point():
    rng = np.random.default_rng(11)
    tris = _triangles(rng, 4000)
    centers = rng.uniform(-1.5, 1.5, (len(tris), 3))
    radii = rng.uniform(0.0, 1.0, len(tris))
    closest = trimesh.triangles.closest_point(tris, centers)
    dist = np.linalg.norm(closest - centers, axis=1)
    got = np.array(
        [
            kp.triangles_sphere(
                tris, np.array([k]), centers[k], radii[k], True, np.empty(1, np.intp)
            )
            == 1
            for k in range(len(tris))
        ]
    )
    clear = np.abs(dist - radii) > 1e-9
    np.testing.assert_array_equal(got[clear], (dist <= radii)[clear])
    # a ball touching a face, an edge and a vertex exactly
    tri = np.array([[[0.0, 0, 0], [2, 0, 0], [0, 2, 0]]])
    for center, r in (
        ([0.5, 0.5, 1.0], 1.0),
        ([1.0, -1.0, 0.0], 1.0),
        ([-3, -4, 0], 5.0),
    ):
        assert (
            kp.triangles_sphere(
                tri, np.array([0]), np.array(center, float), r, True, np.empty(1, np.intp)
            )
            == 1
        )


def _box_triangles(half):
    """The 12 surface triangles of the box [-half, half]."""
    box = trimesh.creation.box(extents=2 * half)
    return np.asarray(box.vertices)[np.asarray(box.faces)]


def test_triangle_box_matches_surface_and_inside_oracle():
    """A triangle meets the solid box iff it meets its surface or lies inside it."""
    rng = np.random.default_rng(12)
    tris = _triangles(rng, 3000)
    hits = []
    for k, tri in enumerate(tris):
        half = rng.uniform(0.1, 1.0, 3)
        surface = _box_triangles(half)
        crosses = hb.triangle.overlap(surface, np.repeat(tri[None], 12, axis=0)).any()
        inside = np.all(np.abs(tri[0]) <= half)
        got = kp.triangles_box(
            tri[None],
            np.array([0]),
            np.zeros(3),
            half,
            np.eye(3),
            True,
            np.empty(1, np.intp),
        )
        assert got == int(crosses or inside), k
        hits.append(got)
    assert 0.1 < np.mean(hits) < 0.9
    # touching: a triangle lying on a face, one touching an edge, a point on a corner
    half = np.array([1.0, 1.0, 1.0])
    for tri in (
        [[0, 0, 1], [3, 0, 1], [0, 3, 1]],
        [[1, 1, -3], [1, 1, 3], [4, 4, 0]],
        [[1, 1, 1], [1, 1, 1], [1, 1, 1]],
    ):
        assert (
            kp.triangles_box(
                np.array([tri], float),
                np.array([0]),
                np.zeros(3),
                half,
                np.eye(3),
                True,
                np.empty(1, np.intp),
            )
            == 1
        )


def test_mesh_against_rotated_box_and_sphere_equals_brute_force():
    rng = np.random.default_rng(5)
    v, f = torus_mesh(200)
    for _ in range(30):
        scene = Scene()
        scene.add(TriangleMesh(v, f), _pose(rng, 0.5))
        scene.add(
            OBBs(rng.uniform(-1, 1, 3), rng.uniform(0.05, 0.4, 3), rotation(rng)),
            _pose(rng, 0.5),
        )
        scene.add(Spheres(rng.uniform(-1, 1, 3), rng.uniform(0.05, 0.4)), _pose(rng, 0.5))
        _same(scene.query(mode="all"), scene.query_brute(mode="all"))


# -- bad input ---------------------------------------------------------------------------


def _snapshot(scene):
    ids = scene.ids
    return (
        ids.tolist(),
        [scene.pose(i).tolist() for i in ids],
        scene.time,
        scene._t["vel"][ids].tolist(),
        scene.query(mode="all").pairs.tolist(),
    )


def test_bad_input_is_rejected_and_changes_nothing():
    ico = trimesh.creation.icosphere(subdivisions=1)
    mesh = TriangleMesh(ico.vertices, ico.faces)
    scene = Scene()
    a = scene.add(mesh, velocity=(0.1, 0, 0))
    b = scene.add(Spheres(np.array([0.5, 0, 0]), 0.5))
    scene.step(0.1)
    before = _snapshot(scene)
    skew = np.eye(4)
    skew[0, 1] = 0.5
    nan = np.array([np.nan, 0.0, 0.0])
    calls = [
        (ValueError, lambda: scene.set_poses([a, b], np.stack([np.eye(4), skew]))),
        (ValueError, lambda: scene.set_poses([a, 7], np.stack([np.eye(4)] * 2))),
        (ValueError, lambda: scene.set_poses([a, a], np.stack([np.eye(4)] * 2))),
        (ValueError, lambda: scene.set_poses([a, b], np.stack([np.eye(4)] * 3))),
        (TypeError, lambda: scene.set_poses([0.5], np.eye(4)[None])),
        (ValueError, lambda: scene.set_velocities([a, b], np.zeros((3, 3)))),
        (ValueError, lambda: scene.set_velocities([a], [[np.nan, 0, 0]])),
        (TypeError, lambda: scene.add("box")),
        (TypeError, lambda: scene.add(np.zeros((3, 3)))),
        (ValueError, lambda: scene.add(Spheres(np.zeros(3), -1.0))),
        (ValueError, lambda: scene.add(np.array([[1.0, 0, 0], [0, 1, 1]]))),  # empty box
        (ValueError, lambda: scene.add(Spheres(np.zeros(3), 1.0), skew)),
        (ValueError, lambda: scene.add(Spheres(np.zeros(3), 1.0), velocity=nan)),
        (
            ValueError,
            lambda: scene.add(Spheres(np.zeros(3), 1.0), static=True, velocity=(1, 0, 0)),
        ),
        (ValueError, lambda: scene.add(Spheres(np.zeros(3), 1.0), volume="obb")),
        (
            ValueError,
            lambda: scene.add(TriangleMesh(ico.vertices, ico.faces), volume="cube"),
        ),
        (
            ValueError,
            lambda: scene.add(Spheres(np.zeros(3), 1.0), angular_acceleration=-1),
        ),
        (ValueError, lambda: scene.add(Spheres(np.zeros(3), 1.0), group=-1)),
        (ValueError, lambda: scene.remove(99)),
        (TypeError, lambda: scene.remove("a")),
        (ValueError, lambda: scene.set_pose(a, skew)),
        (ValueError, lambda: scene.set_pose(7, np.eye(4))),
        (
            ValueError,
            lambda: scene.set_velocity(a, velocity=(1, 2, 3), angular_velocity=nan),
        ),
        (ValueError, lambda: scene.set_velocity(b, velocity=[1, 2])),
        (ValueError, lambda: scene.ignore(a, a)),
        (ValueError, lambda: scene.ignore(a, 42)),
        (ValueError, lambda: scene.step(-0.1)),
        (ValueError, lambda: scene.step(np.nan)),
        (ValueError, lambda: scene.query(mode="some")),
        (ValueError, lambda: Scene(threshold=-1.0)),
        (ValueError, lambda: Scene(broadphase="octree")),
    ]
    for error, call in calls:
        with pytest.raises(error):
            call()
        assert _snapshot(scene) == before
    # still usable
    scene.remove(a)
    assert scene.step(0.1).pairs.shape == (2, 0)
    scene.add(mesh)  # a removed object's shape may come back


@pytest.mark.parametrize("node", ["obb", "aabb"])
def test_instances_and_bulk_poses_equal_brute_force(node):
    """One mesh added as many objects (one tree), moved by set_poses: small moves keep
    the witnesses of mode any alive, teleports must not let them lie; every step equals
    the brute-force twin, and set_poses equals set_pose one at a time."""
    rng = np.random.default_rng(11)
    vv, ff = torus_mesh(120)
    mesh = TriangleMesh(vv, ff, node=node)
    scene = Scene(threshold=0.5)
    twin = Scene(threshold=0.5)
    ids = [scene.add(mesh, _pose(rng, 1.2)) for _ in range(6)]
    for k in ids:
        twin.add(mesh, scene.pose(k))
    ball = scene.add(Spheres(np.zeros(3), 0.4), _pose(rng, 1.0))
    twin.add(Spheres(np.zeros(3), 0.4), scene.pose(ball))
    assert len(scene._buf._trees) == 1  # the instances share one tree
    poses = np.stack([scene.pose(k) for k in ids])
    witnessed = 0
    for step in range(80):
        if step % 10 == 9:  # teleport some
            moved = rng.choice(6, 3, replace=False)
            poses[moved] = [_pose(rng, 1.2) for _ in moved]
        else:  # nudge every one a little: a small turn and shift
            for k in range(6):
                turn = np.eye(4)
                turn[:3, :3] = _small_rotation(rng, 0.02)
                turn[:3, 3] = rng.normal(0, 0.01, 3)
                poses[k] = poses[k] @ turn
        scene.set_poses(np.array(ids), poses)
        for k, pose in zip(ids, poses, strict=True):
            twin.set_pose(k, pose)
        mode = "all" if step % 5 == 4 else "any"
        result = scene.query(mode=mode)
        _same(result, scene.query_brute(mode=mode))
        _same(result, twin.query(mode=mode))
        np.testing.assert_array_equal(scene.pose(ids[0]), twin.pose(ids[0]))
        witnessed += result.stats.colliding
    assert witnessed > 30


def _small_rotation(rng, angle):
    axis = rng.normal(size=3)
    axis /= np.linalg.norm(axis)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * k @ k


def test_set_poses_rejects_bad_input_without_moving_anything():
    scene = Scene()
    a = scene.add(Spheres(np.zeros(3), 1.0))
    b = scene.add(Spheres(np.array([3.0, 0, 0]), 1.0))
    before = scene.pose(a), scene.pose(b)
    good = np.eye(4)
    bad = np.eye(4)
    bad[0, 1] = 0.5
    with pytest.raises(ValueError, match=r"poses\[1\]"):
        scene.set_poses([a, b], np.stack([good, bad]))
    with pytest.raises(ValueError, match="unknown object id 5"):
        scene.set_poses([a, 5], np.stack([good, good]))
    with pytest.raises(ValueError, match="3 poses for 2 ids"):
        scene.set_poses([a, b], np.stack([good] * 3))
    np.testing.assert_array_equal(scene.pose(a), before[0])
    np.testing.assert_array_equal(scene.pose(b), before[1])
    scene.set_poses(np.empty(0, np.intp), np.empty((0, 4, 4)))  # empty is legal


def _unaligned(a):
    """A copy of float64 array ``a`` whose data is not 8-byte aligned."""
    raw = np.zeros(a.nbytes + 1, np.uint8)
    raw[1:] = np.frombuffer(a.tobytes(), np.uint8)
    return np.frombuffer(raw, np.float64, count=a.size, offset=1).reshape(a.shape)


def test_set_poses_takes_every_kind_of_array_alike():
    """set_poses' compiled fast path (its entry point kept per kind of poses array)
    writes the same poses as set_pose one at a time, for writeable, read-only and
    unaligned poses, ids as lists, int32 and strided arrays, and rotations off
    orthonormal by rounding (snapped) or by more than RIGID_TOL (refused)."""
    rng = np.random.default_rng(5)
    scene, twin = Scene(), Scene()
    n = 8
    for _ in range(n):
        scene.add(Spheres(np.zeros(3), 0.3))
        twin.add(Spheres(np.zeros(3), 0.3))
    all_ids = np.arange(2 * n)[::2] // 2  # strided, ids 0..n-1
    for kind in range(6):
        poses = np.stack([_pose(rng, 2.0) for _ in range(n)])
        poses[0, :3, :3] *= 1.0 + 1e-12  # off orthonormal by rounding: snapped
        ids = [all_ids, all_ids.astype(np.int32), list(range(n))][kind % 3]
        if kind == 3:
            poses.flags.writeable = False
        elif kind == 4:
            poses = _unaligned(poses)
            assert not poses.flags.aligned
        scene.set_poses(ids, poses)
        for k in range(n):
            twin.set_pose(k, poses[k])
        for k in range(n):
            np.testing.assert_array_equal(scene.pose(k), twin.pose(k))
        _same(scene.query(), twin.query())
    bad = np.stack([scene.pose(k) for k in range(n)])
    bad[3, :3, :3] *= 1.0 + 1e-5
    before = [scene.pose(k) for k in range(n)]
    for readonly in (False, True):
        bad.flags.writeable = not readonly
        with pytest.raises(ValueError, match=r"poses\[3\]"):
            scene.set_poses(all_ids, bad)
        for k in range(n):
            np.testing.assert_array_equal(scene.pose(k), before[k])


@pytest.mark.parametrize("mode", ["any", "all"])
def test_fronts_kept_in_mode_all_only(mode):
    """Two linked tori (B's ring through A's hole, not touching) slid until they touch
    and on through: a step that proves the pair apart leaves a front with clearances
    in mode all (a step whose walk no longer paid drops it, and the next walks from
    the root and leaves one again), so no two apart steps in a row go without one; in
    mode any none (a pair apart walks from the root by wide children). A pair that
    touched at the last step keeps no front: mode any keeps its witness, mode all
    walks from the root by wide children; the first touching step after apart ones
    leaves its front in mode all. Every step equals the brute-force twin."""
    tv, tf = torus_mesh(400, r_major=1.0, r_minor=0.3)
    mesh = TriangleMesh(tv, tf)
    scene = Scene(threshold=0.0)
    scene.add(mesh, static=True)
    pose = np.eye(4)
    pose[:3, :3] = [[1, 0, 0], [0, 0, -1], [0, 1, 0]]  # B's ring upright, in xz
    pose[:3, 3] = (1.0, 0.0, 0.0)  # its tube through A's hole, 0.4 clear
    scene.add(mesh, pose, velocity=(0.5, 0.0, 0.0), angular_velocity=(0.0, 0.0, 0.1))
    steps = []  # (touching?, longest front in memory) each step
    for _ in range(14):
        result = scene.step(0.1, mode=mode)
        _same(result, scene.query_brute(mode))
        buf = scene._buf
        n_mem = int(buf.ctl[kl.C_MEM_N])
        mem = buf.mem_i[int(buf.ctl[kl.C_CUR]), :n_mem]
        longest = int(mem[:, 7].max()) if n_mem else 0  # 7: front length
        steps.append((result.pairs.shape[1] > 0, longest))
    touching = [f for t, f in steps if t]
    assert len(touching) >= 2 and len(steps) - len(touching) >= 3  # apart, touching
    for (t0, f0), (t1, f1) in zip(steps, steps[1:], strict=False):
        if not (t0 or t1) and mode == "all":
            assert f0 > 0 or f1 > 0
        if t0 and t1:
            assert f1 == 0
        if mode == "all" and t1 and not t0:
            assert f1 > 0
    if mode == "any":
        assert max(f for _, f in steps) == 0


def test_the_default_threshold_schedules_no_pair_while_the_scene_is_busy():
    """With the default threshold, a step after one that tested a pair schedules none
    (its near pairs are tested by their spheres again); after a step that tested none,
    pairs are scheduled again and quiet steps come back. Every step's pairs equal the
    brute-force twin's and those of a twin given the same threshold explicitly, which
    schedules at every step."""
    tv, tf = torus_mesh(200, r_major=1.0, r_minor=0.3)
    mesh = TriangleMesh(tv, tf)
    scenes = [Scene(), None]
    for k, scene in enumerate(scenes):
        if scene is None:
            scene = scenes[k] = Scene(threshold=scenes[0].threshold)
        scene.add(mesh, static=True)
        pose = np.eye(4)
        pose[:3, 3] = (-3.2, 0.1, 0.05)  # passes through A's plane, touching, then away
        scene.add(mesh, pose, velocity=(1.0, 0.0, 0.0), angular_velocity=(0, 0.2, 0))
        far = np.eye(4)
        far[:3, 3] = (0.0, 5.0, 0.0)  # drifts slowly: scheduled, never touching
        scene.add(mesh, far, velocity=(0.0, -0.05, 0.0))
    auto, given = scenes
    assert auto.threshold == given.threshold > 0.0
    busy = False
    seen = {"busy": 0, "scheduled after": 0, "quiet": 0}
    for _ in range(120):
        result = auto.step(0.05)
        twin = given.step(0.05)
        _same(result, auto.query_brute())
        assert np.array_equal(result.pairs, twin.pairs)
        stats = result.stats
        if busy:
            assert stats.scheduled_new == 0
            seen["busy"] += 1
        elif stats.scheduled_new:
            seen["scheduled after"] += 1
        seen["quiet"] += auto._horizon > auto.time
        busy = stats.broadphase_candidates + stats.rejected_by_boxes > 0
    assert all(count > 0 for count in seen.values()), seen


def test_bulk_ids_checked_once_are_checked_again_when_objects_come_and_go():
    """set_poses remembers the last array of ids it checked: the same ids again pass,
    an id removed since (or a changed array) is refused, nothing moved."""
    scene = Scene()
    ids = np.array([scene.add(Spheres(np.array([3.0 * k, 0, 0]), 1.0)) for k in range(3)])
    poses = np.tile(np.eye(4), (3, 1, 1))
    poses[:, 0, 3] = [0.0, 3.0, 6.0]
    scene.set_poses(ids, poses)
    scene.set_poses(ids, poses)  # remembered: still valid
    scene.remove(int(ids[1]))
    before = scene.pose(int(ids[0]))
    with pytest.raises(ValueError, match=f"unknown object id {ids[1]}"):
        scene.set_poses(ids, poses + 0.0)
    new = scene.add(Spheres(np.zeros(3), 1.0))
    with pytest.raises(ValueError, match=f"unknown object id {ids[1]}"):
        scene.set_poses(ids, poses)
    ids[1] = ids[0]  # the caller's array changed in place: checked again
    with pytest.raises(ValueError, match="must not repeat"):
        scene.set_poses(ids, poses)
    np.testing.assert_array_equal(scene.pose(int(ids[0])), before)
    ids[1] = new
    scene.set_poses(ids, poses)
    assert scene.pose(new)[0, 3] == 3.0
    _same(scene.query(), scene.query_brute())


@pytest.mark.parametrize("volume", ["aabb", "kdop14", "kdop18", "kdop26"])
def test_a_static_mesh_volume_is_fitted_when_added_as_a_step_fits_it(volume):
    """Pretreatment: a static mesh's box or k-DOP is fitted by add(), so no step pays
    the pass over its vertices; the table equals the one a step fits after the same
    pose is set again by hand, and the pairs equal brute force."""
    rng = np.random.default_rng(7)
    tv, tf = torus_mesh(400, r_major=0.7, r_minor=0.2)
    pose = _pose(rng, 0.5)
    scene = Scene()
    i = scene.add(TriangleMesh(tv, tf), pose, static=True, volume=volume)
    t = scene._t
    table = "vbox" if volume == "aabb" else "vkd" + volume[4:]
    assert t["vol_version"][i] == t["version"][i]
    at_add = t[table][i].copy()
    assert np.all(at_add[0] <= at_add[1])
    scene.set_pose(i, pose)  # the same pose: the volume is stale until a step needs it
    assert t["vol_version"][i] != t["version"][i]
    on_tube = pose[:3, :3] @ [0.7, 0.0, 0.0] + pose[:3, 3]
    scene.add(Spheres(on_tube, 0.3))  # on the torus's tube: its volume is tested
    result = scene.query()
    assert scene.query_brute().pairs.tolist() == result.pairs.tolist()
    assert result.stats.broadphase_candidates == 1
    assert t["vol_version"][i] == t["version"][i]
    np.testing.assert_array_equal(t[table][i], at_add)
