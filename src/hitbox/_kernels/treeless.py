"""Two triangle sets' crossing pairs without trees: one sweep along an axis over the
triangles' boxes, and the triangle test's floating-point filters where the boxes meet
(closed: touching counts); the pairs the filters cannot decide are handed back for the
exact test (:func:`hitbox._kernels.triangle.overlap`).

Little to compile, so the command line's first ``collide`` on an empty kernel cache
answers with it (:mod:`hitbox.cli.collide`); the trees (:mod:`hitbox._kernels.collide`)
answer everything else. The slow twin is :meth:`hitbox.mesh.TriangleMesh.intersect_brute`.
The sweep and the filters in one kernel, not ``hitbox.aabb.sweep_pairs`` and then
``hitbox.triangle.overlap``: those two compile for 5.3 and 2.2 s from an empty cache
(the exact expansions 5.8 s more), this for about 3 s; the exact test compiles only for
inputs that need it (touching or coplanar triangles).
"""

import numpy as np
from numba import njit

from hitbox._kernels.orient_filter import MEET, UNDECIDED, tri_tri_filtered
from hitbox._kernels.triangle_points import load


@njit(cache=True)
def sweep_pairs(a_tris, a_box, a_order, b_tris, b_box, b_order, axis, first_only):
    """Pairs (i of a, j of b) of crossing or touching triangles.

    ``a_box`` (N, 2, 3) and ``b_box`` (M, 2, 3): each triangle's box (lo, hi) in the
    same frame as the triangles; ``a_order``/``b_order``: the triangles by the low side
    of their boxes on ``axis`` (0, 1 or 2), ascending. Whichever of two boxes starts
    first along the axis meets the other while the other starts within it, so each pair
    whose intervals on the axis meet is reached once (ties: from a's side).
    ``first_only``: stop at the first crossing pair.
    Returns (out (2, K) intp, n, undecided (2, L) intp, m): the first n columns of
    ``out`` cross, unsorted; the first m of ``undecided`` are the pairs whose boxes meet
    and whose test needs exact signs (up to the stop, with ``first_only``).
    """
    u, v, w = axis, (axis + 1) % 3, (axis + 2) % 3
    out = np.empty((2, 64), np.intp)
    undecided = np.empty((2, 16), np.intp)
    n = m = 0
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
            p0, p1, p2 = load(a_tris, s)
            q0, q1, q2 = load(b_tris, t)
            verdict = tri_tri_filtered(p0, p1, p2, q0, q1, q2)
            if verdict == UNDECIDED:
                if m == undecided.shape[1]:
                    undecided = _grown(undecided, m)
                undecided[0, m] = s
                undecided[1, m] = t
                m += 1
            if verdict != MEET:
                continue
            if n == out.shape[1]:
                out = _grown(out, n)
            out[0, n] = s
            out[1, n] = t
            n += 1
            if first_only:
                return out, n, undecided, m
        if a_first:
            i += 1
        else:
            j += 1
    return out, n, undecided, m


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
