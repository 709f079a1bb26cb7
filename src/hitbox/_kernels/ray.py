"""Ray and segment casts against bounding volumes: slabs, oriented slabs, balls.

A ray is ``p = origin + t * direction`` with t in [0, t_max]. Every per-pair function here
returns ``(t_enter, t_exit, axis)``: the part of [0, t_max] inside the closed volume, and
the slab through which the ray enters. A miss is ``(inf, inf, -1)``. A ray whose origin
lies in the volume (its boundary included) hits at t_enter = 0 with axis -1: it enters no
face. The casts take a volume set as one NamedTuple of a kind in ``KINDS`` (AABBs, KDOPs,
or fields like hitbox's Spheres and OBBs): :func:`cast_each` pairs ray i with volume i,
:func:`cast_all` every ray with every volume.

Slab parameters are quotients ``(lo - o) / d``, not products with a precomputed ``1 / d``
(one rounding fewer). Grazes resolve towards a hit: a ray that touches the closed volume
exactly (an edge, a corner, a tangent sphere, a segment ending on the surface) may lose
that contact to the roundings of ``lo - o`` and of the quotient, so the exit end is
widened by :data:`WIDEN` (as Ize 2013 widens a BVH walk's boxes) and a sphere's
discriminant by :data:`TANGENT` before the hit is decided; the reported t stays the
computed one, clipped to [0, t_max]. Misses nearer than that (about 1e-15 relative) may
be reported as hits; on small integer input (coordinates up to 2**20) the decisions
match exact arithmetic. A direction
component of +0 or -0 is a ray parallel to that slab: its quotients are +-inf by the sign
of the zero, which is the closed-slab test on the origin, and the one NaN, 0 / 0 for an
origin on the slab's plane, is dropped by ordered comparisons (see :func:`slab_clip`). So
no NaN reaches a result (the 0 * inf bug of Embree PR 589 and pyrr issue 105), and no
"near zero" epsilon changes the answer for a tiny but valid direction.

Kernels use ``error_model="numpy"``: IEEE division (x / 0 = +-inf) is the algorithm here,
and numba's default Python error model would raise ZeroDivisionError instead.
"""

import math
from typing import NamedTuple

import numpy as np
from numba import njit
from numba.extending import overload

INF = np.inf
#: A slab quotient ``(lo - o) / d`` is within 2 gamma(3) (relative) of its exact value
#: with room to spare, so an entry no later than the exit in exact arithmetic is no later
#: than the exit times WIDEN in floats (Ize 2013, "Robust BVH Ray Traversal").
WIDEN = 1.0 + 2.0 * (3.0 * 2.0**-53) / (1.0 - 3.0 * 2.0**-53)
#: A ball's discriminant radius^2 - |l|^2 is within TANGENT * (radius + |m|) *
#: (radius + |m| + ref) of its exact value (|m| the origin's distance from the centre,
#: ref the magnitude of the coordinates m was formed from: l = m - k u carries a few
#: roundings of each), so a tangent ray keeps its hit (|m|_1 stands in for |m|).
TANGENT = 16.0 * 2.0**-53
#: Slabs along turned or diagonal axes (OBBs, k-DOPs) take the projections o' = a . o
#: and d' = a . d, each off by a few roundings of the coordinates' size: the hit is
#: decided on slabs grown by PROJECTED_SLACK of that size (:func:`slab_clip_loose`).
PROJECTED_SLACK = 16.0 * 2.0**-53


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

    A hit needs t_enter <= t_exit * WIDEN (a graze that rounding put a hair apart still
    hits; the signs of the quotients are exact, so an exit before the origin stays a
    miss) and a finite t_enter (an entry parameter beyond the float range, from a
    direction like 1e-320, is a miss). Such a graze reports t_enter = t_exit. ``+ 0.0``
    turns -0.0 into +0.0.
    """
    if near > 0.0:
        t_enter = near
    else:
        t_enter = 0.0
        axis = -1
    if t_enter <= far * WIDEN and t_enter < INF:
        return min(t_enter, far) + 0.0, far + 0.0, axis
    return INF, INF, -1


@njit(inline="always", error_model="numpy")
def slab_clip_loose(lo, hi, d, slack, near, far, axis, k, loose_near, loose_far):
    """:func:`slab_clip` of [near, far], and of [loose_near, loose_far] by the slab
    grown by ``slack`` on both sides: where lo, hi and d are projections that carry
    roundings of the coordinates' size (a turned or diagonal frame), the loose interval
    decides the hit (a ray that grazes the exact slab reaches the grown one; a nearly
    parallel ray's t may be off by slack / |d|) and the tight one gives t."""
    near, far, axis = slab_clip(lo, hi, d, near, far, axis, k)
    loose_near, loose_far, _ = slab_clip(
        lo - slack, hi + slack, d, loose_near, loose_far, axis, k
    )
    return near, far, axis, loose_near, loose_far


@njit(inline="always", error_model="numpy")
def slab_result_loose(near, far, axis, loose_near, loose_far):
    """:func:`slab_result` with the hit decided by the loose interval of
    :func:`slab_clip_loose` and t from the tight one, clipped into [0, far]."""
    if not (max(loose_near, 0.0) <= loose_far * WIDEN and loose_near < INF):
        return INF, INF, -1
    if near > 0.0:
        t_enter = near
    else:
        t_enter = 0.0
        axis = -1
    t_enter = min(t_enter, max(far, 0.0))
    return t_enter + 0.0, max(far, t_enter) + 0.0, axis


# -- AABBs: the slab method (seed 001; Kay & Kajiya 1986; RTCD 5.3.3) ------------------


class AABBs(NamedTuple):
    """Boxes ``(N, 2, D)`` for the casts, lo at ``[:, 0]`` and hi at ``[:, 1]``."""

    boxes: np.ndarray


@njit(inline="always", error_model="numpy")
def _aabb(vol, b, origin, direction, r, t_max):
    boxes = vol.boxes
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
def _aabb_normal(vol, b, origin, direction, r, t, axis, normal, i):
    for k in range(normal.shape[1]):
        normal[i, k] = 0.0
    if axis >= 0:
        normal[i, axis] = 1.0 if direction[r, axis] < 0.0 else -1.0


@njit(cache=True, nogil=True, error_model="numpy")
def cast_aabb_3d(boxes, origin, direction, t_max, hit, t_enter, t_exit, axis, normal):
    """:func:`cast_each` on ``AABBs(boxes)`` with D = 3 spelled out: a fixed trip count
    lets LLVM unroll the slab loop and keep the whole record in registers (the 10^7-ray
    benchmark path)."""
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


# -- k-DOPs: slabs along fixed, unnormalised directions (Klosowski et al. 1998) ----------


class KDOPs(NamedTuple):
    """k-DOPs ``(N, 2, K/2)`` for the casts, along the rows of ``axes (K/2, 3)``."""

    kdops: np.ndarray
    axes: np.ndarray


@njit(inline="always", error_model="numpy")
def _kdop(vol, b, origin, direction, r, t_max):
    kdops, axes = vol
    near = -INF
    far = t_max
    axis = -1
    # the projections a . o and a . d round by about the coordinates' size, and a graze
    # lies within the k-DOP's box: PROJECTED_SLACK of that size covers both (infinite
    # bounds left out: an unbounded side has nothing to graze)
    size = abs(origin[r, 0]) + abs(origin[r, 1]) + abs(origin[r, 2])
    reach = 0.0
    for k in range(kdops.shape[2]):
        for side in range(2):
            x = abs(kdops[b, side, k])
            if x < INF:
                reach = max(reach, x)
    slack = PROJECTED_SLACK * (size + 3.0 * reach)
    loose_near = -INF
    loose_far = t_max
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
        # a unit row (1, 0, 0) projects exactly: no slack, the AABB's answer bit for bit
        ones = abs(axes[k, 0]) + abs(axes[k, 1]) + abs(axes[k, 2])
        exact = (
            ones == 1.0 and max(abs(axes[k, 0]), abs(axes[k, 1]), abs(axes[k, 2])) == 1.0
        )
        near, far, axis, loose_near, loose_far = slab_clip_loose(
            kdops[b, 0, k] - o, kdops[b, 1, k] - o, d, 0.0 if exact else slack, near,
            far, axis, k, loose_near, loose_far,
        )  # fmt: skip
    return slab_result_loose(near, far, axis, loose_near, loose_far)


@njit(inline="always", error_model="numpy")
def _face_normal(axis, a0, a1, a2, length, direction, r, normal, i):
    """normal[i] = -sign(a . d) a / length: the outward normal of the entry face along
    a = (a0, a1, a2), unit for length = |a|; zero when the ray enters no face (axis < 0)."""
    if axis < 0:
        for k in range(3):
            normal[i, k] = 0.0
        return
    d = a0 * direction[r, 0] + a1 * direction[r, 1] + a2 * direction[r, 2]
    s = (1.0 if d < 0.0 else -1.0) / length
    normal[i, 0] = s * a0 + 0.0  # + 0.0: no -0.0 components
    normal[i, 1] = s * a1 + 0.0
    normal[i, 2] = s * a2 + 0.0


@njit(inline="always", error_model="numpy")
def _kdop_normal(vol, b, origin, direction, r, t, axis, normal, i):
    """Unit outward normal of the entry face: -sign(a . d) a / |a| for a = axes[axis]."""
    axes = vol.axes  # axis = -1 reads the last row, unused
    a0 = axes[axis, 0]
    a1 = axes[axis, 1]
    a2 = axes[axis, 2]
    length = np.sqrt(a0 * a0 + a1 * a1 + a2 * a2)
    _face_normal(axis, a0, a1, a2, length, direction, r, normal, i)


# -- OBBs: the ray in the box's frame, then slabs [-half, half] (RTCD 5.3.3) ------------


@njit(inline="always", error_model="numpy")
def _obb(center, half, rot, b, origin, direction, r, t_max):
    m0 = origin[r, 0] - center[b, 0]
    m1 = origin[r, 1] - center[b, 1]
    m2 = origin[r, 2] - center[b, 2]
    near = -INF
    far = t_max
    axis = -1
    # the turned offset and direction round by about |m| + the box's size (a graze lies
    # within the box, so t |d| is bounded by that too; infinite extents left out)
    size = abs(m0) + abs(m1) + abs(m2)
    for k in range(3):
        if abs(half[b, k]) < INF:
            size += abs(half[b, k])
    slack = PROJECTED_SLACK * size
    loose_near = -INF
    loose_far = t_max
    for k in range(3):  # column k of rot is axis k: local coordinate = rot[:, k] . world
        o = rot[b, 0, k] * m0 + rot[b, 1, k] * m1 + rot[b, 2, k] * m2
        d = (
            rot[b, 0, k] * direction[r, 0]
            + rot[b, 1, k] * direction[r, 1]
            + rot[b, 2, k] * direction[r, 2]
        )
        h = half[b, k]
        near, far, axis, loose_near, loose_far = slab_clip_loose(
            -h - o, h - o, d, slack, near, far, axis, k, loose_near, loose_far
        )
    return slab_result_loose(near, far, axis, loose_near, loose_far)


@njit(inline="always", error_model="numpy")
def _obb_vol(vol, b, origin, direction, r, t_max):
    return _obb(vol.center, vol.half, vol.rot, b, origin, direction, r, t_max)


@njit(inline="always", error_model="numpy")
def _obb_normal(vol, b, origin, direction, r, t, axis, normal, i):
    """World-frame outward normal of the entry face: -sign(d_local) rot[:, axis]."""
    rot = vol.rot  # axis = -1 reads the last column, unused
    a0 = rot[b, 0, axis]
    a1 = rot[b, 1, axis]
    a2 = rot[b, 2, axis]
    _face_normal(axis, a0, a1, a2, 1.0, direction, r, normal, i)


# -- Spheres: the stable quadratic (Haines et al., Ray Tracing Gems ch. 7) ---------------


@njit(error_model="numpy")
def ball(m0, m1, m2, d0, d1, d2, radius, t_max, ref):
    """(t_enter, t_exit) of p = m + t d, t in [0, t_max], in the ball |p| <= radius.

    ``ref``: the largest magnitude of the coordinates m was formed from (m = o - c
    carries their rounding, which the tangent test allows for); 0 for an exact m.

    Components past the dimension are passed as 0. The direction is first scaled by its
    largest component, so |u| is in [1, sqrt 3] and nothing overflows for huge or tiny
    directions; the t found for u is divided by that scale at the end. The discriminant is
    radius^2 - |l|^2 with l the closest-approach vector (no b^2 - ac cancellation), and
    the two roots are c/q and q/a with q = -(b + sign(b) sqrt(disc)) (no -b + sqrt(...)
    cancellation). An origin on the sphere within that rounding touches it at t = 0,
    whichever way the ray goes. A miss is (inf, inf); an exit before the entry never
    happens.
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
    mm = m0 * m0 + m1 * m1 + m2 * m2
    reach = radius + abs(m0) + abs(m1) + abs(m2)  # >= radius + |m|, no square root
    allow = TANGENT * reach * (reach + ref)  # the rounding of disc, and of c below
    if disc < 0.0:
        if disc < -allow or mm == INF:  # inf: overflowed
            return INF, INF
        disc = 0.0  # tangent within rounding: touching counts
    c = mm - radius * radius
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
    if c <= allow and mm < INF:
        # the origin on the sphere within rounding: it touches at t = 0, however short
        # the ray and whichever way it goes (a root / s, s tiny, can land past [0, t_max])
        t_near = min(t_near, 0.0)
        t_far = max(t_far, 0.0)
    t_near = t_near / s
    t_far = t_far / s
    t_enter = t_near if t_near > 0.0 else 0.0
    t_exit = t_far if t_far < t_max else t_max
    if t_enter <= t_exit * WIDEN and t_enter < INF:
        return min(t_enter, t_exit) + 0.0, t_exit + 0.0
    return INF, INF


@njit(inline="always", error_model="numpy")
def _sphere(vol, b, origin, direction, r, t_max):
    """(t_enter, t_exit, -1): a sphere has no faces."""
    center, radius = vol
    dim = center.shape[1]
    m0 = origin[r, 0] - center[b, 0]
    d0 = direction[r, 0]
    m1 = origin[r, 1] - center[b, 1] if dim > 1 else 0.0
    d1 = direction[r, 1] if dim > 1 else 0.0
    m2 = origin[r, 2] - center[b, 2] if dim > 2 else 0.0
    d2 = direction[r, 2] if dim > 2 else 0.0
    # the coordinates m was formed from (|c| <= |o| + |m|): no loop, no array reads
    ref = abs(origin[r, 0]) + abs(m0) + abs(m1) + abs(m2)
    if dim > 1:
        ref += abs(origin[r, 1])
    if dim > 2:
        ref += abs(origin[r, 2])
    t0, t1 = ball(m0, m1, m2, d0, d1, d2, radius[b], t_max, ref)
    return t0, t1, -1


@njit(inline="always", error_model="numpy")
def _sphere_normal(vol, b, origin, direction, r, t, axis, normal, i):
    """Unit outward normal at the entry point; zero when the ray starts inside (t = 0).

    A point-like sphere (radius 0) has no normal: it gets -direction / |direction|.
    """
    center = vol.center
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


# -- One cast loop for every kind -----------------------------------------------------
# A kind is a NamedTuple, known by its fields (hitbox._types' Spheres and OBBs fit, as in
# bv.py: kernels import only kernels), with a per-pair test and an entry normal, both
# called as f(vol, b, origin, direction, r, ...). The overloads pick the kind's functions
# while numba types ``vol``, so the loops below are written once, specialised per kind
# with the test inlined, and stay in the disk cache.
KINDS = {
    ("boxes",): (_aabb, _aabb_normal),
    ("kdops", "axes"): (_kdop, _kdop_normal),
    ("center", "half", "rot"): (_obb_vol, _obb_normal),
    ("center", "radius"): (_sphere, _sphere_normal),
}


def _kind(vol_type):
    return KINDS.get(tuple(getattr(vol_type, "fields", ())))


def enter(vol, b, origin, direction, r, t_max):
    """(t_enter, t_exit, axis) of ray r against volume b of ``vol``, any kind."""
    return KINDS[vol._fields][0](vol, b, origin, direction, r, t_max)


def entry_normal(vol, b, origin, direction, r, t, axis, normal, i):
    """Write into ``normal[i]`` the unit outward normal where ray r enters volume b at t
    through ``axis``; zero when it starts inside."""
    KINDS[vol._fields][1](vol, b, origin, direction, r, t, axis, normal, i)


@overload(enter, inline="always")
def _enter_typed(vol, b, origin, direction, r, t_max):
    kind = _kind(vol)
    return None if kind is None else kind[0].py_func


@overload(entry_normal, inline="always")
def _entry_normal_typed(vol, b, origin, direction, r, t, axis, normal, i):
    kind = _kind(vol)
    return None if kind is None else kind[1].py_func


@njit(cache=True, nogil=True, error_model="numpy")
def cast_each(vol, origin, direction, t_max, hit, t_enter, t_exit, axis, normal):
    """Elementwise ray i against volume i of ``vol`` (a KINDS tuple); a set of length 1
    is used for every i."""
    sb = 1 if len(vol[0]) > 1 else 0
    sr = 1 if len(origin) > 1 else 0
    for i in range(len(hit)):
        b = i * sb
        r = i * sr
        t0, t1, ax = enter(vol, b, origin, direction, r, t_max[r])
        hit[i] = t0 < INF
        t_enter[i] = t0
        t_exit[i] = t1
        axis[i] = ax
        entry_normal(vol, b, origin, direction, r, t0, ax, normal, i)


# Passes 1 and 2 of cast_all, a function each: numba's inlining of one overload at two
# call sites of a function trips its IR checks (NumbaIRAssumptionWarning)
@njit(nogil=True, error_model="numpy")
def _count_hits(vol, origin, direction, t_max):
    """How many (volume, ray) pairs hit."""
    n = 0
    for i in range(len(vol[0])):
        for j in range(len(origin)):
            if enter(vol, i, origin, direction, j, t_max[j])[0] < INF:
                n += 1
    return n


@njit(nogil=True, error_model="numpy")
def _fill_hits(vol, origin, direction, t_max, pairs, t_enter, t_exit, axis, normal):
    """Every (volume i, ray j) hit in (i, j) order, into arrays of the counted size."""
    n = 0
    for i in range(len(vol[0])):
        for j in range(len(origin)):
            t0, t1, ax = enter(vol, i, origin, direction, j, t_max[j])
            if t0 < INF:
                pairs[0, n] = i
                pairs[1, n] = j
                t_enter[n] = t0
                t_exit[n] = t1
                axis[n] = ax
                entry_normal(vol, i, origin, direction, j, t0, ax, normal, n)
                n += 1


@njit(cache=True, nogil=True, error_model="numpy")
def cast_all(vol, origin, direction, t_max):
    """Every (volume i, ray j) hit: count, then fill. Returns pairs (2, n) sorted by (i, j),
    t_enter, t_exit, axis (n,) and normal (n, D)."""
    n = _count_hits(vol, origin, direction, t_max)
    out = (
        np.empty((2, n), np.intp),
        np.empty(n),
        np.empty(n),
        np.empty(n, np.intp),
        np.empty((n, origin.shape[1])),
    )
    _fill_hits(vol, origin, direction, t_max, *out)
    return out
