"""BVH topology: which primitives go under which node (SPEC §8).

Every builder sees only the primitives' boxes ``(N, 2, 3)`` and centres ``(N, 3)``
(madmann91 ``DefaultBuilder::build(bboxes, centers)``) and returns the flat layout of
STYLE §2: ``node_first`` / ``node_count`` (M,), ``order`` (N,) slot -> primitive,
``depth``. Root is node 0; children are allocated as adjacent pairs after their parent;
every node covers a contiguous run of slots, the left child's run before the right one's.

A node becomes a leaf when it holds at most ``leaf_size`` primitives or sits at
``max_depth``; every builder follows that one rule.
"""

import numpy as np
from numba import njit

# -- shared helpers ----------------------------------------------------------------------


@njit(cache=True, nogil=True)
def primitive_bounds(points, boxes, centres):
    """Box and centre (mean of the points) of each point group; K = 0 gives the empty box
    and centre 0."""
    framed_bounds(points, 0, len(points), np.eye(3), boxes, centres)


@njit
def framed_bounds(pts, lo, hi, frame, box, cen):
    """Box and centre (mean of its points) of each point group of slots [lo, hi) in
    ``frame``'s coordinates (its columns); K = 0 gives the empty box and centre 0."""
    n_pts = pts.shape[1]
    # the frame in scalars: stores into box and cen may alias it, so it was read again
    # for every slot
    f00, f10, f20 = frame[0, 0], frame[1, 0], frame[2, 0]
    f01, f11, f21 = frame[0, 1], frame[1, 1], frame[2, 1]
    f02, f12, f22 = frame[0, 2], frame[1, 2], frame[2, 2]
    for s in range(lo, hi):
        lo0 = lo1 = lo2 = np.inf
        hi0 = hi1 = hi2 = -np.inf
        sum0 = sum1 = sum2 = 0.0
        for q in range(n_pts):
            x, y, z = pts[s, q, 0], pts[s, q, 1], pts[s, q, 2]
            u = x * f00 + y * f10 + z * f20
            lo0, hi0, sum0 = min(lo0, u), max(hi0, u), sum0 + u
            u = x * f01 + y * f11 + z * f21
            lo1, hi1, sum1 = min(lo1, u), max(hi1, u), sum1 + u
            u = x * f02 + y * f12 + z * f22
            lo2, hi2, sum2 = min(lo2, u), max(hi2, u), sum2 + u
        box[s, 0, 0], box[s, 0, 1], box[s, 0, 2] = lo0, lo1, lo2
        box[s, 1, 0], box[s, 1, 1], box[s, 1, 2] = hi0, hi1, hi2
        if n_pts > 0:
            cen[s, 0], cen[s, 1], cen[s, 2] = sum0 / n_pts, sum1 / n_pts, sum2 / n_pts
        else:
            cen[s, 0] = cen[s, 1] = cen[s, 2] = 0.0


@njit
def _half_area(lo0, lo1, lo2, hi0, hi1, hi2):
    """Half the surface area of a box; 0 for the empty box."""
    dx = hi0 - lo0
    dy = hi1 - lo1
    dz = hi2 - lo2
    if dx < 0.0 or dy < 0.0 or dz < 0.0:
        return 0.0
    return dx * dy + dy * dz + dz * dx


@njit
def _range_bounds(boxes, centres, order, lo, hi, nb, cb):
    """Box of the primitives in slots [lo, hi) into nb (2, 3), their centres' box into
    cb."""
    for k in range(3):
        nb[0, k] = np.inf
        nb[1, k] = -np.inf
        cb[0, k] = np.inf
        cb[1, k] = -np.inf
    for s in range(lo, hi):
        p = order[s]
        for k in range(3):
            nb[0, k] = min(nb[0, k], boxes[p, 0, k])
            nb[1, k] = max(nb[1, k], boxes[p, 1, k])
            cb[0, k] = min(cb[0, k], centres[p, k])
            cb[1, k] = max(cb[1, k], centres[p, k])


@njit
def _nth_element(centres, order, lo, hi, nth, axis):
    """Reorder slots [lo, hi) so slot ``nth`` holds the centre it would hold sorted along
    ``axis``, smaller ones before it and larger after. Quickselect with a three-way
    partition (Dijkstra), so runs of equal keys cost O(n), not O(n^2)."""
    while hi - lo > 1:
        a = centres[order[lo], axis]
        b = centres[order[(lo + hi) // 2], axis]
        c = centres[order[hi - 1], axis]
        pivot = max(min(a, b), min(max(a, b), c))  # median of three
        lt = lo
        gt = hi - 1
        s = lo
        while s <= gt:
            x = centres[order[s], axis]
            if x < pivot:
                order[lt], order[s] = order[s], order[lt]
                lt += 1
                s += 1
            elif x > pivot:
                order[gt], order[s] = order[s], order[gt]
                gt -= 1
            else:
                s += 1
        if nth < lt:
            hi = lt
        elif nth > gt:
            lo = gt + 1
        else:
            return


@njit
def _median_split(centres, order, lo, hi, cb):
    """Object-count split: half the primitives on each side, along the centres' widest
    axis."""
    axis = 0
    for k in range(1, 3):
        if cb[1, k] - cb[0, k] > cb[1, axis] - cb[0, axis]:
            axis = k
    mid = lo + (hi - lo) // 2
    if cb[1, axis] > cb[0, axis]:
        _nth_element(centres, order, lo, hi, mid, axis)
    return mid


@njit
def _partition_plane(centres, order, lo, hi, axis, plane):
    """Move slots whose centre lies below ``plane`` on ``axis`` first; return the
    boundary."""
    i = lo
    j = hi - 1
    while i <= j:
        if centres[order[i], axis] < plane:
            i += 1
        else:
            order[i], order[j] = order[j], order[i]
            j -= 1
    return i


# -- split rules -------------------------------------------------------------------------


@njit
def _split_middle(centres, order, lo, hi, nb, cb):
    """The seed's rule (SPEC §8, seeds 000/003): cut the node box's longest axis at its
    middle and assign each primitive by its centre; if one side stays empty, try the
    second-longest axis; then fall back to a median split."""
    e0 = max(nb[1, 0] - nb[0, 0], 0.0)
    e1 = max(nb[1, 1] - nb[0, 1], 0.0)
    e2 = max(nb[1, 2] - nb[0, 2], 0.0)
    first = 0
    if e1 > e0 and e1 >= e2:
        first = 1
    elif e2 > e0 and e2 > e1:
        first = 2
    ext = (e0, e1, e2)
    second = -1
    for k in range(3):
        if k != first and (second < 0 or ext[k] > ext[second]):
            second = k
    for attempt in range(2):
        axis = first if attempt == 0 else second
        if ext[axis] <= 0.0:
            continue
        mid = _partition_plane(
            centres, order, lo, hi, axis, 0.5 * (nb[0, axis] + nb[1, axis])
        )
        if lo < mid < hi:
            return mid
    return _median_split(centres, order, lo, hi, cb)


# -- open nodes: the top-down builders' explicit stack -----------------------------------


@njit
def push_open(stack, top, m, lo, hi, d):
    """Push node m, over slots [lo, hi) at depth d, onto the (rows, 4) stack of nodes
    still to place; the new top."""
    stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = m, lo, hi, d
    return top + 1


@njit
def next_to_split(stack, top, node_first, node_count, leaf_size, max_depth, depth):
    """Pop open nodes, making a leaf of each that the leaf rule takes, until one to
    split: (top, m, lo, hi, d, depth), top -1 once none is left; ``depth``: the deepest
    leaf so far."""
    while top > 0:
        top -= 1
        m, lo, hi, d = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
        if hi - lo > leaf_size and d < max_depth:
            return top, m, lo, hi, d, depth
        node_first[m] = lo
        node_count[m] = hi - lo
        depth = max(depth, d)
    return -1, 0, 0, 0, 0, depth


@njit
def split_open(stack, top, node_first, node_count, m, left, lo, mid, hi, d):
    """Make node m inner, with children left and left + 1 over slots [lo, mid) and
    [mid, hi), and push them, the left one on top; the new top."""
    node_first[m] = left
    node_count[m] = 0
    top = push_open(stack, top, left + 1, mid, hi, d + 1)
    return push_open(stack, top, left, lo, mid, d + 1)


# -- the seed's top-down builder ---------------------------------------------------------


@njit(cache=True, nogil=True)
def build_median(boxes, centres, leaf_size, max_depth):
    """Top-down build by the seed's middle split, with an explicit stack (no recursion).

    Returns (node_first (M,), node_count (M,), order (N,), depth).
    """
    n = len(boxes)
    order = np.arange(n)
    m_max = 2 * n - 1 if n > 0 else 0
    node_first = np.empty(m_max, np.intp)
    node_count = np.empty(m_max, np.intp)
    if n == 0:
        return node_first, node_count, order, 0
    stack = np.empty((min(max_depth, n) + 2, 4), np.intp)
    nb = np.empty((2, 3))
    cb = np.empty((2, 3))
    top = push_open(stack, 0, 0, 0, n, 0)
    n_nodes = 1
    depth = 0
    while True:
        top, m, lo, hi, d, depth = next_to_split(
            stack, top, node_first, node_count, leaf_size, max_depth, depth
        )
        if top < 0:
            break
        _range_bounds(boxes, centres, order, lo, hi, nb, cb)
        mid = _split_middle(centres, order, lo, hi, nb, cb)
        top = split_open(stack, top, node_first, node_count, m, n_nodes, lo, mid, hi, d)
        n_nodes += 2
    return node_first[:n_nodes].copy(), node_count[:n_nodes].copy(), order, depth


# -- bottom-up builder -------------------------------------------------------------------


@njit
def _spread_bits(x):
    """21 low bits of x spaced three apart (Morton code helper)."""
    x &= 0x1FFFFF
    x = (x | (x << 32)) & 0x1F00000000FFFF
    x = (x | (x << 16)) & 0x1F0000FF0000FF
    x = (x | (x << 8)) & 0x100F00F00F00F00F
    x = (x | (x << 4)) & 0x10C30C30C30C30C3
    x = (x | (x << 2)) & 0x1249249249249249
    return x


@njit(cache=True, nogil=True)
def morton_order(centres):
    """Primitives sorted by the 63-bit Morton code of their centres (Lauterbach et al.
    2009)."""
    n = len(centres)
    lo = np.empty(3)
    ext = np.empty(3)
    for k in range(3):
        a = np.inf
        b = -np.inf
        for p in range(n):
            a = min(a, centres[p, k])
            b = max(b, centres[p, k])
        lo[k] = a
        ext[k] = b - a
    codes = np.empty(n, np.int64)
    top = float((1 << 21) - 1)
    for p in range(n):
        code = 0
        for k in range(3):
            q = 0
            if ext[k] > 0.0:
                q = int(min(max((centres[p, k] - lo[k]) / ext[k], 0.0), 1.0) * top)
            code |= _spread_bits(q) << (2 - k)
        codes[p] = code
    return np.argsort(codes, kind="mergesort")


@njit
def _pair_better(d, gap, low, bd, bgap, blow):
    """Total order on candidate pairs: area, then index gap, then an even lower index (so
    that equal candidates pair off as (0,1), (2,3), ... and all merge at once), then
    index."""
    if d != bd:
        return d < bd
    if gap != bgap:
        return gap < bgap
    if (low & 1) != (blow & 1):
        return (low & 1) < (blow & 1)
    return low < blow


@njit(cache=True, nogil=True)
def build_ploc(boxes, centres, radius):
    """Bottom-up agglomerative build, From Meister & Bittner 2018 ("Parallel
    Locally-Ordered Clustering for bounding volume hierarchy construction"), run serially.

    Clusters start as single primitives in Morton order. Each round, every cluster finds
    its nearest neighbour among the ``radius`` clusters on either side (distance: surface
    area of the merged box); mutual nearest neighbours merge, keeping Morton order. With
    the total order of ``_pair_better`` the globally closest pair is always mutual, so
    each round merges at least one pair; in practice a constant fraction, so the build is
    O(N log N) for the sort plus O(N * radius) per round over O(log N) rounds.

    Returns (left (N-1,), right (N-1,), root): ids < N are primitives; inner node ``n +
    k`` has children ``left[k]``, ``right[k]`` (both made before it).
    """
    n = len(boxes)
    n_inner = max(n - 1, 0)
    left = np.empty(n_inner, np.intp)
    right = np.empty(n_inner, np.intp)
    if n == 0:
        return left, right, -1
    ids = morton_order(centres)
    cbox = np.empty((n, 2, 3))
    for c in range(n):
        for s in range(2):
            for k in range(3):
                cbox[c, s, k] = boxes[ids[c], s, k]
    best_d = np.empty(n)
    best_gap = np.empty(n, np.intp)
    best_low = np.empty(n, np.intp)
    nn = np.empty(n, np.intp)
    n_clusters = n
    next_id = n
    while n_clusters > 1:
        for c in range(n_clusters):
            best_d[c] = np.inf
            best_gap[c] = n + 1
            best_low[c] = n + 1
            nn[c] = -1
        for c in range(n_clusters):
            for e in range(c + 1, min(c + radius + 1, n_clusters)):
                d = _half_area(
                    min(cbox[c, 0, 0], cbox[e, 0, 0]),
                    min(cbox[c, 0, 1], cbox[e, 0, 1]),
                    min(cbox[c, 0, 2], cbox[e, 0, 2]),
                    max(cbox[c, 1, 0], cbox[e, 1, 0]),
                    max(cbox[c, 1, 1], cbox[e, 1, 1]),
                    max(cbox[c, 1, 2], cbox[e, 1, 2]),
                )
                gap = e - c
                if _pair_better(d, gap, c, best_d[c], best_gap[c], best_low[c]):
                    best_d[c], best_gap[c], best_low[c], nn[c] = d, gap, c, e
                if _pair_better(d, gap, c, best_d[e], best_gap[e], best_low[e]):
                    best_d[e], best_gap[e], best_low[e], nn[e] = d, gap, c, c
        # merge mutual pairs into the lower slot, then compact in order
        w = 0
        for c in range(n_clusters):
            e = nn[c]
            if e > c and nn[e] == c:
                k = next_id - n
                left[k] = ids[c]
                right[k] = ids[e]
                ids[c] = next_id
                next_id += 1
                for s in range(3):
                    cbox[c, 0, s] = min(cbox[c, 0, s], cbox[e, 0, s])
                    cbox[c, 1, s] = max(cbox[c, 1, s], cbox[e, 1, s])
                nn[e] = -2  # merged away
        for c in range(n_clusters):
            if nn[c] == -2:
                continue
            ids[w] = ids[c]
            for s in range(2):
                for k in range(3):
                    cbox[w, s, k] = cbox[c, s, k]
            w += 1
        n_clusters = w
    return left, right, ids[0]


@njit(cache=True, nogil=True)
def flatten_binary(left, right, root, n, leaf_size, max_depth):
    """Lay a binary tree over ids (primitives < n, inner node n + k with children
    left[k], right[k]) out flat: children pairs after parents, contiguous slot runs.
    Subtrees with at most ``leaf_size`` primitives, or at ``max_depth``, become leaves.

    Returns (node_first (M,), node_count (M,), order (N,), depth).
    """
    m_max = 2 * n - 1 if n > 0 else 0
    node_first = np.empty(m_max, np.intp)
    node_count = np.empty(m_max, np.intp)
    order = np.empty(n, np.intp)
    if n == 0:
        return node_first, node_count, order, 0
    size = np.ones(n + len(left), np.intp)
    for k in range(len(left)):  # children are made before parents
        size[n + k] = size[left[k]] + size[right[k]]
    cap = min(max_depth, n) + 2
    st_old = np.empty(cap, np.intp)
    st_new = np.empty(cap, np.intp)
    st_depth = np.empty(cap, np.intp)
    gather = np.empty(n + 1, np.intp)
    st_old[0], st_new[0], st_depth[0] = root, 0, 0
    top = 1
    n_nodes = 1
    n_slots = 0
    depth = 0
    while top > 0:
        top -= 1
        old = st_old[top]
        m = st_new[top]
        d = st_depth[top]
        if old < n or size[old] <= leaf_size or d >= max_depth:
            node_first[m] = n_slots
            node_count[m] = size[old]
            depth = max(depth, d)
            gather[0] = old
            g = 1
            while g > 0:  # primitives of the subtree, left to right
                g -= 1
                x = gather[g]
                if x < n:
                    order[n_slots] = x
                    n_slots += 1
                else:
                    gather[g] = right[x - n]
                    gather[g + 1] = left[x - n]
                    g += 2
            continue
        first = n_nodes
        n_nodes += 2
        node_first[m] = first
        node_count[m] = 0
        st_old[top], st_new[top], st_depth[top] = right[old - n], first + 1, d + 1
        st_old[top + 1], st_new[top + 1], st_depth[top + 1] = left[old - n], first, d + 1
        top += 2
    return node_first[:n_nodes].copy(), node_count[:n_nodes].copy(), order, depth
