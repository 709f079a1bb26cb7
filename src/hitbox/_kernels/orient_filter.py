"""The floating-point filters of the orientation predicates, and the triangle overlap
test that uses nothing else: every sign they give is exact, and where they cannot give
one they say so.

Kept apart from :mod:`hitbox._kernels.exact_predicates`, whose exact expansions are
compiled at import (:mod:`hitbox._kernels.apart`): a kernel built only on these filters
compiles in seconds and hands its undecided cases to the exact code, loaded only when
some case needs it (:mod:`hitbox._kernels.treeless`). Bounds after Shewchuk 1997,
"Adaptive Precision Floating-Point Arithmetic and Fast Robust Geometric Predicates".
"""

from numba import njit

from hitbox._kernels.triangle_points import cross_products

EPS = 2.0**-53  # Shewchuk's epsilon: half an ulp of 1.0
O2_BOUND = (3.0 + 16.0 * EPS) * EPS  # ccwerrboundA
O3_BOUND = (7.0 + 56.0 * EPS) * EPS  # o3derrboundA
# A product's absolute error under gradual underflow is at most 2**-1075 (sums of floats
# are exact there); the filters add a few of these to Shewchuk's relative bounds.
UNDERFLOW = 2.0**-1070

#: :func:`tri_tri_filtered`'s answers.
APART, MEET, UNDECIDED = 0, 1, -1


@njit(inline="always")
def orient3d_filter(ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz):
    """(det, bound): orient3d's determinant ``((b - a) x (c - a)) . (d - a)`` in float64
    and the error bound of its filter (Shewchuk's, widened by the absolute error of
    gradual underflow): the sign of det is exact where |det| > bound."""
    ux, uy, uz = bx - ax, by - ay, bz - az
    vx, vy, vz = cx - ax, cy - ay, cz - az
    wx, wy, wz = dx - ax, dy - ay, dz - az
    vywz, vzwy = vy * wz, vz * wy
    vzwx, vxwz = vz * wx, vx * wz
    vxwy, vywx = vx * wy, vy * wx
    det = ux * (vywz - vzwy) + uy * (vzwx - vxwz) + uz * (vxwy - vywx)
    permanent = (
        (abs(vywz) + abs(vzwy)) * abs(ux)
        + (abs(vzwx) + abs(vxwz)) * abs(uy)
        + (abs(vxwy) + abs(vywx)) * abs(uz)
    )
    return det, O3_BOUND * permanent + UNDERFLOW * (1.0 + abs(ux) + abs(uy) + abs(uz))


@njit(inline="always")
def _filtered_sign(q, p0, nx, ny, nz, px, py, pz):
    """Sign of (q - p0) . n by orient3d's filter, 0 when undecided."""
    wx, wy, wz = q[0] - p0[0], q[1] - p0[1], q[2] - p0[2]
    det = wx * nx + wy * ny + wz * nz
    aw = abs(wx) + abs(wy) + abs(wz)
    bound = O3_BOUND * (px * abs(wx) + py * abs(wy) + pz * abs(wz))
    bound += UNDERFLOW * (1.0 + aw)
    return 1 if det > bound else (-1 if det < -bound else 0)


@njit(inline="always")
def side_signs(p0, p1, p2, q0, q1, q2):
    """Signs of q0, q1, q2 against plane p0 p1 p2 by orient3d's filter (0: undecided,
    not "on the plane"), and their common sign when all three are decided and agree
    (else 0): (side, s0, s1, s2).

    The plane's cross product is formed once for the three points; each sign is the same
    triple product as orient3d with its factors in cyclic order (w . (u x v) =
    u . (v x w)), so Shewchuk's bound holds with the permanent taken in that order, and a
    decided sign is orient3d's exact sign.
    """
    ux, uy, uz = p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]
    vx, vy, vz = p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]
    uyvz, uzvy, uzvx, uxvz, uxvy, uyvx = cross_products((ux, uy, uz), (vx, vy, vz))
    nx, ny, nz = uyvz - uzvy, uzvx - uxvz, uxvy - uyvx
    px, py, pz = abs(uyvz) + abs(uzvy), abs(uzvx) + abs(uxvz), abs(uxvy) + abs(uyvx)
    s0 = _filtered_sign(q0, p0, nx, ny, nz, px, py, pz)
    s1 = _filtered_sign(q1, p0, nx, ny, nz, px, py, pz)
    s2 = _filtered_sign(q2, p0, nx, ny, nz, px, py, pz)
    side = s0 if (s0 != 0 and s0 == s1 and s1 == s2) else 0
    return side, s0, s1, s2


@njit(inline="always")
def apart_by_box_or_plane(p0, p1, p2, q0, q1, q2):
    """(apart, a0, a1, a2, b0, b1, b2): whether triangles p and q are exactly apart by
    their boxes or by either one's plane (every vertex of the other strictly on one
    side, as the filter decides it), and the filter's signs (:func:`side_signs`) of q's
    vertices against p's plane (a) and of p's against q's (b), 0 where undecided or not
    reached. Most pairs whose boxes meet are settled here by one cross product each."""
    for k in range(3):
        if max(p0[k], p1[k], p2[k]) < min(q0[k], q1[k], q2[k]) or max(
            q0[k], q1[k], q2[k]
        ) < min(p0[k], p1[k], p2[k]):
            return True, 0, 0, 0, 0, 0, 0
    side, a0, a1, a2 = side_signs(p0, p1, p2, q0, q1, q2)
    if side != 0:
        return True, a0, a1, a2, 0, 0, 0
    side, b0, b1, b2 = side_signs(q0, q1, q2, p0, p1, p2)
    return side != 0, a0, a1, a2, b0, b1, b2


@njit(inline="always")
def canonical_order(p0, p1, p2, q0, q1, q2, sp, sq):
    """Guigue & Devillers' vertex order for two triangles whose planes cross with no
    vertex on the other's plane (``sp``: the nonzero signs of p's vertices against q's
    plane, not all equal; ``sq`` likewise): each triangle rotated so that its lone
    vertex comes first, the other triangle flipped so that lone vertex is on its
    positive side. Returns (a0, a1, a2, b0, b1, b2); the triangles meet iff
    orient3d(a1, b0, a0, b1) <= 0 and orient3d(a0, b0, a2, b2) <= 0."""
    P = (p0, p1, p2)
    Q = (q0, q1, q2)
    i = 2 if sp[0] == sp[1] else (1 if sp[0] == sp[2] else 0)
    j = 2 if sq[0] == sq[1] else (1 if sq[0] == sq[2] else 0)
    a0, a1, a2 = P[i], P[(i + 1) % 3], P[(i + 2) % 3]
    b0, b1, b2 = Q[j], Q[(j + 1) % 3], Q[(j + 2) % 3]
    if sp[i] < 0:
        b1, b2 = b2, b1
    if sq[j] < 0:
        a1, a2 = a2, a1
    return a0, a1, a2, b0, b1, b2


@njit(inline="always")
def _filtered_orient3d(a, b, c, d):
    det, bound = orient3d_filter(
        a[0], a[1], a[2], b[0], b[1], b[2], c[0], c[1], c[2], d[0], d[1], d[2]
    )
    return 1 if det > bound else (-1 if det < -bound else 0)


@njit
def tri_tri_filtered(p0, p1, p2, q0, q1, q2):
    """Closed triangles p and q (three 3-tuples each): :data:`MEET`, :data:`APART`, or
    :data:`UNDECIDED` where an exact sign is needed (a vertex on or within rounding of
    the other's plane: touching, coplanar and zero-area triangles, and near-ties).

    ``tri_tri_overlap``'s path for triangles in general position
    (:mod:`hitbox._kernels.triangle_overlap`) with its filters alone, so MEET and APART
    are its exact answers.
    """
    apart, a0, a1, a2, b0, b1, b2 = apart_by_box_or_plane(p0, p1, p2, q0, q1, q2)
    if apart:
        return APART
    if a0 * a1 * a2 == 0 or b0 * b1 * b2 == 0:
        return UNDECIDED
    x0, x1, x2, y0, y1, y2 = canonical_order(
        p0, p1, p2, q0, q1, q2, (b0, b1, b2), (a0, a1, a2)
    )
    s1 = _filtered_orient3d(x1, y0, x0, y1)
    s2 = _filtered_orient3d(x0, y0, x2, y2)
    if s1 > 0 or s2 > 0:
        return APART
    if s1 < 0 and s2 < 0:
        return MEET
    return UNDECIDED
