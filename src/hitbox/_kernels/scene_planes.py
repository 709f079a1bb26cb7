"""Half-spaces in a Scene (:func:`hitbox.convex.halfspace` objects): unbounded, so they
stay out of the broad phase; the step pairs each with every dynamic object and settles
the pair by the object's bounding sphere against the plane, then by the exact test
(:func:`hitbox._kernels.convex_pairs.query` for a plain object; for a mesh, its faces
that a walk of its tree culled by the plane (:func:`beyond`) cannot rule out, each as
:func:`hitbox._kernels.scene_convex.meets_triangle` decides).

A half-space object is ``{x : n . (x - p) <= 0}``, n its shape's local z axis and p its
shape's centre, both moved by the object's pose.
"""

from numba import njit

from hitbox._kernels.pipeline import PAD
from hitbox._kernels.primitives import HALFSPACE, TOUCH
from hitbox._kernels.scene_layout import (
    XC,
    XQ,
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


@njit(inline="always")
def beyond(box, k, plane_at):
    """Does box k ((K, 2, 3) lows and highs) lie wholly beyond the plane through
    ``plane_at[3:]`` with unit normal ``plane_at[:3]`` (the outside of a half-space), by
    more than PAD times its coordinates' size (far more than the exact test's touching
    tolerance)?"""
    low = 0.0
    size = abs(plane_at[3]) + abs(plane_at[4]) + abs(plane_at[5])
    for a in range(3):
        centre = 0.5 * box[k, 0, a] + 0.5 * box[k, 1, a]
        half = 0.5 * box[k, 1, a] - 0.5 * box[k, 0, a]
        low += plane_at[a] * (centre - plane_at[3 + a]) - abs(plane_at[a]) * half
        size += abs(centre) + half
    return low > PAD * size
