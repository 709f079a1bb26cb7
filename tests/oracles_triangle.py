"""Slow, exact twins of the triangle kernels, in rational arithmetic (fractions.Fraction).

Independent of the kernels' method: triangle overlap is a linear feasibility problem
solved by enumerating basic solutions, not orientation predicates; the ray hit solves the
plane equation and the barycentric coordinates directly.
"""

from fractions import Fraction
from itertools import combinations

import numpy as np


def _q(x):
    return Fraction(float(x))  # exact: every float is a rational


def _solve(cols, rhs):
    """The unique x with sum_k x_k cols[k] == rhs; None for dependent columns or none."""
    m, n = len(rhs), len(cols)
    rows = [[cols[k][r] for k in range(n)] + [rhs[r]] for r in range(m)]
    piv_row = 0
    for c in range(n):
        p = next((r for r in range(piv_row, m) if rows[r][c] != 0), None)
        if p is None:
            return None  # columns linearly dependent
        rows[piv_row], rows[p] = rows[p], rows[piv_row]
        inv = 1 / rows[piv_row][c]
        rows[piv_row] = [x * inv for x in rows[piv_row]]
        for r in range(m):
            if r != piv_row and rows[r][c] != 0:
                f = rows[r][c]
                rows[r] = [x - f * y for x, y in zip(rows[r], rows[piv_row], strict=True)]
        piv_row += 1
    if any(rows[r][n] != 0 for r in range(piv_row, m)):
        return None  # inconsistent
    return [rows[r][n] for r in range(n)]


def tri_tri_overlap(p, q):
    """Closed triangles p, q ``(3, 3)`` share a point: is there a basic feasible solution
    of ``sum l_i p_i = sum m_j q_j``, ``sum l = sum m = 1``, ``l, m >= 0``? Exact."""
    cols = [[_q(c) for c in v] + [Fraction(1), Fraction(0)] for v in np.asarray(p)]
    cols += [[-_q(c) for c in v] + [Fraction(0), Fraction(1)] for v in np.asarray(q)]
    rhs = [Fraction(0)] * 3 + [Fraction(1), Fraction(1)]
    for size in range(1, 6):
        for subset in combinations(range(6), size):
            x = _solve([cols[k] for k in subset], rhs)
            if x is not None and all(xi >= 0 for xi in x):
                return True
    return False


def _sub(a, b):
    return [x - y for x, y in zip(a, b, strict=True)]


def _cross(a, b):
    return [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]


def _dot(a, b):
    return sum(x * y for x, y in zip(a, b, strict=True))


def orient3d(a, b, c, d):
    """Exact sign of ((b - a) x (c - a)) . (d - a)."""
    a, b, c, d = ([_q(x) for x in p] for p in (a, b, c, d))
    det = _dot(_cross(_sub(b, a), _sub(c, a)), _sub(d, a))
    return (det > 0) - (det < 0)


def orient2d(a, b, c):
    """Exact sign of (b - a) x (c - a) in 2D."""
    a, b, c = ([_q(x) for x in p] for p in (a, b, c))
    det = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    return (det > 0) - (det < 0)


def ray_triangle(origin, direction, tri, t_max=np.inf):
    """Exact (hit, t, u, v) of a ray against a closed triangle, as Fractions.

    The hit point ``o + t d`` equals ``(1 - u - v) v0 + u v1 + v v2`` with u, v and
    1 - u - v >= 0 and 0 <= t <= t_max. A ray parallel to the triangle's plane
    (n . d == 0, which includes every zero-area triangle) misses, as in the kernel.
    """
    o = [_q(x) for x in origin]
    d = [_q(x) for x in direction]
    v0, v1, v2 = ([_q(x) for x in p] for p in tri)
    e1, e2 = _sub(v1, v0), _sub(v2, v0)
    n = _cross(e1, e2)
    nd = _dot(n, d)
    if nd == 0:
        return False, None, None, None
    t = _dot(n, _sub(v0, o)) / nd
    if t < 0 or (np.isfinite(t_max) and t > _q(t_max)):
        return False, None, None, None
    x = [oi + t * di for oi, di in zip(o, d, strict=True)]
    # Barycentrics from areas projected on the normal: exact for a point in the plane.
    nn = _dot(n, n)
    u = _dot(_cross(_sub(x, v0), e2), n) / nn
    v = _dot(_cross(e1, _sub(x, v0)), n) / nn
    if u < 0 or v < 0 or u + v > 1:
        return False, None, None, None
    return True, t, u, v


def _point_segment2(p, a, b):
    """Exact squared distance from p to segment ab (rationals in, a Fraction out)."""
    d = _sub(b, a)
    dd = _dot(d, d)
    t = (
        Fraction(0)
        if dd == 0
        else min(Fraction(1), max(Fraction(0), _dot(_sub(p, a), d) / dd))
    )
    w = _sub(p, [a[k] + t * d[k] for k in range(3)])
    return _dot(w, w)


def segment_distance2(p1, q1, p2, q2):
    """Exact squared distance (a Fraction) between segments p1q1 and p2q2: the least
    over each endpoint against the other segment and, where the lines' closest points
    fall inside both, those points."""
    p1, q1, p2, q2 = ([_q(c) for c in np.asarray(v)] for v in (p1, q1, p2, q2))
    best = min(_point_segment2(p1, p2, q2), _point_segment2(q1, p2, q2),
               _point_segment2(p2, p1, q1), _point_segment2(q2, p1, q1))  # fmt: skip
    d1, d2, r = _sub(q1, p1), _sub(q2, p2), _sub(p1, p2)
    a, e, b = _dot(d1, d1), _dot(d2, d2), _dot(d1, d2)
    c, f = _dot(d1, r), _dot(d2, r)
    den = a * e - b * b
    if den != 0:
        s, t = (b * f - c * e) / den, (a * f - b * c) / den
        if 0 <= s <= 1 and 0 <= t <= 1:
            w = _sub(
                [p1[k] + s * d1[k] for k in range(3)],
                [p2[k] + t * d2[k] for k in range(3)],
            )
            best = min(best, _dot(w, w))
    return best


def point_triangle_distance2(x, tri):
    """Exact squared distance (a Fraction) from point x to the closed triangle tri: the
    least over its three edges and, where x's foot on its plane falls inside, the face
    (a zero-area triangle is its edges)."""
    p = [_q(c) for c in np.asarray(x)]
    a, b, c = ([_q(v) for v in row] for row in np.asarray(tri))
    best = min(
        _point_segment2(p, a, b), _point_segment2(p, a, c), _point_segment2(p, b, c)
    )
    u, v = _sub(b, a), _sub(c, a)
    uu, uv, vv = _dot(u, u), _dot(u, v), _dot(v, v)
    den = uu * vv - uv * uv
    if den != 0:
        w = _sub(p, a)
        wu, wv = _dot(w, u), _dot(w, v)
        s, t = (vv * wu - uv * wv) / den, (uu * wv - uv * wu) / den
        if s >= 0 and t >= 0 and s + t <= 1:
            r = _sub(p, [a[k] + s * u[k] + t * v[k] for k in range(3)])
            best = min(best, _dot(r, r))
    return best


# -- float helpers for tolerance checks (not exact) --------------------------------------


def point_segment_distance(x, a, b):
    ab = b - a
    den = ab @ ab
    t = 0.0 if den == 0 else np.clip((x - a) @ ab / den, 0.0, 1.0)
    return np.linalg.norm(x - (a + t * ab))


def point_triangle_distance(x, tri):
    """Distance from point x to the closed triangle (its segment if it has zero area)."""
    a, b, c = tri
    edges = min(
        point_segment_distance(x, a, b),
        point_segment_distance(x, b, c),
        point_segment_distance(x, c, a),
    )
    n = np.cross(b - a, c - a)
    nn = n @ n
    if nn <= 1e-30 * max(1.0, np.abs(tri).max()) ** 4:
        return edges
    y = x - (x - a) @ n / nn * n  # projection onto the plane
    u = np.cross(y - a, c - a) @ n / nn
    v = np.cross(b - a, y - a) @ n / nn
    if u >= 0 and v >= 0 and u + v <= 1:
        return min(edges, abs((x - a) @ n) / np.sqrt(nn))
    return edges


def crossing_segment(p, q):
    """Intersection segment of two triangles whose planes cross (generic position only):
    p cut by q's plane, then clipped by the three planes through q's edges."""
    nq = np.cross(q[1] - q[0], q[2] - q[0])
    d = (p - q[0]) @ nq
    pts = []
    for i in range(3):
        j = (i + 1) % 3
        if d[i] == 0:
            pts.append(p[i])
        if d[i] * d[j] < 0:
            pts.append(p[i] + (p[j] - p[i]) * d[i] / (d[i] - d[j]))
    if len(pts) < 2:
        return None
    a, b = pts[0], pts[1]
    t0, t1 = 0.0, 1.0
    for i in range(3):
        j = (i + 1) % 3
        inward = np.cross(nq, q[j] - q[i])  # points into q for a counter-clockwise q
        fa, fb = (a - q[i]) @ inward, (b - q[i]) @ inward
        if fa < 0 and fb < 0:
            return None
        if fa < 0:
            t0 = max(t0, fa / (fa - fb))
        elif fb < 0:
            t1 = min(t1, fa / (fa - fb))
    if t0 > t1:
        return None
    return a + t0 * (b - a), a + t1 * (b - a)
