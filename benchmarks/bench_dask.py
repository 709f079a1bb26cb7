"""hitbox.dask on one machine: 1 vs 2 worker processes vs in-process (issue 23).

The seed's tori (5,000 against 5,000 triangles) at 10^6 poses (``quick``: 10^5):
random rotations, translations uniform in a box of +-3 (touching, near and far poses
mixed). Rows: poses/s of ``TriangleMesh.intersect_many`` in process on all cores, and of
``hitbox.dask.intersect_many`` on a LocalCluster of 1 and of 2 worker processes (one
thread each, numba's pool split between them), meshes scattered once before timing;
the per-chunk overhead (time of tasks of 1 pose each, per task); the bytes a worker
receives for the meshes (their pickle, sent once per worker).

Projection to 100 workers, from one run on a 2-core machine (10^6 poses, chunks of
100,000, five a worker, so an uneven split costs little): the per-task overhead
measured 3-8 ms of core time against ~0.13 s of one-core work per chunk (2-5 %), 2
one-thread workers ran 1.85x one and 0.94x the in-process call on both cores. At the
default POSE_CHUNK of 200,000 poses (~0.26 s per core) the overhead is 1-3 %, so 100
one-core workers should reach ~95x one worker's rate once there are a few chunks per
worker (10^9 poses are 5,000 chunks); the scheduler's own cost (~1 ms per task,
serial) bounds it near 1,000 chunks/s, about 2.6x the ~380 chunks/s 100 workers
finish. Each worker receives the meshes once (``mesh_bytes_per_worker``, 2.1 MB for
the two 5k tori). Not measured beyond 2 workers.
"""

import os
import pickle

import numpy as np

from benchmarks.timing import measure
from hitbox import shapes


def _poses(n, seed=0):
    rng = np.random.default_rng(seed)
    q, r = np.linalg.qr(rng.normal(size=(n, 3, 3)))
    q = q * np.sign(np.diagonal(r, axis1=1, axis2=2))[:, None, :]
    q[np.linalg.det(q) < 0, :, 0] *= -1
    out = np.tile(np.eye(4), (n, 1, 1))
    out[:, :3, :3] = q
    out[:, :3, 3] = rng.uniform(-3.0, 3.0, (n, 3))
    return out


def _best_of(fn, repeats=1):
    """Least seconds of ``repeats`` calls (timing.measure, 0 untimed first)."""
    return measure(fn, repeats, warmup=0)[0]


def run(quick=False):
    import dask.array as da

    import hitbox.dask as hd

    n = 100_000 if quick else 1_000_000
    repeats = 2 if quick else 3
    a, b = shapes.torus(5000), shapes.torus(5000)
    poses = _poses(n)
    expected = a.intersect_many(b, poses)  # compiles, and warms the on-disk cache
    here = _best_of(lambda: a.intersect_many(b, poses), repeats)
    rows = [{
        "case": "in-process", "impl": "hitbox", "workers": 0, "poses": n,
        "seconds": here, "poses_per_s": n / here, "colliding": int(expected.sum()),
    }]  # fmt: skip
    mesh_bytes = len(pickle.dumps((a, b)))
    rates = {}
    chunk = min(hd.POSE_CHUNK, n // 10)  # 5 chunks a worker: an uneven split costs little
    for workers, env in ((1, {hd.TASK_THREADS: "1"}), (1, {}), (2, {})):
        key = (workers, bool(env))
        with hd.local_cluster(workers, env=env) as client:
            moved = client.scatter(
                poses, broadcast=False
            )  # inputs already on the cluster
            cast = da.from_delayed(moved, shape=poses.shape, dtype=poses.dtype)
            cast = cast.rechunk((chunk, 4, 4)).persist()
            check = hd.intersect_many(a, b, cast, client=client).compute()  # warm up
            assert np.array_equal(check, expected)
            seconds = _best_of(
                lambda cast=cast, c=client: hd.intersect_many(a, b, cast, client=c)
                .compute(), repeats,
            )  # fmt: skip
            tiny = da.from_array(poses[:200], chunks=1).persist()
            tiny_s = _best_of(
                lambda t=tiny, c=client: hd.intersect_many(a, b, t, client=c).compute(),
                repeats,
            )  # fmt: skip
            work = here / n * 200
            per_task = max(0.0, tiny_s * workers - work) / 200
            chunks = len(cast.chunks[0])
            rates[key] = n / seconds
            threads = " (1 numba thread)" if env else ""
            rows.append({
                "case": f"dask {workers} worker{'s' * (workers > 1)}{threads}",
                "impl": "hitbox",
                "workers": workers, "poses": n, "seconds": seconds,
                "poses_per_s": n / seconds, "chunks": chunks, "chunk": chunk,
                "per_task_overhead_s": per_task,
                "overhead_fraction": per_task * chunks / (seconds * workers),
                # the same overhead against a default-sized chunk's one-core work
                "overhead_at_default_chunk": per_task
                / (hd.POSE_CHUNK * here * (os.cpu_count() or 1) / n),
                "mesh_bytes_per_worker": mesh_bytes,
            })  # fmt: skip
    rows.append({
        "case": "ratios", "impl": "ratio",
        "two_over_one_worker_1_thread": rates[2, False] / rates[1, True],
        "two_over_one_worker": rates[2, False] / rates[1, False],
        "dask2_over_in_process": rates[2, False] / (n / here),
        "cpus": os.cpu_count(),
    })  # fmt: skip
    return rows


if __name__ == "__main__":
    for row in run(quick=True):
        print(row)
