"""The last step's crossing triangle pair of two meshes, and its neighbours: the cheap
first try of a Scene step in mode ``any`` (temporal coherence; Lin & Canny's witness
idea, for triangle pairs).

Two meshes that touched a step ago usually still cross near where they crossed: the
curve where their surfaces meet moves a little each step. The witness pair is tested
first; when it no longer crosses, the pairs it makes with the triangles that share an
edge with either triangle are tested (at most 15 more). A pair found crossing proves
the meshes touch; finding none proves nothing, and the caller walks the trees.

When they do not, the crossing has usually moved a few triangles along: the subtrees
a few levels above the witness's two leaves are walked (:func:`local_walk`) before the
whole trees.

Slot neighbours come from :func:`slot_neighbours`, (S, 3) slots per tree, -1 where an
edge has no other face; parents and the leaf of each slot from :func:`tree_links`.
"""

import numpy as np
from numba import njit

from hitbox._kernels.collide import _descend, posed_bv, query_slack
from hitbox._kernels.triangle_overlap import tri_tri_overlap
from hitbox._kernels.triangle_points import load, load_xf


def slot_neighbours(faces, prim_order):
    """(S, 3) int64: for each slot (a leaf position of a tree, ``prim_order[s]`` its
    face) the slots of the faces sharing its edges (v0 v1, v1 v2, v2 v0), -1 for none.
    An edge of more than two faces links each to the next in sorted order (a hint only:
    the witness search is correct with any neighbours)."""
    faces = np.asarray(faces, dtype=np.int64)
    n = len(faces)
    out = np.full((n, 3), -1, np.int64)
    if n == 0:
        return out
    ends = np.stack([faces, np.roll(faces, -1, axis=1)], axis=2)  # (F, 3, 2) edges
    lo, hi = ends.min(axis=2).ravel(), ends.max(axis=2).ravel()
    half = np.arange(3 * n)  # half-edge h: face h // 3, edge h % 3
    order = np.lexsort((half, hi, lo))
    same = (lo[order][1:] == lo[order][:-1]) & (hi[order][1:] == hi[order][:-1])
    a, b = order[:-1][same], order[1:][same]
    flat = out.ravel()
    flat[a] = b // 3
    flat[b] = np.where(flat[b] < 0, a // 3, flat[b])
    slot_of = np.empty(n, np.int64)
    slot_of[prim_order] = np.arange(n)
    by_face = np.where(out >= 0, slot_of[np.maximum(out, 0)], -1)
    return np.ascontiguousarray(by_face[prim_order])


def tree_links(first, count):
    """(parent (M,), leaf (S,)) of a tree given as node_first and node_count (an inner
    node's children are first and first + 1): each node's parent (-1 at the root) and
    the leaf that holds each slot."""
    first = np.asarray(first, dtype=np.int64)
    count = np.asarray(count, dtype=np.int64)
    parent = np.full(len(first), -1, np.int64)
    inner = np.flatnonzero(count == 0)
    parent[first[inner]] = inner
    parent[first[inner] + 1] = inner
    leaves = np.flatnonzero(count > 0)
    leaf = np.repeat(leaves, count[leaves])
    slots = np.concatenate([np.arange(first[x], first[x] + count[x]) for x in leaves])
    out = np.empty(int(count.sum()), np.int64)
    out[slots] = leaf
    return parent, out


@njit(inline="always")
def _crosses(a_tris, sa, b_tris, sb, rot, trans):
    p0, p1, p2 = load(a_tris, sa)
    q0, q1, q2 = load_xf(b_tris, sb, rot, trans)
    return tri_tri_overlap(p0, p1, p2, q0, q1, q2)


@njit(cache=True, nogil=True)
def witness_search(a_tris, a_adj, b_tris, b_adj, rot, trans, wa, wb):
    """A crossing slot pair among (wa, wb) and its neighbours' pairs, B's triangles
    moved into A's frame by (rot, trans): (sa, sb), or (-1, -1) when none crosses.
    Tested in order: the witness, wa against wb's neighbours, wa's neighbours against
    wb, then neighbour against neighbour."""
    if _crosses(a_tris, wa, b_tris, wb, rot, trans):
        return wa, wb
    for e in range(3):
        nb = b_adj[wb, e]
        if nb >= 0 and _crosses(a_tris, wa, b_tris, nb, rot, trans):
            return wa, nb
    for e in range(3):
        na = a_adj[wa, e]
        if na >= 0 and _crosses(a_tris, na, b_tris, wb, rot, trans):
            return na, wb
    for e in range(3):
        na = a_adj[wa, e]
        if na < 0:
            continue
        for f in range(3):
            nb = b_adj[wb, f]
            if nb >= 0 and _crosses(a_tris, na, b_tris, nb, rot, trans):
                return na, nb
    return -1, -1


#: Levels above the witness's leaves where :func:`local_walk` starts.
LOCAL_LEVELS = 4


@njit(cache=True, nogil=True)
def local_walk(
    a0, a1, a2, a_first, a_count, a_tris, a_sbox, a_mag, a_parent, a_leaf,
    b0, b1, b2, b_first, b_count, b_tris, b_sbox, b_mag, b_parent, b_leaf,
    rot, trans, wa, wb, stack,
):  # fmt: skip
    """A crossing slot pair under the ancestors LOCAL_LEVELS above the leaves of slots
    wa (A) and wb (B), walked as the whole trees are (OBB trees, B moved into A's frame
    by rot, trans): (sa, sb), or (-1, -1)."""
    m = a_leaf[wa]
    k = b_leaf[wb]
    for _ in range(LOCAL_LEVELS):
        if a_parent[m] >= 0:
            m = a_parent[m]
        if b_parent[k] >= 0:
            k = b_parent[k]
    out = np.empty((2, 1), np.intp)
    out, n = _descend(
        posed_bv(a0, a1, a2, rot), a_first, a_count, a_tris, a_sbox,
        posed_bv(b0, b1, b2, rot), b_first, b_count, b_tris, b_sbox,
        rot, trans, query_slack(trans, a_mag, b_mag), stack, True, out, 0, m, k,
    )  # fmt: skip
    if n == 0:
        return -1, -1
    return out[0, 0], out[1, 0]
