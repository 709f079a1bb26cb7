"""Broad-phase kernels: every overlapping pair within one box set, each pair once, i < j.

Three routes to one result, one module each: sort-and-sweep in the columns of a grid
(``sort_sweep``; kept from step to step by ``sort_sweep_update``), a Morton-ordered
implicit tree collided with itself (``implicit_tree``), and here brute force, the slow
twin every pair tested. Shared by them: pair codes and their radix sort (``pair_codes``)
and one-pass reads of the boxes (``box_scan``).
"""

import numpy as np
from numba import njit

from hitbox._kernels.slabs import slab_pairs


# Coal NaiveCollisionManager: every pair, the twin to check the others against
@njit(cache=True, nogil=True)
def brute_pairs(boxes):
    """Every pair i < j tested (slabs.slab_overlap); count, then fill; already sorted."""
    return slab_pairs(boxes, boxes, True)


@njit(cache=True, nogil=True)
def brute_codes(boxes, perm, nb):
    """brute_pairs over boxes in slot order, as codes of ids (``perm``: slot → id)."""
    pairs = slab_pairs(boxes, boxes, True)
    out = np.empty(pairs.shape[1], np.int64)
    for p in range(len(out)):
        i = perm[pairs[0, p]]
        j = perm[pairs[1, p]]
        out[p] = (np.int64(min(i, j)) << nb) | max(i, j)
    return out
