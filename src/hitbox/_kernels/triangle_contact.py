"""Contact of two closed triangles: the two farthest points of their intersection set.

Whether there is a contact is exact (``triangle_overlap.tri_tri_overlap``); the points
are floating-point geometry, the extreme points of each edge of one triangle against the
other (the edge characterisation of Guigue & Devillers 2003).
"""

import numpy as np
from numba import njit

from hitbox._kernels.exact_predicates import _same, orient3d
from hitbox._kernels.triangle_distance import closest_on_triangle, segment_segment
from hitbox._kernels.triangle_overlap import (
    _box_overlap_2d,
    _in_tri_2d,
    _o2,
    _proj_axis,
    _seg_seg_2d,
    _seg_seg_3d,
    _seg_tri_3d,
    _span,
    tri_tri_overlap,
)
from hitbox._kernels.triangle_points import _cross, _dot, _lerp, _sub

CONTACT_SCRATCH = 64  # contact candidates per triangle pair: 6 edges x 8 points at most


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
    """t clamped to [lo, hi]. Where rounding left lo above hi, the exact set they bound
    is one point (the exact tests found it not empty): their midpoint. (Falling back to
    an unclamped t there put a crossing of two nearly coplanar triangles a quarter of an
    edge away, as hypothesis found.)"""
    if lo > hi:
        return 0.5 * (lo + hi)
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
    x = _lerp(a, b, min(max(t, 0.0), 1.0))
    if _gap2(x, t0, t1, t2) > _tol2(a, b, t0, t1, t2):
        x = _nearest_on_segment(a, b, t0, t1, t2, x)
    return _add(pts, n, x)


@njit(inline="always")
def _gap2(x, t0, t1, t2):
    q, _ = closest_on_triangle(x, t0, t1, t2)
    d = _sub(x, q)
    return _dot(d, d)


@njit(inline="always")
def _tol2(a, b, t0, t1, t2):
    """Squared rounding tolerance of a crossing point: 1e-10 of the coordinates' size."""
    m = 0.0
    for p in (a, b, t0, t1, t2):
        m = max(m, abs(p[0]), abs(p[1]), abs(p[2]))
    return (1e-10 * m) ** 2


@njit(cache=True)
def _nearest_on_segment(a, b, t0, t1, t2, x):
    """The point of ab nearest triangle t among x and ab's closest points to t's edges.

    The crossing of ab with t's plane is ill-conditioned when t is a sliver (its plane
    is then barely defined: hypothesis found a crossing 0.3 off both triangles); the
    exact tests said ab meets t, so the meeting point lies on ab near t's edges or is x.
    """
    best, best_d = x, _gap2(x, t0, t1, t2)
    T = (t0, t1, t2)
    for k in range(3):
        c, _ = segment_segment(a, b, T[k], T[(k + 1) % 3])
        d = _gap2(c, t0, t1, t2)
        if d < best_d:
            best, best_d = c, d
    return best


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
