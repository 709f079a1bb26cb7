"""Invariant checks of a BVH that loops make cheap: node depths, and every point under
every node inside the node's sphere or OBB (Box2D ``b2DynamicTree_Validate`` in spirit).

The caller has checked the topology first (children after their parents and in range,
slot runs tiling the slots), so these loops index safely.
"""

import numpy as np
from numba import njit

from hitbox._kernels.rigid import ortho_error


@njit(cache=True, nogil=True)
def node_depths(node_first, node_count, out):
    """Depth of every node (root 0): parents come before children, one forward pass."""
    out[0] = 0
    for m in range(len(node_first)):
        if node_count[m] == 0:
            f = node_first[m]
            out[f] = out[f + 1] = out[m] + 1


@njit(inline="always")
def _offset(slot_pts, s, v, c0, c1, c2):
    """Point v of slot s less the centre (c0, c1, c2)."""
    return slot_pts[s, v, 0] - c0, slot_pts[s, v, 1] - c1, slot_pts[s, v, 2] - c2


@njit(cache=True, nogil=True)
def first_obb_outlier(slot_pts, span_lo, span_hi, center, half, rot, rel_tol):
    """The first node with a point under it outside its OBB by more than ``rel_tol``
    times the node's ``|centre|_1 + sum(half)``, or -1. Coordinates are measured along
    the OBB's axes (the columns of ``rot``) as the fit measures them."""
    for m in range(len(span_lo)):
        c0, c1, c2 = center[m, 0], center[m, 1], center[m, 2]
        h0, h1, h2 = half[m, 0], half[m, 1], half[m, 2]
        tol = rel_tol * (abs(c0) + abs(c1) + abs(c2) + h0 + h1 + h2)
        if tol == np.inf:  # an unbounded box holds every point
            continue
        for s in range(span_lo[m], span_hi[m]):
            for v in range(slot_pts.shape[1]):
                d0, d1, d2 = _offset(slot_pts, s, v, c0, c1, c2)
                x = d0 * rot[m, 0, 0] + d1 * rot[m, 1, 0] + d2 * rot[m, 2, 0]
                y = d0 * rot[m, 0, 1] + d1 * rot[m, 1, 1] + d2 * rot[m, 2, 1]
                z = d0 * rot[m, 0, 2] + d1 * rot[m, 1, 2] + d2 * rot[m, 2, 2]
                # written so that NaN anywhere counts as outside
                if not (abs(x) - h0 <= tol and abs(y) - h1 <= tol and abs(z) - h2 <= tol):
                    return m
    return -1


@njit(cache=True, nogil=True)
def first_sphere_outlier(slot_pts, span_lo, span_hi, center, radius, rel_tol):
    """The first node with a point under it farther from its centre than its radius
    plus ``rel_tol`` times ``radius + |centre|_1``, or -1."""
    for m in range(len(span_lo)):
        c0, c1, c2 = center[m, 0], center[m, 1], center[m, 2]
        r = radius[m]
        reach = r + rel_tol * (r + abs(c0) + abs(c1) + abs(c2))
        if reach == np.inf:  # an unbounded sphere holds every point
            continue
        for s in range(span_lo[m], span_hi[m]):
            for v in range(slot_pts.shape[1]):
                d0, d1, d2 = _offset(slot_pts, s, v, c0, c1, c2)
                # scaled by the largest offset so that squares neither overflow nor
                # underflow at any magnitude
                big = max(abs(d0), abs(d1), abs(d2))
                if big == 0.0:
                    continue
                if not big <= reach:  # also NaN
                    return m
                d0, d1, d2 = d0 / big, d1 / big, d2 / big
                if not np.sqrt(d0 * d0 + d1 * d1 + d2 * d2) * big <= reach:
                    return m
    return -1


@njit(cache=True, nogil=True)
def first_not_rotation(rots, tol):
    """Index of the first of rots (K, 3, 3) whose columns are not orthonormal to
    ``tol`` or whose determinant is not positive (NaN counts as either), or -1."""
    for k in range(len(rots)):
        r = rots[k]
        det = (
            r[0, 0] * (r[1, 1] * r[2, 2] - r[1, 2] * r[2, 1])
            - r[0, 1] * (r[1, 0] * r[2, 2] - r[1, 2] * r[2, 0])
            + r[0, 2] * (r[1, 0] * r[2, 1] - r[1, 1] * r[2, 0])
        )
        if not (ortho_error(r) <= tol and det > 0.0):
            return k
    return -1
