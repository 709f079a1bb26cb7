"""AABB: all-pairs overlap vs a numpy brute force; elementwise overlap vs memory bandwidth."""

import numpy as np

import hitbox as hb
from benchmarks.timing import copy_bandwidth, measure


def scene(n, seed, overlaps=3.0):
    """n boxes in a cube sized so each box overlaps about ``overlaps`` others."""
    rng = np.random.default_rng(seed)
    size = rng.uniform(0.5, 1.5, (n, 3))
    # expected overlaps ~ n * (2 * mean size)^3 / side^3
    side = (n * 8.0 / overlaps) ** (1 / 3)
    lo = rng.uniform(0, side, (n, 3))
    return np.stack([lo, lo + size], axis=1)


def numpy_pairs(a, b, rows=None):
    """Brute force with numpy broadcasting, chunked so memory stays bounded."""
    rows = len(a) if rows is None else rows
    out = []
    chunk = max(1, 2_000_000 // max(len(b), 1))
    for s in range(0, rows, chunk):
        A = a[s : min(s + chunk, rows), None]
        hit = np.all(
            np.maximum(A[..., 0, :], b[None, :, 0, :])
            <= np.minimum(A[..., 1, :], b[None, :, 1, :]),
            axis=-1,
        )
        i, j = np.nonzero(hit)
        out.append(np.stack([i + s, j]))
    return np.concatenate(out, axis=1) if out else np.empty((2, 0), np.intp)


def run(quick=False):
    rows = []
    sizes = [1_000, 10_000] if quick else [1_000, 10_000, 100_000]
    for n in sizes:
        a, b = scene(n, 1), scene(n, 2)
        got = hb.aabb.overlap_pairs(a, b)
        t_hb, m_hb = measure(lambda a=a, b=b: hb.aabb.overlap_pairs(a, b))
        # the numpy brute force is O(n^2): above 10^4 time a slice of rows and scale
        sample = n if n <= 10_000 else 2_000
        t_np, m_np = measure(lambda a=a, b=b, s=sample: numpy_pairs(a, b, s), repeats=3)
        scale = n / sample
        if sample == n:
            assert np.array_equal(
                got, numpy_pairs(a, b)[:, np.lexsort(numpy_pairs(a, b)[::-1])]
            )
        rows.append(
            {
                "bench": "aabb_overlap_pairs",
                "n": n,
                "pairs": got.shape[1],
                "hitbox_min_s": t_hb,
                "hitbox_median_s": m_hb,
                "numpy_min_s": t_np * scale,
                "numpy_note": "measured"
                if scale == 1
                else f"{sample} rows, scaled x{scale:g}",
                "speedup_vs_numpy": t_np * scale / t_hb,
            }
        )
    n = 1_000_000 if quick else 4_000_000
    a, b = scene(n, 3, overlaps=50.0), scene(n, 4, overlaps=50.0)
    a = a.reshape(n, 2, 3).copy()
    t_hb, m_hb = measure(lambda: hb.aabb.overlap(a, b))
    t_np, _ = measure(
        lambda: np.all(
            np.maximum(a[:, 0], b[:, 0]) <= np.minimum(a[:, 1], b[:, 1]), axis=1
        ),
        repeats=3,
    )
    bytes_in = a.nbytes + b.nbytes + n  # two box arrays read, one bool per pair written
    bw = copy_bandwidth(a.nbytes)
    bound = bytes_in / bw
    rows.append(
        {
            "bench": "aabb_overlap_elementwise",
            "n": n,
            "hitbox_min_s": t_hb,
            "hitbox_median_s": m_hb,
            "numpy_min_s": t_np,
            "speedup_vs_numpy": t_np / t_hb,
            "bandwidth_bound_s": bound,
            "fraction_of_bandwidth": bound / t_hb,
        }
    )
    return rows


if __name__ == "__main__":
    for row in run():
        print(row)
