"""Binned SAH builds (Wald 2007): on the world axes (:func:`build_sah`) and on each
node's principal axes (:func:`build_sah_oriented`, for OBB trees), the layout of
:mod:`hitbox._kernels.bvh_build`.

The top of the tree is split on one thread until every open node holds at most
:func:`task_size` primitives; those subtrees are then built in parallel, each on its
own run of slots, and stitched after the top (children still adjacent pairs after their
parent). The split decisions depend on a node's primitives only, so the tree is the same
whatever the number of threads.
"""

import numpy as np
from numba import njit, prange

from hitbox._kernels.borrowed import borrowed
from hitbox._kernels.bvh_build import (
    _half_area,
    framed_bounds,
    next_to_split,
    push_open,
    split_open,
)
from hitbox._kernels.covariance import eigvecs_sym3, moment_sums

#: Subtrees of at most N/4 primitives (or this many, if more) are built as tasks: a
#: few levels split on one thread, then about four subtrees at once
#: (benchmarks/README.md).
TASK_MIN = 512
#: Oriented builds over N primitives take a node's own principal axes at nodes of at
#: least N // REFRAME_DIV primitives (about the top five levels; :func:`reframe_size`);
#: a smaller node splits in its nearest such ancestor's frame. Trees came out tighter,
#: and builds faster, than re-framing every node (benchmarks/README.md).
REFRAME_DIV = 32


@njit
def _swap(order, boxes, centres, i, j):
    order[i], order[j] = order[j], order[i]
    for k in range(3):
        centres[i, k], centres[j, k] = centres[j, k], centres[i, k]
        for e in range(2):
            boxes[i, e, k], boxes[j, e, k] = boxes[j, e, k], boxes[i, e, k]


@njit
def _sah_bins(box, cen, lo, hi, cb, scale, n_bins, bin_count, bin_box):
    """Count and bound the primitives of slots [lo, hi) in n_bins bins per axis."""
    for a in range(3):
        for b in range(n_bins):
            bin_count[a, b] = 0
            for k in range(3):
                bin_box[a, b, 0, k] = np.inf
                bin_box[a, b, 1, k] = -np.inf
    c0, c1, c2 = cb[0, 0], cb[0, 1], cb[0, 2]
    k0, k1, k2 = scale[0], scale[1], scale[2]
    last = n_bins - 1
    # the slot's box and centre in scalars first: stores into bin_box may alias box, so
    # values read in the update loops were read again after every store
    for s in range(lo, hi):
        x0, x1, x2 = box[s, 0, 0], box[s, 0, 1], box[s, 0, 2]
        y0, y1, y2 = box[s, 1, 0], box[s, 1, 1], box[s, 1, 2]
        b0 = min(int((cen[s, 0] - c0) * k0), last)
        b1 = min(int((cen[s, 1] - c1) * k1), last)
        b2 = min(int((cen[s, 2] - c2) * k2), last)
        for a, b in ((0, b0), (1, b1), (2, b2)):
            bin_count[a, b] += 1
            bin_box[a, b, 0, 0] = min(bin_box[a, b, 0, 0], x0)
            bin_box[a, b, 0, 1] = min(bin_box[a, b, 0, 1], x1)
            bin_box[a, b, 0, 2] = min(bin_box[a, b, 0, 2], x2)
            bin_box[a, b, 1, 0] = max(bin_box[a, b, 1, 0], y0)
            bin_box[a, b, 1, 1] = max(bin_box[a, b, 1, 1], y1)
            bin_box[a, b, 1, 2] = max(bin_box[a, b, 1, 2], y2)


@njit(inline="always")
def _grown(bin_box, a, b, l0, l1, l2, h0, h1, h2):
    """The box (l, h) grown by bin b of axis a."""
    return (
        min(l0, bin_box[a, b, 0, 0]), min(l1, bin_box[a, b, 0, 1]),
        min(l2, bin_box[a, b, 0, 2]), max(h0, bin_box[a, b, 1, 0]),
        max(h1, bin_box[a, b, 1, 1]), max(h2, bin_box[a, b, 1, 2]),
    )  # fmt: skip


@njit
def _sah_best(cb, n_bins, cnt, bin_count, bin_box, right_area):
    """Sweep every axis's bin boundaries from both ends; return (axis, first right bin) of
    the cut with the least area-weighted count, or (-1, 0) if no axis can be cut."""
    best_cost = np.inf
    best_axis = -1
    best_bin = 0
    for a in range(3):
        if not cb[1, a] > cb[0, a]:
            continue
        # the running box in scalars (through an array each bin's min/max was
        # stored and read back)
        l0 = l1 = l2 = np.inf
        h0 = h1 = h2 = -np.inf
        for b in range(n_bins - 1, 0, -1):  # right_area[b]: bins b .. n_bins - 1
            l0, l1, l2, h0, h1, h2 = _grown(bin_box, a, b, l0, l1, l2, h0, h1, h2)
            right_area[b] = _half_area(l0, l1, l2, h0, h1, h2)
        l0 = l1 = l2 = np.inf
        h0 = h1 = h2 = -np.inf
        n_left = 0
        for b in range(n_bins - 1):
            l0, l1, l2, h0, h1, h2 = _grown(bin_box, a, b, l0, l1, l2, h0, h1, h2)
            n_left += bin_count[a, b]
            if n_left == 0 or n_left == cnt:
                continue
            left_area = _half_area(l0, l1, l2, h0, h1, h2)
            cost = left_area * n_left + right_area[b + 1] * (cnt - n_left)
            if cost < best_cost:
                best_cost = cost
                best_axis = a
                best_bin = b + 1
    return best_axis, best_bin


@njit
def _swap_framed(order, boxes, centres, pts, i, j):
    """:func:`_swap` for oriented builds, and the points (the children that take a
    frame of their own take their boxes and centres again from them)."""
    _swap(order, boxes, centres, i, j)
    for q in range(pts.shape[1]):
        for k in range(3):
            pts[i, q, k], pts[j, q, k] = pts[j, q, k], pts[i, q, k]


@njit
def _node_frame(pts, lo, hi, frame):
    """Principal axes (columns of ``frame``) of every point of slots [lo, hi).

    One pass over the points, about the node's first point (not the origin, so a mesh
    far from the origin keeps its digits): the frame only steers the split, so a
    one-pass covariance is all it needs.
    """
    n_pts = pts.shape[1]
    c = (hi - lo) * n_pts
    if c == 0:  # point groups without points: any frame will do
        for p in range(3):
            for q in range(3):
                frame[p, q] = 1.0 if p == q else 0.0
        return
    o0, o1, o2 = pts[lo, 0, 0], pts[lo, 0, 1], pts[lo, 0, 2]
    m0, m1, m2, sxx, sxy, sxz, syy, syz, szz = moment_sums(pts, lo, hi, o0, o1, o2)
    m0 /= c
    m1 /= c
    m2 /= c
    eigvecs_sym3(
        sxx - c * m0 * m0, sxy - c * m0 * m1, sxz - c * m0 * m2,
        syy - c * m1 * m1, syz - c * m1 * m2, szz - c * m2 * m2, frame,
    )  # fmt: skip


@njit
def _sah_split(
    box, cen, pts, order, reframe, leaf_size, max_depth, n_bins,
    root, lo0, hi0, d0, node_first, node_count, n_nodes, task_min, tasks,
):  # fmt: skip
    """Split the node ``root`` over slots [lo0, hi0) at depth d0 by binned SAH, writing
    nodes into node_first/node_count from id ``n_nodes`` on. A splittable node of at
    most ``task_min`` primitives (0: none) is not split but appended to ``tasks`` (rows:
    node, lo, hi, depth). ``box``/``cen`` (and ``pts``, ``order``) are permuted in place;
    with ``reframe`` >= 0 (oriented builds) they are recomputed in a node's own frame
    from ``pts`` for the build's root and every node of at least ``reframe``
    primitives; -1: the world axes, boxes and centres as given.
    Returns (n_nodes, depth, n_tasks)."""
    return _sah_loop(
        box, cen, pts, order, reframe, leaf_size, max_depth, n_bins, root, lo0, hi0, d0,
        node_first, node_count, n_nodes, task_min, tasks, np.empty((3, 3)),
        np.empty((min(max_depth, hi0 - lo0) + 2, 4), np.intp),
        np.zeros((3, n_bins), np.intp), np.empty((3, n_bins, 2, 3)), np.empty(n_bins),
        np.empty((2, 3)), np.empty(3),
    )  # fmt: skip


@njit
def _sah_loop(
    box, cen, pts, order, reframe, leaf_size, max_depth, n_bins, root, lo0, hi0, d0,
    node_first, node_count, n_nodes, task_min, tasks, frame, stack, bin_count, bin_box,
    right_area, cb, scale,
):  # fmt: skip
    """:func:`_sah_split`'s loop over its scratch, every array borrowed
    (:mod:`hitbox._kernels.borrowed`; the caller holds them): the helpers called per
    node and per swap took and released a reference to each, 6 % of a 500k build."""
    box, cen, pts, order = borrowed(box), borrowed(cen), borrowed(pts), borrowed(order)
    node_first, node_count = borrowed(node_first), borrowed(node_count)
    tasks, frame, stack = borrowed(tasks), borrowed(frame), borrowed(stack)
    bin_count, bin_box = borrowed(bin_count), borrowed(bin_box)
    right_area, cb, scale = borrowed(right_area), borrowed(cb), borrowed(scale)
    oriented = reframe >= 0
    top = push_open(stack, 0, root, lo0, hi0, d0)
    depth = d0
    n_tasks = 0
    while True:
        top, m, lo, hi, d, depth = next_to_split(
            stack, top, node_first, node_count, leaf_size, max_depth, depth
        )
        if top < 0:
            break
        cnt = hi - lo
        if cnt <= task_min:
            tasks[n_tasks, 0], tasks[n_tasks, 1] = m, lo
            tasks[n_tasks, 2], tasks[n_tasks, 3] = hi, d
            n_tasks += 1
            continue
        if oriented and (cnt >= reframe or cnt == len(cen)):
            _node_frame(pts, lo, hi, frame)
            framed_bounds(pts, lo, hi, frame, box, cen)
        l0 = l1 = l2 = np.inf
        h0 = h1 = h2 = -np.inf
        for s in range(lo, hi):
            l0, h0 = min(l0, cen[s, 0]), max(h0, cen[s, 0])
            l1, h1 = min(l1, cen[s, 1]), max(h1, cen[s, 1])
            l2, h2 = min(l2, cen[s, 2]), max(h2, cen[s, 2])
        cb[0, 0], cb[0, 1], cb[0, 2] = l0, l1, l2
        cb[1, 0], cb[1, 1], cb[1, 2] = h0, h1, h2
        n_b = min(n_bins, cnt)  # small nodes: no more bins than primitives
        for k in range(3):
            ext = cb[1, k] - cb[0, k]
            scale[k] = n_b / ext if ext > 0.0 else 0.0
        _sah_bins(box, cen, lo, hi, cb, scale, n_b, bin_count, bin_box)
        a, cut = _sah_best(cb, n_b, cnt, bin_count, bin_box, right_area)
        mid = lo + cnt // 2  # all centres coincide: any halving will do
        if a >= 0:
            i = lo
            j = hi - 1
            origin, per_bin = cb[0, a], scale[a]  # not read again after each swap
            while i <= j:
                if min(int((cen[i, a] - origin) * per_bin), n_b - 1) < cut:
                    i += 1
                else:
                    if oriented:
                        _swap_framed(order, box, cen, pts, i, j)
                    else:
                        _swap(order, box, cen, i, j)
                    j -= 1
            if lo < i < hi:
                mid = i
        top = split_open(stack, top, node_first, node_count, m, n_nodes, lo, mid, hi, d)
        n_nodes += 2
    return n_nodes, depth, n_tasks


def reframe_size(n):
    """Nodes of an oriented build over n primitives that take a frame of their own:
    those of at least n // REFRAME_DIV primitives (and the root)."""
    return n // REFRAME_DIV


@njit(nogil=True)
def task_size(n):
    """Primitives per parallel subtree for a build over n (independent of threads)."""
    return max(TASK_MIN, n // 4)


@njit(nogil=True, parallel=True)
def _sah_topology(box, cen, pts, reframe, leaf_size, max_depth, n_bins, threads):
    """The top split on one thread, then the subtree tasks dealt round-robin (largest
    first) to one lane per thread, each into its own run of a scratch table, then stitched.
    Returns (node_first, node_count, order, depth, task_nodes): task_nodes (T, 3) rows
    (subtree root, first id of its other nodes, their count) for a fit in parallel."""
    n = len(box)
    order = np.arange(n)
    m_max = 2 * n - 1 if n > 0 else 0
    node_first = np.empty(m_max, np.intp)
    node_count = np.empty(m_max, np.intp)
    if n == 0:
        return node_first, node_count, order, 0, np.empty((0, 3), np.intp)
    tasks = np.empty((n // (leaf_size + 1) + 1, 4), np.intp)
    # constants passed as np.intp: a literal argument compiles a _sah_split of its own
    zero, one = np.intp(0), np.intp(1)
    n_top, depth, n_tasks = _sah_split(
        box, cen, pts, order, reframe, leaf_size, max_depth, n_bins,
        zero, zero, n, zero, node_first, node_count, one, task_size(n), tasks,
    )  # fmt: skip
    tasks = tasks[:n_tasks]
    # largest first: the last subtrees dealt out are the short ones
    tasks = tasks[np.argsort(-(tasks[:, 2] - tasks[:, 1]), kind="mergesort")]
    offsets = np.zeros(n_tasks + 1, np.intp)
    for t in range(n_tasks):
        offsets[t + 1] = offsets[t] + 2 * (tasks[t, 2] - tasks[t, 1]) - 1
    local_first = np.empty(offsets[n_tasks], np.intp)
    local_count = np.empty(offsets[n_tasks], np.intp)
    used = np.empty(n_tasks, np.intp)
    task_depth = np.empty(n_tasks, np.intp)
    lanes = max(1, min(threads, n_tasks))
    for lane in prange(lanes):
        for t in range(lane, n_tasks, lanes):
            o, e = offsets[t], offsets[t + 1]
            k, dt, _ = _sah_split(
                box, cen, pts, order, reframe, leaf_size, max_depth, n_bins,
                zero, tasks[t, 1], tasks[t, 2], tasks[t, 3],
                local_first[o:e], local_count[o:e], one, zero, tasks[t:t],
            )  # fmt: skip
            used[t] = k
            task_depth[t] = dt
    # stitch: a subtree's root keeps the id its parent gave it, its other nodes follow
    task_nodes = np.empty((n_tasks, 3), np.intp)
    base = n_top
    for t in range(n_tasks):
        o = offsets[t]
        for j in range(used[t]):
            first = local_first[o + j]
            count = local_count[o + j]
            g = tasks[t, 0] if j == 0 else base + j - 1
            node_first[g] = first if count > 0 else base + first - 1
            node_count[g] = count
        task_nodes[t, 0], task_nodes[t, 1], task_nodes[t, 2] = (
            tasks[t, 0],
            base,
            used[t] - 1,
        )
        base += used[t] - 1
        depth = max(depth, task_depth[t])
    return node_first[:base].copy(), node_count[:base].copy(), order, depth, task_nodes


@njit(cache=True, nogil=True)
def build_sah(boxes, centres, leaf_size, max_depth, n_bins, threads):
    """Top-down binned SAH build, From Wald 2007 ("On fast construction of SAH-based
    bounding volume hierarchies"), with an explicit stack (no recursion).

    Each node bins its primitives' centres on all three axes in one pass (counts and
    boxes per bin), sweeps the bin boundaries from both ends and cuts where the
    area-weighted counts are least. An axis with any spread of centres can always be cut
    (its extremes fall in the first and last bins); where all centres coincide, the
    node is halved by count. The primitives' boxes and centres are permuted along with
    ``order``, so every pass reads memory in sequence.

    ``boxes`` and ``centres`` are copied, not modified; ``threads``: numba's thread
    count, from the caller. Returns (node_first (M,), node_count (M,), order (N,),
    depth, task_nodes) (see :func:`_sah_topology`).
    """
    return _sah_topology(
        boxes.copy(), centres.copy(), np.empty((0, 1, 3)), np.intp(-1),
        leaf_size, max_depth, n_bins, threads,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def build_sah_oriented(points, leaf_size, max_depth, n_bins, threads, reframe):
    """Top-down binned SAH build in each node's own principal frame: the node's points'
    covariance axes (as an OBB fit takes them) replace the world axes, and the
    primitives' boxes and centres are taken in that frame before binning: at the root
    and at every node of at least ``reframe`` primitives (0: every node); a smaller
    node splits in the frame of its nearest ancestor that took one, on the boxes and
    centres already there (:func:`reframe_size` gives the default).

    For OBB trees: cuts across a curved patch's own axes give compact children, where
    world-axis cuts slice a patch lying askew to the axes into children whose OBBs
    overlap each other.

    ``points`` (N, K, 3) is permuted in place into slot order (``points[s]`` ends as
    primitive ``order[s]``'s points): the node fits read them so, and need no copy of
    their own. Returns what :func:`build_sah` does.
    """
    n = len(points)
    return _sah_topology(
        np.empty((n, 2, 3)), np.empty((n, 3)), points, max(np.intp(0), reframe),
        leaf_size, max_depth, n_bins, threads,
    )  # fmt: skip
