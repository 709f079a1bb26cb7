"""Slab sets: AABBs and k-DOPs share one layout, (N, 2, S) with lo at [:, 0], hi at [:, 1].

Overlap is written once here, as max(lo) <= min(hi) per slab: closed (touching overlaps) and
false for the canonical empty box (+inf, -inf) even against an infinite box, where the
textbook ``a.lo <= b.hi and b.lo <= a.hi`` would say True.
"""

import numpy as np
from numba import njit

from hitbox._kernels.brute import pairs_where


@njit(inline="always")
def slab_overlap(a, i, b, j):
    """Closed overlap of slab set a[i] and b[j] over every slab."""
    for k in range(a.shape[2]):
        if max(a[i, 0, k], b[j, 0, k]) > min(a[i, 1, k], b[j, 1, k]):
            return False
    return True


@njit(cache=True, nogil=True)
def overlap(a, b, out, bad):
    """Elementwise overlap; a or b may hold a single set that is tested against all.

    Validation is fused into this one pass: NaN anywhere is reported in ``bad`` as
    (0 for a / 1 for b, item), so the public function can raise without a second read.
    Any lo > hi box is empty here without canonicalisation, since max(lo) <= min(hi)
    fails for it.
    """
    n = len(out)
    sa = 1 if len(a) > 1 else 0
    sb = 1 if len(b) > 1 else 0
    for i in range(n):
        ia = i * sa
        ib = i * sb
        hit = True
        nan = False
        for k in range(a.shape[2]):
            alo = a[ia, 0, k]
            ahi = a[ia, 1, k]
            blo = b[ib, 0, k]
            bhi = b[ib, 1, k]
            nan |= (alo != alo) | (ahi != ahi) | (blo != blo) | (bhi != bhi)
            hit &= max(alo, blo) <= min(ahi, bhi)
        if nan:
            for k in range(a.shape[2]):
                if a[ia, 0, k] != a[ia, 0, k] or a[ia, 1, k] != a[ia, 1, k]:
                    bad[0] = 0
                    bad[1] = ia
                    return
            bad[0] = 1
            bad[1] = ib
            return
        out[i] = hit


@njit
def _sweep(a, b, order_a, order_b, axis, flip, out, n):
    """Pairs whose first-starting member is in a: a.lo <= b.lo <= a.hi on ``axis``.

    With ``flip`` the roles swap and b must start strictly first, so a pair is found once.
    Writes (i of the caller's first set, j of its second) into out[:, n:] when out is big
    enough (fill pass); always returns the new count.
    """
    p = 0
    nb = len(order_b)
    cap = out.shape[1]
    for ii in range(len(order_a)):
        i = order_a[ii]
        lo = a[i, 0, axis]
        hi = a[i, 1, axis]
        if lo > hi:
            continue  # empty: overlaps nothing, and sorted last anyway
        if flip:
            while p < nb and b[order_b[p], 0, axis] <= lo:
                p += 1
        else:
            while p < nb and b[order_b[p], 0, axis] < lo:
                p += 1
        q = p
        while q < nb and b[order_b[q], 0, axis] <= hi:
            j = order_b[q]
            if slab_overlap(a, i, b, j):
                if n < cap:
                    if flip:
                        out[0, n] = j
                        out[1, n] = i
                    else:
                        out[0, n] = i
                        out[1, n] = j
                n += 1
            q += 1
    return n


@njit(cache=True, nogil=True)
def overlap_pairs(a, b, order_a, order_b, axis):
    """Every (i, j) with a[i] overlapping b[j], by sort-and-sweep on ``axis``.

    ``order_a``/``order_b`` sort each set by lo on ``axis``. Count, then fill: the same
    sweep runs twice, the second time into an array of exactly the right size.
    """
    none = np.empty((2, 0), np.intp)
    n = _sweep(a, b, order_a, order_b, axis, False, none, 0)
    n = _sweep(b, a, order_b, order_a, axis, True, none, n)
    out = np.empty((2, n), np.intp)
    m = _sweep(a, b, order_a, order_b, axis, False, out, 0)
    _sweep(b, a, order_b, order_a, axis, True, out, m)
    return out


# every pair i, j with a[i] overlapping b[j] (brute.pairs_where); jitted, not cached
slab_pairs = pairs_where(slab_overlap)


@njit(cache=True, nogil=True)
def overlap_pairs_brute(a, b):
    """Twin of overlap_pairs: every pair tested, count then fill, no sorting."""
    return slab_pairs(a, b, False)


@njit(cache=True, nogil=True)
def implicit_tree(boxes, order, leaf):
    """A complete binary tree over ``boxes`` taken in ``order`` (a Morton order), heap laid out.

    Node m has children 2m+1 and 2m+2; the P leaves sit at P-1 .. 2P-2 and leaf l holds
    slots [l*leaf, (l+1)*leaf) of ``order``. Padding leaves are empty boxes. This is the
    linear BVH idea (Lauterbach et al. 2009) with a fixed shape, enough for a one-off
    all-pairs query where building a SAH tree would cost more than it saves.
    """
    n = len(order)
    n_leaves = max((n + leaf - 1) // leaf, 1)
    p = 1
    while p < n_leaves:
        p *= 2
    s = boxes.shape[2]
    nodes = np.empty((2 * p - 1, 2, s))
    nodes[:, 0, :] = np.inf
    nodes[:, 1, :] = -np.inf
    for slot in range(n):
        m = p - 1 + slot // leaf
        j = order[slot]
        for k in range(s):
            nodes[m, 0, k] = min(nodes[m, 0, k], boxes[j, 0, k])
            nodes[m, 1, k] = max(nodes[m, 1, k], boxes[j, 1, k])
    for m in range(p - 2, -1, -1):
        for k in range(s):
            nodes[m, 0, k] = min(nodes[2 * m + 1, 0, k], nodes[2 * m + 2, 0, k])
            nodes[m, 1, k] = max(nodes[2 * m + 1, 1, k], nodes[2 * m + 2, 1, k])
    return nodes, p


@njit(inline="always")
def _tree_visit(nodes, p, leaf, order, b, a, i, stack, out, n, base):
    """Pairs of query a[i] with the tree's boxes; writes at out[:, base + n] if filling."""
    top = 1
    stack[0] = 0
    nb = len(order)
    cap = out.shape[1]
    while top > 0:
        top -= 1
        m = stack[top]
        if not slab_overlap(nodes, m, a, i):
            continue
        if m >= p - 1:
            first = (m - (p - 1)) * leaf
            for slot in range(first, min(first + leaf, nb)):
                j = order[slot]
                if slab_overlap(b, j, a, i):
                    if base + n < cap:
                        out[0, base + n] = i
                        out[1, base + n] = j
                    n += 1
        else:
            stack[top] = 2 * m + 2
            stack[top + 1] = 2 * m + 1
            top += 2
    return n


@njit(cache=True, nogil=True)
def tree_pairs(a, b, order_a, order_b, leaf):
    """Every (i, j) with a[i] overlapping b[j]: an implicit tree over b, queried by each a.

    Queries run in ``order_a`` (a Morton order too: neighbours visit the same nodes, which
    halves the time on large sets through the cache). Count, then fill: pass 1 counts per
    query, a cumulative sum gives each query's slice, pass 2 writes it; rows come out
    grouped by i in increasing order.
    """
    nodes, p = implicit_tree(b, order_b, leaf)
    depth = 1
    while (1 << (depth - 1)) < p:
        depth += 1
    stack = np.empty(depth + 2, np.intp)
    counts = np.zeros(len(a) + 1, np.intp)
    none = np.empty((2, 0), np.intp)
    for i in order_a:
        counts[i + 1] = _tree_visit(nodes, p, leaf, order_b, b, a, i, stack, none, 0, 0)
    for i in range(len(a)):
        counts[i + 1] += counts[i]
    out = np.empty((2, counts[len(a)]), np.intp)
    for i in order_a:
        _tree_visit(nodes, p, leaf, order_b, b, a, i, stack, out, 0, counts[i])
    return out


@njit(cache=True, nogil=True)
def morton_order(boxes):
    """Slots sorted by the 30-bit Morton code of box centres (empty and infinite last)."""
    n = len(boxes)
    s = boxes.shape[2]
    dims = min(s, 3)
    lo = np.full(dims, np.inf)
    hi = np.full(dims, -np.inf)
    finite = np.zeros(n, np.bool_)
    for j in range(n):
        ok = True
        for k in range(dims):
            c = 0.5 * (boxes[j, 0, k] + boxes[j, 1, k])
            if not (abs(c) < np.inf) or boxes[j, 0, k] > boxes[j, 1, k]:
                ok = False
        finite[j] = ok
        if ok:
            for k in range(dims):
                c = 0.5 * (boxes[j, 0, k] + boxes[j, 1, k])
                lo[k] = min(lo[k], c)
                hi[k] = max(hi[k], c)
    codes = np.empty(n, np.int64)
    bits = 30 // dims
    top = (1 << bits) - 1
    for j in range(n):
        if not finite[j]:
            codes[j] = np.int64(1) << 62
            continue
        code = np.int64(0)
        for k in range(dims):
            extent = hi[k] - lo[k]
            c = 0.5 * (boxes[j, 0, k] + boxes[j, 1, k])
            q = 0 if extent <= 0 else int((c - lo[k]) / extent * top)
            q = min(max(q, 0), top)
            for bit in range(bits):
                if q & (1 << bit):
                    code |= np.int64(1) << (bit * dims + k)
        codes[j] = code
    return np.argsort(codes, kind="mergesort")
