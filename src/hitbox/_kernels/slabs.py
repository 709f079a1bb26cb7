"""Slab sets: AABBs and k-DOPs share one layout, (N, 2, S) with lo at [:, 0], hi at [:, 1].

Overlap is written once here, as max(lo) <= min(hi) per slab: closed (touching overlaps) and
false for the canonical empty box (+inf, -inf) even against an infinite box, where the
textbook ``a.lo <= b.hi and b.lo <= a.hi`` would say True.
"""

import numpy as np
from numba import njit


@njit(inline="always")
def slab_overlap(a, i, b, j):
    """Closed overlap of slab set a[i] and b[j] over every slab."""
    for k in range(a.shape[2]):
        if max(a[i, 0, k], b[j, 0, k]) > min(a[i, 1, k], b[j, 1, k]):
            return False
    return True


@njit(cache=True, nogil=True)
def overlap(a, b, out):
    """Elementwise overlap; a or b may hold a single set that is tested against all."""
    n = len(out)
    sa = 1 if len(a) > 1 else 0
    sb = 1 if len(b) > 1 else 0
    for i in range(n):
        out[i] = slab_overlap(a, i * sa, b, i * sb)


@njit(inline="always")
def _sweep(a, b, order_a, order_b, axis, flip, out, n):
    """Pairs whose first-starting member is in a: a.lo <= b.lo <= a.hi on ``axis``.

    With ``flip`` the roles swap and b must start strictly first, so a pair is found once.
    Writes (i of the caller's first set, j of its second) into out[:, n:] when out is big
    enough (fill pass); always returns the new count.
    """
    p = 0
    nb = len(order_b)
    cap = out.shape[1]
    for ii in range(len(order_a)):
        i = order_a[ii]
        lo = a[i, 0, axis]
        hi = a[i, 1, axis]
        if lo > hi:
            continue  # empty: overlaps nothing, and sorted last anyway
        if flip:
            while p < nb and b[order_b[p], 0, axis] <= lo:
                p += 1
        else:
            while p < nb and b[order_b[p], 0, axis] < lo:
                p += 1
        q = p
        while q < nb and b[order_b[q], 0, axis] <= hi:
            j = order_b[q]
            if slab_overlap(a, i, b, j):
                if n < cap:
                    if flip:
                        out[0, n] = j
                        out[1, n] = i
                    else:
                        out[0, n] = i
                        out[1, n] = j
                n += 1
            q += 1
    return n


@njit(cache=True, nogil=True)
def overlap_pairs(a, b, order_a, order_b, axis):
    """Every (i, j) with a[i] overlapping b[j], by sort-and-sweep on ``axis``.

    ``order_a``/``order_b`` sort each set by lo on ``axis``. Count, then fill: the same
    sweep runs twice, the second time into an array of exactly the right size.
    """
    none = np.empty((2, 0), np.intp)
    n = _sweep(a, b, order_a, order_b, axis, False, none, 0)
    n = _sweep(b, a, order_b, order_a, axis, True, none, n)
    out = np.empty((2, n), np.intp)
    m = _sweep(a, b, order_a, order_b, axis, False, out, 0)
    _sweep(b, a, order_b, order_a, axis, True, out, m)
    return out


@njit(cache=True, nogil=True)
def overlap_pairs_brute(a, b):
    """Twin of overlap_pairs: every pair tested, count then fill, no sorting."""
    n = 0
    for i in range(len(a)):
        for j in range(len(b)):
            if slab_overlap(a, i, b, j):
                n += 1
    out = np.empty((2, n), np.intp)
    n = 0
    for i in range(len(a)):
        for j in range(len(b)):
            if slab_overlap(a, i, b, j):
                out[0, n] = i
                out[1, n] = j
                n += 1
    return out
