"""Points inside a closed triangle mesh: signed ray crossings through the BVH, exact.

For a closed, consistently oriented mesh (every directed edge used once, and its
reverse once: :func:`is_closed`) the winding number at a point off the surface is the
signed count of the faces an axis-aligned ray from it crosses, each counted by the
sign of its normal along the ray. Each face is decided by exact signs (Shewchuk's
orient2d on the two other axes, orient3d for the side of the face's plane: see
:mod:`hitbox._kernels.exact_predicates`), so the count is the exact winding number.
When the ray meets an edge or a vertex of a face (an orient2d is exactly 0) the count is
not decided by signs alone, and the point is tried along the next of +x, +y, +z, -x, -y,
-z; a point lying on a face, its edges and vertices included, is reported as on the
surface.
"""

import numpy as np
from numba import njit, prange

from hitbox._kernels.borrowed import borrowed
from hitbox._kernels.exact_predicates import orient2d, orient3d
from hitbox._kernels.lanes import chunk_span, lane_count

#: Points per call from which the parallel kernel is used.
PARALLEL_MIN = 4096
_CHUNK = 256
#: Results per point: outside, inside (nonzero winding number or on a face), undecided
#: (every ray met an edge or a vertex: the caller decides another way).
OUTSIDE, INSIDE, UNDECIDED = 0, 1, -1
_ON_FACE, _DEGENERATE = 1, 2


def is_closed(faces):
    """Whether (F, 3) faces form a closed oriented surface: each directed edge used once,
    and its reverse once. F = 0 is not closed."""
    if not len(faces):
        return False
    f = np.asarray(faces, np.int64)
    n = int(f.max()) + 1
    src, dst = f.ravel(), np.roll(f, -1, axis=1).ravel()
    key = np.sort(src * n + dst)
    if np.any(key[1:] == key[:-1]):
        return False
    return bool(np.array_equal(key, np.sort(dst * n + src)))


@njit(cache=True, nogil=True)
def _crossings(node_box, node_first, node_count, tris, stack, points, q, k, sign):
    """(status, count) of the ray from point q along ``sign`` times axis k.

    status 0: count is the signed number of crossings; _ON_FACE: the point lies on a
    face; _DEGENERATE: the ray meets an edge or a vertex of a face.
    """
    j1, j2 = (k + 1) % 3, (k + 2) % 3  # cyclic: orient2d on (j1, j2) is the normal's k
    pk, p1, p2 = points[q, k], points[q, j1], points[q, j2]
    count = 0
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        m = stack[top]
        if (
            node_box[m, 0, j1] > p1
            or node_box[m, 1, j1] < p1
            or node_box[m, 0, j2] > p2
            or node_box[m, 1, j2] < p2
            or (node_box[m, 1, k] < pk if sign > 0 else node_box[m, 0, k] > pk)
        ):
            continue
        c = node_count[m]
        f = node_first[m]
        if c == 0:
            stack[top] = f
            stack[top + 1] = f + 1
            top += 2
            continue
        for s in range(f, f + c):
            lo = min(tris[s, 0, k], tris[s, 1, k], tris[s, 2, k])
            hi = max(tris[s, 0, k], tris[s, 1, k], tris[s, 2, k])
            if (hi < pk) if sign > 0 else (lo > pk):
                continue  # wholly behind the ray's origin
            a1, b1, c1 = tris[s, 0, j1], tris[s, 1, j1], tris[s, 2, j1]
            a2, b2, c2 = tris[s, 0, j2], tris[s, 1, j2], tris[s, 2, j2]
            if min(a1, b1, c1) > p1 or max(a1, b1, c1) < p1:
                continue
            if min(a2, b2, c2) > p2 or max(a2, b2, c2) < p2:
                continue
            o1 = orient2d(a1, a2, b1, b2, p1, p2)
            o2 = orient2d(b1, b2, c1, c2, p1, p2)
            o3 = orient2d(c1, c2, a1, a2, p1, p2)
            if (o1 > 0 or o2 > 0 or o3 > 0) and (o1 < 0 or o2 < 0 or o3 < 0):
                continue  # the line misses the face
            if o1 == 0 or o2 == 0 or o3 == 0:
                # the line meets an edge or a vertex: the point may lie on the face
                # itself (on one of its edges), which no other axis would decide
                if (
                    orient2d(a1, a2, b1, b2, c1, c2) != 0
                    and orient3d(
                        (tris[s, 0, 0], tris[s, 0, 1], tris[s, 0, 2]),
                        (tris[s, 1, 0], tris[s, 1, 1], tris[s, 1, 2]),
                        (tris[s, 2, 0], tris[s, 2, 1], tris[s, 2, 2]),
                        (points[q, 0], points[q, 1], points[q, 2]),
                    )
                    == 0
                ):
                    return _ON_FACE, 0
                return _DEGENERATE, 0
            # the line crosses the face's inside; o1 is the sign of the normal's k
            if (lo > pk) if sign > 0 else (hi < pk):
                ahead = True
            else:
                side = orient3d(
                    (tris[s, 0, 0], tris[s, 0, 1], tris[s, 0, 2]),
                    (tris[s, 1, 0], tris[s, 1, 1], tris[s, 1, 2]),
                    (tris[s, 2, 0], tris[s, 2, 1], tris[s, 2, 2]),
                    (points[q, 0], points[q, 1], points[q, 2]),
                )
                if side == 0:
                    return _ON_FACE, 0
                ahead = side == -o1 if sign > 0 else side == o1
            if ahead:
                count += o1 * sign
    return 0, count


@njit(cache=True, nogil=True)
def ray_winding(node_box, node_first, node_count, tris, stack, points, q):
    """(status, winding number) at point q, from the first of the six axis rays that
    meets no edge or vertex: status 0 (decided), _ON_FACE or _DEGENERATE (all six)."""
    for trial in range(6):
        status, count = _crossings(
            node_box, node_first, node_count, tris, stack, points, q,
            trial % 3, 1 if trial < 3 else -1,
        )  # fmt: skip
        if status != _DEGENERATE:
            return status, count
    return _DEGENERATE, 0


@njit(cache=True, nogil=True)
def _inside_range(
    node_box, node_first, node_count, tris, depth, points, out, start, stop
):
    # borrowed (hitbox._kernels.borrowed): the calls per point took and released a
    # reference to each array, atomics both threads share
    stack = np.empty(2 * depth + 4, np.intp)
    _inside_loop(node_box, node_first, node_count, tris, stack, points, out, start, stop)


@njit
def _inside_loop(node_box, node_first, node_count, tris, stack, points, out, start, stop):
    node_box, node_first = borrowed(node_box), borrowed(node_first)
    node_count, tris = borrowed(node_count), borrowed(tris)
    stack, points = borrowed(stack), borrowed(points)
    for q in range(start, stop):
        status, count = ray_winding(
            node_box, node_first, node_count, tris, stack, points, q
        )
        if status == _ON_FACE:
            out[q] = INSIDE
        elif status == 0:
            out[q] = INSIDE if count != 0 else OUTSIDE
        else:
            out[q] = UNDECIDED


@njit(cache=True, nogil=True)
def inside(node_box, node_first, node_count, tris, depth, points, out):
    """Per point, INSIDE, OUTSIDE or UNDECIDED for the closed mesh of ``tris`` (slot
    order) under the tree; on the surface counts as inside. Needs at least one node."""
    _inside_range(
        node_box, node_first, node_count, tris, depth, points, out, 0, len(points)
    )


@njit(cache=True, nogil=True, parallel=True)
def inside_parallel(node_box, node_first, node_count, tris, depth, points, out, threads):
    """:func:`inside`, in parallel: chunks of points dealt round-robin to one lane per
    thread (``threads``: numba's thread count, from the caller)."""
    n = len(points)
    lanes, n_chunks = lane_count(n, threads, _CHUNK)
    for lane in prange(lanes):
        for c in range(lane, n_chunks, lanes):
            lo, hi = chunk_span(c, n, _CHUNK)
            _inside_range(
                node_box, node_first, node_count, tris, depth, points, out, lo, hi,
            )  # fmt: skip
