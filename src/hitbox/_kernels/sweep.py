"""Sweeps: the first time t in [0, 1] at which a moving volume touches another.

The moving volume travels by the displacement ``v`` over t in [0, 1]; two moving volumes
come as one, with their relative displacement. A miss is t = inf. Touching counts (closed
volumes); volumes that overlap at t = 0 give t = 0 and a zero normal. A graze that the
roundings of the inputs' differences would lose still counts
(:data:`hitbox._kernels.ray.WIDEN`, :data:`hitbox._kernels.ray.TANGENT`,
:data:`GROW_SLACK`): paths apart by less than about 1e-15 of the
coordinates' size may be reported touching.
"""

import numpy as np
from numba import njit

from hitbox._kernels.ray import WIDEN, ball, slab_clip, slab_clip_loose, slab_result

INF = np.inf
#: Extra growth of the rounded box's face pieces, relative to the coordinates' size:
#: two roundings of lo - rad - m (see :func:`_clip_grown`).
GROW_SLACK = 4.0 * 2.0**-53


# -- AABB against AABB (seed 000 intersectMovingAABB; RTCD 5.5.8) ------------------------


@njit(error_model="numpy")
def _aabb_aabb(moving, i, still, j, v, r):
    """(t, t_leave, axis) of box moving[i], displaced by v[r], first touching still[j].

    Per axis: the boxes overlap on it for t in [(S.lo - M.hi) / v, (S.hi - M.lo) / v],
    swapped for v < 0, and for all t or never when v = 0 (the static closed test). That is
    the slab clip of a ray from 0 along v against the box S.lo - M.hi .. S.hi - M.lo, so
    it shares the ray kernels' branch-free slab code; t_max = 1 ends the sweep. The entry
    slab that sets t is the contact axis (-1 when t = 0: overlapping from the start).
    """
    if moving[i, 0, 0] > moving[i, 1, 0] or still[j, 0, 0] > still[j, 1, 0]:
        # empty boxes touch nothing (and inf - inf must not be formed)
        return INF, INF, -1
    near = -INF
    far = 1.0
    axis = -1
    for k in range(moving.shape[2]):
        near, far, axis = slab_clip(
            still[j, 0, k] - moving[i, 1, k],
            still[j, 1, k] - moving[i, 0, k],
            v[r, k],
            near,
            far,
            axis,
            k,
        )
    return slab_result(near, far, axis)


@njit(cache=True, nogil=True, error_model="numpy")
def aabb_aabb(moving, still, v, hit, t, normal):
    """Elementwise sweep of moving[i] by v[i] against still[i]; length-1 sets broadcast.

    The normal is the contact face's outward normal on ``still``: -sign(v) on the axis.
    """
    sm = 1 if len(moving) > 1 else 0
    ss = 1 if len(still) > 1 else 0
    sv = 1 if len(v) > 1 else 0
    for i in range(len(hit)):
        r = i * sv
        ti, _, ax = _aabb_aabb(moving, i * sm, still, i * ss, v, r)
        hit[i] = ti < INF
        t[i] = ti
        for k in range(normal.shape[1]):
            normal[i, k] = 0.0
        if ax >= 0:
            normal[i, ax] = 1.0 if v[r, ax] < 0.0 else -1.0


# -- sphere against sphere: a ray against the ball of radius r_a + r_b -------------------


@njit(cache=True, nogil=True, error_model="numpy")
def sphere_sphere(c_a, r_a, c_b, r_b, v, hit, t, normal):
    """Elementwise sweep of sphere a by v against sphere b (Ericson RTCD 5.5.5).

    The centre of a moves along c_a + t v; contact is |c_a + t v - c_b| = r_a + r_b, the
    ray-ball quadratic in its stable form. The normal is (c_a(t) - c_b) / |...|: outward
    from b toward a.
    """
    sa = 1 if len(c_a) > 1 else 0
    sb = 1 if len(c_b) > 1 else 0
    sv = 1 if len(v) > 1 else 0
    dim = c_a.shape[1]
    m = np.zeros(3)  # padded to 3 components for ball()
    d = np.zeros(3)
    for i in range(len(hit)):
        a = i * sa
        b = i * sb
        r = i * sv
        ref = 0.0
        for k in range(dim):
            m[k] = c_a[a, k] - c_b[b, k]
            d[k] = v[r, k]
            ref = max(ref, abs(c_a[a, k]), abs(c_b[b, k]))
        radius = r_a[a] + r_b[b]
        if r_a[a] < 0.0 or r_b[b] < 0.0:
            ti = INF
        elif m[0] * m[0] + m[1] * m[1] + m[2] * m[2] <= radius * radius:
            ti = 0.0  # overlapping (or touching) at t = 0
        elif d[0] == 0.0 and d[1] == 0.0 and d[2] == 0.0:
            ti = INF
        else:
            ti = ball(m[0], m[1], m[2], d[0], d[1], d[2], radius, 1.0, ref)[0]
        hit[i] = ti < INF
        t[i] = ti
        _radial_normal(m, d, ti, normal, i, dim)


@njit(inline="always", error_model="numpy")
def _radial_normal(m, d, t, normal, i, dim):
    """(m + t d) / |m + t d| in the first ``dim`` components; zero for t = 0 or a miss.

    A zero-length offset (two point spheres meeting) falls back to -d / |d|.
    """
    for k in range(dim):
        normal[i, k] = 0.0
    if not 0.0 < t < INF:
        return
    length = 0.0
    for k in range(dim):
        e = m[k] + t * d[k]
        normal[i, k] = e
        length += e * e
    _unit_or_back(normal, i, length, d, dim)


@njit(inline="always", error_model="numpy")
def _unit_or_back(normal, i, length, d, dim):
    """Scale row i of ``normal`` (squared length ``length``) to unit length; a zero row
    (the offset vanished, by contact at a point or by rounding) becomes -d / |d|."""
    if length > 0.0:
        length = np.sqrt(length)
        for k in range(dim):
            normal[i, k] /= length
        return
    for k in range(dim):
        length += d[k] * d[k]
    length = np.sqrt(length)
    for k in range(dim):
        normal[i, k] = -d[k] / length


# -- sphere against AABB: a segment against the rounded box B + ball(r) ------------------


@njit(inline="always")
def _clip_grown(boxes, b, m, d, rad, only, dim):
    """(t0, t1, entry axis): [0, 1] clipped to where m + t d lies in box b grown by rad
    along axis ``only`` (along every axis when ``only`` < 0); (inf, inf, -1) when the
    path misses it.

    The bound lo - rad - m is rounded twice, by as much as the coordinates' size (a
    small rad vanishes into lo), so the hit is decided on the grown slabs widened by
    :data:`GROW_SLACK` of that size (``ray.slab_clip_loose``): a path that touches the
    rounded box exactly still meets it, and t is the one formed without slack (exact
    on dyadic input)."""
    t0 = 0.0
    t1 = 1.0
    ax = -1
    loose0 = 0.0
    loose1 = 1.0
    for k in range(dim):
        grown = only < 0 or k == only
        grow = rad if grown else 0.0
        size = abs(m[k]) + rad  # infinite bounds left out: nothing to graze there
        for side in range(2):
            if abs(boxes[b, side, k]) < INF:
                size = max(size, abs(boxes[b, side, k]) + rad)
        t0, t1, ax, loose0, loose1 = slab_clip_loose(
            boxes[b, 0, k] - grow - m[k], boxes[b, 1, k] + grow - m[k], d[k],
            GROW_SLACK * size if grown else 0.0, t0, t1, ax, k, loose0, loose1,
        )  # fmt: skip
    if not loose0 <= loose1 * WIDEN:
        return INF, INF, -1
    t0 = min(t0, max(t1, 0.0))
    return t0, max(t1, t0), ax


@njit(cache=True, nogil=True, error_model="numpy")
def sphere_aabb(center, radius, boxes, v, hit, t, normal):
    """Elementwise sweep of sphere i by v[i] against box i; length-1 sets broadcast.

    Exact against the rounded box R = {p : dist(p, box) <= r}, which is the union of
    convex pieces (RTCD 5.5.7 splits it the same way): for every non-empty set S of axes,
    the points within r of the box's S-corner in the S coordinates and inside the box's
    slabs on the other axes. |S| = 1 gives the box grown by r along one axis (a face
    piece), |S| = 2 the edge cylinders (corner discs in 2D), |S| = 3 the corner balls. The
    first entry into a union of convex sets is the earliest entry into any of them. The
    box grown by r on every axis holds R and rejects most misses first.
    """
    sc = 1 if len(center) > 1 else 0
    sb = 1 if len(boxes) > 1 else 0
    sv = 1 if len(v) > 1 else 0
    dim = boxes.shape[2]
    m = np.zeros(3)
    d = np.zeros(3)
    for i in range(len(hit)):
        a = i * sc
        b = i * sb
        r = i * sv
        rad = radius[a]
        best = INF
        best_axis = -1  # the slab the winning piece was entered through, if any
        if rad >= 0.0 and boxes[b, 0, 0] <= boxes[b, 1, 0]:
            for k in range(dim):
                m[k] = center[a, k]
                d[k] = v[r, k]
            # distance at t = 0: overlap means t = 0 with a zero normal
            dist2 = 0.0
            for k in range(dim):
                lo = boxes[b, 0, k]
                hi = boxes[b, 1, k]
                e = lo - m[k] if m[k] < lo else (m[k] - hi if m[k] > hi else 0.0)
                dist2 += e * e
            if dist2 <= rad * rad:
                best = 0.0
            else:
                # the box grown by r on every axis: a cheap superset test
                t0, t1, ax = _clip_grown(boxes, b, m, d, rad, -1, dim)
                if t0 < INF:
                    for s in range(1, 1 << dim):
                        te, tax, _ = _piece(boxes, b, m, d, rad, s, dim)
                        if te < best:
                            best = te
                            best_axis = tax
        hit[i] = best < INF
        t[i] = best
        for k in range(dim):
            normal[i, k] = 0.0
        if 0.0 < best < INF:
            # from the box's nearest point to the centre at contact, whichever piece
            # was entered: a path grazing a face's plane enters that face's piece
            # through another axis's slab, whose axis is not the contact's normal
            length = 0.0
            for k in range(dim):
                p = m[k] + best * d[k]
                e = p - min(max(p, boxes[b, 0, k]), boxes[b, 1, k])
                normal[i, k] = e
                length += e * e
            if length == 0.0 and best_axis >= 0:  # a point (r = 0) entering a face
                normal[i, best_axis] = 1.0 if d[best_axis] < 0.0 else -1.0
            else:  # a zero offset otherwise only by rounding
                _unit_or_back(normal, i, length, d, dim)


@njit(error_model="numpy")
def _piece(boxes, b, m, d, rad, s, dim):
    """Earliest entry (t, axis, corner bits) into the rounded-box pieces of axes ``s``.

    One axis: the box grown by ``rad`` on it; axis is the entry slab. Two or three axes:
    the ball of radius ``rad`` around each S-corner in the S coordinates, cut by the box's
    slabs on the other axes; axis is -1 when the entry is through the ball's surface (the
    corner bits then say which corner), else the cutting slab.
    """
    n_s = 0
    only = -1
    for k in range(dim):
        if s >> k & 1:
            n_s += 1
            only = k
    if n_s == 1:
        t0, t1, ax = _clip_grown(boxes, b, m, d, rad, only, dim)
        if t0 < INF:
            return t0, ax, 0
        return INF, -1, 0
    if rad == 0.0:
        # a point: the edge and corner pieces lie in the box and the faces suffice
        return INF, -1, 0
    best = INF
    best_ax = -1
    best_corner = 0
    for corner in range(1 << dim):
        if corner & ~s:
            continue  # corner bits only on the axes of s, each choice once
        # the ball around the corner, in the coordinates of s (the rest padded with 0)
        u0 = 0.0
        u1 = 0.0
        u2 = 0.0
        w0 = 0.0
        w1 = 0.0
        w2 = 0.0
        slot = 0
        at_infinity = False
        ref = 0.0
        for k in range(dim):
            if s >> k & 1:
                side = boxes[b, corner >> k & 1, k]
                at_infinity = at_infinity or not abs(side) < INF
                ref = max(ref, abs(side), abs(m[k]))
                rel = m[k] - side
                if slot == 0:
                    u0 = rel
                    w0 = d[k]
                elif slot == 1:
                    u1 = rel
                    w1 = d[k]
                else:
                    u2 = rel
                    w2 = d[k]
                slot += 1
        if at_infinity:
            continue  # an unbounded box has no edge or corner there
        if w0 == 0.0 and w1 == 0.0 and w2 == 0.0:
            if u0 * u0 + u1 * u1 + u2 * u2 <= rad * rad:
                t0 = 0.0
                t1 = 1.0
            else:
                continue
        else:
            t0, t1 = ball(u0, u1, u2, w0, w1, w2, rad, 1.0, ref)
            if t0 == INF:
                continue
        ax = -1
        for k in range(dim):
            if not s >> k & 1:
                t0, t1, ax = slab_clip(
                    boxes[b, 0, k] - m[k], boxes[b, 1, k] - m[k], d[k], t0, t1, ax, k
                )
        if t0 <= t1 * WIDEN and min(t0, t1) < best:
            best = min(t0, t1)
            best_ax = ax
            best_corner = corner
    return best, best_ax, best_corner
