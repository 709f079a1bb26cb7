"""Query points in a spatial order, so that consecutive walks share their nodes in cache
and warm-start from each other: a counting sort by cell of a 64 x 64 x 64 grid over the
points' box, the cells taken in Morton order (Lauterbach et al. 2009). Linear in the
points, where a full Morton sort costs a comparison sort."""

import numpy as np
from numba import njit, prange

from hitbox._kernels.bvh_build import _spread_bits

_BITS = 6  # cells per axis: 2**_BITS
_CHUNKS = 8  # runs of points the parallel order bounds and codes at once


@njit(cache=True, nogil=True)
def spatial_order(points):
    """(P,) int64 permutation of the (P, 3) points, grouped by Morton-ordered cells."""
    lo = np.full(3, np.inf)
    hi = np.full(3, -np.inf)
    _bounds(points, 0, len(points), lo, hi)
    scale = _scale(lo, hi)
    cell = np.empty(len(points), np.int64)
    _codes(points, 0, len(points), lo, scale, cell)
    return _by_cell(cell)


@njit(cache=True, nogil=True, parallel=True)
def spatial_order_parallel(points):
    """:func:`spatial_order`, the points' box and cells found on every thread (the
    counting sort itself stays on one): the same permutation."""
    n = len(points)
    lo_run = np.full((_CHUNKS, 3), np.inf)
    hi_run = np.full((_CHUNKS, 3), -np.inf)
    for c in prange(_CHUNKS):
        _bounds(points, c * n // _CHUNKS, (c + 1) * n // _CHUNKS, lo_run[c], hi_run[c])
    lo = np.full(3, np.inf)
    hi = np.full(3, -np.inf)
    for c in range(_CHUNKS):
        for k in range(3):
            lo[k] = min(lo[k], lo_run[c, k])
            hi[k] = max(hi[k], hi_run[c, k])
    scale = _scale(lo, hi)
    cell = np.empty(n, np.int64)
    for c in prange(_CHUNKS):
        _codes(points, c * n // _CHUNKS, (c + 1) * n // _CHUNKS, lo, scale, cell)
    return _by_cell(cell)


@njit
def _bounds(points, start, stop, lo, hi):
    for p in range(start, stop):
        for k in range(3):
            lo[k] = min(lo[k], points[p, k])
            hi[k] = max(hi[k], points[p, k])


@njit
def _scale(lo, hi):
    scale = np.zeros(3)
    for k in range(3):
        if hi[k] > lo[k]:
            scale[k] = (1 << _BITS) / (hi[k] - lo[k])
    return scale


@njit
def _codes(points, start, stop, lo, scale, cell):
    """The Morton code of each point's cell, points [start, stop)."""
    side = 1 << _BITS
    for p in range(start, stop):
        code = 0
        for k in range(3):
            # in floats first: a box thinner than a denormal's cells makes scale inf
            # and t inf or NaN, which int() would not convert to a defined value
            t = (points[p, k] - lo[k]) * scale[k]
            q = int(min(t, side - 1.0)) if t > 0.0 else 0
            code |= _spread_bits(q) << (2 - k)
        cell[p] = code


@njit
def _by_cell(cell):
    """The points by cell code, each cell's in their own order (a counting sort)."""
    side = 1 << _BITS
    start = np.zeros(side**3 + 1, np.int64)
    for p in range(len(cell)):
        start[cell[p] + 1] += 1
    for c in range(side**3):
        start[c + 1] += start[c]
    order = np.empty(len(cell), np.int64)
    for p in range(len(cell)):
        order[start[cell[p]]] = p
        start[cell[p]] += 1
    return order
