"""The broad phase of a Scene step (:mod:`hitbox._kernels.scene`): the keys
``i << 32 | j`` of the pairs whose grown world boxes meet, by sort and sweep on x (an
order kept from step to step) or every pair, and every half-space with every dynamic
object."""

import numpy as np
from numba import njit

from hitbox._kernels.pair_codes import sort_pair_keys
from hitbox._kernels.scene_layout import (
    BRUTE,
    C_LISTS,
    C_N_DYN,
    C_N_MOVING,
    C_N_ORDER,
    C_N_PLANES,
    C_N_STAT,
)
from hitbox._kernels.slabs import slab_overlap


@njit(inline="always")
def _push_key(keys, n, i, j):
    if n == len(keys):
        grown = np.empty(2 * len(keys) + 16, np.int64)
        grown[:n] = keys[:n]
        keys = grown
    keys[n] = (min(i, j) << 32) | max(i, j)
    return keys, n + 1


@njit(inline="always")
def _sweep(order, static, gbox, box, keys, n):
    """The sweep over ``order`` (sorted on lower x): each box against the next ones
    until one starts past its upper x. The boxes are copied in that order first into
    ``box`` (cap, 8), with each object's id and static flag, and every pair the sweep
    meets is written and counted only when it holds (no branch on the verdict,
    contiguous reads: benchmarks/README.md). Two boxes meet unless on some axis one's
    lower end lies above the other's upper (NaN meets, as in
    :func:`hitbox._kernels.slabs.slab_overlap`); static-static pairs are left out.
    Returns (keys, n)."""
    m = len(order)
    for a in range(m):
        o = order[a]
        for c in range(3):
            box[a, c] = gbox[o, 0, c]
            box[a, 3 + c] = gbox[o, 1, c]
        box[a, 6] = o  # exact: ids are far below 2**53
        box[a, 7] = 1.0 if static[o] != 0 else 0.0
    for a in range(m):
        if n + m > len(keys):  # room for every pair of this row
            grown = np.empty(2 * len(keys) + m, np.int64)
            grown[:n] = keys[:n]
            keys = grown
        hx, ly, lz, hy, hz = box[a, 3], box[a, 1], box[a, 2], box[a, 4], box[a, 5]
        i = order[a]
        static_i = box[a, 7]
        for b in range(a + 1, m):
            if box[b, 0] > hx:
                break
            apart = (box[b, 1] > hy) | (ly > box[b, 4]) | (box[b, 2] > hz)
            apart |= (lz > box[b, 5]) | (static_i + box[b, 7] > 1.5)
            j = np.int64(box[b, 6])
            keys[n] = (min(i, j) << 32) | max(i, j)
            n += not apart
    return keys, n


@njit(cache=True, nogil=True)
def near_keys(method, ctl, static, gbox, room, box):
    """Sorted keys of the dynamic-dynamic and dynamic-static pairs whose grown world
    boxes meet (closed), and of every half-space with every dynamic object (a
    half-space has no box): a view of ``room`` (int64), or a larger array when they
    outgrow it. ``SAP`` keeps its order (``ctl``'s order list) from step to step:
    insertion sort on the boxes' lower x is linear when little moved; ``box``: its
    scratch rows (``scene_layout.SWEEP``)."""
    n_dyn = ctl[C_N_DYN]
    n_stat = ctl[C_N_STAT]
    dyn = ctl[C_LISTS : C_LISTS + n_dyn]
    keys = room
    n = 0
    if method == BRUTE:
        stat = ctl[C_LISTS + n_dyn : C_LISTS + n_dyn + n_stat]
        for a in range(n_dyn):
            i = dyn[a]
            for b in range(a + 1, n_dyn):
                if slab_overlap(gbox, i, gbox, dyn[b]):
                    keys, n = _push_key(keys, n, i, dyn[b])
            for b in range(n_stat):
                if slab_overlap(gbox, i, gbox, stat[b]):
                    keys, n = _push_key(keys, n, i, stat[b])
    else:
        start = C_LISTS + n_dyn + n_stat + ctl[C_N_MOVING]
        order = ctl[start : start + ctl[C_N_ORDER]]
        for a in range(1, len(order)):  # insertion sort on lo x
            o = order[a]
            x = gbox[o, 0, 0]
            b = a - 1
            while b >= 0 and gbox[order[b], 0, 0] > x:
                order[b + 1] = order[b]
                b -= 1
            order[b + 1] = o
        keys, n = _sweep(order, static, gbox, box, keys, n)
    for h in planes(ctl):
        for a in range(n_dyn):
            keys, n = _push_key(keys, n, h, dyn[a])
    out = keys[:n]
    for q in range(1, n):  # sort only when out of order (few pairs usually are not)
        if out[q - 1] > out[q]:
            sort_pair_keys(out, len(gbox))
            break
    return out


@njit(inline="always")
def planes(ctl):
    """The half-spaces' ids (``scene_layout.C_N_PLANES``)."""
    start = C_LISTS + ctl[C_N_DYN] + ctl[C_N_STAT] + ctl[C_N_MOVING] + ctl[C_N_ORDER]
    return ctl[start : start + ctl[C_N_PLANES]]
