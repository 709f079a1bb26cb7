"""Mesh-mesh distance certified by the meshes' convex hulls, before any tree walk.

Each mesh lies inside its convex hull, so the hulls' distance bounds the meshes' from
below. GJK on the hulls (support points found by climbing the hull's vertex graph from
the last one: on a convex polytope a vertex no neighbour beats is the farthest) gives a
closest pair of hull points x_a, x_b. Along n = (x_b - x_a) / |x_b - x_a| every point of
A projects at most max n.a and every point of B at least min n.b, over the hull vertices
and the points qhull found coplanar with its facets (every other point lies inside by
more than qhull's rounding): L = min n.b - max n.a, less its rounding, is a lower bound
on the mesh distance whatever GJK's accuracy. The triangles of each mesh around the
closest hull feature (those within rounding of x_a, x_b, found in the trees) give an
upper bound U, an actual triangle pair's distance. When U reaches L to the query's
tolerance (and 1e-12 relative), U is the answer: the hulls touch the meshes where they
are nearest, as for most poses of meshes apart (Gilbert, Johnson, Keerthi 1988).
Otherwise the caller walks the trees.
"""

import math

import numpy as np
from numba import njit

from hitbox._kernels.borrowed import borrowed
from hitbox._kernels.closest import make_nearest_walk
from hitbox._kernels.gjk import STALLED, grow, witnesses
from hitbox._kernels.triangle_closest import closest_on_triangle
from hitbox._kernels.triangle_distance import REL_EPS, tri_tri_distance
from hitbox._kernels.triangle_points import load, load_xf

MAX_ITER = 64
#: GJK stops when an iteration gains less than this, relative: far below REL_EPS, so
#: the separating direction it leaves is as good as rounding allows.
GAIN = 1e-15
#: Triangles kept per closest point (a vertex's fan; more only makes U lower).
CANDIDATES = 32
#: Hull vertices that may tie at the top of a projection before the certificate gives
#: up (a flat facet facing the other mesh ties all its vertices).
SEEN = 256
_EPS = 2.220446049250313e-16

NOT_CERTIFIED = -1.0


@njit(inline="always")
def _climb(pts, first, nb, start, dx, dy, dz):
    """The hull vertex farthest along d, climbing from ``start`` to the best neighbour
    until none is farther."""
    best = start
    top = pts[start, 0] * dx + pts[start, 1] * dy + pts[start, 2] * dz
    while True:
        here = best
        for e in range(first[here], first[here + 1]):
            u = nb[e]
            du = pts[u, 0] * dx + pts[u, 1] * dy + pts[u, 2] * dz
            if du > top:
                top = du
                best = u
        if best == here:
            return best


@njit(inline="always")
def map_cell(side, dx, dy, dz):
    """The cell of direction d in a cube map of ``side`` cells a side
    (:func:`hitbox._mesh_hull.cube_directions`), -1 for a zero, infinite or NaN
    direction."""
    ax, ay, az = abs(dx), abs(dy), abs(dz)
    if ax >= ay and ax >= az:
        face, big, u, v = (0 if dx >= 0.0 else 1), ax, dy, dz
    elif ay >= az:
        face, big, u, v = (2 if dy >= 0.0 else 3), ay, dz, dx
    else:
        face, big, u, v = (4 if dz >= 0.0 else 5), az, dx, dy
    if not (big > 0.0 and big < np.inf and abs(u) <= big and abs(v) <= big):
        return -1  # zero, infinite or NaN
    i = min(max(int((u / big + 1.0) * 0.5 * side), 0), side - 1)
    j = min(max(int((v / big + 1.0) * 0.5 * side), 0), side - 1)
    return (face * side + i) * side + j


@njit(inline="always")
def _support(pts, first, nb, starts, side, last, dx, dy, dz):
    """The hull vertex farthest along d, climbed from the better of the last one and
    the extreme vertex of d's cell in the cube map ``starts`` (GJK's directions jump
    early on, and a climb across the hull is long)."""
    best = last
    cell = map_cell(side, dx, dy, dz)
    if cell >= 0:
        v = starts[cell]
        top = pts[last, 0] * dx + pts[last, 1] * dy + pts[last, 2] * dz
        if pts[v, 0] * dx + pts[v, 1] * dy + pts[v, 2] * dz > top:
            best = v
    return _climb(pts, first, nb, best, dx, dy, dz)


@njit(inline="always")
def _store(ws, n, ia, ib, i, j, ax, ay, az, bx, by, bz):
    """Row n of the simplex: w = a - b, a, b, and the hull vertices they came from."""
    ws[n, 0], ws[n, 1], ws[n, 2] = ax - bx, ay - by, az - bz
    ws[n, 3], ws[n, 4], ws[n, 5] = ax, ay, az
    ws[n, 6], ws[n, 7], ws[n, 8] = bx, by, bz
    ia[n] = i
    ib[n] = j


@njit(cache=True, nogil=True)
def hull_gjk(hull_a, hull_b, rot, trans, ws, ia, ib):
    """GJK on hull A and hull B moved by (rot, trans) (:func:`certify`'s hulls).
    Returns (separated, n): the simplex in ``ws[:n]`` (layout of
    :mod:`hitbox._kernels.gjk`) with its hull vertices in ``ia[:n]``, ``ib[:n]``;
    separated False when the hulls meet or GJK did not settle."""
    # borrowed (hitbox._kernels.borrowed): the inlined climbs counted their arrays in
    # and out at every support
    ha, fa = borrowed(hull_a[0]), borrowed(hull_a[1])
    na, sta = borrowed(hull_a[2]), borrowed(hull_a[3])
    hb, fb = borrowed(hull_b[0]), borrowed(hull_b[1])
    nb, stb = borrowed(hull_b[2]), borrowed(hull_b[3])
    rot, trans = borrowed(rot), borrowed(trans)
    ws, ia, ib = borrowed(ws), borrowed(ia), borrowed(ib)
    lam = ws[4]
    # first supports along the line between the origins (A's toward B, B's toward A)
    lx = rot[0, 0] * trans[0] + rot[1, 0] * trans[1] + rot[2, 0] * trans[2]
    ly = rot[0, 1] * trans[0] + rot[1, 1] * trans[1] + rot[2, 1] * trans[2]
    lz = rot[0, 2] * trans[0] + rot[1, 2] * trans[1] + rot[2, 2] * trans[2]
    side_a = int(math.sqrt(len(sta) // 6) + 0.5)
    side_b = int(math.sqrt(len(stb) // 6) + 0.5)
    i = _support(ha, fa, na, sta, side_a, sta[0], trans[0], trans[1], trans[2])
    j = _support(hb, fb, nb, stb, side_b, stb[0], -lx, -ly, -lz)
    bx, by, bz = _moved(hb, j, rot, trans)
    _store(ws, 0, ia, ib, i, j, ha[i, 0], ha[i, 1], ha[i, 2], bx, by, bz)
    ws[0, 9] = 1.0
    n = 1
    vx, vy, vz = ws[0, 0], ws[0, 1], ws[0, 2]
    for _ in range(MAX_ITER):
        vv = vx * vx + vy * vy + vz * vz
        if not vv > 0.0:
            return False, n
        i = _support(ha, fa, na, sta, side_a, i, -vx, -vy, -vz)
        # B's support along v, found in B's frame
        lx = rot[0, 0] * vx + rot[1, 0] * vy + rot[2, 0] * vz
        ly = rot[0, 1] * vx + rot[1, 1] * vy + rot[2, 1] * vz
        lz = rot[0, 2] * vx + rot[1, 2] * vy + rot[2, 2] * vz
        j = _support(hb, fb, nb, stb, side_b, j, lx, ly, lz)
        for p in range(n):
            if ia[p] == i and ib[p] == j:
                return True, n  # no new support pair: v is the hulls' closest
        bx, by, bz = _moved(hb, j, rot, trans)
        wx, wy, wz = ha[i, 0] - bx, ha[i, 1] - by, ha[i, 2] - bz
        if vv - (vx * wx + vy * wy + vz * wz) <= GAIN * vv:
            return True, n
        _store(ws, n, ia, ib, i, j, ha[i, 0], ha[i, 1], ha[i, 2], bx, by, bz)
        m, ux, uy, uz = grow(ws, n, lam, vv)
        if m == 4:
            return False, 4
        if m == STALLED:  # ties, rounding: v is as near as it gets; the bound decides
            return True, n
        k = 0
        for p in range(n + 1):  # the same rows closest kept, in order
            if lam[p] > 0.0:
                ia[k] = ia[p]
                ib[k] = ib[p]
                k += 1
        n, vx, vy, vz = m, ux, uy, uz
    return False, n


@njit(inline="always")
def _moved(pts, j, rot, trans):
    x, y, z = pts[j, 0], pts[j, 1], pts[j, 2]
    return (
        trans[0] + rot[0, 0] * x + rot[0, 1] * y + rot[0, 2] * z,
        trans[1] + rot[1, 0] * x + rot[1, 1] * y + rot[1, 2] * z,
        trans[2] + rot[2, 0] * x + rot[2, 1] * y + rot[2, 2] * z,
    )


@njit(inline="always")
def _local(pts, p, moved, rot, trans, x, dx, dy, dz):
    """n.(p - x) for point p (moved when ``moved``) plus a bound on its rounding: the
    projection relative to x, so the rounding that counts is local, not the scale."""
    if moved:
        px, py, pz = _moved(pts, p, rot, trans)
    else:
        px, py, pz = pts[p, 0], pts[p, 1], pts[p, 2]
    ux, uy, uz = px - x[0], py - x[1], pz - x[2]
    return ux * dx + uy * dy + uz * dz + 4.0 * _EPS * (abs(ux) + abs(uy) + abs(uz))


@njit(inline="always")
def _reach(hull, moved, rot, trans, start, x, dx, dy, dz, far, seen, marks):
    """An upper bound on max n.(p - x) over the mesh's points (moved by (rot, trans)
    when ``moved``), n = (dx, dy, dz), ``far`` a bound on |p|_1; inf when too many hull
    vertices tie at the top. The climb finds the top hull vertex in the points' own
    frame; every vertex within rounding of it (a connected set on a convex polytope,
    found from it) and every coplanar point is then measured from x."""
    pts, first, nb, extra = hull[0], hull[1], hull[2], hull[4]
    if moved:  # n in the points' own frame
        lx = rot[0, 0] * dx + rot[1, 0] * dy + rot[2, 0] * dz
        ly = rot[0, 1] * dx + rot[1, 1] * dy + rot[2, 1] * dz
        lz = rot[0, 2] * dx + rot[1, 2] * dy + rot[2, 2] * dz
    else:
        lx, ly, lz = dx, dy, dz
    v = _climb(pts, first, nb, start, lx, ly, lz)
    floor = pts[v, 0] * lx + pts[v, 1] * ly + pts[v, 2] * lz
    floor -= 16.0 * _EPS * (far + abs(x[0]) + abs(x[1]) + abs(x[2]))
    # marks: one bit a hull vertex, set once queued (a flat facet facing n ties up to
    # SEEN vertices; looking each up in the queue took that count squared)
    for q in range(len(marks)):
        marks[q] = 0
    seen[0] = v
    marks[v >> 6] |= np.uint64(1) << np.uint64(v & 63)
    k = 1
    i = 0
    top = -np.inf
    while i < k:
        u = seen[i]
        i += 1
        top = max(top, _local(pts, u, moved, rot, trans, x, dx, dy, dz))
        for e in range(first[u], first[u + 1]):
            w = nb[e]
            if pts[w, 0] * lx + pts[w, 1] * ly + pts[w, 2] * lz < floor:
                continue
            bit = np.uint64(1) << np.uint64(w & 63)
            if marks[w >> 6] & bit:
                continue
            if k == len(seen):
                return np.inf
            marks[w >> 6] |= bit
            seen[k] = w
            k += 1
    for p in range(len(extra)):
        top = max(top, _local(extra, p, moved, rot, trans, x, dx, dy, dz))
    return top


@njit(inline="always")
def _touching_in_leaf(args, f, c, px, py, pz, state):
    """The walk's leaf test: slots [f, f + c) within sqrt(state[0]) of p, appended to
    ``args[1]`` (at most its length) after the state[1] found so far."""
    tris, out = args
    tol2, k = state
    for s in range(f, f + c):
        if k < len(out) and closest_on_triangle(tris, s, px, py, pz)[0] <= tol2:
            out[k] = s
            k += 1
    return tol2, k


_touching_walk = make_nearest_walk(_touching_in_leaf)


@njit(inline="always")
def _touching(node_box, first, count, tris, depth, x, tol2, out):
    """Slots of the triangles within sqrt(tol2) of point x (at most len(out)): their
    count. Found in the tree, so every triangle at x counts, however the mesh's flat
    parts are cut up."""
    stack = np.empty(2 * depth + 8, np.intp)
    bound = np.empty(2 * depth + 8)
    return _touching_walk(node_box, first, count, stack, bound, x[0], x[1], x[2],
                          (tris, out), (tol2, 0))[1]  # fmt: skip


@njit(inline="always")
def _borrowed_hull(hull):
    """A hull's arrays (:func:`certify`'s layout) each
    :func:`~hitbox._kernels.borrowed.borrowed`, its largest norm as it is."""
    return (borrowed(hull[0]), borrowed(hull[1]), borrowed(hull[2]), borrowed(hull[3]),
            borrowed(hull[4]), borrowed(hull[5]), hull[6])  # fmt: skip


@njit(cache=True, nogil=True)
def certify(hull_a, hull_b, a_first, a_count, a_tris, b_first, b_count, b_tris, rot,
            trans, depth, upper, rtol, atol, out_f, out_i):  # fmt: skip
    """The mesh distance when the hulls certify it, else NOT_CERTIFIED (-1).

    ``hull_a``, ``hull_b``: :func:`hitbox._mesh_hull.hull_parts` (points, edge graph,
    start vertices, coplanar points, node boxes, largest L1 norm); each tree's node
    children (first, count), its triangles in slot order and its ``depth`` at most;
    B moved by (rot, trans). Answers as
    :func:`hitbox._kernels.distance_wide.mesh_distance_wide` does: the
    distance with out_f, out_i[:2] filled, or inf with out_i[:2] = -1 when the meshes
    are at least ``upper`` apart."""
    hull_a, hull_b = _borrowed_hull(hull_a), _borrowed_hull(hull_b)
    a_first, a_count, a_tris = borrowed(a_first), borrowed(a_count), borrowed(a_tris)
    b_first, b_count, b_tris = borrowed(b_first), borrowed(b_count), borrowed(b_tris)
    rot, trans = borrowed(rot), borrowed(trans)
    out_f, out_i = borrowed(out_f), borrowed(out_i)
    box_a, norm_a = hull_a[5], hull_a[6]
    box_b, norm_b = hull_b[5], hull_b[6]
    if len(hull_a[0]) == 0 or len(hull_b[0]) == 0:
        return NOT_CERTIFIED
    ws = np.empty((9, 10))
    ia = np.empty(4, np.intp)
    ib = np.empty(4, np.intp)
    separated, n = hull_gjk(hull_a, hull_b, rot, trans, ws, ia, ib)
    if not separated:
        return NOT_CERTIFIED
    xa0, xa1, xa2, xb0, xb1, xb2 = witnesses(ws, n)
    dx, dy, dz = xb0 - xa0, xb1 - xa1, xb2 - xa2
    gap = math.sqrt(dx * dx + dy * dy + dz * dz)
    if not gap > 0.0:
        return NOT_CERTIFIED
    dx, dy, dz = dx / gap, dy / gap, dz / gap
    # the separating plane's bound: A's greatest and B's least projection on n, each
    # relative to its closest point, and the gap between those
    xa = (xa0, xa1, xa2)
    xb = (xb0, xb1, xb2)
    far_b = 1.7320508075688772 * norm_b + abs(trans[0]) + abs(trans[1]) + abs(trans[2])
    seen = np.empty(SEEN, np.intp)
    marks = np.empty((max(len(hull_a[0]), len(hull_b[0])) + 63) >> 6, np.uint64)
    top_a = _reach(hull_a, False, rot, trans, ia[0], xa, dx, dy, dz, norm_a, seen, marks)
    top_b = _reach(hull_b, True, rot, trans, ib[0], xb, -dx, -dy, -dz, far_b, seen, marks)
    bound = gap - top_b - top_a
    bound -= 8.0 * _EPS * (gap + abs(top_a) + abs(top_b))
    if bound >= upper:
        out_i[0] = -1
        out_i[1] = -1
        return np.inf
    if not bound > 0.0:
        return NOT_CERTIFIED
    size = norm_a + far_b
    tol2 = (1e-11 * size) ** 2
    # the triangles at each closest point: their nearest pair is the upper bound
    ca = np.empty(CANDIDATES, np.intp)
    cb = np.empty(CANDIDATES, np.intp)
    ka = _touching(box_a, a_first, a_count, a_tris, depth, xa, tol2, ca)
    # x_b in B's own frame, where B's tree is
    wx, wy, wz = xb0 - trans[0], xb1 - trans[1], xb2 - trans[2]
    yb = (rot[0, 0] * wx + rot[1, 0] * wy + rot[2, 0] * wz,
          rot[0, 1] * wx + rot[1, 1] * wy + rot[2, 1] * wz,
          rot[0, 2] * wx + rot[1, 2] * wy + rot[2, 2] * wz)  # fmt: skip
    kb = _touching(box_b, b_first, b_count, b_tris, depth, yb, tol2, cb)
    best = np.inf
    for p in range(ka):
        p0, p1, p2 = load(a_tris, ca[p])
        for q in range(kb):
            q0, q1, q2 = load_xf(b_tris, cb[q], rot, trans)
            d2, x, y = tri_tri_distance(p0, p1, p2, q0, q1, q2)
            if d2 < best:
                best = d2
                out_i[0] = ca[p]
                out_i[1] = cb[q]
                for r in range(3):
                    out_f[r] = x[r]
                    out_f[3 + r] = y[r]
    if best == np.inf:
        return NOT_CERTIFIED
    d = math.sqrt(best)
    if d >= upper or d > bound * (1.0 + rtol) + atol + REL_EPS * d:
        return NOT_CERTIFIED
    return d
