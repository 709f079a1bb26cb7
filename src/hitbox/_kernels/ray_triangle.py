"""Watertight, two-sided ray–triangle test (Woop, Benthin & Wald 2013, JCGT 2(1)).

An edge function within rounding of zero takes the exact sign of ``d . ((q - o) x (p -
o))`` on the float inputs (``exact_predicates.ray_edge_sign``), so a ray through an edge
or a vertex is decided as the exact ray would be. Each hit's distance t comes with a
bound on its error (``ray_triangle_bounded``): closest-hit walks order two hits exactly
where their bounds overlap (``closer``), and the t reported is refined to within 4 ulps
of the exact one (``ray_distance.refine_t``).
"""

import numpy as np
from numba import njit

from hitbox._kernels.exact_predicates import ray_edge_sign
from hitbox._kernels.orient_filter import UNDERFLOW as _UNDERFLOW
from hitbox._kernels.ray_distance import fma, refine_t, t_compare, t_in_range

_EPS = 2.0**-53


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
    """Edge function ``bx*ay - by*ax`` of two sheared vertices, one product fused.

    Where the value is within its rounding error of 0 (``_edge_tolerance``, which
    includes this product and the fused difference), the test takes the exact sign
    instead; every sign the test acts on is therefore the exact ray's, which is what
    makes it watertight: neighbours sharing an edge see it with opposite signs.
    """
    return fma(bx, ay, -(by * ax))


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
def _inside(u, v):
    """A hit's barycentrics kept in the closed triangle as float64 computes them: u and
    v are >= 0 and <= 1 already (edge values of one sign, det their sum), but u + v may
    pass 1 by an ulp; then v is lowered until it does not."""
    if u + v > 1.0:
        v = 1.0 - u
        while u + v > 1.0:
            v = np.nextafter(v, 0.0)
    return u, v


@njit(inline="always")
def ray_triangle(origin, shear, t_max, a, b, c):
    """Watertight, two-sided ray–triangle test (Woop, Benthin & Wald 2013, JCGT 2(1)).

    ``origin`` and ``a, b, c`` are 3-tuples, ``shear`` is ``ray_shear(direction)``.
    Returns ``(hit, t, u, v)``: the hit point is ``origin + t * direction``, with ``0 <=
    t <= t_max`` decided exactly and t within 4 ulps of the exact distance, and equals
    ``(1 - u - v) a + u b + v c``. Edge functions of zero are hits (closed triangles).
    A ray in the triangle's plane (determinant 0) misses it, and so does a zero-area
    triangle.
    """
    hit, t, err, u, v = ray_triangle_bounded(origin, shear, t_max, a, b, c)
    if hit and (t - err < 0.0 or t + err > t_max):
        hit = t_in_range(origin, shear[6], a, b, c, t_max if t + err > t_max else np.inf)
    if not hit:
        return False, np.inf, 0.0, 0.0
    return True, final_t(origin, shear[6], t_max, a, b, c, t), u, v


@njit(inline="always")
def final_t(origin, direction, t_max, a, b, c, t):
    """:func:`refine_t` from the estimate t, kept in [0, t_max] (where the exact t lies,
    so this only moves it nearer)."""
    t = refine_t(origin, direction, a, b, c, t)
    return 0.0 if t < 0.0 else (t_max if t > t_max else t)


@njit(inline="always")
def takes_over(
    origin, direction, t_max, tris, i, t, err, best, best_t, best_err, key, best_key
):  # fmt: skip
    """Whether hit ``i`` (t, err) replaces the best so far in a closest-hit search: at
    once when the bounds put it at t >= 0 and before the best (whose t starts at t_max),
    else as :func:`closer` decides (``key``, ``best_key``: their tie-break keys)."""
    if t - err >= 0.0 and t + err < best_t - best_err:
        return True
    return closer(
        origin, direction, t_max, tris, i, t, err, best, best_t, best_err, key, best_key
    )  # fmt: skip


@njit(cache=True, nogil=True)
def closer(
    origin, direction, t_max, tris, i, t, err, best, best_t, best_err, key, best_key
):  # fmt: skip
    """Whether hit ``i`` of :func:`ray_triangle_bounded` (t, err) lies in [0, t_max] and
    before hit ``best`` (-1 for none): decided from the bounds where they can, else
    exactly. On an exact tie the lower key wins (the face index, whatever the tree's
    slot order). The slow path of the walks."""
    a = (tris[i, 0, 0], tris[i, 0, 1], tris[i, 0, 2])
    b = (tris[i, 1, 0], tris[i, 1, 1], tris[i, 1, 2])
    c = (tris[i, 2, 0], tris[i, 2, 1], tris[i, 2, 2])
    if t - err < 0.0 or t + err > t_max:
        if not t_in_range(
            origin, direction, a, b, c, t_max if t + err > t_max else np.inf
        ):
            return False
    if best < 0 or t + err < best_t - best_err:
        return True
    if t - err > best_t + best_err:
        return False
    pa = (tris[best, 0, 0], tris[best, 0, 1], tris[best, 0, 2])
    pb = (tris[best, 1, 0], tris[best, 1, 1], tris[best, 1, 2])
    pc = (tris[best, 2, 0], tris[best, 2, 1], tris[best, 2, 2])
    order = t_compare(origin, direction, a, b, c, pa, pb, pc)
    return order < 0 or (order == 0 and key < best_key)


@njit(inline="always")
def ray_triangle_bounded(origin, shear, t_hi, a, b, c):
    """The watertight test, with the hit distance's error bound.

    Returns ``(hit, t, err, u, v)`` with ``|t - t_exact| <= err``: a hit when the exact
    ray's line crosses the closed triangle (exact edge signs, determinant not 0) and
    ``[t - err, t + err]`` meets ``[0, t_hi]`` (:func:`closer` decides the rest).
    """
    kx, ky, kz, sx, sy, sz, d = shear
    ax_, ay_, az_ = a[0] - origin[0], a[1] - origin[1], a[2] - origin[2]
    bx_, by_, bz_ = b[0] - origin[0], b[1] - origin[1], b[2] - origin[2]
    cx_, cy_, cz_ = c[0] - origin[0], c[1] - origin[1], c[2] - origin[2]
    A = (ax_, ay_, az_)
    B = (bx_, by_, bz_)
    C = (cx_, cy_, cz_)
    Az, Bz, Cz = A[kz], B[kz], C[kz]
    Ax = fma(-sx, Az, A[kx])
    Ay = fma(-sy, Az, A[ky])
    Bx = fma(-sx, Bz, B[kx])
    By = fma(-sy, Bz, B[ky])
    Cx = fma(-sx, Cz, C[kx])
    Cy = fma(-sy, Cz, C[ky])
    U = _edge(Bx, By, Cx, Cy)  # Cx*By - Cy*Bx: weight of a
    V = _edge(Cx, Cy, Ax, Ay)  # Ax*Cy - Ay*Cx: weight of b
    W = _edge(Ax, Ay, Bx, By)  # Bx*Ay - By*Ax: weight of c
    # An edge function within its rounding error (tol) takes the exact sign of d . ((q -
    # o) x (p - o)) on the float inputs instead: a ray through an edge or a vertex is
    # then decided as the exact ray would be.
    tol = _edge_tolerance(Ax, Ay, Bx, By, Cx, Cy, Az, Bz, Cz, sx, sy)
    rU, rV, rW = 0.0, 0.0, 0.0  # how far exact signs moved the values
    if abs(U) <= tol:
        rU = abs(U)
        U = _exact_edge(d, c, b, origin, U)
    if abs(V) <= tol:
        rV = abs(V)
        V = _exact_edge(d, a, c, origin, V)
    if abs(W) <= tol:
        rW = abs(W)
        W = _exact_edge(d, b, a, origin, W)
    if (U < 0.0 or V < 0.0 or W < 0.0) and (U > 0.0 or V > 0.0 or W > 0.0):
        return False, np.inf, 0.0, 0.0, 0.0
    det = U + V + W
    if det == 0.0:
        return False, np.inf, 0.0, 0.0, 0.0
    zA, zB, zC = sz * Az, sz * Bz, sz * Cz
    t = fma(U, zA, fma(V, zB, W * zC)) / det
    err = _t_bound(det, 3.0 * tol + rU + rV + rW, zA, zB, zC)
    if not (t + err >= 0.0 and t - err <= t_hi):
        return False, np.inf, 0.0, 0.0, 0.0
    u, v = _inside(V / det, W / det)
    return True, t, err, u, v


@njit(inline="always")
def _edge_tolerance(Ax, Ay, Bx, By, Cx, Cy, Az, Bz, Cz, sx, sy):
    """Bound on the rounding error of each of the three edge functions.

    A sheared coordinate ``Ax = fl(fl(a - o)[kx] - sx fl(a - o)[kz])`` (fused) is off by
    at most ``3.1 eps (|Ax| + |sx| |Az|)`` (Az = (a - o)[kz], sx itself rounded); so with
    ``dA = 3.2 eps (pA + (|sx| + |sy|) |Az|)`` and ``pA = |Ax| + |Ay|``, the edge
    function ``U = Cx By - Cy Bx`` is off by at most ``dC pB + dB pC + 2 dB dC + 2.1 eps
    pB pC`` (the last term its own product and fused difference). With D and P the sums
    of the d and p over the three vertices, that is at most ``D (P + D / 2) + 0.53 eps
    P**2`` for every edge: of the order of eps times the triangle's distance from the
    origin times its size.
    """
    P = abs(Ax) + abs(Ay) + abs(Bx) + abs(By) + abs(Cx) + abs(Cy)
    D = 3.2 * _EPS * (P + (abs(sx) + abs(sy)) * (abs(Az) + abs(Bz) + abs(Cz)))
    return D * (P + 0.5 * D) + 0.53 * _EPS * P * P + _UNDERFLOW


@njit(inline="always")
def _t_bound(det, weights, zA, zB, zC):
    """Bound on ``|t - t_exact|`` for the watertight test's ``t = T / det``.

    With the exact sheared weights U^, V^, W^ (of one sign at a hit) the exact t is their
    weighted mean of the exact depths z^, and for computed weights U = U^ + dU, ...
    ``sum U z^ / sum U - t_exact = sum dU (z^ - t_exact) / sum U`` exactly, where
    ``|z^ - t_exact|`` is at most the spread of the depths; ``weights`` bounds the sum of
    the |dU| (:func:`_edge_tolerance` each, plus how far exact signs moved them). Each
    depth carries 3 roundings, T 3 more (its terms sum to at most ``|det| max |z|``), det
    2 (its terms share a sign) and the division 1: with ``|t| <= max |z|``, at most
    ``11 eps`` times the sum of the |z| in all.
    """
    z1 = abs(zA) + abs(zB) + abs(zC)
    spread = abs(zA - zB) + abs(zB - zC) + 7.0 * _EPS * z1
    return weights * spread * (1.0 + 16.0 * _EPS) / abs(det) + 11.2 * _EPS * z1 + 1e-300
