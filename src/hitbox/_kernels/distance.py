"""Distance between two triangle meshes under a rigid motion: the least distance over
every triangle pair, found by a tree-vs-tree walk pruned by node-pair lower bounds
(SPEC §8's walk, with distances instead of overlaps).

Triangles: :mod:`hitbox._kernels.triangle_distance`, 0 exactly when a pair meets, so
``distance == 0`` exactly when the meshes touch.

Nodes: each tree's nodes as oriented boxes (an OBB tree's own boxes, any other kind's
exact AABBs with the identity frame). The gap along any unit axis bounds the distance of
two boxes from below; a pair's bound is the largest gap over the fifteen separating
axes, the line through the centres and the centre-sphere bounds, lowered by a relative
1e-12 for rounding. Pairs are opened nearest bound first, and the walk ends at the first
bound that reaches the best distance so far.
"""

import math

import numpy as np
from numba import njit

from hitbox._kernels.borrowed import borrowed
from hitbox._kernels.triangle_distance import (
    REL_EPS,
    beyond_plane,
    line_gap,
    tri_tri_distance,
)
from hitbox._kernels.triangle_points import load, load_xf

# -- node pairs ----------------------------------------------------------------------------


@njit(inline="always")
def _axis_in(ar, i, rot, br, j, col):
    """Column ``col`` of b[j]'s axes, moved by rot, in a[i]'s box frame."""
    m0 = rot[0, 0] * br[j, 0, col] + rot[0, 1] * br[j, 1, col] + rot[0, 2] * br[j, 2, col]
    m1 = rot[1, 0] * br[j, 0, col] + rot[1, 1] * br[j, 1, col] + rot[1, 2] * br[j, 2, col]
    m2 = rot[2, 0] * br[j, 0, col] + rot[2, 1] * br[j, 1, col] + rot[2, 2] * br[j, 2, col]
    return (
        ar[i, 0, 0] * m0 + ar[i, 1, 0] * m1 + ar[i, 2, 0] * m2,
        ar[i, 0, 1] * m0 + ar[i, 1, 1] * m1 + ar[i, 2, 1] * m2,
        ar[i, 0, 2] * m0 + ar[i, 1, 2] * m1 + ar[i, 2, 2] * m2,
    )


@njit(inline="always")
def _edge_gap(gap, along, reach, cosine):
    """max(gap, the gap along the cross product of two unit edge directions at angle
    acos(cosine): (|along| - reach) / |cross|); 0 for (near) parallel edges (no axis)."""
    sine2 = 1.0 - cosine * cosine
    if sine2 < 1e-6:
        return max(gap, 0.0)
    return max(gap, (abs(along) - reach) / math.sqrt(sine2))


@njit(inline="always")
def _edge_row(gap, t1, t2, h1, h2, p, q, r, hb):
    """max(gap, the gaps along a_k x b_c for c = 0, 1, 2), for a's axis k with the
    other two axes k1, k2 (in cyclic order): t1, t2 and h1, h2 the centre offset and a's
    half extents along them, p, q, r rows k1, k2, k of R (b's axes in a's frame)."""
    gap = _edge_gap(
        gap, t2 * p[0] - t1 * q[0],
        h1 * abs(q[0]) + h2 * abs(p[0]) + hb[1] * abs(r[2]) + hb[2] * abs(r[1]), r[0],
    )  # fmt: skip
    gap = _edge_gap(
        gap, t2 * p[1] - t1 * q[1],
        h1 * abs(q[1]) + h2 * abs(p[1]) + hb[0] * abs(r[2]) + hb[2] * abs(r[0]), r[1],
    )  # fmt: skip
    return _edge_gap(
        gap, t2 * p[2] - t1 * q[2],
        h1 * abs(q[2]) + h2 * abs(p[2]) + hb[0] * abs(r[1]) + hb[1] * abs(r[0]), r[2],
    )  # fmt: skip


@njit(inline="always")
def box_gap(ac, ah, ar, i, bc, bh, br, j, rot, trans, stop):
    """A lower bound on the distance of box a[i] and box b[j] moved by (rot, trans):
    the largest gap along the fifteen separating axes and the line through the centres,
    and from each box to the other's bounding sphere. Once the six face normals and the
    centre line give a bound of at least ``stop`` (the caller drops such pairs), that
    bound is returned without the rest. Written out in scalars: a tuple indexed in a
    loop is spilled to memory at every read (1.5x the time, measured)."""
    cx, cy, cz = bc[j, 0], bc[j, 1], bc[j, 2]
    w0 = trans[0] + rot[0, 0] * cx + rot[0, 1] * cy + rot[0, 2] * cz - ac[i, 0]
    w1 = trans[1] + rot[1, 0] * cx + rot[1, 1] * cy + rot[1, 2] * cz - ac[i, 1]
    w2 = trans[2] + rot[2, 0] * cx + rot[2, 1] * cy + rot[2, 2] * cz - ac[i, 2]
    t0 = ar[i, 0, 0] * w0 + ar[i, 1, 0] * w1 + ar[i, 2, 0] * w2
    t1 = ar[i, 0, 1] * w0 + ar[i, 1, 1] * w1 + ar[i, 2, 1] * w2
    t2 = ar[i, 0, 2] * w0 + ar[i, 1, 2] * w1 + ar[i, 2, 2] * w2
    # r_kc: b's axis c along a's axis k
    r00, r10, r20 = _axis_in(ar, i, rot, br, j, 0)
    r01, r11, r21 = _axis_in(ar, i, rot, br, j, 1)
    r02, r12, r22 = _axis_in(ar, i, rot, br, j, 2)
    a00, a01, a02 = abs(r00), abs(r01), abs(r02)
    a10, a11, a12 = abs(r10), abs(r11), abs(r12)
    a20, a21, a22 = abs(r20), abs(r21), abs(r22)
    ha0, ha1, ha2 = ah[i, 0], ah[i, 1], ah[i, 2]
    hb0, hb1, hb2 = bh[j, 0], bh[j, 1], bh[j, 2]
    centre = math.sqrt(t0 * t0 + t1 * t1 + t2 * t2)
    ra = math.sqrt(ha0 * ha0 + ha1 * ha1 + ha2 * ha2)
    rb = math.sqrt(hb0 * hb0 + hb1 * hb1 + hb2 * hb2)
    margin = REL_EPS * (centre + ra + rb + abs(trans[0]) + abs(trans[1]) + abs(trans[2]))
    # a's face normals
    e0 = abs(t0) - ha0
    e1 = abs(t1) - ha1
    e2 = abs(t2) - ha2
    gap = max(e0 - (hb0 * a00 + hb1 * a01 + hb2 * a02),
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
    gap = max(gap, f0 - (ha0 * a00 + ha1 * a10 + ha2 * a20),
              f1 - (ha0 * a01 + ha1 * a11 + ha2 * a21),
              f2 - (ha0 * a02 + ha1 * a12 + ha2 * a22))  # fmt: skip
    out_b = max(0.0, f0) ** 2 + max(0.0, f1) ** 2 + max(0.0, f2) ** 2
    if centre > 0.0:  # the centre line
        reach = (ha0 * abs(t0) + ha1 * abs(t1) + ha2 * abs(t2)
                 + hb0 * abs(s0) + hb1 * abs(s1) + hb2 * abs(s2))  # fmt: skip
        gap = max(gap, centre - reach / centre)
    if gap - margin >= stop:
        return gap - margin
    # the nine edge-edge axes a_k x b_c, three per axis of a
    rows = (r00, r01, r02), (r10, r11, r12), (r20, r21, r22)
    hb = (hb0, hb1, hb2)
    gap = _edge_row(gap, t1, t2, ha1, ha2, rows[1], rows[2], rows[0], hb)
    gap = _edge_row(gap, t2, t0, ha2, ha0, rows[2], rows[0], rows[1], hb)
    gap = _edge_row(gap, t0, t1, ha0, ha1, rows[0], rows[1], rows[2], hb)
    # each box against the other's bounding sphere
    gap = max(gap, math.sqrt(out_a) - rb, math.sqrt(out_b) - ra)
    if gap <= 0.0:
        return 0.0
    return max(0.0, gap - margin)


@njit(cache=True, nogil=True)
def node_pair_bounds(ac, ah, ar, ia, bc, bh, br, ib, rot, trans, stop, out):
    """out[n] = the walk's lower bound on the distance of box a[ia[n]] and box b[ib[n]]
    moved by (rot, trans), given ``stop`` (:func:`_box_gap`): the bound's own test."""
    for n in range(len(ia)):
        out[n] = box_gap(ac, ah, ar, ia[n], bc, bh, br, ib[n], rot, trans, stop)


@njit(inline="always")
def node_size(h, i):
    return h[i, 0] + h[i, 1] + h[i, 2]


@njit(inline="always")
def heap_push(lbs, keys, n, lb, key):
    """Push (lb, key) on the 4-ary min-heap of n entries (n < its length: the caller
    grows it, :func:`_heap_room`); returns n + 1. (Returning the arrays, rebound at each
    push, cost reference counting on every push.)"""
    c = n
    while c > 0:
        parent = (c - 1) >> 2
        if lbs[parent] <= lb:
            break
        lbs[c], keys[c] = lbs[parent], keys[parent]
        c = parent
    lbs[c], keys[c] = lb, key
    return n + 1


@njit(inline="always")
def heap_room(lbs, keys, n, more):
    """The heap's arrays with room for ``more`` pushes after its n entries (doubled
    when short)."""
    if n + more > len(lbs):
        lbs = np.concatenate((lbs, np.empty(len(lbs) + more)))
        keys = np.concatenate((keys, np.empty(len(keys) + more, np.int64)))
    return lbs, keys


@njit(inline="always")
def heap_pop(lbs, keys, n):
    """Remove the least entry of the heap of n entries; returns it and n - 1."""
    lb, key = lbs[0], keys[0]
    n -= 1
    last_lb, last_key = lbs[n], keys[n]
    c = 0
    while True:
        first = 4 * c + 1
        if first >= n:
            break
        child = first
        low = lbs[first]
        for q in range(first + 1, min(first + 4, n)):
            if lbs[q] < low:
                low = lbs[q]
                child = q
        if low >= last_lb:
            break
        lbs[c], keys[c] = lbs[child], keys[child]
        c = child
    lbs[c], keys[c] = last_lb, last_key
    return lb, key, n


@njit(inline="always")
def leaf_pair(fa, ca, a_tris, a_sbox, fb, cb, b_tris, rot, trans, best, out_f, out_i):
    """The least squared distance of a's slots [fa, fa + ca) and b's [fb, fb + cb)
    (b moved by rot, trans) below ``best``, out_f and out_i[:2] set for it; ``best``
    when no pair is nearer. Pairs are skipped by their slot boxes, their projections on
    the line through their centroids and their planes before the exact distance."""
    for t in range(fb, fb + cb):
        q0, q1, q2 = load_xf(b_tris, t, rot, trans)
        lo0, hi0 = min(q0[0], q1[0], q2[0]), max(q0[0], q1[0], q2[0])
        lo1, hi1 = min(q0[1], q1[1], q2[1]), max(q0[1], q1[1], q2[1])
        lo2, hi2 = min(q0[2], q1[2], q2[2]), max(q0[2], q1[2], q2[2])
        for s in range(fa, fa + ca):
            # the triangles' boxes apart by at least best: skip the pair
            g0 = max(0.0, lo0 - a_sbox[s, 1, 0], a_sbox[s, 0, 0] - hi0)
            g1 = max(0.0, lo1 - a_sbox[s, 1, 1], a_sbox[s, 0, 1] - hi1)
            g2 = max(0.0, lo2 - a_sbox[s, 1, 2], a_sbox[s, 0, 2] - hi2)
            if (g0 * g0 + g1 * g1 + g2 * g2) * (1.0 - 4 * REL_EPS) >= best:
                continue
            p0, p1, p2 = load(a_tris, s)
            # the triangles' projections on the line through their centroids
            gap = line_gap(p0, p1, p2, q0, q1, q2)
            if gap > 0.0 and gap * gap * (1.0 - 4 * REL_EPS) >= best:
                continue
            # both triangles' planes: one wholly beyond the other's by best
            if beyond_plane(p0, p1, p2, q0, q1, q2, best) or beyond_plane(
                q0, q1, q2, p0, p1, p2, best
            ):
                continue
            d2, x, y = tri_tri_distance(p0, p1, p2, q0, q1, q2)
            if d2 < best:
                best = d2
                out_i[0] = s
                out_i[1] = t
                for r in range(3):
                    out_f[r] = x[r]
                    out_f[3 + r] = y[r]
    return best


@njit(cache=True, nogil=True)
def mesh_distance(
    ac, ah, ar, a_first, a_count, a_tris, a_sbox,
    bc, bh, br, b_first, b_count, b_tris,
    rot, trans, depth, upper, rtol, atol, out_f, out_i,
):  # fmt: skip
    """Least distance between trees a and b (b moved by rot, trans into a's frame).

    Nodes as oriented boxes: centres (M, 3), half extents (M, 3), axes (M, 3, 3) as
    columns; triangles (S, 3, 3) in slot order, a's triangle boxes (S, 2, 3). Node
    pairs are taken nearest bound first (a 4-ary heap), so a pair is opened only
    when its bound is below the best distance so far, and the walk stops at the first
    pair whose bound times (1 + rtol) plus atol reaches it, or reaches ``upper``: the
    answer d satisfies d_true <= d <= d_true (1 + rtol) + atol (exact with
    rtol = atol = 0), unless none is below ``upper``. ``depth`` sizes the first heap.

    Writes out_f[:3] the closest point on a, out_f[3:6] on b (both in a's frame),
    out_i[0:2] their slots (-1 when nothing is below ``upper``). Returns the distance
    (inf when nothing is below ``upper``).
    """
    # borrowed (hitbox._kernels.borrowed): the inlined helpers' array arguments were
    # counted in and out at every node pair, atomics the threads of a batch share
    ac, ah, ar = borrowed(ac), borrowed(ah), borrowed(ar)
    a_first, a_count = borrowed(a_first), borrowed(a_count)
    a_tris, a_sbox = borrowed(a_tris), borrowed(a_sbox)
    bc, bh, br = borrowed(bc), borrowed(bh), borrowed(br)
    b_first, b_count, b_tris = borrowed(b_first), borrowed(b_count), borrowed(b_tris)
    rot, trans = borrowed(rot), borrowed(trans)
    out_f, out_i = borrowed(out_f), borrowed(out_i)
    out_i[0] = -1
    out_i[1] = -1
    if len(a_first) == 0 or len(b_first) == 0:
        return np.inf
    best = upper * upper if upper < np.inf else np.inf  # squared
    size = 32 * depth + 256
    lbs = np.empty(max(size, 0))
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
        if cb == 0 and (ca > 0 or node_size(bh, k) > node_size(ah, m)):
            f = b_first[k]
            m0, k0, m1, k1 = m, f, m, f + 1
        else:
            f = a_first[m]
            m0, k0, m1, k1 = f, k, f + 1, k
        # a child bounded at stop or beyond is dropped: its bound need not be exact
        stop = (math.sqrt(best) - atol) / (1.0 + rtol) if best < np.inf else np.inf
        g0 = box_gap(ac, ah, ar, m0, bc, bh, br, k0, rot, trans, stop)
        g1 = box_gap(ac, ah, ar, m1, bc, bh, br, k1, rot, trans, stop)
        if g1 < g0:
            m0, k0, g0, m1, k1, g1 = m1, k1, g1, m0, k0, g0
        if top + 2 > len(lbs):
            lbs, keys = heap_room(lbs, keys, top, 2)
        reach = g1 * (1.0 + rtol) + atol
        if reach * reach < best:
            top = heap_push(lbs, keys, top, g1, (m1 << 32) | k1)
        reach = g0 * (1.0 + rtol) + atol
        if reach * reach < best:
            if top == 0 or g0 <= lbs[0]:  # still the nearest: walk on, no heap
                lb, m, k, have = g0, m0, k0, True
            else:
                top = heap_push(lbs, keys, top, g0, (m0 << 32) | k0)
    if out_i[0] < 0:
        return np.inf
    return math.sqrt(best)


@njit(cache=True, nogil=True)
def pair_distances(tri_a, tri_b):
    """(A, B) squared distances of every triangle pair, by :func:`tri_tri_distance`
    (the brute-force twin of :func:`mesh_distance`)."""
    out = np.empty((len(tri_a), len(tri_b)))
    for i in range(len(tri_a)):
        p0, p1, p2 = load(tri_a, i)
        for j in range(len(tri_b)):
            q0, q1, q2 = load(tri_b, j)
            d2, _, _ = tri_tri_distance(p0, p1, p2, q0, q1, q2)
            out[i, j] = d2
    return out
