"""Distance between two triangle meshes under a rigid motion: the least distance over
every triangle pair, found by a tree-vs-tree walk pruned by node-pair lower bounds,
nearest bound first, four node pairs bounded at a time.

Each split opens the larger node's wide children (:mod:`hitbox._kernels.obb_wide`: its
children's children, a leaf child for itself) and bounds all four at once with the
lanes of :func:`~hitbox._kernels.obb_wide.b_lanes` / ``a_lanes``: the bound of
:func:`hitbox._kernels.distance.pair_gap` (the fifteen separating axes, the centre line
and each box against the other's bounding sphere, lowered by a relative 1e-12), which
has no branch, so the four lanes run as one vector (about 20 ns a lane, where a scalar
bound with early exits took 46). Each lane returns it as a 16-bit code, rounded *down*
to a multiple of ``stop / GAP_CAP`` (``stop`` the distance beyond which a pair is
dropped: the best distance so far, or the far bound of the two roots): a code can only
lower a bound, so the walk opens more pairs at worst, never fewer, and its answer is
the least triangle-pair distance exactly. A lane at the cap is at least ``stop`` away
and dropped.

Until a leaf pair gives a first distance nothing is pruned, and most lanes pushed then
would never be popped. Those lanes of positive bound wait in an unsorted list instead:
the walk first opens every node pair whose boxes meet (bound 0; in near poses most of
the walk), then dives from the nearest waiting lane to a leaf, and only the waiting
lanes nearer than that leaf's distance join the heap.
"""

import math

import numpy as np
from numba import njit

from hitbox._kernels import obb_wide as _ow
from hitbox._kernels.borrowed import borrowed
from hitbox._kernels.distance import (
    box_gap,
    heap_pop,
    heap_push,
    heap_room,
    leaf_pair,
    node_size,
)
from hitbox._kernels.node_tests import as_bv

#: stop is widened by this before it sets the unit, so that a capped lane (rounded to
#: the cap) is farther than stop itself, not merely within rounding of it
_STOP_WIDEN = 1.0 + 1e-9
#: A code times the unit can exceed the bound it came from by a few ulps
_DOWN = 1.0 - 1e-15


@njit(inline="always")
def _decoded(word, wide, row, stop_unit):
    """The four lanes of a word as bounds: code times the unit (a capped lane, or an
    unused one, inf)."""
    out = np.empty(_ow.LANES)
    for lane in range(_ow.LANES):
        code = _ow.lane_code(word, lane)
        out[lane] = (
            np.inf
            if _ow.lane_node(wide, row, lane) < 0 or code >= _ow.GAP_CAP
            else code * stop_unit
        )
    return out


@njit(cache=True, nogil=True)
def wide_bounds(ac, ah, ar, bc, bh, br, wide, rows, nodes, split_b, rot, trans, stop,
                out):  # fmt: skip
    """out[n, lane]: the walk's bound, with its ``stop``, of lane ``lane`` of row
    rows[n] of a wide table against node nodes[n] of the other tree (B moved by rot,
    trans): with ``split_b`` A's node against B's table, else A's table against B's node;
    inf for a lane at least stop away or unused. The scalar twin is
    :func:`hitbox._kernels.distance.node_pair_bounds`."""
    inv_unit = _ow.GAP_CAP / (stop * _STOP_WIDEN + 1e-300)
    a, b = as_bv(ac, ah, ar), as_bv(bc, bh, br)
    tsize = abs(trans[0]) + abs(trans[1]) + abs(trans[2])
    for n in range(len(rows)):
        r, k = rows[n], nodes[n]
        if split_b:
            word = _ow.b_lanes(a, k, wide, r, rot, trans, 0.0, tsize, inv_unit, True)
        else:
            word = _ow.a_lanes(wide, r, b, k, rot, trans, 0.0, tsize, inv_unit, True)
        out[n] = _decoded(word, wide, r, _DOWN / inv_unit)


@njit(inline="always")
def heap_size(depth):
    """The walk's scratch for two trees of ``depth`` levels in all: the heap's first
    room and as much again for the lanes that wait."""
    return 128 * depth + 512


@njit(inline="always")
def _root_span(ac, ah, bc, bh, rot, trans):
    """An upper bound on the distance of any point of A's root box to any point of B's
    (moved): the centres' distance plus both half diagonals, widened for rounding."""
    cx = trans[0] + rot[0, 0] * bc[0, 0] + rot[0, 1] * bc[0, 1] + rot[0, 2] * bc[0, 2]
    cy = trans[1] + rot[1, 0] * bc[0, 0] + rot[1, 1] * bc[0, 1] + rot[1, 2] * bc[0, 2]
    cz = trans[2] + rot[2, 0] * bc[0, 0] + rot[2, 1] * bc[0, 1] + rot[2, 2] * bc[0, 2]
    dx, dy, dz = cx - ac[0, 0], cy - ac[0, 1], cz - ac[0, 2]
    span = math.sqrt(dx * dx + dy * dy + dz * dz)
    span += math.sqrt(ah[0, 0] ** 2 + ah[0, 1] ** 2 + ah[0, 2] ** 2)
    span += math.sqrt(bh[0, 0] ** 2 + bh[0, 1] ** 2 + bh[0, 2] ** 2)
    return span * (1.0 + 1e-9) + 1e-300


@njit(inline="always")
def _take_nearest(waits, wait_keys, n):
    """Remove the least of the n waiting lanes (unsorted); returns it and n - 1."""
    j = 0
    for i in range(1, n):
        if waits[i] < waits[j]:
            j = i
    lb, key = waits[j], wait_keys[j]
    n -= 1
    waits[j], wait_keys[j] = waits[n], wait_keys[n]
    return lb, key, n


@njit(inline="always")
def _reach(lb, rtol, atol, found):
    """How far a pair of bound ``lb`` may count as reaching: widened by the tolerances
    once a face pair has given a distance (the answer then stays within them), not
    before, while the bound is ``max_distance``, which is exact: "nothing is below
    max_distance" must be proved, not taken within tolerances."""
    return lb * (1.0 + rtol) + atol if found else lb


@njit(inline="always")
def _admit(lbs, keys, top, waits, wait_keys, n, best, rtol, atol, found):
    """Push the n waiting lanes nearer than ``best`` (squared) on the heap of ``top``
    entries (room made by the caller); returns the heap's new count."""
    for i in range(n):
        reach = _reach(waits[i], rtol, atol, found)
        if reach * reach < best:
            top = heap_push(lbs, keys, top, waits[i], wait_keys[i])
    return top


@njit(cache=True, nogil=True)
def mesh_distance_wide(
    ac, ah, ar, a_first, a_count, a_tris, a_sbox, wide_a,
    bc, bh, br, b_first, b_count, b_tris, wide_b,
    rot, trans, depth, upper, rtol, atol, out_f, out_i, heap_f, heap_i,
):  # fmt: skip
    """Least distance between trees a and b (b moved by rot, trans into a's frame).

    Nodes as oriented boxes: centres (M, 3), half extents (M, 3), axes (M, 3, 3) as
    columns, and each tree's wide table over them
    (:func:`hitbox._kernels.obb_wide.wide_table`); triangles (S, 3, 3) in slot order,
    a's triangle boxes (S, 2, 3). Node pairs are taken nearest bound first (a 4-ary
    heap; before the first leaf, lanes of positive bound wait unsorted and the nearest
    is taken when no pair of bound 0 is left), so a pair is opened only when its bound
    is below the best distance so far,
    and the walk stops at the first pair whose bound times (1 + rtol) plus atol reaches
    it, or reaches ``upper``: the answer d satisfies d_true <= d <= d_true (1 + rtol) +
    atol (exact with rtol = atol = 0), unless none is below ``upper``. ``depth`` sizes
    the first heap.

    Writes out_f[:3] the closest point on a, out_f[3:6] on b (both in a's frame),
    out_i[0:2] their slots (-1 when nothing is below ``upper``). Returns the distance
    (inf when nothing is below ``upper``).

    ``heap_f`` (N,) float64 and ``heap_i`` (N,) int64: scratch the caller keeps from
    one query to the next (:func:`heap_size` entries; empty: made here), its first half
    the heap's room and its second the waiting lanes'; either that outgrows its half is
    copied into arrays of its own. A fresh heap each
    query cost page faults: glibc gave the freed pages back and took them again.
    """
    ac, ah, ar = borrowed(ac), borrowed(ah), borrowed(ar)
    a_first, a_count = borrowed(a_first), borrowed(a_count)
    a_tris, a_sbox, wide_a = borrowed(a_tris), borrowed(a_sbox), borrowed(wide_a)
    bc, bh, br = borrowed(bc), borrowed(bh), borrowed(br)
    b_first, b_count = borrowed(b_first), borrowed(b_count)
    b_tris, wide_b = borrowed(b_tris), borrowed(wide_b)
    rot, trans = borrowed(rot), borrowed(trans)
    out_f, out_i = borrowed(out_f), borrowed(out_i)
    out_i[0] = -1
    out_i[1] = -1
    if len(a_first) == 0 or len(b_first) == 0:
        return np.inf
    best = upper * upper if upper < np.inf else np.inf  # squared
    span = _root_span(ac, ah, bc, bh, rot, trans)
    a_nodes, b_nodes = as_bv(ac, ah, ar), as_bv(bc, bh, br)
    tsize = abs(trans[0]) + abs(trans[1]) + abs(trans[2])
    lbs, keys = heap_f, heap_i  # keys: node pair m << 32 | k
    if len(lbs) == 0 or len(keys) != len(lbs):
        lbs = np.empty(max(heap_size(depth), 0))
        keys = np.empty(len(lbs), np.int64)
    # until a leaf pair gives a distance, lanes of positive bound wait unsorted in the
    # scratch's second half (see the module's docstring)
    half = len(lbs) // 2
    waits, wait_keys = lbs[half:], keys[half:]
    lbs, keys = lbs[:half], keys[:half]
    waiting = 0
    top = 0
    have = True  # a pair in hand (lb, m, k), no farther than the heap's least
    lb, m, k = box_gap(ac, ah, ar, 0, bc, bh, br, 0, rot, trans), 0, 0
    while True:
        if not have:
            if top > 0:
                lb, key, top = heap_pop(lbs, keys, top)
            elif waiting > 0:  # no leaf yet, every meeting pair opened: dive on
                lb, key, waiting = _take_nearest(waits, wait_keys, waiting)
            else:
                break
            m, k = key >> 32, key & 0xFFFFFFFF
        have = False
        found = out_i[0] >= 0
        reach = _reach(lb, rtol, atol, found)
        if reach * reach >= best:
            break  # every pair left is at least as far
        ca = a_count[m]
        cb = b_count[k]
        if ca > 0 and cb > 0:
            best = leaf_pair(
                a_first[m], ca, a_tris, a_sbox, b_first[k], cb, b_tris, rot, trans,
                best, out_f, out_i,
            )  # fmt: skip
            if waiting > 0 and best < np.inf:  # the waiting lanes nearer join the heap
                if top + waiting > len(lbs):
                    lbs, keys = heap_room(lbs, keys, top, waiting)
                top = _admit(lbs, keys, top, waits, wait_keys, waiting, best, rtol, atol,
                             out_i[0] >= 0)  # fmt: skip
                waiting = 0
            continue
        # lanes at or beyond stop are dropped: their codes need not resolve them
        if not found:
            stop = math.sqrt(best) if best < np.inf else span
        else:
            stop = (math.sqrt(best) - atol) / (1.0 + rtol)
        inv_unit = _ow.GAP_CAP / (max(min(stop, span), 0.0) * _STOP_WIDEN + 1e-300)
        split_b = cb == 0 and (ca > 0 or node_size(bh, k) > node_size(ah, m))
        if split_b:
            row = _ow.wide_row(b_first, k)
            word = _ow.b_lanes(
                a_nodes, m, wide_b, row, rot, trans, 0.0, tsize, inv_unit, True
            )
        else:
            row = _ow.wide_row(a_first, m)
            word = _ow.a_lanes(
                wide_a, row, b_nodes, k, rot, trans, 0.0, tsize, inv_unit, True
            )
        if top + _ow.LANES > len(lbs):
            lbs, keys = heap_room(lbs, keys, top, _ow.LANES)
        if waiting + _ow.LANES > len(waits):
            waits, wait_keys = heap_room(waits, wait_keys, waiting, _ow.LANES)
        defer = best == np.inf
        # a code times unit is below the bound it came from: unit is at most
        # (1 + eps) _DOWN / inv_unit, and the code at most (1 + eps) bound * inv_unit
        unit = _DOWN / inv_unit
        near_g, near_key = np.inf, -1  # the nearest lane, kept in hand
        for lane in range(_ow.LANES):
            node = (
                _ow.lane_node(wide_b, row, lane)
                if split_b
                else _ow.lane_node(wide_a, row, lane)
            )
            code = _ow.lane_code(word, lane)
            if node < 0 or code >= _ow.GAP_CAP:
                continue
            g = code * unit
            reach = _reach(g, rtol, atol, found)
            if reach * reach >= best:
                continue
            key = (m << 32) | node if split_b else (node << 32) | k
            if g < near_g:  # keep the nearer in hand, store the other
                g, near_g = near_g, g
                key, near_key = near_key, key
                if key < 0:
                    continue
            if defer and g > 0.0:
                waits[waiting], wait_keys[waiting] = g, key
                waiting += 1
            else:
                top = heap_push(lbs, keys, top, g, key)
        if near_key >= 0:
            if top == 0 or near_g <= lbs[0]:  # still the nearest: walk on, no heap
                lb, m, k, have = near_g, near_key >> 32, near_key & 0xFFFFFFFF, True
            elif defer and near_g > 0.0:
                waits[waiting], wait_keys[waiting] = near_g, near_key
                waiting += 1
            else:
                top = heap_push(lbs, keys, top, near_g, near_key)
    if out_i[0] < 0:
        return np.inf
    return math.sqrt(best)
