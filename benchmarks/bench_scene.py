"""Seed 003's comparison in a scene of many objects, where the pipeline's stages pay.

    python -m benchmarks.run scene [--quick]

N tori (2,000 triangles each) drift and turn in a box, a quarter of them static, for a
number of steps; at every step each method reports the touching pairs, which must agree:

- ``OBB only``: the OBB tree query on every pair that is not static-static.
- ``sphere cull, then OBB``: the bounding spheres of every such pair first.
- ``hitbox Scene``: :class:`~hitbox.pipeline.Scene` (pretreatment with scheduling, broad
  phase, per-object volumes, narrow phase).

The baselines are handed each step's poses (recorded from the Scene beforehand); the
Scene integrates its own motion inside its timed step.
"""

import time

import numpy as np

from benchmarks.timing import torus_arrays
from hitbox import sphere
from hitbox.mesh import TriangleMesh
from hitbox.pipeline import Scene

SIZES = (10, 40, 100, 300)
STEPS = 30
DT = 0.05


def run(quick=False):
    rows = []
    for n in SIZES[:2] if quick else SIZES:
        rows += _one(n, STEPS // 2 if quick else STEPS)
    return rows


def _scene(n, seed=0):
    rng = np.random.default_rng(seed)
    verts, faces = torus_arrays(2_000, r_major=1.0, r_minor=0.3)
    meshes = [TriangleMesh(verts, faces) for _ in range(n)]
    scene = Scene()
    side = 2.2 * np.cbrt(n)  # about one torus per 10 unit cells
    for k, mesh in enumerate(meshes):
        pose = np.eye(4)
        q, r = np.linalg.qr(rng.normal(size=(3, 3)))
        pose[:3, :3] = q * np.sign(np.linalg.det(q))
        pose[:3, 3] = rng.uniform(0, side, 3)
        if k % 4 == 0:
            scene.add(mesh, pose, static=True)
        else:
            scene.add(
                mesh,
                pose,
                velocity=rng.normal(0, 0.5, 3),
                angular_velocity=rng.normal(0, 0.5, 3),
            )
    return scene, meshes


def _one(n, steps):
    scene, meshes = _scene(n)
    static = scene._t["static"][scene.ids] != 0
    poses = []
    for _ in range(steps):
        scene.step(DT)
        poses.append(np.stack([scene.pose(i) for i in scene.ids]))
    i, j = np.triu_indices(n, 1)
    keep = ~(static[i] & static[j])
    pairs = list(zip(i[keep].tolist(), j[keep].tolist(), strict=True))
    ball = sphere.fit(meshes[0].vertices, method="welzl")
    center, radius = np.asarray(ball.center), float(ball.radius)

    ia = np.array([a for a, _ in pairs], np.intp)
    ib = np.array([b for _, b in pairs], np.intp)

    def obb_only(pose_set, cull):
        inv = np.linalg.inv(pose_set)
        todo = pairs
        if cull:  # every pair's spheres in one vectorised test, then the trees
            c = pose_set[:, :3, :3] @ center + pose_set[:, :3, 3]
            d = c[ia] - c[ib]
            near = np.einsum("ij,ij->i", d, d) <= (2 * radius) ** 2 * (1 + 1e-9)
            todo = [pairs[k] for k in np.flatnonzero(near)]
        return [
            (a, b)
            for a, b in todo
            if meshes[a].intersect(meshes[b], inv[a] @ pose_set[b])
        ]

    times = {"OBB only": [], "sphere cull, then OBB": [], "hitbox Scene": []}
    for rep in range(3):
        fresh, _ = _scene(n)
        for k in range(steps):
            start = time.perf_counter()
            got = fresh.step(DT).pairs
            mid = time.perf_counter()
            ref = obb_only(poses[k], cull=False)
            end = time.perf_counter()
            culled = obb_only(poses[k], cull=True)
            last = time.perf_counter()
            assert list(map(tuple, got.T.tolist())) == ref == culled, (n, k)
            if rep:
                times["hitbox Scene"].append(mid - start)
                times["OBB only"].append(end - mid)
                times["sphere cull, then OBB"].append(last - end)
    base = np.mean(times["OBB only"])
    return [
        {
            "objects": n,
            "steps": steps,
            "method": m,
            "mean_ms": 1e3 * float(np.mean(t)),
            "speedup_vs_obb_only": float(base / np.mean(t)),
        }
        for m, t in times.items()
    ]
