"""Where a triangle mesh meets itself: every pair of faces that share no vertex and
touch, by one walk of the mesh's tree against itself (a pair of nodes is visited once:
a node against itself splits into its children against themselves and each other).

Nodes are tested by their exact boxes (every tree kind keeps them), closed; leaves by the
exact triangle test. Faces that share a vertex index are neighbours and never reported.
"""

import numpy as np
from numba import njit

from hitbox._kernels.triangle_overlap import tri_tri_overlap
from hitbox._kernels.triangle_points import load


@njit(inline="always")
def _boxes_meet(box, m, k):
    return not (
        box[m, 1, 0] < box[k, 0, 0] or box[k, 1, 0] < box[m, 0, 0]
        or box[m, 1, 1] < box[k, 0, 1] or box[k, 1, 1] < box[m, 0, 1]
        or box[m, 1, 2] < box[k, 0, 2] or box[k, 1, 2] < box[m, 0, 2]
    )  # fmt: skip


@njit(inline="always")
def _neighbours(faces, fa, fb):
    for x in range(3):
        for y in range(3):
            if faces[fa, x] == faces[fb, y]:
                return True
    return False


@njit(inline="always")
def _push(stack_m, stack_k, top, m, k):
    stack_m[top] = m
    stack_k[top] = k
    return top + 1


@njit(cache=True, nogil=True)
def self_pairs(node_box, node_first, node_count, tris, order, faces, depth, first_only):
    """(2, n) faces (row 0 < row 1) of every pair that touches and shares no vertex,
    unsorted; with ``first_only`` at most one. ``tris`` in slot order, ``order`` the
    slot -> face map, ``faces`` (F, 3) vertex indices."""
    out = np.empty((2, 16), np.intp)
    n = 0
    if len(node_first) == 0:
        return out[:, :0]
    rows = 4 * depth + 8  # 2 left per level of self pairs, 1 per level of two trees
    stack_m = np.empty(rows, np.intp)
    stack_k = np.empty(rows, np.intp)
    top = _push(stack_m, stack_k, 0, 0, 0)
    while top > 0:
        top -= 1
        m = stack_m[top]
        k = stack_k[top]
        if m != k and not _boxes_meet(node_box, m, k):
            continue
        cm, ck = node_count[m], node_count[k]
        if cm > 0 and ck > 0:
            fm, fk = node_first[m], node_first[k]
            for s in range(fm, fm + cm):
                p0, p1, p2 = load(tris, s)
                for t in range(fk if m != k else s + 1, fk + ck):
                    fa, fb = order[s], order[t]
                    if _neighbours(faces, fa, fb):
                        continue
                    q0, q1, q2 = load(tris, t)
                    if not tri_tri_overlap(p0, p1, p2, q0, q1, q2):
                        continue
                    if n == out.shape[1]:
                        grown = np.empty((2, 2 * n), np.intp)
                        grown[:, :n] = out
                        out = grown
                    out[0, n] = min(fa, fb)
                    out[1, n] = max(fa, fb)
                    n += 1
                    if first_only:
                        return out[:, :n]
            continue
        if (
            m == k
        ):  # a node against itself: its children, against themselves and each other
            f = node_first[m]
            top = _push(stack_m, stack_k, top, f + 1, f + 1)
            top = _push(stack_m, stack_k, top, f, f + 1)
            top = _push(stack_m, stack_k, top, f, f)
            continue
        # the larger (or the inner) node splits
        size_m = (node_box[m, 1, 0] - node_box[m, 0, 0] + node_box[m, 1, 1]
                  - node_box[m, 0, 1] + node_box[m, 1, 2] - node_box[m, 0, 2])  # fmt: skip
        size_k = (node_box[k, 1, 0] - node_box[k, 0, 0] + node_box[k, 1, 1]
                  - node_box[k, 0, 1] + node_box[k, 1, 2] - node_box[k, 0, 2])  # fmt: skip
        if ck == 0 and (cm > 0 or size_k > size_m):
            f = node_first[k]
            top = _push(stack_m, stack_k, top, m, f + 1)
            top = _push(stack_m, stack_k, top, m, f)
        else:
            f = node_first[m]
            top = _push(stack_m, stack_k, top, f + 1, k)
            top = _push(stack_m, stack_k, top, f, k)
    return out[:, :n]


@njit(cache=True, nogil=True)
def self_pairs_brute(tris, faces):
    """Slow twin of :func:`self_pairs`: every face pair, in face order."""
    out = np.empty((2, 16), np.intp)
    n = 0
    for a in range(len(tris)):
        p0, p1, p2 = load(tris, a)
        for b in range(a + 1, len(tris)):
            if _neighbours(faces, a, b):
                continue
            q0, q1, q2 = load(tris, b)
            if tri_tri_overlap(p0, p1, p2, q0, q1, q2):
                if n == out.shape[1]:
                    grown = np.empty((2, 2 * n), np.intp)
                    grown[:, :n] = out
                    out = grown
                out[0, n] = a
                out[1, n] = b
                n += 1
    return out[:, :n]
