"""OBB node volumes of a whole tree, fitted bottom-up (SPEC §5, seed 003), in parallel
over the subtrees a parallel build made (:mod:`hitbox._kernels.bvh_sah`)."""

import numpy as np
from numba import njit, prange

from hitbox._kernels.borrowed import borrowed
from hitbox._kernels.bvh_fit import (
    DIRECT_SLOTS,
    FRAME_SLOTS,
    PAD,
    _box_interval,
    _extreme_frames,
    _frame_extents,
    _obb_interval,
    _project_slots,
    eigvecs_sym3,
    merge_extremes,
    moment_sums,
    range_extremes,
    spans,
)


@njit(cache=True, nogil=True, parallel=True)
def fit_obbs(
    slot_pts, node_first, node_count, node_box, depth, center, half, rot, tasks, threads
):
    """An OBB around every node's points (SPEC §5, seed 003): axes from the eigenvectors
    of the points' covariance, extents from their min/max projections; nodes over at most
    :data:`FRAME_SLOTS` slots also try three frames from their extreme points
    (:func:`_extreme_frames`) and keep the smallest; the node's AABB is kept instead
    where its volume is smaller (ties: smaller surface).

    The covariance of every node comes bottom-up in O(1) per inner node by the pairwise
    update of Chan, Golub & LeVeque 1979 (count, mean, scatter). The extents are exact
    min/max projections. Small nodes read all their points. Large ones start from 24
    seed points (their children's axis-extreme and box-extreme points) and search their
    subtree by branch and bound: a child whose box and OBB (fitted already, bottom-up)
    project inside the extents found so far on all three axes holds no point that could
    widen them and is skipped. Nodes without points are empty (half -1).
    ``tasks`` (T, 3): subtrees fitted in parallel (rows: root, first id of the other
    nodes, their count; see :func:`hitbox._kernels.bvh_sah._sah_topology`), dealt to
    ``threads`` lanes; the nodes above them are fitted after, on one thread.
    """
    n_pts = slot_pts.shape[1]
    n_nodes = len(node_first)
    if n_pts == 0:
        center[:, :] = 0.0
        half[:, :] = -1.0
        for m in range(n_nodes):
            for p in range(3):
                for q in range(3):
                    rot[m, p, q] = 1.0 if p == q else 0.0
        return
    span_lo = np.empty(n_nodes, np.intp)
    span_hi = np.empty(n_nodes, np.intp)
    spans(node_first, node_count, span_lo, span_hi)
    # seeds[seed_row[m], 0:6]: node m's world-axis extreme points; 6:12: its points at
    # its OBB's faces; kept only for the children of the nodes whose extents are
    # searched from them (-1: none kept): a row for every node was 288 bytes a node of
    # fresh memory, most never read (500k: 91 MB paged in, 40-50 ms of the fit)
    seed_row = np.full(n_nodes, -1, np.intp)
    n_rows = 0
    for m in range(n_nodes):
        if node_count[m] == 0 and span_hi[m] - span_lo[m] > DIRECT_SLOTS:
            f = node_first[m]
            seed_row[f], seed_row[f + 1] = n_rows, n_rows + 1
            n_rows += 2
    seeds = np.empty((n_rows, 12, 3))
    cnt = np.empty(n_nodes)
    mean = np.empty((n_nodes, 3))
    scat = np.empty((n_nodes, 6))  # xx, xy, xz, yy, yz, zz about the mean
    done = np.zeros(n_nodes, np.bool_)
    for t in range(len(tasks)):
        done[tasks[t, 0]] = True
        done[tasks[t, 1] : tasks[t, 1] + tasks[t, 2]] = True
    arrays = (slot_pts, node_first, node_count, node_box, span_lo, span_hi, seeds, cnt,
              mean, scat, center, half, rot, seed_row)  # fmt: skip
    lanes = max(1, min(threads, len(tasks)))
    for lane in prange(lanes):
        stack = np.empty(depth + 2, np.intp)
        for t in range(lane, len(tasks), lanes):
            first, count = tasks[t, 1], tasks[t, 2]
            # the subtree bottom-up: its other nodes, highest id first, then its root
            nodes = np.empty(count + 1, np.intp)
            for i in range(count):
                nodes[i] = first + count - 1 - i
            nodes[count] = tasks[t, 0]
            _fit_nodes(nodes, arrays, stack, _scratch())
    rest = np.nonzero(~done)[0][::-1].copy()
    _fit_nodes(rest, arrays, np.empty(depth + 2, np.intp), _scratch())


@njit(nogil=True)
def _fit_nodes(nodes, arrays, stack, work):
    """:func:`_fit_obb_node` for each of ``nodes`` in turn over ``arrays`` (the tree's and
    the fit's, as :func:`fit_obbs` names them), every array borrowed
    (:mod:`hitbox._kernels.borrowed`; the caller holds them): the per-node call took and
    released a reference to each of its sixteen arrays."""
    a = arrays
    b = (borrowed(a[0]), borrowed(a[1]), borrowed(a[2]), borrowed(a[3]), borrowed(a[4]),
         borrowed(a[5]), borrowed(a[6]), borrowed(a[7]), borrowed(a[8]), borrowed(a[9]),
         borrowed(a[10]), borrowed(a[11]), borrowed(a[12]), borrowed(a[13]))  # fmt: skip
    w = (borrowed(work[0]), borrowed(work[1]), borrowed(work[2]), borrowed(work[3]),
         borrowed(work[4]), borrowed(work[5]), borrowed(work[6]), borrowed(work[7]))  # fmt: skip
    stack = borrowed(stack)
    for i in range(len(nodes)):
        _fit_obb_node(
            nodes[i], b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10],
            b[11], b[12], b[13], stack, w,
        )  # fmt: skip


@njit(nogil=True)
def _scratch():
    """One lane's scratch for :func:`_fit_obb_node`: axes, extents, candidate frames."""
    return (
        np.empty((3, 3)), np.empty(3), np.empty(3), np.empty((3, 3, 3)), np.empty(3),
        np.empty(3), np.empty((7, 2, 3)), np.empty((3, 3)),
    )  # fmt: skip


@njit(nogil=True)
def _fit_obb_node(
    m, slot_pts, node_first, node_count, node_box, span_lo, span_hi,
    seeds, cnt, mean, scat, center, half, rot, seed_row, stack, work,
):  # fmt: skip
    """Fit node m's OBB (:func:`fit_obbs`); its children are fitted already. ``work``:
    a lane's scratch (:func:`_scratch`)."""
    n_pts = slot_pts.shape[1]
    v, lo, hi, frames, clo, chi, ext, corners = work
    f = node_first[m]
    searched = node_count[m] == 0 and span_hi[m] - span_lo[m] > DIRECT_SLOTS
    row = seed_row[m]
    if row >= 0:  # its parent's search starts from these
        if searched:  # its children keep theirs
            merge_extremes(seeds, seed_row[f], seed_row[f] + 1, row)
        else:
            range_extremes(slot_pts, span_lo[m], span_hi[m], seeds, row)
    if node_count[m] > 0:
        c = node_count[m] * n_pts
        cnt[m] = c
        # two passes, the mean and then the scatter about it (accurate far from 0)
        mu0, mu1, mu2 = moment_sums(slot_pts, f, f + node_count[m], 0.0, 0.0, 0.0)[:3]
        mu0 /= c
        mu1 /= c
        mu2 /= c
        _, _, _, sxx, sxy, sxz, syy, syz, szz = moment_sums(
            slot_pts, f, f + node_count[m], mu0, mu1, mu2
        )
        mean[m, 0], mean[m, 1], mean[m, 2] = mu0, mu1, mu2
        scat[m, 0], scat[m, 1], scat[m, 2] = sxx, sxy, sxz
        scat[m, 3], scat[m, 4], scat[m, 5] = syy, syz, szz
    else:
        na = cnt[f]
        nb = cnt[f + 1]
        c = na + nb
        cnt[m] = c
        d0 = mean[f + 1, 0] - mean[f, 0]
        d1 = mean[f + 1, 1] - mean[f, 1]
        d2 = mean[f + 1, 2] - mean[f, 2]
        w = na * nb / c
        mean[m, 0] = mean[f, 0] + d0 * (nb / c)
        mean[m, 1] = mean[f, 1] + d1 * (nb / c)
        mean[m, 2] = mean[f, 2] + d2 * (nb / c)
        scat[m, 0] = scat[f, 0] + scat[f + 1, 0] + w * d0 * d0
        scat[m, 1] = scat[f, 1] + scat[f + 1, 1] + w * d0 * d1
        scat[m, 2] = scat[f, 2] + scat[f + 1, 2] + w * d0 * d2
        scat[m, 3] = scat[f, 3] + scat[f + 1, 3] + w * d1 * d1
        scat[m, 4] = scat[f, 4] + scat[f + 1, 4] + w * d1 * d2
        scat[m, 5] = scat[f, 5] + scat[f + 1, 5] + w * d2 * d2
    eigvecs_sym3(
        scat[m, 0], scat[m, 1], scat[m, 2], scat[m, 3], scat[m, 4], scat[m, 5], v
    )
    mu0, mu1, mu2 = mean[m, 0], mean[m, 1], mean[m, 2]
    for a in range(3):
        lo[a] = np.inf
        hi[a] = -np.inf
    if not searched:
        _project_slots(
            slot_pts, span_lo[m], span_hi[m], mu0, mu1, mu2, v, lo, hi, seeds,
            seed_row[m],
        )  # fmt: skip
        # small nodes also try frames from their extreme points, and keep the
        # smallest: covariance axes fit curved patches loosely
        n_frames = 0
        if span_hi[m] - span_lo[m] <= FRAME_SLOTS:
            n_frames = _extreme_frames(
                slot_pts, span_lo[m], span_hi[m], frames, ext, corners
            )
        for k in range(n_frames):
            _frame_extents(
                slot_pts, span_lo[m], span_hi[m], mu0, mu1, mu2, frames[k], clo, chi
            )
            vol = (chi[0] - clo[0]) * (chi[1] - clo[1]) * (chi[2] - clo[2])
            if vol < (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]):
                # element loops: an array-to-array slice copy compiles numba's
                # broadcasting helpers and their error messages (cold-start time)
                for a in range(3):
                    lo[a] = clo[a]
                    hi[a] = chi[a]
                    for b in range(3):
                        v[a, b] = frames[k, a, b]
    else:
        # seed with the children's 24 extreme points: their rows are adjacent, with the
        # layout of slot points (children, 12 points, 3), and m's row is neither
        r = seed_row[f]
        _project_slots(seeds, r, r + 2, mu0, mu1, mu2, v, lo, hi, seeds, seed_row[m])
        stack[0] = m
        top = 1
        while top > 0:
            top -= 1
            x = stack[top]
            g = node_first[x]
            if node_count[x] > 0:
                _project_slots(
                    slot_pts, g, g + node_count[x], mu0, mu1, mu2, v, lo, hi, seeds,
                    seed_row[m],
                )  # fmt: skip
                continue
            for y in range(g, g + 2):
                for a in range(3):
                    a0 = v[0, a]
                    a1 = v[1, a]
                    a2 = v[2, a]
                    bl, bh = _box_interval(node_box, y, mu0, mu1, mu2, a0, a1, a2)
                    if bl >= lo[a] and bh <= hi[a]:
                        continue
                    ol, oh = _obb_interval(
                        center, half, rot, y, mu0, mu1, mu2, a0, a1, a2
                    )
                    if max(ol, bl) < lo[a] or min(oh, bh) > hi[a]:
                        stack[top] = y
                        top += 1
                        break
    h0 = 0.5 * (hi[0] - lo[0])
    h1 = 0.5 * (hi[1] - lo[1])
    h2 = 0.5 * (hi[2] - lo[2])
    m0 = 0.5 * (lo[0] + hi[0])
    m1 = 0.5 * (lo[1] + hi[1])
    m2 = 0.5 * (lo[2] + hi[2])
    e0 = 0.5 * (node_box[m, 1, 0] - node_box[m, 0, 0])
    e1 = 0.5 * (node_box[m, 1, 1] - node_box[m, 0, 1])
    e2 = 0.5 * (node_box[m, 1, 2] - node_box[m, 0, 2])
    vol_obb = h0 * h1 * h2
    vol_box = e0 * e1 * e2
    use_box = vol_box < vol_obb or (
        vol_box == vol_obb and e0 * e1 + e1 * e2 + e2 * e0 <= h0 * h1 + h1 * h2 + h2 * h0
    )
    if use_box:
        c0 = 0.5 * (node_box[m, 0, 0] + node_box[m, 1, 0])
        c1 = 0.5 * (node_box[m, 0, 1] + node_box[m, 1, 1])
        c2 = 0.5 * (node_box[m, 0, 2] + node_box[m, 1, 2])
        h0, h1, h2 = e0, e1, e2
        for p in range(3):
            for q in range(3):
                rot[m, p, q] = 1.0 if p == q else 0.0
    else:
        c0 = mu0 + v[0, 0] * m0 + v[0, 1] * m1 + v[0, 2] * m2
        c1 = mu1 + v[1, 0] * m0 + v[1, 1] * m1 + v[1, 2] * m2
        c2 = mu2 + v[2, 0] * m0 + v[2, 1] * m1 + v[2, 2] * m2
        for p in range(3):
            for q in range(3):
                rot[m, p, q] = v[p, q]
    pad = PAD * (abs(c0) + abs(c1) + abs(c2) + h0 + h1 + h2)
    center[m, 0], center[m, 1], center[m, 2] = c0, c1, c2
    half[m, 0], half[m, 1], half[m, 2] = h0 + pad, h1 + pad, h2 + pad
