"""AABB–OBB and k-DOP–OBB by the 15-axis SAT (RTCD §4.4.1), AABB–k-DOP by slabs.

Boxes ``(N, 2, D)`` lo/hi; k-DOPs ``(N, 2, S)`` along the integer directions
``axes (S, 3)`` whose first three are x, y, z; OBBs ``o.center``, ``o.half``, ``o.rot``
(axes in the columns; negative half: empty). Closed, and tolerances only ever move an
answer towards "overlap": volumes apart by about 1e-12 of their coordinates' magnitude
may be called overlapping, never the reverse.
"""

import math

import numpy as np
from numba import njit

from hitbox._kernels.obb import sat_apart

#: Relative slack of the SAT test (added to |R| as in Ericsson's RTCD §4.4.1, and to the
#: separation threshold) and of the polytope feasibility checks.
REL_TOL = 1e-12


# -- AABB vs OBB -----------------------------------------------------------------------


@njit
def _box_obb_sat(ca0, ca1, ca2, ea0, ea1, ea2, o, j):
    """15-axis SAT between the world-aligned box (centre ca, half ea) and OBB j.

    :func:`~hitbox._kernels.obb.sat_apart` with A's axes the identity, so R[m, n] =
    A_m . B_n is ``o.rot[j]`` itself. REL_TOL is added to |R| so that (near-)parallel
    edges, whose cross product is (nearly) zero, never separate; the radii grow by
    REL_TOL and the threshold by REL_TOL of the centres' magnitude, so rounding in the
    centres does not separate either.
    """
    t = (o.center[j, 0] - ca0, o.center[j, 1] - ca1, o.center[j, 2] - ca2)
    rot = o.rot[j]
    r = (
        (rot[0, 0], rot[0, 1], rot[0, 2]),
        (rot[1, 0], rot[1, 1], rot[1, 2]),
        (rot[2, 0], rot[2, 1], rot[2, 2]),
    )
    h = (o.half[j, 0], o.half[j, 1], o.half[j, 2])
    cmag = max(abs(ca0), abs(ca1), abs(ca2))
    cmag = max(cmag, abs(o.center[j, 0]), abs(o.center[j, 1]), abs(o.center[j, 2]))
    grow = 1.0 + REL_TOL
    return not sat_apart(t, r, (ea0, ea1, ea2), h, REL_TOL, grow, REL_TOL * cmag)


@njit
def box_obb(lo0, lo1, lo2, hi0, hi1, hi2, o, j):
    """AABB (given by its six bounds) against OBB j: the SAT with the AABB as an OBB.

    An unbounded AABB is first cut down to the OBB's own box, widened by REL_TOL: the OBB
    lies inside that box, so the cut changes no answer and keeps the SAT finite.
    """
    if lo0 > hi0 or lo1 > hi1 or lo2 > hi2:
        return False
    if o.half[j, 0] < 0.0 or o.half[j, 1] < 0.0 or o.half[j, 2] < 0.0:
        return False
    if not (
        math.isfinite(lo0)
        and math.isfinite(lo1)
        and math.isfinite(lo2)
        and math.isfinite(hi0)
        and math.isfinite(hi1)
        and math.isfinite(hi2)
    ):
        lo = np.array((lo0, lo1, lo2))
        hi = np.array((hi0, hi1, hi2))
        for m in range(3):
            ext = 0.0
            for n in range(3):
                ext += abs(o.rot[j, m, n]) * o.half[j, n]
            c = o.center[j, m]
            pad = REL_TOL * (abs(c) + ext) + ext * REL_TOL
            lo[m] = max(lo[m], c - ext - pad)
            hi[m] = min(hi[m], c + ext + pad)
            if lo[m] > hi[m]:
                return False
        lo0, lo1, lo2 = lo[0], lo[1], lo[2]
        hi0, hi1, hi2 = hi[0], hi[1], hi[2]
    return _box_obb_sat(
        0.5 * (lo0 + hi0),
        0.5 * (lo1 + hi1),
        0.5 * (lo2 + hi2),
        0.5 * (hi0 - lo0),
        0.5 * (hi1 - lo1),
        0.5 * (hi2 - lo2),
        o,
        j,
    )


@njit(inline="always")
def aabb_obb(boxes, i, o, j):
    """AABB i against OBB j: 15-axis SAT, the AABB taken as an OBB. Exact (to REL_TOL)."""
    return box_obb(
        boxes[i, 0, 0],
        boxes[i, 0, 1],
        boxes[i, 0, 2],
        boxes[i, 1, 0],
        boxes[i, 1, 1],
        boxes[i, 1, 2],
        o,
        j,
    )


# -- AABB vs k-DOP ---------------------------------------------------------------------


@njit(inline="always")  # see mixed._test_typed
def aabb_kdop(boxes, i, kd, j, axes):
    """AABB i against k-DOP j: the box's exact k-DOP against the k-DOP, slab by slab.

    Conservative: the box lies inside its own k-DOP, so slabs that are apart prove the box
    and the k-DOP apart; two k-DOPs whose slabs all meet may still be apart along a
    direction outside the table. Tighter than the seed's substitute (the box's sphere),
    whose every slab is wider. The diagonal slabs of the box are sums of at most three
    exact products (directions are small integers), widened by 1e-15 of their magnitude
    for the rounding of the sum.
    """
    for k in range(axes.shape[0]):
        if k < 3:
            blo = boxes[i, 0, k]
            bhi = boxes[i, 1, k]
        else:
            blo = 0.0
            bhi = 0.0
            mag = 0.0
            for m in range(3):
                a = axes[k, m]
                if a == 0.0:
                    continue
                u = a * boxes[i, 0, m]
                v = a * boxes[i, 1, m]
                blo += min(u, v)
                bhi += max(u, v)
                mag += abs(u) + abs(v)
            if math.isfinite(mag):
                blo -= 1e-15 * mag
                bhi += 1e-15 * mag
        if max(blo, kd[j, 0, k]) > min(bhi, kd[j, 1, k]):
            return False
    return True


# -- k-DOP vs OBB ----------------------------------------------------------------------


@njit(inline="always")
def slab_at(kd, j, axes, k, cx, cy, cz):
    """Slab k of k-DOP j: (lo, hi, its direction a, and a . c for the point c)."""
    ax = axes[k, 0]
    ay = axes[k, 1]
    az = axes[k, 2]
    return kd[j, 0, k], kd[j, 1, k], ax, ay, az, ax * cx + ay * cy + az * cz


@njit(inline="always")  # see mixed._test_typed
def kdop_obb(kd, i, o, j, axes):
    """k-DOP i against OBB j: conservative, two substitutions that each hold the original.

    1. The OBB's k-DOP (per direction a: a.c +- sum_n h_n |a.u_n|, widened by REL_TOL)
       against the k-DOP by slabs: the OBB lies inside its k-DOP.
    2. The k-DOP's box (its x, y, z slabs) against the OBB by the exact 15-axis SAT: the
       k-DOP lies inside its box. This adds the OBB's own axes and the edge axes.
    Either test saying "apart" proves the originals apart.
    """
    if o.half[j, 0] < 0.0 or o.half[j, 1] < 0.0 or o.half[j, 2] < 0.0:
        return False
    cx = o.center[j, 0]
    cy = o.center[j, 1]
    cz = o.center[j, 2]
    for k in range(axes.shape[0]):
        lo, hi, ax, ay, az, p = slab_at(kd, i, axes, k, cx, cy, cz)
        if lo > hi:
            return False
        ext = 0.0
        for n in range(3):
            u = ax * o.rot[j, 0, n] + ay * o.rot[j, 1, n] + az * o.rot[j, 2, n]
            ext += o.half[j, n] * abs(u)
        pad = REL_TOL * (abs(ax * cx) + abs(ay * cy) + abs(az * cz) + ext)
        if max(p - ext - pad, lo) > min(p + ext + pad, hi):
            return False
    return box_obb(
        kd[i, 0, 0], kd[i, 0, 1], kd[i, 0, 2], kd[i, 1, 0], kd[i, 1, 1], kd[i, 1, 2], o, j
    )
