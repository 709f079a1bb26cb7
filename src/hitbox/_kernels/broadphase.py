"""Broad-phase kernels: every overlapping pair within one box set, each pair once, i < j.

Three routes to one result, one module each: sort-and-sweep in the columns of a grid
(``sort_sweep``; kept from step to step by ``sort_sweep_update``), a Morton-ordered
implicit tree collided with itself (``implicit_tree``), and here brute force, the slow
twin every pair tested. Shared by them: pair codes and their radix sort (``pair_codes``)
and one-pass reads of the boxes (``box_scan``).
"""

import numpy as np
from numba import njit

from hitbox._kernels.slabs import slab_overlap


# Coal NaiveCollisionManager: every pair, the twin to check the others against
@njit(cache=True, nogil=True)
def brute_pairs(boxes):
    """Every pair i < j tested (slabs.slab_overlap); count, then fill; already sorted."""
    n = len(boxes)
    count = 0
    for i in range(n):
        for j in range(i + 1, n):
            if slab_overlap(boxes, i, boxes, j):
                count += 1
    out = np.empty((2, count), np.intp)
    count = 0
    for i in range(n):
        for j in range(i + 1, n):
            if slab_overlap(boxes, i, boxes, j):
                out[0, count] = i
                out[1, count] = j
                count += 1
    return out


@njit(cache=True, nogil=True)
def brute_codes(boxes, perm, nb):
    """brute_pairs over boxes in slot order, as codes of ids (``perm``: slot → id)."""
    n = len(boxes)
    count = 0
    for s in range(n):
        for t in range(s + 1, n):
            count += slab_overlap(boxes, s, boxes, t)
    out = np.empty(count, np.int64)
    count = 0
    for s in range(n):
        for t in range(s + 1, n):
            if slab_overlap(boxes, s, boxes, t):
                i = perm[s]
                j = perm[t]
                out[count] = (np.int64(min(i, j)) << nb) | max(i, j)
                count += 1
    return out
