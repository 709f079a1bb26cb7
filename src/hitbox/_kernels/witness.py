"""The last step's crossing triangle pair of two meshes, and its neighbours: the cheap
first try of a Scene step in mode ``any`` (temporal coherence; Lin & Canny's witness
idea, for triangle pairs).

Two meshes that touched a step ago usually still cross near where they crossed: the
curve where their surfaces meet moves a little each step, on seed 003's tori about one
and a half triangle widths. The search follows the crossing: the witness's two
triangles' planes, as they lie now, meet in a line near where the crossing has gone,
and each mesh walks across its edges from the witness's triangle toward that line's
point nearest the pair (a few hops). The pair reached is tested first (it usually
crosses where the witness no longer does), then the witness, then the pairs the
reached one makes with its edge neighbours; when none crosses, once more from the pair
reached (at most 33 tests in all). A pair found crossing proves the meshes touch;
finding none proves nothing, and the caller walks the trees. On the tori's 88
touching steps the prediction left 4 steps to the walks where the witness's own
neighbours left 29 (benchmarks/README.md).

When none crosses, the trees are walked from the root toward the searched pair's two
leaves (:func:`witness_path`, :func:`hitbox._kernels.front.front_walk`): that leaf pair
first, then the subtrees around it, nearest first, in the one walk that also proves the
meshes apart when they have parted (a walk of the subtrees a few levels up before the
whole trees walked those subtrees twice in that case; benchmarks/README.md).

Slot neighbours come from :func:`slot_neighbours`, (S, 3) slots per tree, -1 where an
edge has no other face; parents and the leaf of each slot from :func:`tree_links`.
"""

import math

import numpy as np
from numba import njit

from hitbox._kernels.triangle_overlap import tri_tri_overlap
from hitbox._kernels.triangle_points import _cross, _dot, _sub, load, load_xf


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


#: Edge crossings each mesh may take toward the predicted crossing (on seed 003's tori
#: most take none to two).
WALK_HOPS = 6


@njit(inline="always")
def toward(tris, adj, s, p, rot, trans, moved):
    """The slot reached from slot ``s`` by crossing, while ``p`` (projected onto the
    triangle's plane) lies outside it, the edge it lies farthest beyond (at most
    WALK_HOPS times; a border edge ends the walk). With ``moved``, the triangles are
    taken moved by (rot, trans)."""
    for _ in range(WALK_HOPS):
        if moved:
            v0, v1, v2 = load_xf(tris, s, rot, trans)
        else:
            v0, v1, v2 = load(tris, s)
        n = _cross(_sub(v1, v0), _sub(v2, v0))
        # each vertex's barycentric weight of p, unnormalised: its opposite edge's side
        l0 = _dot(_cross(_sub(v2, v1), _sub(p, v1)), n)
        l1 = _dot(_cross(_sub(v0, v2), _sub(p, v2)), n)
        l2 = _dot(_cross(_sub(v1, v0), _sub(p, v0)), n)
        # adj's edges are (v0 v1, v1 v2, v2 v0): vertex 0 faces edge 1, 1 edge 2, 2 edge 0
        if l0 <= l1 and l0 <= l2:
            low, e = l0, 1
        elif l1 <= l2:
            low, e = l1, 2
        else:
            low, e = l2, 0
        if not low < 0.0 or adj[s, e] < 0:  # inside (or NaN), or at a border
            return s
        s = adj[s, e]
    return s


@njit(inline="always")
def predicted(a_tris, a_adj, b_tris, b_adj, rot, trans, wa, wb):
    """Where the crossing of slots (wa, wb) has moved to: the point nearest the two
    triangles' centroid on the line where their planes meet now, and the slots A and B
    reach walking toward it (:func:`toward`); (wa, wb) when the planes are (nearly)
    parallel or a triangle has no plane."""
    p0, p1, p2 = load(a_tris, wa)
    q0, q1, q2 = load_xf(b_tris, wb, rot, trans)
    na = _cross(_sub(p1, p0), _sub(p2, p0))
    nb = _cross(_sub(q1, q0), _sub(q2, q0))
    la = math.sqrt(_dot(na, na))
    lb = math.sqrt(_dot(nb, nb))
    if not (la > 0.0 and lb > 0.0 and la < np.inf and lb < np.inf):
        return wa, wb
    na = (na[0] / la, na[1] / la, na[2] / la)
    nb = (nb[0] / lb, nb[1] / lb, nb[2] / lb)
    k = _dot(na, nb)
    det = 1.0 - k * k
    if not det > PARALLEL:
        return wa, wb
    x = (
        (p0[0] + p1[0] + p2[0] + q0[0] + q1[0] + q2[0]) / 6.0,
        (p0[1] + p1[1] + p2[1] + q0[1] + q1[1] + q2[1]) / 6.0,
        (p0[2] + p1[2] + p2[2] + q0[2] + q1[2] + q2[2]) / 6.0,
    )
    # x + alpha na + beta nb on both planes: a 2 x 2 system with unit diagonal
    ra = _dot(na, _sub(p0, x))
    rb = _dot(nb, _sub(q0, x))
    alpha = (ra - k * rb) / det
    beta = (rb - k * ra) / det
    p = (
        x[0] + alpha * na[0] + beta * nb[0],
        x[1] + alpha * na[1] + beta * nb[1],
        x[2] + alpha * na[2] + beta * nb[2],
    )
    return (
        toward(a_tris, a_adj, wa, p, rot, trans, False),
        toward(b_tris, b_adj, wb, p, rot, trans, True),
    )


#: 1 - cos^2 of the planes' angle below which the prediction is not tried (the line
#: where they meet runs off to infinity).
PARALLEL = 1e-6


@njit(cache=True, nogil=True, _nrt=False)
def witness_search(a_tris, a_adj, b_tris, b_adj, rot, trans, wa, wb):
    """A crossing slot pair near the last step's witness (wa, wb), B's triangles moved
    into A's frame by (rot, trans): (sa, sb, ca, cb), (sa, sb) = (-1, -1) when none
    crosses, (ca, cb) the pair the search centred on last (where a walk of the trees
    heads first: :func:`witness_path`).

    Tested in order: the pair the witness's crossing has moved to (:func:`predicted`);
    the witness; that pair's ring (:func:`_ring_crossing`). When none crosses, the
    crossing has moved past the ring: predicted again from the pair reached, that pair
    and its ring are tested once more."""
    # the predicted pair first: on seed 003's tori it crosses where the witness no
    # longer does at 59 % of the searches (the witness itself at 34 %), on 60 spinning
    # tori at 74 % (11 %)
    ca, cb = predicted(a_tris, a_adj, b_tris, b_adj, rot, trans, wa, wb)
    if _crosses(a_tris, ca, b_tris, cb, rot, trans):
        return ca, cb, ca, cb
    if (ca != wa or cb != wb) and _crosses(a_tris, wa, b_tris, wb, rot, trans):
        return wa, wb, wa, wb
    sa, sb = _ring_crossing(a_tris, a_adj, b_tris, b_adj, rot, trans, ca, cb)
    if sa >= 0:
        return sa, sb, ca, cb
    # a second round from the pair reached: on the failures of the first round, it
    # found a crossing at 16 of 21 (60 spinning tori) and 4 of 5 (seed 003's tori)
    da, db = predicted(a_tris, a_adj, b_tris, b_adj, rot, trans, ca, cb)
    if da == ca and db == cb:
        return -1, -1, ca, cb
    if _crosses(a_tris, da, b_tris, db, rot, trans):
        return da, db, da, db
    sa, sb = _ring_crossing(a_tris, a_adj, b_tris, b_adj, rot, trans, da, db)
    return sa, sb, da, db


@njit(inline="always")
def _ring_crossing(a_tris, a_adj, b_tris, b_adj, rot, trans, ca, cb):
    """A crossing pair among (ca, cb)'s ring: ca against cb's edge neighbours, ca's
    neighbours against cb, then neighbour against neighbour (15 pairs); (-1, -1) for
    none."""
    for e in range(3):
        nb = b_adj[cb, e]
        if nb >= 0 and _crosses(a_tris, ca, b_tris, nb, rot, trans):
            return ca, nb
    for e in range(3):
        na = a_adj[ca, e]
        if na >= 0 and _crosses(a_tris, na, b_tris, cb, rot, trans):
            return na, cb
    for e in range(3):
        na = a_adj[ca, e]
        if na < 0:
            continue
        for f in range(3):
            nb = b_adj[cb, f]
            if nb >= 0 and _crosses(a_tris, na, b_tris, nb, rot, trans):
                return na, nb
    return -1, -1


@njit(inline="always")
def witness_path(parent, leaf, slot):
    """The nodes from the root (node 0) down to the leaf holding ``slot``, given each
    node's parent (-1 at the root) and each slot's leaf (:func:`tree_links`)."""
    depth = 0
    m = leaf[slot]
    while parent[m] >= 0:
        m = parent[m]
        depth += 1
    path = np.empty(depth + 1, np.int64)
    m = leaf[slot]
    for d in range(depth, -1, -1):
        path[d] = m
        m = parent[m]
    return path
