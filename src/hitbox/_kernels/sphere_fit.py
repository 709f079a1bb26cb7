"""Bounding spheres of point groups: centroid, Ritter 1990 or Welzl 1991, then enclosed.

Each group is moved to its box centre and scaled by a power of two into (-1, 1)**D, where
the algorithms cannot overflow; the last pass of every fit grows the radius until the
points pass :func:`hitbox._kernels.sphere_overlap.ball_overlap` with a margin, so they
are inside in exact arithmetic too, not only by the rounded test.
"""

import math

import numpy as np
from numba import njit

from hitbox._kernels.sphere_overlap import ball_overlap
from hitbox._kernels.vec3 import dot, planes_meet

# A fitted point must pass the test against a radius shrunk by 2**-46 (and by 2**-1070,
# for subnormal radii): the rounded test errs by at most (D + 3) ulps, far less, so such a
# point is inside the exact sphere.
_SHRINK = 1.0 - 2.0**-46
_TINY = 2.0**-1070
# Welzl's "is this point outside the current ball" test has this relative slack on r**2,
# so cospherical points (regular polygons, cube corners) do not restart the inner loops on
# a rounding error; the closing enclosure pass absorbs the slack (radius off by < 1e-12).
_WELZL_SLACK = 1.0 + 2.0**-40
CENTROID = 0
RITTER = 1
WELZL = 2


# -- enclosing: the last pass of every fit ---------------------------------------------


@njit(cache=True, nogil=True)
def _distance(c, i, p, j):
    """|c[i] - p[j]| without overflow or underflow (scaled by the largest difference)."""
    dim = c.shape[1]
    h = 1.0
    for k in range(dim):
        if not abs(c[i, k] - p[j, k]) < np.inf:
            h = 0.5
    m = 0.0
    for k in range(dim):
        m = max(m, abs(h * c[i, k] - h * p[j, k]))
    if m == 0.0:
        return 0.0
    acc = 0.0
    for k in range(dim):
        t = (h * c[i, k] - h * p[j, k]) / m
        acc += t * t
    return math.sqrt(acc) * m / h


@njit(cache=True, nogil=True)
def _grow(r):
    """The next radius to try: a relative step of 2**-50, at least one subnormal."""
    return max(r + r * 2.0**-50, r + 5e-324)


@njit(cache=True, nogil=True)
def _shrunk(r):
    return max(r * _SHRINK - _TINY, 0.0)


@njit(cache=True, nogil=True)
def _enclose_group(points, center, g, r):
    """Grow r until every point passes ball_overlap against (center[g], _shrunk(r)).

    Scans the points cyclically until n in a row pass with the same r, so the result
    holds all of them at once (growing for one point never loses another).
    """
    n = len(points)
    p = 0
    passed = 0
    first_try = True
    while passed < n:
        if ball_overlap(center, g, _shrunk(r), points, p, 0.0):
            passed += 1
            p = p + 1 if p + 1 < n else 0
            first_try = True
        else:
            r = max(r, _distance(center, g, points, p)) if first_try else _grow(r)
            first_try = False
            passed = 0
    return r


@njit(cache=True, nogil=True)
def enclose(groups, center, radius):
    """Grow radius[g] in place until sphere g holds every point of groups[g] (P, K, D).

    Empty (negative radius) and infinite spheres are left as they are.
    """
    for g in range(len(groups)):
        if 0.0 <= radius[g] < np.inf:
            radius[g] = _enclose_group(groups[g], center, g, radius[g])


# -- fitting ---------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def fit(groups, method, center, radius):
    """One sphere per point group ``(P, K, D)`` into center (P, D), radius (P,).

    ``method`` is CENTROID, RITTER or WELZL. Each group is first moved to its box centre
    and scaled by a power of two into (-1, 1)**D, where the algorithms cannot overflow,
    then mapped back; a closing pass grows the radius until every point is inside (K = 0:
    the empty sphere, centre 0, radius -inf).
    """
    n_groups, n_pts, dim = groups.shape
    q = np.empty((n_pts, dim))
    mid = np.empty(dim)
    c = np.empty(dim)
    c2 = np.empty(dim)
    order = np.empty(n_pts, np.intp)
    qs = np.empty((n_pts, dim))
    for g in range(n_groups):
        if n_pts == 0:
            for k in range(dim):
                center[g, k] = 0.0
            radius[g] = -np.inf
            continue
        e, halfdiag = _normalize(groups[g], mid, q)
        if halfdiag == 0.0:  # every point equal (to rounding): a ball of radius 0
            for k in range(dim):
                center[g, k] = mid[k]
            r = 0.0
        else:
            if method == CENTROID:
                r = _centroid(q, c)
            elif method == RITTER:
                r = _ritter(q, c)
                # Ritter's ball can exceed the centroid one (equilateral triangle)
                r2 = _centroid(q, c2)
                if r2 < r:
                    r = r2
                    _copy(c2, c)
            else:
                r = _welzl(q, order, qs, c, halfdiag)
            for k in range(dim):
                center[g, k] = mid[k] + math.ldexp(c[k], e)
            r = math.ldexp(r, e)
        radius[g] = _enclose_group(groups[g], center, g, r)


@njit(inline="always")
def _axis_range(pts, k):
    """(least, greatest) coordinate k of the (n >= 1, D) points."""
    lo = pts[0, k]
    hi = pts[0, k]
    for p in range(1, len(pts)):
        lo = min(lo, pts[p, k])
        hi = max(hi, pts[p, k])
    return lo, hi


@njit(cache=True, nogil=True)
def _normalize(pts, mid, q):
    """q = (pts - mid) * 2**-e with mid the box centre: q lies in (-1, 1)**D.

    Returns (e, half diagonal of q's box); that is 0 when all points coincide.
    Halving before subtracting keeps huge coordinates from overflowing.
    """
    n, dim = pts.shape
    h = 0.0
    for k in range(dim):
        lo, hi = _axis_range(pts, k)
        # lo when equal: halving an odd subnormal would move the centre off the point
        mid[k] = lo if lo == hi else 0.5 * lo + 0.5 * hi
        h = max(h, 0.5 * hi - 0.5 * lo)
    if h == 0.0:
        return 0, 0.0
    e = math.frexp(h)[1]
    for p in range(n):
        for k in range(dim):
            q[p, k] = math.ldexp(0.5 * pts[p, k] - 0.5 * mid[k], 1 - e)
    d2 = 0.0
    for k in range(dim):
        lo, hi = _axis_range(q, k)
        d2 += (0.5 * (hi - lo)) ** 2
    return e, math.sqrt(d2)


@njit(inline="always")
def _dist2(q, p, c):
    acc = 0.0
    for k in range(q.shape[1]):
        t = q[p, k] - c[k]
        acc += t * t
    return acc


@njit(inline="always")
def _copy(src, dst):
    """dst[:] = src as a loop: slice assignment costs seconds of compile time per use."""
    for k in range(len(src)):
        dst[k] = src[k]


@njit(cache=True, nogil=True)
def _centroid(q, c):
    """003's centre, the mean of the points; radius the largest distance to them (not
    003's distance to the max corner, which can leave points outside)."""
    n, dim = q.shape
    for k in range(dim):
        acc = 0.0
        for p in range(n):
            acc += q[p, k]
        c[k] = acc / n
    r2 = 0.0
    for p in range(n):
        r2 = max(r2, _dist2(q, p, c))
    return math.sqrt(r2)


@njit(cache=True, nogil=True)
def _ritter(q, c):
    """Ritter, "An Efficient Bounding Sphere", Graphics Gems (1990).

    Pass 1: of the D pairs of points with the smallest and largest coordinate on an axis,
    the pair farthest apart is the first diameter. Pass 2: a point outside grows the ball
    just enough to hold it and the old ball. A third pass repeats pass 2, so rounding in
    the moving centre cannot leave an early point out.
    """
    n, dim = q.shape
    best = -1.0
    pa = 0
    pb = 0
    for k in range(dim):
        lo = 0
        hi = 0
        for p in range(1, n):
            if q[p, k] < q[lo, k]:
                lo = p
            if q[p, k] > q[hi, k]:
                hi = p
        span = 0.0
        for kk in range(dim):
            t = q[hi, kk] - q[lo, kk]
            span += t * t
        if span > best:
            best = span
            pa = lo
            pb = hi
    for k in range(dim):
        c[k] = 0.5 * (q[pa, k] + q[pb, k])
    r = 0.5 * math.sqrt(best)
    for _ in range(2):
        for p in range(n):
            d2 = _dist2(q, p, c)
            if d2 > r * r:
                d = math.sqrt(d2)
                r_new = 0.5 * (r + d)
                f = (r_new - r) / d
                for k in range(dim):
                    c[k] += f * (q[p, k] - c[k])
                r = r_new
    return r


@njit(cache=True, nogil=True)
def _shuffle(order):
    """A fixed pseudo-random permutation (xorshift64, Fisher-Yates): Welzl's expected
    linear time without making the result depend on a global random state."""
    n = len(order)
    for p in range(n):
        order[p] = p
    state = np.uint64(0x9E3779B97F4A7C15)
    for p in range(n - 1, 0, -1):
        state ^= state << np.uint64(13)
        state ^= state >> np.uint64(7)
        state ^= state << np.uint64(17)
        j = np.intp(state % np.uint64(p + 1))
        order[p], order[j] = order[j], order[p]


@njit(inline="always")
def _outside(q, p, c, r):
    return _dist2(q, p, c) > r * r * _WELZL_SLACK


@njit(cache=True, nogil=True)
def _welzl(q, order, qs, c, limit):
    """Smallest enclosing ball of q (K, D): Welzl (1991), iterative.

    The recursion of Welzl's algorithm is at most D + 1 deep (one level per boundary
    point): the MiniDisc form (de Berg et al., ch. 4.7) is D + 1 nested loops over a
    shuffled order. They are run here as one loop over an explicit stack of loop
    positions, ``pos[m]`` in ``range(end[m])`` at level m (m boundary points in ``bnd``),
    so no call stack grows with K and there is one call site each for the two helpers.
    The points are copied into ``qs`` in shuffled order, so every pass reads memory
    front to back rather than through ``order``.
    ``limit`` is the half diagonal of q's box, which no intermediate ball can exceed in
    exact arithmetic; a larger one comes from near-degenerate boundary points (collinear,
    coplanar) and is replaced by the smallest ball of those points.
    """
    n, dim = q.shape
    limit = limit * (1.0 + 1e-6)
    _shuffle(order)
    for p in range(n):
        for k in range(dim):
            qs[p, k] = q[order[p], k]
    bnd = np.empty(4, np.intp)
    pos = np.empty(4, np.intp)
    end = np.empty(4, np.intp)
    for k in range(dim):
        c[k] = qs[0, k]
    r = 0.0
    m = 0  # level: how many boundary points are fixed
    pos[0] = 1
    end[0] = n
    while True:
        p = pos[m]
        if p >= end[m]:  # this level's loop is done: back to the enclosing one
            if m == 0:
                return r
            m -= 1
            pos[m] += 1
            continue
        if not _outside(qs, p, c, r):
            pos[m] = p + 1
            continue
        bnd[m] = p
        r = _ball(qs, bnd, m + 1, c, limit)
        if m < dim:  # the ball is not fixed yet: recheck the earlier points with p on it
            end[m + 1] = p
            pos[m + 1] = 0
            m += 1
        else:
            pos[m] = p + 1


@njit(cache=True, nogil=True)
def _reach(q, bnd, m, c):
    """Largest distance from c to the m boundary points: the radius holding them all."""
    r2 = 0.0
    for t in range(m):
        r2 = max(r2, _dist2(q, bnd[t], c))
    return math.sqrt(r2)


@njit(cache=True, nogil=True)
def _ball(q, bnd, m, c, limit):
    """Smallest ball with the m boundary points q[bnd[:m]] on its surface, into c.

    1 point: itself; 2: the diametral ball; 3: the circumcircle in their plane; 4 (3D):
    the circumsphere. If that ball does not exist in floating point (non-finite, or larger
    than ``limit``), the smallest ball holding the m points is used instead.
    """
    dim = q.shape[1]
    if m == 1:
        for k in range(dim):
            c[k] = q[bnd[0], k]
        return 0.0
    if m == 2:
        for k in range(dim):
            c[k] = 0.5 * (q[bnd[0], k] + q[bnd[1], k])
        return _reach(q, bnd, 2, c)
    if m == 3:
        ok = _circumcenter3(q, bnd[0], bnd[1], bnd[2], c)
    else:
        ok = _circumcenter4(q, bnd[0], bnd[1], bnd[2], bnd[3], c)
    if ok:
        r = _reach(q, bnd, m, c)
        if r <= limit:
            return r
    return _ball_of_few(q, bnd, m, c, limit)


@njit(cache=True, nogil=True)
def _circumcenter3(q, i0, i1, i2, c):
    """Centre of the circle through three points (any D): c = q0 + x a + y b, from
    2 (x a + y b) . a = a . a and likewise for b. False if they are collinear."""
    dim = q.shape[1]
    aa = 0.0
    bb = 0.0
    ab = 0.0
    for k in range(dim):
        a = q[i1, k] - q[i0, k]
        b = q[i2, k] - q[i0, k]
        aa += a * a
        bb += b * b
        ab += a * b
    den = 2.0 * (aa * bb - ab * ab)
    if not den > 0.0:
        return False
    x = bb * (aa - ab) / den
    y = aa * (bb - ab) / den
    for k in range(dim):
        c[k] = q[i0, k] + x * (q[i1, k] - q[i0, k]) + y * (q[i2, k] - q[i0, k])
        if not abs(c[k]) < np.inf:
            return False
    return True


@njit(cache=True, nogil=True)
def _circumcenter4(q, i0, i1, i2, i3, c):
    """Centre of the sphere through four points in 3D: with a, b, d relative to q0, the
    point x with 2 a . x = |a|^2 and likewise for b and d. False if coplanar."""
    a = (q[i1, 0] - q[i0, 0], q[i1, 1] - q[i0, 1], q[i1, 2] - q[i0, 2])
    b = (q[i2, 0] - q[i0, 0], q[i2, 1] - q[i0, 1], q[i2, 2] - q[i0, 2])
    d = (q[i3, 0] - q[i0, 0], q[i3, 1] - q[i0, 1], q[i3, 2] - q[i0, 2])
    x, y, z, det = planes_meet(a, b, d, 0.5 * dot(a, a), 0.5 * dot(b, b), 0.5 * dot(d, d))
    if det == 0.0:
        return False
    c[0] = q[i0, 0] + x
    c[1] = q[i0, 1] + y
    c[2] = q[i0, 2] + z
    return abs(c[0]) < np.inf and abs(c[1]) < np.inf and abs(c[2]) < np.inf


@njit(cache=True, nogil=True)
def _ball_of_few(q, bnd, m, c, limit):
    """Smallest ball holding m <= 4 points, by trying every candidate centre.

    The smallest enclosing ball of a point set is the circumball of some subset, so the
    candidates are the midpoints of pairs and the circumcentres of triples (and of all
    four); each candidate's radius is its largest distance to the m points. Used only when
    Welzl's boundary points are near-degenerate.
    """
    dim = q.shape[1]
    trial = np.empty(dim)
    best = np.inf
    for s in range(m):
        for t in range(s + 1, m):
            for k in range(dim):
                trial[k] = 0.5 * (q[bnd[s], k] + q[bnd[t], k])
            r = _reach(q, bnd, m, trial)
            if r < best:
                best = r
                _copy(trial, c)
    if m >= 3 and dim >= 2:
        for s in range(m):
            for t in range(s + 1, m):
                for u in range(t + 1, m):
                    if _circumcenter3(q, bnd[s], bnd[t], bnd[u], trial):
                        r = _reach(q, bnd, m, trial)
                        if r < best and r <= limit:
                            best = r
                            _copy(trial, c)
    if m == 4 and dim == 3:
        if _circumcenter4(q, bnd[0], bnd[1], bnd[2], bnd[3], trial):
            r = _reach(q, bnd, m, trial)
            if r < best and r <= limit:
                best = r
                _copy(trial, c)
    return best
