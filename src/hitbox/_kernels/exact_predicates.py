"""Exact orientation signs at any float64 scale: orient2d, orient3d, the ray edge sign.

Each sign is the exact sign for the float64 inputs: a floating-point filter first
(Shewchuk 1997, "Adaptive Precision Floating-Point Arithmetic and Fast Robust Geometric
Predicates", bounds ``ccwerrboundA``/``o3derrboundA``), then, only when the filter cannot
decide, the determinant expanded into products of the input coordinates, each split
exactly (Dekker's two-product) and summed exactly (the partials of Python's
``math.fsum``). That holds at any scale (subnormals included) as long as the non-zero
coordinate magnitudes met by one predicate span less than about 1e170.
"""

import math

import numpy as np
from numba import njit, types

from hitbox._kernels.apart import apart
from hitbox._kernels.orient_filter import O2_BOUND, UNDERFLOW, orient3d_filter

_SPLITTER = 134217729.0  # 2**27 + 1: Dekker's split of a double into two 26-bit halves
_LIFT2 = 500  # the exact paths scale the largest coordinate to about 2**_LIFT
_LIFT3 = 300
# The helpers below are plain @njit, not inline="always": numba's own inlining copied
# them 72 times into _orient3d_exact's IR, slowing its compile; LLVM
# inlines them all the same, into the same float operations.


@njit
def _same(a, b):
    return a[0] == b[0] and a[1] == b[1] and a[2] == b[2]


@njit
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


@njit(cache=True, nogil=True)
def compress(buf, n):
    """Replace ``buf[:n]`` by the non-zero, non-overlapping partials of its exact sum in
    increasing magnitude (Python's ``math.fsum`` partials, Shewchuk's grow-expansion);
    return how many there are. Partials are written over inputs already read."""
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
        if x != 0.0:
            buf[i] = x
            i += 1
        m = i
    return m


@njit(cache=True)
def _sum_sign(buf, n):
    """Sign of the exact sum of ``buf[:n]``; overwrites ``buf``: the sign of the largest
    partial of :func:`compress`."""
    m = compress(buf, n)
    if m == 0:
        return 0
    return 1 if buf[m - 1] > 0.0 else -1


@njit
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
    return _sum_sign(buf, buf.size)


@apart("orient2d_exact", types.intp(*(types.float64,) * 6))
def _orient2d_apart(ax, ay, bx, by, cx, cy):
    """:func:`_orient2d_exact` compiled apart (:mod:`hitbox._kernels.apart`): the
    filter's rare fallback stays out of every caller's compile unit."""
    return _orient2d_exact(ax, ay, bx, by, cx, cy)


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
    bound = O2_BOUND * (abs(left) + abs(right)) + UNDERFLOW
    if det > bound:
        return 1
    if det < -bound:
        return -1
    if (ux == 0.0 or vy == 0.0) and (uy == 0.0 or vx == 0.0):
        return 0
    return _orient2d_apart(ax, ay, bx, by, cx, cy)


@njit
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


@njit
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


@apart("orient3d_exact", types.intp(*(types.float64,) * 12))
def _orient3d_apart(ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz):
    """:func:`_orient3d_exact` compiled apart (:mod:`hitbox._kernels.apart`): the
    filter's rare fallback stays out of every caller's compile unit."""
    return _orient3d_exact((ax, ay, az), (bx, by, bz), (cx, cy, cz), (dx, dy, dz))


@njit(cache=True)
def orient3d(a, b, c, d):
    """Exact sign of ``((b - a) x (c - a)) . (d - a)``: the side of plane abc d is on.

    +1 on the side the normal ``(b - a) x (c - a)`` points to. The filter
    (:func:`orient3d_filter`); then exact zeros (each of the three terms has a factor
    that is exactly 0); then the exact expansion.
    """
    det, bound = orient3d_filter(
        a[0], a[1], a[2], b[0], b[1], b[2], c[0], c[1], c[2], d[0], d[1], d[2]
    )
    if det > bound:
        return 1
    if det < -bound:
        return -1
    ux, uy, uz = b[0] - a[0], b[1] - a[1], b[2] - a[2]
    vx, vy, vz = c[0] - a[0], c[1] - a[1], c[2] - a[2]
    wx, wy, wz = d[0] - a[0], d[1] - a[1], d[2] - a[2]
    if (
        (ux == 0.0 or ((vy == 0.0 or wz == 0.0) and (vz == 0.0 or wy == 0.0)))
        and (uy == 0.0 or ((vz == 0.0 or wx == 0.0) and (vx == 0.0 or wz == 0.0)))
        and (uz == 0.0 or ((vx == 0.0 or wy == 0.0) and (vy == 0.0 or wx == 0.0)))
    ):
        return 0
    return _orient3d_apart(
        a[0], a[1], a[2], b[0], b[1], b[2], c[0], c[1], c[2], d[0], d[1], d[2]
    )


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
