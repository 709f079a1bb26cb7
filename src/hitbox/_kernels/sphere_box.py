"""Sphere against AABB and OBB: the box's closest point, clamped per axis (RTCD §5.1.3).

Spheres ``s.center (N, D)``, ``s.radius (N,)`` (negative radius: empty); boxes
``(N, 2, D)`` lo/hi (empty: +inf/-inf); OBBs ``o.center (N, 3)``, ``o.half (N, 3)``,
``o.rot (N, 3, 3)`` with the axes in the columns (negative half: empty). Closed: touching
counts as overlapping. The distance is compared scaled by its largest term, so no square
overflows or underflows.
"""

from numba import njit


@njit(inline="always")
def within(ex, ey, ez, r):
    """sqrt(ex**2 + ey**2 + ez**2) <= r, scaled by the largest term so that no square
    overflows or underflows (huge and tiny scenes answer as unit-sized ones)."""
    m = max(abs(ex), abs(ey), abs(ez))
    if not m <= r:
        return False
    if m == 0.0:
        return True
    x = ex / m
    y = ey / m
    z = ez / m
    q = r / m
    return x * x + y * y + z * z <= q * q


@njit(inline="always")
def sphere_aabb(s, i, boxes, j):
    """Closest point of the box (per-axis clamp, RTCD §5.1.3) within r. Exact up to a few
    ulps (the distance is scaled by its largest term, so no square overflows)."""
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
    if not m <= r:
        return False
    if m == 0.0:
        return True
    d2 = 0.0
    for k in range(boxes.shape[2]):
        c = s.center[i, k]
        e = max(boxes[j, 0, k] - c, c - boxes[j, 1, k], 0.0) / m
        d2 += e * e
    q = r / m
    return d2 <= q * q


@njit(inline="always")
def sphere_obb(s, i, o, j):
    """The sphere-AABB clamp in the box frame (RTCD §5.2.5). Exact."""
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
    e0 = max(abs(u0) - o.half[j, 0], 0.0)
    e1 = max(abs(u1) - o.half[j, 1], 0.0)
    e2 = max(abs(u2) - o.half[j, 2], 0.0)
    return within(e0, e1, e2, r)
