"""Two triangle sets' crossing pairs without trees: one sweep along an axis over the
triangles' boxes, exact triangle tests where the boxes meet (closed: touching counts).

Little to compile beside the exact triangle test itself, so the command line's first
``collide`` on an empty kernel cache answers with it (:mod:`hitbox.cli.collide`); the
trees (:mod:`hitbox._kernels.collide`) answer everything else. The slow twin is
:meth:`hitbox.mesh.TriangleMesh.intersect_brute`. The sweep and the triangle test in
one kernel, not ``hitbox.aabb.sweep_pairs`` and then ``hitbox.triangle.overlap``: those
two compile for 5.3 and 2.2 s from an empty cache, this for 2.7 s.
"""

import numpy as np
from numba import njit

from hitbox._kernels.triangle_overlap import tri_tri_overlap_idx


@njit(cache=True)
def sweep_pairs(a_tris, a_box, a_order, b_tris, b_box, b_order, axis, first_only):
    """Pairs (i of a, j of b) of crossing or touching triangles.

    ``a_box`` (N, 2, 3) and ``b_box`` (M, 2, 3): each triangle's box (lo, hi) in the
    same frame as the triangles; ``a_order``/``b_order``: the triangles by the low side
    of their boxes on ``axis`` (0, 1 or 2), ascending. Whichever of two boxes starts
    first along the axis meets the other while the other starts within it, so each pair
    whose intervals on the axis meet is reached once (ties: from a's side).
    ``first_only``: stop at the first crossing pair.
    Returns (out (2, K) intp, n): the first n columns are the pairs, unsorted.
    """
    u, v, w = axis, (axis + 1) % 3, (axis + 2) % 3
    out = np.empty((2, 64), np.intp)
    n = 0
    na, nb = len(a_order), len(b_order)
    i = j = 0
    while i < na and j < nb:
        p = a_order[i]
        q = b_order[j]
        a_first = a_box[p, 0, u] <= b_box[q, 0, u]
        lead, lead_box = (p, a_box) if a_first else (q, b_box)
        end = lead_box[lead, 1, u]
        k = j if a_first else i
        others = b_order if a_first else a_order
        other_box = b_box if a_first else a_box
        while k < len(others) and other_box[others[k], 0, u] <= end:
            o = others[k]
            k += 1
            if (
                lead_box[lead, 0, v] > other_box[o, 1, v]
                or lead_box[lead, 1, v] < other_box[o, 0, v]
                or lead_box[lead, 0, w] > other_box[o, 1, w]
                or lead_box[lead, 1, w] < other_box[o, 0, w]
            ):
                continue
            s, t = (lead, o) if a_first else (o, lead)
            if not tri_tri_overlap_idx(a_tris, s, b_tris, t):
                continue
            if n == out.shape[1]:
                out = _grown(out, n)
            out[0, n] = s
            out[1, n] = t
            n += 1
            if first_only:
                return out, n
        if a_first:
            i += 1
        else:
            j += 1
    return out, n


@njit
def _grown(out, n):
    """``out`` with twice the columns, its first n kept. Element loops: a slice copy
    compiles numba's broadcasting helpers and their error messages (3 s of a cold
    start)."""
    grown = np.empty((2, 2 * n), np.intp)
    for r in range(2):
        for c in range(n):
            grown[r, c] = out[r, c]
    return grown
