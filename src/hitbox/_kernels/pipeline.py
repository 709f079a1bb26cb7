"""Stages of the scene pipeline (SPEC §9) that the compiled step (:mod:`.scene`) runs:
motion, world bounds, a pair's pretreatment verdict, relative frames, and the exact
triangle tests of the mesh-against-plain-volume narrow phase.

Objects are rows of flat per-object tables indexed by object id: ``rot (N, 3, 3)``,
``trans (N, 3)``, model bounding spheres ``mc (N, 3)``, ``mr (N,)``, model boxes
``mbox (N, 2, 3)``. Pairs are ``(2, n)`` object ids with row 0 < row 1. A pair's key is
``i << 32 | j``, so keys sort as the pairs do.

Every bound here errs outwards: world spheres and boxes are widened past rounding, and
the triangle tests widen by a relative 1e-12 towards "touching" (touching counts).
"""

import math

import numpy as np
from numba import njit

from hitbox._kernels.sphere_box import within

#: Relative widening of world bounding spheres and boxes (far above rounding).
PAD = 1e-9
#: Relative slack of the exact triangle tests, towards "touching".
REL_EPS = 1e-12
#: Scheduled wake-up times are pulled this much (relatively) towards the present.
WAKE_SAFETY = 1e-9

#: Pretreatment verdicts of one pair.
FILTERED, FAR, ASLEEP, SCHEDULED, BOXES_APART, CANDIDATE = 0, 1, 2, 3, 4, 5

#: Per-object volume kinds, in mixed.KINDS order (sphere, aabb, kdop, obb).
SPHERE, AABB, KDOP14, KDOP18, KDOP26, OBB = 0, 1, 2, 3, 4, 5


# -- motion ------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def advance(rot, trans, vel, omega, acc, idx, dt, version):
    """Move objects ``idx`` by ``dt`` (and count their ``version`` up): constant linear
    acceleration, constant angular velocity (about the object's origin, in world axes).

    trans += v dt + a dt^2 / 2, v += a dt, rot = exp([w] dt) rot by Rodrigues' formula
    with 1 - cos written as 2 sin^2(theta / 2); then one Newton-Schulz step
    (R <- 1.5 R - 0.5 R R^T R) keeps rot orthonormal to rounding over long runs.
    """
    advance_with(rot, trans, vel, omega, acc, idx, dt, version, np.empty((2, 3, 3)))


@njit(cache=True, nogil=True)
def advance_steps(rot, trans, vel, omega, acc, idx, dts, version):
    """:func:`advance` once per step of ``dts``, in order: the very arithmetic of those
    steps taken one at a time. Each object's turn is worked out once per run of equal
    steps (the same numbers :func:`advance` computes at each)."""
    scratch = np.empty((2, 3, 3))
    step = scratch[0]
    for o in idx:
        last = np.nan  # the step the turn in ``step`` is for (NaN: none yet)
        still = True
        for dt in dts:
            _translate(o, trans, vel, acc, dt, version)
            if dt != last:
                still = not _turn_into(omega, o, dt, step)
                last = dt
            if not still:
                _turn_pose(o, rot, step, scratch[1])


@njit(inline="always")
def advance_with(rot, trans, vel, omega, acc, idx, dt, version, scratch):
    """:func:`advance` with ``scratch`` (2, 3, 3) for the turn and the turned pose (a
    loop of steps makes it once)."""
    step = scratch[0]
    for o in idx:
        _translate(o, trans, vel, acc, dt, version)
        if _turn_into(omega, o, dt, step):
            _turn_pose(o, rot, step, scratch[1])


@njit(inline="always")
def _translate(o, trans, vel, acc, dt, version):
    """Object o's position and velocity after dt of constant acceleration; its version
    counted up."""
    half_dt2 = 0.5 * dt * dt
    version[o] += 1
    for k in range(3):
        trans[o, k] += vel[o, k] * dt + acc[o, k] * half_dt2
        vel[o, k] += acc[o, k] * dt


@njit(inline="always")
def _turn_into(omega, o, dt, step):
    """Write into ``step`` (3, 3) object o's turn over dt by Rodrigues' formula; False
    (nothing written) when it does not turn."""
    wx, wy, wz = omega[o, 0], omega[o, 1], omega[o, 2]
    speed = math.sqrt(wx * wx + wy * wy + wz * wz)
    theta = speed * dt
    if theta == 0.0:
        return False
    kx, ky, kz = wx / speed, wy / speed, wz / speed
    s = math.sin(theta)
    c1 = 2.0 * math.sin(0.5 * theta) ** 2
    # R = I + s K + (1 - cos) K^2, K the cross-product matrix of the unit axis
    step[0, 0] = 1.0 - c1 * (ky * ky + kz * kz)
    step[1, 1] = 1.0 - c1 * (kx * kx + kz * kz)
    step[2, 2] = 1.0 - c1 * (kx * kx + ky * ky)
    step[0, 1] = -s * kz + c1 * kx * ky
    step[1, 0] = s * kz + c1 * kx * ky
    step[0, 2] = s * ky + c1 * kx * kz
    step[2, 0] = -s * ky + c1 * kx * kz
    step[1, 2] = -s * kx + c1 * ky * kz
    step[2, 1] = s * kx + c1 * ky * kz
    return True


@njit(inline="always")
def _turn_pose(o, rot, step, out):
    """rot[o] = step rot[o], orthonormalised (``out`` (3, 3) scratch)."""
    for r in range(3):
        for c in range(3):
            out[r, c] = (
                step[r, 0] * rot[o, 0, c]
                + step[r, 1] * rot[o, 1, c]
                + step[r, 2] * rot[o, 2, c]
            )
    _orthonormalise(out, rot[o])


@njit(inline="always")
def _orthonormalise(m, dest):
    """dest = 1.5 m - 0.5 m m^T m: one Newton-Schulz step towards the nearest rotation."""
    for r in range(3):
        for c in range(3):
            acc = 0.0
            for k in range(3):
                g = m[0, k] * m[0, c] + m[1, k] * m[1, c] + m[2, k] * m[2, c]
                acc += m[r, k] * g
            dest[r, c] = 1.5 * m[r, c] - 0.5 * acc


# -- world bounds ------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def world_bounds(
    ids, version, bounds_version, rot, trans, mc, mr, mbox, grow, wc, wr, wbox, gbox
):
    """World bounding sphere and boxes of the objects in ``ids`` whose pose changed since
    they were last computed (``bounds_version`` behind ``version``).

    The sphere is the model sphere moved (rotation-invariant, SPEC §4), its radius widened
    by PAD of the magnitudes involved. The box ``wbox`` is Arvo's box of the model box
    (summed in ``_affine.apply``'s order, so it holds the transformed vertices bit for
    bit), widened by PAD, then cut down to the sphere's box: each holds the object, so
    their intersection does. ``gbox`` is that box grown by ``grow`` on every side (the
    pretreatment's reach).
    """
    for o in ids:
        if bounds_version[o] == version[o]:
            continue
        bounds_version[o] = version[o]
        mag = mr[o]
        for r in range(3):
            x = trans[o, r] + rot[o, r, 0] * mc[o, 0] + rot[o, r, 1] * mc[o, 1]
            x = x + rot[o, r, 2] * mc[o, 2]
            wc[o, r] = x
            mag = max(mag, abs(x), abs(trans[o, r]))
        radius = mr[o] + PAD * mag
        wr[o] = radius
        for r in range(3):
            lo = trans[o, r]
            hi = trans[o, r]
            for c in range(3):
                m = rot[o, r, c]
                u = m * mbox[o, 0, c]
                w = m * mbox[o, 1, c]
                lo = lo + min(u, w)
                hi = hi + max(u, w)
            pad = PAD * (abs(lo) + abs(hi) + mag)
            lo = max(lo - pad, wc[o, r] - radius)
            hi = min(hi + pad, wc[o, r] + radius)
            wbox[o, 0, r] = lo
            wbox[o, 1, r] = hi
            reach = grow + PAD * (abs(lo) + abs(hi) + grow)
            gbox[o, 0, r] = lo - reach
            gbox[o, 1, r] = hi + reach


# -- pretreatment ------------------------------------------------------------------------


@njit(inline="always")
def _find(keys, key):
    """Index of ``key`` in sorted ``keys``, or -1."""
    lo = 0
    hi = len(keys)
    while lo < hi:
        mid = (lo + hi) // 2
        if keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    if lo < len(keys) and keys[lo] == key:
        return lo
    return -1


@njit(inline="always")
def time_to_close(gap, speed, accel):
    """Least t >= 0 with speed t + accel t^2 / 2 >= gap (inf if never): the earliest time
    two bodies whose separation shrinks at most that fast can close ``gap``."""
    if accel > 0.0:
        return 2.0 * gap / (speed + math.sqrt(speed * speed + 2.0 * accel * gap))
    if speed > 0.0:
        return gap / speed
    return np.inf


@njit(inline="always")
def _bounds(o, vel, omega, acc, alpha, mc):
    """Speed and acceleration bounds of object o's bounding-sphere centre.

    The centre is a body point at distance |mc| from the rotation centre (the object's
    origin), so |dc/dt| <= |v| + |w| |mc| and |d2c/dt2| <= |a| + alpha |mc|, where alpha
    bounds |dw/dt|."""
    arm = math.sqrt(mc[o, 0] ** 2 + mc[o, 1] ** 2 + mc[o, 2] ** 2)
    v = math.sqrt(vel[o, 0] ** 2 + vel[o, 1] ** 2 + vel[o, 2] ** 2)
    w = math.sqrt(omega[o, 0] ** 2 + omega[o, 1] ** 2 + omega[o, 2] ** 2)
    a = math.sqrt(acc[o, 0] ** 2 + acc[o, 1] ** 2 + acc[o, 2] ** 2)
    return v + w * arm, a + alpha[o] * arm


@njit(inline="always")
def _norm3(dx, dy, dz):
    """|(dx, dy, dz)|: squares rescaled only where they would overflow or underflow."""
    d2 = dx * dx + dy * dy + dz * dz
    if 1e-290 < d2 < 1e290:
        return math.sqrt(d2)
    big = max(abs(dx), abs(dy), abs(dz))
    if big == 0.0 or big == np.inf:
        return big
    dx, dy, dz = dx / big, dy / big, dz / big
    return big * math.sqrt(dx * dx + dy * dy + dz * dz)


# The verdict of a pair comes in stages, each called straight from the step's loop: one
# inline function taking all of their arrays cost 70-90 ns a pair in numba (its array
# arguments are bound anew at each inlined call), the stages about 15 ns.


@njit(inline="always")
def filtered(i, j, key, group, mask, ignore_keys):
    """Whether pair (i, j) (``key``) is filtered out: groups and masks, the ignore list."""
    if (group[i] & mask[j]) == 0 or (group[j] & mask[i]) == 0:
        return True
    return len(ignore_keys) > 0 and _find(ignore_keys, key) >= 0


@njit(inline="always")
def asleep_until(i, j, s, epoch, sched_wake, sched_epoch, now):
    """The wake-up time of pair (i, j), in row ``s`` of the schedule (-1: not in it),
    when it sleeps past ``now`` (neither object changed by hand since it fell asleep),
    else -inf."""
    if s >= 0 and sched_epoch[s, 0] == epoch[i] and sched_epoch[s, 1] == epoch[j]:
        if now < sched_wake[s]:
            return sched_wake[s]
    return -np.inf


@njit(inline="always")
def sphere_gap(i, j, wc, wr):
    """The gap between the world bounding spheres of i and j, lowered by its rounding."""
    dist = _norm3(wc[i, 0] - wc[j, 0], wc[i, 1] - wc[j, 1], wc[i, 2] - wc[j, 2])
    gap = dist - wr[i] - wr[j]
    # the rounding of dist and of the sum: a few ulps of the magnitudes
    return gap - (4e-16 * (dist + wr[i] + wr[j]) + 1e-300)


@njit(inline="always")
def wake_time(gap, i, j, vel, omega, acc, alpha, mc, now):
    """When a pair whose spheres are ``gap`` apart may touch, at the soonest."""
    si, ai = _bounds(i, vel, omega, acc, alpha, mc)
    sj, aj = _bounds(j, vel, omega, acc, alpha, mc)
    return now + time_to_close(gap, si + sj, ai + aj) * (1.0 - WAKE_SAFETY)


# -- frames ------------------------------------------------------------------------------


@njit(inline="always")
def relative_into(rot, trans, i, j, r_out, t_out):
    """(r_out, t_out): the rigid map from object j's model frame into object i's,
    inverse(pose_i) @ pose_j, summed as pipeline.relative."""
    d0 = trans[j, 0] - trans[i, 0]
    d1 = trans[j, 1] - trans[i, 1]
    d2 = trans[j, 2] - trans[i, 2]
    for r in range(3):
        for c in range(3):
            r_out[r, c] = (
                rot[i, 0, r] * rot[j, 0, c]
                + rot[i, 1, r] * rot[j, 1, c]
                + (rot[i, 2, r] * rot[j, 2, c])
            )
        t_out[r] = rot[i, 0, r] * d0 + rot[i, 1, r] * d1 + rot[i, 2, r] * d2


@njit(cache=True, nogil=True)
def relative(rot, trans, i, j):
    """The (4, 4) rigid map from object j's model frame into object i's:
    inverse(pose_i) @ pose_j."""
    out = np.zeros((4, 4))
    rel_r = np.empty((3, 3))
    rel_t = np.empty(3)
    relative_into(rot, trans, i, j, rel_r, rel_t)
    out[:3, :3] = rel_r
    out[:3, 3] = rel_t
    out[3, 3] = 1.0
    return out


# -- exact triangle tests ----------------------------------------------------------------


@njit(inline="always")
def _closest_on_segment(px, py, pz, ax, ay, az, bx, by, bz):
    """p minus its closest point on segment ab (RTCD §5.1.2); a point if a == b."""
    ex, ey, ez = bx - ax, by - ay, bz - az
    fx, fy, fz = px - ax, py - ay, pz - az
    ee = ex * ex + ey * ey + ez * ez
    t = 0.0
    if ee > 0.0:
        t = min(max((fx * ex + fy * ey + fz * ez) / ee, 0.0), 1.0)
    dx, dy, dz = fx - t * ex, fy - t * ey, fz - t * ez
    return dx, dy, dz


@njit
def triangle_sphere(tris, f, cx, cy, cz, r):
    """Does triangle f touch the closed ball (c, r)? The closest point of the triangle
    (RTCD §5.1.5 by regions: the plane when c projects inside, else the nearest edge),
    then its distance within r; widened by REL_EPS. Degenerate triangles are segments
    or points and take the edge branch."""
    ax, ay, az = tris[f, 0, 0], tris[f, 0, 1], tris[f, 0, 2]
    bx, by, bz = tris[f, 1, 0], tris[f, 1, 1], tris[f, 1, 2]
    qx, qy, qz = tris[f, 2, 0], tris[f, 2, 1], tris[f, 2, 2]
    mag = max(abs(ax), abs(ay), abs(az), abs(bx), abs(by), abs(bz), abs(qx), abs(qy))
    mag = max(mag, abs(qz), abs(cx), abs(cy), abs(cz))
    slack = r * (1.0 + REL_EPS) + REL_EPS * mag
    # quick reject: the triangle's box
    if (
        min(ax, bx, qx) - cx > slack
        or cx - max(ax, bx, qx) > slack
        or min(ay, by, qy) - cy > slack
        or cy - max(ay, by, qy) > slack
        or min(az, bz, qz) - cz > slack
        or cz - max(az, bz, qz) > slack
    ):
        return False
    ux, uy, uz = bx - ax, by - ay, bz - az
    vx, vy, vz = qx - ax, qy - ay, qz - az
    nx = uy * vz - uz * vy
    ny = uz * vx - ux * vz
    nz = ux * vy - uy * vx
    nn = nx * nx + ny * ny + nz * nz
    if nn > 0.0:
        # c projects inside iff it lies on the inner side of all three edge planes
        s0 = _edge_side(ax, ay, az, bx, by, bz, cx, cy, cz, nx, ny, nz)
        s1 = _edge_side(bx, by, bz, qx, qy, qz, cx, cy, cz, nx, ny, nz)
        s2 = _edge_side(qx, qy, qz, ax, ay, az, cx, cy, cz, nx, ny, nz)
        if s0 >= 0.0 and s1 >= 0.0 and s2 >= 0.0:
            h = (cx - ax) * nx + (cy - ay) * ny + (cz - az) * nz
            return abs(h) <= slack * math.sqrt(nn)
    d0 = _closest_on_segment(cx, cy, cz, ax, ay, az, bx, by, bz)
    d1 = _closest_on_segment(cx, cy, cz, bx, by, bz, qx, qy, qz)
    d2 = _closest_on_segment(cx, cy, cz, qx, qy, qz, ax, ay, az)
    return (
        within(d0[0], d0[1], d0[2], slack)
        or within(d1[0], d1[1], d1[2], slack)
        or within(d2[0], d2[1], d2[2], slack)
    )


@njit(inline="always")
def _edge_side(ax, ay, az, bx, by, bz, px, py, pz, nx, ny, nz):
    """((b - a) x (p - a)) . n: >= 0 when p is on the inner side of edge ab."""
    ex, ey, ez = bx - ax, by - ay, bz - az
    fx, fy, fz = px - ax, py - ay, pz - az
    return (ey * fz - ez * fy) * nx + (ez * fx - ex * fz) * ny + (ex * fy - ey * fx) * nz


@njit(inline="always")
def _axis_apart(p0, p1, p2, rad, scale):
    """Projections p0..p2 of the triangle against the box's [-rad, rad]: apart beyond
    the slack."""
    slack = REL_EPS * (scale + rad)
    return min(p0, p1, p2) > rad + slack or max(p0, p1, p2) < -rad - slack


@njit
def triangle_box(v0, v1, v2, e0, e1, e2):
    """Does the triangle (in the box's frame) touch the closed box [-e, e]?

    Akenine-Moller's separating-axis test (2001; RTCD §5.2.9): the nine cross products of
    the box axes with the triangle's edges, the three box axes, the triangle's normal.
    Closed, with a relative slack towards "touching". Zero axes (degenerate triangles,
    edges along a box axis) project everything to 0 and cannot separate.
    """
    scale = max(
        abs(v0[0]),
        abs(v0[1]),
        abs(v0[2]),
        abs(v1[0]),
        abs(v1[1]),
        abs(v1[2]),
        abs(v2[0]),
        abs(v2[1]),
        abs(v2[2]),
    )
    # the box's face normals: the triangle's box against the box
    for k in range(3):
        e = e0 if k == 0 else (e1 if k == 1 else e2)
        if _axis_apart(v0[k], v1[k], v2[k], e, scale):
            return False
    f0 = (v1[0] - v0[0], v1[1] - v0[1], v1[2] - v0[2])
    f1 = (v2[0] - v1[0], v2[1] - v1[1], v2[2] - v1[2])
    f2 = (v0[0] - v2[0], v0[1] - v2[1], v0[2] - v2[2])
    for m in range(3):
        f = f0 if m == 0 else (f1 if m == 1 else f2)
        for k in range(3):  # axis k cross f (its zero term adds exactly nothing)
            a0 = 0.0 if k == 0 else (f[2] if k == 1 else -f[1])
            a1 = -f[2] if k == 0 else (0.0 if k == 1 else f[0])
            a2 = f[1] if k == 0 else (-f[0] if k == 1 else 0.0)
            p0 = a0 * v0[0] + a1 * v0[1] + a2 * v0[2]
            p1 = a0 * v1[0] + a1 * v1[1] + a2 * v1[2]
            p2 = a0 * v2[0] + a1 * v2[1] + a2 * v2[2]
            rad = e0 * abs(a0) + e1 * abs(a1) + e2 * abs(a2)
            if _axis_apart(p0, p1, p2, rad, scale * (abs(a0) + abs(a1) + abs(a2))):
                return False
    # the triangle's plane against the box
    nx = f0[1] * f1[2] - f0[2] * f1[1]
    ny = f0[2] * f1[0] - f0[0] * f1[2]
    nz = f0[0] * f1[1] - f0[1] * f1[0]
    d = nx * v0[0] + ny * v0[1] + nz * v0[2]
    rad = e0 * abs(nx) + e1 * abs(ny) + e2 * abs(nz)
    # n's rounding is absolute, about eps |f0| |f1|: a sliver's normal points anywhere,
    # so the slack scales with the edges, not with |n| (a segment never separates here)
    edges = (abs(f0[0]) + abs(f0[1]) + abs(f0[2])) * (
        abs(f1[0]) + abs(f1[1]) + abs(f1[2])
    )
    return abs(d) <= rad + REL_EPS * (edges * scale + rad)


@njit(inline="always")
def _to_frame(tris, f, k, center, rot):
    """Vertex k of triangle f in the box's frame: rot^T (v - center)."""
    dx = tris[f, k, 0] - center[0]
    dy = tris[f, k, 1] - center[1]
    dz = tris[f, k, 2] - center[2]
    return (
        rot[0, 0] * dx + rot[1, 0] * dy + rot[2, 0] * dz,
        rot[0, 1] * dx + rot[1, 1] * dy + rot[2, 1] * dz,
        rot[0, 2] * dx + rot[1, 2] * dy + rot[2, 2] * dz,
    )


@njit(cache=True, nogil=True)
def triangles_sphere(tris, faces, center, radius, first_only, hits):
    """Faces (of ``faces``) whose triangle touches the ball; written to ``hits`` in the
    order given. Returns how many (at most 1 with ``first_only``)."""
    no_box = np.zeros(3)
    return _touching(tris, faces, True, center, radius, no_box, np.eye(3), first_only,
                     hits)  # fmt: skip


@njit(cache=True, nogil=True)
def triangles_box(tris, faces, center, half, rot, first_only, hits):
    """Faces whose triangle touches the oriented box (center, half, rot); as above."""
    return _touching(tris, faces, False, center, 0.0, half, rot, first_only, hits)


@njit(inline="always")
def _touching(tris, faces, ball, center, radius, half, rot, first_only, hits):
    """The faces touching the ball (``ball``) or the oriented box, in order."""
    n = 0
    for q in range(len(faces)):
        f = faces[q]
        if ball:
            touch = triangle_sphere(tris, f, center[0], center[1], center[2], radius)
        else:
            v0 = _to_frame(tris, f, 0, center, rot)
            v1 = _to_frame(tris, f, 1, center, rot)
            v2 = _to_frame(tris, f, 2, center, rot)
            touch = triangle_box(v0, v1, v2, half[0], half[1], half[2])
        if touch:
            hits[n] = f
            n += 1
            if first_only:
                break
    return n
