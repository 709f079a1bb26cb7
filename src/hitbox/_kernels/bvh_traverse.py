"""Volume queries against a BVH: one traversal for every node kind and query kind.

``bv.overlap`` is resolved at compile time from the argument types, so these kernels
compile once per (node kind, leaf kind, query kind) and stay in numba's disk cache.
Results are count-then-fill (STYLE §5): pass 1 counts per query, a prefix sum gives each
query its slice, pass 2 fills it; each query's primitives are then sorted.
"""

import numpy as np
from numba import njit

from hitbox._kernels.bv import count, overlap


@njit(inline="always")
def push_children(stack, top, f):
    """Push an inner node's children f + 1, then f (walked first); the new top."""
    stack[top] = f + 1
    stack[top + 1] = f
    return top + 2


@njit
def _visit(
    node_bv, node_first, node_count, slot_bv, prim_order, stack, queries, q, out, n
):
    """Depth-first walk for query q: prune on node volumes, test each slot's own volume in
    the leaves reached. Writes primitive indices into out[n:] when ``out`` has room (fill
    pass); returns the new count."""
    cap = len(out)
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        m = stack[top]
        if not overlap(node_bv, m, queries, q):
            continue
        f = node_first[m]
        c = node_count[m]
        if c > 0:
            for s in range(f, f + c):
                if overlap(slot_bv, s, queries, q):
                    if n < cap:
                        out[n] = prim_order[s]
                    n += 1
        else:
            top = push_children(stack, top, f)
    return n


@njit(cache=True, nogil=True)
def query_pairs(node_bv, node_first, node_count, slot_bv, prim_order, depth, queries):
    """All (query q, primitive p) with q overlapping ``slot_bv`` of p's slot and every
    node volume on the way down. Returns (2, n) intp, sorted by q then p.

    With ``node_bv`` the nodes' AABBs and ``slot_bv`` the primitives' AABBs this is
    exactly "q overlaps p's box". Any node kind may prune; then the answer is the
    primitives whose leaf the query reaches (the candidate set a tree-vs-tree descent
    sees).
    """
    n_q = count(queries)
    if len(node_first) == 0:
        return np.empty((2, 0), np.intp)
    offsets = np.zeros(n_q + 1, np.intp)
    stack = np.empty(depth + 2, np.intp)
    out = np.empty((2, 0), np.intp)
    for fill in range(2):  # pass 0 counts, pass 1 fills (one call site: one inlined copy)
        for q in range(n_q):
            a = offsets[q]
            b = offsets[q + 1] if fill else a
            row = out[1, a:b]
            n = _visit(
                node_bv,
                node_first,
                node_count,
                slot_bv,
                prim_order,
                stack,
                queries,
                q,
                row,
                0,
            )
            if fill:
                row.sort()
                out[0, a:b] = q
            else:
                offsets[q + 1] = n
        if not fill:
            for q in range(n_q):
                offsets[q + 1] += offsets[q]
            out = np.empty((2, offsets[n_q]), np.intp)
    return out


@njit(cache=True, nogil=True)
def query_pairs_brute(prim_bv, queries):
    """Twin of query_pairs: every (query, primitive) pair tested, count then fill."""
    n_q = count(queries)
    n_p = count(prim_bv)
    n = 0
    for q in range(n_q):
        for p in range(n_p):
            if overlap(prim_bv, p, queries, q):
                n += 1
    out = np.empty((2, n), np.intp)
    n = 0
    for q in range(n_q):
        for p in range(n_p):
            if overlap(prim_bv, p, queries, q):
                out[0, n] = q
                out[1, n] = p
                n += 1
    return out
