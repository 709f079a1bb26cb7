"""Convex objects of a Scene (:mod:`hitbox.convex` shapes): an object's exact shape
posed in a frame, tested against another plain object or against a mesh's triangles,
and swept through a step by conservative advancement (continuous mode).

Every decision is :func:`hitbox._kernels.convex_pairs.query`'s, called for one pair
(its own compiled kernel, not compiled again here): touching within ``TOUCH`` times
the pair's coordinate scale counts, as :func:`hitbox.convex.intersects` decides it.
"""

import math

import numpy as np
from numba import njit

from hitbox._kernels.contact_time import MAX_ADVANCE, turn
from hitbox._kernels.convex_pairs import query
from hitbox._kernels.flat_views import rows
from hitbox._kernels.pipeline import SPHERE as VOLUME_SPHERE
from hitbox._kernels.primitives import (
    BOX,
    DISTANCE,
    HULL,
    INTERSECTS,
    SPHERE,
    TOUCH,
    scale,
)
from hitbox._kernels.scene_layout import (
    ACC,
    MC,
    MR,
    NF,
    OMEGA,
    ROT0,
    SC,
    SH,
    SQ,
    SR,
    TRANS0,
    VEL0,
    VKIND,
    XAT,
    XB,
    XC,
    XD,
    XKIND,
    XN,
    XQ,
    XR,
    f1,
    f2,
    f3,
    pair_scratch,
    shape_rows,
)
from hitbox._kernels.shape_set import Shapes

EPS = 2.0**-52


@njit(inline="always")
def posed_shape(o, fb, ib, cap, tf, r, t, side):
    """Plain object o's exact shape (its convex shape, ball or box) moved from its model
    frame by rotation ``r`` (3, 3) and translation ``t`` (3,): a Shapes of one row,
    written into the arena's scratch shape ``side`` (0 or 1; a hull's vertices copied)."""
    kind, rot, trans, dims, radius, bound, first, count = shape_rows(fb, cap, side)
    xkind = ib[cap * XKIND + o]
    first[0] = 0
    count[0] = 0
    verts = rows(fb[cap * NF : cap * NF], 0, 3)
    if xkind >= 0:
        q = fb[cap * XQ + 9 * o : cap * XQ + 9 * o + 9]
        c = fb[cap * XC + 3 * o : cap * XC + 3 * o + 3]
        kind[0] = xkind
        for k in range(3):
            dims[0, k] = fb[cap * XD + 3 * o + k]
        radius[0] = fb[cap * XR + o]
        bound[0] = fb[cap * XB + o]
        n = ib[cap * XN + o]
        if n > 0:
            at = ib[cap * XAT + o]
            count[0] = n
            verts = rows(tf[at : at + 3 * n], n, 3).copy()
    elif ib[cap * VKIND + o] == VOLUME_SPHERE:  # its frame's axes: the pose's own
        q = fb[cap * SQ + 9 * o : cap * SQ + 9 * o + 9]  # (unused: a ball has no axes)
        c = fb[cap * SC + 3 * o : cap * SC + 3 * o + 3]
        kind[0] = SPHERE
        for k in range(3):
            dims[0, k] = 0.0
        radius[0] = bound[0] = fb[cap * SR + o]
    else:
        q = fb[cap * SQ + 9 * o : cap * SQ + 9 * o + 9]
        c = fb[cap * SC + 3 * o : cap * SC + 3 * o + 3]
        kind[0] = BOX
        b2 = 0.0
        for k in range(3):
            h = fb[cap * SH + 3 * o + k]
            dims[0, k] = h
            b2 += h * h
        radius[0] = 0.0
        bound[0] = math.sqrt(b2)
    ball = kind[0] == SPHERE and xkind < 0
    for a in range(3):
        trans[0, a] = t[a] + r[a, 0] * c[0] + r[a, 1] * c[1] + r[a, 2] * c[2]
        for b in range(3):
            if ball:
                rot[0, a, b] = r[a, b]
            else:
                rot[0, a, b] = r[a, 0] * q[b] + r[a, 1] * q[3 + b] + r[a, 2] * q[6 + b]
    return Shapes(kind, rot, trans, dims, radius, bound, first, count, verts)


@njit(cache=True, nogil=True)
def shapes_meet(i, j, rot, trans, fb, ib, cap, tf):
    """Do plain objects i and j, at poses ``rot``, ``trans`` (the pose tables), touch?"""
    # modes pass as np.intp here and below: a literal mode compiles query once more
    a = posed_shape(i, fb, ib, cap, tf, rot[i], trans[i], 0)
    b = posed_shape(j, fb, ib, cap, tf, rot[j], trans[j], 1)
    index, out, hit, _ = pair_scratch(fb, cap)
    index[0] = 0
    query(np.intp(INTERSECTS), a, index, b, index, out, hit)
    return hit[0]


@njit(cache=True, nogil=True)
def meets_triangle(tris, s, shape, fb, cap):
    """Does triangle s of ``tris`` (S, 3, 3) touch ``shape`` (one row, the same frame,
    posed into scratch side 0)? The triangle is loaded into scratch side 1 as
    :func:`hitbox.convex.triangles` makes it (a hull centred on its mean corner), so
    the answer is that of a mesh's intersect_shapes."""
    tri = triangle_shape(tris, s, fb, cap)
    index, out, hit, _ = pair_scratch(fb, cap)
    index[0] = 0
    query(np.intp(INTERSECTS), tri, index, shape, index, out, hit)
    return hit[0]


@njit(inline="always")
def triangle_shape(tris, s, fb, cap):
    """Triangle s of ``tris`` (S, 3, 3) as a one-row flat hull in scratch side 1,
    centred on its mean corner as :func:`hitbox.convex.triangles` makes it."""
    kind, rot, trans, dims, radius, bound, first, count = shape_rows(fb, cap, 1)
    verts = pair_scratch(fb, cap)[3]
    kind[0] = HULL
    first[0] = 0
    count[0] = 3
    radius[0] = 0.0
    for a in range(3):
        dims[0, a] = 0.0
        for b in range(3):
            rot[0, a, b] = 1.0 if a == b else 0.0
    for c in range(3):
        trans[0, c] = ((tris[s, 0, c] + tris[s, 1, c]) + tris[s, 2, c]) / 3.0
    b2 = 0.0
    for k in range(3):
        acc = 0.0
        for c in range(3):
            x = tris[s, k, c] - trans[0, c]
            verts[k, c] = x
            acc += x * x
        b2 = max(b2, acc)
    bound[0] = math.sqrt(b2)
    return Shapes(kind, rot, trans, dims, radius, bound, first, count, verts)


@njit(inline="always")
def box_shape(boxes, k, fb, cap):
    """Axis-aligned box k of ``boxes`` (K, 2, 3) (lo, hi) as a one-row box in scratch
    side 1, widened by a few ulps so that rounding its centre cannot shrink it."""
    kind, rot, trans, dims, radius, bound, first, count = shape_rows(fb, cap, 1)
    kind[0] = BOX
    first[0] = 0
    count[0] = 0
    radius[0] = 0.0
    b2 = 0.0
    for a in range(3):
        c = 0.5 * (boxes[k, 0, a] + boxes[k, 1, a])
        h = max(0.0, 0.5 * (boxes[k, 1, a] - boxes[k, 0, a]))
        h += 4.0 * EPS * (abs(c) + h)
        trans[0, a] = c
        dims[0, a] = h
        b2 += h * h
        for b in range(3):
            rot[0, a, b] = 1.0 if a == b else 0.0
    bound[0] = math.sqrt(b2)
    return Shapes(kind, rot, trans, dims, radius, bound, first, count, rows(fb[:0], 0, 3))


@njit(inline="always")
def _place(o, t, rot0, trans0, vel0, omega, acc, r, x):
    """Object o's pose at time t into the step (as the Scene integrates it)."""
    turn(omega[o, 0], omega[o, 1], omega[o, 2], t, rot0[o], r)
    for a in range(3):
        x[a] = trans0[o, a] + vel0[o, a] * t + 0.5 * acc[o, a] * t * t


@njit(inline="always")
def _speed(o, vel0, omega, acc, mc, mr, dt):
    """Bound on the speed of every point of object o over the step."""
    arm = math.sqrt(mc[o, 0] ** 2 + mc[o, 1] ** 2 + mc[o, 2] ** 2) + mr[o]
    v = math.sqrt(vel0[o, 0] ** 2 + vel0[o, 1] ** 2 + vel0[o, 2] ** 2)
    w = math.sqrt(omega[o, 0] ** 2 + omega[o, 1] ** 2 + omega[o, 2] ** 2)
    a = math.sqrt(acc[o, 0] ** 2 + acc[o, 1] ** 2 + acc[o, 2] ** 2)
    return v + a * dt + w * arm


@njit(cache=True, nogil=True)
def convex_contact_time(i, j, fb, ib, cap, tf, dt):
    """First t in [0, dt] at which plain objects i and j touch (one of them convex), or
    inf: conservative advancement (Mirtich 1996) on their distance, each safe step the
    gap less the touching tolerance over a bound on how fast any two of their points
    approach; the end of the step is always tested, as the discrete step would."""
    rot0 = f3(fb, cap, ROT0, 3, 3)
    trans0 = f2(fb, cap, TRANS0, 3)
    vel0 = f2(fb, cap, VEL0, 3)
    omega = f2(fb, cap, OMEGA, 3)
    acc = f2(fb, cap, ACC, 3)
    mc = f2(fb, cap, MC, 3)
    mr = f1(fb, cap, MR)
    speed = _speed(i, vel0, omega, acc, mc, mr, dt) + _speed(
        j, vel0, omega, acc, mc, mr, dt
    )
    ri = np.empty((3, 3))
    rj = np.empty((3, 3))
    xi = np.empty(3)
    xj = np.empty(3)
    ia, out, hit, _ = pair_scratch(fb, cap)
    ia[0] = 0
    t = 0.0
    for _ in range(MAX_ADVANCE):
        _place(i, t, rot0, trans0, vel0, omega, acc, ri, xi)
        _place(j, t, rot0, trans0, vel0, omega, acc, rj, xj)
        a = posed_shape(i, fb, ib, cap, tf, ri, xi, 0)
        b = posed_shape(j, fb, ib, cap, tf, rj, xj, 1)
        query(np.intp(DISTANCE), a, ia, b, ia, out, hit)
        gap = out[0][0] - TOUCH * scale(a, 0, b, 0)
        if gap <= 0.0:
            return t
        if t >= dt or speed == 0.0:
            return np.inf
        t = min(t + gap / speed, dt)
    return t
