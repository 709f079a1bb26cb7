"""Bounding spheres: balls in 3D, discs in 2D, intervals in 1D (SPEC §4).

A set of N spheres is ``Spheres(center (N, D), radius (N,))``; one sphere is a ``Spheres``
with ``center (D,)`` and a scalar radius. Spheres are closed: touching spheres overlap and
boundary points are inside.

The empty sphere has radius -inf. Any negative radius given is read as empty and made
-inf (the centre must still be finite; it means nothing). The empty sphere overlaps and
contains nothing, has volume 0, its box is the empty box, and it is the fit of a group of
no points. A radius of +inf is the whole space.

Spheres are rotation-invariant (seeds 000, 002): a rigid motion moves the centre and keeps
the radius, so a rotating object's sphere never needs refitting (:func:`transform`).

Every function that builds a sphere to hold something (``fit``, ``from_boxes``,
``cover``, ``union``, ``transform``) makes sure it holds it in exact arithmetic, not only
by a rounded test: the radius carries a margin of at most a few units in the 14th digit.
"""

import numpy as np

from hitbox import _affine
from hitbox import _validate as v
from hitbox._kernels import sphere as _k
from hitbox._kernels import sphere_fit as _fit
from hitbox._types import Spheres

__all__ = [
    "METHODS",
    "fit",
    "from_boxes",
    "to_boxes",
    "cover",
    "union",
    "overlap",
    "overlap_pairs",
    "overlap_pairs_brute",
    "contains_points",
    "volume",
    "transform",
]

METHODS = ("centroid", "ritter", "welzl")
_METHOD_CODES = {"centroid": _fit.CENTROID, "ritter": _fit.RITTER, "welzl": _fit.WELZL}

# Outward factor on radii built from rounded distances: 2**-46 is 64 ulps, several times
# the worst rounding of the few operations before it (D <= 3), yet invisible at 1e-12.
_UP = 1.0 + 2.0**-46
_EPS = np.finfo(np.float64).eps
# Added where results may be subnormal: their rounding is absolute (2**-1075).
_TINY = 2.0**-1070


def fit(points, *, method="ritter"):
    """Bounding sphere of each group of points.

    Parameters
    ----------
    points : (P, K, D) float, or (K, D) for one group; finite
    method : {"centroid", "ritter", "welzl"}
        ``"centroid"``: seed 003's centre, the mean of the points, with the radius to the
        farthest point (003 measures to the max corner, which can leave points outside).
        ``"ritter"``: Ritter (1990): a first diameter from the axis extremes, then one
        pass growing the ball to take in each point outside, and a second such pass.
        Ritter's ball can be larger than the centroid one (an equilateral triangle: 1.18
        against 1); then the centroid ball is returned, so ``ritter`` is never worse than
        ``centroid``.
        ``"welzl"``: the smallest enclosing ball (Welzl 1991), iterative (no recursion
        over the points), exact up to rounding on cospherical, duplicate or collinear
        points. Expected time linear in K.

    Returns
    -------
    Spheres with center (P, D) and radius (P,), or one sphere for one group. A group with
    K = 0 gives the empty sphere (centre 0, radius -inf). Every point lies inside its
    sphere, in exact arithmetic: the radius is grown past rounding (by < 1e-13 relative).
    """
    code = _METHOD_CODES[v.check_choice(method, "method", METHODS)]
    groups, single = v.as_point_groups(points)
    n, _, dim = groups.shape
    center = np.empty((n, dim))
    radius = np.empty(n)
    if n:
        _fit.fit(groups, code, center, radius)
    return _out(Spheres(center, radius), single)


def from_boxes(boxes):
    """The sphere circumscribing each box: the box centre, radius half the diagonal.

    Parameters
    ----------
    boxes : (N, 2, D) float, or (2, D)

    Returns
    -------
    Spheres (N,), or one sphere. The empty box gives the empty sphere; a box with an
    infinite side gives a sphere of infinite radius (with a finite centre).
    """
    boxes, single = v.as_boxes(boxes)
    return _out(_circumscribe(boxes), single)


def to_boxes(spheres):
    """The box of each sphere, ``[c - r, c + r]`` per axis, rounded outwards.

    Parameters
    ----------
    spheres : Spheres (N,) or one sphere

    Returns
    -------
    (N, 2, D) float, or (2, D): the smallest float box holding the sphere (lo rounded
    down, hi up). The empty sphere gives the empty box (+inf, -inf).
    """
    s, single = _spheres(spheres)
    c, r = s.center, s.radius[:, None]
    out = np.empty((len(c), 2, c.shape[1]))
    with np.errstate(invalid="ignore", over="ignore"):
        out[:, 0] = _sum_down(c, -r)
        out[:, 1] = -_sum_down(-c, -r)
    return out[0] if single else out


def cover(boxes, count):
    """Cover each box with ``count`` spheres along its longest axis (seed 004).

    One sphere circumscribing a long box wastes most of its volume; 004 covers a long
    rectangle with several circles instead. Each box is cut into ``count`` equal slabs
    across its longest axis (the first, on a tie) and each slab gets its circumscribing
    sphere. For a row of equal spheres this is the tightest cover. It pays once the box is
    elongated: with ``count = 2``, once the long side is more than about 1.4 times the
    others (in 2D and 3D); the longer the box, the more spheres pay.

    Parameters
    ----------
    boxes : (N, 2, D) float, or (2, D)
    count : int >= 1

    Returns
    -------
    Spheres (N * count,): sphere ``n * count + k`` is slab k (from lo to hi) of box n.
    Their union holds the box. Empty boxes give empty spheres, boxes with an infinite side
    infinite ones.
    """
    boxes, _ = v.as_boxes(boxes)
    count = v.check_count(count, "count")
    n, _, dim = boxes.shape
    slabs = np.repeat(boxes[:, None], count, axis=1)  # (N, count, 2, D)
    ok = np.isfinite(boxes).all(axis=(1, 2))
    if ok.any() and count > 1:
        lo, hi = boxes[ok, 0], boxes[ok, 1]
        axis = np.argmax(0.5 * hi - 0.5 * lo, axis=1)
        rows = np.arange(len(lo))
        a, b = lo[rows, axis][:, None], hi[rows, axis][:, None]
        f = np.arange(count + 1) / count
        cuts = a * (1.0 - f) + b * f  # never overflows, unlike a + (b - a) * f
        cuts[:, 0], cuts[:, -1] = a[:, 0], b[:, 0]
        sub = slabs[ok]
        k = np.arange(count)
        sub[rows[:, None], k, 0, axis[:, None]] = cuts[:, :-1]
        sub[rows[:, None], k, 1, axis[:, None]] = cuts[:, 1:]
        slabs[ok] = sub
    return _circumscribe(slabs.reshape(n * count, 2, dim))


def union(a, b):
    """Elementwise smallest sphere holding both spheres (broadcasting one against many).

    If one sphere holds the other it is returned as it is; otherwise the result spans both
    along the line of centres, radius ``(|cb - ca| + ra + rb) / 2``. The empty sphere adds
    nothing; the union of two empty spheres is empty.

    Returns
    -------
    Spheres (N,), or one sphere for two single spheres.
    """
    a, sa = _spheres(a, "a")
    b, sb = _spheres(b, "b", dim=a.center.shape[1])
    n = _broadcast_len(len(a.radius), len(b.radius))
    ca = np.broadcast_to(a.center, (n, a.center.shape[1]))
    cb = np.broadcast_to(b.center, ca.shape)
    ra = np.broadcast_to(a.radius, (n,))
    rb = np.broadcast_to(b.radius, (n,))
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        half = 0.5 * cb - 0.5 * ca  # halves throughout: far-apart centres cannot overflow
        d_half = _norm(half)
        a_holds = (rb < 0) | (ra == np.inf) | (ra >= (2.0 * d_half + rb) * _UP)
        b_holds = ~a_holds & (
            (ra < 0) | (rb == np.inf) | (rb >= (2.0 * d_half + ra) * _UP)
        )
        r = d_half + 0.5 * ra + 0.5 * rb
        c = ca + np.where(d_half > 0, (r - ra) / d_half, 0.0)[:, None] * half
        # centres ~1e308 apart: the radius overflows to inf and any finite centre will do
        c = np.where(np.isfinite(c), c, 0.5 * ca + 0.5 * cb)
        reach_a = (2.0 * _norm(0.5 * c - 0.5 * ca) + ra) * _UP + _TINY
        reach_b = (2.0 * _norm(0.5 * c - 0.5 * cb) + rb) * _UP + _TINY
        r = np.maximum(r, np.maximum(reach_a, reach_b))
    c = np.where(a_holds[:, None], ca, np.where(b_holds[:, None], cb, c))
    r = np.where(a_holds, ra, np.where(b_holds, rb, r))
    return _out(Spheres(np.ascontiguousarray(c), np.ascontiguousarray(r)), sa and sb)


def overlap(a, b):
    """Elementwise closed overlap of two sphere sets (one against many broadcasts).

    Disjoint iff ``|ca - cb| > ra + rb`` (seeds 003, 004); touching overlaps, the empty
    sphere overlaps nothing. The test compares squares,
    ``sum (ca - cb)**2 <= (ra + rb)**2``, with no square root. It is exact whenever the
    centre differences, their squares and the radius sum are exact in float64 (integer or
    short binary data), and otherwise within (D + 3) ulps of the exact comparison. Huge
    and tiny scenes are rescaled by a power of two first, so the answer does not depend
    on the scale.

    Returns
    -------
    (N,) bool, or a bool for two single spheres.
    """
    a, sa = _spheres(a, "a")
    b, sb = _spheres(b, "b", dim=a.center.shape[1])
    out = np.empty(_broadcast_len(len(a.radius), len(b.radius)), dtype=np.bool_)
    if len(out):
        _k.overlap(a, b, out)
    return bool(out[0]) if sa and sb else out


def overlap_pairs(a, b):
    """Every overlapping pair between two sphere sets, without an N x M matrix.

    Sort both sets by ``c - r`` on the axis where the centres spread most and sweep, as
    :func:`hitbox.aabb.overlap_pairs` does; each candidate gets the :func:`overlap` test.
    Count, then fill.

    Returns
    -------
    (2, n) intp: row 0 indexes ``a``, row 1 indexes ``b``, sorted by (i, j).
    """
    a, _ = _spheres(a, "a")
    b, _ = _spheres(b, "b", dim=a.center.shape[1])
    if len(a.radius) == 0 or len(b.radius) == 0:
        return np.empty((2, 0), np.intp)
    axis = _sweep_axis(a, b)
    lo_a, hi_a = _intervals(a, axis)
    lo_b, hi_b = _intervals(b, axis)
    id_a = np.argsort(lo_a, kind="stable")
    id_b = np.argsort(lo_b, kind="stable")
    # sorted copies: the sweep then reads both sets front to back
    a = Spheres(a.center[id_a], a.radius[id_a])
    b = Spheres(b.center[id_b], b.radius[id_b])
    pairs = _k.overlap_pairs(
        a, b, lo_a[id_a], hi_a[id_a], lo_b[id_b], hi_b[id_b], id_a, id_b
    )
    return pairs[:, np.lexsort((pairs[1], pairs[0]))]


def overlap_pairs_brute(a, b):
    """Slow twin of :func:`overlap_pairs`: every pair tested, O(N M) time, no sorting."""
    a, _ = _spheres(a, "a")
    b, _ = _spheres(b, "b", dim=a.center.shape[1])
    return _k.overlap_pairs_brute(a, b)


def contains_points(spheres, points):
    """Elementwise closed containment, broadcasting spheres and points.

    ``p`` is inside when ``sum (p - c)**2 <= r**2``: the :func:`overlap` test with a ball
    of radius 0, so boundary points count and the empty sphere contains nothing.

    Returns
    -------
    (N,) bool, or a bool for one sphere and one point.
    """
    s, ss = _spheres(spheres)
    pts, sp = v.as_points(points, dim=s.center.shape[1])
    out = np.empty(_broadcast_len(len(s.radius), len(pts), "points"), dtype=np.bool_)
    if len(out):
        _k.contains_points(s, pts, out)
    return bool(out[0]) if ss and sp else out


def volume(spheres):
    """Length (1D, ``2 r``), area (2D, ``pi r**2``) or volume (3D, ``4/3 pi r**3``).

    Returns
    -------
    (N,) float, or a float for one sphere; 0 for the empty sphere.
    """
    s, single = _spheres(spheres)
    r = np.maximum(s.radius, 0.0)
    dim = s.center.shape[1]
    out = (2.0 * r, np.pi * r**2, 4.0 / 3.0 * np.pi * r**3)[dim - 1]
    return out[0] if single else out


def transform(spheres, matrix):
    """Spheres holding the transformed spheres, for a homogeneous ``(D+1, D+1)`` matrix.

    The centre is mapped by the matrix. The radius is scaled by the largest singular value
    of the linear part, so a non-uniform scale takes its largest factor and a rotation
    keeps the radius: spheres never need refitting under rigid motion. The radius also
    takes in the rounding of the mapped centre (a few ulps of ``|matrix| |center|``), so
    the result holds the exact image of each sphere. The empty sphere stays empty.

    Returns
    -------
    Spheres (N,), or one sphere.
    """
    s, single = _spheres(spheres)
    dim = s.center.shape[1]
    linear, trans = v.as_transform(matrix, "matrix", dim=dim)
    with np.errstate(over="ignore", invalid="ignore"):  # reported just below
        center = _affine.apply(linear, trans, s.center)
    bad = ~np.isfinite(center).all(axis=1)
    if bad.any():
        raise ValueError(
            f"matrix moves spheres[{int(np.argmax(bad))}] beyond float range"
        )
    # _affine.apply sums D + 1 rounded terms: error <= (D + 1) u sum|terms| <= 8 eps bound
    bound = _affine.apply(np.abs(linear), np.abs(trans), np.abs(s.center))
    slack = 8.0 * _EPS * _norm(bound) + _TINY
    sigma = np.linalg.svd(linear, compute_uv=False)[0]
    with np.errstate(invalid="ignore", over="ignore"):
        radius = (sigma * s.radius + slack) * _UP
    # 0 * inf: a singular map sends the whole space to a point
    radius = np.where(np.isnan(radius), slack * _UP, radius)
    radius[s.radius < 0] = -np.inf
    return _out(Spheres(center, radius), single)


# -- helpers -----------------------------------------------------------------------------


def _spheres(value, name="spheres", dim=None):
    """Validated spheres with every negative radius made the one empty radius, -inf."""
    s, single = v.as_spheres(value, name, dim=dim)
    neg = s.radius < 0
    if neg.any() and not np.all(s.radius[neg] == -np.inf):
        s = Spheres(s.center, np.where(neg, -np.inf, s.radius))
    return s, single


def _out(spheres, single):
    return Spheres(spheres.center[0], spheres.radius[0]) if single else spheres


def _broadcast_len(n_a, n_b, name_b="b"):
    if n_a != n_b and n_a != 1 and n_b != 1:
        raise ValueError(f"cannot broadcast {n_a} spheres against {n_b} {name_b}")
    return max(n_a, n_b) if min(n_a, n_b) else 0


def _norm(rows):
    """Euclidean norm of each row of ``(N, D)``, scaled so it neither overflows nor
    underflows; inf where a row holds inf."""
    m = np.max(np.abs(rows), axis=1, initial=0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        scaled = rows / np.where(m > 0, m, 1.0)[:, None]
        out = m * np.sqrt(np.sum(scaled * scaled, axis=1))
    return np.where(np.isinf(m), np.inf, out)


def _sum_down(x, y):
    """The largest float <= x + y (exact sum by Knuth's TwoSum, then one step down if
    ``x + y`` rounded up). Infinite sums stay as they are."""
    s = x + y
    bb = s - x
    err = (x - (s - bb)) + (y - bb)
    return np.where(err < 0, np.nextafter(s, -np.inf), s)


def _circumscribe(boxes):
    """Validated boxes (N, 2, D) → their circumscribing Spheres (N,)."""
    n, _, dim = boxes.shape
    lo, hi = boxes[:, 0], boxes[:, 1]
    empty = np.isposinf(lo[:, 0]) & np.isneginf(hi[:, 0])
    finite = np.isfinite(boxes).all(axis=(1, 2))
    with np.errstate(invalid="ignore"):
        center = 0.5 * lo + 0.5 * hi
        radius = _norm(0.5 * hi - 0.5 * lo)
    # an infinite box: any finite centre will do; keep the finite coordinates there are
    center = np.where(
        np.isfinite(center),
        center,
        np.where(np.isfinite(lo), lo, np.where(np.isfinite(hi), hi, 0.0)),
    )
    radius[~finite] = np.inf
    center[empty] = 0.0
    radius[empty] = -np.inf
    if n:
        bits = (np.arange(2**dim)[:, None] >> np.arange(dim)) & 1
        corners = np.ascontiguousarray(boxes[:, bits, np.arange(dim)])  # (N, 2**D, D)
        _fit.enclose(corners, center, radius)
    return Spheres(np.ascontiguousarray(center), radius)


def _sweep_axis(a, b):
    """The axis along which the non-empty centres spread most: fewest false candidates."""
    centers = np.concatenate([a.center[a.radius >= 0], b.center[b.radius >= 0]])
    if len(centers) == 0:
        return 0
    return int(np.argmax(np.ptp(centers, axis=0)))


def _intervals(s, axis):
    """Each sphere's extent on ``axis``, widened by 2**-40 of its size (and 2**-1000) so
    the rounded overlap test never passes a pair whose intervals look disjoint."""
    c, r = s.center[:, axis], s.radius
    with np.errstate(invalid="ignore", over="ignore"):
        margin = (np.abs(c) + r) * 2.0**-40 + 2.0**-1000
        lo = (c - r) - margin
        hi = (c + r) + margin
    empty = r < 0
    lo[empty], hi[empty] = np.inf, -np.inf
    return lo, hi
