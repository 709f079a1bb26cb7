"""Half-spaces in a Scene (:func:`hitbox.convex.halfspace` objects): unbounded, so they
stay out of the broad phase; the step pairs each with every dynamic object and settles
the pair by the object's bounding sphere against the plane, then by the exact test
(:func:`hitbox._kernels.convex_pairs.query` for a plain object; for a mesh, its faces
that the tree walk cannot rule out, each as :func:`meets_triangle` decides).

A half-space object is ``{x : n . (x - p) <= 0}``, n its shape's local z axis and p its
shape's centre, both moved by the object's pose.
"""

import numpy as np
from numba import njit

from hitbox._kernels.pipeline import PAD, relative_into
from hitbox._kernels.primitives import HALFSPACE, TOUCH
from hitbox._kernels.scene_convex import meets_triangle, posed_shape
from hitbox._kernels.scene_layout import (
    ROT,
    TRANS,
    TREE,
    XC,
    XQ,
    f2,
    f3,
    i1,
    tree_arrays,
)

#: The gap's rounding, and the touching tolerance of the exact test (TOUCH times the
#: pair's coordinate scale), as a fraction of the coordinates' size: a pair within it
#: is tested, never slept.
GAP_SLACK = 2.0 * TOUCH + 1e-14


@njit(inline="always")
def plane_gap(i, j, xkind, fb, ib, cap, rot, trans, wc, wr):
    """A lower bound on the distance from the half-space of pair (i, j) to the other
    object's world bounding sphere (``wc``, ``wr``): <= 0 when they may touch."""
    h, o = (i, j) if xkind[i] == HALFSPACE else (j, i)
    q = fb[cap * XQ + 9 * h : cap * XQ + 9 * h + 9]
    c = fb[cap * XC + 3 * h : cap * XC + 3 * h + 3]
    gap = -wr[o]
    size = wr[o]
    for a in range(3):
        n_a = rot[h, a, 0] * q[2] + rot[h, a, 1] * q[5] + rot[h, a, 2] * q[8]
        p_a = (
            rot[h, a, 0] * c[0] + rot[h, a, 1] * c[1] + rot[h, a, 2] * c[2] + trans[h, a]
        )
        gap += n_a * (wc[o, a] - p_a)
        size += abs(wc[o, a]) + abs(p_a)
    return gap - GAP_SLACK * size - 1e-300


@njit(cache=True, nogil=True)
def mesh_plane(m, h, fb, ib, cap, tf, ti, meta, first_only, rel_r, rel_t, stack):
    """Mesh object m against half-space object h, in m's frame: the faces of m that
    touch it, sorted (at most one with ``first_only``). A node is skipped when its box
    lies beyond the plane by more than PAD times its coordinates' size (far more than
    the exact test's touching tolerance)."""
    relative_into(f3(fb, cap, ROT, 3, 3), f2(fb, cap, TRANS, 3), m, h, rel_r, rel_t)
    shape = posed_shape(h, fb, ib, cap, tf, rel_r, rel_t, 0)
    nx, ny, nz = shape.rot[0, 0, 2], shape.rot[0, 1, 2], shape.rot[0, 2, 2]
    px, py, pz = shape.trans[0, 0], shape.trans[0, 1], shape.trans[0, 2]
    base = abs(px) + abs(py) + abs(pz)
    first, count, tris, sbox, nbox, order = tree_arrays(
        tf, ti, meta, i1(ib, cap, TREE)[m]
    )
    found = np.empty(16, np.int64)
    n = 0
    if len(first) == 0:
        return found[:0]
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        k = stack[top]
        if _beyond(nbox, k, nx, ny, nz, px, py, pz, base):
            continue
        f = first[k]
        c = count[k]
        if c == 0:
            stack[top] = f + 1
            stack[top + 1] = f
            top += 2
            continue
        for s in range(f, f + c):
            if _beyond(sbox, s, nx, ny, nz, px, py, pz, base):
                continue
            if meets_triangle(tris, s, shape, fb, cap):
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
def _beyond(box, k, nx, ny, nz, px, py, pz, base):
    """Does box k ((K, 2, 3) lows and highs) lie wholly beyond the plane through
    (px, py, pz) with normal n, by more than its slack?"""
    low = 0.0
    size = base
    for a, n_a, p_a in ((0, nx, px), (1, ny, py), (2, nz, pz)):
        centre = 0.5 * box[k, 0, a] + 0.5 * box[k, 1, a]
        half = 0.5 * box[k, 1, a] - 0.5 * box[k, 0, a]
        low += n_a * (centre - p_a) - abs(n_a) * half
        size += abs(centre) + half
    return low > PAD * size
