"""Validate a million poses of two tori on a local Dask cluster; save the colliding ones.

    python examples/dask_poses.py OUT_DIR [--poses N] [--workers W]

Starts a LocalCluster of W worker processes (2 by default), places the second torus of
the seed (5,000 triangles each) at N random poses (rotations uniform, translations
uniform in a box of +-3), asks hitbox.dask.intersect_many which touch, and writes their
indices to OUT_DIR/colliding.npy without collecting the boolean mask first. Point the
same code at a real cluster by passing ``Client("tcp://scheduler:8786")`` instead.
Needs ``pip install hitbox[dask]``.
"""

import argparse
import time
from pathlib import Path

import dask.array as da
import numpy as np

import hitbox.dask as hd
from hitbox import shapes


def random_poses(n, seed=0, half_width=3.0, chunk=hd.POSE_CHUNK):
    """(n, 4, 4) rigid poses as a dask array, made on the workers chunk by chunk."""

    def block(block_info=None):
        lo, hi = block_info[None]["array-location"][0]
        rng = np.random.default_rng([seed, lo])
        q, r = np.linalg.qr(rng.normal(size=(hi - lo, 3, 3)))
        q = q * np.sign(np.diagonal(r, axis1=1, axis2=2))[:, None, :]
        q[np.linalg.det(q) < 0, :, 0] *= -1
        out = np.tile(np.eye(4), (hi - lo, 1, 1))
        out[:, :3, :3] = q
        out[:, :3, 3] = rng.uniform(-half_width, half_width, (hi - lo, 3))
        return out

    chunks = (da.core.normalize_chunks(chunk, (n,))[0], (4,), (4,))
    return da.map_blocks(block, chunks=chunks, dtype=np.float64,
                         meta=np.empty((0, 4, 4)))  # fmt: skip


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder for colliding.npy")
    parser.add_argument("--poses", type=int, default=1_000_000, help="number of poses")
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    a, b = shapes.torus(5000), shapes.torus(5000)
    # the many-pose kernel the workers run (a chunk of poses at once), compiled here
    # once: each worker then loads it from numba's disk cache instead of compiling
    a.intersect_many(b, np.tile(np.eye(4), (1_000, 1, 1)))
    with hd.local_cluster(args.workers) as client:
        start = time.perf_counter()
        hits = hd.intersect_many(a, b, random_poses(args.poses), client=client)
        index = da.arange(args.poses, chunks=hits.chunks)
        colliding = index[hits].compute()  # only the indices travel back
        seconds = time.perf_counter() - start
    path = args.out / "colliding.npy"
    np.save(path, colliding)
    print(
        f"{args.poses:,} poses on {args.workers} workers in {seconds:.2f} s "
        f"({args.poses / seconds:,.0f} poses/s): {len(colliding):,} collide, "
        f"indices in {path}"
    )


if __name__ == "__main__":
    main()
