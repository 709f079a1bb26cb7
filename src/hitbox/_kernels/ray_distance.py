"""Hit distances of a ray on a triangle: within 4 ulps, and ordered exactly.

The watertight test (``ray_triangle``) finds *whether* a ray hits a triangle exactly, and
a float t with a bound on its error. Here that t is refined to within 4 ulps of the exact
one (``refine_t``), and two hits, or a hit and an end of the ray, are ordered exactly when
their bounds cannot tell (``t_compare``, ``t_in_range``).

Exact t is ``N / D`` with ``N = n . (a - o)``, ``D = n . d`` and ``n = (b - a) x (c - a)``:
both are sums of products of three input coordinates (Shewchuk 1997, "Adaptive Precision
Floating-Point Arithmetic and Fast Robust Geometric Predicates"), kept as expansions
after scaling by powers of two, which keeps every sign and ratio.
"""

import math
from fractions import Fraction

import numpy as np
from numba import config, njit
from numba.core import types
from numba.extending import intrinsic

from hitbox._kernels.exact_predicates import (
    _lift,
    _push_product3,
    _sum_sign,
    _two_product,
    compress,
)
from hitbox._kernels.triangle_points import cross_products

_EPS = 2.0**-53
#: t is accepted from :func:`refine_t`'s Newton step when its error bound, apart from the
#: final rounding (half an ulp), is at most this many eps * |t| (so under 3.5 ulps).
_T_ULPS = 3.0
_LIFT_T = 300  # exact t: points and direction scaled to about 2**300 (degree 3: 2**900)
_LIFT_CMP = 150  # exact comparisons multiply degree-6 products: about 2**900


@intrinsic
def _fma_llvm(typingctx, x, y, z):
    """``x * y + z`` rounded once (LLVM's ``llvm.fma``: the FMA instruction, or libm)."""
    if not all(isinstance(a, types.Float) for a in (x, y, z)):
        return None
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        return builder.fma(*args)

    return sig, codegen


if config.DISABLE_JIT:  # the intrinsic needs the compiler: the same value, in Python

    def fma(x, y, z):
        """``x * y + z`` rounded once."""
        return float(Fraction(x) * Fraction(y) + Fraction(z))

else:

    @njit(inline="always")
    def fma(x, y, z):
        """``x * y + z`` rounded once."""
        return _fma_llvm(x, y, z)


@njit(inline="always")
def _two_sum(a, b):
    """``a + b == s + e`` exactly (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


# A Newton step with error-free transformations (TwoSum, FMA), as in Ogita, Rump & Oishi
# 2005, "Accurate Sum and Dot Product".
@njit(cache=True, nogil=True)
def refine_t(origin, direction, a, b, c, t0):
    """The distance t at which a ray that hits triangle abc does so, within 4 ulps.

    One Newton step from the estimate t0 on the plane through a with the float normal
    ``n = fl((b - a) x (c - a))``: ``t = t0 - n . q / n . d`` with ``q = o + t0 d - a``,
    which is the exact t of that plane when q, the products and the quotient are exact.
    q is small (the hit point less a) and is found to a few eps * |q| by splitting
    ``o - a`` exactly and adding ``t0 d`` fused. The float normal is off by at most
    ``4.1 eps P_k`` per component (P_k: the cross product's permanent), which moves t by
    ``|dn . (p - a)| / |n . d|`` for the exact hit point p, with ``|p - a|_k <= max(|b -
    a|_k, |c - a|_k)`` inside the triangle. When the bound on all of it exceeds 3 eps |t|
    (a grazing ray, a triangle close to the origin, a poor t0), t comes from exact
    expansions instead (:func:`t_exact`).
    """
    e1x, e1y, e1z = b[0] - a[0], b[1] - a[1], b[2] - a[2]
    e2x, e2y, e2z = c[0] - a[0], c[1] - a[1], c[2] - a[2]
    pyz, pzy, pzx, pxz, pxy, pyx = cross_products((e1x, e1y, e1z), (e2x, e2y, e2z))
    nx, ny, nz = pyz - pzy, pzx - pxz, pxy - pyx
    dx, dy, dz = direction[0], direction[1], direction[2]
    ndx, ndy, ndz = nx * dx, ny * dy, nz * dz
    den = ndx + ndy + ndz
    e_den = 3.01 * _EPS * (abs(ndx) + abs(ndy) + abs(ndz))
    den_lo = abs(den) - e_den  # |exact n . d| is at least this
    if den_lo > 0.0:
        wx, lx = _two_sum(origin[0], -a[0])
        wy, ly = _two_sum(origin[1], -a[1])
        wz, lz = _two_sum(origin[2], -a[2])
        yx, yy, yz = fma(t0, dx, wx), fma(t0, dy, wy), fma(t0, dz, wz)
        qx, qy, qz = yx + lx, yy + ly, yz + lz
        r = nx * qx + ny * qy + nz * qz
        step = r / den
        t = t0 - step
        # |fl(n . q) - n . q_exact|: the dot's rounding and q's two roundings
        e_r = (
            abs(nx) * (4.1 * abs(qx) + 1.1 * abs(yx))
            + abs(ny) * (4.1 * abs(qy) + 1.1 * abs(yy))
            + abs(nz) * (4.1 * abs(qz) + 1.1 * abs(yz))
        ) * _EPS
        tilt = (
            (abs(pyz) + abs(pzy)) * _bigger(e1x, e2x)
            + (abs(pzx) + abs(pxz)) * _bigger(e1y, e2y)
            + (abs(pxy) + abs(pyx)) * _bigger(e1z, e2z)
        ) * (4.2 * _EPS)
        err = e_r + (abs(r) + e_r) * e_den / den_lo + tilt
        if err * (1.0 + 16.0 * _EPS) <= _EPS * (_T_ULPS * abs(t) - abs(step)) * den_lo:
            return t
    t, ok = refine_t_dd(origin, direction, a, b, c, t0)
    return t if ok else t_exact(origin, direction, a, b, c)


@njit(inline="always")
def _dd_add(ah, al, bh, bl):
    """(a + b) as a double-double, off by at most 4 eps**2 (|a| + |b|)."""
    s, e = _two_sum(ah, bh)
    e += al + bl
    h = s + e
    return h, e - (h - s)


@njit(inline="always")
def _dd_mul(ah, al, bh, bl):
    """(a * b) as a double-double, off by at most 6 eps**2 |a| |b|."""
    p = ah * bh
    e = fma(ah, bh, -p) + (ah * bl + al * bh)
    h = p + e
    return h, e - (h - p)


@njit(inline="always")
def _dd_cross(uh, ul, vh, vl, wh, wl, xh, xl):
    """u w - v x as a double-double, off by at most 16 eps**2 (|u w| + |v x|)."""
    ph, pl = _dd_mul(uh, ul, wh, wl)
    qh, ql = _dd_mul(vh, vl, xh, xl)
    return _dd_add(ph, pl, -qh, -ql)


@njit(cache=True, nogil=True)
def refine_t_dd(origin, direction, a, b, c, t0):
    """(t, ok): :func:`refine_t`'s Newton step in double-double arithmetic, for the rays
    whose float step cannot bound its error within 3 eps |t| (hits near the origin
    against the coordinates' size, grazing rays): ok when this one can, else the caller
    takes the exact expansions (:func:`t_exact`, a hundred times slower).

    The edges and ``o - a`` are exact pairs (TwoSum), ``t0 d`` an exact product, the
    normal ``n = (b - a) x (c - a)``, ``q = o + t0 d - a``, ``r = n . q`` and ``D = n . d``
    double-doubles, each off by a few eps**2 times the sum of its terms' magnitudes
    (:func:`_dd_add`, :func:`_dd_mul`). With ``P_k`` the permanent of the normal's
    component k (``|n_k|`` and its error are both below it times (1 + 16 eps**2)):
    ``|r - r_exact| <= 40 eps**2 sum_k P_k (|o - a|_k + |t0 d_k|)`` and ``|D - D_exact|
    <= 40 eps**2 sum_k P_k |d_k|``, so ``step = r / D`` is off by at most ``(dr + |step|
    dD) / (|D| - dD)`` plus its own division's few eps**2. Magnitudes beyond 2**+-300
    (products of three coordinates near the limits of the format) are left to the
    exact path.
    """
    e1 = (_two_sum(b[0], -a[0]), _two_sum(b[1], -a[1]), _two_sum(b[2], -a[2]))
    e2 = (_two_sum(c[0], -a[0]), _two_sum(c[1], -a[1]), _two_sum(c[2], -a[2]))
    (xh, xl), (yh, yl), (zh, zl) = e1
    (uh, ul), (vh, vl), (wh, wl) = e2
    n0h, n0l = _dd_cross(yh, yl, zh, zl, wh, wl, vh, vl)
    n1h, n1l = _dd_cross(zh, zl, xh, xl, uh, ul, wh, wl)
    n2h, n2l = _dd_cross(xh, xl, yh, yl, vh, vl, uh, ul)
    p0 = abs(yh * wh) + abs(zh * vh)
    p1 = abs(zh * uh) + abs(xh * wh)
    p2 = abs(xh * vh) + abs(yh * uh)
    dx, dy, dz = direction[0], direction[1], direction[2]
    q0 = _q_part(origin[0], a[0], t0, dx)
    q1 = _q_part(origin[1], a[1], t0, dy)
    q2 = _q_part(origin[2], a[2], t0, dz)
    rh, rl = _dd_dot(n0h, n0l, n1h, n1l, n2h, n2l, q0[0], q0[1], q1[0], q1[1], q2[0],
                     q2[1])  # fmt: skip
    dh, dl = _dd_dot(n0h, n0l, n1h, n1l, n2h, n2l, dx, 0.0, dy, 0.0, dz, 0.0)
    m_r = p0 * q0[2] + p1 * q1[2] + p2 * q2[2]
    m_d = p0 * abs(dx) + p1 * abs(dy) + p2 * abs(dz)
    if not (_DD_LO < m_r < _DD_HI and _DD_LO < m_d < _DD_HI):
        return t0, False
    e_r = 41.0 * _EPS * _EPS * m_r
    e_d = 41.0 * _EPS * _EPS * m_d
    d_lo = abs(dh) - e_d
    if not d_lo > 0.0:
        return t0, False
    sh = rh / dh  # the step as a double-double: sh + (r - sh D) / D
    ph, pl = _two_product(sh, dh)
    sl = (((rh - ph) - pl) + rl - sh * dl) / dh
    th, tl = _two_sum(t0, -sh)
    t = th + (tl - sl)
    step = abs(sh)
    err = (e_r + step * e_d) / d_lo + 8.0 * _EPS * _EPS * (step + abs(t0))
    return t, err * (1.0 + 16.0 * _EPS) <= _EPS * _T_ULPS * abs(t)


#: Magnitudes of the double-double step's sums within which no product under- or
#: overflows (terms of degree three in the coordinates, errors of their eps**2).
_DD_LO = 2.0**-300
_DD_HI = 2.0**300


@njit(inline="always")
def _q_part(o, a, t0, d):
    """(qh, ql, bound) of ``o - a + t0 d``: a double-double and a bound on the sum of
    its two exact terms' magnitudes."""
    wh, wl = _two_sum(o, -a)
    p = t0 * d
    qh, ql = _dd_add(wh, wl, p, fma(t0, d, -p))
    return qh, ql, (abs(wh) + abs(p)) * (1.0 + 4.0 * _EPS)


@njit(inline="always")
def _dd_dot(ah, al, bh, bl, ch, cl, xh, xl, yh, yl, zh, zl):
    """a x + b y + c z of double-doubles."""
    ph, pl = _dd_mul(ah, al, xh, xl)
    qh, ql = _dd_mul(bh, bl, yh, yl)
    sh, sl = _dd_add(ph, pl, qh, ql)
    ph, pl = _dd_mul(ch, cl, zh, zl)
    return _dd_add(sh, sl, ph, pl)


@njit(inline="always")
def _bigger(x, y):
    """max(|x|, |y|), cheaper than numba's max in hot code."""
    x, y = abs(x), abs(y)
    return x if x >= y else y


@njit(inline="always")
def _dd_div(nh, nl, dh, dl):
    """``(nh + nl) / (dh + dl)`` to within half an ulp plus a few eps**2 (relative)."""
    q = nh / dh
    ph, pl = _two_product(q, dh)
    r = ((nh - ph) - pl) + nl - q * dl
    return q + r / dh


#: The six terms of a 3x3 determinant: column of row 0, 1, 2, and sign.
_DET3 = np.array(
    [
        [0, 1, 2, 1],
        [0, 2, 1, -1],
        [1, 0, 2, -1],
        [1, 2, 0, 1],
        [2, 0, 1, 1],
        [2, 1, 0, -1],
    ]
)
#: ``N = n . (a - o)`` and ``D = n . d`` (n = (b - a) x (c - a)) as signed determinants
#: of rows of ``(a, b, c, o, d)``: N = |abc| - |bco| - |abo| + |aco|, D = |bcd| - |acd| +
#: |abd|.
_T_TERMS = np.array(
    [[0, 1, 2, 1], [1, 2, 3, -1], [0, 1, 3, -1], [0, 2, 3, 1], [1, 2, 4, 1],
     [0, 2, 4, -1], [0, 1, 4, 1]]
)  # fmt: skip


@njit(cache=True, nogil=True)
def _push_t(buf, o, d, a, b, c):
    """``N`` into buf[:96] and ``D`` into buf[96:168] as products of three inputs, each
    split into four floats that sum to it exactly (a loop: quick to compile)."""
    pts = np.empty((5, 3))
    for k in range(3):
        pts[0, k], pts[1, k], pts[2, k], pts[3, k], pts[4, k] = (
            a[k],
            b[k],
            c[k],
            o[k],
            d[k],
        )
    n = 0
    for term in range(7):
        x, y, z = _T_TERMS[term, 0], _T_TERMS[term, 1], _T_TERMS[term, 2]
        for j in range(6):
            sign = float(_T_TERMS[term, 3] * _DET3[j, 3])
            p = pts[x, _DET3[j, 0]]
            q = pts[y, _DET3[j, 1]]
            r = pts[z, _DET3[j, 2]]
            n = _push_product3(buf, n, p, q, r, sign)
    return n


@njit(cache=True, nogil=True)
def t_exact(origin, direction, a, b, c):
    """``t = N / D`` from exact expansions of both (D != 0), rounded from double-doubles:
    within an ulp of the exact t."""
    kp, kd = _lifts(_LIFT_T, origin, direction, a, b, c, a, b, c)
    o, d = _lift(origin, kp), _lift(direction, kd)
    a, b, c = _lift(a, kp), _lift(b, kp), _lift(c, kp)
    buf = np.empty(168)
    _push_t(buf, o, d, a, b, c)
    num, den = buf[:96], buf[96:]
    nh, nl = _dd(num, compress(num, 96))
    dh, dl = _dd(den, compress(den, 72))
    if nh == 0.0 or dh == 0.0:
        return 0.0
    return math.ldexp(_dd_div(nh, nl, dh, dl), kd - kp)


@njit(cache=True, nogil=True)
def t_compare(origin, direction, a, b, c, a2, b2, c2):
    """Exact sign of ``t - t2``, the distances at which one ray hits triangles abc and
    a2 b2 c2 (neither has ``n . d == 0``): the sign of ``N D2 - N2 D`` times those of D
    and D2, each product of two expansions summed exactly."""
    kp, kd = _lifts(_LIFT_CMP, origin, direction, a, b, c, a2, b2, c2)
    o, d = _lift(origin, kp), _lift(direction, kd)
    one = np.empty(168)
    _push_t(one, o, d, _lift(a, kp), _lift(b, kp), _lift(c, kp))
    two = np.empty(168)
    _push_t(two, o, d, _lift(a2, kp), _lift(b2, kp), _lift(c2, kp))
    n1, d1, n2, d2 = one[:96], one[96:], two[:96], two[96:]
    m1, k1 = compress(n1, 96), compress(d1, 72)
    m2, k2 = compress(n2, 96), compress(d2, 72)
    prod = np.empty(2 * (m1 * k2 + m2 * k1))
    n = 0
    for i in range(m1):
        for j in range(k2):
            prod[n], prod[n + 1] = _two_product(n1[i], d2[j])
            n += 2
    for i in range(m2):
        for j in range(k1):
            p, e = _two_product(n2[i], d1[j])
            prod[n], prod[n + 1] = -p, -e
            n += 2
    sign = _sum_sign(prod, n)
    return -sign if (d1[k1 - 1] < 0.0) != (d2[k2 - 1] < 0.0) else sign


@njit(cache=True, nogil=True)
def t_in_range(origin, direction, a, b, c, t_max):
    """Exactly whether ``0 <= t <= t_max`` for the distance t = N / D (D != 0) at which
    the ray hits abc. ``t_max`` inf skips the upper end."""
    kp, kd = _lifts(_LIFT_CMP, origin, direction, a, b, c, a, b, c)
    o, d = _lift(origin, kp), _lift(direction, kd)
    buf = np.empty(96 + 144)
    _push_t(buf, o, d, _lift(a, kp), _lift(b, kp), _lift(c, kp))
    den = buf[96:168].copy()
    k = compress(den, 72)
    flip = den[k - 1] < 0.0
    s = _sum_sign(buf[:96].copy(), 96)
    if s != 0 and (s < 0) != flip:
        return False  # t < 0
    if t_max == np.inf:
        return True
    scaled = math.ldexp(t_max, kp - kd)  # t_max in the scaled problem's units
    n = 96
    for j in range(k):  # N - t_max D, D's expansion times one float: exact
        p, e = _two_product(scaled, den[j])
        buf[n], buf[n + 1] = -p, -e
        n += 2
    s = _sum_sign(buf, n)
    return s == 0 or (s < 0) != flip


@njit(inline="always")
def _lifts(lift, origin, direction, a, b, c, a2, b2, c2):
    """Powers of two that bring the points' and the direction's largest magnitudes to
    about 2**lift (t scales by a power of two; comparisons keep their sign)."""
    big_p = 0.0
    for x in (origin, a, b, c, a2, b2, c2):
        big_p = max(big_p, abs(x[0]), abs(x[1]), abs(x[2]))
    big_d = max(abs(direction[0]), abs(direction[1]), abs(direction[2]))
    kp = lift - math.frexp(big_p)[1] if big_p > 0.0 else 0
    return kp, lift - math.frexp(big_d)[1]


@njit(inline="always")
def _dd(buf, m):
    """A double-double of the expansion ``buf[:m]`` from :func:`compress`: the largest
    part and the rest summed upward (relative error a few eps**2)."""
    if m == 0:
        return 0.0, 0.0
    rest = 0.0
    for j in range(m - 1):
        rest += buf[j]
    return _two_sum(buf[m - 1], rest)
