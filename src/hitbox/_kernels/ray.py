"""Ray and segment casts against bounding volumes: slabs, oriented slabs, balls.

A ray is ``p = origin + t * direction`` with t in [0, t_max]. Every per-pair function here
returns ``(t_enter, t_exit, axis)``: the part of [0, t_max] inside the closed volume, and
the slab through which the ray enters. A miss is ``(inf, inf, -1)``. A ray whose origin
lies in the volume (its boundary included) hits at t_enter = 0 with axis -1: it enters no
face.

Slab parameters are quotients ``(lo - o) / d``, one rounding each, not products with a
precomputed ``1 / d`` (two roundings), so a t is the correctly rounded value of its exact
quotient and a hit decision on integer input matches exact arithmetic. A direction
component of +0 or -0 is a ray parallel to that slab: its quotients are +-inf by the sign
of the zero, which is the closed-slab test on the origin, and the one NaN, 0 / 0 for an
origin on the slab's plane, is dropped by ordered comparisons (see :func:`slab_clip`). So
no NaN reaches a result (the 0 * inf bug of Embree PR 589 and pyrr issue 105), and no
"near zero" epsilon changes the answer for a tiny but valid direction.

Kernels use ``error_model="numpy"``: IEEE division (x / 0 = +-inf) is the algorithm here,
and numba's default Python error model would raise ZeroDivisionError instead.
"""

import math

import numpy as np
from numba import njit

INF = np.inf


@njit(inline="always", error_model="numpy")
def slab_clip(lo, hi, d, near, far, axis, k):
    """Clip the running interval [near, far] by one slab; ``lo``/``hi`` relative to the
    origin's projection, ``d`` the direction's projection on the slab normal.

    Branch-free (Williams et al., JGT 2005; T. Barnes, "Fast, branchless ray/bounding box
    intersections"), so random rays cost no mispredictions: both quotients are always
    formed and chosen by the sign bit of ``d``, not by min/max, which keeps the empty slab
    (lo = +inf, hi = -inf) empty. For d = +0 or -0 the quotients are the limits, +-inf, so
    a parallel ray outside the closed slab gets an empty interval and one inside gets
    (-inf, inf). The only NaN is 0 / 0, for an origin exactly on a slab plane of a
    parallel ray; the ordered comparisons below are false for NaN, so it leaves
    [near, far] unchanged, which is the right answer (the origin lies in the closed slab
    for every t). NaN never reaches near or far.
    """
    a = lo / d
    b = hi / d
    positive = math.copysign(1.0, d) > 0.0
    t_near = a if positive else b
    t_far = b if positive else a
    if t_near > near:  # strict: a tie (edge, corner) keeps the lower slab index
        near = t_near
        axis = k
    if t_far < far:
        far = t_far
    return near, far, axis


@njit(inline="always", error_model="numpy")
def slab_result(near, far, axis):
    """(t_enter, t_exit, axis) from the clipped interval; ``far`` already holds t_max.

    A hit needs t_enter <= t_exit and a finite t_enter (an entry parameter beyond the
    float range, from a direction like 1e-320, is a miss). ``+ 0.0`` turns -0.0 into +0.0.
    """
    if near > 0.0:
        t_enter = near
    else:
        t_enter = 0.0
        axis = -1
    if t_enter <= far and t_enter < INF:
        return t_enter, far + 0.0, axis
    return INF, INF, -1


# -- AABBs: the slab method (seed 001; Kay & Kajiya 1986; RTCD 5.3.3) ------------------


@njit(inline="always", error_model="numpy")
def _aabb(boxes, b, origin, direction, r, t_max):
    near = -INF
    far = t_max
    axis = -1
    for k in range(boxes.shape[2]):
        o = origin[r, k]
        near, far, axis = slab_clip(
            boxes[b, 0, k] - o, boxes[b, 1, k] - o, direction[r, k], near, far, axis, k
        )
    return slab_result(near, far, axis)


@njit(inline="always", error_model="numpy")
def _aabb_normal(direction, r, axis, normal, i):
    for k in range(normal.shape[1]):
        normal[i, k] = 0.0
    if axis >= 0:
        normal[i, axis] = 1.0 if direction[r, axis] < 0.0 else -1.0


@njit(cache=True, nogil=True, error_model="numpy")
def cast_aabb(boxes, origin, direction, t_max, hit, t_enter, t_exit, axis, normal):
    """Elementwise ray i against box i; a set of length 1 is used for every i."""
    sb = 1 if len(boxes) > 1 else 0
    sr = 1 if len(origin) > 1 else 0
    for i in range(len(hit)):
        r = i * sr
        t0, t1, ax = _aabb(boxes, i * sb, origin, direction, r, t_max[r])
        hit[i] = t0 < INF
        t_enter[i] = t0
        t_exit[i] = t1
        axis[i] = ax
        _aabb_normal(direction, r, ax, normal, i)


@njit(cache=True, nogil=True, error_model="numpy")
def cast_aabb_3d(boxes, origin, direction, t_max, hit, t_enter, t_exit, axis, normal):
    """:func:`cast_aabb` with D = 3 spelled out: a fixed trip count lets LLVM unroll the
    slab loop and keep the whole record in registers (the 10^7-ray benchmark path)."""
    sb = 1 if len(boxes) > 1 else 0
    sr = 1 if len(origin) > 1 else 0
    for i in range(len(hit)):
        b = i * sb
        r = i * sr
        o0 = origin[r, 0]
        o1 = origin[r, 1]
        o2 = origin[r, 2]
        d0 = direction[r, 0]
        d1 = direction[r, 1]
        d2 = direction[r, 2]
        near, far, ax = slab_clip(
            boxes[b, 0, 0] - o0, boxes[b, 1, 0] - o0, d0, -INF, t_max[r], -1, 0
        )
        near, far, ax = slab_clip(
            boxes[b, 0, 1] - o1, boxes[b, 1, 1] - o1, d1, near, far, ax, 1
        )
        near, far, ax = slab_clip(
            boxes[b, 0, 2] - o2, boxes[b, 1, 2] - o2, d2, near, far, ax, 2
        )
        t0, t1, ax = slab_result(near, far, ax)
        hit[i] = t0 < INF
        t_enter[i] = t0
        t_exit[i] = t1
        axis[i] = ax
        normal[i, 0] = (1.0 if d0 < 0.0 else -1.0) if ax == 0 else 0.0
        normal[i, 1] = (1.0 if d1 < 0.0 else -1.0) if ax == 1 else 0.0
        normal[i, 2] = (1.0 if d2 < 0.0 else -1.0) if ax == 2 else 0.0


@njit(cache=True, nogil=True, error_model="numpy")
def cast_aabb_all(boxes, origin, direction, t_max):
    """Every (box i, ray j) hit: count, then fill. Returns pairs (2, n) sorted by (i, j),
    t_enter, t_exit, axis (n,) and normal (n, D)."""
    n = 0
    for i in range(len(boxes)):
        for j in range(len(origin)):
            if _aabb(boxes, i, origin, direction, j, t_max[j])[0] < INF:
                n += 1
    pairs = np.empty((2, n), np.intp)
    t_enter = np.empty(n)
    t_exit = np.empty(n)
    axis = np.empty(n, np.intp)
    normal = np.empty((n, origin.shape[1]))
    n = 0
    for i in range(len(boxes)):
        for j in range(len(origin)):
            t0, t1, ax = _aabb(boxes, i, origin, direction, j, t_max[j])
            if t0 < INF:
                pairs[0, n] = i
                pairs[1, n] = j
                t_enter[n] = t0
                t_exit[n] = t1
                axis[n] = ax
                _aabb_normal(direction, j, ax, normal, n)
                n += 1
    return pairs, t_enter, t_exit, axis, normal


# -- k-DOPs: slabs along fixed, unnormalised directions (Klosowski et al. 1998) ----------


@njit(inline="always", error_model="numpy")
def _kdop(kdops, b, axes, origin, direction, r, t_max):
    near = -INF
    far = t_max
    axis = -1
    for k in range(kdops.shape[2]):
        o = (
            axes[k, 0] * origin[r, 0]
            + axes[k, 1] * origin[r, 1]
            + axes[k, 2] * origin[r, 2]
        )
        d = (
            axes[k, 0] * direction[r, 0]
            + axes[k, 1] * direction[r, 1]
            + axes[k, 2] * direction[r, 2]
        )
        near, far, axis = slab_clip(
            kdops[b, 0, k] - o, kdops[b, 1, k] - o, d, near, far, axis, k
        )
    return slab_result(near, far, axis)


@njit(inline="always", error_model="numpy")
def _kdop_normal(axes, direction, r, axis, normal, i):
    """Unit outward normal of the entry face: -sign(a . d) a / |a|."""
    if axis < 0:
        for k in range(3):
            normal[i, k] = 0.0
        return
    a0 = axes[axis, 0]
    a1 = axes[axis, 1]
    a2 = axes[axis, 2]
    d = a0 * direction[r, 0] + a1 * direction[r, 1] + a2 * direction[r, 2]
    s = (1.0 if d < 0.0 else -1.0) / np.sqrt(a0 * a0 + a1 * a1 + a2 * a2)
    normal[i, 0] = s * a0 + 0.0  # + 0.0: no -0.0 components
    normal[i, 1] = s * a1 + 0.0
    normal[i, 2] = s * a2 + 0.0


@njit(cache=True, nogil=True, error_model="numpy")
def cast_kdop(kdops, axes, origin, direction, t_max, hit, t_enter, t_exit, axis, normal):
    """Elementwise ray i against k-DOP i along ``axes (K/2, 3)``; length 1 broadcasts."""
    sb = 1 if len(kdops) > 1 else 0
    sr = 1 if len(origin) > 1 else 0
    for i in range(len(hit)):
        r = i * sr
        t0, t1, ax = _kdop(kdops, i * sb, axes, origin, direction, r, t_max[r])
        hit[i] = t0 < INF
        t_enter[i] = t0
        t_exit[i] = t1
        axis[i] = ax
        _kdop_normal(axes, direction, r, ax, normal, i)


@njit(cache=True, nogil=True, error_model="numpy")
def cast_kdop_all(kdops, axes, origin, direction, t_max):
    """Every (k-DOP i, ray j) hit, count then fill (see :func:`cast_aabb_all`)."""
    n = 0
    for i in range(len(kdops)):
        for j in range(len(origin)):
            if _kdop(kdops, i, axes, origin, direction, j, t_max[j])[0] < INF:
                n += 1
    pairs = np.empty((2, n), np.intp)
    t_enter = np.empty(n)
    t_exit = np.empty(n)
    axis = np.empty(n, np.intp)
    normal = np.empty((n, 3))
    n = 0
    for i in range(len(kdops)):
        for j in range(len(origin)):
            t0, t1, ax = _kdop(kdops, i, axes, origin, direction, j, t_max[j])
            if t0 < INF:
                pairs[0, n] = i
                pairs[1, n] = j
                t_enter[n] = t0
                t_exit[n] = t1
                axis[n] = ax
                _kdop_normal(axes, direction, j, ax, normal, n)
                n += 1
    return pairs, t_enter, t_exit, axis, normal


# -- OBBs: the ray in the box's frame, then slabs [-half, half] (RTCD 5.3.3) ------------


@njit(inline="always", error_model="numpy")
def _obb(center, half, rot, b, origin, direction, r, t_max):
    m0 = origin[r, 0] - center[b, 0]
    m1 = origin[r, 1] - center[b, 1]
    m2 = origin[r, 2] - center[b, 2]
    near = -INF
    far = t_max
    axis = -1
    for k in range(3):  # column k of rot is axis k: local coordinate = rot[:, k] . world
        o = rot[b, 0, k] * m0 + rot[b, 1, k] * m1 + rot[b, 2, k] * m2
        d = (
            rot[b, 0, k] * direction[r, 0]
            + rot[b, 1, k] * direction[r, 1]
            + rot[b, 2, k] * direction[r, 2]
        )
        h = half[b, k]
        near, far, axis = slab_clip(-h - o, h - o, d, near, far, axis, k)
    return slab_result(near, far, axis)


@njit(inline="always", error_model="numpy")
def _obb_normal(rot, b, direction, r, axis, normal, i):
    """World-frame outward normal of the entry face: -sign(d_local) rot[:, axis]."""
    if axis < 0:
        for k in range(3):
            normal[i, k] = 0.0
        return
    d = (
        rot[b, 0, axis] * direction[r, 0]
        + rot[b, 1, axis] * direction[r, 1]
        + rot[b, 2, axis] * direction[r, 2]
    )
    s = 1.0 if d < 0.0 else -1.0
    for k in range(3):
        normal[i, k] = s * rot[b, k, axis] + 0.0  # + 0.0: no -0.0 components


@njit(cache=True, nogil=True, error_model="numpy")
def cast_obb(
    center, half, rot, origin, direction, t_max, hit, t_enter, t_exit, axis, normal
):
    """Elementwise ray i against OBB i; length-1 sets broadcast."""
    sb = 1 if len(center) > 1 else 0
    sr = 1 if len(origin) > 1 else 0
    for i in range(len(hit)):
        b = i * sb
        r = i * sr
        t0, t1, ax = _obb(center, half, rot, b, origin, direction, r, t_max[r])
        hit[i] = t0 < INF
        t_enter[i] = t0
        t_exit[i] = t1
        axis[i] = ax
        _obb_normal(rot, b, direction, r, ax, normal, i)


@njit(cache=True, nogil=True, error_model="numpy")
def cast_obb_all(center, half, rot, origin, direction, t_max):
    """Every (OBB i, ray j) hit, count then fill (see :func:`cast_aabb_all`)."""
    n = 0
    for i in range(len(center)):
        for j in range(len(origin)):
            if _obb(center, half, rot, i, origin, direction, j, t_max[j])[0] < INF:
                n += 1
    pairs = np.empty((2, n), np.intp)
    t_enter = np.empty(n)
    t_exit = np.empty(n)
    axis = np.empty(n, np.intp)
    normal = np.empty((n, 3))
    n = 0
    for i in range(len(center)):
        for j in range(len(origin)):
            t0, t1, ax = _obb(center, half, rot, i, origin, direction, j, t_max[j])
            if t0 < INF:
                pairs[0, n] = i
                pairs[1, n] = j
                t_enter[n] = t0
                t_exit[n] = t1
                axis[n] = ax
                _obb_normal(rot, i, direction, j, ax, normal, n)
                n += 1
    return pairs, t_enter, t_exit, axis, normal


# -- Spheres: the stable quadratic (Haines et al., Ray Tracing Gems ch. 7) ---------------


@njit(error_model="numpy")
def ball(m0, m1, m2, d0, d1, d2, radius, t_max):
    """(t_enter, t_exit) of p = m + t d, t in [0, t_max], in the ball |p| <= radius.

    Components past the dimension are passed as 0. The direction is first scaled by its
    largest component, so |u| is in [1, sqrt 3] and nothing overflows for huge or tiny
    directions; the t found for u is divided by that scale at the end. The discriminant is
    radius^2 - |l|^2 with l the closest-approach vector (no b^2 - ac cancellation), and
    the two roots are c/q and q/a with q = -(b + sign(b) sqrt(disc)) (no -b + sqrt(...)
    cancellation). A miss is (inf, inf); an exit before the entry never happens.
    """
    if radius < 0.0:  # the empty sphere
        return INF, INF
    s = max(abs(d0), abs(d1), abs(d2))
    u0 = d0 / s
    u1 = d1 / s
    u2 = d2 / s
    a = u0 * u0 + u1 * u1 + u2 * u2
    b = m0 * u0 + m1 * u1 + m2 * u2
    k = b / a
    l0 = m0 - k * u0
    l1 = m1 - k * u1
    l2 = m2 - k * u2
    disc = radius * radius - (l0 * l0 + l1 * l1 + l2 * l2)
    if disc < 0.0:
        return INF, INF
    c = m0 * m0 + m1 * m1 + m2 * m2 - radius * radius
    root = np.sqrt(a * disc)
    q = -(b + root) if b >= 0.0 else -(b - root)
    if q == 0.0:  # b = 0 and disc = 0: tangent at t = 0
        t_near = 0.0
        t_far = 0.0
    else:
        t_near = c / q
        t_far = q / a
        if t_near > t_far:
            t_near, t_far = t_far, t_near
    t_near = t_near / s
    t_far = t_far / s
    t_enter = t_near if t_near > 0.0 else 0.0
    t_exit = t_far if t_far < t_max else t_max
    if t_enter <= t_exit and t_enter < INF:
        return t_enter, t_exit + 0.0
    return INF, INF


@njit(inline="always", error_model="numpy")
def _sphere(center, radius, b, origin, direction, r, t_max):
    dim = center.shape[1]
    m0 = origin[r, 0] - center[b, 0]
    d0 = direction[r, 0]
    m1 = origin[r, 1] - center[b, 1] if dim > 1 else 0.0
    d1 = direction[r, 1] if dim > 1 else 0.0
    m2 = origin[r, 2] - center[b, 2] if dim > 2 else 0.0
    d2 = direction[r, 2] if dim > 2 else 0.0
    return ball(m0, m1, m2, d0, d1, d2, radius[b], t_max)


@njit(inline="always", error_model="numpy")
def _sphere_normal(center, b, origin, direction, r, t, normal, i):
    """Unit outward normal at the entry point; zero when the ray starts inside (t = 0).

    A point-like sphere (radius 0) has no normal: it gets -direction / |direction|.
    """
    dim = normal.shape[1]
    length = 0.0
    for k in range(dim):
        p = origin[r, k] + t * direction[r, k] - center[b, k]
        normal[i, k] = p
        length += p * p
    if t == 0.0 or t == INF:
        for k in range(dim):
            normal[i, k] = 0.0
        return
    if length > 0.0:
        length = np.sqrt(length)
        for k in range(dim):
            normal[i, k] /= length
    else:
        for k in range(dim):
            length += direction[r, k] * direction[r, k]
        length = np.sqrt(length)
        for k in range(dim):
            normal[i, k] = -direction[r, k] / length


@njit(cache=True, nogil=True, error_model="numpy")
def cast_sphere(
    center, radius, origin, direction, t_max, hit, t_enter, t_exit, axis, normal
):
    """Elementwise ray i against sphere i; length-1 sets broadcast. axis is always -1."""
    sb = 1 if len(center) > 1 else 0
    sr = 1 if len(origin) > 1 else 0
    for i in range(len(hit)):
        b = i * sb
        r = i * sr
        t0, t1 = _sphere(center, radius, b, origin, direction, r, t_max[r])
        hit[i] = t0 < INF
        t_enter[i] = t0
        t_exit[i] = t1
        axis[i] = -1
        _sphere_normal(center, b, origin, direction, r, t0, normal, i)


@njit(cache=True, nogil=True, error_model="numpy")
def cast_sphere_all(center, radius, origin, direction, t_max):
    """Every (sphere i, ray j) hit, count then fill (see :func:`cast_aabb_all`)."""
    n = 0
    for i in range(len(center)):
        for j in range(len(origin)):
            if _sphere(center, radius, i, origin, direction, j, t_max[j])[0] < INF:
                n += 1
    pairs = np.empty((2, n), np.intp)
    t_enter = np.empty(n)
    t_exit = np.empty(n)
    axis = np.full(n, -1, np.intp)
    normal = np.empty((n, origin.shape[1]))
    n = 0
    for i in range(len(center)):
        for j in range(len(origin)):
            t0, t1 = _sphere(center, radius, i, origin, direction, j, t_max[j])
            if t0 < INF:
                pairs[0, n] = i
                pairs[1, n] = j
                t_enter[n] = t0
                t_exit[n] = t1
                _sphere_normal(center, i, origin, direction, j, t0, normal, n)
                n += 1
    return pairs, t_enter, t_exit, axis, normal
