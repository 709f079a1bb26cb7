"""First contact of a moving mesh and a moving plain volume (a ball, a box, a convex
shape or a half-space) within a step: continuous mode's third kind of pair (two meshes:
:mod:`hitbox._kernels.advancement`; two plain volumes: :mod:`.contact_time` and
:func:`.scene_convex.convex_contact_time`).

Conservative advancement (Mirtich 1996), as for two meshes: from the step's start,
the pair's distance, then time advanced by as much as the motion bounds allow without
closing it, until they come within the contact tolerance or the step ends. The
distance: the volume posed in the mesh's frame and the mesh's tree walked nearer child
first; a node box's distance to the volume bounds its faces' from below (the volume's
bounding sphere first, but for a half-space, then the exact convex distance of the box,
:func:`.convex_pairs.query`), each face reached is measured exactly as a flat hull,
and a node is left once its bound is within a factor (1 + RTOL) of the nearest face
so far (RTOL and the contact tolerance: :mod:`.advancement`'s): the distance d found
bounds the true one from below by d / (1 + RTOL).
"""

import math

import numpy as np
from numba import njit

from hitbox._kernels import advancement as adv
from hitbox._kernels.convex_pairs import query
from hitbox._kernels.primitives import DISTANCE, HALFSPACE, SPHERE
from hitbox._kernels.scene_convex import box_shape, posed_shape, triangle_shape
from hitbox._kernels.scene_layout import M_DEPTH, TREE, i1, pair_scratch, tree_arrays


@njit(inline="always")
def _sphere_gap(boxes, k, shape):
    """Distance from box k of ``boxes`` (K, 2, 3) to the shape's bounding sphere (0
    where they meet): a lower bound of the box's distance to the shape (0 for a
    half-space, which has none)."""
    if shape.kind[0] == HALFSPACE:
        return 0.0
    d2 = 0.0
    for a in range(3):
        x = shape.trans[0, a]
        e = max(boxes[k, 0, a] - x, x - boxes[k, 1, a], 0.0)
        d2 += e * e
    return max(0.0, math.sqrt(d2) - shape.bound[0])


@njit(inline="always")
def _measured(a, b, fb, cap):
    """The distance of two one-row shapes (0 where the kernel left the pair unsolved,
    its magnitude out of range: touching is the safe answer)."""
    index, out, hit, _ = pair_scratch(fb, cap)
    index[0] = 0
    if query(np.intp(DISTANCE), a, index, b, index, out, hit) > 0:
        return 0.0
    return out[0][0]


@njit(inline="always")
def _box_gap(boxes, k, shape, ball, cut, fb, cap):
    """A lower bound of box k's distance to the shape: the bounding sphere's gap (exact
    for a ball), the exact convex distance where that gap is below ``cut``."""
    gap = _sphere_gap(boxes, k, shape)
    if ball or gap >= cut:
        return gap
    return max(gap, _measured(shape, box_shape(boxes, k, fb, cap), fb, cap))


@njit(cache=True, nogil=True)
def mesh_shape_distance(shape, first, count, tris, sbox, nbox, stack, gaps, tol, fb,
                        cap):  # fmt: skip
    """(d, slot): the distance d from the one-row ``shape`` (scratch side 0) to the
    mesh's faces, to within a factor (1 + RTOL) from above, and the slot of the face
    at d; (inf, -1) for a mesh without faces. Stops at the first face within ``tol``.
    ``stack`` and ``gaps`` hold twice the tree's depth plus two entries."""
    if len(first) == 0:
        return np.inf, -1
    ball = shape.kind[0] == SPHERE
    best = np.inf
    slot = -1
    stack[0] = 0
    gaps[0] = 0.0
    top = 1
    while top > 0:
        top -= 1
        k = stack[top]
        if gaps[top] * (1.0 + adv.RTOL) >= best:
            continue
        f = first[k]
        c = count[k]
        if c == 0:  # both children, the nearer walked first
            cut = best / (1.0 + adv.RTOL)
            g0 = _box_gap(nbox, f, shape, ball, cut, fb, cap)
            g1 = _box_gap(nbox, f + 1, shape, ball, cut, fb, cap)
            near, far, g_near, g_far = (f, f + 1, g0, g1) if g0 <= g1 else (
                f + 1, f, g1, g0)  # fmt: skip
            stack[top], gaps[top] = far, g_far
            stack[top + 1], gaps[top + 1] = near, g_near
            top += 2
            continue
        for s in range(f, f + c):
            if (
                _box_gap(sbox, s, shape, ball, best / (1.0 + adv.RTOL), fb, cap)
                * (1.0 + adv.RTOL)
                >= best
            ):
                continue
            d = _measured(shape, triangle_shape(tris, s, fb, cap), fb, cap)
            if d < best:
                best = d
                slot = s
                if best <= tol:
                    return best, slot
    return best, slot


@njit(cache=True, nogil=True)
def mesh_volume_contact_time(m, w, fb, ib, cap, tf, ti, meta, dt):
    """First time in [0, dt] mesh object m and plain object w come within CONTACT_TOL
    of their bounding radii of each other, from the step's start state: (time, face of
    m), or (inf, -1) when they stay apart through the step."""
    state, scratch = adv.pair_motion(fb, cap)
    tree = i1(ib, cap, TREE)[m]
    first, count, tris, sbox, nbox, order = tree_arrays(tf, ti, meta, tree)
    room = 2 * meta[tree, M_DEPTH] + 4
    stack = np.empty(room, np.intp)
    gaps = np.empty(room)
    mr = state[7]
    tol = adv.CONTACT_TOL * (mr[m] + mr[w])
    t = 0.0
    slot = -1
    for _ in range(adv.MAX_STEPS):
        rel_r, rel_t = adv.relative_at(m, w, t, state, scratch)
        shape = posed_shape(w, fb, ib, cap, tf, rel_r, rel_t, 0)
        d, slot = mesh_shape_distance(
            shape, first, count, tris, sbox, nbox, stack, gaps, tol, fb, cap
        )
        if slot < 0:  # a mesh without faces never touches
            return np.inf, -1
        lower = d / (1.0 + adv.RTOL)
        if lower <= tol:
            return t, order[slot]
        t = adv.advanced(m, w, t, lower, state)
        if not t <= dt:
            return np.inf, -1
    return t, order[slot]
