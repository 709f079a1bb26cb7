"""Pair filters of the public broad phase, the Scene's rule (Box2D's category and mask
bits, FCL's and trimesh's ignore lists): pair (i, j) may be reported iff
``group[i] & mask[j]`` and ``group[j] & mask[i]`` are both nonzero and (min, max) is not
on the ignore list."""

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def keep_allowed(pairs, group, mask, ignore, nb):
    """The columns of ``pairs`` (2, n) (i < j, sorted) that the filters allow, in order.

    ``group``, ``mask``: (N,) uint64, or empty for no bit filter; ``ignore``: sorted
    int64 codes ``i << nb | j`` (i < j) of pairs never reported.
    """
    n = pairs.shape[1]
    out = np.empty((2, n), np.intp)
    bits = len(group) > 0
    k = 0
    for c in range(n):
        i = pairs[0, c]
        j = pairs[1, c]
        if bits and ((group[i] & mask[j]) == 0 or (group[j] & mask[i]) == 0):
            continue
        if len(ignore) > 0:
            code = (np.int64(i) << nb) | np.int64(j)
            at = np.searchsorted(ignore, code)
            if at < len(ignore) and ignore[at] == code:
                continue
        out[0, k] = i
        out[1, k] = j
        k += 1
    return out[:, :k].copy()
