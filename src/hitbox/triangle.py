"""Exact triangle primitives: the leaf tests of the mesh BVH (SPEC §8).

A triangle is ``(3, 3)``: row k is vertex k. A set of N triangles is ``(N, 3, 3)``.
Triangles are closed: touching counts, so mesh neighbours that share a vertex or an edge
overlap, and a ray through an edge or a vertex hits. A zero-area triangle is the segment
or point it spans, and overlaps what that segment or point touches.

Whether two triangles overlap is decided exactly for the float64 coordinates given (with
orientation predicates that fall back to exact arithmetic when rounding could change the
sign), so the answer does not depend on the order of the vertices or of the arguments.
This holds at any scale as long as the non-zero coordinate magnitudes of one pair span
less than about 1e170 (a pair mixing 1.0 with 1e-300 may not be exact).

Ray casts use the watertight test of Woop, Benthin & Wald (2013): a ray through an edge or
a vertex shared by triangles of a mesh hits at least one of them, whatever the rounding.
"""

from typing import NamedTuple

import numpy as np

from hitbox import _validate as v
from hitbox._kernels import triangle as _kt

__all__ = [
    "Segments",
    "RayHits",
    "AllRayHits",
    "overlap",
    "overlap_pairs_brute",
    "intersection_segments",
    "raycast",
]

MODES = ("closest", "any", "all")


class Segments(NamedTuple):
    """Contact of triangle pairs, one row per pair.

    hit : (N,) bool
        The closed triangles share a point (equal to :func:`overlap`).
    p, q : (N, 3) float
        Two points of the intersection set, farthest apart: the intersection segment when
        the planes cross, the diameter (longest chord) of the overlap polygon for coplanar
        triangles, ``p == q`` when they touch at one point. Their order is unspecified.
        NaN where ``hit`` is False.
    """

    hit: np.ndarray
    p: np.ndarray
    q: np.ndarray


class RayHits(NamedTuple):
    """One hit per ray (``mode="closest"`` or ``"any"``).

    hit : (R,) bool
    t : (R,) float
        Hit point ``origin + t * direction``, ``0 <= t <= t_max``; ``inf`` on a miss.
    face : (R,) intp
        Index of the triangle hit; -1 on a miss.
    u, v : (R,) float
        Barycentric coordinates: the hit point is ``(1 - u - v) v0 + u v1 + v v2`` of the
        triangle's vertices; 0 on a miss.
    """

    hit: np.ndarray
    t: np.ndarray
    face: np.ndarray
    u: np.ndarray
    v: np.ndarray


# A record of hit arrays per query, as ray.BoxHits and ray.PairHits; the fields differ.
class AllRayHits(NamedTuple):
    """Every (ray, triangle) hit (``mode="all"``), sorted by ray, then t, then face.

    ray, face : (n,) intp
    t, u, v : (n,) float, as in :class:`RayHits`
    """

    ray: np.ndarray
    face: np.ndarray
    t: np.ndarray
    u: np.ndarray
    v: np.ndarray


def overlap(a, b):
    """Elementwise: do closed triangles ``a[i]`` and ``b[i]`` share a point? Exact.

    Parameters
    ----------
    a, b : (N, 3, 3) float, or (3, 3) for one triangle (tested against all of the other)

    Returns
    -------
    (N,) bool, or a bool for two single triangles.

    Notes
    -----
    Guigue & Devillers (2003) orientation tests where the planes cross cleanly; touching
    configurations (a vertex on the other triangle's plane, shared vertices and edges),
    coplanar pairs (a 2D test in a projection that keeps their plane one to one) and
    zero-area triangles (their segment or point) go through the edge characterisation:
    two closed triangles meet iff an edge of one meets the other.
    """
    a, sa = _as_triangles(a, "a")
    b, sb = _as_triangles(b, "b")
    out = np.empty(_broadcast_len(a, b), dtype=np.bool_)
    if len(out):
        _kt.overlap(a, b, out)
    return bool(out[0]) if sa and sb else out


def overlap_pairs_brute(a, b):
    """Every overlapping pair between two triangle sets, all N x M pairs tested.

    The slow twin of the BVH narrow phase (its test oracle).

    Parameters
    ----------
    a : (N, 3, 3) float
    b : (M, 3, 3) float

    Returns
    -------
    (2, n) intp: row 0 indexes ``a``, row 1 indexes ``b``, sorted by (i, j).
    """
    a, _ = _as_triangles(a, "a")
    b, _ = _as_triangles(b, "b")
    if len(a) == 0 or len(b) == 0:
        return np.empty((2, 0), np.intp)
    return _kt.overlap_pairs_brute(a, b)


def intersection_segments(a, b):
    """Elementwise contact geometry of triangle pairs.

    Parameters
    ----------
    a, b : (N, 3, 3) float, or (3, 3); one may be a single triangle

    Returns
    -------
    Segments(hit (N,), p (N, 3), q (N, 3)); for two single triangles, a bool and two
    ``(3,)`` points. ``p`` and ``q`` are NaN where ``hit`` is False.

    Notes
    -----
    Whether they meet is exact (``hit == overlap(a, b)``); the points are computed in
    floating point from the exact configuration: vertices that lie on the other triangle
    are returned as they are, crossings are interpolated along the crossing edge.
    """
    a, sa = _as_triangles(a, "a")
    b, sb = _as_triangles(b, "b")
    n = _broadcast_len(a, b)
    hit = np.zeros(n, dtype=np.bool_)
    out = np.full((n, 2, 3), np.nan)
    if n:
        g = _pair_scales(a, b, n)
        if g is None:
            _kt.intersection_segments(a, b, hit, out)
        else:  # each pair at its own power of two: exact, and no product overflows
            _kt.intersection_segments(a * g, b * g, hit, out)
            out /= g
    if sa and sb:
        return Segments(bool(hit[0]), out[0, 0], out[0, 1])
    return Segments(hit, out[:, 0], out[:, 1])


def _pair_scales(a, b, n):
    """(n, 1, 1) powers of two bringing each pair's largest coordinate near 1, or None
    when every pair lies within [2**-100, 2**100] (the crossing points interpolate
    products of three coordinates: beyond about 2**350 the segments collapsed)."""
    big = np.maximum(np.abs(a).max(axis=(1, 2)), np.abs(b).max(axis=(1, 2)))
    big = np.broadcast_to(big, (n,))
    g = v.pow2_each(big, v.SQUARES_SAFE_EXP)
    return None if (g == 1.0).all() else g[:, None, None]


def raycast(triangles, origins, directions=None, *, t_max=None, mode="closest"):
    """Rays against every triangle, brute force: the twin of the BVH raycast.

    Parameters
    ----------
    triangles : (F, 3, 3) float, or (3, 3)
    origins : (R, 3) float, or (3,); or a :class:`~hitbox.Rays` (then no directions)
    directions : (R, 3) float, or (3,); finite, not all zero, any length
    t_max : float or (R,) float, optional
        End of each ray's parameter range, default ``inf``.
    mode : {"closest", "any", "all"}
        ``"closest"``: the nearest hit of each ray (ties in t: the lowest face index).
        ``"any"``: one hit per ray, the first face in index order that the ray hits (not
        the nearest), so a shadow ray can stop early. ``"all"``: every hit.

    Returns
    -------
    RayHits for "closest" and "any" (scalars for one ray); AllRayHits for "all".

    Notes
    -----
    Watertight (Woop, Benthin & Wald 2013): the ray is sheared so it runs along +z, and
    each edge function within its rounding error of zero takes the exact sign, so hit or
    miss is the exact ray's and a ray through a shared edge or vertex hits at least one of
    the faces. Both faces count (two-sided). The closest hit is a face the exact ray
    touches first (hits within rounding of each other are ordered exactly), and t is
    within 4 ulps of the exact distance. A ray lying in a triangle's plane misses it (in a
    closed mesh it meets a neighbouring face), and zero-area triangles are never hit.
    """
    check = v.check_choice(mode, "mode", MODES)
    tris, _ = _as_triangles(triangles, "triangles")
    rays, single = _as_rays(origins, directions, t_max)
    o, d, tm = rays
    n_rays = len(o)
    if check == "all":
        counts = np.zeros(n_rays, np.intp)
        if n_rays and len(tris):
            _kt.raycast_all_count(o, d, tm, tris, counts)
        offsets = np.zeros(n_rays + 1, np.intp)
        np.cumsum(counts, out=offsets[1:])
        n = int(offsets[-1])
        out = AllRayHits(
            np.empty(n, np.intp),
            np.empty(n, np.intp),
            np.empty(n),
            np.empty(n),
            np.empty(n),
        )
        if n:
            _kt.raycast_all_fill(o, d, tm, tris, offsets, *out)
        order = np.lexsort((out.face, out.t, out.ray))
        return AllRayHits(*(x[order] for x in out))
    t = np.full(n_rays, np.inf)
    face = np.full(n_rays, -1, np.intp)
    u = np.zeros(n_rays)
    w = np.zeros(n_rays)
    if n_rays and len(tris):
        kernel = _kt.raycast_closest if check == "closest" else _kt.raycast_any
        kernel(o, d, tm, tris, t, face, u, w)
    hits = RayHits(face >= 0, t, face, u, w)
    if single:
        return RayHits(
            bool(hits.hit[0]), float(t[0]), int(face[0]), float(u[0]), float(w[0])
        )
    return hits


# -- helpers -----------------------------------------------------------------------------


def _as_triangles(tris, name):
    """Return ((N, 3, 3) float64, was_single): three vertices of three coordinates."""
    arr, single = v.as_point_groups(tris, name, dim=3)
    if arr.shape[1] != 3:
        raise ValueError(
            f"{name} must have shape (N, 3, 3) or (3, 3): three vertices per triangle, "
            f"got {np.shape(tris)}"
        )
    return arr, single


def _broadcast_len(a, b):
    return v.broadcast_len(len(a), len(b), "triangles", "triangles")


def _as_rays(origins, directions, t_max):
    """Validated 3D Rays from a Rays or from (origins, directions, t_max)."""
    return v.as_rays(origins, directions, t_max, dim=3)
