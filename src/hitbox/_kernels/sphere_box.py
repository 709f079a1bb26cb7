"""Sphere against AABB and OBB: the box's closest point, clamped per axis (RTCD §5.1.3).

Spheres ``s.center (N, D)``, ``s.radius (N,)`` (negative radius: empty); boxes
``(N, 2, D)`` lo/hi (empty: +inf/-inf); OBBs ``o.center (N, 3)``, ``o.half (N, 3)``,
``o.rot (N, 3, 3)`` with the axes in the columns (negative half: empty). Closed: touching
counts as overlapping, in exact arithmetic on the given floats: the comparisons allow the
roundings of the differences and squares formed (``sphere_overlap.LIN_WIDEN``,
``SQ_WIDEN``), and in the OBB's frame those of the rotated offset (:data:`TURN_SLACK`).
The distance is compared scaled by its largest term, so no square overflows or
underflows.
"""

from numba import njit

from hitbox._kernels.sphere_overlap import LIN_WIDEN, SQ_WIDEN

#: The offset turned into an OBB's frame, u_k = sum_c d_c rot[c, k], is within
#: TURN_SLACK * (|d|_1 + half_k) of exact (three products, two sums, the difference
#: d and the subtraction of the half extent), with rot.T taken as rot's inverse.
TURN_SLACK = 8.0 * 2.0**-53


@njit(inline="always")
def within(ex, ey, ez, r):
    """sqrt(ex**2 + ey**2 + ez**2) <= r, scaled by the largest term so that no square
    overflows or underflows (huge and tiny scenes answer as unit-sized ones)."""
    m = max(abs(ex), abs(ey), abs(ez))
    if not m <= r * LIN_WIDEN:
        return False
    if m == 0.0:
        return True
    x = ex / m
    y = ey / m
    z = ez / m
    q = r / m
    return x * x + y * y + z * z <= q * q * SQ_WIDEN


@njit(inline="always")
def sphere_aabb(s, i, boxes, j):
    """Closest point of the box (per-axis clamp, RTCD §5.1.3) within r, touching
    included: the roundings are allowed for (module doc), and the distance is scaled by
    its largest term, so no square overflows."""
    r = s.radius[i]
    if r < 0.0:
        return False
    m = 0.0
    for k in range(boxes.shape[2]):
        lo = boxes[j, 0, k]
        hi = boxes[j, 1, k]
        if lo > hi:
            return False
        c = s.center[i, k]
        m = max(m, lo - c, c - hi)
    if not m <= r * LIN_WIDEN:
        return False
    if m == 0.0:
        return True
    d2 = 0.0
    for k in range(boxes.shape[2]):
        c = s.center[i, k]
        e = max(boxes[j, 0, k] - c, c - boxes[j, 1, k], 0.0) / m
        d2 += e * e
    q = r / m
    return d2 <= q * q * SQ_WIDEN


@njit(inline="always")
def sphere_obb(s, i, o, j):
    """The sphere-AABB clamp in the box frame (RTCD §5.2.5), touching included (the
    rotated offset's roundings allowed for: :data:`TURN_SLACK`)."""
    r = s.radius[i]
    if r < 0.0:
        return False
    if o.half[j, 0] < 0.0 or o.half[j, 1] < 0.0 or o.half[j, 2] < 0.0:
        return False
    dx = s.center[i, 0] - o.center[j, 0]
    dy = s.center[i, 1] - o.center[j, 1]
    dz = s.center[i, 2] - o.center[j, 2]
    rot = o.rot
    u0 = dx * rot[j, 0, 0] + dy * rot[j, 1, 0] + dz * rot[j, 2, 0]
    u1 = dx * rot[j, 0, 1] + dy * rot[j, 1, 1] + dz * rot[j, 2, 1]
    u2 = dx * rot[j, 0, 2] + dy * rot[j, 1, 2] + dz * rot[j, 2, 2]
    spread = abs(dx) + abs(dy) + abs(dz)
    e0 = max(abs(u0) - o.half[j, 0] - TURN_SLACK * (spread + o.half[j, 0]), 0.0)
    e1 = max(abs(u1) - o.half[j, 1] - TURN_SLACK * (spread + o.half[j, 1]), 0.0)
    e2 = max(abs(u2) - o.half[j, 2] - TURN_SLACK * (spread + o.half[j, 2]), 0.0)
    return within(e0, e1, e2, r)
