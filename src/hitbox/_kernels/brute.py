"""Every pair tested: the brute-force twins of the pair queries, written once.

``pairs_where(test)`` makes the count-then-fill loop for one pair test
``test(a, i, b, j) -> bool``. A factory, not a function taking ``test``: numba cannot
cache a kernel that is handed a function as an argument, but a loop made here is typed
with ``test`` fixed, so the cached kernel that calls it keeps its disk cache and the test
is inlined as before. The loop made here is not cached itself: call it from a cached
kernel (and clear that kernel's cache after editing this file, numba does not notice).
"""

import numpy as np
from numba import njit


def pairs_where(test, count=len):
    """A jitted ``pairs(a, b, upper)``: every (i, j) with ``test(a, i, b, j)``, as (2, n)
    intp sorted by (i, j). ``upper``: a set against itself, each pair once with i < j.
    ``count(a)`` is the number of volumes in a set (``len`` for arrays)."""

    @njit(nogil=True)
    def pairs(a, b, upper):
        na = count(a)
        nb = count(b)
        n = 0
        for i in range(na):
            for j in range(i + 1 if upper else 0, nb):
                if test(a, i, b, j):
                    n += 1
        out = np.empty((2, n), np.intp)
        n = 0
        for i in range(na):
            for j in range(i + 1 if upper else 0, nb):
                if test(a, i, b, j):
                    out[0, n] = i
                    out[1, n] = j
                    n += 1
        return out

    return pairs
