"""Penetration depth and normal of two touching triangles: a mesh contact's local depth.

Two triangles are convex, so the shortest translation that leaves them apart (touching
at most) lies along one of their separating-axis candidates: the two face normals and
the nine cross products of an edge of each (the facet normals of their Minkowski
difference; Gottschalk, Lin and Manocha 1996 for the axes). Along a unit axis u the
second triangle must move by ``max u.p - min u.q`` (towards +u) or ``max u.q - min u.p``
(towards -u); the depth is the least such move over the candidates, the normal its
direction. Coplanar triangles part along their common normal at once: depth 0.
"""

import math

from numba import njit

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
