"""Distances between bounding volumes of any two kinds, with a closest point on each.

Kinds as in :mod:`hitbox.mixed`: ``sphere`` (a :class:`~hitbox.Spheres`, 1D–3D),
``aabb`` (``(N, 2, D)``, D in 1..3), ``kdop`` (``(N, 2, K/2)`` along ``kdop.AXES[K]``,
K in 14, 18, 26; ``(N, 2, 3)`` is read as the AABB) and ``obb`` (an
:class:`~hitbox.OBBs`, 3D). Sphere and AABB pairs take any D (both the same); a pair
with an OBB or a k-DOP is 3D. Every volume is closed and solid: volumes that touch or
overlap are at distance 0, and then ``point_a == point_b`` is a common point (up to the
rounding of its coordinates). An empty volume is infinitely far from everything: distance
inf, points NaN.

How each pair is computed:

==================  ==========================================================
pair                method
==================  ==========================================================
sphere–sphere       centre distance less the radii (any D)
aabb–aabb           the norm of the per-axis gaps (any D)
sphere–aabb         the box's closest point to the centre, clamped per axis (any D)
sphere–obb          the same clamp in the box's frame
any other pair      GJK (Gilbert, Johnson, Keerthi 1988, with van den Bergen's
                    termination) on the exact support functions: boxes by their
                    half extents, k-DOPs by their vertices, a sphere by its centre
                    with the radius added after (``hitbox._kernels.gjk``)
==================  ==========================================================

Accuracy. The closed forms are exact up to a few ulps, and their distance is 0 exactly
when the overlap test of :mod:`hitbox.sphere`, :mod:`hitbox.aabb` or :mod:`hitbox.mixed`
says the volumes overlap (the same predicate decides). GJK pairs: the distance is within
``1e-9 * distance + 1e-12 * scale`` of the exact one, where scale is the pair's largest
coordinate magnitude, and it is 0 when the solids are within ``1e-12 * scale`` of touching
(so a pair GJK calls 0 overlaps by the exact test or is within that of it). The points lie
in their volumes to the same tolerance and realise the distance. A k-DOP's vertices are
every meeting point of three bounding planes that lies within ``1e-12`` of the bounds'
magnitude of every slab, so flat and point-like k-DOPs are handled; a k-DOP whose slabs
have no common point (possible only for hand-made slabs) has no vertex and counts as
empty here.

GJK pairs need bounded volumes: an AABB, OBB or k-DOP with an infinite bound paired with
an OBB or a k-DOP raises ValueError. Spheres of radius inf and infinite AABBs are fine in
the closed forms.
"""

from typing import NamedTuple

import numba
import numpy as np

from hitbox import _scale_groups as _sg
from hitbox import _validate as v
from hitbox import aabb, kdop, mixed
from hitbox._kernels import primitives as _p
from hitbox._kernels import volume_distance as _k
from hitbox.convex import Shapes

__all__ = ["VolumeDistances", "PairDistances", "distance", "distance_pairs"]

# Pair counts from which GJK pairs run on every thread.
_PARALLEL_MIN = 4096
_CLOSED = {
    ("sphere", "sphere"): _k.sphere_sphere,
    ("aabb", "aabb"): _k.aabb_aabb,
    ("sphere", "aabb"): _k.sphere_aabb_pairs,
    ("sphere", "obb"): _k.sphere_obb_pairs,
}


class VolumeDistances(NamedTuple):
    """Per pair: ``distance (n,)``, ``point_a (n, D)`` on A and ``point_b (n, D)`` on B
    with ``|point_b - point_a| == distance`` up to rounding. For two single volumes a
    float and two ``(D,)`` points."""

    distance: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray


class PairDistances(NamedTuple):
    """Pairs within a distance: ``pairs (2, n)`` intp (row 0 indexes ``a``, row 1
    ``b``, sorted by (i, j)), their ``distance (n,)``, ``point_a (n, D)`` and
    ``point_b (n, D)``."""

    pairs: np.ndarray
    distance: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray


def distance(a, b, pairs=None):
    """Distance between two volume sets of any kinds, and a closest point on each.

    Parameters
    ----------
    a, b : Spheres, (N, 2, D) boxes, (N, 2, K/2) k-DOPs or OBBs; one volume of a kind
        (a ``(2, D)`` box, a ``Spheres`` with a ``(D,)`` centre ...) is legal.
    pairs : (2, n) int, optional
        Index pairs: row 0 into ``a``, row 1 into ``b``. Without it the sets pair
        elementwise, as :func:`hitbox.mixed.overlap` does (a set of one volume pairs with
        each volume of the other).

    Returns
    -------
    VolumeDistances
        ``distance (n,)``, ``point_a (n, D)``, ``point_b (n, D)``: a float and ``(D,)``
        points for two single volumes without ``pairs``. See the module notes for the
        method and accuracy of each kind pair.

    Raises ValueError or TypeError naming the argument for a wrong type or shape, NaN,
    different dimensions, lengths that do not broadcast, or a pair index out of range.
    """
    ka, a_data, sa, na, kb, b_data, sb, nb = _checked_pair(a, b)
    ia, ib = v.pair_indices(na, nb, pairs, "volumes")
    out = _distances(ka, a_data, ia, kb, b_data, ib, ("a", "b"))
    if pairs is None and sa and sb:
        return VolumeDistances(float(out.distance[0]), out.point_a[0], out.point_b[0])
    return out


def distance_pairs(a, b, max_distance=np.inf):
    """Every pair of a volume of ``a`` and one of ``b`` at most ``max_distance`` apart.

    With ``max_distance = 0`` these are the pairs of :func:`hitbox.mixed.overlap_pairs`
    whose volumes truly touch; with inf (the default) every pair, empty volumes included
    (at distance inf). Candidates come from the volumes' enclosing boxes, grown by
    ``max_distance``, through ``aabb.sweep_pairs``; each is then measured by
    :func:`distance`. Returns a :class:`PairDistances`, sorted by (i, j).
    """
    ka, a_data, _, na, kb, b_data, _, nb = _checked_pair(a, b)
    reach = v.check_real(max_distance, "max_distance")
    if not reach >= 0.0:
        raise ValueError(f"max_distance must be >= 0, got {reach}")
    if reach == np.inf:
        ia, ib = (x.ravel() for x in np.indices((na, nb), dtype=np.intp))
    elif na == 0 or nb == 0:
        ia = ib = np.zeros(0, np.intp)
    else:
        boxes_a = mixed._boxes(ka, a_data)
        with np.errstate(invalid="ignore"):  # the empty box stays empty
            boxes_a[:, 0] -= reach
            boxes_a[:, 1] += reach
        cand = aabb.sweep_pairs(
            mixed._padded(v.canonical_empty(boxes_a)),
            mixed._padded(mixed._boxes(kb, b_data)),
        )
        ia, ib = cand[0], cand[1]
    out = _distances(ka, a_data, ia, kb, b_data, ib, ("a", "b"))
    keep = out.distance <= reach
    pairs = np.ascontiguousarray(np.stack([ia[keep], ib[keep]]).astype(np.intp))
    return PairDistances(pairs.reshape(2, -1), out.distance[keep],
                         out.point_a[keep], out.point_b[keep])  # fmt: skip


# -- helpers --------------------------------------------------------------------------


def _checked_pair(a, b):
    """Both sets validated: (kind, data, single, count) of a, then of b. kdop data is
    (kdops, K). Both have the same D, and D = 3 where an OBB or a k-DOP takes part."""
    ka, kb = mixed.kind_of(a, "a"), mixed.kind_of(b, "b")
    dim = 3 if {ka, kb} & {"kdop", "obb"} else None
    a_data, sa = mixed._validate(ka, a, "a", dim=dim)
    b_data, sb = mixed._validate(kb, b, "b", dim=_dim(ka, a_data))
    return (ka, a_data, sa, mixed._count(ka, a_data),
            kb, b_data, sb, mixed._count(kb, b_data))  # fmt: skip


def _dim(kind, data):
    if kind == "sphere":
        return data.center.shape[1]
    return data.shape[2] if kind == "aabb" else 3


def _empty(kind, data):
    if kind == "sphere":
        return data.radius < 0.0
    if kind == "aabb":
        return np.isposinf(data[:, 0, 0])
    if kind == "obb":
        return (data.half < 0.0).any(axis=1)
    return np.isposinf(data[0][:, 0, 0])


def _distances(ka, a_data, ia, kb, b_data, ib, names):
    """VolumeDistances of validated sets over index pairs, in the caller's order."""
    if mixed.KINDS.index(ka) > mixed.KINDS.index(kb):
        out = _distances(kb, b_data, ib, ka, a_data, ia, names[::-1])
        return VolumeDistances(out.distance, out.point_b, out.point_a)
    n, dim = len(ia), _dim(ka, a_data)
    out_d = np.full(n, np.inf)
    pa = np.full((n, dim), np.nan)
    pb = np.full((n, dim), np.nan)
    live = ~(_empty(ka, a_data)[ia] | _empty(kb, b_data)[ib])
    if not live.all():
        ia, ib = ia[live], ib[live]
    if len(ia):
        d = np.empty(len(ia))
        qa, qb = np.empty((len(ia), dim)), np.empty((len(ia), dim))
        if (ka, kb) in _CLOSED:
            _CLOSED[ka, kb](a_data, ia, b_data, ib, d, qa, qb)
        else:
            _gjk(ka, a_data, ia, kb, b_data, ib, names, d, qa, qb)
        if live.all():
            return VolumeDistances(d, qa, qb)
        out_d[live], pa[live], pb[live] = d, qa, qb
    return VolumeDistances(out_d, pa, pb)


def _gjk(ka, a_data, ia, kb, b_data, ib, names, d, qa, qb):
    dim = qa.shape[1]
    sa, bad_a = _shapes(ka, a_data)
    sb, bad_b = _shapes(kb, b_data)
    for bad, idx, name in ((bad_a, ia, names[0]), (bad_b, ib, names[1])):
        hit = bad[idx]
        if hit.any():
            raise ValueError(
                f"{name}[{int(idx[np.argmax(hit)])}] is unbounded: distances to OBBs "
                "and k-DOPs need finite volumes"
            )
    # a power of two g brings magnitudes where GJK's squares neither overflow nor vanish:
    # each pair's own (a far pair would shrink the others' until their squares vanish)
    big = np.maximum(sa.bound[ia], sb.bound[ib])
    groups = _sg.scale_groups(big, safe_exp=v.SQUARES_SAFE_EXP)
    if groups is None:  # one scale for every pair, solved in place
        g = v.pow2_for(float(big.max()), v.SQUARES_SAFE_EXP)
        _gjk_scaled(sa, ia, sb, ib, g, d, qa, qb)
    else:
        for g, at in groups:
            got = np.empty(len(at)), np.empty((len(at), dim)), np.empty((len(at), dim))
            _gjk_scaled(sa, ia[at], sb, ib[at], g, *got)
            d[at], qa[at], qb[at] = got
    for s, idx in ((sa, ia), (sb, ib)):
        if s.kind[0:1].tolist() == [_p.HULL]:  # k-DOPs whose slabs meet in no point
            none = s.count[idx] == 0
            d[none], qa[none], qb[none] = np.inf, np.nan, np.nan


def _gjk_scaled(sa, ia, sb, ib, g, d, qa, qb):
    """GJK on the pairs with both sets scaled by the power of two g, answers scaled back."""
    if g != 1.0:
        sa, sb = _scaled(sa, g), _scaled(sb, g)
    parallel = len(ia) >= _PARALLEL_MIN and numba.get_num_threads() > 1
    (_k.gjk_pairs_parallel if parallel else _k.gjk_pairs)(sa, ia, sb, ib, d, qa, qb)
    if g != 1.0:
        d /= g
        qa /= g
        qb /= g


def _scaled(s, g):
    return s._replace(trans=s.trans * g, dims=s.dims * g, radius=s.radius * g,
                      bound=s.bound * g, vertices=s.vertices * g)  # fmt: skip


def _shapes(kind, data):
    """(Shapes of the volumes' cores for GJK, unbounded mask): a sphere is its centre
    with its radius, an AABB or OBB a box, a k-DOP the hull of its vertices."""
    mag = _magnitude(kind, data)
    n = len(mag)
    rot = np.zeros((n, 3, 3))
    rot[:, [0, 1, 2], [0, 1, 2]] = 1.0
    dims, radius = np.zeros((n, 3)), np.zeros(n)
    first, count, verts = np.zeros(n, np.intp), np.zeros(n, np.intp), np.zeros((0, 3))
    code = _p.BOX
    if kind == "sphere":
        code, trans, radius = _p.SPHERE, data.center, data.radius
        unbounded = np.zeros(n, np.bool_)
    elif kind == "aabb":
        lo, hi = data[:, 0], data[:, 1]
        with np.errstate(invalid="ignore"):
            trans = 0.5 * lo + 0.5 * hi
            dims = np.maximum(hi - trans, trans - lo)
        unbounded = ~np.isfinite(data).all(axis=(1, 2)) & ~np.isposinf(lo[:, 0])
    elif kind == "obb":
        trans, dims, rot = data.center, data.half, data.rot
        unbounded = ~np.isfinite(dims).all(axis=1)
    else:
        kdops, k = data
        code, trans = _p.HULL, np.zeros((n, 3))
        unbounded = ~np.isfinite(kdops).all(axis=(1, 2)) & ~np.isposinf(kdops[:, 0, 0])
        count = np.zeros(n, np.intp)
        ok = np.flatnonzero(~unbounded & ~np.isposinf(kdops[:, 0, 0]))
        verts, count[ok] = _kdop_vertices(kdops[ok], k)
        first = (np.cumsum(count) - count).astype(np.intp)
    clean = np.where(unbounded[:, None], 0.0, dims)
    shapes = Shapes(np.full(n, code, np.intp), _c(rot), _c(trans), _c(clean), _c(radius),
                    _c(mag), _c(first), _c(count), _c(verts))  # fmt: skip
    return shapes, unbounded


def _magnitude(kind, data):
    """Per volume, a bound on its points' largest finite coordinate magnitude."""
    with np.errstate(invalid="ignore", over="ignore"):
        if kind == "sphere":
            r = np.where(np.isfinite(data.radius), np.abs(data.radius), 0.0)
            return np.abs(data.center).max(axis=1, initial=0.0) + r
        if kind == "obb":
            h = np.where(np.isfinite(data.half), np.abs(data.half), 0.0)
            return np.abs(data.center).max(axis=1, initial=0.0) + h.sum(axis=1)
        arr = data if kind == "aabb" else data[0]
        return np.where(np.isfinite(arr), np.abs(arr), 0.0).max(axis=(1, 2), initial=0.0)


_TABLES = {}


def _triples(k):
    """Direction triples of ``kdop.AXES[k]`` with independent directions: (triples,
    cofactor rows, determinants); computed once per K."""
    if k not in _TABLES:
        axes = kdop.AXES[k]
        rows, cofs, dets = [], [], []
        s = len(axes)
        for p in range(s):
            for q in range(p + 1, s):
                for r in range(q + 1, s):
                    a0, a1, a2 = axes[p], axes[q], axes[r]
                    det = float(a0 @ np.cross(a1, a2))
                    if det != 0.0:  # integer directions: exactly 0 when dependent
                        rows.append((p, q, r))
                        cofs.append(
                            [np.cross(a1, a2), np.cross(a2, a0), np.cross(a0, a1)]
                        )
                        dets.append(det)
        _TABLES[k] = (np.array(rows, np.intp), np.array(cofs, np.float64),
                      np.array(dets, np.float64), np.array(axes))  # fmt: skip
    return _TABLES[k]


def _kdop_vertices(kdops, k, brute=False):
    """(flat vertices (V, 3), count per k-DOP) of bounded, non-empty k-DOPs: by
    clipping, or with ``brute`` by every plane triple (the slow twin)."""
    triples, cof, det, axes = _triples(k)
    n = len(kdops)
    room = 4 * k  # Euler: a polytope with k faces has at most 2k - 4 vertices
    out = np.empty((n, room, 3))
    counts = np.zeros(n, np.intp)
    if n and not brute:
        _k.kdop_vertices(kdops, axes, out, counts)
    redo = (counts < 0) if not brute else np.ones(n, np.bool_)
    if not redo.any():
        keep = np.arange(room)[None, :] < counts[:, None]
        return np.ascontiguousarray(out[keep]), counts
    big = np.empty((int(redo.sum()), 8 * len(triples), 3))
    big_counts = np.zeros(len(big), np.intp)
    _k.kdop_vertices_brute(np.ascontiguousarray(kdops[redo]), axes, triples, cof, det,
                           big, big_counts)  # fmt: skip
    counts[redo] = big_counts
    rows = iter(range(len(big)))
    parts = [big[next(rows), : counts[m]] if redo[m] else out[m, : counts[m]]
             for m in range(n)]  # fmt: skip
    return (np.concatenate(parts) if parts else np.zeros((0, 3))), counts


def _c(arr):
    return np.require(arr, requirements="CW")
