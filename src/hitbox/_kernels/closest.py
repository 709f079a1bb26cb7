"""Closest points on a triangle mesh: a BVH walk per point, serial and parallel.

The closest point on one triangle follows Ericson, "Real-Time Collision Detection"
(2005) §5.1.5: the Voronoi regions of the vertices, then of the edges, then the face,
in float64; a needle or a sliver, where rounding decides those regions, takes the
nearest of its edges' points and its plane's foot (:func:`_thin_weights`). The walk
is depth-first over the nodes' exact AABBs, nearer child first, pruning a node whose
squared point-box distance exceeds the best squared distance so far.
Each point starts from the previous point's best triangle as an upper bound.

The computed closest point is clamped to its triangle's box, so its squared distance,
summed in the same order as a box's, is never below the box bound of any node holding
that triangle (rounding is monotone): pruning never drops the triangle that a test of
every triangle would pick. Ties go to the lowest face index, so the walk and
:func:`closest_brute` agree exactly.
"""

import numpy as np
from numba import njit, prange

from hitbox._kernels.lanes import chunk_span, lane_count

#: Triangles with |ab x ac|^2 (four times the squared area) at most this times the
#: longest edge's length to the fourth are thin: rounding may put a point in the wrong
#: one of Ericson's regions (a point of the triangle, but not the nearest), so all
#: their candidates are compared.
THIN = 1e-6
#: Points per call from which the parallel kernel is used.
PARALLEL_MIN = 4096
#: Points per call from which the caller walks them in spatial order.
SORT_MIN = 256
_CHUNK = 256  # consecutive points walked by one thread, sharing the warm start


@njit(inline="always")
def _clamp(x, lo, hi):
    return lo if x < lo else (hi if x > hi else x)


@njit
def _on_segment(px, py, pz, ax, ay, az, bx, by, bz):
    """(squared distance, t): the point a + t (b - a), t in [0, 1], of segment ab
    closest to p."""
    ex, ey, ez = bx - ax, by - ay, bz - az
    den = ex * ex + ey * ey + ez * ez
    num = (px - ax) * ex + (py - ay) * ey + (pz - az) * ez
    t = 0.0 if den <= 0.0 else _clamp(num / den, 0.0, 1.0)
    qx, qy, qz = ax + t * ex, ay + t * ey, az + t * ez
    return (px - qx) ** 2 + (py - qy) ** 2 + (pz - qz) ** 2, t


@njit
def _dots(ux, uy, uz, vx, vy, vz, wx, wy, wz):
    """(u . w, v . w)."""
    return ux * wx + uy * wy + uz * wz, vx * wx + vy * wy + vz * wz


@njit
def _edge_t(v, d_from, d_to):
    """t along an edge where p lies in the edge's Voronoi region, else -1 (Ericson's
    edge test): ``v`` the face barycentric of the vertex opposite, ``d_from`` and
    ``d_to`` the edge's dot products with p minus each end. An edge of no length has
    no region: the other tests answer."""
    if v <= 0.0 and d_from >= 0.0 and d_to <= 0.0 and d_from - d_to > 0.0:
        return d_from / (d_from - d_to)
    return -1.0


@njit
def _vertex_or_edge(e_a, o_a, e_v, o_v):
    """Ericson's test of vertex v, then of the edge e from vertex a to v: (weight of v,
    the face barycentric of the third vertex); the weight is 1 in v's region, in [0, 1]
    in the edge's, -1 in neither. ``e_a``, ``o_a``: e and the triangle's other edge
    from a, dotted with p - a; ``e_v``, ``o_v``: with p - v."""
    if e_v >= 0.0 and o_v <= e_v:
        return 1.0, 0.0
    v = e_a * o_v - e_v * o_a
    return _edge_t(v, e_a, e_v), v


@njit(inline="always")
def closest_on_triangle(tris, s, px, py, pz):
    """(squared distance, qx, qy, qz, wa, wb, wc): the point of triangle s of a (S, 3, 3)
    array closest to p (:func:`closest_point_on`)."""
    return closest_point_on(
        px, py, pz, tris[s, 0, 0], tris[s, 0, 1], tris[s, 0, 2],
        tris[s, 1, 0], tris[s, 1, 1], tris[s, 1, 2],
        tris[s, 2, 0], tris[s, 2, 1], tris[s, 2, 2],
    )  # fmt: skip


# inlined into its one caller: a real call is a large share of the triangle test
@njit(inline="always")
def _weights(px, py, pz, ax, ay, az, bx, by, bz, cx, cy, cz):
    """Barycentric weights (wa, wb, wc) of the point of triangle abc closest to p:
    Ericson's region tests in his order, the first that holds answering; a thin
    triangle (:data:`THIN`) by :func:`_thin_weights`."""
    abx, aby, abz = bx - ax, by - ay, bz - az
    acx, acy, acz = cx - ax, cy - ay, cz - az
    uu = abx * abx + aby * aby + abz * abz
    ww = acx * acx + acy * acy + acz * acz
    uw = abx * acx + aby * acy + abz * acz
    longest = max(uu, ww, uu + ww - 2.0 * uw)  # of the three squared edge lengths
    if uu * ww - uw * uw <= THIN * longest * longest:
        return _thin_weights(px, py, pz, ax, ay, az, bx, by, bz, cx, cy, cz)
    d1, d2 = _dots(abx, aby, abz, acx, acy, acz, px - ax, py - ay, pz - az)
    if d1 <= 0.0 and d2 <= 0.0:  # vertex a
        return 1.0, 0.0, 0.0
    d3, d4 = _dots(abx, aby, abz, acx, acy, acz, px - bx, py - by, pz - bz)
    t, vc = _vertex_or_edge(d1, d2, d3, d4)
    if t >= 0.0:  # vertex b or edge ab
        return 1.0 - t, t, 0.0
    d5, d6 = _dots(abx, aby, abz, acx, acy, acz, px - cx, py - cy, pz - cz)
    t, vb = _vertex_or_edge(d2, d1, d6, d5)
    if t >= 0.0:  # vertex c or edge ac
        return 1.0 - t, 0.0, t
    va = d3 * d6 - d5 * d4
    t = _edge_t(va, d4 - d3, d6 - d5)
    if t >= 0.0:  # edge bc
        return 0.0, 1.0 - t, t
    if va > 0.0 and vb > 0.0 and vc > 0.0:  # the face
        return _face_weights(va, vb, vc)
    # rounding kept p from every region (it lies on a boundary): every candidate
    return _thin_weights(px, py, pz, ax, ay, az, bx, by, bz, cx, cy, cz)


@njit(inline="always")
def _face_weights(va, vb, vc):
    """Ericson's face weights from the three region values (each > 0)."""
    den = 1.0 / (va + vb + vc)
    wb, wc = vb * den, vc * den
    return max(1.0 - wb - wc, 0.0), wb, wc  # rounding: keep them a partition of one


@njit
def _thin_weights(px, py, pz, ax, ay, az, bx, by, bz, cx, cy, cz):
    """:func:`_weights` of a needle, a sliver or a point, where rounding decides
    Ericson's regions: the nearest of the edges' points and of p's foot on the plane
    where it falls inside (every candidate a point of the triangle). The foot's
    weights come from the normal of the two shorter edges (errors of order
    eps / sin, against Ericson's eps / sin^2)."""
    best, t = _on_segment(px, py, pz, ax, ay, az, bx, by, bz)
    wa, wb, wc = 1.0 - t, t, 0.0
    d, t = _on_segment(px, py, pz, ax, ay, az, cx, cy, cz)
    if d < best:
        best, wa, wb, wc = d, 1.0 - t, 0.0, t
    d, t = _on_segment(px, py, pz, bx, by, bz, cx, cy, cz)
    if d < best:
        best, wa, wb, wc = d, 0.0, 1.0 - t, t
    # o: the vertex opposite the longest edge; e and f: the edges from it
    ab = (bx - ax) ** 2 + (by - ay) ** 2 + (bz - az) ** 2
    ac = (cx - ax) ** 2 + (cy - ay) ** 2 + (cz - az) ** 2
    bc = (cx - bx) ** 2 + (cy - by) ** 2 + (cz - bz) ** 2
    if bc >= ab and bc >= ac:
        o, e, f, k = (ax, ay, az), (bx, by, bz), (cx, cy, cz), 0
    elif ac >= ab:
        o, e, f, k = (bx, by, bz), (cx, cy, cz), (ax, ay, az), 1
    else:
        o, e, f, k = (cx, cy, cz), (ax, ay, az), (bx, by, bz), 2
    ex, ey, ez = e[0] - o[0], e[1] - o[1], e[2] - o[2]
    fx, fy, fz = f[0] - o[0], f[1] - o[1], f[2] - o[2]
    nx, ny, nz = ey * fz - ez * fy, ez * fx - ex * fz, ex * fy - ey * fx
    nn = nx * nx + ny * ny + nz * nz
    if not nn > 0.0:
        return wa, wb, wc
    wx, wy, wz = px - o[0], py - o[1], pz - o[2]
    # p = o + s e + t f + h n: s = n . (w x f) / nn, t = n . (e x w) / nn
    s = (
        nx * (wy * fz - wz * fy) + ny * (wz * fx - wx * fz) + nz * (wx * fy - wy * fx)
    ) / nn
    t = (
        nx * (ey * wz - ez * wy) + ny * (ez * wx - ex * wz) + nz * (ex * wy - ey * wx)
    ) / nn
    if s < 0.0 or t < 0.0 or s + t > 1.0:
        return wa, wb, wc
    qx, qy, qz = o[0] + s * ex + t * fx, o[1] + s * ey + t * fy, o[2] + s * ez + t * fz
    if (px - qx) ** 2 + (py - qy) ** 2 + (pz - qz) ** 2 < best:
        r = 1.0 - s - t  # o's weight; e and f follow o around the triangle
        if k == 0:
            return r, s, t
        if k == 1:
            return t, r, s
        return s, t, r
    return wa, wb, wc


@njit(cache=True, nogil=True)
def closest_point_on(px, py, pz, ax, ay, az, bx, by, bz, cx, cy, cz):
    """(squared distance, qx, qy, qz, wa, wb, wc): the point of triangle abc closest to
    p, Ericson §5.1.5.

    ``wa, wb, wc`` are its barycentric weights of the vertices (each in [0, 1], summing
    to 1). A zero-area triangle is the segment or point it spans. Exact to rounding on
    well-shaped triangles; on thin ones (:data:`THIN`) the distance is within about
    1e-9 of the coordinates' size (tests/test_points.py, against exact rationals).
    """
    wa, wb, wc = _weights(px, py, pz, ax, ay, az, bx, by, bz, cx, cy, cz)
    qx = _clamp(wa * ax + wb * bx + wc * cx, min(ax, bx, cx), max(ax, bx, cx))
    qy = _clamp(wa * ay + wb * by + wc * cy, min(ay, by, cy), max(ay, by, cy))
    qz = _clamp(wa * az + wb * bz + wc * cz, min(az, bz, cz), max(az, bz, cz))
    dx, dy, dz = px - qx, py - qy, pz - qz
    return dx * dx + dy * dy + dz * dz, qx, qy, qz, wa, wb, wc


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


#: Points per call from which the walk goes over a four-wide view of the tree (built per
#: call, linear in the nodes).
WIDE_MIN = 4096
_LANES = 4
_NO_LANE = -(2**62)  # an unused lane's child


@njit(cache=True, nogil=True)
def wide_tree(node_box, node_first, node_count):
    """(box, child): a four-wide view of the binary tree, each wide node the up to four
    nodes below two levels of it (Wald et al. 2008, "Getting rid of packets"; Embree's
    BVH4 collapse). ``box[w]`` is (6, 4): lo x, y, z then hi x, y, z of the lanes,
    lane-minor, so that the four distances vectorize; an unused lane is the empty box.
    ``child[w, l]`` is a wide node (>= 0) or ``-1 - m`` for binary leaf m."""
    n = len(node_count)
    cap = max(1, n // 2 + 1)
    box = np.empty((cap, 6, _LANES))
    child = np.full((cap, _LANES), _NO_LANE, np.int64)
    todo = np.empty(cap, np.int64)  # binary inner nodes still to make into wide nodes
    lanes = np.empty(_LANES, np.int64)
    todo[0] = 0
    n_w, head = 1, 0  # wide node w comes from binary node todo[w]
    if node_count[0] > 0:  # one leaf: one wide node of one lane
        for a in range(3):
            box[0, a, :] = np.inf
            box[0, 3 + a, :] = -np.inf
            box[0, a, 0] = node_box[0, 0, a]
            box[0, 3 + a, 0] = node_box[0, 1, a]
        child[0, 0] = -1
        return box, child
    while head < n_w:
        m = todo[head]
        f = node_first[m]
        k = 0
        for c in (f, f + 1):  # each inner child gives its two children
            if node_count[c] == 0:
                lanes[k], lanes[k + 1] = node_first[c], node_first[c] + 1
                k += 2
            else:
                lanes[k] = c
                k += 1
        for lane in range(_LANES):
            for a in range(3):
                if lane < k:
                    box[head, a, lane] = node_box[lanes[lane], 0, a]
                    box[head, 3 + a, lane] = node_box[lanes[lane], 1, a]
                else:
                    box[head, a, lane] = np.inf
                    box[head, 3 + a, lane] = -np.inf
            if lane < k:
                c = lanes[lane]
                if node_count[c] > 0:
                    child[head, lane] = -1 - c
                else:
                    child[head, lane] = n_w
                    todo[n_w] = c
                    n_w += 1
        head += 1
    return box[:n_w], child[:n_w]


@njit(cache=True, nogil=True)
def _closest_wide_range(
    wbox, wchild, node_first, node_count, tris, slot_box, prim_order, depth, points, order,
    out_point, out_d, out_slot, out_w, start, stop,
):  # fmt: skip
    """:func:`_closest_range` over the four-wide view: the same pruning (a lane whose
    box is farther than the best is dropped; ties are walked), so the same answers."""
    cap = 3 * depth + 8
    stack = np.empty(cap, np.int64)
    bound = np.empty(cap)
    dist = np.empty(_LANES)
    best_s = -1
    for t in range(start, stop):
        p = order[t]
        px, py, pz = points[p, 0], points[p, 1], points[p, 2]
        # from the previous point's triangle (_warm_start, written out as the leaf is)
        best, best_f, q = np.inf, NO_FACE, (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        if best_s >= 0:
            s = best_s
            d, qx, qy, qz, wa, wb, wc = closest_point_on(
                px, py, pz, tris[s, 0, 0], tris[s, 0, 1], tris[s, 0, 2],
                tris[s, 1, 0], tris[s, 1, 1], tris[s, 1, 2],
                tris[s, 2, 0], tris[s, 2, 1], tris[s, 2, 2],
            )  # fmt: skip
            best, best_f, q = d, prim_order[s], (qx, qy, qz, wa, wb, wc)
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
                    if box_d2(slot_box, s, px, py, pz) > best:
                        continue
                    d, qx, qy, qz, wa, wb, wc = closest_point_on(
                        px, py, pz, tris[s, 0, 0], tris[s, 0, 1], tris[s, 0, 2],
                        tris[s, 1, 0], tris[s, 1, 1], tris[s, 1, 2],
                        tris[s, 2, 0], tris[s, 2, 1], tris[s, 2, 2],
                    )  # fmt: skip
                    if d < best or (d == best and prim_order[s] < best_f):
                        best, best_s, best_f = d, s, prim_order[s]
                        q = (qx, qy, qz, wa, wb, wc)
                continue
            for lane in range(_LANES):  # summed as box_d2 sums: the same bounds
                dx = max(wbox[w, 0, lane] - px, 0.0, px - wbox[w, 3, lane])
                dy = max(wbox[w, 1, lane] - py, 0.0, py - wbox[w, 4, lane])
                dz = max(wbox[w, 2, lane] - pz, 0.0, pz - wbox[w, 5, lane])
                dist[lane] = dx * dx + dy * dy + dz * dz
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
    """One thread's chunk of points, their answers, and the identity order."""
    return (
        np.empty((_CHUNK, 3)), np.empty((_CHUNK, 3)), np.empty(_CHUNK),
        np.empty(_CHUNK, np.intp), np.empty((_CHUNK, 3)), np.arange(_CHUNK),
    )  # fmt: skip


@njit(cache=True, nogil=True)
def _closest_chunk(
    wbox, wchild, node_first, node_count, tris, slot_box, prim_order, depth, points,
    order, out_point, out_d, out_slot, out_w, lo, hi, buffers,
):  # fmt: skip
    """:func:`_closest_wide_range` over points order[lo..hi], gathered into a chunk
    first and their answers scattered after: the walks read and write one small block,
    and the scattered loads and stores, in loops of their own, overlap."""
    pts, q, d, slot, w, ident = buffers
    m = hi - lo
    for u in range(m):
        p = order[lo + u]
        pts[u, 0], pts[u, 1], pts[u, 2] = points[p, 0], points[p, 1], points[p, 2]
    _closest_wide_range(
        wbox, wchild, node_first, node_count, tris, slot_box, prim_order, depth, pts,
        ident, q, d, slot, w, 0, m,
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
    out_point, out_d, out_slot, out_w,
):  # fmt: skip
    """Closest point of the mesh to each point: point, distance, slot, barycentrics.

    ``tris`` are the triangles in slot order, ``slot_box`` their exact boxes (S, 2, 3),
    ``prim_order[slot]`` their face index; the
    tree must hold at least one triangle. Points are walked in ``order`` (a permutation:
    each walk starts from the previous one's triangle) and answered in place.
    """
    if len(points) >= WIDE_MIN:
        wbox, wchild = wide_tree(node_box, node_first, node_count)
        buffers = _chunk_buffers()
        for c in range((len(points) + _CHUNK - 1) // _CHUNK):
            lo, hi = chunk_span(c, len(points), _CHUNK)
            _closest_chunk(
                wbox, wchild, node_first, node_count, tris, slot_box, prim_order, depth,
                points, order, out_point, out_d, out_slot, out_w, lo, hi, buffers,
            )  # fmt: skip
    else:
        _closest_range(
            node_box, node_first, node_count, tris, slot_box, prim_order, depth, points,
            order, out_point, out_d, out_slot, out_w, 0, len(points),
        )  # fmt: skip


@njit(cache=True, nogil=True, parallel=True)
def closest_parallel(
    node_box, node_first, node_count, tris, slot_box, prim_order, depth, points, order,
    out_point, out_d, out_slot, out_w, threads,
):  # fmt: skip
    """:func:`closest`, in parallel: chunks of consecutive points dealt round-robin to
    one lane per thread (``threads``: numba's thread count, from the caller)."""
    n = len(points)
    wbox, wchild = wide_tree(node_box, node_first, node_count)
    lanes, n_chunks = lane_count(n, threads, _CHUNK)
    for lane in prange(lanes):
        buffers = _chunk_buffers()
        for c in range(lane, n_chunks, lanes):
            lo, hi = chunk_span(c, n, _CHUNK)
            _closest_chunk(
                wbox, wchild, node_first, node_count, tris, slot_box, prim_order, depth,
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
