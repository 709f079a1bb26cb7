"""Exact triangle primitives: triangle overlap and contact, watertight ray–triangle.

Inside these kernels a point is a 3-tuple of float64 and a triangle three of them, so a
triangle moved by a rigid transform (``load_xf``) needs no scratch array. Load them from
``(F, 3, 3)`` arrays with ``load(tris, i)`` or ``load_xf(tris, j, rot, trans)``.

Triangles are closed sets: touching counts, so mesh neighbours that share a vertex or an
edge overlap. Zero-area triangles are the segment or point they span.

Every decision of ``tri_tri_overlap`` is a sign of an orientation determinant (orient2d,
orient3d) or a comparison of coordinates, and each sign is exact: a floating-point filter
first (Shewchuk 1997, "Adaptive Precision Floating-Point Arithmetic and Fast Robust
Geometric Predicates", bounds ``ccwerrboundA``/``o3derrboundA``), then, only when the
filter cannot decide, the determinant expanded into products of the input coordinates,
each split exactly (Dekker's two-product) and summed exactly (the partials of Python's
``math.fsum``). The answer is therefore the exact answer for the float64 inputs, at any
scale (subnormals included), as long as the non-zero coordinate magnitudes met by one
predicate span less than about 1e170; it does not depend on the order of the vertices or
of the two triangles. The contact points and ray hit distances are floating-point
geometry; whether there is a contact is exact.
"""

import math

import numpy as np
from numba import njit

_EPS = 2.0**-53  # Shewchuk's epsilon: half an ulp of 1.0
_O2_BOUND = (3.0 + 16.0 * _EPS) * _EPS  # ccwerrboundA
_O3_BOUND = (7.0 + 56.0 * _EPS) * _EPS  # o3derrboundA
_SPLITTER = 134217729.0  # 2**27 + 1: Dekker's split of a double into two 26-bit halves
# A product's absolute error under gradual underflow is at most 2**-1075 (sums of floats
# are exact there); the filters add a few of these to Shewchuk's relative bounds.
_UNDERFLOW = 2.0**-1070
_LIFT2 = 500  # the exact paths scale the largest coordinate to about 2**_LIFT
_LIFT3 = 300
CONTACT_SCRATCH = 64  # contact candidates per triangle pair: 6 edges x 8 points at most

# -- exact signs -------------------------------------------------------------------------


@njit(inline="always")
def _same(a, b):
    return a[0] == b[0] and a[1] == b[1] and a[2] == b[2]


@njit(inline="always")
def _two_product(a, b):
    """``a * b == p + e`` exactly, ``p = fl(a * b)`` (Dekker 1971; no FMA needed)."""
    p = a * b
    c = _SPLITTER * a
    a_hi = c - (c - a)
    a_lo = a - a_hi
    c = _SPLITTER * b
    b_hi = c - (c - b)
    b_lo = b - b_hi
    e = a_lo * b_lo - (((p - a_hi * b_hi) - a_lo * b_hi) - a_hi * b_lo)
    return p, e


@njit(cache=True)
def _sum_sign(buf, n):
    """Sign of the exact sum of ``buf[:n]``; overwrites ``buf``.

    The partials of Python's ``math.fsum`` (Shewchuk's grow-expansion): after each input
    they are non-overlapping and increasing in magnitude, so the largest non-zero one has
    the sign of the exact sum. Partials are written over inputs already read.
    """
    m = 0
    for k in range(n):
        x = buf[k]
        i = 0
        for jj in range(m):
            y = buf[jj]
            if abs(x) < abs(y):
                x, y = y, x
            hi = x + y
            lo = y - (hi - x)
            if lo != 0.0:
                buf[i] = lo
                i += 1
            x = hi
        buf[i] = x
        m = i + 1
    for jj in range(m - 1, -1, -1):
        if buf[jj] > 0.0:
            return 1
        if buf[jj] < 0.0:
            return -1
    return 0


@njit(inline="always")
def _lift(x, k):
    return (math.ldexp(x[0], k), math.ldexp(x[1], k), math.ldexp(x[2], k))


@njit(cache=True)
def _orient2d_exact(ax, ay, bx, by, cx, cy):
    """Exact sign of ``det[[ax, ay, 1], [bx, by, 1], [cx, cy, 1]]`` from six products.

    Scaled first by a power of two (which keeps the sign) so the largest coordinate is
    about 2**500: no product overflows, and none underflows unless the coordinates span
    more than about 1e280 in magnitude.
    """
    big = max(abs(ax), abs(ay), abs(bx), abs(by), abs(cx), abs(cy))
    if big == 0.0:
        return 0
    k = _LIFT2 - math.frexp(big)[1]
    ax, ay, bx, by = (
        math.ldexp(ax, k),
        math.ldexp(ay, k),
        math.ldexp(bx, k),
        math.ldexp(by, k),
    )
    cx, cy = math.ldexp(cx, k), math.ldexp(cy, k)
    buf = np.empty(12)
    buf[0], buf[1] = _two_product(ax, by)
    buf[2], buf[3] = _two_product(ay, cx)
    buf[4], buf[5] = _two_product(bx, cy)
    p, e = _two_product(ax, cy)
    buf[6], buf[7] = -p, -e
    p, e = _two_product(ay, bx)
    buf[8], buf[9] = -p, -e
    p, e = _two_product(by, cx)
    buf[10], buf[11] = -p, -e
    return _sum_sign(buf, 12)


@njit(cache=True)
def orient2d(ax, ay, bx, by, cx, cy):
    """Exact sign of ``(b - a) x (c - a)``: +1 when a, b, c turn counter-clockwise.

    Shewchuk's filter, widened by the absolute error of gradual underflow; then exact
    zeros (a difference that is exactly 0 in each product); then the exact expansion.
    """
    ux, vy = bx - ax, cy - ay
    uy, vx = by - ay, cx - ax
    left = ux * vy
    right = uy * vx
    det = left - right
    bound = _O2_BOUND * (abs(left) + abs(right)) + _UNDERFLOW
    if det > bound:
        return 1
    if det < -bound:
        return -1
    if (ux == 0.0 or vy == 0.0) and (uy == 0.0 or vx == 0.0):
        return 0
    return _orient2d_exact(ax, ay, bx, by, cx, cy)


@njit(inline="always")
def _push_product3(buf, n, x, y, z, sign):
    """Append ``sign * x * y * z`` to ``buf`` as four floats that sum to it exactly."""
    p, e = _two_product(x, y)
    h, l = _two_product(p, z)
    buf[n] = sign * h
    buf[n + 1] = sign * l
    h, l = _two_product(e, z)
    buf[n + 2] = sign * h
    buf[n + 3] = sign * l
    return n + 4


@njit(inline="always")
def _push_det3(buf, n, x, y, z, sign):
    """Append ``sign * det[x; y; z]`` (rows are points) as 24 floats."""
    n = _push_product3(buf, n, x[0], y[1], z[2], sign)
    n = _push_product3(buf, n, x[0], y[2], z[1], -sign)
    n = _push_product3(buf, n, x[1], y[0], z[2], -sign)
    n = _push_product3(buf, n, x[1], y[2], z[0], sign)
    n = _push_product3(buf, n, x[2], y[0], z[1], sign)
    return _push_product3(buf, n, x[2], y[1], z[0], -sign)


@njit(cache=True)
def _orient3d_exact(a, b, c, d):
    """Exact sign of ``det[b - a; c - a; d - a]``.

    That is ``-det`` of the 4x4 matrix with rows ``(p, 1)``; expanding along the column of
    ones gives ``det[b;c;d] - det[a;c;d] + det[a;b;d] - det[a;b;c]``, 24 products of three
    input coordinates, with no rounded differences. A repeated point gives 0 at once;
    otherwise the points are first scaled by a power of two so the largest coordinate is
    about 2**300: no product overflows, and none underflows unless the coordinates span
    more than about 1e170 in magnitude.
    """
    if (
        _same(a, b)
        or _same(a, c)
        or _same(a, d)
        or _same(b, c)
        or _same(b, d)
        or _same(c, d)
    ):
        return 0
    big = 0.0
    for p in (a, b, c, d):
        big = max(big, abs(p[0]), abs(p[1]), abs(p[2]))
    k = _LIFT3 - math.frexp(big)[1]
    a, b, c, d = _lift(a, k), _lift(b, k), _lift(c, k), _lift(d, k)
    buf = np.empty(96)
    n = _push_det3(buf, 0, b, c, d, 1.0)
    n = _push_det3(buf, n, a, c, d, -1.0)
    n = _push_det3(buf, n, a, b, d, 1.0)
    n = _push_det3(buf, n, a, b, c, -1.0)
    return _sum_sign(buf, n)


@njit(cache=True)
def orient3d(a, b, c, d):
    """Exact sign of ``((b - a) x (c - a)) . (d - a)``: the side of plane abc d is on.

    +1 on the side the normal ``(b - a) x (c - a)`` points to. Filter from Shewchuk's
    ``orient3d``, widened by the absolute error of gradual underflow; then exact zeros
    (each of the three terms has a factor that is exactly 0); then the exact expansion.
    """
    ux, uy, uz = b[0] - a[0], b[1] - a[1], b[2] - a[2]
    vx, vy, vz = c[0] - a[0], c[1] - a[1], c[2] - a[2]
    wx, wy, wz = d[0] - a[0], d[1] - a[1], d[2] - a[2]
    vywz, vzwy = vy * wz, vz * wy
    vzwx, vxwz = vz * wx, vx * wz
    vxwy, vywx = vx * wy, vy * wx
    det = ux * (vywz - vzwy) + uy * (vzwx - vxwz) + uz * (vxwy - vywx)
    permanent = (
        (abs(vywz) + abs(vzwy)) * abs(ux)
        + (abs(vzwx) + abs(vxwz)) * abs(uy)
        + (abs(vxwy) + abs(vywx)) * abs(uz)
    )
    bound = _O3_BOUND * permanent + _UNDERFLOW * (1.0 + abs(ux) + abs(uy) + abs(uz))
    if det > bound:
        return 1
    if det < -bound:
        return -1
    if (
        (ux == 0.0 or ((vy == 0.0 or wz == 0.0) and (vz == 0.0 or wy == 0.0)))
        and (uy == 0.0 or ((vz == 0.0 or wx == 0.0) and (vx == 0.0 or wz == 0.0)))
        and (uz == 0.0 or ((vx == 0.0 or wy == 0.0) and (vy == 0.0 or wx == 0.0)))
    ):
        return 0
    return _orient3d_exact(a, b, c, d)


# -- small vector helpers ----------------------------------------------------------------


@njit(inline="always")
def load(tris, i):
    """Triangle ``tris[i]`` of an ``(F, 3, 3)`` array as three 3-tuples."""
    return (
        (tris[i, 0, 0], tris[i, 0, 1], tris[i, 0, 2]),
        (tris[i, 1, 0], tris[i, 1, 1], tris[i, 1, 2]),
        (tris[i, 2, 0], tris[i, 2, 1], tris[i, 2, 2]),
    )


@njit(inline="always")
def _xf_point(tris, j, k, rot, trans):
    # Summed as hitbox._affine.apply sums, so kernel and numpy agree bit for bit.
    x, y, z = tris[j, k, 0], tris[j, k, 1], tris[j, k, 2]
    return (
        trans[0] + rot[0, 0] * x + rot[0, 1] * y + rot[0, 2] * z,
        trans[1] + rot[1, 0] * x + rot[1, 1] * y + rot[1, 2] * z,
        trans[2] + rot[2, 0] * x + rot[2, 1] * y + rot[2, 2] * z,
    )


@njit(inline="always")
def load_xf(tris, j, rot, trans):
    """Triangle ``tris[j]`` mapped by ``x -> rot @ x + trans``, as three 3-tuples."""
    return (
        _xf_point(tris, j, 0, rot, trans),
        _xf_point(tris, j, 1, rot, trans),
        _xf_point(tris, j, 2, rot, trans),
    )


@njit(inline="always")
def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@njit(inline="always")
def _cross(a, b):
    return (
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    )


@njit(inline="always")
def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(inline="always")
def _lerp(a, b, t):
    return (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]), a[2] + t * (b[2] - a[2]))


@njit(inline="always")
def _o2(a, b, c, ax):
    """orient2d of three points projected along axis ``ax`` (dropping that coordinate)."""
    i = 1 if ax == 0 else 0
    j = 1 if ax == 2 else 2
    return orient2d(a[i], a[j], b[i], b[j], c[i], c[j])


@njit(cache=True)
def _proj_axis(p0, p1, p2):
    """An axis along which the triangle projects to a non-degenerate 2D triangle, or -1.

    Tries the axes by the size of the float normal's components, and confirms with the
    exact orient2d, which is that normal component exactly. -1 exactly when the three
    points are collinear (a zero-area triangle).
    """
    n = _cross(_sub(p1, p0), _sub(p2, p0))
    a0, a1, a2 = abs(n[0]), abs(n[1]), abs(n[2])
    first = 0 if (a0 >= a1 and a0 >= a2) else (1 if a1 >= a2 else 2)
    if _o2(p0, p1, p2, first) != 0:
        return first
    for ax in range(3):
        if ax != first and _o2(p0, p1, p2, ax) != 0:
            return ax
    return -1


@njit(cache=True)
def _span(p0, p1, p2):
    """Indices (lo, hi) of the two vertices spanning a collinear triple: its segment."""
    best, lo, hi = -1.0, 0, 0
    for k in range(3):
        i_lo, i_hi = 0, 0
        c = (p0[k], p1[k], p2[k])
        for i in range(1, 3):
            if c[i] < c[i_lo]:
                i_lo = i
            if c[i] > c[i_hi]:
                i_hi = i
        spread = c[i_hi] - c[i_lo]
        if spread > best:
            best, lo, hi = spread, i_lo, i_hi
    return lo, hi


# -- exact 2D tests in a projection (coplanar inputs) ------------------------------------


@njit(cache=True)
def _box_overlap_2d(a, b, c, d, ax):
    """Closed overlap of the projected boxes of segments ab and cd (collinear inputs)."""
    for k in range(3):
        if k == ax:
            continue
        if max(min(a[k], b[k]), min(c[k], d[k])) > min(max(a[k], b[k]), max(c[k], d[k])):
            return False
    return True


@njit(cache=True)
def _seg_seg_2d(a, b, c, d, ax):
    """Closed segments ab and cd meet (projected along ``ax``); either may be a point."""
    o1 = _o2(a, b, c, ax)
    o2 = _o2(a, b, d, ax)
    if o1 * o2 > 0:
        return False
    o3 = _o2(c, d, a, ax)
    o4 = _o2(c, d, b, ax)
    if o3 * o4 > 0:
        return False
    if o1 == 0 and o2 == 0:  # collinear, or ab is a point on line cd
        return _box_overlap_2d(a, b, c, d, ax)
    return True


@njit(inline="always")
def _in_tri_2d(x, t0, t1, t2, ax, s):
    """x in the closed triangle, projected; ``s``: the triangle's non-zero orientation."""
    return (
        _o2(t0, t1, x, ax) * s >= 0
        and _o2(t1, t2, x, ax) * s >= 0
        and _o2(t2, t0, x, ax) * s >= 0
    )


@njit(cache=True)
def _seg_tri_2d(a, b, t0, t1, t2, ax):
    """Closed segment ab meets the closed, non-degenerate triangle (projected)."""
    s = _o2(t0, t1, t2, ax)
    if _in_tri_2d(a, t0, t1, t2, ax, s) or _in_tri_2d(b, t0, t1, t2, ax, s):
        return True
    return (
        _seg_seg_2d(a, b, t0, t1, ax)
        or _seg_seg_2d(a, b, t1, t2, ax)
        or _seg_seg_2d(a, b, t2, t0, ax)
    )


@njit(cache=True)
def _tri_tri_2d(p0, p1, p2, q0, q1, q2, ax):
    """Coplanar closed triangles meet: a vertex inside the other, or two edges cross."""
    sp = _o2(p0, p1, p2, ax)
    sq = _o2(q0, q1, q2, ax)
    if _in_tri_2d(p0, q0, q1, q2, ax, sq) or _in_tri_2d(q0, p0, p1, p2, ax, sp):
        return True
    P = (p0, p1, p2)
    Q = (q0, q1, q2)
    for i in range(3):
        for j in range(3):
            if _seg_seg_2d(P[i], P[(i + 1) % 3], Q[j], Q[(j + 1) % 3], ax):
                return True
    return False


# -- exact 3D tests ----------------------------------------------------------------------


@njit(cache=True)
def _seg_tri_3d(a, b, sa, sb, t0, t1, t2):
    """Closed segment ab meets the closed non-degenerate triangle t.

    ``sa``, ``sb`` are ``orient3d(t0, t1, t2, .)`` of a and b. If ab crosses the plane,
    the crossing point x is inside t iff the tetrahedra (a, b, t_k, t_k+1) all have one
    sign (zeros allowed): each is ``2 area(x, t_k, t_k+1) ((b - a) . n)``.
    """
    if sa * sb > 0:
        return False
    if sa == 0 and sb == 0:
        return _seg_tri_2d(a, b, t0, t1, t2, _proj_axis(t0, t1, t2))
    o0 = orient3d(a, b, t0, t1)
    o1 = orient3d(a, b, t1, t2)
    if o0 * o1 < 0:
        return False
    o2 = orient3d(a, b, t2, t0)
    return (o0 >= 0 and o1 >= 0 and o2 >= 0) or (o0 <= 0 and o1 <= 0 and o2 <= 0)


@njit(cache=True)
def _seg_seg_3d(a, b, c, d):
    """Closed segments (or points) ab and cd meet in 3D.

    They must be coplanar; then some axis projects their common plane one to one, and
    meeting in every axis projection is the same as meeting in 3D.
    """
    if orient3d(a, b, c, d) != 0:
        return False
    return (
        _seg_seg_2d(a, b, c, d, 0)
        and _seg_seg_2d(a, b, c, d, 1)
        and _seg_seg_2d(a, b, c, d, 2)
    )


@njit(inline="always")
def _one_side(p0, p1, p2, q0, q1, q2):
    """+1 (-1) when q0, q1, q2 all lie strictly on the positive (negative) side of plane
    p0 p1 p2 by orient3d's filter, else 0 (undecided, not "touching").

    The plane's cross product is formed once for the three points; each sign is the same
    triple product as :func:`orient3d` with its factors in cyclic order (w . (u x v) =
    u . (v x w)), so Shewchuk's bound holds with the permanent taken in that order.
    """
    ux, uy, uz = p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]
    vx, vy, vz = p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]
    uyvz, uzvy = uy * vz, uz * vy
    uzvx, uxvz = uz * vx, ux * vz
    uxvy, uyvx = ux * vy, uy * vx
    nx, ny, nz = uyvz - uzvy, uzvx - uxvz, uxvy - uyvx
    px, py, pz = abs(uyvz) + abs(uzvy), abs(uzvx) + abs(uxvz), abs(uxvy) + abs(uyvx)
    side = 0
    for q in (q0, q1, q2):
        wx, wy, wz = q[0] - p0[0], q[1] - p0[1], q[2] - p0[2]
        det = wx * nx + wy * ny + wz * nz
        aw = abs(wx) + abs(wy) + abs(wz)
        bound = _O3_BOUND * (px * abs(wx) + py * abs(wy) + pz * abs(wz))
        bound += _UNDERFLOW * (1.0 + aw)
        s = 1 if det > bound else (-1 if det < -bound else 0)
        if s == 0 or (side != 0 and s != side):
            return 0
        side = s
    return side


@njit(cache=True)
def tri_tri_overlap(p0, p1, p2, q0, q1, q2):
    """Closed triangles p and q (three 3-tuples each) share at least one point. Exact.

    Guigue & Devillers 2003, "Fast and Robust Triangle-Triangle Overlap Test Using
    Orientation Predicates", for triangles whose planes cross with no vertex on the
    other's plane. Every tie (a vertex on the other plane: touching, shared vertices and
    edges), coplanar pair and zero-area triangle goes through the edge characterisation
    instead: two closed triangles meet iff an edge of one meets the other.
    """
    for k in range(3):  # boxes apart: exact, cheap, and the common case
        if max(p0[k], p1[k], p2[k]) < min(q0[k], q1[k], q2[k]):
            return False
        if max(q0[k], q1[k], q2[k]) < min(p0[k], p1[k], p2[k]):
            return False
    # most pairs that get here are apart by a plane: settle them with one cross product
    if _one_side(p0, p1, p2, q0, q1, q2) != 0 or _one_side(q0, q1, q2, p0, p1, p2) != 0:
        return False
    sq = (orient3d(p0, p1, p2, q0), orient3d(p0, p1, p2, q1), orient3d(p0, p1, p2, q2))
    if sq[0] == sq[1] and sq[1] == sq[2] and sq[0] != 0:
        return False
    sp = (orient3d(q0, q1, q2, p0), orient3d(q0, q1, q2, p1), orient3d(q0, q1, q2, p2))
    if sp[0] == sp[1] and sp[1] == sp[2] and sp[0] != 0:
        return False
    P = (p0, p1, p2)
    Q = (q0, q1, q2)
    flat_q = sq[0] == 0 and sq[1] == 0 and sq[2] == 0
    flat_p = sp[0] == 0 and sp[1] == 0 and sp[2] == 0
    if flat_q:  # q lies in p's plane, or p has zero area
        ax_p = _proj_axis(p0, p1, p2)
        ax_q = _proj_axis(q0, q1, q2)
        if ax_p >= 0 and ax_q >= 0:
            return _tri_tri_2d(p0, p1, p2, q0, q1, q2, ax_p)
        if ax_p >= 0:
            j0, j1 = _span(q0, q1, q2)
            return _seg_tri_3d(Q[j0], Q[j1], 0, 0, p0, p1, p2)
        i0, i1 = _span(p0, p1, p2)
        if ax_q >= 0:
            return _seg_tri_3d(P[i0], P[i1], sp[i0], sp[i1], q0, q1, q2)
        j0, j1 = _span(q0, q1, q2)
        return _seg_seg_3d(P[i0], P[i1], Q[j0], Q[j1])
    if flat_p:  # then q has zero area (p is proper, else flat_q)
        j0, j1 = _span(q0, q1, q2)
        return _seg_tri_3d(Q[j0], Q[j1], sq[j0], sq[j1], p0, p1, p2)
    if sp[0] * sp[1] * sp[2] != 0 and sq[0] * sq[1] * sq[2] != 0:
        # Guigue-Devillers: rotate each triangle so that its lone vertex comes first, flip
        # the other triangle so that lone vertex is on its positive side, and compare the
        # two intervals cut from the line of the planes with two orientations.
        i = 2 if sp[0] == sp[1] else (1 if sp[0] == sp[2] else 0)
        j = 2 if sq[0] == sq[1] else (1 if sq[0] == sq[2] else 0)
        a0, a1, a2 = P[i], P[(i + 1) % 3], P[(i + 2) % 3]
        b0, b1, b2 = Q[j], Q[(j + 1) % 3], Q[(j + 2) % 3]
        if sp[i] < 0:
            b1, b2 = b2, b1
        if sq[j] < 0:
            a1, a2 = a2, a1
        return orient3d(a1, b0, a0, b1) <= 0 and orient3d(a0, b0, a2, b2) <= 0
    for k in range(3):
        k1 = (k + 1) % 3
        if _seg_tri_3d(P[k], P[k1], sp[k], sp[k1], q0, q1, q2):
            return True
        if _seg_tri_3d(Q[k], Q[k1], sq[k], sq[k1], p0, p1, p2):
            return True
    return False


@njit(inline="always")
def tri_tri_overlap_idx(a, i, b, j):
    """``a[i]`` and ``b[j]`` of two ``(F, 3, 3)`` arrays overlap (closed, exact)."""
    p0, p1, p2 = load(a, i)
    q0, q1, q2 = load(b, j)
    return tri_tri_overlap(p0, p1, p2, q0, q1, q2)


@njit(inline="always")
def tri_tri_overlap_xf(a, i, b, j, rot, trans):
    """``a[i]`` and ``rot @ b[j] + trans`` overlap: b's triangle moved into a's frame.

    Exact for the moved coordinates as float64 computes them (in ``_affine.apply`` order).
    """
    p0, p1, p2 = load(a, i)
    q0, q1, q2 = load_xf(b, j, rot, trans)
    return tri_tri_overlap(p0, p1, p2, q0, q1, q2)


# -- contact geometry --------------------------------------------------------------------


@njit(inline="always")
def _add(pts, n, x):
    if (
        n >= pts.shape[0]
    ):  # cannot happen with CONTACT_SCRATCH rows; never write past them
        return n
    pts[n, 0] = x[0]
    pts[n, 1] = x[1]
    pts[n, 2] = x[2]
    return n + 1


@njit(inline="always")
def _plane_value(t0, t1, t2, x):
    return _dot(_cross(_sub(t1, t0), _sub(t2, t0)), _sub(x, t0))


@njit(cache=True)
def _seg_seg_points_2d(a, b, c, d, ax, pts, n):
    """Append the extreme points of ab ∩ cd (coplanar, projected along ``ax``).

    Exact ties give exact points (a vertex on the other segment); a proper crossing is
    interpolated in 3D from the projected float cross products.
    """
    if not _seg_seg_2d(a, b, c, d, ax):
        return n
    o1 = _o2(a, b, c, ax)
    o2 = _o2(a, b, d, ax)
    if o1 == 0 and o2 == 0:  # collinear: the overlap runs between endpoints
        if _box_overlap_2d(a, a, c, d, ax):
            n = _add(pts, n, a)
        if _box_overlap_2d(b, b, c, d, ax):
            n = _add(pts, n, b)
        if _box_overlap_2d(c, c, a, b, ax):
            n = _add(pts, n, c)
        if _box_overlap_2d(d, d, a, b, ax):
            n = _add(pts, n, d)
        return n
    if _o2(c, d, a, ax) == 0:
        return _add(pts, n, a)
    if _o2(c, d, b, ax) == 0:
        return _add(pts, n, b)
    if o1 == 0:
        return _add(pts, n, c)
    if o2 == 0:
        return _add(pts, n, d)
    i = 1 if ax == 0 else 0
    j = 1 if ax == 2 else 2
    ex, ey = b[i] - a[i], b[j] - a[j]
    fx, fy = d[i] - c[i], d[j] - c[j]
    den = ex * fy - ey * fx
    t = 0.5 if den == 0.0 else ((c[i] - a[i]) * fy - (c[j] - a[j]) * fx) / den
    # Nearly parallel segments make t ill-conditioned; the crossing still lies where ab
    # runs alongside cd, and every point there is near both.
    ee = ex * ex + ey * ey
    sc = ((c[i] - a[i]) * ex + (c[j] - a[j]) * ey) / ee
    sd = ((d[i] - a[i]) * ex + (d[j] - a[j]) * ey) / ee
    return _add(
        pts, n, _lerp(a, b, _clamp(t, max(min(sc, sd), 0.0), min(max(sc, sd), 1.0)))
    )


@njit(inline="always")
def _clamp(t, lo, hi):
    """t clamped to [lo, hi], or to [0, 1] when rounding left [lo, hi] empty."""
    if lo > hi:
        lo, hi = 0.0, 1.0
    return min(max(t, lo), hi)


@njit(cache=True)
def _prism_clip(a, b, t0, t1, t2, ax):
    """The part [lo, hi] of segment ab (as parameters) over triangle t, projected along
    ``ax``: where the crossing point of ab and t's plane must lie (float Cyrus-Beck)."""
    i = 1 if ax == 0 else 0
    j = 1 if ax == 2 else 2
    s = float(_o2(t0, t1, t2, ax))
    lo, hi = 0.0, 1.0
    T = (t0, t1, t2)
    for k in range(3):
        e0, e1 = T[k], T[(k + 1) % 3]
        gx, gy = e1[i] - e0[i], e1[j] - e0[j]
        fa = s * (gx * (a[j] - e0[j]) - gy * (a[i] - e0[i]))
        fb = s * (gx * (b[j] - e0[j]) - gy * (b[i] - e0[i]))
        # within rounding of the edge's line counts as on it: a segment running along an
        # edge (both ends on its line) must not be clipped by the rounding's signs
        ga, gb = abs(gx), abs(gy)
        if abs(fa) <= 1e-12 * (
            ga * (abs(a[j]) + abs(e0[j])) + gb * (abs(a[i]) + abs(e0[i]))
        ):
            fa = 0.0
        if abs(fb) <= 1e-12 * (
            ga * (abs(b[j]) + abs(e0[j])) + gb * (abs(b[i]) + abs(e0[i]))
        ):
            fb = 0.0
        if fa < 0.0 and fb >= 0.0:
            lo = max(lo, fa / (fa - fb))
        elif fb < 0.0 and fa >= 0.0:
            hi = min(hi, fa / (fa - fb))
    return lo, hi


@njit(cache=True)
def _seg_seg_points_3d(a, b, c, d, pts, n):
    """Append the extreme points of ab ∩ cd in 3D (segments or points)."""
    if not _seg_seg_3d(a, b, c, d):
        return n
    if _same(a, b):
        return _add(pts, n, a)
    if _same(c, d):
        return _add(pts, n, c)
    # A projection where ab is not a point and c, d are not both on its line, if any.
    n_ab = _cross(_sub(b, a), _sub(d, c))
    a0, a1, a2 = abs(n_ab[0]), abs(n_ab[1]), abs(n_ab[2])
    first = 0 if (a0 >= a1 and a0 >= a2) else (1 if a1 >= a2 else 2)
    for step in range(3):
        ax = (first + step) % 3
        if _o2(a, b, c, ax) != 0 or _o2(a, b, d, ax) != 0:
            return _seg_seg_points_2d(a, b, c, d, ax, pts, n)
    # Collinear in 3D: the overlap runs between endpoints.
    if _seg_seg_3d(a, a, c, d):
        n = _add(pts, n, a)
    if _seg_seg_3d(b, b, c, d):
        n = _add(pts, n, b)
    if _seg_seg_3d(c, c, a, b):
        n = _add(pts, n, c)
    if _seg_seg_3d(d, d, a, b):
        n = _add(pts, n, d)
    return n


@njit(cache=True)
def _seg_tri_points(a, b, sa, sb, t0, t1, t2, ax_t, pts, n):
    """Append the extreme points of segment ab ∩ triangle t.

    ``ax_t`` is t's projection axis (-1: t has zero area and is its span segment);
    ``sa``, ``sb`` are ``orient3d(t0, t1, t2, .)`` of a and b.
    """
    if ax_t < 0:
        k0, k1 = _span(t0, t1, t2)
        T = (t0, t1, t2)
        return _seg_seg_points_3d(a, b, T[k0], T[k1], pts, n)
    if sa * sb > 0:
        return n
    if sa == 0 and sb == 0:  # ab in t's plane
        s = _o2(t0, t1, t2, ax_t)
        if _in_tri_2d(a, t0, t1, t2, ax_t, s):
            n = _add(pts, n, a)
        if _in_tri_2d(b, t0, t1, t2, ax_t, s):
            n = _add(pts, n, b)
        n = _seg_seg_points_2d(a, b, t0, t1, ax_t, pts, n)
        n = _seg_seg_points_2d(a, b, t1, t2, ax_t, pts, n)
        return _seg_seg_points_2d(a, b, t2, t0, ax_t, pts, n)
    if not _seg_tri_3d(a, b, sa, sb, t0, t1, t2):
        return n
    if sa == 0:
        return _add(pts, n, a)
    if sb == 0:
        return _add(pts, n, b)
    da = _plane_value(t0, t1, t2, a)
    db = _plane_value(t0, t1, t2, b)
    t = 0.5 if da == db else da / (da - db)
    # A segment nearly in the plane makes t ill-conditioned; the crossing is over t, and
    # every point of ab over t is then near t. Only then clamp to the part of ab over t:
    # for a segment that crosses the plane steeply, t is accurate, while the projection
    # behind the clamp can collapse it (a vertex of ab over a vertex of t) to a wrong end.
    normal = _cross(_sub(t1, t0), _sub(t2, t0))
    ab = _sub(b, a)
    if abs(da - db) < 1e-6 * np.sqrt(_dot(normal, normal) * _dot(ab, ab)):
        lo, hi = _prism_clip(a, b, t0, t1, t2, ax_t)
        t = _clamp(t, lo, hi)
    return _add(pts, n, _lerp(a, b, t))


@njit(cache=True)
def tri_tri_segment(p0, p1, p2, q0, q1, q2, pts):
    """Contact of two closed triangles: ``(hit, x, y)``, x and y 3-tuples (NaN on a miss).

    x and y are the two points of the intersection set farthest apart: the intersection
    segment when the planes cross, the diameter of the overlap polygon for coplanar
    triangles, x == y when they touch at one point. Candidates are the extreme points of
    each edge of one triangle against the other (exact decisions, float coordinates), kept
    in ``pts``, a scratch array of shape ``(CONTACT_SCRATCH, 3)``. ``hit`` is
    ``tri_tri_overlap``; the candidates follow the edge characterisation, so every hit
    has at least one.
    """
    nan3 = (np.nan, np.nan, np.nan)
    if not tri_tri_overlap(p0, p1, p2, q0, q1, q2):
        return False, nan3, nan3
    P = (p0, p1, p2)
    Q = (q0, q1, q2)
    sq = (orient3d(p0, p1, p2, q0), orient3d(p0, p1, p2, q1), orient3d(p0, p1, p2, q2))
    sp = (orient3d(q0, q1, q2, p0), orient3d(q0, q1, q2, p1), orient3d(q0, q1, q2, p2))
    ax_p = _proj_axis(p0, p1, p2)
    ax_q = _proj_axis(q0, q1, q2)
    n = 0
    for k in range(3):
        k1 = (k + 1) % 3
        n = _seg_tri_points(P[k], P[k1], sp[k], sp[k1], q0, q1, q2, ax_q, pts, n)
        n = _seg_tri_points(Q[k], Q[k1], sq[k], sq[k1], p0, p1, p2, ax_p, pts, n)
    if n == 0:
        return False, nan3, nan3
    best, bi, bj = -1.0, 0, 0
    for i in range(n):
        for j in range(i, n):
            dx = pts[i, 0] - pts[j, 0]
            dy = pts[i, 1] - pts[j, 1]
            dz = pts[i, 2] - pts[j, 2]
            d2 = dx * dx + dy * dy + dz * dz
            if d2 > best:
                best, bi, bj = d2, i, j
    x = (pts[bi, 0], pts[bi, 1], pts[bi, 2])
    y = (pts[bj, 0], pts[bj, 1], pts[bj, 2])
    return True, x, y


# -- ray–triangle ------------------------------------------------------------------------


@njit(inline="always")
def ray_shear(direction):
    """Per-ray constants of the watertight test: ``(kx, ky, kz, sx, sy, sz, d)``, d the
    direction itself (for the exact edge signs of :func:`ray_triangle`).

    kz is the axis where ``|direction|`` is largest (first on ties); kx, ky the other two,
    swapped when ``direction[kz] < 0`` to keep the winding (Woop, Benthin & Wald 2013).
    """
    ax, ay, az = abs(direction[0]), abs(direction[1]), abs(direction[2])
    kz = 0 if (ax >= ay and ax >= az) else (1 if ay >= az else 2)
    kx = (kz + 1) % 3
    ky = (kx + 1) % 3
    if direction[kz] < 0.0:
        kx, ky = ky, kx
    dz = direction[kz]
    d = (direction[0], direction[1], direction[2])
    return kx, ky, kz, direction[kx] / dz, direction[ky] / dz, 1.0 / dz, d


@njit(inline="always")
def _edge(ax, ay, bx, by):
    """Edge function ``bx*ay - by*ax`` of two sheared vertices, sign-exact near zero.

    The paper re-evaluates in double precision when the float result is 0; in float64 we
    add Shewchuk's bound on the rounding and, inside it, add the exact rounding errors of
    the two products (``p1 == p2`` there whenever the sign is in doubt, so the result has
    the exact sign). Swapping the vertices negates the result exactly, which is what makes
    the test watertight: neighbours sharing an edge see the same value with opposite sign.
    """
    p1 = bx * ay
    p2 = by * ax
    e = p1 - p2
    if abs(e) <= _O2_BOUND * (abs(p1) + abs(p2)):
        h1, l1 = _two_product(bx, ay)
        h2, l2 = _two_product(by, ax)
        e = (h1 - h2) + (l1 - l2)
    return e


#: Relative bound on an edge function's error from the rounded differences and shear
#: (a few units in the last place of each factor; generous, the exact path is rare).
_EDGE_TOL = 64.0 * 2.0**-53


@njit(cache=True)
def ray_edge_sign(d, q, p, o):
    """Exact sign of ``d . ((q - o) x (p - o))`` on float inputs (3-tuples).

    Expanded as ``det[d; q; p] - det[d; q; o] - det[d; o; p]``: 72 products of three
    inputs summed exactly, after the direction and the points are scaled by powers of
    two (apart: the sign is unchanged) so no product overflows.
    """
    big_d = max(abs(d[0]), abs(d[1]), abs(d[2]))
    big_p = 0.0
    for x in (q, p, o):
        big_p = max(big_p, abs(x[0]), abs(x[1]), abs(x[2]))
    if big_d == 0.0 or big_p == 0.0:
        return 0
    kd = _LIFT3 - math.frexp(big_d)[1]
    kp = _LIFT3 - math.frexp(big_p)[1]
    d, q, p, o = _lift(d, kd), _lift(q, kp), _lift(p, kp), _lift(o, kp)
    buf = np.empty(72)
    n = _push_det3(buf, 0, d, q, p, 1.0)
    n = _push_det3(buf, n, d, q, o, -1.0)
    n = _push_det3(buf, n, d, o, p, -1.0)
    return _sum_sign(buf, n)


@njit(inline="always")
def _exact_edge(d, q, p, o, value):
    """``value`` with the exact sign of :func:`ray_edge_sign`: 0 when that is 0, else the
    float value, or the least subnormal of the exact sign where rounding flipped it."""
    sign = ray_edge_sign(d, q, p, o)
    if sign == 0:
        return 0.0
    if (value > 0.0) == (sign > 0):
        return value if value != 0.0 else sign * 5e-324
    return sign * 5e-324


@njit(inline="always")
def ray_triangle(origin, shear, t_max, a, b, c):
    """Watertight, two-sided ray–triangle test (Woop, Benthin & Wald 2013, JCGT 2(1)).

    ``origin`` and ``a, b, c`` are 3-tuples, ``shear`` is ``ray_shear(direction)``.
    Returns ``(hit, t, u, v)``: the hit point is ``origin + t * direction``, with
    ``0 <= t <= t_max``, and equals ``(1 - u - v) a + u b + v c``. Edge functions of zero
    are hits (closed triangles). A ray in the triangle's plane (determinant 0) misses it,
    and so does a zero-area triangle.
    """
    kx, ky, kz, sx, sy, sz, d = shear
    ax_, ay_, az_ = a[0] - origin[0], a[1] - origin[1], a[2] - origin[2]
    bx_, by_, bz_ = b[0] - origin[0], b[1] - origin[1], b[2] - origin[2]
    cx_, cy_, cz_ = c[0] - origin[0], c[1] - origin[1], c[2] - origin[2]
    A = (ax_, ay_, az_)
    B = (bx_, by_, bz_)
    C = (cx_, cy_, cz_)
    Ax = A[kx] - sx * A[kz]
    Ay = A[ky] - sy * A[kz]
    Bx = B[kx] - sx * B[kz]
    By = B[ky] - sy * B[kz]
    Cx = C[kx] - sx * C[kz]
    Cy = C[ky] - sy * C[kz]
    U = _edge(Bx, By, Cx, Cy)  # Cx*By - Cy*Bx: weight of a
    V = _edge(Cx, Cy, Ax, Ay)  # Ax*Cy - Ay*Cx: weight of b
    W = _edge(Ax, Ay, Bx, By)  # Bx*Ay - By*Ax: weight of c
    # An edge function within the rounding of the differences and the shear takes the
    # exact sign of d . ((q - o) x (p - o)) on the float inputs instead: a ray through an
    # edge or a vertex is then decided as the exact ray would be.
    mA = abs(Ax) + abs(Ay) + (abs(sx) + abs(sy) + 1.0) * abs(A[kz])
    mB = abs(Bx) + abs(By) + (abs(sx) + abs(sy) + 1.0) * abs(B[kz])
    mC = abs(Cx) + abs(Cy) + (abs(sx) + abs(sy) + 1.0) * abs(C[kz])
    if abs(U) <= _EDGE_TOL * mB * mC + _UNDERFLOW:
        U = _exact_edge(d, c, b, origin, U)
    if abs(V) <= _EDGE_TOL * mC * mA + _UNDERFLOW:
        V = _exact_edge(d, a, c, origin, V)
    if abs(W) <= _EDGE_TOL * mA * mB + _UNDERFLOW:
        W = _exact_edge(d, b, a, origin, W)
    if (U < 0.0 or V < 0.0 or W < 0.0) and (U > 0.0 or V > 0.0 or W > 0.0):
        return False, np.inf, 0.0, 0.0
    det = U + V + W
    if det == 0.0:
        return False, np.inf, 0.0, 0.0
    T = U * (sz * A[kz]) + V * (sz * B[kz]) + W * (sz * C[kz])
    t = T / det
    if not (t >= 0.0 and t <= t_max):
        return False, np.inf, 0.0, 0.0
    return True, t, V / det, W / det


# -- batched kernels ---------------------------------------------------------------------


@njit(cache=True, nogil=True)
def overlap(a, b, out):
    """Elementwise triangle overlap; a or b may hold one triangle tested against all."""
    sa = 1 if len(a) > 1 else 0
    sb = 1 if len(b) > 1 else 0
    for i in range(len(out)):
        out[i] = tri_tri_overlap_idx(a, i * sa, b, i * sb)


@njit(cache=True, nogil=True)
def overlap_pairs_brute(a, b):
    """Every (i, j) with a[i] overlapping b[j]: all pairs tested, count then fill."""
    n = 0
    for i in range(len(a)):
        for j in range(len(b)):
            if tri_tri_overlap_idx(a, i, b, j):
                n += 1
    out = np.empty((2, n), np.intp)
    n = 0
    for i in range(len(a)):
        for j in range(len(b)):
            if tri_tri_overlap_idx(a, i, b, j):
                out[0, n] = i
                out[1, n] = j
                n += 1
    return out


@njit(cache=True, nogil=True)
def intersection_segments(a, b, hit, out):
    """Elementwise contact into ``hit (N,)`` and ``out (N, 2, 3)`` (NaN on a miss)."""
    sa = 1 if len(a) > 1 else 0
    sb = 1 if len(b) > 1 else 0
    pts = np.empty((CONTACT_SCRATCH, 3))
    for i in range(len(hit)):
        p0, p1, p2 = load(a, i * sa)
        q0, q1, q2 = load(b, i * sb)
        h, x, y = tri_tri_segment(p0, p1, p2, q0, q1, q2, pts)
        hit[i] = h
        for k in range(3):
            out[i, 0, k] = x[k]
            out[i, 1, k] = y[k]


@njit(cache=True, nogil=True)
def raycast_closest(origins, directions, t_max, tris, out_t, out_face, out_u, out_v):
    """Nearest hit of each ray over every triangle (ties: the lowest face index).

    Misses leave ``t = inf``, ``face = -1``, ``u = v = 0``.
    """
    for r in range(len(origins)):
        org = (origins[r, 0], origins[r, 1], origins[r, 2])
        shear = ray_shear((directions[r, 0], directions[r, 1], directions[r, 2]))
        best_t, best_f, best_u, best_v = t_max[r], -1, 0.0, 0.0
        for f in range(len(tris)):
            a, b, c = load(tris, f)
            h, t, u, v = ray_triangle(org, shear, best_t, a, b, c)
            if h and (t < best_t or best_f < 0):
                best_t, best_f, best_u, best_v = t, f, u, v
        out_t[r] = best_t if best_f >= 0 else np.inf
        out_face[r] = best_f
        out_u[r] = best_u
        out_v[r] = best_v


@njit(cache=True, nogil=True)
def raycast_any(origins, directions, t_max, tris, out_t, out_face, out_u, out_v):
    """First face (in index order) each ray hits; misses as in raycast_closest."""
    for r in range(len(origins)):
        org = (origins[r, 0], origins[r, 1], origins[r, 2])
        shear = ray_shear((directions[r, 0], directions[r, 1], directions[r, 2]))
        out_t[r], out_face[r], out_u[r], out_v[r] = np.inf, -1, 0.0, 0.0
        for f in range(len(tris)):
            a, b, c = load(tris, f)
            h, t, u, v = ray_triangle(org, shear, t_max[r], a, b, c)
            if h:
                out_t[r], out_face[r], out_u[r], out_v[r] = t, f, u, v
                break


@njit(cache=True, nogil=True)
def raycast_all_count(origins, directions, t_max, tris, counts):
    """Pass 1 of count-then-fill: how many triangles each ray hits."""
    for r in range(len(origins)):
        org = (origins[r, 0], origins[r, 1], origins[r, 2])
        shear = ray_shear((directions[r, 0], directions[r, 1], directions[r, 2]))
        n = 0
        for f in range(len(tris)):
            a, b, c = load(tris, f)
            if ray_triangle(org, shear, t_max[r], a, b, c)[0]:
                n += 1
        counts[r] = n


@njit(cache=True, nogil=True)
def raycast_all_fill(
    origins, directions, t_max, tris, offsets, out_ray, out_face, out_t, out_u, out_v
):
    """Pass 2: ray r's hits go to ``[offsets[r], offsets[r + 1])`` in face order."""
    for r in range(len(origins)):
        org = (origins[r, 0], origins[r, 1], origins[r, 2])
        shear = ray_shear((directions[r, 0], directions[r, 1], directions[r, 2]))
        n = offsets[r]
        for f in range(len(tris)):
            a, b, c = load(tris, f)
            h, t, u, v = ray_triangle(org, shear, t_max[r], a, b, c)
            if h:
                out_ray[n], out_face[n], out_t[n], out_u[n], out_v[n] = r, f, t, u, v
                n += 1
