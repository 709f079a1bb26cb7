"""The closed sphere–sphere overlap test, written once: every sphere kernel asks it.

Spheres arrive as the ``Spheres`` NamedTuple (``center (N, D)``, ``radius (N,)``), or as
centre arrays and radii. A negative radius is the empty sphere and overlaps nothing; +inf
is the whole space. The test compares squared distances in float64 and rescales by a power
of two where the squares would overflow or underflow, so the answer does not depend on
the scale of the scene. Touching balls overlap in exact arithmetic on the given floats,
so the comparisons allow their own roundings (:data:`LIN_WIDEN`, :data:`SQ_WIDEN`):
balls apart by less than about 1e-15 of their radius sum may be reported overlapping,
never the reverse.
"""

import math

import numpy as np
from numba import njit

# Where max(d2, s2) of the squared test lies in [_SAFE_LO, inf), squaring neither
# overflowed nor lost anything that can change the comparison; elsewhere it is rescaled.
_SAFE_LO = 2.0**-900
#: A distance that is a sum of correctly rounded differences and its radius are each
#: within an ulp or two of exact: a bound <= r in exact arithmetic is <= r * LIN_WIDEN
#: after rounding.
LIN_WIDEN = 1.0 + 4.0 * 2.0**-53
#: Squared distances formed from rounded differences (a handful of roundings each, about
#: 8 ulps at most together with the radius's square): d2 <= r2 in exact arithmetic
#: is d2 <= r2 * SQ_WIDEN after rounding.
SQ_WIDEN = 1.0 + 16.0 * 2.0**-53


@njit
def ball_overlap(ca, i, ra, cb, j, rb):
    """Closed overlap of the ball (ca[i], ra) and the ball (cb[j], rb).

    With ``s = ra + rb``: False at once if ``|ca[i,k] - cb[j,k]| > s * LIN_WIDEN`` on
    some axis k (in a sweep most candidates leave here); else
    ``sum_k (ca[i,k] - cb[j,k])**2 <= s**2 * SQ_WIDEN`` in float64, summing k upwards
    (the widenings cover the roundings, so touching balls overlap). A negative radius
    is empty (False); an infinite one overlaps every non-empty ball. When the squares
    would overflow or underflow, the same comparison is made on a copy scaled by a power
    of two (exact), so the answer does not depend on the scale of the scene.
    """
    if ra < 0.0 or rb < 0.0:
        return False
    s = ra + rb
    reach = s * LIN_WIDEN
    d2 = 0.0
    for k in range(ca.shape[1]):
        t = abs(ca[i, k] - cb[j, k])
        if t > reach:
            return False
        d2 += t * t
    s2 = s * s
    if _SAFE_LO <= max(d2, s2) < np.inf:
        return d2 <= s2 * SQ_WIDEN
    return _overlap_rescaled(
        _at(ca, i, 0), _at(ca, i, 1), _at(ca, i, 2), ra,
        _at(cb, j, 0), _at(cb, j, 1), _at(cb, j, 2), rb,
    )  # fmt: skip


@njit(inline="always")
def _at(c, i, k):
    """c[i, k], or 0 past the last axis (pads a centre to 3D: no effect on distances)."""
    return c[i, k] if k < c.shape[1] else 0.0


@njit(cache=True, nogil=True)
def _overlap_rescaled(a0, a1, a2, ra, b0, b1, b2, rb):
    """Cold path of ball_overlap: an infinite radius, or squares out of float range.

    Halve everything if a difference or the radius sum overflows, then scale by 2**-e so
    the largest of the differences and the radius sum lies in [0.5, 1). Both steps are
    exact (away from subnormals), so this is the comparison the fast path makes at a
    comfortable scale. It takes scalars, not arrays: a call with array arguments in the
    hot loop slows the sweep even when never taken (benchmarks/README.md).
    """
    if ra == np.inf or rb == np.inf:
        return True
    h = 1.0
    if not max(ra + rb, abs(a0 - b0), abs(a1 - b1), abs(a2 - b2)) < np.inf:
        h = 0.5
    d0 = h * a0 - h * b0
    d1 = h * a1 - h * b1
    d2 = h * a2 - h * b2
    s = h * ra + h * rb
    m = max(s, abs(d0), abs(d1), abs(d2))
    if m == 0.0:
        return True
    e = -math.frexp(m)[1]
    d0 = math.ldexp(d0, e)
    d1 = math.ldexp(d1, e)
    d2 = math.ldexp(d2, e)
    s = math.ldexp(s, e)
    return d0 * d0 + d1 * d1 + d2 * d2 <= s * s * SQ_WIDEN


@njit(inline="always")
def sphere_overlap(a, i, b, j):
    """Closed overlap of sphere a[i] and sphere b[j] (two ``Spheres``); empty: never.

    The per-pair predicate for traversals (BVH nodes, sweeps).
    """
    return ball_overlap(a.center, i, a.radius[i], b.center, j, b.radius[j])
