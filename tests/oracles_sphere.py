"""Brute-force twins for hitbox.sphere: obviously right, slow, no numba.

Two kinds: numpy twins that repeat the library's float formula (for exact index-set
comparisons), and exact ones in rational arithmetic (``fractions.Fraction``) that decide
what is true, with no rounding at all.
"""

from fractions import Fraction
from itertools import combinations

import numpy as np

# -- numpy twins -------------------------------------------------------------------------


def overlap(ca, ra, cb, rb):
    """Broadcast twin of the kernel test: empty never; some |dk| > s → no; else
    sum_k dk**2 <= s**2 summed k upwards. Valid where the squares stay in float range."""
    ca, cb = np.asarray(ca, float), np.asarray(cb, float)
    ra, rb = np.asarray(ra, float), np.asarray(rb, float)
    with np.errstate(invalid="ignore", over="ignore"):
        s = ra + rb
        t = np.abs(ca - cb)
        d2 = np.zeros(np.broadcast_shapes(t.shape[:-1], s.shape))
        for k in range(t.shape[-1]):
            d2 = d2 + t[..., k] * t[..., k]
        hit = (d2 <= s * s) & np.all(t <= s[..., None], axis=-1)
    return (
        hit & (ra >= 0) & (rb >= 0)
        | ((ra == np.inf) & (rb >= 0))
        | ((rb == np.inf) & (ra >= 0))
    )


def overlap_pairs(a, b):
    """(2, n) sorted pairs from the N x M matrix of :func:`overlap`."""
    hit = overlap(a.center[:, None], a.radius[:, None], b.center[None], b.radius[None])
    return np.array(np.nonzero(hit), dtype=np.intp).reshape(2, -1)


# -- exact arithmetic --------------------------------------------------------------------


def F(x):
    return Fraction(float(x))


def overlap_exact(ca, ra, cb, rb):
    """True iff |ca - cb| <= ra + rb exactly (ra + rb not rounded); empty never."""
    if ra < 0 or rb < 0:
        return False
    if ra == np.inf or rb == np.inf:
        return True
    s = F(ra) + F(rb)
    return sum((F(x) - F(y)) ** 2 for x, y in zip(ca, cb, strict=True)) <= s * s


def tie_margin(ca, ra, cb, rb):
    """|s**2 - d**2| / (s**2 + d**2) in exact arithmetic: how far from touching."""
    s = F(ra) + F(rb)
    d2 = sum((F(x) - F(y)) ** 2 for x, y in zip(ca, cb, strict=True))
    total = s * s + d2
    return float(abs(s * s - d2) / total) if total else 0.0


def inside_exact(center, radius, point):
    """True iff the point lies in the closed ball, exactly."""
    if radius < 0:
        return False
    if radius == np.inf:
        return True
    d2 = sum((F(p) - F(c)) ** 2 for p, c in zip(point, center, strict=True))
    return d2 <= F(radius) ** 2


def holds_ball_exact(center, radius, inner_center, inner_radius):
    """True iff ball (center, radius) holds ball (inner_center, inner_radius) exactly:
    |c - ci| + ri <= r, i.e. r - ri >= 0 and |c - ci|**2 <= (r - ri)**2."""
    if inner_radius < 0:
        return True
    if radius == np.inf:
        return True
    gap = F(radius) - F(inner_radius)
    if gap < 0:
        return False
    d2 = sum((F(p) - F(c)) ** 2 for p, c in zip(center, inner_center, strict=True))
    return d2 <= gap * gap


# -- fits --------------------------------------------------------------------------------


def circumball(points):
    """Smallest ball with every point on its surface (centre in their affine hull), or
    None when the points are affinely dependent. From 2 G lam = diag(G), G = A A^T."""
    p0 = points[0]
    if len(points) == 1:
        return p0.copy(), 0.0
    a = points[1:] - p0
    g = a @ a.T
    if np.linalg.matrix_rank(g, tol=1e-12 * max(np.abs(g).max(), 1e-300)) < len(a):
        return None
    lam = np.linalg.solve(2.0 * g, np.diag(g))
    c = p0 + lam @ a
    return c, float(np.sqrt(np.max(np.sum((points - c) ** 2, axis=1))))


def _unit_scale(fit):
    """Run ``fit`` on points scaled by a power of two (exact) into [-1, 1], so numpy's
    squares neither underflow nor overflow, and scale its centre and radius back."""

    def scaled(points):
        points = np.asarray(points, float)
        e = np.frexp(np.abs(points).max())[1] if np.any(points) else 0
        c, r, *rest = fit(np.ldexp(points, -e))
        return np.ldexp(c, e), float(np.ldexp(r, e)), *rest

    scaled.__doc__ = fit.__doc__
    return scaled


@_unit_scale
def min_ball(points):
    """Smallest enclosing ball by brute force: it is the circumball of some subset of at
    most D + 1 points, so try them all and keep the smallest that holds every point."""
    k, dim = points.shape
    scale = max(np.abs(points).max(), 1e-300)
    best = None
    for m in range(1, dim + 2):
        for subset in combinations(range(k), m):
            found = circumball(points[list(subset)])
            if found is None:
                continue
            c, r = found
            reach = np.sqrt(np.max(np.sum((points - c) ** 2, axis=1)))
            if reach <= r * (1 + 1e-12) + 1e-14 * scale and (best is None or r < best[1]):
                best = (c, r)
    return best


@_unit_scale
def centroid_ball(points):
    """Centre the mean, radius the largest distance to a point."""
    points = np.asarray(points, float)
    c = points.mean(axis=0)
    return c, float(np.sqrt(np.max(np.sum((points - c) ** 2, axis=1))))


@_unit_scale
def ritter_ball(points):
    """Ritter (1990) as printed: diameter from the farthest pair of axis extremes, then
    grow for each point outside; here two growing passes, as the library does.

    Returns (centre, radius, gap) where gap is the relative difference between the two
    largest extreme spans, and 0 where a point is within 1e-12 of an axis extreme without
    sharing it: near 0, rounding may pick another diameter.
    """
    points = np.asarray(points, float)
    tol = 1e-12 * max(np.ptp(points), 1e-300)
    for k in range(points.shape[1]):
        x = points[:, k]
        for extreme in (x.min(), x.max()):
            if np.any((np.abs(x - extreme) <= tol) & (x != extreme)):
                return *centroid_ball(points), 0.0
    spans = []
    for k in range(points.shape[1]):
        lo, hi = int(np.argmin(points[:, k])), int(np.argmax(points[:, k]))
        spans.append((float(np.sum((points[hi] - points[lo]) ** 2)), lo, hi))
    best = max(range(len(spans)), key=lambda k: (spans[k][0], -k))
    span, lo, hi = spans[best]
    others = [s[0] for k, s in enumerate(spans) if k != best]
    gap = (span - max(others)) / span if others and span > 0 else 1.0
    c = 0.5 * (points[lo] + points[hi])
    r = 0.5 * np.sqrt(span)
    for _ in range(2):
        for p in points:
            d = float(np.sqrt(np.sum((p - c) ** 2)))
            if d > r:
                r_new = 0.5 * (r + d)
                c = c + (r_new - r) / d * (p - c)
                r = r_new
    return c, float(r), gap
