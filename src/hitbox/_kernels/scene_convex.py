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
    i1,
)
from hitbox._kernels.shape_set import Shapes


@njit(cache=True, nogil=True)
def posed_shape(o, fb, ib, cap, tf, r, t):
    """Plain object o's exact shape (its convex shape, ball or box) moved from its model
    frame by rotation ``r`` (3, 3) and translation ``t`` (3,): a Shapes of one row."""
    xkind = i1(ib, cap, XKIND)[o]
    kind = np.empty(1, np.intp)
    dims = np.zeros((1, 3))
    radius = np.zeros(1)
    bound = np.zeros(1)
    count = np.zeros(1, np.intp)
    if xkind >= 0:
        q = f3(fb, cap, XQ, 3, 3)[o]
        c = f2(fb, cap, XC, 3)[o]
        kind[0] = xkind
        for k in range(3):
            dims[0, k] = f2(fb, cap, XD, 3)[o, k]
        radius[0] = f1(fb, cap, XR)[o]
        bound[0] = f1(fb, cap, XB)[o]
        n = i1(ib, cap, XN)[o]
        at = i1(ib, cap, XAT)[o]
        count[0] = n
        verts = tf[at : at + 3 * n].reshape((n, 3)).copy()
    elif i1(ib, cap, VKIND)[o] == VOLUME_SPHERE:
        q = np.eye(3)
        c = f2(fb, cap, SC, 3)[o]
        kind[0] = SPHERE
        radius[0] = bound[0] = f1(fb, cap, SR)[o]
        verts = np.zeros((0, 3))
    else:
        q = f3(fb, cap, SQ, 3, 3)[o]
        c = f2(fb, cap, SC, 3)[o]
        kind[0] = BOX
        h = f2(fb, cap, SH, 3)[o]
        for k in range(3):
            dims[0, k] = h[k]
        bound[0] = math.sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2])
        verts = np.zeros((0, 3))
    rot = np.empty((1, 3, 3))
    trans = np.empty((1, 3))
    for a in range(3):
        trans[0, a] = t[a] + r[a, 0] * c[0] + r[a, 1] * c[1] + r[a, 2] * c[2]
        for b in range(3):
            rot[0, a, b] = r[a, 0] * q[0, b] + r[a, 1] * q[1, b] + r[a, 2] * q[2, b]
    return Shapes(kind, rot, trans, dims, radius, bound, np.zeros(1, np.intp), count,
                  verts)  # fmt: skip


@njit(inline="always")
def _one_pair():
    """Index array, output row and hit flag of a one-pair query."""
    out = (np.empty(1), np.empty((1, 3)), np.empty((1, 3)), np.empty((1, 3)))
    return np.zeros(1, np.intp), out, np.zeros(1, np.bool_)


@njit(cache=True, nogil=True)
def shapes_meet(i, j, rot, trans, fb, ib, cap, tf):
    """Do plain objects i and j, at poses ``rot``, ``trans`` (the pose tables), touch?"""
    a = posed_shape(i, fb, ib, cap, tf, rot[i], trans[i])
    b = posed_shape(j, fb, ib, cap, tf, rot[j], trans[j])
    ia, out, hit = _one_pair()
    query(INTERSECTS, a, ia, b, ia, out, hit)
    return hit[0]


@njit(cache=True, nogil=True)
def triangle_shape():
    """A one-row hull of three vertices to load triangles into (:func:`meets_triangle`)."""
    rot = np.zeros((1, 3, 3))
    for k in range(3):
        rot[0, k, k] = 1.0
    return Shapes(np.full(1, HULL, np.intp), rot, np.zeros((1, 3)), np.zeros((1, 3)),
                  np.zeros(1), np.zeros(1), np.zeros(1, np.intp), np.full(1, 3, np.intp),
                  np.zeros((3, 3)))  # fmt: skip


@njit(cache=True, nogil=True)
def meets_triangle(tris, s, tri, shape):
    """Does triangle s of ``tris`` (S, 3, 3) touch ``shape`` (one row, the same frame)?
    The triangle is loaded into ``tri`` as :func:`hitbox.convex.triangles` makes it
    (centred on its mean corner), so the answer is that of a mesh's intersect_shapes."""
    for c in range(3):
        tri.trans[0, c] = ((tris[s, 0, c] + tris[s, 1, c]) + tris[s, 2, c]) / 3.0
    b2 = 0.0
    for k in range(3):
        acc = 0.0
        for c in range(3):
            x = tris[s, k, c] - tri.trans[0, c]
            tri.vertices[k, c] = x
            acc += x * x
        b2 = max(b2, acc)
    tri.bound[0] = math.sqrt(b2)
    ia, out, hit = _one_pair()
    query(INTERSECTS, tri, ia, shape, ia, out, hit)
    return hit[0]


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
    ia, out, hit = _one_pair()
    t = 0.0
    for _ in range(MAX_ADVANCE):
        _place(i, t, rot0, trans0, vel0, omega, acc, ri, xi)
        _place(j, t, rot0, trans0, vel0, omega, acc, rj, xj)
        a = posed_shape(i, fb, ib, cap, tf, ri, xi)
        b = posed_shape(j, fb, ib, cap, tf, rj, xj)
        query(DISTANCE, a, ia, b, ia, out, hit)
        gap = out[0][0] - TOUCH * scale(a, 0, b, 0)
        if gap <= 0.0:
            return t
        if t >= dt or speed == 0.0:
            return np.inf
        t = min(t + gap / speed, dt)
    return t
