"""Query points in a spatial order, so that consecutive walks share their nodes in cache
and warm-start from each other: a counting sort by cell of a 64 x 64 x 64 grid over the
points' box, the cells taken in Morton order (Lauterbach et al. 2009). Linear in the
points, where a full Morton sort costs a comparison sort."""

import numpy as np
from numba import njit

from hitbox._kernels.bvh_build import _spread_bits

_BITS = 6  # cells per axis: 2**_BITS


@njit(cache=True, nogil=True)
def spatial_order(points):
    """(P,) int64 permutation of the (P, 3) points, grouped by Morton-ordered cells."""
    n = len(points)
    lo = np.full(3, np.inf)
    hi = np.full(3, -np.inf)
    for p in range(n):
        for k in range(3):
            lo[k] = min(lo[k], points[p, k])
            hi[k] = max(hi[k], points[p, k])
    scale = np.zeros(3)
    side = 1 << _BITS
    for k in range(3):
        if hi[k] > lo[k]:
            scale[k] = side / (hi[k] - lo[k])
    cell = np.empty(n, np.int64)
    start = np.zeros(side**3 + 1, np.int64)
    for p in range(n):
        code = 0
        for k in range(3):
            # in floats first: a box thinner than a denormal's cells makes scale inf
            # and t inf or NaN, which int() would not convert to a defined value
            t = (points[p, k] - lo[k]) * scale[k]
            q = int(min(t, side - 1.0)) if t > 0.0 else 0
            code |= _spread_bits(q) << (2 - k)
        cell[p] = code
        start[code + 1] += 1
    for c in range(side**3):
        start[c + 1] += start[c]
    order = np.empty(n, np.int64)
    for p in range(n):
        order[start[cell[p]]] = p
        start[cell[p]] += 1
    return order
