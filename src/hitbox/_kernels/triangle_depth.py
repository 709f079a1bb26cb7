"""Penetration depth and normal of two touching triangles: a mesh contact's local depth.

Two triangles are convex, so the shortest translation that leaves them apart (touching
at most) lies along one of their separating-axis candidates: the two face normals and
the nine cross products of an edge of each (the facet normals of their Minkowski
difference; Gottschalk, Lin and Manocha 1996 for the axes). Along a unit axis u the
second triangle must move by ``max u.p - min u.q`` (towards +u) or ``max u.q - min u.p``
(towards -u); the depth is the least such move over the candidates, the normal its
direction. Coplanar triangles part along their common normal at once: depth 0. A triangle and a
box (an oriented box's three face normals and edge directions), or a triangle and a
ball (the ball leaves along the line from the triangle's nearest point to its centre,
by the radius less that distance), are measured the same way.
"""

import math

from numba import njit

from hitbox._kernels.triangle_closest import closest_point_on
from hitbox._kernels.triangle_points import _cross, _dot, _sub, load, load_xf

#: An edge-edge axis is left out when its cross product is shorter than this fraction
#: of the product of the edges' lengths (near-parallel edges: no reliable direction).
PARALLEL = 1e-12


@njit(inline="always")
def _moves(P, Q, u):
    """(move towards +u, move towards -u) that parts Q from P along axis u."""
    hp = max(_dot(P[0], u), _dot(P[1], u), _dot(P[2], u))
    lp = min(_dot(P[0], u), _dot(P[1], u), _dot(P[2], u))
    hq = max(_dot(Q[0], u), _dot(Q[1], u), _dot(Q[2], u))
    lq = min(_dot(Q[0], u), _dot(Q[1], u), _dot(Q[2], u))
    return hp - lq, hq - lp


@njit(inline="always")
def _try_axis(P, Q, a, scale2, best, bx, by, bz):
    """The candidate axis a (any length): kept when its move beats ``best``."""
    aa = _dot(a, a)
    if not aa > PARALLEL * PARALLEL * scale2:
        return best, bx, by, bz
    s = 1.0 / math.sqrt(aa)
    u = (a[0] * s, a[1] * s, a[2] * s)
    up, down = _moves(P, Q, u)
    if up < best:
        best, bx, by, bz = up, u[0], u[1], u[2]
    if down < best:
        best, bx, by, bz = down, -u[0], -u[1], -u[2]
    return best, bx, by, bz


@njit(cache=True, nogil=True)
def tri_pair_depth(p0, p1, p2, q0, q1, q2):
    """(depth, nx, ny, nz): the least translation ``depth * n`` of triangle q that
    leaves it apart from triangle p, over the eleven candidate axes; depth clamped at 0
    (touching or apart). A pair with no usable axis (both triangles collapsed to
    points, or to parallel segments) gives depth 0 and a NaN normal."""
    P = (p0, p1, p2)
    Q = (q0, q1, q2)
    ep = (_sub(p1, p0), _sub(p2, p1), _sub(p0, p2))
    eq = (_sub(q1, q0), _sub(q2, q1), _sub(q0, q2))
    best = math.inf
    bx = by = bz = math.nan
    np_ = _cross(ep[0], _sub(p2, p0))
    nq = _cross(eq[0], _sub(q2, q0))
    lp = max(_dot(ep[0], ep[0]), _dot(ep[1], ep[1]), _dot(ep[2], ep[2]))
    lq = max(_dot(eq[0], eq[0]), _dot(eq[1], eq[1]), _dot(eq[2], eq[2]))
    best, bx, by, bz = _try_axis(P, Q, np_, lp * lp, best, bx, by, bz)
    best, bx, by, bz = _try_axis(P, Q, nq, lq * lq, best, bx, by, bz)
    for i in range(3):
        for j in range(3):
            a = _cross(ep[i], eq[j])
            scale2 = _dot(ep[i], ep[i]) * _dot(eq[j], eq[j])
            best, bx, by, bz = _try_axis(P, Q, a, scale2, best, bx, by, bz)
    if best == math.inf:
        return 0.0, math.nan, math.nan, math.nan
    return max(best, 0.0), bx, by, bz


@njit(cache=True, nogil=True)
def pair_depths(a_tris, b_tris, slots_a, slots_b, rot, trans, normals, depths):
    """:func:`tri_pair_depth` of each pair (slot ``slots_a[k]`` of A, ``slots_b[k]`` of
    B moved by rot, trans into A's frame): normals (n, 3) and depths (n,)."""
    for k in range(len(slots_a)):
        p0, p1, p2 = load(a_tris, slots_a[k])
        q0, q1, q2 = load_xf(b_tris, slots_b[k], rot, trans)
        d, nx, ny, nz = tri_pair_depth(p0, p1, p2, q0, q1, q2)
        depths[k] = d
        normals[k, 0], normals[k, 1], normals[k, 2] = nx, ny, nz


@njit(inline="always")
def _box_moves(P, centre, half, rot, u):
    """_moves of a box (centre, half extents, axes as rot's columns) from triangle P
    along u: (move of the box towards +u, towards -u)."""
    hp = max(_dot(P[0], u), _dot(P[1], u), _dot(P[2], u))
    lp = min(_dot(P[0], u), _dot(P[1], u), _dot(P[2], u))
    c = centre[0] * u[0] + centre[1] * u[1] + centre[2] * u[2]
    reach = 0.0
    for k in range(3):
        reach += half[k] * abs(rot[0, k] * u[0] + rot[1, k] * u[1] + rot[2, k] * u[2])
    return hp - (c - reach), (c + reach) - lp


@njit(cache=True, nogil=True)
def tri_box_depth(p0, p1, p2, centre, half, rot):
    """(depth, nx, ny, nz): the least translation ``depth * n`` of the box (centre,
    half extents, rot's columns its axes) that leaves it apart from triangle p (touching
    at most), over the thirteen candidate axes: the triangle's normal, the box's three
    axes and the nine cross products of an edge of each; clamped at 0."""
    P = (p0, p1, p2)
    ep = (_sub(p1, p0), _sub(p2, p1), _sub(p0, p2))
    best = math.inf
    bx = by = bz = math.nan
    for c in range(4 + 9):
        if c == 0:
            a = _cross(ep[0], _sub(p2, p0))
            scale2 = max(_dot(ep[0], ep[0]), _dot(ep[1], ep[1]), _dot(ep[2], ep[2])) ** 2
        elif c < 4:
            a = (rot[0, c - 1], rot[1, c - 1], rot[2, c - 1])
            scale2 = 1.0
        else:
            e = ep[(c - 4) // 3]
            k = (c - 4) % 3
            a = _cross(e, (rot[0, k], rot[1, k], rot[2, k]))
            scale2 = _dot(e, e)
        aa = _dot(a, a)
        if not aa > PARALLEL * PARALLEL * scale2:
            continue
        s = 1.0 / math.sqrt(aa)
        u = (a[0] * s, a[1] * s, a[2] * s)
        up, down = _box_moves(P, centre, half, rot, u)
        if up < best:
            best, bx, by, bz = up, u[0], u[1], u[2]
        if down < best:
            best, bx, by, bz = down, -u[0], -u[1], -u[2]
    if best == math.inf:
        return 0.0, math.nan, math.nan, math.nan
    return max(best, 0.0), bx, by, bz


@njit(cache=True, nogil=True)
def tri_ball_depth(p0, p1, p2, centre, radius):
    """(depth, nx, ny, nz): the least translation ``depth * n`` of the ball that leaves
    it apart from triangle p: along the line from the triangle's nearest point to the
    centre, by the radius less their distance (the triangle's normal when the centre
    lies on it); clamped at 0."""
    d2, qx, qy, qz, _, _, _ = closest_point_on(
        centre[0], centre[1], centre[2], p0[0], p0[1], p0[2], p1[0], p1[1], p1[2],
        p2[0], p2[1], p2[2],
    )  # fmt: skip
    dx, dy, dz = centre[0] - qx, centre[1] - qy, centre[2] - qz
    d = math.sqrt(dx * dx + dy * dy + dz * dz)
    if d > 0.0:
        return max(radius - d, 0.0), dx / d, dy / d, dz / d
    n = _cross(_sub(p1, p0), _sub(p2, p0))
    nn = math.sqrt(_dot(n, n))
    if not nn > 0.0:
        return radius, math.nan, math.nan, math.nan
    return radius, n[0] / nn, n[1] / nn, n[2] / nn


@njit(cache=True, nogil=True)
def volume_depths(tris, faces, kind, centre, half, rot, radius, normals, depths):
    """Each face ``faces[k]`` of ``tris`` (world frame) against one plain volume: a
    ball (kind 0: centre, radius) or a box (kind 1: centre, half, rot), the volume
    moved: :func:`tri_ball_depth`, :func:`tri_box_depth`."""
    for k in range(len(faces)):
        p0, p1, p2 = load(tris, faces[k])
        if kind == 0:
            d, nx, ny, nz = tri_ball_depth(p0, p1, p2, centre, radius)
        else:
            d, nx, ny, nz = tri_box_depth(p0, p1, p2, centre, half, rot)
        depths[k] = d
        normals[k, 0], normals[k, 1], normals[k, 2] = nx, ny, nz
