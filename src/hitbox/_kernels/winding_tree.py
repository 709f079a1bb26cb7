"""Generalised winding numbers through a mesh's tree (Jacobson et al. 2013, section 3.3).

A node's triangles S have a boundary, the directed edges left over when the edges of
its triangles cancel in opposite pairs. A fan from the node box's centre c over those
edges, reversed, closes S; the closed surface lies in the box, so at a point outside
the box its winding number is 0, and S's equals the fan's over the edges:
w_S(p) = sum over boundary edges u -> v of the solid angle of (c, u, v) at p, over 4 pi.
This is an identity, not an approximation: the walk sums a node's fan when the point
lies outside its box and the fan has fewer triangles than the node, and descends
otherwise. A closed mesh's root has no boundary, so a point outside its box costs
nothing. Open meshes (where ray parity is undefined) are the case this is for.
"""

import numpy as np
from numba import njit, prange

_FOUR_PI = 4.0 * np.pi


@njit(cache=True, nogil=True)
def node_boundaries(node_first, node_count, slot_faces):
    """(start (M + 1,), edges (E, 2), under (M,)): node m's boundary edges, as vertex
    ids, are ``edges[start[m]:start[m + 1]]``, and ``under[m]`` triangles lie under it;
    ``slot_faces`` (F, 3) are the faces' vertex ids in slot order. Children (larger
    ids) are done before their parents."""
    n_nodes = len(node_first)
    own_start = np.zeros(n_nodes, np.intp)
    own_count = np.zeros(n_nodes, np.intp)
    under = np.zeros(n_nodes, np.intp)
    buf = np.empty((max(16, 4 * len(slot_faces)), 2), np.intp)
    used = 0
    for m in range(n_nodes - 1, -1, -1):
        f = node_first[m]
        c = node_count[m]
        under[m] = c if c > 0 else under[f] + under[f + 1]
        if c > 0:
            cand = np.empty((3 * c, 2), np.intp)
            for s in range(c):
                for e in range(3):
                    cand[3 * s + e, 0] = slot_faces[f + s, e]
                    cand[3 * s + e, 1] = slot_faces[f + s, (e + 1) % 3]
        else:
            na, nb = own_count[f], own_count[f + 1]
            cand = np.empty((na + nb, 2), np.intp)
            cand[:na] = buf[own_start[f] : own_start[f] + na]
            cand[na:] = buf[own_start[f + 1] : own_start[f + 1] + nb]
        kept = _cancel(cand)
        if used + len(kept) > len(buf):
            grown = np.empty((2 * (used + len(kept)), 2), np.intp)
            grown[:used] = buf[:used]
            buf = grown
        buf[used : used + len(kept)] = kept
        own_start[m] = used
        own_count[m] = len(kept)
        used += len(kept)
    start = np.zeros(n_nodes + 1, np.intp)
    for m in range(n_nodes):
        start[m + 1] = start[m] + own_count[m]
    edges = np.empty((start[n_nodes], 2), np.intp)
    for m in range(n_nodes):
        edges[start[m] : start[m + 1]] = buf[own_start[m] : own_start[m] + own_count[m]]
    return start, edges, under


@njit(cache=True, nogil=True)
def _cancel(cand):
    """The directed edges of ``cand`` left when u -> v and v -> u cancel pairwise."""
    n = len(cand)
    if n == 0:
        return cand
    big = max(cand.max() + 1, 1)
    key = np.empty(n, np.int64)
    for k in range(n):
        u, v = cand[k, 0], cand[k, 1]
        key[k] = min(u, v) * big + max(u, v)
    order = np.argsort(key, kind="mergesort")
    out = np.empty((n, 2), np.intp)
    o = 0
    k = 0
    while k < n:
        j = k
        net = 0  # forward (u < v) minus backward
        while j < n and key[order[j]] == key[order[k]]:
            e = order[j]
            net += 1 if cand[e, 0] < cand[e, 1] else -1
            j += 1
        lo, hi = cand[order[k], 0], cand[order[k], 1]
        if lo > hi:
            lo, hi = hi, lo
        for _ in range(abs(net)):
            if net > 0:
                out[o, 0], out[o, 1] = lo, hi
            else:
                out[o, 0], out[o, 1] = hi, lo
            o += 1
        k = j
    return out[:o]


@njit(inline="always")
def _solid_angle(ax, ay, az, bx, by, bz, cx, cy, cz):
    """Signed solid angle of the triangle (a, b, c), given relative to the point (Van
    Oosterom & Strackee 1983)."""
    la = np.sqrt(ax * ax + ay * ay + az * az)
    lb = np.sqrt(bx * bx + by * by + bz * bz)
    lc = np.sqrt(cx * cx + cy * cy + cz * cz)
    det = ax * (by * cz - bz * cy) - ay * (bx * cz - bz * cx) + az * (bx * cy - by * cx)
    div = (
        la * lb * lc
        + (ax * bx + ay * by + az * bz) * lc
        + (bx * cx + by * cy + bz * cz) * la
        + (cx * ax + cy * ay + cz * az) * lb
    )
    return 2.0 * np.arctan2(det, div)


@njit(cache=True, nogil=True)
def _winding_one(node_box, node_first, node_count, tris, start, edges, under, verts,
                 stack, px, py, pz):  # fmt: skip
    stack[0] = 0
    top = 1
    total = 0.0
    while top > 0:
        top -= 1
        m = stack[top]
        # the fan where it has fewer triangles than the node (none: a closed part)
        if start[m + 1] - start[m] < under[m] and _outside(node_box, m, px, py, pz):
            total += _fan_sum(node_box, m, start, edges, verts, px, py, pz)
        elif node_count[m] == 0:  # the children
            stack[top] = node_first[m]
            stack[top + 1] = node_first[m] + 1
            top += 2
        else:
            lo = node_first[m]
            total += _faces_sum(tris, lo, lo + node_count[m], px, py, pz)
    return total / _FOUR_PI


@njit(inline="always")
def _outside(node_box, m, px, py, pz):
    return (
        px < node_box[m, 0, 0] or px > node_box[m, 1, 0]
        or py < node_box[m, 0, 1] or py > node_box[m, 1, 1]
        or pz < node_box[m, 0, 2] or pz > node_box[m, 1, 2]
    )  # fmt: skip


@njit(inline="always")
def _fan_sum(node_box, m, start, edges, verts, px, py, pz):
    """Solid angles of node m's closing fan, from its box centre, at p."""
    qx = 0.5 * (node_box[m, 0, 0] + node_box[m, 1, 0]) - px
    qy = 0.5 * (node_box[m, 0, 1] + node_box[m, 1, 1]) - py
    qz = 0.5 * (node_box[m, 0, 2] + node_box[m, 1, 2]) - pz
    total = 0.0
    for e in range(start[m], start[m + 1]):
        u, v = edges[e, 0], edges[e, 1]
        total += _solid_angle(
            qx, qy, qz,
            verts[u, 0] - px, verts[u, 1] - py, verts[u, 2] - pz,
            verts[v, 0] - px, verts[v, 1] - py, verts[v, 2] - pz,
        )  # fmt: skip
    return total


@njit(inline="always")
def _faces_sum(tris, lo, hi, px, py, pz):
    """Solid angles of the triangles ``tris[lo:hi]`` at p."""
    total = 0.0
    for s in range(lo, hi):
        total += _solid_angle(
            tris[s, 0, 0] - px, tris[s, 0, 1] - py, tris[s, 0, 2] - pz,
            tris[s, 1, 0] - px, tris[s, 1, 1] - py, tris[s, 1, 2] - pz,
            tris[s, 2, 0] - px, tris[s, 2, 1] - py, tris[s, 2, 2] - pz,
        )  # fmt: skip
    return total


@njit(cache=True, nogil=True, parallel=True)
def winding_numbers_tree(node_box, node_first, node_count, tris, start, edges, under,
                         verts, depth, points, out):  # fmt: skip
    """Generalised winding number of the mesh at each of the (P, 3) ``points`` into
    ``out`` (P,), through the tree and the node boundaries of :func:`node_boundaries`
    (``verts`` the mesh's vertices, ``tris`` its slot triangles);
    equal to :func:`winding_numbers_brute` up to rounding."""
    n = len(points)
    lanes = 64
    for lane in prange(lanes):
        stack = np.empty(2 * depth + 4, np.intp)
        for q in range(lane, n, lanes):
            out[q] = _winding_one(
                node_box, node_first, node_count, tris, start, edges, under, verts,
                stack, points[q, 0], points[q, 1], points[q, 2],
            )  # fmt: skip


@njit(cache=True, nogil=True)
def winding_numbers_brute(tris, points, out):
    """:func:`winding_numbers_tree`'s twin: the solid angles of all (F, 3, 3) ``tris``
    summed at each point, O(F) a point."""
    for q in range(len(points)):
        px, py, pz = points[q, 0], points[q, 1], points[q, 2]
        out[q] = _faces_sum(tris, 0, len(tris), px, py, pz) / _FOUR_PI
