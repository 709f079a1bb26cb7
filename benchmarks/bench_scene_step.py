"""The compiled Scene step against its baselines (issue: the pipeline must pay).

    python -m benchmarks.run scene_step [--quick]

1. ``two tori``: seed 003's scene as a new user writes it: two tori of 5,000 triangles,
   B moving (0.5, 0, 0) and turning (0, 1, 0.3) from (-5, 0.2, 0.1), 200 steps of 0.05.
   ``OBB only`` calls ``A.intersect(B, pose)`` at every step (poses recorded from the
   Scene beforehand), and ``intersect_many`` all those poses in one call;
   ``Scene.step`` integrates the motion itself, one call a step, and ``Scene.run`` all
   200 steps in one call. Modes any and all; contacts checked equal at every step.
   Per-step calls are timed one by one, each step's least time over the repeats summed
   (a stall of the shared host spoils one step, not a whole pass); each of the two
   sides pays the same clock reads.
2. ``quiet step``: two objects far apart, every pair asleep or far: one step's time
   against an empty Python function call and a one-array numba call.
3. ``60 tori``: 60 tori of 2,000 triangles spinning in a box, poses set by hand every
   step (``set_poses`` + ``query``) or integrated by the Scene (``step``), each frame
   timed alone and each frame's least time over the repeats summed, against
   python-fcl's ``DynamicAABBTreeCollisionManager`` with a collecting callback (what
   trimesh's ``CollisionManager`` does). Coal's Python API has no way to collect every
   touching pair from a manager (its callback base class cannot be subclassed from
   Python, and CollisionCallBackCollect's pairs cannot be returned), so it is left out.

Every timing is a minimum over interleaved repeats, in one process.
"""

import time

import numpy as np
from numba import njit

from hitbox import shapes
from hitbox.pipeline import Scene

DT = 0.05


def run(quick=False):
    rows = _two_tori(200, 2 if quick else 5)
    rows += _quiet(2_000 if quick else 20_000)
    rows += _many(60, 10 if quick else 30, 2 if quick else 3)
    return rows


# -- 1. the seed's two tori ---------------------------------------------------------------


def _tori_scene(mesh_a, mesh_b):
    scene = Scene()
    scene.add(mesh_a, static=True)
    pose = np.eye(4)
    pose[:3, 3] = (-5.0, 0.2, 0.1)
    b = scene.add(mesh_b, pose, velocity=(0.5, 0, 0), angular_velocity=(0, 1, 0.3))
    return scene, b


def _two_tori(steps, repeats):
    a = shapes.torus(5_000)
    b = shapes.torus(5_000)
    scene, ib = _tori_scene(a, b)
    poses = []
    for _ in range(steps):
        scene.step(DT)
        poses.append(scene.pose(ib))
    stacked = np.stack(poses)
    rows = []
    for mode in ("any", "all"):
        names = ("OBB only", "OBB only, intersect_many", "Scene.step", "Scene.run")
        best = dict.fromkeys(names, np.inf)
        touching = 0
        # per-step calls: each step's least time over the interleaved repeats, summed (a
        # stall of the shared host spoils a step, not a whole pass)
        least = {"OBB only": np.full(steps, np.inf), "Scene.step": np.full(steps, np.inf)}
        for _ in range(repeats):
            ref = []
            for k, p in enumerate(poses):
                start = time.perf_counter()
                ref.append(a.intersect(b, p, mode=mode))
                least["OBB only"][k] = min(
                    least["OBB only"][k], time.perf_counter() - start
                )
            start = time.perf_counter()
            batch = a.intersect_many(b, stacked, mode=mode)
            best[names[1]] = min(best[names[1]], time.perf_counter() - start)
            fresh, _ = _tori_scene(a, b)
            fresh.step(0.0)  # the scene's first query is outside the trajectory
            got = []
            for k in range(steps):
                start = time.perf_counter()
                got.append(fresh.step(DT, mode=mode))
                least["Scene.step"][k] = min(
                    least["Scene.step"][k], time.perf_counter() - start
                )
            fresh, _ = _tori_scene(a, b)
            fresh.step(0.0)
            start = time.perf_counter()
            run = fresh.run(DT, steps, mode=mode)
            best["Scene.run"] = min(best["Scene.run"], time.perf_counter() - start)
            same = all(_same(r, g, mode) for r, g in zip(ref, got, strict=True))
            same &= all(_same(r, run[k], mode) for k, r in enumerate(ref))
            if mode == "any":
                same &= np.array_equal(batch, [bool(r) for r in ref])
            assert same, "the Scene and OBB only disagree"
            touching = sum(g.pairs.shape[1] for g in got)
        best.update((name, t.sum()) for name, t in least.items())
        base = best["OBB only"]
        for method, t in best.items():
            rows.append(
                {
                    "bench": "two tori 5k/5k",
                    "mode": mode,
                    "method": method,
                    "us_per_step": 1e6 * t / steps,
                    "speedup_vs_obb_only": base / t,
                    "steps": steps,
                    "touching_steps": touching,
                }
            )
    return rows


def _same(ref, result, mode):
    if mode == "any":
        return bool(ref) == (result.pairs.shape[1] == 1)
    if not ref.shape[1]:
        return result.pairs.shape[1] == 0
    return np.array_equal(ref, result.triangles)


# -- 2. a quiet step ----------------------------------------------------------------------


@njit(cache=True)
def _one_array(x):
    return x[0]


def _nothing(dt):
    return dt


def _quiet(calls):
    scene = Scene()
    mesh = shapes.torus(2_000)
    scene.add(mesh, static=True)
    pose = np.eye(4)
    pose[0, 3] = 3.5  # 1.3 apart: near enough to be scheduled, not touching
    scene.add(mesh, pose, velocity=(1e-6, 0, 0))
    scene.step(DT)
    arr = np.zeros(4)
    _one_array(arr)
    best = {"Scene.step (all asleep)": np.inf, "empty Python call": np.inf,
            "numba call, one array": np.inf}  # fmt: skip
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            scene.step(DT)
        best["Scene.step (all asleep)"] = min(
            best["Scene.step (all asleep)"], time.perf_counter() - start
        )
        start = time.perf_counter()
        for _ in range(calls):
            _nothing(DT)
        best["empty Python call"] = min(
            best["empty Python call"], time.perf_counter() - start
        )
        start = time.perf_counter()
        for _ in range(calls):
            _one_array(arr)
        best["numba call, one array"] = min(
            best["numba call, one array"], time.perf_counter() - start
        )
    stats = scene.step(DT).stats
    assert stats.skipped_scheduled == 1 and stats.narrow_tested == 0
    return [
        {"bench": "quiet step, 2 objects", "method": m, "us_per_step": 1e6 * t / calls}
        for m, t in best.items()
    ]


# -- 3. many tori --------------------------------------------------------------------------


def _many_poses(n, steps, seed=0):
    """Every object's pose at each step: (steps + 1, n, 4, 4), and the static flags."""
    rng = np.random.default_rng(seed)
    side = 2.2 * np.cbrt(n) * 1.8
    start = np.tile(np.eye(4), (n, 1, 1))
    for k in range(n):
        q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
        start[k, :3, :3] = q * np.sign(np.linalg.det(q))
        start[k, :3, 3] = rng.uniform(0, side, 3)
    static = np.arange(n) % 4 == 0
    vel = np.where(static[:, None], 0.0, rng.normal(0, 0.5, (n, 3)))
    omega = np.where(static[:, None], 0.0, rng.normal(0, 1.0, (n, 3)))
    return start, static, vel, omega


def _build_many(mesh, start, static, vel, omega, moving):
    scene = Scene()
    for k in range(len(start)):
        extra = {} if not moving or static[k] else {"velocity": vel[k],
                                                     "angular_velocity": omega[k]}  # fmt: skip
        scene.add(mesh, start[k], static=bool(static[k]), **extra)
    return scene


def _many(n, steps, repeats):
    mesh = shapes.torus(2_000)
    start, static, vel, omega = _many_poses(n, steps)
    recorder = _build_many(mesh, start, static, vel, omega, moving=True)
    frames = []
    for _ in range(steps):
        recorder.step(DT)
        frames.append(np.stack([recorder.pose(i) for i in range(n)]))
    ids = np.arange(n)
    dyn = ids[~static]
    peers = {}
    try:
        from benchmarks.fcl_manager import FclManager, mesh_models

        peers["python-fcl DynamicAABBTree, Python callback"] = FclManager(
            mesh_models(mesh, len(start)), start
        )
    except ImportError:
        pass
    try:
        from benchmarks.fcl_manager import CoalPairs, coal_models

        peers["Coal collide on AABB-overlapping pairs"] = CoalPairs(
            coal_models(mesh, len(start)), start
        )
    except ImportError:
        pass
    # each frame's least time over the interleaved repeats, summed, for every method:
    # a stall of the shared host spoils a frame, not a whole pass (as for the two tori)
    names = ["Scene.set_poses + query", "Scene.step (velocities)", *peers]
    least = {name: np.full(len(frames), np.inf) for name in names}
    agree = {name: True for name in peers}

    def timed(name, k, t0):
        least[name][k] = min(least[name][k], time.perf_counter() - t0)

    for _ in range(repeats):
        scene = _build_many(mesh, start, static, vel, omega, moving=False)
        scene.query()
        mine = []
        for k, frame in enumerate(frames):
            t0 = time.perf_counter()
            scene.set_poses(dyn, frame[dyn])
            mine.append(scene.query().pairs)
            timed("Scene.set_poses + query", k, t0)
        moving = _build_many(mesh, start, static, vel, omega, moving=True)
        moving.query()
        integrated = []
        for k in range(len(frames)):
            t0 = time.perf_counter()
            integrated.append(moving.step(DT).pairs)
            timed("Scene.step (velocities)", k, t0)
        assert all(np.array_equal(a, b) for a, b in zip(mine, integrated, strict=True))
        for name, peer in peers.items():
            peer.reset(start)
            got = []
            for k, frame in enumerate(frames):
                t0 = time.perf_counter()
                got.append(peer.step(frame, dyn))
                timed(name, k, t0)
            ours = [set(map(tuple, m.T.tolist())) for m in mine]
            agree[name] = (
                sum(len(g - o) for g, o in zip(got, ours, strict=True)),
                sum(len(o - g) for g, o in zip(got, ours, strict=True)),
            )
    best = {name: t.sum() for name, t in least.items()}
    touching = sum(m.shape[1] for m in mine)
    rows = []
    for method, t in best.items():
        row = {"bench": f"{n} tori 2k", "method": method,
               "ms_per_step": 1e3 * t / steps, "touching_pairs": touching}  # fmt: skip
        if method in peers:  # pairs the peer reports that hitbox does not, and back
            row["peer_extra_pairs"], row["peer_missing_pairs"] = agree[method]
        for peer in peers:
            row[f"speedup_vs_{peer.split()[0]}"] = best[peer] / t
        rows.append(row)
    return rows


if __name__ == "__main__":
    import sys

    from benchmarks.run import print_table, write_csv

    result = run(quick="--quick" in sys.argv[1:])
    print_table("scene_step", result)
    print("wrote", write_csv("scene_step", result))
