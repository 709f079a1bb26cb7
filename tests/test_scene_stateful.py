"""The Scene as a state machine (hypothesis stateful testing): any sequence of adds
(every kind of object, instances of one mesh, statics, half-spaces), removals, poses
set one or many at a time, velocities, deformations, ignore lists, quiet and busy steps,
runs and edits between them; after each step or query the Scene's pairs equal its
brute-force twin's, and its whole-scene queries equal theirs.

The fixed sequences of test_pipeline.py and test_scene_shapes.py test each path; this
one lets hypothesis choose the order, where the Scene's caches (sleeping pairs and
their horizons, quiet steps replayed later, witnesses and fronts, instances' shared
trees) could go stale.
"""

import numpy as np
import trimesh
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from hitbox import convex
from hitbox import scene_queries as sq
from hitbox._torus import torus_mesh
from hitbox._types import OBBs, Spheres
from hitbox.mesh import TriangleMesh
from hitbox.pipeline import Scene
from tests.strategies import rotation

_ICO = trimesh.creation.icosphere(subdivisions=1, radius=0.45)
_BOX = trimesh.creation.box(extents=(0.9, 0.3, 0.4))
_TORUS = torus_mesh(120, r_major=0.5, r_minor=0.15)
MESHES = (
    TriangleMesh(_ICO.vertices, _ICO.faces),
    TriangleMesh(_BOX.vertices, _BOX.faces, node="aabb"),
    TriangleMesh(*_TORUS),
)
_HULL = convex.hull(np.random.default_rng(5).normal(size=(16, 3)) * 0.3)
KINDS = ("mesh", "sphere", "aabb", "obb", "capsule", "box", "hull", "cone")
VOLUMES = (None, "sphere", "aabb", "obb", "kdop14", "kdop26")
seeds = st.integers(0, 2**32 - 1)
dts = st.sampled_from([0.0, 0.01, 0.05, 0.3, 2.0])
# group and mask bits: two groups, so that some pairs are filtered out
bits = st.sampled_from([1, 2, 3])


def _pose(rng, reach=1.2):
    pose = np.eye(4)
    pose[:3, :3] = rotation(rng)
    pose[:3, 3] = rng.uniform(-reach, reach, 3)
    return pose


def _shape(kind, rng):
    c = rng.uniform(-0.2, 0.2, 3)
    if kind == "mesh":
        return MESHES[rng.integers(len(MESHES))]
    if kind == "sphere":
        return Spheres(c, rng.uniform(0.1, 0.4))
    if kind == "aabb":
        lo = rng.uniform(-0.4, 0.0, 3)
        return np.stack([lo, lo + rng.uniform(0.05, 0.6, 3)])
    if kind == "obb":
        return OBBs(c, rng.uniform(0.05, 0.35, 3), rotation(rng))
    if kind == "capsule":
        return convex.capsule(c - 0.2, c + 0.2, rng.uniform(0.05, 0.3))
    if kind == "box":
        return convex.box(c, rng.uniform(0.05, 0.3, 3), rotation(rng))
    if kind == "cone":
        return convex.cone(c, c + rng.normal(size=3) * 0.3, rng.uniform(0.05, 0.3))
    return _HULL


def _same(result, twin):
    np.testing.assert_array_equal(result.pairs, twin.pairs)
    np.testing.assert_array_equal(result.offsets, twin.offsets)
    np.testing.assert_array_equal(result.triangles, twin.triangles)


class SceneMachine(RuleBasedStateMachine):
    dim = 3
    kinds = KINDS

    @initialize(threshold=st.sampled_from([None, 0.0, 0.4]),
                broadphase=st.sampled_from(["auto", "sap", "brute"]),
                seed=seeds, n=st.integers(0, 10))  # fmt: skip
    def make(self, threshold, broadphase, seed, n):
        """A scene of n objects of every kind to start from: crowded enough that
        pairs touch, sleep and wake."""
        self.scene = Scene(threshold=threshold, broadphase=broadphase, dim=self.dim)
        rng = np.random.default_rng(seed)
        for k in range(n):
            self.add(self.kinds[k % len(self.kinds)], int(rng.integers(2**32)), k % 4 == 0,
                     k % 2 == 1, int(rng.integers(1, 4)), 3)  # fmt: skip
        self.checked = not n  # nothing moved since the last comparison

    def _shape(self, kind, rng):
        return _shape(kind, rng)

    def _pose(self, rng):
        return _pose(rng)

    def _motion(self, motion, static, spin, rng):
        if not static:
            motion["velocity"] = rng.normal(0, 1.0, self.dim)
            if spin:
                motion["angular_velocity"] = self._spin(rng)
        return motion

    def _spin(self, rng, n=None):
        return rng.normal(0, 2.0, 3 if n is None else (n, 3))

    def _ids(self, static=None):
        ids = self.scene.ids
        if static is not None:
            ids = ids[(self.scene._t["static"][ids] != 0) == static]
        return ids.tolist()

    @rule(kind=st.sampled_from(KINDS), seed=seeds, static=st.booleans(),
          spin=st.booleans(), group=bits, mask=bits)  # fmt: skip
    def add(self, kind, seed, static, spin, group, mask):
        rng = np.random.default_rng(seed)
        motion = {}
        if kind == "mesh":
            motion["volume"] = VOLUMES[rng.integers(len(VOLUMES))]
        motion = self._motion(motion, static, spin, rng)
        self.scene.add(self._shape(kind, rng), self._pose(rng), static=static,
                       group=group, mask=mask, **motion)  # fmt: skip
        self.checked = False

    @precondition(lambda self: self.dim == 3 and len(self._ids(static=True)) < 2)
    @rule(seed=seeds)
    def add_ground(self, seed):
        rng = np.random.default_rng(seed)
        normal = rng.normal(size=3)
        self.scene.add(convex.halfspace(normal, -1.0 * np.linalg.norm(normal)),
                       static=True)  # fmt: skip
        self.checked = False

    @precondition(lambda self: len(self.scene))
    @rule(data=st.data())
    def remove(self, data):
        self.scene.remove(data.draw(st.sampled_from(self._ids())))
        self.checked = False

    @precondition(lambda self: len(self.scene))
    @rule(data=st.data(), seed=seeds)
    def set_pose(self, data, seed):
        i = data.draw(st.sampled_from(self._ids()))
        self.scene.set_pose(i, self._pose(np.random.default_rng(seed)))
        self.checked = False

    @precondition(lambda self: len(self.scene))
    @rule(data=st.data(), seed=seeds, nudge=st.booleans())
    def set_poses(self, data, seed, nudge):
        ids = data.draw(st.lists(st.sampled_from(self._ids()), min_size=1, unique=True))
        rng = np.random.default_rng(seed)
        if nudge:  # small moves: sleeping pairs must still wake when they come near
            poses = np.stack([self.scene.pose(i) for i in ids])
            poses[:, : self.dim, self.dim] += rng.normal(0, 0.05, (len(ids), self.dim))
        else:
            poses = np.stack([self._pose(rng) for _ in ids])
        self.scene.set_poses(ids, poses)
        self.checked = False

    @precondition(lambda self: len(self._ids(static=False)))
    @rule(data=st.data(), seed=seeds, bulk=st.booleans())
    def set_velocity(self, data, seed, bulk):
        rng = np.random.default_rng(seed)
        moving = self._ids(static=False)
        if bulk:
            ids = data.draw(st.lists(st.sampled_from(moving), min_size=1, unique=True))
            self.scene.set_velocities(ids, rng.normal(0, 1.0, (len(ids), self.dim)),
                                      self._spin(rng, len(ids)))  # fmt: skip
        else:
            i = data.draw(st.sampled_from(moving))
            self.scene.set_velocity(i, velocity=rng.normal(0, 1.0, self.dim),
                                    acceleration=rng.normal(0, 0.5, self.dim))  # fmt: skip
        self.checked = False

    def _meshes(self):
        return [i for i in self._ids() if self.scene._objects[i].mesh is not None]

    @precondition(lambda self: self._meshes())
    @rule(data=st.data(), grow=st.sampled_from([0.7, 1.0, 1.6]))
    def deform(self, data, grow):
        """Instances of one mesh deform apart; a deformed mesh deforms again."""
        i = data.draw(st.sampled_from(self._meshes()))
        self.scene.set_vertices(i, self.scene._objects[i].mesh.vertices * grow)
        self.checked = False

    @precondition(lambda self: len(self.scene) >= 2)
    @rule(data=st.data())
    def ignore(self, data):
        a, b = data.draw(st.lists(st.sampled_from(self._ids()), min_size=2, max_size=2,
                                  unique=True))  # fmt: skip
        self.scene.ignore(a, b)
        self.checked = False

    @rule(dt=dts, mode=st.sampled_from(["any", "all"]))
    def step(self, dt, mode):
        result = self.scene.step(dt, mode=mode)
        _same(result, self.scene.query_brute(mode=mode))
        event(f"step pairs: {min(result.pairs.shape[1], 3)}")
        event(f"objects: {min(len(self.scene), 6)}")
        self.checked = True

    @rule(dt=dts)
    def quiet_steps(self, dt):
        """Several steps without looking: a quiet scene queues them, replayed later."""
        for _ in range(3):
            self.scene.step(dt / 3)
        self.checked = False

    @rule(dt=dts)
    def continuous_step(self, dt):
        """Pairs touching at the step's end are among those touching within it."""
        result = self.scene.step(dt, continuous=True)
        found = set(map(tuple, result.pairs.T.tolist()))
        end = set(map(tuple, self.scene.query_brute().pairs.T.tolist()))
        assert end <= found, end - found
        self.checked = True

    @rule(dt=dts, steps=st.integers(0, 4), mode=st.sampled_from(["any", "all"]))
    def run(self, dt, steps, mode):
        result = self.scene.run(dt, steps, mode=mode)
        if steps:
            _same(result[steps - 1], self.scene.query_brute(mode=mode))
            self.checked = True

    @rule(seed=seeds, group=st.sampled_from([None, 1, 2]))
    def whole_scene_queries(self, seed, group):
        rng = np.random.default_rng(seed)
        d = self.dim
        origins = rng.uniform(-3, 3, (12, d))
        directions = rng.uniform(-1, 1, (12, d)) - origins * 0.3
        hits = self.scene.raycast(origins, directions, t_max=8.0, group=group)
        twin = sq.raycast_brute(self.scene, origins, directions, t_max=8.0,
                                group=group)  # fmt: skip
        np.testing.assert_array_equal(hits.object, twin.object)
        np.testing.assert_allclose(hits.t, twin.t, rtol=1e-12, atol=1e-12)
        lo = rng.uniform(-2, 2, (8, d))
        boxes = np.stack([lo, lo + rng.uniform(0, 0.8, (8, d))], axis=1)
        np.testing.assert_array_equal(
            self.scene.overlapping(boxes, group=group),
            sq.overlapping_brute(self.scene, boxes, group=group),
        )
        points = rng.uniform(-2.5, 2.5, (10, d))
        near = self.scene.nearest(points, group=group)
        twin = sq.nearest_brute(self.scene, points, group=group)
        np.testing.assert_array_equal(near.object, twin.object)
        np.testing.assert_allclose(near.distance, twin.distance, rtol=1e-12, atol=1e-12)

    @invariant()
    def query_equals_brute(self):
        """Between rules, a query (which settles queued motion) equals the twin."""
        if self.checked or not len(self.scene):
            return
        mode = "all" if self.scene.time * 7 % 2 < 1 else "any"
        _same(self.scene.query(mode), self.scene.query_brute(mode=mode))


class PlanarSceneMachine(SceneMachine):
    """The same in a 2D scene: discs, boxes and oriented rectangles, turning in the
    plane (no meshes, convex shapes or grounds there: deform and add_ground never
    apply)."""

    dim = 2
    kinds = ("disc", "box", "rectangle")

    def _shape(self, kind, rng):
        c = rng.uniform(-0.2, 0.2, 2)
        if kind == "disc":
            return Spheres(c, rng.uniform(0.1, 0.4))
        if kind == "box":
            lo = rng.uniform(-0.4, 0.0, 2)
            return np.stack([lo, lo + rng.uniform(0.05, 0.6, 2)])
        a = rng.uniform(0, 2 * np.pi)
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        return OBBs(c, rng.uniform(0.05, 0.35, 2), rot)

    def _pose(self, rng):
        a = rng.uniform(0, 2 * np.pi)
        pose = np.eye(3)
        pose[:2, :2] = [[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]
        pose[:2, 2] = rng.uniform(-1.2, 1.2, 2)
        return pose

    def _spin(self, rng, n=None):
        return rng.normal(0, 2.0, n)

    @rule(kind=st.sampled_from(("disc", "box", "rectangle")), seed=seeds,
          static=st.booleans(), spin=st.booleans(), group=bits, mask=bits)  # fmt: skip
    def add(self, kind, seed, static, spin, group, mask):
        super().add(kind, seed, static, spin, group, mask)


for machine in (SceneMachine, PlanarSceneMachine):
    machine.TestCase.settings = settings(
        max_examples=30,
        stateful_step_count=25,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
TestSceneMachine = SceneMachine.TestCase
TestPlanarSceneMachine = PlanarSceneMachine.TestCase
