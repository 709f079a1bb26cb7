"""Closest points on a triangle mesh: a BVH walk per point, serial and parallel.

The point on each triangle is :func:`hitbox._kernels.triangle_closest.closest_point_on`
(Ericson 2005, §5.1.5). The walk is depth-first over the nodes' exact AABBs, nearer
child first, pruning a node whose squared point-box distance exceeds the best squared
distance so far. Each point starts from the previous point's best triangle as an
upper bound.

The computed closest point is clamped to its triangle's box, so its squared distance,
summed in the same order as a box's, is never below the box bound of any node holding
that triangle (rounding is monotone): pruning never drops the triangle that a test of
every triangle would pick. A point far from the surface also prunes nodes and
triangles by their disks (:mod:`hitbox._kernels.point_tree`), only where a disk's
bound clears the best by far more than both its rounding and the triangle distance's
(:func:`_closest_wide_range`). Ties go to the lowest face index, so the walk and
:func:`closest_brute` agree exactly.
"""

import numpy as np
from numba import njit, prange

from hitbox._kernels.lanes import chunk_span, lane_count
from hitbox._kernels.point_tree import _LANES, _NO_LANE, DISK_SLACK, disk_d2
from hitbox._kernels.triangle_closest import closest_on_triangle, closest_point_on

#: Points per call from which the parallel kernel is used.
PARALLEL_MIN = 4096
#: Points per call from which the caller walks them in spatial order.
SORT_MIN = 256
_CHUNK = 256  # consecutive points walked by one thread, sharing the warm start
#: Points per call from which the walk goes over the four-wide view of the tree
#: (:mod:`hitbox._kernels.point_tree`, built once a mesh is asked about this many).
WIDE_MIN = 4096
#: A point whose warm start lies farther than this many radii of its triangle's disk
#: tests triangles by their disks, not their boxes (nearer, the box is as good and
#: cheaper: benchmarks/README.md).
FAR_SLOTS = 1.0
#: ... and farther than this many, the lanes of the wide nodes too (nearer, their
#: disks cost more than they prune).
FAR_LANES = 16.0
#: The ``wide`` argument of a call that walks the binary tree.
NO_WIDE = (
    np.empty((0, 6, _LANES)), np.empty((0, 8, _LANES)), np.empty((0, _LANES), np.int64),
    np.empty((0, 8)),
)  # fmt: skip


@njit(inline="always")
def box_d2(box, m, px, py, pz):
    """Squared distance from p to node m's box, summed as the triangle distance is."""
    dx = max(box[m, 0, 0] - px, 0.0, px - box[m, 1, 0])
    dy = max(box[m, 0, 1] - py, 0.0, py - box[m, 1, 1])
    dz = max(box[m, 0, 2] - pz, 0.0, pz - box[m, 1, 2])
    return dx * dx + dy * dy + dz * dz


@njit(inline="always")
def push_nearer(stack, bound, top, f, bl, br, best):
    """Push children f and f + 1 (squared box distances bl, br) that may hold a point
    within ``best``, the farther first so that the nearer is walked first; the new top."""
    near, far, bn, bf = f, f + 1, bl, br
    if br < bl:
        near, far, bn, bf = f + 1, f, br, bl
    if bf <= best:
        stack[top], bound[top] = far, bf
        top += 1
    if bn <= best:
        stack[top], bound[top] = near, bn
        top += 1
    return top


#: A face number past every face: the tie key of "nothing found yet".
NO_FACE = 2**62


def make_nearest_walk(leaf):
    """The walk of a binary tree for what lies nearest to a point, nearer child first,
    with ``leaf(args, f, c, px, py, pz, state) -> state`` testing the slots [f, f + c)
    of each leaf reached. ``state[0]`` is the squared distance within which an answer
    may still lie: a box farther is not walked (one at that distance is, for ties).

    Made per leaf test, so that each is inlined into its own walk (a called leaf test
    slows the triangle walks: benchmarks/README.md)."""

    @njit(inline="always")
    def walk(node_box, node_first, node_count, stack, bound, px, py, pz, args, state):
        """``state`` after the walk from the root (the tree has one)."""
        stack[0] = 0
        bound[0] = box_d2(node_box, 0, px, py, pz)
        top = 1
        while top > 0:
            top -= 1
            if bound[top] > state[0]:
                continue
            m = stack[top]
            c = node_count[m]
            f = node_first[m]
            if c > 0:
                state = leaf(args, f, c, px, py, pz, state)
                continue
            bl = box_d2(node_box, f, px, py, pz)
            br = box_d2(node_box, f + 1, px, py, pz)
            top = push_nearer(stack, bound, top, f, bl, br, state[0])
        return state

    return walk


@njit(inline="always")
def _triangles_in_leaf(args, f, c, px, py, pz, state):
    """:func:`nearest_in_tree`'s test of slots [f, f + c): ``args`` (tris, slot_box,
    prim), ``state`` (best, best_s, best_f, q)."""
    tris, slot_box, prim = args
    best, best_s, best_f, q = state
    for s in range(f, f + c):
        if box_d2(slot_box, s, px, py, pz) > best:
            continue  # its box is farther than the best: it cannot win or tie
        d, qx, qy, qz, wa, wb, wc = closest_on_triangle(tris, s, px, py, pz)
        if d < best or (d == best and prim[s] < best_f):
            best, best_s, best_f = d, s, prim[s]
            q = (qx, qy, qz, wa, wb, wc)
    return best, best_s, best_f, q


_nearest_triangle_walk = make_nearest_walk(_triangles_in_leaf)


@njit(inline="always")
def nearest_in_tree(
    node_box, node_first, node_count, tris, slot_box, prim, stack, bound, px, py, pz,
    best, best_s, best_f, q,
):  # fmt: skip
    """The binary tree's walk for the point nearest to p, from the squared distance
    ``best`` of slot ``best_s`` (face ``best_f``; -1 and NO_FACE for none: a face
    exactly at ``best`` then counts), ties to the lowest face. Returns the new (best,
    best_s, best_f, q), q = (x, y, z, wa, wb, wc): the point and its barycentrics."""
    return _nearest_triangle_walk(
        node_box, node_first, node_count, stack, bound, px, py, pz,
        (tris, slot_box, prim), (best, best_s, best_f, q),
    )  # fmt: skip


@njit
def _warm_start(tris, prim_order, prev, px, py, pz):
    """(best, best_s, best_f, q) that point p's walk starts from: the previous point's
    triangle ``prev`` as an upper bound, or none (prev -1)."""
    if prev < 0:
        return np.inf, -1, NO_FACE, (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    d, qx, qy, qz, wa, wb, wc = closest_on_triangle(tris, prev, px, py, pz)
    return d, prev, prim_order[prev], (qx, qy, qz, wa, wb, wc)


@njit
def _answer(out_point, out_d, out_index, out_w, p, best, index, q):
    """Point p's answer: its point, distance (from the squared ``best``), slot or face,
    barycentrics."""
    out_d[p] = np.sqrt(best)
    out_index[p] = index
    out_point[p, 0], out_point[p, 1], out_point[p, 2] = q[0], q[1], q[2]
    out_w[p, 0], out_w[p, 1], out_w[p, 2] = q[3], q[4], q[5]


@njit(cache=True, nogil=True)
def _closest_range(
    node_box, node_first, node_count, tris, slot_box, prim_order, depth, points, order,
    out_point, out_d, out_slot, out_w, start, stop,
):  # fmt: skip
    """Points order[start..stop], compiled apart: parfors must not see the walk's body."""
    stack = np.empty(depth + 2, np.intp)
    bound = np.empty(depth + 2)
    prev = -1
    for t in range(start, stop):
        p = order[t]
        px, py, pz = points[p, 0], points[p, 1], points[p, 2]
        best, best_s, best_f, q = _warm_start(tris, prim_order, prev, px, py, pz)
        best, best_s, best_f, q = nearest_in_tree(
            node_box, node_first, node_count, tris, slot_box, prim_order, stack, bound,
            px, py, pz, best, best_s, best_f, q,
        )  # fmt: skip
        prev = best_s
        _answer(out_point, out_d, out_slot, out_w, p, best, best_s, q)


@njit(cache=True, nogil=True)
def _closest_wide_range(
    wide, node_first, node_count, tris, slot_box, size, prim_order, depth, points, order,
    out_point, out_d, out_slot, out_w, start, stop, warm,
):  # fmt: skip
    """:func:`_closest_range` over the four-wide view ``wide`` (box, disk, child, slot
    disk: :mod:`hitbox._kernels.point_tree`): the same pruning (a lane whose box is
    farther than the best is dropped; ties are walked), so the same answers.

    A point farther than its warm start's triangle is wide (:data:`FAR_SLOTS`) tests
    each triangle by its disk instead of its box, and one farther still
    (:data:`FAR_LANES`) also bounds each lane by its disk: a tilted patch's box comes
    as near as the patch is wide, its disk only as near as it is flat. A disk
    prunes only where its bound passes the best by ``DISK_SLACK`` times ``size`` (the
    largest |coordinate| of the triangles) times the distances, and times |p - c|^2:
    above the bound's rounding and the triangle distance's, so nothing that could win
    or tie is dropped.
    """
    wbox, wdisk, wchild, disks = wide
    cap = 3 * depth + 8
    stack = np.empty(cap, np.int64)
    bound = np.empty(cap)
    dist = np.empty(_LANES)
    best_s = warm  # the first point's warm start: a slot, or -1 for none
    for t in range(start, stop):
        p = order[t]
        px, py, pz = points[p, 0], points[p, 1], points[p, 2]
        # from the previous point's triangle (_warm_start, written out as the leaf is)
        best, best_f, q = np.inf, NO_FACE, (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        far, far_lanes = True, True
        if best_s >= 0:
            s = best_s
            d, qx, qy, qz, wa, wb, wc = closest_point_on(
                px, py, pz, tris[s, 0, 0], tris[s, 0, 1], tris[s, 0, 2],
                tris[s, 1, 0], tris[s, 1, 1], tris[s, 1, 2],
                tris[s, 2, 0], tris[s, 2, 1], tris[s, 2, 2],
            )  # fmt: skip
            best, best_f, q = d, prim_order[s], (qx, qy, qz, wa, wb, wc)
            far = best > (FAR_SLOTS * disks[s, 6]) ** 2
            far_lanes = best > (FAR_LANES * disks[s, 6]) ** 2
        reach, slack = 0.0, 0.0  # what the disks allow past their bound
        if far:
            reach = DISK_SLACK * max(size, abs(px), abs(py), abs(pz))
            slack = reach * np.sqrt(best)
        stack[0], bound[0] = 0, 0.0
        top = 1
        while top > 0:
            top -= 1
            if bound[top] > best:
                continue
            w = stack[top]
            if w < 0:  # a binary leaf: _triangles_in_leaf, written out (an inlined
                # call took and released a reference to each array it was passed, 22 %
                # of the walk's time)
                f = node_first[-1 - w]
                for s in range(f, f + node_count[-1 - w]):
                    if not far:
                        if box_d2(slot_box, s, px, py, pz) > best:
                            continue
                    else:
                        r = disks[s, 6]
                        lb, qq = disk_d2(
                            px - disks[s, 0], py - disks[s, 1], pz - disks[s, 2],
                            disks[s, 3], disks[s, 4], disks[s, 5], r, disks[s, 7],
                        )  # fmt: skip
                        if lb > best + (slack + reach * r + DISK_SLACK * qq):
                            continue
                    d, qx, qy, qz, wa, wb, wc = closest_point_on(
                        px, py, pz, tris[s, 0, 0], tris[s, 0, 1], tris[s, 0, 2],
                        tris[s, 1, 0], tris[s, 1, 1], tris[s, 1, 2],
                        tris[s, 2, 0], tris[s, 2, 1], tris[s, 2, 2],
                    )  # fmt: skip
                    if d < best or (d == best and prim_order[s] < best_f):
                        best, best_s, best_f = d, s, prim_order[s]
                        q = (qx, qy, qz, wa, wb, wc)
                        if far:
                            slack = reach * np.sqrt(best)
                continue
            for lane in range(_LANES):  # summed as box_d2 sums: the same bounds
                dx = max(wbox[w, 0, lane] - px, 0.0, px - wbox[w, 3, lane])
                dy = max(wbox[w, 1, lane] - py, 0.0, py - wbox[w, 4, lane])
                dz = max(wbox[w, 2, lane] - pz, 0.0, pz - wbox[w, 5, lane])
                dist[lane] = dx * dx + dy * dy + dz * dz
            if far_lanes:  # the lanes' disks, less their slack: never above a true bound
                for lane in range(_LANES):
                    r = wdisk[w, 6, lane]
                    lb, qq = disk_d2(
                        px - wdisk[w, 0, lane], py - wdisk[w, 1, lane],
                        pz - wdisk[w, 2, lane], wdisk[w, 3, lane], wdisk[w, 4, lane],
                        wdisk[w, 5, lane], r, wdisk[w, 7, lane],
                    )  # fmt: skip
                    lb -= slack + reach * r + DISK_SLACK * qq
                    dist[lane] = max(dist[lane], lb)
            # push the lanes within the best; the nearest goes on top, walked next
            near, bn = -1, np.inf
            for lane in range(_LANES):
                c = wchild[w, lane]
                if dist[lane] <= best and c != _NO_LANE:
                    stack[top], bound[top] = c, dist[lane]
                    if dist[lane] < bn:
                        near, bn = top, dist[lane]
                    top += 1
            if near >= 0 and near != top - 1:
                stack[near], stack[top - 1] = stack[top - 1], stack[near]
                bound[near], bound[top - 1] = bound[top - 1], bn
        _answer(out_point, out_d, out_slot, out_w, p, best, best_s, q)


@njit
def _chunk_buffers():
    """One thread's chunk of points, their answers (no slot yet: -1), and the
    identity order."""
    return (
        np.empty((_CHUNK, 3)), np.empty((_CHUNK, 3)), np.empty(_CHUNK),
        np.full(_CHUNK, -1, np.intp), np.empty((_CHUNK, 3)), np.arange(_CHUNK),
    )  # fmt: skip


@njit(cache=True, nogil=True)
def _closest_chunk(
    wide, node_first, node_count, tris, slot_box, size, prim_order, depth, points, order,
    out_point, out_d, out_slot, out_w, lo, hi, buffers,
):  # fmt: skip
    """:func:`_closest_wide_range` over points order[lo..hi], gathered into a chunk
    first and their answers scattered after: the walks read and write one small block,
    and the scattered loads and stores, in loops of their own, overlap."""
    pts, q, d, slot, w, ident = buffers
    m = hi - lo
    for u in range(m):
        p = order[lo + u]
        pts[u, 0], pts[u, 1], pts[u, 2] = points[p, 0], points[p, 1], points[p, 2]
    # the first walk starts from this thread's last answer, in the chunk before
    _closest_wide_range(
        wide, node_first, node_count, tris, slot_box, size, prim_order, depth, pts,
        ident, q, d, slot, w, 0, m, slot[_CHUNK - 1],
    )  # fmt: skip
    for u in range(m):
        p = order[lo + u]
        out_point[p, 0], out_point[p, 1], out_point[p, 2] = q[u, 0], q[u, 1], q[u, 2]
        out_d[p] = d[u]
        out_slot[p] = slot[u]
        out_w[p, 0], out_w[p, 1], out_w[p, 2] = w[u, 0], w[u, 1], w[u, 2]


@njit(cache=True, nogil=True)
def closest(
    node_box, node_first, node_count, tris, slot_box, prim_order, depth, points, order,
    out_point, out_d, out_slot, out_w, wide, size,
):  # fmt: skip
    """Closest point of the mesh to each point: point, distance, slot, barycentrics.

    ``tris`` are the triangles in slot order, ``slot_box`` their exact boxes (S, 2, 3),
    ``prim_order[slot]`` their face index; the tree must hold at least one triangle.
    ``wide`` is the tree's four-wide view (:mod:`hitbox._kernels.point_tree`; the
    walk goes over it unless it is :data:`NO_WIDE`), ``size`` the largest |coordinate|
    of the triangles. Points are walked in ``order`` (a permutation: each walk starts
    from the previous one's triangle) and answered in place.
    """
    if len(wide[2]):
        buffers = _chunk_buffers()
        for c in range((len(points) + _CHUNK - 1) // _CHUNK):
            lo, hi = chunk_span(c, len(points), _CHUNK)
            _closest_chunk(
                wide, node_first, node_count, tris, slot_box, size, prim_order, depth,
                points, order, out_point, out_d, out_slot, out_w, lo, hi, buffers,
            )  # fmt: skip
    else:
        _closest_range(
            node_box, node_first, node_count, tris, slot_box, prim_order, depth, points,
            order, out_point, out_d, out_slot, out_w, 0, len(points),
        )  # fmt: skip


@njit(cache=True, nogil=True, parallel=True)
def closest_parallel(
    node_first, node_count, tris, slot_box, prim_order, depth, points, order, out_point,
    out_d, out_slot, out_w, wide, size, threads,
):  # fmt: skip
    """:func:`closest` over the four-wide view, in parallel: chunks of consecutive
    points dealt round-robin to one lane per thread (``threads``: numba's thread count,
    from the caller)."""
    n = len(points)
    lanes, n_chunks = lane_count(n, threads, _CHUNK)
    for lane in prange(lanes):
        buffers = _chunk_buffers()
        for c in range(lane, n_chunks, lanes):
            lo, hi = chunk_span(c, n, _CHUNK)
            _closest_chunk(
                wide, node_first, node_count, tris, slot_box, size, prim_order, depth,
                points, order, out_point, out_d, out_slot, out_w, lo, hi, buffers,
            )  # fmt: skip


@njit(cache=True, nogil=True)
def closest_brute(tris, points, out_point, out_d, out_face, out_w):
    """Slow twin of :func:`closest`: every point against every triangle, in face order."""
    for p in range(len(points)):
        px, py, pz = points[p, 0], points[p, 1], points[p, 2]
        best, best_f = np.inf, -1
        q = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        for f in range(len(tris)):
            d, qx, qy, qz, wa, wb, wc = closest_on_triangle(tris, f, px, py, pz)
            if d < best:
                best, best_f = d, f
                q = (qx, qy, qz, wa, wb, wc)
        _answer(out_point, out_d, out_face, out_w, p, best, best_f, q)
