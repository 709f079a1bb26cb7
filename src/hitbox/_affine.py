"""Applying affine maps in one fixed summation order.

Arvo's box transform and the exact refit both sum ``t[r] + m[r, 0] x0 + m[r, 1] x1 + ...``
in this order, so the Arvo box contains the refit box bit for bit, not just up to rounding.
"""

import numpy as np


def apply(linear, trans, points):
    """``points (..., D)`` mapped by ``x -> linear @ x + trans``, summed left to right."""
    out = np.empty(points.shape[:-1] + (linear.shape[0],))
    for r in range(linear.shape[0]):
        acc = np.full(points.shape[:-1], trans[r])
        for c in range(linear.shape[1]):
            acc = acc + linear[r, c] * points[..., c]
        out[..., r] = acc
    return out


def arvo(linear, trans, boxes):
    """Arvo (Graphics Gems 1990): the box of a transformed box from its lo/hi alone.

    Start from the translation; per matrix element add m*lo or m*hi, whichever is smaller
    (for lo) or larger (for hi). A zero element adds nothing, even against an infinite
    side; the caller keeps empty boxes empty.
    """
    lo, hi = boxes[:, 0], boxes[:, 1]
    d_out = linear.shape[0]
    out = np.empty((len(boxes), 2, d_out))
    with np.errstate(invalid="ignore"):
        for r in range(d_out):
            acc_lo = np.full(len(boxes), trans[r])
            acc_hi = acc_lo.copy()
            for c in range(linear.shape[1]):
                m = linear[r, c]
                if m == 0.0:
                    continue
                a, b = m * lo[:, c], m * hi[:, c]
                acc_lo = acc_lo + np.minimum(a, b)
                acc_hi = acc_hi + np.maximum(a, b)
            out[:, 0, r], out[:, 1, r] = acc_lo, acc_hi
    return out
