"""Distance between two triangles (and the point, segment and plane helpers under it),
exact apart from rounding: the closest points of two triangles that do not meet lie on
an edge of one and an edge of the other, or are a vertex of one and its closest point
on the other (Ericson, Real-Time Collision Detection §5.1.5, §5.1.9). A pair the exact
overlap test says meets is at distance 0 exactly; one that does not is never reported
at 0. Points and triangles are 3-tuples (:mod:`hitbox._kernels.triangle_points`).
"""

import math

import numpy as np
from numba import njit

from hitbox._kernels.triangle_closest import closest_point_on
from hitbox._kernels.triangle_overlap import tri_tri_overlap
from hitbox._kernels.triangle_points import _cross, _dot, _sub

#: Relative rounding margin of a lower bound (far above float64's rounding of it).
REL_EPS = 1e-12


# -- points, segments, triangles ---------------------------------------------------------


@njit(inline="always")
def _axpy(s, d, p):
    """p + s d."""
    return (p[0] + s * d[0], p[1] + s * d[1], p[2] + s * d[2])


@njit(inline="always")
def closest_on_triangle(p, a, b, c):
    """(closest point of triangle abc to p, its barycentrics on (a, b, c)), points as
    3-tuples: :func:`hitbox._kernels.triangle_closest.closest_point_on`."""
    _, qx, qy, qz, wa, wb, wc = closest_point_on(
        p[0], p[1], p[2], a[0], a[1], a[2], b[0], b[1], b[2], c[0], c[1], c[2]
    )
    return (qx, qy, qz), (wa, wb, wc)


#: Segments whose squared sine of their angle is at most this are nearly parallel:
#: Ericson's parameters lose eps / sin^2 of their precision there (1.6e-8 of the
#: coordinates' size, measured against exact rationals).
PARALLEL = 1e-6


@njit(inline="always")
def _on_segment(p, a, b):
    """The point of segment ab closest to p."""
    d = _sub(b, a)
    dd = _dot(d, d)
    t = 0.0 if dd <= 0.0 else min(1.0, max(0.0, _dot(_sub(p, a), d) / dd))
    return _axpy(t, d, a)


@njit(cache=True, nogil=True)
def _near_parallel(p1, q1, p2, q2, d1, d2, c1, c2):
    """The nearest of (c1, c2), the lines' closest points found through the cross
    product of the directions d1 = q1 - p1, d2 = q2 - p2 (parameters within eps / sin)
    where both fall on the segments, and each endpoint with its closest point on the
    other segment."""
    w = _sub(c1, c2)
    best = _dot(w, w)
    n = _cross(d1, d2)
    nn = _dot(n, n)
    if nn > 0.0:
        r = _sub(p2, p1)
        s = _dot(_cross(r, d2), n) / nn
        t = _dot(_cross(r, d1), n) / nn
        if 0.0 <= s <= 1.0 and 0.0 <= t <= 1.0:
            x, y = _axpy(s, d1, p1), _axpy(t, d2, p2)
            w = _sub(x, y)
            if _dot(w, w) < best:
                best, c1, c2 = _dot(w, w), x, y
    for k in range(4):
        if k < 2:
            x = p1 if k == 0 else q1
            y = _on_segment(x, p2, q2)
        else:
            y = p2 if k == 2 else q2
            x = _on_segment(y, p1, q1)
        w = _sub(x, y)
        if _dot(w, w) < best:
            best, c1, c2 = _dot(w, w), x, y
    return c1, c2


@njit(inline="always")
def segment_segment(p1, q1, p2, q2):
    """Closest points of segments p1q1 and p2q2: (c1, c2). Ericson §5.1.9; nearly
    parallel segments (:func:`_near_parallel`) also try better-conditioned candidates.
    """
    d1 = _sub(q1, p1)
    d2 = _sub(q2, p2)
    r = _sub(p1, p2)
    a = _dot(d1, d1)
    e = _dot(d2, d2)
    f = _dot(d2, r)
    if a <= 0.0 and e <= 0.0:
        return p1, p2
    if a <= 0.0:
        s = 0.0
        t = min(1.0, max(0.0, f / e))
    else:
        c = _dot(d1, r)
        if e <= 0.0:
            t = 0.0
            s = min(1.0, max(0.0, -c / a))
        else:
            b = _dot(d1, d2)
            denom = a * e - b * b
            s = min(1.0, max(0.0, (b * f - c * e) / denom)) if denom > 0.0 else 0.0
            t = (b * s + f) / e
            if t < 0.0:
                t = 0.0
                s = min(1.0, max(0.0, -c / a))
            elif t > 1.0:
                t = 1.0
                s = min(1.0, max(0.0, (b - c) / a))
    c1, c2 = _axpy(s, d1, p1), _axpy(t, d2, p2)
    if a > 0.0 and e > 0.0 and a * e - b * b <= PARALLEL * a * e:
        return _near_parallel(p1, q1, p2, q2, d1, d2, c1, c2)
    return c1, c2


@njit(inline="always")
def _side(p0, p1, p2, q0, q1, q2):
    """+1 (-1) when q0, q1, q2 lie clearly above (below) plane p0 p1 p2 (beyond a
    relative 1e-9 of the coordinates, far above rounding), else 0."""
    u = _sub(p1, p0)
    v = _sub(p2, p0)
    n = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
    scale = (abs(n[0]) + abs(n[1]) + abs(n[2])) * 1e-9
    side = 0
    for q in (q0, q1, q2):
        w = _sub(q, p0)
        d = _dot(n, w)
        margin = scale * (abs(w[0]) + abs(w[1]) + abs(w[2]) + 1e-300)
        s = 1 if d > margin else (-1 if d < -margin else 0)
        if s == 0 or (side != 0 and s != side):
            return 0
        side = s
    return side


@njit(inline="always")
def _may_cross(p0, p1, p2, q0, q1, q2):
    """False when either triangle lies clearly on one side of the other's plane."""
    return _side(p0, p1, p2, q0, q1, q2) == 0 and _side(q0, q1, q2, p0, p1, p2) == 0


@njit(inline="always")
def _off_both(x, p0, p1, p2, q0, q1, q2):
    """How far x is from the farther of the two triangles."""
    y, _ = closest_on_triangle(x, p0, p1, p2)
    z, _ = closest_on_triangle(x, q0, q1, q2)
    return max(_dot(_sub(x, y), _sub(x, y)), _dot(_sub(x, z), _sub(x, z)))


@njit(cache=True, nogil=True)
def _common_point(p0, p1, p2, q0, q1, q2):
    """A point of two triangles that meet (to rounding): the best of their vertices,
    each edge's crossing of the other's plane, and the edge pairs' closest points."""
    P = (p0, p1, p2)
    Q = (q0, q1, q2)
    best = np.inf
    out = p0
    for side in range(2):
        T, U = (P, Q) if side == 0 else (Q, P)
        u = _sub(U[1], U[0])
        w = _sub(U[2], U[0])
        n = (u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2],
             u[0] * w[1] - u[1] * w[0])  # fmt: skip
        for i in range(3):
            a = T[i]
            b = T[(i + 1) % 3]
            e = _off_both(a, p0, p1, p2, q0, q1, q2)
            if e < best:
                best, out = e, a
            da = _dot(n, _sub(a, U[0]))
            db = _dot(n, _sub(b, U[0]))
            if (da <= 0.0 <= db or db <= 0.0 <= da) and da != db:
                x = _axpy(da / (da - db), _sub(b, a), a)
                e = _off_both(x, p0, p1, p2, q0, q1, q2)
                if e < best:
                    best, out = e, x
    for i in range(3):
        for j in range(3):
            x, y = segment_segment(P[i], P[(i + 1) % 3], Q[j], Q[(j + 1) % 3])
            m = (0.5 * (x[0] + y[0]), 0.5 * (x[1] + y[1]), 0.5 * (x[2] + y[2]))
            e = _off_both(m, p0, p1, p2, q0, q1, q2)
            if e < best:
                best, out = e, m
    return out


@njit(inline="always")
def _face_gap(p0, p1, p2, q0, q1, q2):
    """(squared distance, point on p, point on q) when a vertex of q is provably the
    nearest point of q to p: q wholly on one side of p's plane, and the vertex nearest
    that plane falling inside p (then no point of q is nearer p's plane, and that
    vertex's foot is in p). (-1, p0, q0) otherwise, and for a thin p, whose plane and
    inside test rounding decides (the feature tests answer there)."""
    u = _sub(p1, p0)
    w = _sub(p2, p0)
    n = _cross(u, w)
    nn = _dot(n, n)
    d0 = _dot(n, _sub(q0, p0))
    d1 = _dot(n, _sub(q1, p0))
    d2 = _dot(n, _sub(q2, p0))
    if not (nn > 1e-8 * _dot(u, u) * _dot(w, w)) or not (
        (d0 > 0.0 and d1 > 0.0 and d2 > 0.0) or (d0 < 0.0 and d1 < 0.0 and d2 < 0.0)
    ):
        return -1.0, p0, q0
    q, d = q0, d0
    if abs(d1) < abs(d):
        q, d = q1, d1
    if abs(d2) < abs(d):
        q, d = q2, d2
    x = _axpy(-d / nn, n, q)  # q's foot on p's plane
    if (
        _dot(_cross(_sub(p1, p0), _sub(x, p0)), n) < 0.0
        or _dot(_cross(_sub(p2, p1), _sub(x, p1)), n) < 0.0
        or _dot(_cross(_sub(p0, p2), _sub(x, p2)), n) < 0.0
    ):
        return -1.0, p0, q0
    v = _sub(q, x)
    return _dot(v, v), x, q


@njit(inline="always")
def _below(a, b, c, v, s):
    """Whether a, b and c all lie on the plane through s across v or behind it."""
    return (
        _dot(_sub(a, s), v) <= 0.0 and _dot(_sub(b, s), v) <= 0.0
        and _dot(_sub(c, s), v) <= 0.0
    )  # fmt: skip


@njit(inline="always")
def _nearest_features(p0, p1, p2, q0, q1, q2, early):
    """(squared distance, point on p, point on q) of two triangles that do not meet:
    the least of the nine edge-edge and six vertex-triangle distances, never 0. With
    ``early``, an edge pair whose closest points x, y are the nearest so far and whose
    planes through x and y across y - x hold the triangles apart answers at once."""
    P = (p0, p1, p2)
    Q = (q0, q1, q2)
    best = np.inf
    bx = p0
    by = q0
    for i in range(3):
        for j in range(3):
            x, y = segment_segment(P[i], P[(i + 1) % 3], Q[j], Q[(j + 1) % 3])
            d = _sub(x, y)
            dd = _dot(d, d)
            if dd < best:
                best, bx, by = dd, x, y
                if (
                    early
                    and dd > 0.0
                    and _below(p0, p1, p2, _sub(y, x), x)
                    and _below(q0, q1, q2, d, y)
                ):
                    return dd, x, y
    for i in range(3):
        y, _ = closest_on_triangle(P[i], q0, q1, q2)
        d = _sub(P[i], y)
        dd = _dot(d, d)
        if dd < best:
            best, bx, by = dd, P[i], y
        x, _ = closest_on_triangle(Q[i], p0, p1, p2)
        d = _sub(x, Q[i])
        dd = _dot(d, d)
        if dd < best:
            best, bx, by = dd, x, Q[i]
    if best == 0.0:  # apart by less than rounding: still apart
        best = 5e-324
    return best, bx, by


@njit(cache=True, nogil=True)
def tri_tri_distance(p0, p1, p2, q0, q1, q2):
    """(squared distance, closest point on p, closest point on q) of two closed
    triangles: 0 exactly when the exact overlap test says they meet, else never 0.
    Apart, a vertex over the other's face (:func:`_face_gap`, both ways) or an edge
    pair whose closest points' planes part the triangles answers at once; else the
    least of the nine edge-edge and six vertex-triangle distances. The same distance
    as :func:`tri_tri_distance_brute` to rounding (tests/test_distance.py)."""
    if _may_cross(p0, p1, p2, q0, q1, q2) and tri_tri_overlap(p0, p1, p2, q0, q1, q2):
        x = _common_point(p0, p1, p2, q0, q1, q2)
        return 0.0, x, x
    dd, x, y = _face_gap(p0, p1, p2, q0, q1, q2)
    if dd > 0.0:
        return dd, x, y
    dd, y, x = _face_gap(q0, q1, q2, p0, p1, p2)
    if dd > 0.0:
        return dd, x, y
    return _nearest_features(p0, p1, p2, q0, q1, q2, True)


@njit(cache=True, nogil=True)
def tri_tri_distance_brute(p0, p1, p2, q0, q1, q2):
    """Slow twin of :func:`tri_tri_distance`: the least of all fifteen feature pairs'
    distances, no shortcut."""
    if _may_cross(p0, p1, p2, q0, q1, q2) and tri_tri_overlap(p0, p1, p2, q0, q1, q2):
        x = _common_point(p0, p1, p2, q0, q1, q2)
        return 0.0, x, x
    return _nearest_features(p0, p1, p2, q0, q1, q2, False)


@njit(inline="always")
def line_gap(p0, p1, p2, q0, q1, q2):
    """The gap between the triangles' projections on the line through their centroids,
    less a rounding margin: a lower bound on their distance, nearly the distance when
    they are far apart."""
    cp = ((p0[0] + p1[0] + p2[0]) / 3.0, (p0[1] + p1[1] + p2[1]) / 3.0,
          (p0[2] + p1[2] + p2[2]) / 3.0)  # fmt: skip
    cq = ((q0[0] + q1[0] + q2[0]) / 3.0, (q0[1] + q1[1] + q2[1]) / 3.0,
          (q0[2] + q1[2] + q2[2]) / 3.0)  # fmt: skip
    u = _sub(cq, cp)
    n = math.sqrt(_dot(u, u))
    if not n > 0.0:
        return 0.0
    hi_p = max(_dot(u, _sub(p0, cp)), _dot(u, _sub(p1, cp)), _dot(u, _sub(p2, cp)))
    lo_q = min(_dot(u, _sub(q0, cp)), _dot(u, _sub(q1, cp)), _dot(u, _sub(q2, cp)))
    # less a rounding margin relative to the lengths involved, not to the gap
    return (lo_q - hi_p) / n - REL_EPS * (n + (abs(lo_q) + abs(hi_p)) / n)


@njit(inline="always")
def beyond_plane(p0, p1, p2, q0, q1, q2, best):
    """Whether q0, q1, q2 all lie on one side of plane p0 p1 p2, farther than
    sqrt(best) (squared, with a relative margin for rounding)."""
    u = _sub(p1, p0)
    v = _sub(p2, p0)
    n = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
    nn = _dot(n, n)
    if not nn > 0.0:
        return False
    d0 = _dot(n, _sub(q0, p0))
    d1 = _dot(n, _sub(q1, p0))
    d2 = _dot(n, _sub(q2, p0))
    low = min(abs(d0), abs(d1), abs(d2))
    if (d0 > 0.0) != (d1 > 0.0) or (d0 > 0.0) != (d2 > 0.0):
        return False
    return low * low * (1.0 - 1e-9) >= best * nn
