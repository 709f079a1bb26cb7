"""Sphere kernels behind :mod:`hitbox.sphere`: overlap, containment, sort-and-sweep pairs.

Spheres arrive as the ``Spheres`` NamedTuple (``center (N, D)``, ``radius (N,)``); a
negative radius is empty. Every kernel here asks the one overlap test of
``sphere_overlap``; fitting lives in ``sphere_fit``.
"""

import numpy as np
from numba import njit

from hitbox._kernels.brute import pairs_where
from hitbox._kernels.bv import count
from hitbox._kernels.sphere_overlap import ball_overlap, sphere_overlap

_POINT_RADIUS = np.zeros(1)  # a point is a ball of radius 0


@njit(cache=True, nogil=True)
def overlap(a, b, out):
    """Elementwise overlap; a or b may hold a single sphere that is tested against all."""
    _balls_meet(a.center, a.radius, b.center, b.radius, out)


@njit(cache=True, nogil=True)
def contains_points(spheres, points, out):
    """Elementwise closed containment (a point is a ball of radius 0); broadcasts."""
    _balls_meet(spheres.center, spheres.radius, points, _POINT_RADIUS, out)


@njit(cache=True, nogil=True)
def _balls_meet(ca, ra, cb, rb, out):
    """``out[n]``: whether ball n of (ca, ra) meets ball n of (cb, rb). A set of one ball
    is tested against all, and a single radius in rb serves every centre in cb."""
    sa = 1 if len(ca) > 1 else 0
    sb = 1 if len(cb) > 1 else 0
    sr = 1 if len(rb) > 1 else 0
    for n in range(len(out)):
        out[n] = ball_overlap(ca, n * sa, ra[n * sa], cb, n * sb, rb[n * sr])


# -- pairs: sort-and-sweep on one axis -------------------------------------------------


@njit(cache=True, nogil=True)
def _sweep(a, b, lo_a, hi_a, lo_b, id_a, id_b, flip, out, n):
    """Pairs whose first-starting member is in a: lo_a <= lo_b <= hi_a on the sweep axis.

    Both sets arrive sorted by lo (so the inner loop reads memory in order); ``id_*`` maps
    a sorted position back to the caller's index. Same scheme as ``slabs._sweep``: with
    ``flip`` the roles swap and b must start strictly first, so each pair is found once.
    Writes into out[:, n:] while it has room (fill pass); always returns the new count.
    """
    p = 0
    nb = len(lo_b)
    cap = out.shape[1]
    for i in range(len(lo_a)):
        lo = lo_a[i]
        hi = hi_a[i]
        if lo > hi:
            break  # empty: overlaps nothing, and sorted last (lo = +inf)
        if flip:
            while p < nb and lo_b[p] <= lo:
                p += 1
        else:
            while p < nb and lo_b[p] < lo:
                p += 1
        q = p
        while q < nb and lo_b[q] <= hi:
            if sphere_overlap(a, i, b, q):
                if n < cap:
                    if flip:
                        out[0, n] = id_b[q]
                        out[1, n] = id_a[i]
                    else:
                        out[0, n] = id_a[i]
                        out[1, n] = id_b[q]
                n += 1
            q += 1
    return n


@njit(cache=True, nogil=True)
def overlap_pairs(a, b, lo_a, hi_a, lo_b, hi_b, id_a, id_b):
    """Every (i, j) with a[i] overlapping b[j], by sort-and-sweep on one axis.

    a and b are sorted by ``lo``, each sphere's start on the sweep axis; ``lo``/``hi`` are
    widened outwards so the rounded test can never pass a pair whose intervals look
    disjoint. ``id_*`` give the caller's index of each sorted sphere. Count, then fill:
    the same sweep runs twice, the second time into an array of exactly the right size.
    """
    none = np.empty((2, 0), np.intp)
    n = _sweep(a, b, lo_a, hi_a, lo_b, id_a, id_b, False, none, 0)
    n = _sweep(b, a, lo_b, hi_b, lo_a, id_b, id_a, True, none, n)
    out = np.empty((2, n), np.intp)
    m = _sweep(a, b, lo_a, hi_a, lo_b, id_a, id_b, False, out, 0)
    _sweep(b, a, lo_b, hi_b, lo_a, id_b, id_a, True, out, m)
    return out


_sphere_pairs = pairs_where(sphere_overlap, count)


@njit(cache=True, nogil=True)
def overlap_pairs_brute(a, b):
    """Twin of overlap_pairs: every pair tested, count then fill, no sorting."""
    return _sphere_pairs(a, b, False)
