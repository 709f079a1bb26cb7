"""Mesh-mesh distance walked four nodes at a time: the tree-vs-tree walk of
:func:`hitbox._kernels.distance.mesh_distance` with each split taking the larger node's
wide children (:mod:`hitbox._kernels.obb_wide`), their four lower bounds computed side
by side.

A lane's bound is the one :func:`hitbox._kernels.distance.box_gap` gives (the fifteen
separating axes, the centre line and each box against the other's bounding sphere,
lowered by a relative 1e-12), written without a branch so that the compiler runs the
four lanes as one vector (about 20 ns a lane against about 46 for the scalar bound). The
lanes return it as a 16-bit code OR'd into one word, rounded *down* to a multiple of
``stop / CAP`` (``stop`` the distance beyond which a pair is dropped: the best distance
so far, or the far bound of the two roots): a code can only lower a bound, so the walk
opens more pairs at worst, never fewer, and answers as the binary walk does. A lane at
the cap is at least ``stop`` away and dropped.
"""

import math

import numpy as np
from numba import njit

from hitbox._kernels.borrowed import borrowed
from hitbox._kernels.distance import (
    box_gap,
    heap_pop,
    heap_push,
    heap_room,
    leaf_pair,
    node_size,
)
from hitbox._kernels.obb_wide import CODE_BITS, LANES, lane_code, lane_node, wide_row
from hitbox._kernels.triangle_distance import REL_EPS

#: The largest code: a lane at least ``stop`` away.
CAP = (1 << CODE_BITS) - 2
_CAP_F = float(CAP)
#: stop is widened by this before it sets the unit, so that a capped lane (rounded to
#: the cap) is farther than stop itself, not merely within rounding of it
_STOP_WIDEN = 1.0 + 1e-9
#: A code times the unit can exceed the bound it came from by a few ulps
_DOWN = 1.0 - 1e-15


@njit(inline="always")
def _edge(num, cosine):
    """num / |sin|, the gap along the cross product of two unit edge directions at
    angle acos(cosine); 0 for (near) parallel edges, which give no axis."""
    sine2 = 1.0 - cosine * cosine
    val = num / math.sqrt(max(sine2, 1e-6))
    return val if sine2 >= 1e-6 else 0.0


@njit(inline="always")
def _lane_gap(
    t0, t1, t2, r00, r01, r02, r10, r11, r12, r20, r21, r22,
    ha0, ha1, ha2, hb0, hb1, hb2, tsize,
):  # fmt: skip
    """:func:`~hitbox._kernels.distance.box_gap` of box a (half extents ha) and box b
    (hb) with b's centre at t and its axes' components r_kc along a's axes, in a's
    frame; ``tsize`` the pose's |translation|_1 (for the rounding margin). No branch."""
    a00, a01, a02 = abs(r00), abs(r01), abs(r02)
    a10, a11, a12 = abs(r10), abs(r11), abs(r12)
    a20, a21, a22 = abs(r20), abs(r21), abs(r22)
    centre = math.sqrt(t0 * t0 + t1 * t1 + t2 * t2)
    ra = math.sqrt(ha0 * ha0 + ha1 * ha1 + ha2 * ha2)
    rb = math.sqrt(hb0 * hb0 + hb1 * hb1 + hb2 * hb2)
    margin = REL_EPS * (centre + ra + rb + tsize)
    # a's face normals
    e0 = abs(t0) - ha0
    e1 = abs(t1) - ha1
    e2 = abs(t2) - ha2
    g = max(e0 - (hb0 * a00 + hb1 * a01 + hb2 * a02),
            e1 - (hb0 * a10 + hb1 * a11 + hb2 * a12),
            e2 - (hb0 * a20 + hb1 * a21 + hb2 * a22))  # fmt: skip
    out_a = max(0.0, e0) ** 2 + max(0.0, e1) ** 2 + max(0.0, e2) ** 2
    # b's face normals
    s0 = t0 * r00 + t1 * r10 + t2 * r20
    s1 = t0 * r01 + t1 * r11 + t2 * r21
    s2 = t0 * r02 + t1 * r12 + t2 * r22
    f0 = abs(s0) - hb0
    f1 = abs(s1) - hb1
    f2 = abs(s2) - hb2
    g = max(g, f0 - (ha0 * a00 + ha1 * a10 + ha2 * a20),
            f1 - (ha0 * a01 + ha1 * a11 + ha2 * a21),
            f2 - (ha0 * a02 + ha1 * a12 + ha2 * a22))  # fmt: skip
    out_b = max(0.0, f0) ** 2 + max(0.0, f1) ** 2 + max(0.0, f2) ** 2
    # the centre line (none when the centres coincide)
    reach = (ha0 * abs(t0) + ha1 * abs(t1) + ha2 * abs(t2)
             + hb0 * abs(s0) + hb1 * abs(s1) + hb2 * abs(s2))  # fmt: skip
    line = centre - reach / max(centre, 1e-300)
    g = max(g, line) if centre > 0.0 else g
    # the nine edge-edge axes a_k x b_c (distance._edge_row's terms)
    n0 = abs(t2 * r10 - t1 * r20) - (ha1 * a20 + ha2 * a10 + hb1 * a02 + hb2 * a01)
    n1 = abs(t2 * r11 - t1 * r21) - (ha1 * a21 + ha2 * a11 + hb0 * a02 + hb2 * a00)
    n2 = abs(t2 * r12 - t1 * r22) - (ha1 * a22 + ha2 * a12 + hb0 * a01 + hb1 * a00)
    n3 = abs(t0 * r20 - t2 * r00) - (ha2 * a00 + ha0 * a20 + hb1 * a12 + hb2 * a11)
    n4 = abs(t0 * r21 - t2 * r01) - (ha2 * a01 + ha0 * a21 + hb0 * a12 + hb2 * a10)
    n5 = abs(t0 * r22 - t2 * r02) - (ha2 * a02 + ha0 * a22 + hb0 * a11 + hb1 * a10)
    n6 = abs(t1 * r00 - t0 * r10) - (ha0 * a10 + ha1 * a00 + hb1 * a22 + hb2 * a21)
    n7 = abs(t1 * r01 - t0 * r11) - (ha0 * a11 + ha1 * a01 + hb0 * a22 + hb2 * a20)
    n8 = abs(t1 * r02 - t0 * r12) - (ha0 * a12 + ha1 * a02 + hb0 * a21 + hb1 * a20)
    g = max(g, _edge(n0, r00), _edge(n1, r01), _edge(n2, r02))
    g = max(g, _edge(n3, r10), _edge(n4, r11), _edge(n5, r12))
    g = max(g, _edge(n6, r20), _edge(n7, r21), _edge(n8, r22))
    # each box against the other's bounding sphere
    g = max(g, math.sqrt(out_a) - rb, math.sqrt(out_b) - ra)
    return max(0.0, g - margin) if g > 0.0 else 0.0


@njit(inline="always")
def _code(gap, inv_unit):
    """gap in units of 1 / inv_unit, rounded down, capped (NaN: 0, opened)."""
    x = gap * inv_unit
    x = x if x > 0.0 else 0.0
    x = x if x < _CAP_F else _CAP_F
    return np.int64(x)


@njit(inline="always")
def b_gaps(ac, ah, ar, m, wide_b, k, rot, trans, inv_unit):
    """A's node m against the wide children in row k of B's table (B moved by rot,
    trans): a word of the four lanes' codes (unused lanes too: skip them by id)."""
    x00 = ar[m, 0, 0] * rot[0, 0] + ar[m, 1, 0] * rot[1, 0] + ar[m, 2, 0] * rot[2, 0]
    x01 = ar[m, 0, 0] * rot[0, 1] + ar[m, 1, 0] * rot[1, 1] + ar[m, 2, 0] * rot[2, 1]
    x02 = ar[m, 0, 0] * rot[0, 2] + ar[m, 1, 0] * rot[1, 2] + ar[m, 2, 0] * rot[2, 2]
    x10 = ar[m, 0, 1] * rot[0, 0] + ar[m, 1, 1] * rot[1, 0] + ar[m, 2, 1] * rot[2, 0]
    x11 = ar[m, 0, 1] * rot[0, 1] + ar[m, 1, 1] * rot[1, 1] + ar[m, 2, 1] * rot[2, 1]
    x12 = ar[m, 0, 1] * rot[0, 2] + ar[m, 1, 1] * rot[1, 2] + ar[m, 2, 1] * rot[2, 2]
    x20 = ar[m, 0, 2] * rot[0, 0] + ar[m, 1, 2] * rot[1, 0] + ar[m, 2, 2] * rot[2, 0]
    x21 = ar[m, 0, 2] * rot[0, 1] + ar[m, 1, 2] * rot[1, 1] + ar[m, 2, 2] * rot[2, 1]
    x22 = ar[m, 0, 2] * rot[0, 2] + ar[m, 1, 2] * rot[1, 2] + ar[m, 2, 2] * rot[2, 2]
    e0 = trans[0] - ac[m, 0]
    e1 = trans[1] - ac[m, 1]
    e2 = trans[2] - ac[m, 2]
    y0 = ar[m, 0, 0] * e0 + ar[m, 1, 0] * e1 + ar[m, 2, 0] * e2
    y1 = ar[m, 0, 1] * e0 + ar[m, 1, 1] * e1 + ar[m, 2, 1] * e2
    y2 = ar[m, 0, 2] * e0 + ar[m, 1, 2] * e1 + ar[m, 2, 2] * e2
    ha0, ha1, ha2 = ah[m, 0], ah[m, 1], ah[m, 2]
    tsize = abs(trans[0]) + abs(trans[1]) + abs(trans[2])
    w = wide_b
    word = 0
    for lane in range(LANES):
        c0, c1, c2 = w[k, 0, lane], w[k, 1, lane], w[k, 2, lane]
        b00, b01, b02 = w[k, 6, lane], w[k, 7, lane], w[k, 8, lane]
        b10, b11, b12 = w[k, 9, lane], w[k, 10, lane], w[k, 11, lane]
        b20, b21, b22 = w[k, 12, lane], w[k, 13, lane], w[k, 14, lane]
        gap = _lane_gap(
            x00 * c0 + x01 * c1 + x02 * c2 + y0,
            x10 * c0 + x11 * c1 + x12 * c2 + y1,
            x20 * c0 + x21 * c1 + x22 * c2 + y2,
            x00 * b00 + x01 * b10 + x02 * b20,
            x00 * b01 + x01 * b11 + x02 * b21,
            x00 * b02 + x01 * b12 + x02 * b22,
            x10 * b00 + x11 * b10 + x12 * b20,
            x10 * b01 + x11 * b11 + x12 * b21,
            x10 * b02 + x11 * b12 + x12 * b22,
            x20 * b00 + x21 * b10 + x22 * b20,
            x20 * b01 + x21 * b11 + x22 * b21,
            x20 * b02 + x21 * b12 + x22 * b22,
            ha0, ha1, ha2, w[k, 3, lane], w[k, 4, lane], w[k, 5, lane], tsize,
        )  # fmt: skip
        word |= _code(gap, inv_unit) << (CODE_BITS * lane)
    return word


@njit(inline="always")
def a_gaps(wide_a, m, bc, bh, br, k, rot, trans, inv_unit):
    """The wide children in row m of A's table against B's node k (moved by rot,
    trans): a word of the four lanes' codes, as :func:`b_gaps`."""
    # b's axes (columns) and centre in A's model frame, once for the four lanes
    m00 = rot[0, 0] * br[k, 0, 0] + rot[0, 1] * br[k, 1, 0] + rot[0, 2] * br[k, 2, 0]
    m10 = rot[1, 0] * br[k, 0, 0] + rot[1, 1] * br[k, 1, 0] + rot[1, 2] * br[k, 2, 0]
    m20 = rot[2, 0] * br[k, 0, 0] + rot[2, 1] * br[k, 1, 0] + rot[2, 2] * br[k, 2, 0]
    m01 = rot[0, 0] * br[k, 0, 1] + rot[0, 1] * br[k, 1, 1] + rot[0, 2] * br[k, 2, 1]
    m11 = rot[1, 0] * br[k, 0, 1] + rot[1, 1] * br[k, 1, 1] + rot[1, 2] * br[k, 2, 1]
    m21 = rot[2, 0] * br[k, 0, 1] + rot[2, 1] * br[k, 1, 1] + rot[2, 2] * br[k, 2, 1]
    m02 = rot[0, 0] * br[k, 0, 2] + rot[0, 1] * br[k, 1, 2] + rot[0, 2] * br[k, 2, 2]
    m12 = rot[1, 0] * br[k, 0, 2] + rot[1, 1] * br[k, 1, 2] + rot[1, 2] * br[k, 2, 2]
    m22 = rot[2, 0] * br[k, 0, 2] + rot[2, 1] * br[k, 1, 2] + rot[2, 2] * br[k, 2, 2]
    bc0, bc1, bc2 = bc[k, 0], bc[k, 1], bc[k, 2]
    g0 = trans[0] + rot[0, 0] * bc0 + rot[0, 1] * bc1 + rot[0, 2] * bc2
    g1 = trans[1] + rot[1, 0] * bc0 + rot[1, 1] * bc1 + rot[1, 2] * bc2
    g2 = trans[2] + rot[2, 0] * bc0 + rot[2, 1] * bc1 + rot[2, 2] * bc2
    hb0, hb1, hb2 = bh[k, 0], bh[k, 1], bh[k, 2]
    tsize = abs(trans[0]) + abs(trans[1]) + abs(trans[2])
    w = wide_a
    word = 0
    for lane in range(LANES):
        d0 = g0 - w[m, 0, lane]
        d1 = g1 - w[m, 1, lane]
        d2 = g2 - w[m, 2, lane]
        a00, a01, a02 = w[m, 6, lane], w[m, 7, lane], w[m, 8, lane]
        a10, a11, a12 = w[m, 9, lane], w[m, 10, lane], w[m, 11, lane]
        a20, a21, a22 = w[m, 12, lane], w[m, 13, lane], w[m, 14, lane]
        gap = _lane_gap(
            a00 * d0 + a10 * d1 + a20 * d2,
            a01 * d0 + a11 * d1 + a21 * d2,
            a02 * d0 + a12 * d1 + a22 * d2,
            a00 * m00 + a10 * m10 + a20 * m20,
            a00 * m01 + a10 * m11 + a20 * m21,
            a00 * m02 + a10 * m12 + a20 * m22,
            a01 * m00 + a11 * m10 + a21 * m20,
            a01 * m01 + a11 * m11 + a21 * m21,
            a01 * m02 + a11 * m12 + a21 * m22,
            a02 * m00 + a12 * m10 + a22 * m20,
            a02 * m01 + a12 * m11 + a22 * m21,
            a02 * m02 + a12 * m12 + a22 * m22,
            w[m, 3, lane], w[m, 4, lane], w[m, 5, lane], hb0, hb1, hb2, tsize,
        )  # fmt: skip
        word |= _code(gap, inv_unit) << (CODE_BITS * lane)
    return word


@njit(inline="always")
def _decoded(word, wide, row, stop_unit):
    """The four lanes of a word as bounds: code times the unit (a capped lane, or an
    unused one, inf)."""
    out = np.empty(LANES)
    for lane in range(LANES):
        code = lane_code(word, lane)
        out[lane] = (
            np.inf if lane_node(wide, row, lane) < 0 or code >= CAP else code * stop_unit
        )
    return out


@njit(cache=True, nogil=True)
def wide_bounds(ac, ah, ar, ms, wide_b, ks, rot, trans, stop, out):
    """out[n, lane]: the walk's bound of A's node ms[n] against lane ``lane`` of row
    ks[n] of B's wide table (B moved by rot, trans), with the walk's ``stop`` (inf for a
    lane at least stop away or unused). With the roles swapped as
    :func:`wide_bounds_a` does, the twin of
    :func:`hitbox._kernels.distance.node_pair_bounds` for tests."""
    inv_unit = CAP / (stop * _STOP_WIDEN + 1e-300)
    for n in range(len(ms)):
        word = b_gaps(ac, ah, ar, ms[n], wide_b, ks[n], rot, trans, inv_unit)
        out[n] = _decoded(word, wide_b, ks[n], _DOWN / inv_unit)


@njit(cache=True, nogil=True)
def wide_bounds_a(wide_a, ms, bc, bh, br, ks, rot, trans, stop, out):
    """out[n, lane]: lane ``lane`` of row ms[n] of A's wide table against B's node ks[n],
    as :func:`wide_bounds`."""
    inv_unit = CAP / (stop * _STOP_WIDEN + 1e-300)
    for n in range(len(ms)):
        word = a_gaps(wide_a, ms[n], bc, bh, br, ks[n], rot, trans, inv_unit)
        out[n] = _decoded(word, wide_a, ms[n], _DOWN / inv_unit)


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


@njit(cache=True, nogil=True)
def mesh_distance_wide(
    ac, ah, ar, a_first, a_count, a_tris, a_sbox, wide_a,
    bc, bh, br, b_first, b_count, b_tris, wide_b,
    rot, trans, depth, upper, rtol, atol, out_f, out_i,
):  # fmt: skip
    """:func:`hitbox._kernels.distance.mesh_distance` (same arguments, contract and
    answer), each tree also given as its wide table (:func:`hitbox._kernels.obb_wide.
    wide_table` over the same node boxes): a split opens the larger node's wide children
    and bounds the four at once."""
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
    room = 64 * depth + 256
    lbs = np.empty(max(room, 0))
    keys = np.empty(len(lbs), np.int64)  # node pair m << 32 | k
    lbs, keys = heap_room(lbs, keys, 0, 1)
    top = heap_push(
        lbs, keys, 0, box_gap(ac, ah, ar, 0, bc, bh, br, 0, rot, trans, np.inf), 0
    )
    have = False  # a pair in hand (lb, m, k), no farther than the heap's least
    lb, m, k = 0.0, 0, 0
    while have or top > 0:
        if not have:
            lb, key, top = heap_pop(lbs, keys, top)
            m, k = key >> 32, key & 0xFFFFFFFF
        have = False
        reach = lb * (1.0 + rtol) + atol
        if reach * reach >= best:
            break  # every pair left is at least as far
        ca = a_count[m]
        cb = b_count[k]
        if ca > 0 and cb > 0:
            best = leaf_pair(
                a_first[m], ca, a_tris, a_sbox, b_first[k], cb, b_tris, rot, trans,
                best, out_f, out_i,
            )  # fmt: skip
            continue
        # lanes at or beyond stop are dropped: their codes need not resolve them
        stop = (math.sqrt(best) - atol) / (1.0 + rtol) if best < np.inf else span
        inv_unit = CAP / (max(min(stop, span), 0.0) * _STOP_WIDEN + 1e-300)
        split_b = cb == 0 and (ca > 0 or node_size(bh, k) > node_size(ah, m))
        if split_b:
            row = wide_row(b_first, k)
            word = b_gaps(ac, ah, ar, m, wide_b, row, rot, trans, inv_unit)
        else:
            row = wide_row(a_first, m)
            word = a_gaps(wide_a, row, bc, bh, br, k, rot, trans, inv_unit)
        if top + LANES > len(lbs):
            lbs, keys = heap_room(lbs, keys, top, LANES)
        # a code times unit is below the bound it came from: unit is at most
        # (1 + eps) _DOWN / inv_unit, and the code at most (1 + eps) bound * inv_unit
        unit = _DOWN / inv_unit
        near_g, near_key = np.inf, -1  # the nearest lane, kept in hand
        for lane in range(LANES):
            node = (
                lane_node(wide_b, row, lane) if split_b else lane_node(wide_a, row, lane)
            )
            code = lane_code(word, lane)
            if node < 0 or code >= CAP:
                continue
            g = code * unit
            reach = g * (1.0 + rtol) + atol
            if reach * reach >= best:
                continue
            key = (m << 32) | node if split_b else (node << 32) | k
            if g < near_g:
                if near_key >= 0:
                    top = heap_push(lbs, keys, top, near_g, near_key)
                near_g, near_key = g, key
            else:
                top = heap_push(lbs, keys, top, g, key)
        if near_key >= 0:
            if top == 0 or near_g <= lbs[0]:  # still the nearest: walk on, no heap
                lb, m, k, have = near_g, near_key >> 32, near_key & 0xFFFFFFFF, True
            else:
                top = heap_push(lbs, keys, top, near_g, near_key)
    if out_i[0] < 0:
        return np.inf
    return math.sqrt(best)
