"""A Scene of convex shapes against python-fcl's manager (issue: shapes and contacts).

    python -m benchmarks.run scene_shapes [--quick]

N moving, turning convex objects (capsules, boxes, cylinders, cones, balls: the kinds
both libraries have) at random in a cube, each step every touching pair:

- ``Scene.step``: the Scene integrates the velocities, one compiled call a step;
- ``Scene.set_poses + query``: the same poses set by hand each step (a game loop or a
  planner that owns the motion);
- ``python-fcl DynamicAABBTree``: each pose set on its ``CollisionObject``, the manager
  updated, and every candidate pair tested by ``fcl.collide`` in a Python callback that
  collects the touching pairs (what trimesh's ``CollisionManager`` does for meshes).

Two thresholds: the default (0 in a scene without meshes: no pair sleeps) and the median
bounding-sphere diameter (the default of scenes with meshes, whose pairs cost more to
test than to schedule; here the schedule and the wider swept boxes cost more than they
save).
Pairs are compared step by step: the counts of pairs python-fcl reports that hitbox does
not, and back (both decide touching within their own tolerances).

``ground``: the same objects falling onto a floor, z <= 0, given as a half-space (a
static object paired with every dynamic one outside the broad phase) against the same
floor as a static box 10^4 wide (the only way before half-spaces were Scene objects),
with the same pairs at every step; and python-fcl: its dynamic tree crashes (SIGSEGV)
when a ``Halfspace`` is registered, so the floor is tested against each object in a
Python loop, the other pairs by the manager.
Every time is the least of interleaved repeats, in one process.
"""

import time

import numpy as np

from hitbox import convex
from hitbox.pipeline import Scene

DT = 0.01
KINDS = ("capsule", "box", "cylinder", "cone", "ball")


def run(quick=False):
    n, steps, repeats = (300, 10, 2) if quick else (1000, 20, 5)
    return _rows(n, steps, repeats) + _ground(n, steps, repeats)


def _setup(n, seed=0):
    rng = np.random.default_rng(seed)
    side = 1.2 * np.cbrt(n)
    poses = np.tile(np.eye(4), (n, 1, 1))
    for k in range(n):
        q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
        poses[k, :3, :3] = q * np.sign(np.linalg.det(q))
        poses[k, :3, 3] = rng.uniform(0, side, 3)
    vel = rng.normal(0, 0.5, (n, 3))
    omega = rng.normal(0, 1.0, (n, 3))
    dims = rng.uniform(0.1, 0.3, (n, 2))  # radius (half extent), half length
    return [KINDS[k % len(KINDS)] for k in range(n)], dims, poses, vel, omega


def _shape(kind, r, h):
    """The hitbox shape and a maker of python-fcl's, the same solid (FCL's cylinder and
    cone are centred on their origin along z, the cone's apex at +h)."""
    if kind == "capsule":
        return convex.capsule((0, 0, -h), (0, 0, h), r), ("Capsule", r, 2 * h)
    if kind == "box":
        return convex.box((0, 0, 0), (r, r, h)), ("Box", 2 * r, 2 * r, 2 * h)
    if kind == "cylinder":
        return convex.cylinder((0, 0, -h), (0, 0, h), r), ("Cylinder", r, 2 * h)
    if kind == "cone":
        return convex.cone((0, 0, -h), (0, 0, h), r), ("Cone", r, 2 * h)
    return convex.sphere((0, 0, 0), r), ("Sphere", r)


def _scene(shapes, poses, vel, omega, threshold, moving):
    scene = Scene(threshold=threshold)
    for k, s in enumerate(shapes):
        extra = {"velocity": vel[k], "angular_velocity": omega[k]} if moving else {}
        scene.add(s, poses[k], **extra)
    scene.query()
    return scene


def _rows(n, steps, repeats):
    kinds, dims, poses, vel, omega = _setup(n)
    made = [_shape(k, *d) for k, d in zip(kinds, dims, strict=True)]
    shapes = [m[0] for m in made]
    recorder = _scene(shapes, poses, vel, omega, 0.0, moving=True)
    frames = []
    for _ in range(steps):
        recorder.step(DT)
        frames.append(np.stack([recorder.pose(i) for i in range(n)]))
    ids = np.arange(n)
    diameter = 2.0 * float(np.median([m[0].bound[0] for m in made]))
    import fcl

    from benchmarks.fcl_manager import FclManager

    peer = FclManager([getattr(fcl, m[1][0])(*m[1][1:]) for m in made], poses)
    best = {}
    found = {}
    for _ in range(repeats):
        for threshold in (None, diameter):
            label = "default threshold" if threshold is None else "median diameter"
            scene = _scene(shapes, poses, vel, omega, threshold, moving=True)
            t0 = time.perf_counter()
            stepped = [scene.step(DT).pairs for _ in frames]
            _keep(best, f"hitbox Scene.step, {label}", time.perf_counter() - t0)
            scene = _scene(shapes, poses, vel, omega, threshold, moving=False)
            t0 = time.perf_counter()
            posed = []
            for frame in frames:
                scene.set_poses(ids, frame)
                posed.append(scene.query().pairs)
            _keep(best, f"hitbox Scene.set_poses + query, {label}",
                  time.perf_counter() - t0)  # fmt: skip
            assert all(np.array_equal(a, b) for a, b in zip(stepped, posed, strict=True))
            found["hitbox"] = [set(map(tuple, p.T.tolist())) for p in posed]
        peer.reset(poses)
        t0 = time.perf_counter()
        found["fcl"] = [peer.step(frame) for frame in frames]
        _keep(
            best, "python-fcl DynamicAABBTree, Python callback", time.perf_counter() - t0
        )
    base = best["python-fcl DynamicAABBTree, Python callback"]
    extra = sum(len(f - h) for f, h in zip(found["fcl"], found["hitbox"], strict=True))
    missing = sum(len(h - f) for f, h in zip(found["fcl"], found["hitbox"], strict=True))
    rows = []
    for method, t in best.items():
        row = {"bench": f"{n} convex objects", "method": method, "steps": steps,
               "ms_per_step": 1e3 * t / steps,
               "touching_pairs": sum(len(h) for h in found["hitbox"]),
               "speedup_vs_python-fcl": base / t}  # fmt: skip
        if method.startswith("python-fcl"):
            row["peer_extra_pairs"], row["peer_missing_pairs"] = extra, missing
        rows.append(row)
    return rows


def _ground(n, steps, repeats):
    """n objects falling onto a floor at z = 0 (module doc, ``ground``)."""
    import fcl

    from benchmarks.fcl_manager import FclManager

    kinds, dims, poses, vel, omega = _setup(n, seed=1)
    poses[:, 2, 3] *= 0.3  # a layer near the floor: a third of them reach it
    vel[:, 2] = -np.abs(vel[:, 2])
    made = [_shape(k, *d) for k, d in zip(kinds, dims, strict=True)]
    floors = {
        "half-space": convex.halfspace((0, 0, 1), 0.0),
        "box 10^4 wide": convex.box((0, 0, -0.5), (5e3, 5e3, 0.5)),
    }
    best, found = {}, {}
    for _ in range(repeats):
        for name, floor in floors.items():
            scene = Scene()
            scene.add(floor, static=True)
            for k, m in enumerate(made):
                scene.add(m[0], poses[k], velocity=vel[k], angular_velocity=omega[k])
            scene.query()
            t0 = time.perf_counter()
            found[name] = [scene.step(DT).pairs for _ in range(steps)]
            _keep(best, f"hitbox Scene.step, floor as a {name}", time.perf_counter() - t0)
        recorder = Scene()
        for k, m in enumerate(made):
            recorder.add(m[0], poses[k], velocity=vel[k], angular_velocity=omega[k])
        frames = []
        for _ in range(steps):
            recorder.step(DT)
            frames.append(np.stack([recorder.pose(i) for i in range(n)]))
        # python-fcl's dynamic tree crashes (SIGSEGV) on registering a Halfspace: its
        # floor is tested against every object in a Python loop, the rest by the manager
        peer = FclManager([getattr(fcl, m[1][0])(*m[1][1:]) for m in made], poses)
        floor = fcl.CollisionObject(fcl.Halfspace(np.array([0.0, 0.0, 1.0]), 0.0))
        request = fcl.CollisionRequest()
        t0 = time.perf_counter()
        found["fcl"] = []
        for frame in frames:
            pairs = {(i + 1, j + 1) for i, j in peer.step(frame)}
            for k, obj in enumerate(peer.objects):
                if fcl.collide(floor, obj, request, fcl.CollisionResult()):
                    pairs.add((0, k + 1))
            found["fcl"].append(pairs)
        _keep(best, "python-fcl DynamicAABBTree, fcl.Halfspace floor in a loop",
              time.perf_counter() - t0)  # fmt: skip
    mine = found["half-space"]
    assert all(
        np.array_equal(a, b) for a, b in zip(mine, found["box 10^4 wide"], strict=True)
    )
    on_floor = [{(i, j) for i, j in p.T.tolist() if i == 0} for p in mine]
    peer_floor = [{p for p in f if p[0] == 0} for f in found["fcl"]]
    base = best["python-fcl DynamicAABBTree, fcl.Halfspace floor in a loop"]
    rows = []
    for method, t in best.items():
        row = {"bench": f"{n} convex objects on a floor", "method": method, "steps": steps,
               "ms_per_step": 1e3 * t / steps,
               "touching_pairs": sum(p.shape[1] for p in mine),
               "floor_pairs": sum(len(f) for f in on_floor),
               "speedup_vs_python-fcl": base / t}  # fmt: skip
        if method.startswith("python-fcl"):
            row["peer_extra_pairs"] = sum(
                len(p - h) for p, h in zip(peer_floor, on_floor, strict=True)
            )
            row["peer_missing_pairs"] = sum(
                len(h - p) for p, h in zip(peer_floor, on_floor, strict=True)
            )
        rows.append(row)
    return rows


def _keep(best, name, seconds):
    best[name] = min(best.get(name, np.inf), seconds)


if __name__ == "__main__":
    import sys

    from benchmarks.run import print_table, write_csv

    result = run(quick="--quick" in sys.argv[1:])
    print_table("scene_shapes", result)
    print("wrote", write_csv("scene_shapes", result))
