"""OBB-OBB elementwise overlap: hitbox against a fully vectorised numpy SAT.

Scene: 10**6 seeded random box pairs (centres in a cube of side 2, half extents in
[0.1, 1], uniform random rotations), about half of them overlapping. Rows:

- ``hitbox``: ``hitbox.obb.overlap(a, b)``, validation included;
- ``hitbox_kernel``: the compiled loop alone, on validated arrays;
- ``numpy``: :func:`numpy_overlap`, the same 15-axis test written as array expressions.

``ratio_vs_numpy`` is numpy's median time over the row's median time: above 1, faster
than numpy. Run alone with ``python -m benchmarks.bench_obb [--quick]``.
"""

import sys

import numpy as np

import hitbox as hb
from benchmarks.timing import measure
from hitbox._kernels import obb as kernels
from hitbox._types import OBBs

SEED = 20240501
REPEATS = 7


def run(quick=False):
    """Time the three implementations; returns one dict per implementation."""
    n = 10**5 if quick else 10**6
    a, b = scene(n)
    expected = numpy_overlap(a, b)
    out = np.empty(n, np.bool_)
    small_a, small_b = (OBBs(*(x[:8] for x in box)) for box in (a, b))

    def public():
        return hb.obb.overlap(a, b)

    def kernel():
        kernels.overlap(a, b, out)
        return out

    def vectorised():
        return numpy_overlap(a, b)

    hb.obb.overlap(small_a, small_b)  # compile (or load from cache) before timing
    impls = {"hitbox": public, "hitbox_kernel": kernel, "numpy": vectorised}
    times = {}
    for name, fn in impls.items():
        if not np.array_equal(fn(), expected):
            raise AssertionError(f"{name} disagrees with the numpy SAT")
        times[name] = measure(fn, repeats=REPEATS, warmup=1)
    base = times["numpy"][1]
    return [
        {
            "bench": "obb_overlap",
            "n": n,
            "impl": name,
            "min_s": t_min,
            "median_s": t_median,
            "ratio_vs_numpy": base / t_median,
            "overlap_fraction": float(expected.mean()),
        }
        for name, (t_min, t_median) in times.items()
    ]


def scene(n, seed=SEED):
    """Two OBBs sets of n boxes each; pair i is (a[i], b[i])."""
    rng = np.random.default_rng(seed)

    def boxes():
        center = rng.uniform(-1.0, 1.0, (n, 3))
        half = rng.uniform(0.1, 1.0, (n, 3))
        return OBBs(center, half, random_rotations(rng, n))

    return boxes(), boxes()


def random_rotations(rng, n):
    """Uniform random rotations from unit quaternions (Shoemake 1992)."""
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    w, x, y, z = q.T
    rot = np.empty((n, 3, 3))
    rot[:, 0] = np.stack(
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], 1
    )
    rot[:, 1] = np.stack(
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], 1
    )
    rot[:, 2] = np.stack(
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], 1
    )
    return rot


def numpy_overlap(a, b, eps=kernels.SAT_EPS):
    """The 15-axis separating-axis test as whole-array numpy expressions, same slack rule
    as hitbox (Ericson, RTCD §4.4.1): ``(N,) bool``."""
    R = np.einsum("nki,nkj->nij", a.rot, b.rot)  # R[i, j] = a_i . b_j
    absR = np.abs(R)
    t = np.einsum("nki,nk->ni", a.rot, b.center - a.center)
    ha, hb_ = a.half, b.half
    tol = eps * (np.abs(t).sum(1) + ha.sum(1) + hb_.sum(1))
    sep = np.any(
        np.abs(t) > ha + np.einsum("nij,nj->ni", absR, hb_) + tol[:, None], axis=1
    )
    tb = np.einsum("ni,nij->nj", t, R)
    sep |= np.any(
        np.abs(tb) > np.einsum("ni,nij->nj", ha, absR) + hb_ + tol[:, None], axis=1
    )
    for i in range(3):
        i1, i2 = (i + 1) % 3, (i + 2) % 3
        for j in range(3):
            j1, j2 = (j + 1) % 3, (j + 2) % 3
            lhs = np.abs(t[:, i2] * R[:, i1, j] - t[:, i1] * R[:, i2, j])
            ra = ha[:, i1] * absR[:, i2, j] + ha[:, i2] * absR[:, i1, j]
            rb = hb_[:, j1] * absR[:, i, j2] + hb_[:, j2] * absR[:, i, j1]
            sep |= lhs > ra + rb + tol
    empty = (ha < 0).any(1) | (hb_ < 0).any(1)
    return ~sep & ~empty


if __name__ == "__main__":
    for row in run(quick="--quick" in sys.argv[1:]):
        print(row)
