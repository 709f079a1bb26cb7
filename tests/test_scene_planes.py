"""Half-spaces (hitbox.convex.halfspace) as static Scene objects: every step equals the
brute-force twin; sleeping on the plane's gap; continuous mode against closed forms;
contacts, within and the whole-scene queries against closed forms; bad input."""

import numpy as np
import pytest
import trimesh
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from hitbox import convex
from hitbox import scene_queries as sq
from hitbox._torus import torus_mesh
from hitbox._types import OBBs, Spheres
from hitbox.io.common import FileError
from hitbox.io.scenes import scene_from_file
from hitbox.mesh import TriangleMesh
from hitbox.pipeline import Scene
from tests.strategies import grid, rotation
from tests.test_scene_shapes import _convex_shape, _pose, _same

GROUND = convex.halfspace((0, 0, 1), 0.0)  # z <= 0


def _tilted_wall(rng):
    """A half-space through a random point with a random normal, given in a posed
    model frame (so both the shape's own frame and the object's pose count)."""
    normal = rng.normal(size=3)
    return convex.halfspace(normal / np.linalg.norm(normal), rng.uniform(-0.5, 0.5))


def _falling_scene(seed):
    """A ground, a posed tilted wall, and objects of every kind falling and turning
    onto them from random heights; one mesh and one ball static (never paired with a
    half-space)."""
    rng = np.random.default_rng(seed)
    scene = Scene(threshold=float(rng.choice([0.0, 0.5])))
    scene.add(GROUND, static=True)
    wall_pose = _pose(rng, 1.0)
    wall_pose[:3, 3] += (3.0, 0.0, 0.0)
    scene.add(_tilted_wall(rng), wall_pose, static=True)
    hull = convex.hull(rng.normal(size=(20, 3)) * 0.35)
    tv, tf = torus_mesh(160, r_major=0.6, r_minor=0.2)
    ico = trimesh.creation.icosphere(subdivisions=1, radius=0.5)
    box = OBBs(np.zeros(3), (0.3, 0.2, 0.1), rotation(rng))
    shapes = [TriangleMesh(tv, tf), TriangleMesh(ico.vertices, ico.faces),
              Spheres(np.zeros(3), 0.4), box]  # fmt: skip
    shapes += [_convex_shape(rng, kind, hull) for kind in ("capsule", "cylinder", "cone",
                                                           "hull", "box")]  # fmt: skip
    for k, shape in enumerate(shapes * 2):
        pose = _pose(rng, 2.5)
        pose[2, 3] = rng.uniform(0.2, 2.5)
        if k in (0, 2):  # static: never meets a half-space
            scene.add(shape, pose, static=True)
            continue
        scene.add(shape, pose, velocity=(rng.normal(0, 0.5), rng.normal(0, 0.5),
                                         -rng.uniform(0.5, 2.0)),
                  angular_velocity=rng.normal(0, 1.5, 3))  # fmt: skip
    return scene, rng


def _plane_pairs(scene, pairs):
    """The (half-space, other kind) of each pair with a half-space."""
    out = set()
    for i, j in pairs.T.tolist():
        for h, o in ((i, j), (j, i)):
            obj = scene._objects[h]
            if obj.kind == "convex" and int(obj.convex.kind[0]) == convex.KINDS.index(
                "halfspace"
            ):
                other = scene._objects[o]
                out.add("mesh" if other.kind == "mesh" else
                        other.kind if other.kind != "convex" else "convex")  # fmt: skip
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_every_step_with_half_spaces_equals_brute_force(seed):
    """100 steps, modes any and all, the half-spaces teleported and objects set by hand
    along the way: pairs, offsets and faces equal the twin's; meshes, balls, boxes and
    convex shapes all meet a half-space, and no static object ever pairs with one."""
    scene, rng = _falling_scene(seed)
    seen = set()
    for step in range(100):
        mode = "all" if step % 2 else "any"
        result = scene.step(0.03, mode=mode)
        _same(result, scene.query_brute(mode=mode))
        stats = result.stats  # every pair in exactly one stage, none counted twice
        assert stats.skipped_far >= 0 and stats.skipped_static == 6  # 4 static: 2 planes
        assert (stats.skipped_static + stats.skipped_far + stats.skipped_filtered
                + stats.skipped_scheduled + stats.rejected_by_boxes
                + stats.broadphase_candidates) == stats.pairs  # fmt: skip
        seen |= _plane_pairs(scene, result.pairs)
        statics = {i for i in scene.ids.tolist() if scene._objects[i].static}
        assert not any(i in statics and j in statics for i, j in result.pairs.T.tolist())
        if step == 40:  # the ground jumps up under everything: caches must not lie
            lifted = np.eye(4)
            lifted[2, 3] = 0.8
            scene.set_pose(0, lifted)
        if step % 23 == 5:
            chosen = rng.choice(scene.ids[4:], 3, replace=False)
            poses = np.stack([_pose(rng, 2.0) for _ in chosen])
            poses[:, 2, 3] = np.abs(poses[:, 2, 3]) + 0.3
            scene.set_poses(chosen, poses)
    assert {"mesh", "sphere", "box", "convex"} <= seen, seen


_CUBE = trimesh.creation.box((1.0, 1.0, 1.0))
_PLACED = {
    "sphere": lambda: Spheres(np.zeros(3), 0.5),
    "box": lambda: OBBs(np.zeros(3), (0.5, 0.5, 0.5), np.eye(3)),
    "capsule": lambda: convex.capsule((0, 0, -0.5), (0, 0, 0.5), 0.5),
    "cube mesh": lambda: TriangleMesh(_CUBE.vertices, _CUBE.faces),
}


@settings(max_examples=60, deadline=None)
@given(
    normal=st.sampled_from([(0, 0, 1), (0, -1, 0), (1, 0, 0), (1, 1, 0), (1, 1, 1)]),
    offset=grid,
    placed=st.lists(
        st.tuples(
            st.sampled_from(sorted(_PLACED)), hnp.arrays(np.float64, 3, elements=grid)
        ),
        min_size=1,
        max_size=5,
    ),
)
def test_half_space_pairs_equal_brute_force_where_they_touch_exactly(
    normal, offset, placed
):
    """Shapes on a half-unit grid against axis-aligned and diagonal planes (touching
    exactly, or within rounding): the step's pairs and faces equal the twin's."""
    scene = Scene()
    scene.add(convex.halfspace(normal, offset), static=True)
    for kind, at in placed:
        pose = np.eye(4)
        pose[:3, 3] = at
        scene.add(_PLACED[kind](), pose, velocity=(0.0, 0.0, 1e-9))
    _same(scene.query(mode="all"), scene.query_brute(mode="all"))


def test_run_equals_the_steps_and_filters_hold():
    """Scene.run over 60 steps equals 60 steps one by one; a group mask and the ignore
    list keep a half-space's pairs out, as they keep any pair out."""
    made = [_falling_scene(3)[0] for _ in range(2)]
    for scene in made:
        scene.ignore(0, 5)
        blind = scene.add(Spheres(np.zeros(3), 0.3), np.eye(4), group=2, mask=2,
                          velocity=(0, 0, -0.1))  # fmt: skip
    steps = [made[0].step(0.03, mode="all") for _ in range(60)]
    run = made[1].run(0.03, 60, mode="all")
    for k, result in enumerate(steps):
        _same(result, run[k])
        pairs = set(map(tuple, result.pairs.T.tolist()))
        assert (0, 5) not in pairs and (0, blind) not in pairs and (1, blind) not in pairs
    assert any(0 in r.pairs[0] for r in steps)  # the ground does touch the others


def test_a_far_object_sleeps_on_the_planes_gap_and_wakes_in_time():
    """A ball 10 above the ground falling at 1/s (exact binary steps): its pair with the
    ground sleeps (not tested) until it can touch, and is reported at the step where
    its bottom reaches the ground."""
    scene = Scene()
    ground = scene.add(GROUND, static=True)
    pose = np.eye(4)
    pose[2, 3] = 10.5
    ball = scene.add(convex.sphere((0, 0, 0), 0.5), pose, velocity=(0, 0, -1))
    first = None
    for step in range(1, 101):
        result = scene.step(0.125)
        _same(result, scene.query_brute())
        if step == 2:
            stats = result.stats
            assert stats.narrow_tested == 0 and stats.skipped_scheduled == 1
            assert stats.pairs == 1 and stats.skipped_far == stats.skipped_static == 0
        if first is None and result.pairs.shape[1]:
            first = step
            np.testing.assert_array_equal(result.pairs[:, 0], [ground, ball])
    assert first == 80  # 10.5 - 80 / 8 = 0.5: the bottom at z = 0


def test_continuous_mode_stops_bullets_at_a_thin_plane_and_times_them_exactly():
    """Balls, capsules and boxes shot at a plane at up to 100 times their size per step
    (a half-space is solid, so a discrete step sees them only once inside it): the
    continuous step reports each in the step it first touches, the ball's contact time
    within 1e-9 of the closed form."""
    rng = np.random.default_rng(5)
    for trial in range(30):
        scene = Scene()
        normal = rng.normal(size=3)
        normal /= np.linalg.norm(normal)
        plane = scene.add(convex.halfspace(normal, 0.0), static=True)
        radius = rng.uniform(0.05, 0.3)
        speed = rng.uniform(1.0, 100.0) * 2 * radius / 0.1
        height = rng.uniform(0.5, 3.0)
        kind = trial % 3
        shape = (convex.sphere((0, 0, 0), radius) if kind == 0 else
                 convex.capsule((0, 0, -radius), (0, 0, radius), radius / 2) if kind == 1
                 else convex.box((0, 0, 0), (radius,) * 3))  # fmt: skip
        pose = np.eye(4)
        pose[:3, 3] = (height + 2 * radius) * normal
        spin = (0, 0, 0) if kind == 0 else rng.normal(0, 2, 3)
        scene.add(shape, pose, velocity=-speed * normal, angular_velocity=spin)
        hit_step = None
        for step in range(1, 200):
            result = scene.step(0.1, continuous=True)
            if result.pairs.shape[1]:
                hit_step = step
                toi = float(result.toi[0])
                break
        assert hit_step is not None, trial
        t_hit = (height + 2 * radius - radius) / speed  # the ball's closed form
        assert (hit_step - 1) * 0.1 <= t_hit + 1e-9 or kind != 0
        if kind == 0:
            assert abs((hit_step - 1) * 0.1 + toi - t_hit) <= 1e-9 * max(1.0, t_hit)
        assert result.pairs[0, 0] == plane


def test_contacts_of_a_box_resting_on_the_ground():
    """A box sunk 0.01 into the ground: normal along z, depth 0.01, four corners in its
    manifold; a mesh face through the ground gets the face's own depth."""
    scene = Scene()
    ground = scene.add(GROUND, static=True)
    pose = np.eye(4)
    pose[2, 3] = 0.49
    box = scene.add(convex.box((0, 0, 0), (1.0, 0.5, 0.5)), pose, velocity=(0.1, 0, 0))
    tri = TriangleMesh(np.array([[0, 0, -0.2], [1, 0, 0.3], [0, 1, 0.3]]),
                       np.array([[0, 1, 2]]))  # fmt: skip
    far = np.eye(4)
    far[0, 3] = 10.0  # away from the box
    face = scene.add(tri, far, velocity=(0, 0.1, 0))
    result = scene.query(mode="contacts")
    np.testing.assert_array_equal(result.pairs, [[ground, ground], [box, face]])
    assert abs(abs(result.normals[0, 2]) - 1.0) < 1e-12
    assert abs(result.depths[0] - 0.01) < 1e-12
    assert abs(result.depths[1] - 0.2) < 1e-12  # the face's lowest corner
    assert result.manifolds.count[0] == 4
    np.testing.assert_allclose(np.sort(np.abs(result.manifolds.point_b[0, :, 0])), 1.0)


def test_queries_see_half_spaces_as_their_closed_forms():
    """raycast, nearest, overlapping (boxes, infinite ones too, and query shapes) and
    within against the plane's closed forms, and against the queries' brute twins."""
    rng = np.random.default_rng(9)
    scene = Scene()
    ground = scene.add(GROUND, np.eye(4), static=True)
    pose = np.eye(4)
    pose[:3, 3] = (0, 0, 4.0)
    ball = scene.add(Spheres(np.zeros(3), 0.5), pose, velocity=(0, 0, -1))
    # rays from above, some down, some parallel, some up; one from below the ground
    origins = np.column_stack([rng.uniform(-20, 20, (40, 2)), rng.uniform(0.1, 3, 40)])
    directions = rng.normal(size=(40, 3))
    directions[:10, 2] = 0.0
    origins[-1], directions[-1] = (50.0, 0.0, -1.0), (0.0, 0.0, 1.0)
    hits = scene.raycast(origins, directions)
    twin = sq.raycast_brute(scene, origins, directions)
    np.testing.assert_array_equal(hits.object, twin.object)
    np.testing.assert_array_equal(hits.t, twin.t)
    down = (directions[:, 2] < 0) & (hits.object == ground)
    expect = origins[down, 2] / -directions[down, 2]
    np.testing.assert_allclose(hits.t[down], expect, rtol=1e-9)
    assert np.all(hits.object[:10] != ground)  # parallel to the ground: a miss
    assert hits.object[-1] == ground and hits.t[-1] == 0.0  # starts inside
    ups = (directions[:, 2] > 0) & (hits.object != ball) & (np.arange(40) < 39)
    assert np.all(hits.object[ups] == -1)
    # nearest: the height above the ground, 0 below it
    points = np.column_stack([rng.uniform(-20, 20, (30, 2)), rng.uniform(-1, 1.5, 30)])
    near = scene.nearest(points)
    below = points[:, 2] <= 0
    np.testing.assert_array_equal(near.object[below], ground)
    assert np.all(near.distance[below] == 0.0)
    np.testing.assert_array_equal(near.point[below], points[below])
    twin = sq.nearest_brute(scene, points)
    np.testing.assert_array_equal(near.object, twin.object)
    np.testing.assert_array_equal(near.distance, twin.distance)
    # overlapping boxes: finite, infinite towards the ground, infinite away from it
    boxes = np.array([
        [[0, 0, 0.5], [1, 1, 1]],  # above: only the ball's reach decides
        [[0, 0, -0.5], [1, 1, 1]],  # through the ground
        [[0, 0, 0.0], [1, 1, 1]],  # touching it
        [[-np.inf, -np.inf, -np.inf], [np.inf, np.inf, 5.0]],  # everything
        [[-np.inf, -np.inf, 1e-3], [np.inf, np.inf, np.inf]],  # above it, unbounded
        [[5, 5, -np.inf], [6, 6, -4.0]],  # far below
    ])  # fmt: skip
    pairs = scene.overlapping(boxes)
    np.testing.assert_array_equal(pairs, sq.overlapping_brute(scene, boxes))
    got = {q for q, k in pairs.T.tolist() if k == ground}
    assert got == {1, 2, 3, 5}, got
    # query shapes: a capsule through the ground, one above it
    shapes = convex.concatenate([convex.capsule((0, 0, -1), (0, 0, 1), 0.1),
                                 convex.capsule((9, 0, 1), (9, 0, 2), 0.1)])  # fmt: skip
    pairs = scene.overlapping(shapes)
    np.testing.assert_array_equal(pairs, sq.overlapping_brute(scene, shapes))
    assert {q for q, k in pairs.T.tolist() if k == ground} == {0}
    # within: the ball's gap to the ground
    found, dist = scene.within(4.0)
    np.testing.assert_array_equal(found, [[ground], [ball]])
    assert abs(dist[0] - 3.5) < 1e-12
    assert scene.within(3.4)[0].shape[1] == 0


def test_the_plane_walk_finds_the_brute_force_faces():
    """The plane walk is exact: faces touching a wall through a mesh equal the faces
    the brute force finds, for walls cutting the mesh at random."""
    rng = np.random.default_rng(2)
    tv, tf = torus_mesh(400)
    mesh = TriangleMesh(tv, tf)
    for _ in range(20):
        scene = Scene()
        wall = _tilted_wall(rng)
        scene.add(wall, _pose(rng, 0.5), static=True)
        scene.add(mesh, _pose(rng, 0.5), velocity=(0, 0, 1e-3))
        _same(scene.query(mode="all"), scene.query_brute(mode="all"))


def test_half_spaces_must_be_static_and_3d(tmp_path):
    scene = Scene()
    with pytest.raises(ValueError, match="half-space must be static"):
        scene.add(GROUND)
    assert len(scene) == 0
    assert scene.volume(scene.add(GROUND, static=True)) is None  # it has no volume
    flat = Scene(dim=2)
    with pytest.raises((TypeError, ValueError)):
        flat.add(GROUND, static=True)
    path = tmp_path / "scene.toml"
    path.write_text('[[objects]]\nshape = { kind = "halfspace", normal = [0, 0, 1], '
                    'offset = 0 }\n')  # fmt: skip
    with pytest.raises(FileError, match=r"objects\[0\].*must be static"):
        scene_from_file(path)
    path.write_text(
        '[[objects]]\nshape = { kind = "halfspace", normal = [0, 0, 2], offset = 1 }\n'
        "static = true\n[[objects]]\nvelocity = [1, 0, 0]\n"
        'shape = { kind = "sphere", center = [0, 0, 0.9], radius = 0.5 }\n'
    )
    loaded, ids = scene_from_file(path)
    np.testing.assert_array_equal(loaded.query().pairs, [[ids[0]], [ids[1]]])
