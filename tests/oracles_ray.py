"""Slow, plainly correct twins of hitbox.ray and hitbox.sweep (STYLE §7).

The slab oracles run in exact rational arithmetic (fractions.Fraction), one ray and one
slab at a time, the way seed 001 describes the method. On integer and dyadic input every
float the kernels form is the correctly rounded value of the exact one, so the kernels
must agree with these to the last bit.
"""

import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np

INF = math.inf


def _q(x):
    return Fraction(float(x))


def slab_cast(lo, hi, axes, origin, direction, t_max):
    """Exact slab cast of one ray against the polytope {x : lo <= axes @ x <= hi}.

    Returns (hit, t_enter, t_exit, axis) with Fractions for t (inf when t_max is inf and
    the ray never leaves), or (False, inf, inf, -1). Ties keep the lowest slab; axis is -1
    when the origin lies in the closed volume.
    """
    if any(a > b for a, b in zip(lo, hi, strict=True)):
        return False, INF, INF, -1
    near, near_axis = None, -1
    far = INF if t_max == INF else _q(t_max)
    for k, a in enumerate(axes):
        o = sum(_q(a[c]) * _q(origin[c]) for c in range(len(origin)))
        d = sum(_q(a[c]) * _q(direction[c]) for c in range(len(origin)))
        lo_k = -INF if lo[k] == -INF else _q(lo[k])
        hi_k = INF if hi[k] == INF else _q(hi[k])
        if d == 0:
            if not lo_k <= o <= hi_k:
                return False, INF, INF, -1
            continue
        t1 = (lo_k - o) / d if lo_k != -INF else (-INF if d > 0 else INF)
        t2 = (hi_k - o) / d if hi_k != INF else (INF if d > 0 else -INF)
        if d < 0:
            t1, t2 = t2, t1
        if near is None or t1 > near:
            near, near_axis = t1, k
        far = min(far, t2)
    if near is None or near <= 0:
        near, near_axis = Fraction(0), -1
    if near <= far:
        return True, near, far, near_axis
    return False, INF, INF, -1


def aabb_cast(box, origin, direction, t_max):
    """:func:`slab_cast` for an AABB ``(2, D)``."""
    d = box.shape[1]
    return slab_cast(box[0], box[1], np.eye(d), origin, direction, t_max)


def aabb_sweep(moving, still, displacement):
    """Seed 000's intersectMovingAABB in exact arithmetic, closed intervals, no 1e30.

    Returns (t, axis) with t a Fraction, or (inf, -1).
    """
    if np.any(moving[0] > moving[1]) or np.any(still[0] > still[1]):
        return INF, -1
    t_enter, t_leave, axis = Fraction(0), Fraction(1), -1
    for k in range(moving.shape[1]):
        s = _q(displacement[k])
        m_lo, m_hi, s_lo, s_hi = (
            _q(x) for x in (moving[0, k], moving[1, k], still[0, k], still[1, k])
        )
        if s == 0:
            if s_lo > m_hi or s_hi < m_lo:
                return INF, -1
            continue
        enter, leave = (s_lo - m_hi) / s, (s_hi - m_lo) / s
        if enter > leave:
            enter, leave = leave, enter
        if enter > t_enter:
            t_enter, axis = enter, k
        t_leave = min(t_leave, leave)
        if t_enter > t_leave:
            return INF, -1
    return t_enter, axis


def ball_roots(center, radius, origin, direction, digits=60):
    """Ray against a ball by the textbook quadratic in 60-digit decimals.

    Returns (disc, t0, t1): ``disc`` is (b^2 - a c) / a^2, the squared half-chord in t
    units (negative: no real root), and the two roots t0 <= t1 of |o + t d - c| = r as
    floats; (None, inf, inf) for the empty ball (radius < 0).
    """
    if radius < 0:
        return None, INF, INF
    with localcontext() as ctx:
        ctx.prec = digits
        m = [
            Decimal(float(o)) - Decimal(float(c))
            for o, c in zip(origin, center, strict=True)
        ]
        d = [Decimal(float(x)) for x in direction]
        a = sum(x * x for x in d)
        b = sum(x * y for x, y in zip(m, d, strict=True))
        c = sum(x * x for x in m) - Decimal(float(radius)) ** 2
        disc = (b * b - a * c) / (a * a)
        if disc < 0:
            return float(disc), INF, INF
        root = disc.sqrt()
        return float(disc), float(-b / a - root), float(-b / a + root)


def box_distance(box, points):
    """Euclidean distances from points ``(..., D)`` to a closed box (0 inside)."""
    e = np.maximum(np.maximum(box[0] - points, points - box[1]), 0.0)
    return np.sqrt(np.sum(e * e, axis=-1))


def first_sampled_contact(gap, samples=4001):
    """Dense-sampling reference for sweeps: the first sampled t in [0, 1] with
    ``gap(t) <= 0`` (inf if none). ``gap`` maps an array of times to a separation measure,
    negative or zero where the volumes overlap."""
    t = np.linspace(0.0, 1.0, samples)
    touching = np.flatnonzero(gap(t) <= 0.0)
    return float(t[touching[0]]) if len(touching) else INF


def numpy_cast_aabb(boxes, origins, directions, t_max):
    """Vectorised numpy slab test with the kernel's contract: (hit, t_enter, t_exit, axis,
    normal) for ray i against box i (full-length arrays)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        a = (boxes[:, 0] - origins) / directions
        b = (boxes[:, 1] - origins) / directions
    positive = ~np.signbit(directions)
    near = np.where(positive, a, b)
    far = np.where(positive, b, a)
    near[np.isnan(near)] = -INF  # 0/0: origin on the plane of a parallel slab
    far[np.isnan(far)] = INF
    axis = np.argmax(near, axis=1)
    t_near = np.take_along_axis(near, axis[:, None], axis=1)[:, 0]
    t_far = np.minimum(far.min(axis=1), t_max)
    inside = t_near <= 0
    t_enter = np.where(inside, 0.0, t_near)
    hit = (t_enter <= t_far) & (t_enter < INF)
    axis = np.where(hit & ~inside, axis, -1)
    normal = np.zeros_like(origins)
    rows = np.flatnonzero(axis >= 0)
    normal[rows, axis[rows]] = np.where(directions[rows, axis[rows]] < 0, 1.0, -1.0)
    return (
        hit,
        np.where(hit, t_enter, INF),
        np.where(hit, t_far + 0.0, INF),
        axis,
        normal,
    )


# -- rays against triangle meshes, exactly --------------------------------------------


def _sub(p, q):
    return (p[0] - q[0], p[1] - q[1], p[2] - q[2])


def _cross(p, q):
    return (
        p[1] * q[2] - p[2] * q[1],
        p[2] * q[0] - p[0] * q[2],
        p[0] * q[1] - p[1] * q[0],
    )


def _dot(p, q):
    return p[0] * q[0] + p[1] * q[1] + p[2] * q[2]


def ray_triangle_exact(origin, direction, a, b, c, t_max=INF):
    """Least t >= 0 (a Fraction) at which the exact ray ``origin + t direction`` touches
    the closed triangle abc, or None: every input is read as the exact rational value of
    its float64, and nothing is rounded.

    The weights ``U, V, W = d . ((c - o) x (b - o)), ...`` of a, b, c are those of the
    point where the ray's line meets the plane; it pierces the triangle when they share a
    sign (zeros allowed) and do not sum to 0. When all three are 0 the line lies in the
    triangle's plane (or meets a zero-area triangle's line): the first touch is then the
    origin, if it lies in the triangle, or the first point where the ray meets an edge.
    """
    o = tuple(_q(x) for x in origin)
    d = tuple(_q(x) for x in direction)
    a, b, c = (tuple(_q(x) for x in p) for p in (a, b, c))
    tm = INF if t_max == INF else _q(t_max)
    ao, bo, co = _sub(a, o), _sub(b, o), _sub(c, o)
    U = _dot(d, _cross(co, bo))
    V = _dot(d, _cross(ao, co))
    W = _dot(d, _cross(bo, ao))
    det = U + V + W
    if det != 0:
        if (U < 0 or V < 0 or W < 0) and (U > 0 or V > 0 or W > 0):
            return None
        t = _dot(
            d, tuple(U * x + V * y + W * z for x, y, z in zip(ao, bo, co, strict=True))
        ) / (det * _dot(d, d))
        return t if 0 <= t <= tm else None
    if U != 0 or V != 0 or W != 0:  # the line is parallel to the plane, off it
        return None
    best = None
    n = _cross(_sub(b, a), _sub(c, a))
    if n != (0, 0, 0) and all(
        _dot(n, _cross(_sub(q, p), _sub(o, p))) >= 0 for p, q in ((a, b), (b, c), (c, a))
    ):
        best = Fraction(0)
    for p, q in ((a, b), (b, c), (c, a)):
        t = _ray_segment(o, d, p, q)
        if t is not None and (best is None or t < best):
            best = t
    return best if best is not None and best <= tm else None


def _ray_segment(o, d, p, q):
    """Least t >= 0 where the ray meets segment pq, both in one plane (Fractions)."""
    e = _sub(q, p)
    po = _sub(p, o)
    cr = _cross(d, e)
    if cr != (0, 0, 0):
        nn = _dot(cr, cr)
        t = _dot(_cross(po, e), cr) / nn
        s = _dot(_cross(po, d), cr) / nn
        return t if t >= 0 and 0 <= s <= 1 else None
    if _cross(po, d) != (0, 0, 0):  # parallel lines, apart
        return None
    dd = _dot(d, d)
    tp, tq = _dot(po, d) / dd, _dot(_sub(q, o), d) / dd
    lo, hi = min(tp, tq), max(tp, tq)
    return None if hi < 0 else max(lo, Fraction(0))


def mesh_candidates(triangles, origin, direction, margin=1e-9):
    """Faces the ray might touch: all but those whose float weights have clearly mixed
    signs (by ``margin`` of their magnitude, a million times the rounding)."""
    o = np.asarray(origin, float)
    d = np.asarray(direction, float)
    rel = triangles - o
    a, b, c = rel[:, 0], rel[:, 1], rel[:, 2]
    w = np.stack([np.cross(c, b) @ d, np.cross(a, c) @ d, np.cross(b, a) @ d], axis=1)
    size = np.linalg.norm(rel, axis=2)
    mag = np.linalg.norm(d) * np.stack(
        [size[:, 2] * size[:, 1], size[:, 0] * size[:, 2], size[:, 1] * size[:, 0]],
        axis=1,
    )
    tol = margin * mag + 1e-300
    mixed = (w < -tol).any(axis=1) & (w > tol).any(axis=1)
    return np.flatnonzero(~mixed)


def mesh_first_hit(triangles, origin, direction, t_max=INF):
    """Exact first touch of one ray on a mesh ``triangles (F, 3, 3)``.

    Returns ``(t, faces)``: ``t`` the least exact t (a Fraction) at which the ray touches
    any face and ``faces`` the set of faces it touches there; ``(None, set())`` on a miss.
    """
    best, faces = None, set()
    for f in mesh_candidates(triangles, origin, direction):
        t = ray_triangle_exact(origin, direction, *triangles[f], t_max=t_max)
        if t is None:
            continue
        if best is None or t < best:
            best, faces = t, {int(f)}
        elif t == best:
            faces.add(int(f))
    return best, faces


def ulps_apart(x, y):
    """How many float64 values lie between x and y (both finite, same sign)."""
    ix = int(np.array(x, np.float64).view(np.int64))
    iy = int(np.array(y, np.float64).view(np.int64))
    return abs(ix - iy)


def plane_t(origin, direction, a, b, c):
    """Exact t at which the ray's line meets the plane of abc, ``n . (a - o) / n . d``
    (a Fraction), or None when ``n . d == 0``."""
    o = tuple(_q(x) for x in origin)
    d = tuple(_q(x) for x in direction)
    a, b, c = (tuple(_q(x) for x in p) for p in (a, b, c))
    n = _cross(_sub(b, a), _sub(c, a))
    den = _dot(n, d)
    return None if den == 0 else _dot(n, _sub(a, o)) / den
