"""Pairs as int64 codes ``i << nb | j`` (i < j), put in (i, j) order by an LSD radix sort.

A few sequential passes with small bucket tables (Knuth, TAOCP vol. 3, 5.2.5), where a
scatter into N rows would miss the cache on every write. ``nb`` is ``bit_length(N)``.
The Scene's near keys (``nb`` = 32, a hundred or so a step) take a counting sort on i.
"""

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def bit_length(n):
    """Bits needed to hold every integer in [0, n): at least 1."""
    b = 1
    while (np.int64(1) << b) < n:
        b += 1
    return b


@njit(cache=True, nogil=True)
def radix_sort(codes, shift, nbits):
    """Sort int64 ``codes`` by bits [shift, shift + nbits): stable LSD, digits <= 11 bits.

    Returns a sorted array: ``codes`` itself when no pass runs, else a new array. Each
    pass reads sequentially and writes into at most 2048 running buckets, which stay in
    cache (Knuth, TAOCP vol. 3, 5.2.5).
    """
    n = len(codes)
    passes = (nbits + 10) // 11
    if passes == 0 or n < 2:
        return codes
    b = (nbits + passes - 1) // passes
    mask = (np.int64(1) << b) - 1
    src = codes.copy()
    dst = np.empty_like(codes)
    hist = np.empty(1 << b, np.intp)
    for p in range(passes):
        s = shift + p * b
        hist[:] = 0
        for k in range(n):
            hist[(src[k] >> s) & mask] += 1
        total = 0
        for k in range(1 << b):
            c = hist[k]
            hist[k] = total
            total += c
        for k in range(n):
            v = src[k]
            d = (v >> s) & mask
            dst[hist[d]] = v
            hist[d] += 1
        src, dst = dst, src
    return src


@njit(cache=True, nogil=True)
def decode_pairs(codes, nb):
    """(2, n) intp pairs from sorted codes ``i << nb | j``."""
    mask = (np.int64(1) << nb) - 1
    out = np.empty((2, len(codes)), np.intp)
    for k in range(len(codes)):
        out[0, k] = codes[k] >> nb
        out[1, k] = codes[k] & mask
    return out


@njit(cache=True, nogil=True)
def sorted_pairs(codes, nb):
    """Codes of unordered pairs → (2, n) intp pairs sorted by (i, j)."""
    return decode_pairs(radix_sort(codes, 0, 2 * nb), nb)


@njit(cache=True, nogil=True)
def sort_pair_keys(keys, n_ids):
    """Sort the Scene's pair keys ``i << 32 | j`` (0 <= i, j < n_ids) in place: a
    counting sort on i, each i's few keys placed by insertion; numba's quicksort where
    the ids outnumber the keys (their counts would cost more)."""
    n = len(keys)
    if n < 32 or n_ids > 8 * n:
        keys.sort()
        return
    start = np.zeros(n_ids + 1, np.int64)
    for q in range(n):
        start[(keys[q] >> 32) + 1] += 1
    for c in range(n_ids):
        start[c + 1] += start[c]
    fill = start.copy()  # each i's next free place
    out = np.empty(n, np.int64)
    for q in range(n):
        k = keys[q]
        i = k >> 32
        p = fill[i]
        fill[i] = p + 1
        while p > start[i] and out[p - 1] > k:
            out[p] = out[p - 1]
            p -= 1
        out[p] = k
    for q in range(n):
        keys[q] = out[q]
