"""Convex shapes (hitbox.convex) as Scene objects: every step equals the brute-force
twin; continuous mode against closed forms and dense sub-steps; contacts, within and the
whole-scene queries against the convex module's own answers; bad input."""

import numpy as np
import pytest
import trimesh

from hitbox import convex
from hitbox import scene_queries as sq
from hitbox._torus import torus_mesh
from hitbox._types import OBBs, Spheres
from hitbox.mesh import TriangleMesh
from hitbox.pipeline import Scene
from tests.strategies import rotation


def _pose(rng, reach):
    pose = np.eye(4)
    pose[:3, :3] = rotation(rng)
    pose[:3, 3] = rng.uniform(-reach, reach, 3)
    return pose


def _convex_shape(rng, kind, hull_pts, centred=False):
    """A model-frame convex shape of ``kind``, off its origin so turning moves it
    (``centred``: holding the origin)."""
    c = np.zeros(3) if centred else rng.uniform(-0.3, 0.3, 3)
    axis = rng.normal(size=3)
    axis *= rng.uniform(0.0, 0.6) / np.linalg.norm(axis)
    if kind == "capsule":
        return convex.capsule(c - axis, c + axis, rng.uniform(0.05, 0.4))
    if kind == "cylinder":
        return convex.cylinder(c - axis, c + axis, rng.uniform(0.05, 0.5))
    if kind == "cone":
        return convex.cone(c - axis, c + axis, rng.uniform(0.05, 0.5))
    if kind == "hull":
        return hull_pts
    if kind == "ball":
        return convex.sphere(c, rng.uniform(0.1, 0.5))
    return convex.box(c, rng.uniform(0.05, 0.4, 3), rotation(rng))


KINDS = ("capsule", "cylinder", "cone", "hull", "ball", "box")


def _random_scene(seed, n=18):
    """Convex shapes of every kind (one hull shared by several objects), meshes, plain
    spheres and boxes, a quarter static, the rest moving and turning."""
    rng = np.random.default_rng(seed)
    scene = Scene(threshold=float(rng.choice([0.0, 0.5])))
    hull = convex.hull(rng.normal(size=(24, 3)) * 0.35)
    tv, tf = torus_mesh(160, r_major=0.6, r_minor=0.2)
    ico = trimesh.creation.icosphere(subdivisions=1, radius=0.5)
    for k in range(n):
        static = k % 4 == 0
        motion = {}
        if not static:
            motion["velocity"] = rng.normal(0, 0.7, 3)
            if rng.random() < 0.6:
                motion["angular_velocity"] = rng.normal(0, 1.5, 3)
        slot = k % 9
        if slot < 6:
            shape = _convex_shape(rng, KINDS[slot], hull)
        elif slot == 6:
            shape = TriangleMesh(tv, tf) if rng.random() < 0.5 else TriangleMesh(
                ico.vertices, ico.faces)  # fmt: skip
        elif slot == 7:
            shape = Spheres(rng.uniform(-0.3, 0.3, 3), rng.uniform(0.1, 0.5))
        else:
            shape = OBBs(rng.uniform(-0.3, 0.3, 3), rng.uniform(0.05, 0.4, 3),
                         rotation(rng))  # fmt: skip
        scene.add(shape, _pose(rng, 1.8), static=static, **motion)
    return scene, rng


def _same(result, twin):
    np.testing.assert_array_equal(result.pairs, twin.pairs)
    np.testing.assert_array_equal(result.offsets, twin.offsets)
    np.testing.assert_array_equal(result.triangles, twin.triangles)


def _kinds_of(scene, pairs):
    return {tuple(sorted((scene._objects[i].kind, scene._objects[j].kind)))
            for i, j in pairs.T.tolist()}  # fmt: skip


@pytest.mark.parametrize("seed", [0, 1])
def test_every_step_with_convex_shapes_equals_brute_force(seed):
    """150 steps, modes any and all: pairs, offsets and faces equal the brute-force
    twin's (convex.intersects, a mesh's intersect_shapes_brute face by face), with
    poses set by hand along the way; convex-convex, convex-mesh and convex-plain
    contacts all occur."""
    scene, rng = _random_scene(seed)
    seen = set()
    for step in range(150):
        mode = "all" if step % 2 else "any"
        result = scene.step(0.04, mode=mode)
        _same(result, scene.query_brute(mode=mode))
        seen |= _kinds_of(scene, result.pairs)
        if step % 31 == 3:
            ids = scene.ids
            chosen = rng.choice(ids, 4, replace=False)
            scene.set_poses(chosen, np.stack([_pose(rng, 1.5) for _ in chosen]))
    assert {("convex", "convex"), ("convex", "mesh")} <= seen, seen
    assert seen & {("box", "convex"), ("convex", "sphere")}, seen


def test_convex_balls_and_boxes_are_the_scenes_own_and_hulls_are_shared():
    rng = np.random.default_rng(4)
    scene = Scene()
    ball = scene.add(convex.sphere((1, 2, 3), 0.5))
    box = scene.add(convex.box((0, 0, 0), (1, 2, 3), rotation(rng)))
    rounded = scene.add(convex.capsule((0, 0, 0), (0, 0, 1), 0.2))
    hull = convex.hull(rng.normal(size=(30, 3)))
    first = scene.add(hull, _pose(rng, 3.0))
    second = scene.add(hull, _pose(rng, 3.0))
    assert scene.volume(ball) == "sphere" and scene._objects[ball].kind == "sphere"
    assert scene._objects[box].kind == "box"
    assert [scene._objects[i].kind for i in (rounded, first, second)] == ["convex"] * 3
    assert len(scene._buf._hulls) == 1  # one block of vertices for both instances
    np.testing.assert_array_equal(scene._t["xat"][[first, second]], [0, 0])
    _same(scene.query(mode="all"), scene.query_brute(mode="all"))


def test_bad_convex_shapes_are_rejected_and_change_nothing():
    scene = Scene()
    scene.add(convex.capsule((0, 0, 0), (0, 0, 1), 0.2))
    with pytest.raises(ValueError, match="half-space"):
        scene.add(convex.halfspace((0, 0, 1), 0.0))
    with pytest.raises(ValueError, match="one convex shape"):
        scene.add(convex.sphere(np.zeros((2, 3)), 1.0))
    with pytest.raises(ValueError, match="volume="):
        scene.add(convex.cone((0, 0, 0), (0, 0, 1), 0.5), volume="aabb")
    broken = convex.capsule((0, 0, 0), (0, 0, 1), 0.2)._replace(
        trans=np.full((1, 3), np.nan)
    )
    with pytest.raises(ValueError, match="finite"):
        scene.add(broken)
    skewed = convex.capsule((0, 0, 0), (0, 0, 1), 0.2)._replace(rot=2 * np.eye(3)[None])
    with pytest.raises(ValueError, match="rotation"):
        scene.add(skewed)
    with pytest.raises(TypeError, match="3D convex shapes"):
        Scene(dim=2).add(convex.sphere((0, 0, 0), 1.0))
    assert len(scene) == 1
    assert scene.query().pairs.shape == (2, 0)


# -- continuous mode ---------------------------------------------------------------------


def _at(x):
    pose = np.eye(4)
    pose[:3, 3] = x
    return pose


@pytest.mark.parametrize("kind", ["capsule", "cylinder", "cone", "hull"])
@pytest.mark.parametrize("spin", [False, True])
def test_no_convex_bullet_tunnels_through_a_thin_wall(kind, spin):
    """Convex bullets crossing a wall 0.1 thick within one step, at up to 100 wall
    thicknesses per step: continuous mode reports each, the discrete step misses most."""
    rng = np.random.default_rng(23 + spin)
    pts = rng.normal(size=(16, 3)) * 0.1
    hull = convex.hull(pts - pts.mean(axis=0))  # holds the origin, which crosses the wall
    missed = 0
    for _ in range(20):
        thick, dt = 0.1, 0.1
        speed = rng.uniform(5, 100) * thick / dt
        start = _at([-thick / 2 - rng.uniform(0.25, 0.9) * speed * dt,
                     *rng.uniform(-2, 2, 2)])  # fmt: skip
        start[:3, :3] = rotation(rng)
        motion = {"velocity": (speed, *rng.normal(0, 0.1 * speed, 2))}
        if spin:
            motion["angular_velocity"] = rng.normal(0, 20, 3)
        shape = _convex_shape(rng, kind, hull, centred=True)
        wall = np.array([[-thick / 2, -5, -5], [thick / 2, 5, 5]])
        scenes = []
        for _ in range(2):
            s = Scene()
            s.add(wall, static=True)
            s.add(shape, start, **motion)
            scenes.append(s)
        result = scenes[0].step(dt, continuous=True)
        assert result.pairs.tolist() == [[0], [1]]
        assert 0.0 <= result.toi[0] <= dt
        missed += scenes[1].step(dt).pairs.shape[1] == 0
    assert missed >= 12


def test_convex_contact_times_equal_closed_forms():
    """Head-on, translating: a capsule, cylinder, cone and cube hull reach a wall face at
    x = 0 when their farthest point along x does (within 1e-9)."""
    rng = np.random.default_rng(8)
    cube = convex.hull(np.array(np.meshgrid([-0.2, 0.2], [-0.2, 0.2], [-0.2, 0.2]))
                       .reshape(3, -1).T)  # fmt: skip
    cases = [
        (convex.capsule((0, 0, -0.3), (0, 0, 0.3), 0.15), 0.15),
        (convex.cylinder((0, 0, -0.3), (0, 0, 0.3), 0.25), 0.25),
        (convex.cone((0, 0, -0.3), (0, 0, 0.3), 0.25), 0.25),
        (cube, 0.2),
    ]
    for shape, reach in cases:
        for _ in range(5):
            speed = rng.uniform(2, 40)
            gap = rng.uniform(0.05, 0.9) * speed * 0.1
            scene = Scene()
            scene.add(np.array([[0.0, -3, -3], [0.5, 3, 3]]), static=True)
            scene.add(shape, _at([-reach - gap, *rng.uniform(-1, 1, 2)]),
                      velocity=(speed, 0, 0))  # fmt: skip
            result = scene.step(0.1, continuous=True)
            assert result.pairs.shape[1] == 1
            assert abs(result.toi[0] - gap / speed) <= 1e-9


def test_convex_continuous_agrees_with_dense_substeps():
    """Spinning, accelerating convex shapes, balls and boxes: every pair touching at one
    of 48 sub-step times is reported by one continuous step, no later than that; and
    at its contact time the pair is within touching distance."""
    dt, sub = 0.2, 48
    for seed in range(4):
        rng = np.random.default_rng(seed)
        hull = convex.hull(rng.normal(size=(20, 3)) * 0.3)
        items = []
        for k in range(10):
            pose = _at(rng.uniform(-1.2, 1.2, 3))
            pose[:3, :3] = rotation(rng)
            motion = {"velocity": rng.normal(0, 3, 3),
                      "angular_velocity": rng.normal(0, 6, 3),
                      "acceleration": rng.normal(0, 2, 3)}  # fmt: skip
            items.append((_convex_shape(rng, KINDS[k % 6], hull), pose, motion))
        cont, fine = Scene(threshold=0.0), Scene(threshold=0.0)
        for shape, pose, motion in items:
            cont.add(shape, pose, **motion)
            fine.add(shape, pose, **motion)
        result = cont.step(dt, continuous=True)
        toi = dict(zip(map(tuple, result.pairs.T.tolist()), result.toi, strict=True))
        for k in range(1, sub + 1):
            for pair in fine.step(dt / sub).pairs.T.tolist():
                assert tuple(pair) in toi, (seed, k, pair)
                assert toi[tuple(pair)] <= k * dt / sub + 1e-9
        assert set(map(tuple, fine.query().pairs.T.tolist())) <= set(toi)


# -- contacts and queries ------------------------------------------------------------------


def test_contacts_of_convex_pairs_are_the_convex_modules():
    """mode="contacts": a convex pair's normal and depth are convex.penetration's of the
    world shapes; a mesh face against a shape is that face (a flat hull) against it."""
    rng = np.random.default_rng(2)
    scene = Scene()
    a = scene.add(convex.capsule((0, 0, -0.5), (0, 0, 0.5), 0.3))
    b = scene.add(convex.cylinder((0, 0, -0.4), (0, 0, 0.4), 0.3), _at([0.5, 0.1, 0]))
    tv, tf = torus_mesh(200, r_major=0.8, r_minor=0.25)
    m = scene.add(TriangleMesh(tv, tf), _at([0.7, 0.0, 0.3]))
    result = scene.query(mode="contacts")
    pairs = result.pairs.T.tolist()
    assert [a, b] in pairs and [a, m] in pairs
    k = pairs.index([a, b])
    col = result.offsets[k]
    shapes = [sq._convex(scene, i) for i in (a, b)]
    pen = convex.penetration(*shapes)
    np.testing.assert_allclose(result.normals[col], pen.normal[0], atol=1e-9)
    assert abs(result.depths[col] - pen.depth[0]) <= 1e-9
    k = pairs.index([a, m])
    lo, hi = result.offsets[k], result.offsets[k + 1]
    faces = result.triangles[1, lo:hi]
    world = TriangleMesh(tv, tf).triangles[faces] + [0.7, 0.0, 0.3]
    face_pen = convex.penetration(convex.triangles(world), shapes[0])
    np.testing.assert_allclose(result.normals[lo:hi], -face_pen.normal, atol=1e-9)
    assert np.all(result.depths[lo:hi] >= 0)
    del rng


def test_within_measures_convex_objects_exactly():
    scene = Scene()
    a = scene.add(convex.capsule((0, 0, -0.5), (0, 0, 0.5), 0.3))
    b = scene.add(convex.cone((0, 0, -0.3), (0, 0, 0.3), 0.4), _at([1.5, 0, 0]))
    tv, tf = torus_mesh(120, r_major=0.6, r_minor=0.2)
    m = scene.add(TriangleMesh(tv, tf), _at([0, 2.0, 0]))
    pairs, dists = scene.within(2.0)
    got = dict(zip(map(tuple, pairs.T.tolist()), dists, strict=True))
    shapes = {i: sq._convex(scene, i) for i in (a, b)}
    assert abs(got[(a, b)] - convex.distance(shapes[a], shapes[b]).distance[0]) <= 1e-12
    faces = convex.triangles(TriangleMesh(tv, tf).triangles + [0, 2.0, 0])
    expected = convex.distance(faces, shapes[a]).distance.min()
    assert abs(got[(a, m)] - expected) <= 1e-12


def _query_scene(rng):
    scene = Scene()
    hull = convex.hull(rng.normal(size=(20, 3)) * 0.5)
    tv, tf = torus_mesh(200, r_major=0.7, r_minor=0.2)
    for k in range(12):
        shape = [
            convex.capsule((0, 0, -0.6), (0, 0, 0.6), 0.3),
            hull,
            convex.cone((0, 0, -0.4), (0, 0, 0.4), 0.4),
            TriangleMesh(tv, tf),
            Spheres(np.zeros(3), 0.4),
            convex.cylinder((0, 0, 0), (0, 0.5, 0), 0.3),
        ]
        scene.add(shape[k % 6], _pose(rng, 3.0), group=1 << (k % 3))  # fmt: skip
    return scene


def test_whole_scene_queries_reach_convex_objects():
    """raycast, nearest and overlapping with convex objects equal their brute-force
    twins; each convex hit point lies on its shape (distance within the touching
    tolerance) and the ray just before it outside; nearest distances are the convex
    module's; masks are honoured."""
    rng = np.random.default_rng(9)
    scene = _query_scene(rng)
    o = rng.uniform(-5, 5, (3000, 3))
    d = rng.normal(size=(3000, 3))
    for mask in (None, 0b101):
        hits = sq.raycast(scene, o, d, mask=mask)
        twin = sq.raycast_brute(scene, o, d, mask=mask)
        np.testing.assert_array_equal(hits.object, twin.object)
        np.testing.assert_array_equal(hits.face, twin.face)
        np.testing.assert_allclose(hits.t, twin.t, rtol=0, atol=0)
        kinds = np.array([scene._objects[i].kind if i >= 0 else "" for i in hits.object])
        assert (kinds == "convex").sum() > 50
        if mask is not None:
            assert np.all(scene._t["group"][hits.object[hits.object >= 0]] & mask)
        for i in np.unique(hits.object[kinds == "convex"]).tolist():
            rows = np.flatnonzero(hits.object == i)
            shape = sq._convex(scene, i)
            at = o[rows] + hits.t[rows, None] * d[rows]
            gap = convex.distance(convex.sphere(at, 0.0), shape).distance
            assert gap.max() <= 1e-9
            outside = hits.t[rows] > 1e-6
            before = at[outside] - 1e-6 * d[rows][outside]
            assert np.all(convex.distance(convex.sphere(before, 0.0), shape).distance > 0)
    pts = rng.uniform(-4, 4, (2000, 3))
    near = sq.nearest(scene, pts)
    twin = sq.nearest_brute(scene, pts)
    np.testing.assert_array_equal(near.object, twin.object)
    np.testing.assert_allclose(near.distance, twin.distance, rtol=0, atol=0)
    n_inside = 0
    for i in scene.ids.tolist():
        rows = np.flatnonzero(near.object == i)
        if len(rows) and scene._objects[i].kind == "convex":
            d_i = convex.distance(convex.sphere(pts[rows], 0.0), sq._convex(scene, i))
            np.testing.assert_allclose(near.distance[rows], d_i.distance, atol=1e-12)
            inside = rows[near.distance[rows] == 0]  # a solid: the point itself
            np.testing.assert_array_equal(near.point[inside], pts[inside])
            n_inside += len(inside)
    assert n_inside > 0
    lo = rng.uniform(-4, 4, (800, 3))
    boxes = np.stack([lo, lo + rng.uniform(0, 1.5, (800, 3))], axis=1)
    boxes[:3, 0, 0] = -np.inf  # infinite bounds are legal
    np.testing.assert_array_equal(sq.overlapping(scene, boxes),
                                  sq.overlapping_brute(scene, boxes))  # fmt: skip
    pairs = sq.overlapping(scene, boxes)
    for q, i in pairs.T.tolist():
        if scene._objects[i].kind == "convex":
            b = np.clip(boxes[q], -50, 50)
            cut = convex.box(0.5 * b[0] + 0.5 * b[1], 0.5 * b[1] - 0.5 * b[0])
            assert convex.intersects(cut, sq._convex(scene, i))[0]


def test_scene_manifolds_are_the_convex_modules():
    """mode="contacts" gives each pair of plain objects the manifold convex.manifold
    gives their world shapes (a box resting on a box: four points), and count 0 to a pair
    with a mesh."""
    scene = Scene()
    floor = scene.add(convex.box((0, 0, 0), (2, 2, 0.5)), static=True)
    crate = scene.add(convex.box((0, 0, 0), (0.5, 0.5, 0.5)), _at([0.3, 0.2, 0.99]),
                      velocity=(0, 0, -0.1))  # fmt: skip
    pin = scene.add(convex.capsule((0, 0, -0.5), (0, 0, 0.5), 0.2), _at([-1, -1, 1.1]))
    tv, tf = torus_mesh(200, r_major=0.6, r_minor=0.2)
    ring = scene.add(TriangleMesh(tv, tf), _at([1.4, 1.4, 0.55]))
    result = scene.step(0.0, mode="contacts")
    pairs = result.pairs.T.tolist()
    assert [floor, crate] in pairs and [floor, pin] in pairs and [floor, ring] in pairs
    man = result.manifolds
    assert len(man.count) == len(pairs)
    for k, (i, j) in enumerate(pairs):
        if MESH_KIND in (scene._objects[i].kind, scene._objects[j].kind):
            assert man.count[k] == 0 and np.isnan(man.normal[k]).all()
            continue
        expected = convex.manifold(sq._convex(scene, i), sq._convex(scene, j))
        assert man.count[k] == expected.count[0]
        np.testing.assert_allclose(man.normal[k], expected.normal[0])
        np.testing.assert_allclose(man.point_a[k], expected.point_a[0])
    assert man.count[pairs.index([floor, crate])] == 4
    np.testing.assert_allclose(man.normal[pairs.index([floor, crate])], [0, 0, 1],
                               atol=1e-12)  # fmt: skip


MESH_KIND = "mesh"


def test_overlapping_query_shapes():
    """Convex query shapes (with a half-space among them) against every kind of object:
    equal to the brute-force twin, each pair confirmed by the convex module (plain
    objects) or by the mesh's face-by-face test in its frame; masks honoured; a 2D scene
    refuses them; no shapes, no pairs."""
    rng = np.random.default_rng(12)
    scene = _query_scene(rng)
    queries = convex.concatenate([
        convex.capsule(rng.uniform(-3, 3, (40, 3)), rng.uniform(-3, 3, (40, 3)), 0.2),
        convex.hull([rng.normal(size=(8, 3)) * 0.6 + rng.uniform(-3, 3, 3)
                     for _ in range(30)]),
        convex.sphere(rng.uniform(-3, 3, (30, 3)), rng.uniform(0.1, 1.0, 30)),
        convex.halfspace((0, 0, 1), -2.5),
    ])  # fmt: skip
    for mask in (None, 0b011):
        pairs = sq.overlapping(scene, queries, mask=mask)
        np.testing.assert_array_equal(
            pairs, sq.overlapping_brute(scene, queries, mask=mask)
        )
        assert pairs.shape[1] > 20
        if mask is not None:
            assert np.all(scene._t["group"][pairs[1]] & mask)
        found = set(map(tuple, pairs.T.tolist()))
        for i in scene.ids.tolist():
            if mask is not None and not scene._t["group"][i] & mask:
                continue
            obj, pose = scene._objects[i], scene.pose(i)
            for q in range(len(queries.kind)):
                one = convex.concatenate([convex.Shapes(
                    *(f[q : q + 1] for f in queries[:-1]), queries.vertices)])  # fmt: skip
                if obj.kind == "mesh":
                    hit = obj.mesh.intersect_shapes_brute(one, np.linalg.inv(pose))[0]
                else:
                    hit = convex.intersects(one, sq._convex(scene, i))[0]
                assert hit == ((q, i) in found), (q, i, obj.kind)
    assert sq.overlapping(scene, convex.concatenate([])).shape == (2, 0)
    with pytest.raises(TypeError, match="3D scene"):
        Scene(dim=2).overlapping(convex.sphere((0, 0, 0), 1.0))


def test_quaternion_poses_equal_matrix_poses():
    """add, set_pose and set_poses take (position, quaternion) pairs; the scene then
    answers as with the matrices hitbox.poses makes of them; a zero quaternion in a bulk
    set changes no pose."""
    from hitbox import poses as hp

    rng = np.random.default_rng(5)
    n = 12
    pos = rng.uniform(-1.5, 1.5, (n, 3))
    quat = rng.normal(size=(n, 4))
    mats = hp.from_quaternions(pos, quat)
    shape = convex.cylinder((0, 0, -0.4), (0, 0, 0.4), 0.3)
    by_quat, by_matrix = Scene(), Scene()
    for k in range(n):
        by_quat.add(shape, (pos[k], quat[k]))
        by_matrix.add(shape, mats[k])
    _same(by_quat.query(mode="all"), by_matrix.query(mode="all"))
    for k in range(n):
        np.testing.assert_array_equal(by_quat.pose(k), by_matrix.pose(k))
    pos2, quat2 = rng.uniform(-1.5, 1.5, (n, 3)), rng.normal(size=(n, 4))
    by_quat.set_poses(np.arange(n), (pos2, quat2))
    by_matrix.set_poses(np.arange(n), hp.from_quaternions(pos2, quat2))
    by_quat.set_pose(3, (pos[0], quat[0]))
    by_matrix.set_pose(3, mats[0])
    _same(by_quat.query(mode="all"), by_matrix.query(mode="all"))
    before = np.stack([by_quat.pose(k) for k in range(n)])
    bad = quat2.copy()
    bad[5] = 0.0
    with pytest.raises(ValueError, match="quaternion"):
        by_quat.set_poses(np.arange(n), (pos2, bad))
    np.testing.assert_array_equal(np.stack([by_quat.pose(k) for k in range(n)]), before)


@pytest.mark.parametrize("mode, continuous", [("all", False), ("any", True)])
def test_run_with_convex_shapes_equals_steps(mode, continuous):
    """Scene.run over a scene with convex shapes: the same pairs, triangles and contact
    times at every step as Scene.step one at a time, and the same poses after."""
    one, _ = _random_scene(3)
    many, _ = _random_scene(3)
    run = many.run(0.04, 30, mode=mode, continuous=continuous)
    touching = 0
    for k in range(30):
        want = one.step(0.04, mode=mode, continuous=continuous)
        _same(run[k], want)
        if continuous:
            np.testing.assert_array_equal(run[k].toi, want.toi)
        touching += want.pairs.shape[1] > 0
    assert touching > 0
    for i in one.ids.tolist():
        np.testing.assert_array_equal(many.pose(i), one.pose(i))


def test_degenerate_convex_shapes_work_in_the_scene():
    """A capsule of radius 0 (a segment), a cylinder of height 0 (a disc), a cone of
    radius 0 (a segment), a flat hull and a one-point hull: each is an object whose
    pairs equal the brute-force twin's while it moves through a crowd."""
    rng = np.random.default_rng(21)
    tv, tf = torus_mesh(160, r_major=0.6, r_minor=0.2)
    flat = rng.normal(size=(12, 3)) * [0.5, 0.5, 0.0]
    degenerate = [
        convex.capsule((0, 0, -0.5), (0, 0, 0.5), 0.0),
        convex.cylinder((0, 0, 0), (0, 0, 0), 0.4),
        convex.cone((0, 0, -0.4), (0, 0, 0.4), 0.0),
        convex.hull(flat),
        convex.hull(np.zeros((1, 3))),
    ]
    crowd = [TriangleMesh(tv, tf), convex.box((0, 0, 0), (0.3, 0.3, 0.3)),
             Spheres(np.zeros(3), 0.3), convex.capsule((0, 0, 0), (0, 0, 0.5), 0.2)]  # fmt: skip
    scene = Scene(threshold=0.0)
    for k, shape in enumerate(degenerate + crowd * 2):
        motion = {
            "velocity": rng.normal(0, 0.8, 3),
            "angular_velocity": rng.normal(0, 2, 3),
        }
        scene.add(shape, _pose(rng, 1.0), static=k >= len(degenerate), **(
            {} if k >= len(degenerate) else motion))  # fmt: skip
    seen = 0
    for step in range(60):
        mode = "all" if step % 2 else "any"
        result = scene.step(0.03, mode=mode)
        _same(result, scene.query_brute(mode=mode))
        seen += int(np.isin(result.pairs, np.arange(len(degenerate))).any())
    assert seen > 0
