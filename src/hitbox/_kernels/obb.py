"""Oriented boxes: separating-axis overlap, box-frame coordinates and fitting.

An OBBs set holds ``center (N, 3)``, ``half (N, 3)`` and ``rot (N, 3, 3)``; column k of
``rot[i]`` is box i's unit axis k. A box with any half extent below zero is empty: it
contains nothing and overlaps nothing.
"""

import numpy as np
from numba import njit

from hitbox._kernels.brute import pairs_where
from hitbox._kernels.rigid import det3, ortho_error

# Relative slack of the separating-axis test. An axis L separates only when the gap
# exceeds SAT_EPS * (|t|_1 + sum(half_a) + sum(half_b)). The rounding of R, t and the
# projections stays below 30 u (u = 2**-53, about 3.3e-15) of that sum for rotations
# orthonormal to rounding, so 1e-12 leaves a 300x margin. Rotations further from
# orthonormal than ORTHO_TOL are made orthonormal, their boxes enlarged, by the caller.
SAT_EPS = 1e-12
ORTHO_TOL = 1e-13


# -- separating-axis test -------------------------------------------------------------


@njit
def sat_overlap(ca, ra, ha, cb, rb, hb):
    """Closed, conservative overlap of two oriented boxes: 15-axis separating-axis test.

    ``ca, cb (3,)`` centres, ``ra, rb (3, 3)`` rotations (columns are the axes), ``ha, hb
    (3,)`` half extents. Everything is expressed in a's frame (see :func:`sat_apart`):
    ``R[i, j] = a_i . b_j`` and ``t = ra.T @ (cb - ca)``.

    An axis separates only when ``|t . L| > r_a + r_b + tol`` with
    ``tol = SAT_EPS * (|t|_1 + sum(ha) + sum(hb))``. The slack covers rounding, so
    touching or overlapping boxes are never called disjoint, and a zero-length axis
    (parallel edges, computed as a few-ulp vector) can never separate. The price is a
    false "overlap" for gaps below ``tol / |L|``. Rotations must be orthonormal to
    about ORTHO_TOL (either handedness).
    """
    ha0, ha1, ha2 = ha[0], ha[1], ha[2]
    hb0, hb1, hb2 = hb[0], hb[1], hb[2]
    if ha0 < 0.0 or ha1 < 0.0 or ha2 < 0.0 or hb0 < 0.0 or hb1 < 0.0 or hb2 < 0.0:
        return False  # an empty box overlaps nothing
    d0 = cb[0] - ca[0]
    d1 = cb[1] - ca[1]
    d2 = cb[2] - ca[2]
    t0 = ra[0, 0] * d0 + ra[1, 0] * d1 + ra[2, 0] * d2
    t1 = ra[0, 1] * d0 + ra[1, 1] * d1 + ra[2, 1] * d2
    t2 = ra[0, 2] * d0 + ra[1, 2] * d1 + ra[2, 2] * d2
    tol = SAT_EPS * (abs(t0) + abs(t1) + abs(t2) + ha0 + ha1 + ha2 + hb0 + hb1 + hb2)
    r = _rel_rot(ra, rb)
    return not sat_apart((t0, t1, t2), r, (ha0, ha1, ha2), (hb0, hb1, hb2), 0.0, 1.0, tol)


@njit(cache=True, nogil=True)
def _col_dot(ra, i, rb, j):
    """Column i of ra dotted with column j of rb: ``a_i . b_j``."""
    return ra[0, i] * rb[0, j] + ra[1, i] * rb[1, j] + ra[2, i] * rb[2, j]


@njit(cache=True, nogil=True)
def _rel_rot(ra, rb):
    """``ra.T @ rb`` as three row 3-tuples, the R of :func:`sat_apart`."""
    return (
        (_col_dot(ra, 0, rb, 0), _col_dot(ra, 0, rb, 1), _col_dot(ra, 0, rb, 2)),
        (_col_dot(ra, 1, rb, 0), _col_dot(ra, 1, rb, 1), _col_dot(ra, 1, rb, 2)),
        (_col_dot(ra, 2, rb, 0), _col_dot(ra, 2, rb, 1), _col_dot(ra, 2, rb, 2)),
    )


@njit(cache=True, nogil=True)
def sat_apart(t, r, ha, hb, eps, grow, slack):
    """Whether one of the 15 axes of the separating-axis test parts box a from box b.

    Everything in a's frame, as tuples: ``t`` b's centre less a's, ``r`` the rows of
    ``R[i, j] = a_i . b_j``, ``ha``, ``hb`` the half extents. Axis L separates when
    ``|t . L| > (r_a + r_b) * grow + slack``, the radii r_a, r_b taken with ``|R| + eps``
    so that (near-)parallel edges, whose cross axis is (nearly) zero, cannot separate.
    Face axes are unit vectors; the nine edge axes a_i x b_j are left unnormalised and
    written through R by the cofactor identities. A NaN never separates.
    From Real-Time Collision Detection (Ericson 2005) §4.4.1 p101, after Gottschalk 1996.

    Each test is written once, for axis 0: cycling a's axes (t, ha and the rows of R)
    or b's (hb and the columns of R) one step brings the next axis there. Every index
    stays a constant, which keeps the tuples in registers (indexed by a loop counter,
    they cost about 40 % more).
    """
    q = (_abs_eps(r[0], eps), _abs_eps(r[1], eps), _abs_eps(r[2], eps))
    for _ in range(3):  # a's face normals
        rb = hb[0] * q[0][0] + hb[1] * q[0][1] + hb[2] * q[0][2]
        if abs(t[0]) > (ha[0] + rb) * grow + slack:
            return True
        t, ha, r, q = _cycle(t), _cycle(ha), _cycle(r), _cycle(q)
    for _ in range(3):  # b's face normals
        tl = t[0] * r[0][0] + t[1] * r[1][0] + t[2] * r[2][0]
        ra = ha[0] * q[0][0] + ha[1] * q[1][0] + ha[2] * q[2][0]
        if abs(tl) > (ra + hb[0]) * grow + slack:
            return True
        hb, r, q = _cycle(hb), _cycle_cols(r), _cycle_cols(q)
    # a_i x b_j, with (i, i1, i2) and (j, j1, j2) cyclic, separates if
    # |t_i2 R_i1j - t_i1 R_i2j| > ha_i1 |R_i2j| + ha_i2 |R_i1j| + hb_j1 |R_ij2| + hb_j2 |R_ij1|
    for _ in range(3):
        for _ in range(3):
            tl = t[2] * r[1][0] - t[1] * r[2][0]
            ra = ha[1] * q[2][0] + ha[2] * q[1][0]
            rb = hb[1] * q[0][2] + hb[2] * q[0][1]
            if abs(tl) > (ra + rb) * grow + slack:
                return True
            hb, r, q = _cycle(hb), _cycle_cols(r), _cycle_cols(q)
        t, ha, r, q = _cycle(t), _cycle(ha), _cycle(r), _cycle(q)
    return False


@njit(cache=True, nogil=True)
def _abs_eps(row, eps):
    return abs(row[0]) + eps, abs(row[1]) + eps, abs(row[2]) + eps


@njit(cache=True, nogil=True)
def _cycle(x):
    """A 3-tuple cycled one step: (x1, x2, x0)."""
    return x[1], x[2], x[0]


@njit(cache=True, nogil=True)
def _cycle_cols(m):
    """The columns of a matrix (row 3-tuples) cycled one step."""
    return _cycle(m[0]), _cycle(m[1]), _cycle(m[2])


@njit(inline="always")
def obb_overlap(a, i, b, j):
    """Closed, conservative overlap of box ``a[i]`` and box ``b[j]`` (two OBBs sets)."""
    return sat_overlap(a.center[i], a.rot[i], a.half[i], b.center[j], b.rot[j], b.half[j])


@njit(cache=True, nogil=True)
def overlap(a, b, out):
    """Elementwise overlap; a or b may hold a single box that is tested against all."""
    sa = 1 if len(a.center) > 1 else 0
    sb = 1 if len(b.center) > 1 else 0
    for i in range(len(out)):
        out[i] = obb_overlap(a, i * sa, b, i * sb)


@njit(cache=True, nogil=True)
def overlap_pairs(a, b, candidates):
    """Keep the candidate pairs ``(2, n)`` whose boxes overlap, in their given order.

    Count, then fill: pass 1 runs the test once per candidate and marks it, pass 2 copies
    the marked pairs into an array of exactly the right size.
    """
    n_cand = candidates.shape[1]
    keep = np.empty(n_cand, np.bool_)
    n = 0
    for p in range(n_cand):
        keep[p] = obb_overlap(a, candidates[0, p], b, candidates[1, p])
        n += keep[p]
    out = np.empty((2, n), np.intp)
    n = 0
    for p in range(n_cand):
        if keep[p]:
            out[0, n] = candidates[0, p]
            out[1, n] = candidates[1, p]
            n += 1
    return out


@njit(inline="always")
def _n_boxes(a):
    return len(a.center)  # bv.count, which imports this module


_obb_pairs = pairs_where(obb_overlap, _n_boxes)


@njit(cache=True, nogil=True)
def overlap_pairs_brute(a, b):
    """Twin of overlap_pairs: every pair tested, count then fill, no prefilter."""
    return _obb_pairs(a, b, False)


# -- rotations and box-frame coordinates ----------------------------------------------


@njit(cache=True, nogil=True)
def rot_error(rot, out):
    """``out[n] = max |rot[n].T @ rot[n] - I|``: how far rot n is from orthonormal."""
    for n in range(len(rot)):
        out[n] = ortho_error(rot[n])


@njit(inline="always")
def frame_coords(center, rot, i, p0, p1, p2):
    """Point ``p`` in box i's frame: ``rot[i].T @ (p - center[i])``.

    The one place this product is written: fitting sets half extents from it and
    contains_points tests with it, so a fitted box contains its points bit for bit.
    """
    d0 = p0 - center[i, 0]
    d1 = p1 - center[i, 1]
    d2 = p2 - center[i, 2]
    u0 = rot[i, 0, 0] * d0 + rot[i, 1, 0] * d1 + rot[i, 2, 0] * d2
    u1 = rot[i, 0, 1] * d0 + rot[i, 1, 1] * d1 + rot[i, 2, 1] * d2
    u2 = rot[i, 0, 2] * d0 + rot[i, 1, 2] * d1 + rot[i, 2, 2] * d2
    return u0, u1, u2


@njit(cache=True, nogil=True)
def contains_points(obbs, points, out):
    """Elementwise closed containment ``|rot.T @ (p - c)| <= half`` per axis; broadcasts a
    single box or a single point. False for empty boxes (half < 0)."""
    sb = 1 if len(obbs.center) > 1 else 0
    sp = 1 if len(points) > 1 else 0
    half = obbs.half
    for n in range(len(out)):
        i = n * sb
        k = n * sp
        u0, u1, u2 = frame_coords(
            obbs.center, obbs.rot, i, points[k, 0], points[k, 1], points[k, 2]
        )
        out[n] = abs(u0) <= half[i, 0] and abs(u1) <= half[i, 1] and abs(u2) <= half[i, 2]


# -- fitting --------------------------------------------------------------------------


@njit(inline="always")
def _set_halves(pts, center, rot, half, g):
    """half[g] = the largest |frame coordinate| of the points, as contains_points
    computes them, so every point tests inside bit for bit."""
    h0 = h1 = h2 = 0.0
    for p in range(len(pts)):
        u0, u1, u2 = frame_coords(center, rot, g, pts[p, 0], pts[p, 1], pts[p, 2])
        h0 = max(h0, abs(u0))
        h1 = max(h1, abs(u1))
        h2 = max(h2, abs(u2))
    half[g, 0] = h0
    half[g, 1] = h1
    half[g, 2] = h2


@njit(cache=True, nogil=True)
def frame_halves(groups, center, rot, half):
    """Half extents of each box for its group's points, whatever scale the axes were
    fitted at (see :func:`_set_halves`)."""
    for g in range(groups.shape[0]):
        if groups.shape[1] > 0:
            _set_halves(groups[g], center, rot, half, g)


@njit(cache=True, nogil=True)
def fit(groups, hull, center, half, rot):
    """One box per point group ``groups (P, K, 3)``; writes center, half, rot ``[P]``.

    Axes from the covariance of the points (PCA); with ``hull`` they are then refined by
    minimum-area rectangles (see _refine) and the AABB axes are tried too, keeping the
    smallest volume. A group with K = 0 gives the empty box (half = -inf, rot = I).
    """
    n_groups, k_pts = groups.shape[0], groups.shape[1]
    mu = np.empty(3)
    cov = np.empty((3, 3))
    basis = np.empty((3, 3))
    work = np.empty((3, 3))
    lo = np.empty(3)
    hi = np.empty(3)
    xs = np.empty(k_pts)
    ys = np.empty(k_pts)
    chain = np.empty(2 * k_pts + 1, np.intp)
    for g in range(n_groups):
        if k_pts == 0:
            center[g] = 0.0
            half[g] = -np.inf
            rot[g] = np.eye(3)
            continue
        pts = groups[g]
        _mean_cov(pts, mu, cov)
        _eigh3(cov, basis, work)
        if hull:
            _refine(pts, mu, basis, work, lo, hi, xs, ys, chain)
        _finish(pts, mu, basis, lo, hi, center, half, rot, g)


@njit(inline="always")
def _mean_cov(pts, mu, cov):
    """Mean and population covariance of the points (seed 003: 1/(3n), 3n vertices)."""
    k_pts = len(pts)
    for m in range(3):
        s = 0.0
        for p in range(k_pts):
            s += pts[p, m]
        mu[m] = s / k_pts
    for m in range(3):
        for q in range(m, 3):
            s = 0.0
            for p in range(k_pts):
                s += (pts[p, m] - mu[m]) * (pts[p, q] - mu[q])
            cov[m, q] = s / k_pts
            cov[q, m] = cov[m, q]


@njit(cache=True, nogil=True)
def _eigh3(cov, vecs, a):
    """Eigenvectors of a symmetric 3x3 matrix into the columns of ``vecs``, by decreasing
    eigenvalue, each signed so its largest component is positive, then the last one
    flipped if needed so that det = +1. ``a`` is scratch.

    Cyclic Jacobi rotations (Numerical Recipes 3rd ed. §11.1): orthonormal to rounding
    even for repeated or zero eigenvalues; a zero matrix gives the identity.
    """
    a[:] = cov
    vecs[:] = 0.0
    for m in range(3):
        vecs[m, m] = 1.0
    for _sweep in range(50):
        off = a[0, 1] * a[0, 1] + a[0, 2] * a[0, 2] + a[1, 2] * a[1, 2]
        diag = a[0, 0] * a[0, 0] + a[1, 1] * a[1, 1] + a[2, 2] * a[2, 2]
        if off <= 1e-36 * diag or off == 0.0:
            break
        for p, q in ((0, 1), (0, 2), (1, 2)):
            apq = a[p, q]
            if apq == 0.0:
                continue
            theta = (a[q, q] - a[p, p]) / (2.0 * apq)
            if abs(theta) > 1e150:  # theta**2 would overflow; t ~ 1 / (2 theta)
                t = 0.5 / theta
            else:
                t = 1.0 / (abs(theta) + np.sqrt(theta * theta + 1.0))
                if theta < 0.0:
                    t = -t
            c = 1.0 / np.sqrt(t * t + 1.0)
            s = t * c
            for r in range(3):  # a <- a J  (columns p, q)
                arp, arq = a[r, p], a[r, q]
                a[r, p] = c * arp - s * arq
                a[r, q] = s * arp + c * arq
            for r in range(3):  # a <- J.T a  (rows p, q)
                apr, aqr = a[p, r], a[q, r]
                a[p, r] = c * apr - s * aqr
                a[q, r] = s * apr + c * aqr
            a[p, q] = 0.0
            a[q, p] = 0.0
            for r in range(3):  # vecs <- vecs J
                vrp, vrq = vecs[r, p], vecs[r, q]
                vecs[r, p] = c * vrp - s * vrq
                vecs[r, q] = s * vrp + c * vrq
    # selection sort of the columns by decreasing eigenvalue
    w = np.array([a[0, 0], a[1, 1], a[2, 2]])
    for m in range(2):
        best = m
        for q in range(m + 1, 3):
            if w[q] > w[best]:
                best = q
        if best != m:
            w[m], w[best] = w[best], w[m]
            for r in range(3):
                vecs[r, m], vecs[r, best] = vecs[r, best], vecs[r, m]
    for m in range(3):
        big = 0
        for r in range(1, 3):
            if abs(vecs[r, m]) > abs(vecs[big, m]):
                big = r
        if vecs[big, m] < 0.0:
            for r in range(3):
                vecs[r, m] = -vecs[r, m]
    if det3(vecs) < 0.0:
        for r in range(3):
            vecs[r, 2] = -vecs[r, 2]


@njit(inline="always")
def _extents(pts, mu, basis, lo, hi):
    """Min and max of ``(p - mu) . basis[:, k]`` over the points, per axis k."""
    for k in range(3):
        lo[k] = np.inf
        hi[k] = -np.inf
    for p in range(len(pts)):
        d0 = pts[p, 0] - mu[0]
        d1 = pts[p, 1] - mu[1]
        d2 = pts[p, 2] - mu[2]
        for k in range(3):
            s = basis[0, k] * d0 + basis[1, k] * d1 + basis[2, k] * d2
            lo[k] = min(lo[k], s)
            hi[k] = max(hi[k], s)


@njit(inline="always")
def _measure(pts, mu, basis, lo, hi):
    """(volume, half the surface area) of the box with these axes around the points."""
    _extents(pts, mu, basis, lo, hi)
    s0, s1, s2 = hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]
    return s0 * s1 * s2, s0 * s1 + s1 * s2 + s2 * s0


@njit(cache=True, nogil=True)
def _refine(pts, mu, basis, work, lo, hi, xs, ys, chain):
    """Shrink the box: replace ``basis`` by the smallest-volume set of axes found.

    Candidates: the given (PCA) axes, the AABB axes, and, around each axis of either,
    the rotation of the other two that gives the minimum-area rectangle of the points
    projected across that axis (an exact 2D problem, solved on the projected convex
    hull). Then the same rotations around the best box's axes, until none helps. Ties
    in volume (flat point sets) go to the smaller surface. Every candidate is an exact
    rotation of an orthonormal basis, so the result stays orthonormal.
    """
    best = basis.copy()
    best_vol, best_area = _measure(pts, mu, best, lo, hi)
    eye = np.eye(3)
    vol, area = _measure(pts, mu, eye, lo, hi)
    if vol < best_vol or (vol == best_vol and area < best_area):
        best[:] = eye
        best_vol, best_area = vol, area
    seeds = np.empty((2, 3, 3))
    seeds[0] = basis
    seeds[1] = eye
    n_seeds = 2
    for _round in range(6):
        improved = False
        for s in range(n_seeds):
            for k in range(3):
                c, sn = _min_rect_turn(pts, mu, seeds[s], k, xs, ys, chain)
                _turn(seeds[s], k, c, sn, work)
                vol, area = _measure(pts, mu, work, lo, hi)
                if vol < best_vol or (vol == best_vol and area < best_area):
                    best[:] = work
                    best_vol, best_area = vol, area
                    improved = True
        if not improved:
            break
        seeds[0] = best
        n_seeds = 1
    basis[:] = best


@njit(inline="always")
def _turn(basis, k, c, s, out):
    """``basis`` with axes k+1, k+2 (cyclic) turned by the angle (c, s) around axis k."""
    k1 = (k + 1) % 3
    k2 = (k + 2) % 3
    for r in range(3):
        out[r, k] = basis[r, k]
        out[r, k1] = c * basis[r, k1] + s * basis[r, k2]
        out[r, k2] = -s * basis[r, k1] + c * basis[r, k2]


@njit(cache=True, nogil=True)
def _min_rect_turn(pts, mu, basis, k, xs, ys, chain):
    """(cos, sin) of the turn around axis k that gives the minimum-area rectangle holding
    the points projected on the plane of the other two axes.

    The best rectangle has a side on the convex hull (Freeman & Shapira 1975), so each
    hull edge direction is tried: O(H^2) over H hull vertices. Inexact orientation tests
    can only cost tightness here, never containment: the caller measures the extents
    over every point.
    """
    k1 = (k + 1) % 3
    k2 = (k + 2) % 3
    n = len(pts)
    for p in range(n):
        d0 = pts[p, 0] - mu[0]
        d1 = pts[p, 1] - mu[1]
        d2 = pts[p, 2] - mu[2]
        xs[p] = basis[0, k1] * d0 + basis[1, k1] * d1 + basis[2, k1] * d2
        ys[p] = basis[0, k2] * d0 + basis[1, k2] * d1 + basis[2, k2] * d2
    h = _hull2d(xs, ys, chain)
    best_c, best_s, best_area = 1.0, 0.0, np.inf
    for e in range(h):
        i0 = chain[e]
        i1 = chain[(e + 1) % h]
        dx = xs[i1] - xs[i0]
        dy = ys[i1] - ys[i0]
        length = np.sqrt(dx * dx + dy * dy)
        if length == 0.0:
            continue
        c = dx / length
        s = dy / length
        alo, ahi, blo, bhi = np.inf, -np.inf, np.inf, -np.inf
        for q in range(h):
            x = xs[chain[q]]
            y = ys[chain[q]]
            a = c * x + s * y
            b = -s * x + c * y
            alo, ahi = min(alo, a), max(ahi, a)
            blo, bhi = min(blo, b), max(bhi, b)
        area = (ahi - alo) * (bhi - blo)
        if area < best_area:
            best_c, best_s, best_area = c, s, area
    return best_c, best_s


@njit(cache=True, nogil=True)
def _hull2d(xs, ys, chain):
    """Convex hull of the points (xs, ys), counter-clockwise, into chain[:h]; returns h.

    Andrew's monotone chain (1979) over the points sorted by (x, y). Collinear points
    are dropped; all-equal points give h = 1.
    """
    n = len(xs)
    order = np.argsort(xs, kind="mergesort")
    start = 0
    while start < n:  # sort each run of equal x by y
        stop = start + 1
        while stop < n and xs[order[stop]] == xs[order[start]]:
            stop += 1
        if stop - start > 1:
            run = order[start:stop].copy()
            sub = np.argsort(ys[run], kind="mergesort")
            for q in range(stop - start):
                order[start + q] = run[sub[q]]
        start = stop
    h = 0
    for q in range(n):  # lower hull
        p = order[q]
        while h >= 2 and _cross(xs, ys, chain[h - 2], chain[h - 1], p) <= 0.0:
            h -= 1
        chain[h] = p
        h += 1
    lower = h + 1
    for q in range(n - 2, -1, -1):  # upper hull
        p = order[q]
        while h >= lower and _cross(xs, ys, chain[h - 2], chain[h - 1], p) <= 0.0:
            h -= 1
        chain[h] = p
        h += 1
    return max(h - 1, 1)  # the last point repeats the first


@njit(inline="always")
def _cross(xs, ys, o, a, b):
    return (xs[a] - xs[o]) * (ys[b] - ys[o]) - (ys[a] - ys[o]) * (xs[b] - xs[o])


@njit(inline="always")
def _finish(pts, mu, basis, lo, hi, center, half, rot, g):
    """Write box g: centre between the extremes, half extents from the frame coordinates
    of the points as contains_points computes them, so every point tests inside."""
    _extents(pts, mu, basis, lo, hi)
    for m in range(3):
        c = mu[m]
        for k in range(3):
            c += basis[m, k] * (0.5 * (lo[k] + hi[k]))
        center[g, m] = c
        for k in range(3):
            rot[g, m, k] = basis[m, k]
    _set_halves(pts, center, rot, half, g)
