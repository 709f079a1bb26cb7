"""One-pass reads of a box set for the broad phase: checks, bounds, sampled statistics.

Each reads the ``(N, 2, D)`` boxes once: ``scan_boxes`` validates, ``gather_boxes``
validates while copying into the incremental structures' slot order, ``bounds`` and
``sample_stats`` give what the grid of the sort-and-sweep is sized from.
"""

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def scan_boxes(boxes):
    """One read for validation: (first row holding NaN or -1, rows with lo > hi).

    An empty box already in canonical form (lo = +inf, hi = -inf everywhere) is not
    counted: only the others need rewriting.
    """
    d = boxes.shape[2]
    n_empty = 0
    for i in range(len(boxes)):
        nan = False
        empty = False
        canonical = True
        for k in range(d):
            lo = boxes[i, 0, k]
            hi = boxes[i, 1, k]
            nan |= (lo != lo) | (hi != hi)
            empty |= lo > hi
            canonical &= (lo == np.inf) & (hi == -np.inf)
        if nan:
            return i, n_empty
        n_empty += empty & ~canonical
    return -1, n_empty


@njit(cache=True, nogil=True)
def gather_boxes(src, perm, live, dst):
    """Validate and copy in one read: dst[s] = src[perm[s]], the structures' slot order.

    Ids not ``live`` get the empty box; a box with lo > hi somewhere becomes the
    canonical empty box. Returns the id of a box holding NaN (dst is then partly
    written), or -1.
    """
    d = src.shape[2]
    for s in range(len(perm)):
        i = perm[s]
        empty = not live[i]
        nan = False
        if not empty:
            for k in range(d):
                lo = src[i, 0, k]
                hi = src[i, 1, k]
                dst[s, 0, k] = lo
                dst[s, 1, k] = hi
                nan |= (lo != lo) | (hi != hi)
                empty |= lo > hi
        if nan:
            return i
        if empty:
            for k in range(d):
                dst[s, 0, k] = np.inf
                dst[s, 1, k] = -np.inf
    return -1


@njit(inline="always")
def grow_bounds(lo, hi, boxes, i):
    """Widen ``lo``/``hi`` (D,) to box i's finite bounds (unbounded sides left out)."""
    for k in range(boxes.shape[2]):
        a = boxes[i, 0, k]
        b = boxes[i, 1, k]
        if a > -np.inf:
            lo[k] = min(lo[k], a)
        if b < np.inf:
            hi[k] = max(hi[k], b)


@njit(cache=True, nogil=True)
def bounds(boxes):
    """(min finite lo (D,), max finite hi (D,), non-empty boxes) in one pass."""
    d = boxes.shape[2]
    lo = np.full(d, np.inf)
    hi = np.full(d, -np.inf)
    live = 0
    for i in range(len(boxes)):
        if boxes[i, 0, 0] > boxes[i, 1, 0]:
            continue
        live += 1
        grow_bounds(lo, hi, boxes, i)
    return lo, hi, live


@njit(cache=True, nogil=True)
def sample_stats(boxes, step):
    """Statistics of every ``step``-th box, over those bounded and non-empty.

    Returns (count, median extent (D,), 0.5th percentile of lo (D,), 99.5th percentile of
    hi (D,), live share of the sample); percentiles by nearest rank.
    """
    d = boxes.shape[2]
    n_seen = 0
    n_live = 0
    m = 0
    rows = np.empty((len(boxes) + step - 1) // step, np.intp)
    for i in range(0, len(boxes), step):
        n_seen += 1
        if boxes[i, 0, 0] > boxes[i, 1, 0]:
            continue
        n_live += 1
        ok = True
        for k in range(d):
            ok &= (abs(boxes[i, 0, k]) < np.inf) & (abs(boxes[i, 1, k]) < np.inf)
        if ok:
            rows[m] = i
            m += 1
    ext = np.zeros(d)
    lo = np.zeros(d)
    hi = np.zeros(d)
    if m == 0:
        return 0, ext, lo, hi, 0.0
    col = np.empty(m)
    low = int(0.005 * (m - 1))
    high = int(0.995 * (m - 1) + 0.5)
    for k in range(d):
        for q in range(m):
            col[q] = boxes[rows[q], 1, k] - boxes[rows[q], 0, k]
        ext[k] = np.median(col)
        for q in range(m):
            col[q] = boxes[rows[q], 0, k]
        lo[k] = np.partition(col, low)[low]
        for q in range(m):
            col[q] = boxes[rows[q], 1, k]
        hi[k] = np.partition(col, high)[high]
    return m, ext, lo, hi, n_live / max(n_seen, 1)
