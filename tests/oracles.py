"""Brute-force twins: obviously right, O(N*M) memory, per-axis loops (STYLE §7)."""

import itertools

import numpy as np


def box_overlap(a, b):
    """Closed overlap of boxes a (N,2,D) and b (N,2,D), one axis at a time, in Python."""
    out = []
    for x, y in zip(a, b, strict=True):
        if np.any(x[0] > x[1]) or np.any(y[0] > y[1]):
            out.append(False)
            continue
        out.append(
            all(x[0, k] <= y[1, k] and y[0, k] <= x[1, k] for k in range(a.shape[2]))
        )
    return np.array(out, dtype=bool)


def overlap_pairs(a, b):
    """All overlapping pairs by broadcasting (empty boxes overlap nothing)."""
    A, B = a[:, None], b[None, :]
    hit = np.all(
        np.maximum(A[..., 0, :], B[..., 0, :]) <= np.minimum(A[..., 1, :], B[..., 1, :]),
        axis=-1,
    )
    return np.array(np.nonzero(hit), dtype=np.intp).reshape(2, -1)


def box_of_points(points):
    """Per-axis min and max of a point list, Python loops; empty list → +inf/-inf."""
    d = points.shape[-1]
    lo = [min((p[k] for p in points), default=np.inf) for k in range(d)]
    hi = [max((p[k] for p in points), default=-np.inf) for k in range(d)]
    return np.array([lo, hi])


def corners(box):
    """Corners by itertools.product over the axes, reordered to the seed's bit order."""
    d = box.shape[1]
    out = np.empty((2**d, d))
    for bits in itertools.product((0, 1), repeat=d):
        c = sum(b << k for k, b in enumerate(bits))
        out[c] = [box[b, k] for k, b in enumerate(bits)]
    return out


def transformed_corners(box, matrix):
    """The box's corners moved by a homogeneous matrix, summed as hitbox._affine sums."""
    d = box.shape[1]
    pts = corners(box)
    out = np.empty_like(pts)
    for r in range(d):
        acc = np.full(len(pts), matrix[r, d])
        for c in range(d):
            acc = acc + matrix[r, c] * pts[:, c]
        out[:, r] = acc
    return out


def kdop_of_points(points, axes):
    """k-DOP of a point list by projecting each point on each axis in Python."""
    lo = [min((float(np.dot(p, a)) for p in points), default=np.inf) for a in axes]
    hi = [max((float(np.dot(p, a)) for p in points), default=-np.inf) for a in axes]
    return np.array([lo, hi])
