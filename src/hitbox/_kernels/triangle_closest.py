"""The point of one triangle closest to a point, in float64.

Ericson, "Real-Time Collision Detection" (2005) §5.1.5: the Voronoi regions of the
vertices, then of the edges, then the face; a needle or a sliver, where rounding
decides those regions, takes the nearest of its edges' points and its plane's foot
(:func:`_thin_weights`). The point is clamped to the triangle's box, so its squared
distance, summed in the same order as a box's, is never below the box's bound.
"""

from numba import njit

#: Triangles with |ab x ac|^2 (four times the squared area) at most this times the
#: longest edge's length to the fourth are thin: rounding may put a point in the wrong
#: one of Ericson's regions (a point of the triangle, but not the nearest), so all
#: their candidates are compared.
THIN = 1e-6


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
