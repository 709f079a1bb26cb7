"""A mesh object of a Scene against a plain volume (a ball, a box, a convex shape
through its bounding box, or a half-space through its plane): the walk of the mesh's
tree, then each face that may touch tested exactly (see
:mod:`hitbox._kernels.scene_narrow`)."""

import numpy as np
from numba import njit

from hitbox._kernels.bv import overlap
from hitbox._kernels.bvh_traverse import push_children
from hitbox._kernels.pipeline import (
    PAD,
    SPHERE,
    relative_into,
    triangle_box,
    triangle_sphere,
)
from hitbox._kernels.primitives import HALFSPACE
from hitbox._kernels.scene_convex import meets_triangle, posed_shape
from hitbox._kernels.scene_layout import (
    M_MAG,
    ROT,
    SC,
    SH,
    SQ,
    SR,
    TRANS,
    TREE,
    VKIND,
    XKIND,
    OBBSet,
    SphereSet,
    f2,
    f3,
    i1,
    tree_arrays,
)
from hitbox._kernels.scene_planes import beyond


@njit(cache=True, nogil=True)
def mesh_volume(m, w, fb, ib, cap, tf, ti, meta, first_only, rel_r, rel_t, stack):
    """Mesh object m against plain volume w, in m's frame: the touching faces of m,
    sorted (at most one with ``first_only``). A half-space's walk culls by its plane
    (:func:`hitbox._kernels.scene_planes.beyond`)."""
    rot = f3(fb, cap, ROT, 3, 3)
    trans = f2(fb, cap, TRANS, 3)
    relative_into(rot, trans, m, w, rel_r, rel_t)
    sc = f2(fb, cap, SC, 3)
    center = np.empty((1, 3))
    for r in range(3):
        center[0, r] = (
            rel_r[r, 0] * sc[w, 0] + rel_r[r, 1] * sc[w, 1] + rel_r[r, 2] * sc[w, 2]
        ) + rel_t[r]
    is_sphere = i1(ib, cap, VKIND)[w] == SPHERE
    is_convex = i1(ib, cap, XKIND)[w] >= 0
    plane = i1(ib, cap, XKIND)[w] == HALFSPACE
    plane_at = np.zeros(6)  # a half-space's unit normal and a point of its plane
    if is_convex:  # exact: its shape; the walk: its bounding box, widened
        shape = posed_shape(w, fb, ib, cap, tf, rel_r, rel_t, 0)
        for a in range(3):
            plane_at[a], plane_at[3 + a] = shape.rot[0, a, 2], shape.trans[0, a]
    radius = np.full(1, fb[cap * SR + w])
    half = np.empty((1, 3))
    brot = np.empty((1, 3, 3))
    sq = f3(fb, cap, SQ, 3, 3)
    sh = f2(fb, cap, SH, 3)
    t = i1(ib, cap, TREE)[m]
    pad = 0.0
    if is_convex:  # the touching tolerance of the pair's scale, a face's included
        pad = PAD * (abs(center[0, 0]) + abs(center[0, 1]) + abs(center[0, 2]))
        pad += PAD * (sh[w, 0] + sh[w, 1] + sh[w, 2] + tf[meta[t, M_MAG]])
    for r in range(3):
        half[0, r] = sh[w, r] + pad
        for c in range(3):
            brot[0, r, c] = (
                rel_r[r, 0] * sq[w, 0, c]
                + rel_r[r, 1] * sq[w, 1, c]
                + rel_r[r, 2] * sq[w, 2, c]
            )
    ball = SphereSet(center, radius)
    box = OBBSet(center, half, brot)
    first, count, tris, sbox, nbox, order = tree_arrays(tf, ti, meta, t)
    found = np.empty(16, np.int64)
    n = 0
    if len(first) == 0:
        return found[:0]
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        k = stack[top]
        if not _may_touch(nbox, k, is_sphere, ball, box, plane, plane_at):
            continue
        f = first[k]
        c = count[k]
        if c == 0:
            top = push_children(stack, top, f)
            continue
        for s in range(f, f + c):
            if not _may_touch(sbox, s, is_sphere, ball, box, plane, plane_at):
                continue
            if is_convex:
                touch = meets_triangle(tris, s, shape, fb, cap)
            elif is_sphere:
                touch = triangle_sphere(
                    tris, s, center[0, 0], center[0, 1], center[0, 2], radius[0]
                )
            else:
                touch = _triangle_in_box(tris, s, center, half, brot)
            if touch:
                if n == len(found):
                    grown = np.empty(2 * n, np.int64)
                    grown[:n] = found[:n]
                    found = grown
                found[n] = order[s]
                n += 1
                if first_only:
                    return found[:n]
    out = found[:n]
    out.sort()
    return out


@njit(inline="always")
def _may_touch(table, k, is_sphere, ball, box, plane, plane_at):
    """May box k of ``table`` (nodes or slots) touch the volume: its ball, its box, or
    (a half-space, ``plane_at`` its normal and point) the side of its plane?"""
    if plane:
        return not beyond(table, k, plane_at)
    return overlap(table, k, ball, 0) if is_sphere else overlap(table, k, box, 0)


@njit(inline="always")
def _triangle_in_box(tris, s, center, half, rot):
    """Slot s's triangle against the oriented box, in the box's frame
    (pipeline.triangles_box for one face)."""
    v = np.empty((3, 3))
    for k in range(3):
        dx = tris[s, k, 0] - center[0, 0]
        dy = tris[s, k, 1] - center[0, 1]
        dz = tris[s, k, 2] - center[0, 2]
        for a in range(3):
            v[k, a] = rot[0, 0, a] * dx + rot[0, 1, a] * dy + rot[0, 2, a] * dz
    return triangle_box(
        (v[0, 0], v[0, 1], v[0, 2]),
        (v[1, 0], v[1, 1], v[1, 2]),
        (v[2, 0], v[2, 1], v[2, 2]),
        half[0, 0],
        half[0, 1],
        half[0, 2],
    )
