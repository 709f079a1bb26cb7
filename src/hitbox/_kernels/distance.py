"""Pieces of the mesh-distance walk (:mod:`hitbox._kernels.distance_wide`): a
node pair's lower bound, the walk's heap, the leaf test; and the brute-force twin.

Triangles: :mod:`hitbox._kernels.triangle_distance`, 0 exactly when a pair meets, so
``distance == 0`` exactly when the meshes touch.

Nodes: each tree's nodes as oriented boxes (an OBB tree's own boxes, any other kind's
exact AABBs with the identity frame). The gap along any unit axis bounds the distance of
two boxes from below; a pair's bound is the largest gap over the fifteen separating
axes, the line through the centres and the centre-sphere bounds, lowered by a relative
1e-12 for rounding (SPEC §8's walk, with distances instead of overlaps).
"""

import math

import numpy as np
from numba import njit

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
def _edge(num, cosine):
    """num / |sin|, the gap along the cross product of two unit edge directions at
    angle acos(cosine); 0 for (near) parallel edges, which give no axis."""
    sine2 = 1.0 - cosine * cosine
    val = num / math.sqrt(max(sine2, 1e-6))
    return val if sine2 >= 1e-6 else 0.0


@njit(inline="always")
def pair_gap(
    t0, t1, t2, r00, r01, r02, r10, r11, r12, r20, r21, r22,
    ha0, ha1, ha2, hb0, hb1, hb2, tsize,
):  # fmt: skip
    """A lower bound on the distance of box a (half extents ha) and box b (hb), b's
    centre at t and its axes' components r_kc along a's axes, in a's frame: the largest
    gap along the fifteen separating axes and the line through the centres, and from
    each box to the other's bounding sphere, lowered by REL_EPS of the magnitudes
    (``tsize``: the pose's |translation|_1). Without a branch, so that lanes of
    :mod:`hitbox._kernels.distance_wide` run side by side as vectors; in scalars, since a
    tuple indexed in a loop is spilled to memory at every read."""
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
def box_gap(ac, ah, ar, i, bc, bh, br, j, rot, trans):
    """:func:`pair_gap` of box a[i] and box b[j] moved by (rot, trans)."""
    cx, cy, cz = bc[j, 0], bc[j, 1], bc[j, 2]
    w0 = trans[0] + rot[0, 0] * cx + rot[0, 1] * cy + rot[0, 2] * cz - ac[i, 0]
    w1 = trans[1] + rot[1, 0] * cx + rot[1, 1] * cy + rot[1, 2] * cz - ac[i, 1]
    w2 = trans[2] + rot[2, 0] * cx + rot[2, 1] * cy + rot[2, 2] * cz - ac[i, 2]
    # r_kc: b's axis c along a's axis k
    r00, r10, r20 = _axis_in(ar, i, rot, br, j, 0)
    r01, r11, r21 = _axis_in(ar, i, rot, br, j, 1)
    r02, r12, r22 = _axis_in(ar, i, rot, br, j, 2)
    return pair_gap(
        ar[i, 0, 0] * w0 + ar[i, 1, 0] * w1 + ar[i, 2, 0] * w2,
        ar[i, 0, 1] * w0 + ar[i, 1, 1] * w1 + ar[i, 2, 1] * w2,
        ar[i, 0, 2] * w0 + ar[i, 1, 2] * w1 + ar[i, 2, 2] * w2,
        r00, r01, r02, r10, r11, r12, r20, r21, r22,
        ah[i, 0], ah[i, 1], ah[i, 2], bh[j, 0], bh[j, 1], bh[j, 2],
        abs(trans[0]) + abs(trans[1]) + abs(trans[2]),
    )  # fmt: skip


@njit(cache=True, nogil=True)
def node_pair_bounds(ac, ah, ar, ia, bc, bh, br, ib, rot, trans, out):
    """out[n] = the walk's lower bound on the distance of box a[ia[n]] and box b[ib[n]]
    moved by (rot, trans) (:func:`box_gap`): the bound's own test."""
    for n in range(len(ia)):
        out[n] = box_gap(ac, ah, ar, ia[n], bc, bh, br, ib[n], rot, trans)


@njit(inline="always")
def node_size(h, i):
    return h[i, 0] + h[i, 1] + h[i, 2]


@njit(inline="always")
def heap_push(lbs, keys, n, lb, key):
    """Push (lb, key) on the 4-ary min-heap of n entries (n < its length: the caller
    grows it, :func:`heap_room`); returns n + 1. (Returning the arrays, rebound at each
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
def pair_distances(tri_a, tri_b):
    """(A, B) squared distances of every triangle pair, by :func:`tri_tri_distance`
    (the brute-force twin of :func:`hitbox._kernels.distance_wide.mesh_distance_wide`)."""
    out = np.empty((len(tri_a), len(tri_b)))
    for i in range(len(tri_a)):
        p0, p1, p2 = load(tri_a, i)
        for j in range(len(tri_b)):
            q0, q1, q2 = load(tri_b, j)
            d2, _, _ = tri_tri_distance(p0, p1, p2, q0, q1, q2)
            out[i, j] = d2
    return out
