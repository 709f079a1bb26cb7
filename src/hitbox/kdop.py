"""k-DOPs: discrete orientation polytopes with k/2 fixed slab directions (SPEC §6).

A k-DOP is ``(2, K/2)``: row 0 holds the lowest and row 1 the highest projection of the
object on each direction of ``AXES[K]``; a set is ``(N, 2, K/2)``. The first three directions
are x, y, z, so the AABB is the 6-DOP in the same layout and shares every slab kernel.

The directions are the integer vectors of Klosowski et al. (1998) and Coal's ``KDOP``, not
normalised: projections stay cheap and exact for integer input, and slab tests need no unit
length. FDH (fixed-direction hull) is the same object under another name.
"""

import numpy as np

from hitbox import _affine, aabb
from hitbox import _validate as v
from hitbox._kernels import kdop as _kd
from hitbox._kernels import slabs

__all__ = [
    "AXES",
    "fit",
    "from_boxes",
    "to_boxes",
    "union",
    "overlap",
    "overlap_pairs",
    "overlap_pairs_brute",
    "contains_points",
    "vertices",
    "transform",
]

_FACES = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
_CORNERS = [[1, 1, 1], [1, -1, 1], [1, 1, -1], [1, -1, -1]]
_EDGES = [[1, 1, 0], [1, 0, 1], [0, 1, 1], [1, -1, 0], [1, 0, -1], [0, 1, -1]]


def _table(rows):
    arr = np.array(rows, dtype=np.float64)
    arr.flags.writeable = False
    return arr


#: K -> (K/2, 3) slab directions. 6: faces; 14: + corners; 18: + edges; 26: all three.
AXES = {
    6: _table(_FACES),
    14: _table(_FACES + _CORNERS),
    18: _table(_FACES + _EDGES),
    26: _table(_FACES + _CORNERS + _EDGES),
}


def _squeeze(result, single):
    """One item in, one out: a Python scalar or the single row."""
    if not single:
        return result
    return result[0].item() if result.ndim == 1 else result[0]


def fit(points, k=18, *, transform=None):
    """Tightest k-DOP of each group of points.

    Parameters
    ----------
    points : (P, M, 3) float, or (M, 3) for one group
    k : {6, 14, 18, 26}
    transform : (4, 4) float, optional
        Affine map applied to the points first. Refitting the moved points is the exact
        way to move a k-DOP (it must be refit when the object rotates, SPEC §6).

    Returns
    -------
    (P, 2, K/2) float, or (2, K/2). A group with M = 0 gives the empty k-DOP.
    """
    k = v.check_k(k)
    groups, single = v.as_point_groups(points, dim=3)
    if transform is not None:
        linear, trans = v.as_transform(transform, "transform")
        groups = _affine.apply(linear, trans, groups)
    proj = groups @ AXES[k].T  # (P, M, K/2)
    out = np.empty((len(groups), 2, k // 2))
    out[:, 0] = proj.min(axis=1, initial=np.inf)
    out[:, 1] = proj.max(axis=1, initial=-np.inf)
    return _squeeze(out, single)


def from_boxes(boxes, k=18):
    """The k-DOP of each 3D AABB (exact: fitted to its eight corners)."""
    k = v.check_k(k)
    boxes, single = v.as_boxes(boxes, dim=3)
    out = np.empty((len(boxes), 2, k // 2))
    full = ~np.isposinf(boxes[:, 0, 0])
    finite = full & np.all(np.isfinite(boxes), axis=(1, 2))
    out[~full] = [[np.inf], [-np.inf]]
    if finite.any():
        corners = aabb.corners(boxes[finite])
        out[finite] = fit(corners, k)
    unbounded = full & ~finite  # infinite boxes: exact on x, y, z, open on the diagonals
    out[unbounded, 0], out[unbounded, 1] = -np.inf, np.inf
    out[unbounded, :, :3] = boxes[unbounded]
    return _squeeze(out, single)


def to_boxes(kdops):
    """The AABB slabs of each k-DOP, ``(N, 2, 3)``: a box that holds it."""
    kdops, single, _ = v.as_kdops(kdops)
    return _squeeze(np.ascontiguousarray(kdops[:, :, :3]), single)


def union(a, b):
    """Elementwise smallest k-DOP holding both (broadcasting; same K)."""
    a, sa, k = v.as_kdops(a, "a")
    b, sb, _ = v.as_kdops(b, "b", k=k)
    return _squeeze(aabb.slab_union(a, b, noun="k-DOPs"), sa and sb)


def overlap(a, b):
    """Elementwise closed overlap: disjoint iff separated on some slab direction.

    Returns ``(N,) bool``, or a bool for two single k-DOPs. Like every slab test this is
    conservative for the polytopes: two k-DOPs that overlap on all K/2 directions can still
    be disjoint along a direction outside the table.
    """
    a, sa, k = v.as_kdops(a, "a")
    b, sb, _ = v.as_kdops(b, "b", k=k)
    return aabb.slab_overlap(a, b, sa and sb, noun="k-DOPs")


def overlap_pairs(a, b):
    """Every overlapping pair between two k-DOP sets: sorted ``(2, n) intp``."""
    a, _, k = v.as_kdops(a, "a")
    b, _, _ = v.as_kdops(b, "b", k=k)
    return aabb.sweep_pairs(a, b)


def overlap_pairs_brute(a, b):
    """Slow twin of :func:`overlap_pairs`: every pair tested."""
    a, _, k = v.as_kdops(a, "a")
    b, _, _ = v.as_kdops(b, "b", k=k)
    return slabs.overlap_pairs_brute(a, b)


def contains_points(kdops, points):
    """Elementwise closed containment, broadcasting k-DOPs and points."""
    kdops, sk, k = v.as_kdops(kdops)
    pts, sp = v.as_points(points, dim=3)
    aabb.check_broadcast(kdops, pts, "points", noun="k-DOPs")
    proj = pts @ AXES[k].T
    hit = np.all((kdops[:, 0] <= proj) & (proj <= kdops[:, 1]), axis=1)
    return _squeeze(hit, sk and sp)


def vertices(kdops):
    """Vertices of each k-DOP polytope: a list of ``(V_i, 3)`` arrays (one array for one).

    Empty and unbounded k-DOPs have no vertex list; they give ``(0, 3)``.
    """
    kdops, single, k = v.as_kdops(kdops)
    finite = np.all(np.isfinite(kdops), axis=(1, 2))
    verts, counts = _vertices(kdops[finite], k)
    out = [np.zeros((0, 3))] * len(kdops)
    for r, i in enumerate(np.flatnonzero(finite)):
        out[i] = verts[r, : counts[r]]
    return out[0] if single else out


def transform(kdops, matrix, *, points=None):
    """k-DOPs of the transformed objects.

    With ``points`` (the object's points in model space, ``(N, M, 3)`` or ``(M, 3)``), the
    exact refit ``fit(points, k, transform=matrix)``. Without, a conservative bound from the
    k-DOP alone: its polytope's vertices are moved and refit, then widened by 1e-9 of the
    coordinates' magnitude so rounding in the vertex solve never makes it smaller than the
    moved polytope. Unbounded k-DOPs fall back to Arvo's box of their x, y, z slabs, open on
    the other directions. Empty stays empty.
    """
    kdops, single, k = v.as_kdops(kdops)
    linear, trans = v.as_transform(matrix, "matrix")
    if points is not None:
        groups, _ = v.as_point_groups(points, dim=3)
        if len(groups) != len(kdops):
            raise ValueError(
                f"points must have one group per k-DOP ({len(kdops)}), got {len(groups)}"
            )
        return _squeeze(fit(groups, k, transform=matrix), single)
    out = np.empty_like(kdops)
    full = ~np.isposinf(kdops[:, 0, 0])
    finite = full & np.all(np.isfinite(kdops), axis=(1, 2))
    out[~full] = [[np.inf], [-np.inf]]
    if finite.any():
        verts, counts = _vertices(kdops[finite], k)
        moved = _affine.apply(linear, trans, verts)
        proj = moved @ AXES[k].T  # (n, V, K/2)
        valid = np.arange(verts.shape[1])[None, :] < counts[:, None]
        lo = np.where(valid[..., None], proj, np.inf).min(axis=1)
        hi = np.where(valid[..., None], proj, -np.inf).max(axis=1)
        pad = 1e-9 * (np.maximum(np.abs(lo), np.abs(hi)).max(axis=1, keepdims=True) + 1.0)
        out[finite, 0], out[finite, 1] = lo - pad, hi + pad
    unbounded = full & ~finite
    if unbounded.any():
        out[unbounded, 0], out[unbounded, 1] = -np.inf, np.inf
        out[unbounded, :, :3] = _affine.arvo(linear, trans, kdops[unbounded, :, :3])
    return _squeeze(out, single)


def _vertices(kdops, k):
    planes = k
    n_triples = planes * (planes - 1) * (planes - 2) // 6
    out = np.zeros((len(kdops), n_triples, 3))
    counts = np.zeros(len(kdops), np.intp)
    if len(kdops):
        _kd.vertices(kdops, np.ascontiguousarray(AXES[k]), out, counts)
    return out, counts
