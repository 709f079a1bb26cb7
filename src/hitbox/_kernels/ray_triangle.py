"""Watertight, two-sided ray–triangle test (Woop, Benthin & Wald 2013, JCGT 2(1)).

An edge function within rounding of zero takes the exact sign of ``d . ((q - o) x (p -
o))`` on the float inputs (``exact_predicates.ray_edge_sign``), so a ray through an edge
or a vertex is decided as the exact ray would be. Hit distances are floating point.
"""

import numpy as np
from numba import njit

from hitbox._kernels.exact_predicates import (
    _O2_BOUND,
    _UNDERFLOW,
    _two_product,
    ray_edge_sign,
)


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
