"""Exact primitive shapes and convex pairs, batched: distance, overlap, penetration.

A set of N shapes is one :class:`Shapes` of flat arrays; the kinds may be mixed
(:func:`concatenate`). Build them with :func:`sphere`, :func:`capsule`, :func:`box`,
:func:`cylinder`, :func:`cone`, :func:`hull` and :func:`halfspace`, each in world
coordinates and optionally moved by ``pose``: 4x4 rigid matrices ``(K, 4, 4)`` or
``(4, 4)``, or ``(positions, quaternions)`` as :func:`hitbox.poses.from_quaternions`
reads them. Every shape is closed: boundary points belong to it.

The pair queries take two sets and either ``pairs (2, n)`` (row 0 indexes ``a``, row 1
``b``) or, without it, pairs the sets elementwise (a set of one shape pairs with each
shape of the other). They return arrays over the n pairs:

- :func:`distance`: the least distance and a closest point on each shape.
- :func:`intersects`: whether the shapes share a point. Touching counts as
  overlapping: so do pairs closer than ``TOUCH`` times the pair's coordinate scale
  (its largest centre coordinate or bounding radius), the rounding of the method.
- :func:`penetration`: depth and unit normal. The normal points from A to B; the depth
  is the length of the shortest translation of B (along the normal) after which the
  shapes only touch. For separated pairs the depth is minus the distance and the
  normal the direction from A's closest point to B's.

Sphere and capsule pairs use segment-segment closest points, sphere-box the closest
point of a box, box-box overlap and penetration the separating-axis test over the 15
axes (its least overlap is the exact depth), half-spaces the support point of the other
shape; every other pair GJK on the shapes' cores (point, segment, box, cylinder, cone,
hull) with the sphere and capsule radii added after, and EPA where the cores overlap.
"""

from typing import NamedTuple

import numpy as np

from hitbox import _scale_groups as _sg
from hitbox import _validate as v
from hitbox import poses as _poses
from hitbox._kernels import convex_pairs as _k
from hitbox._kernels import manifold as _m
from hitbox._kernels import primitives as _p
from hitbox._kernels.shape_set import Shapes, magnitude

__all__ = [
    "KINDS",
    "MAX_POINTS",
    "TOUCH",
    "Shapes",
    "Distances",
    "Penetrations",
    "sphere",
    "capsule",
    "box",
    "cylinder",
    "cone",
    "hull",
    "halfspace",
    "triangles",
    "transform",
    "bounding_boxes",
    "concatenate",
    "distance",
    "intersects",
    "penetration",
    "manifold",
    "Manifolds",
]

#: Shape kinds, in the order of their codes in :attr:`Shapes.kind`.
KINDS = ("sphere", "capsule", "box", "cylinder", "cone", "hull", "halfspace")
#: Pairs closer than this times their coordinate scale touch (and so overlap).
TOUCH = _p.TOUCH
#: The most contact points of one pair's manifold.
MAX_POINTS = _m.MAX_POINTS

# Pair counts from which the parallel kernel runs.
_PARALLEL_MIN = 4096


class Distances(NamedTuple):
    """Per pair: ``distance (n,)``, ``point_a (n, 3)`` on A and ``point_b (n, 3)`` on B,
    ``|point_b - point_a| == distance`` up to rounding; for touching or overlapping
    pairs the distance is 0 and both points are one common point."""

    distance: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray


class Penetrations(NamedTuple):
    """Per pair: ``depth (n,)``, unit ``normal (n, 3)`` from A to B, and witness points
    ``point_a (n, 3)`` on A, ``point_b (n, 3)`` on B with ``point_a - point_b == depth *
    normal``: B moved by ``depth * normal`` touches A at ``point_a``. Separated pairs
    have ``depth = -distance``. Two crossing half-spaces cannot be separated: depth inf,
    normal and points NaN."""

    depth: np.ndarray
    normal: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray


class Manifolds(NamedTuple):
    """Contact manifolds, per pair k: ``count (n,)`` points (0 for a pair that does not
    touch, else 1 to 4); ``normal (n, 3)``, the pair's penetration normal (unit, A to
    B); for c < count[k], ``point_a[k, c]`` on A's surface and ``point_b[k, c]`` on B's,
    with ``point_a - point_b == depth[k, c] * normal[k]`` and ``depth[k, c]`` at least
    ``-TOUCH`` times the pair's scale. Rows beyond ``count`` are NaN."""

    count: np.ndarray
    normal: np.ndarray
    depth: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray


# -- building shapes ----------------------------------------------------------------------


def sphere(center, radius, *, pose=None):
    """Balls: ``center (N, 3)`` or ``(3,)``, ``radius`` scalar or ``(N,)``, >= 0 (0 is a
    point). Raises ValueError on shapes, NaN, inf or a negative radius."""
    c, n = _centres(center, "center")
    r = _sizes(radius, n, "radius")
    return _placed(_make(_p.SPHERE, np.broadcast_to(np.eye(3), (n, 3, 3)), c,
                         np.zeros((n, 3)), r, r), pose)  # fmt: skip


def capsule(p0, p1, radius, *, pose=None):
    """Capsules: the points within ``radius`` of the segments ``p0``-``p1`` (each
    ``(N, 3)`` or ``(3,)``). Equal end points make a sphere; radius 0 a segment."""
    rot, c, half, r = _axial(p0, p1, radius, "p0", "p1", "radius")
    dims = np.zeros((len(c), 3))
    dims[:, 2] = half
    return _placed(_make(_p.CAPSULE, rot, c, dims, r, half + r), pose)


def box(center, half, rot=None, *, pose=None):
    """Oriented boxes as :class:`~hitbox.OBBs` lay them out: ``center (N, 3)``, half
    extents ``half (N, 3)`` >= 0 (0 makes a flat box), ``rot (N, 3, 3)`` rotations whose
    columns are the box axes (identity if None)."""
    c, n = _centres(center, "center")
    h = _sizes(half, n, "half", per_axis=True)
    if rot is None:
        rots = np.broadcast_to(np.eye(3), (n, 3, 3))
    else:
        rots = v.as_float(rot, "rot", finite=True)
        rots = rots[None] if rots.ndim == 2 else rots
        if rots.shape[1:] != (3, 3) or len(rots) not in (1, n):
            raise ValueError(
                f"rot must have shape ({n}, 3, 3) or (3, 3), got {np.shape(rot)}"
            )
        rots = np.broadcast_to(rots, (n, 3, 3))
        _check_rotations(rots, "rot")
    return _placed(_make(_p.BOX, rots, c, h, np.zeros(n), v.lengths(h, axis=1)), pose)


def cylinder(p0, p1, radius, *, pose=None):
    """Solid cylinders whose end discs have centres ``p0`` and ``p1`` ((N, 3) or (3,))
    and the given ``radius``. Equal end points make a disc, radius 0 a segment."""
    rot, c, half, r = _axial(p0, p1, radius, "p0", "p1", "radius")
    dims = np.stack([r, np.zeros(len(c)), half], axis=1)
    return _placed(_make(_p.CYLINDER, rot, c, dims, np.zeros(len(c)), np.hypot(r, half)),
                   pose)  # fmt: skip


def cone(base, apex, radius, *, pose=None):
    """Solid cones: a base disc of ``radius`` centred at ``base``, tip at ``apex``
    ((N, 3) or (3,)). Equal points make a disc, radius 0 a segment."""
    rot, c, half, r = _axial(base, apex, radius, "base", "apex", "radius")
    dims = np.stack([r, np.zeros(len(c)), half], axis=1)
    return _placed(_make(_p.CONE, rot, c, dims, np.zeros(len(c)), np.hypot(r, half)),
                   pose)  # fmt: skip


def hull(points, *, pose=None):
    """Convex polyhedra: the convex hulls of point sets.

    ``points`` is one set ``(K, 3)``, N sets ``(N, K, 3)``, or a list of ``(K_i, 3)``
    arrays; K >= 1. With scipy installed only the hull's vertices are kept
    (``scipy.spatial.ConvexHull``, Barber et al. 1996); a flat or otherwise degenerate set
    (a polygon, a segment, a point) keeps all its points. Either way the shape is the
    convex hull: the queries only ever ask for the point farthest along a direction.
    """
    if (
        isinstance(points, list | tuple)
        and points
        and all(np.ndim(p) == 2 for p in points)
    ):
        sets = [v.as_points(p, f"points[{m}]", dim=3, finite=True)[0]
                for m, p in enumerate(points)]  # fmt: skip
    else:
        arr = v.as_float(points, "points", finite=True)
        if arr.ndim == 2:
            arr = arr[None]
        if arr.ndim != 3 or arr.shape[2] != 3:
            raise ValueError(
                f"points must have shape (K, 3) or (N, K, 3), got {arr.shape}"
            )
        sets = list(arr)
    for m, pts in enumerate(sets):
        if len(pts) == 0:
            raise ValueError(f"points[{m}] is empty: a hull needs at least one point")
    n = len(sets)
    local = [_hull_vertices(pts) for pts in sets]
    centres = np.array([p.mean(axis=0) for p in local]).reshape(n, 3)
    local = [p - c for p, c in zip(local, centres, strict=True)]
    count = np.array([len(p) for p in local], np.intp)
    first = np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.intp)
    verts = np.concatenate(local) if n else np.zeros((0, 3))
    bound = np.array([v.lengths(p, axis=1).max() for p in local]).reshape(n)
    return _placed(
        Shapes(np.full(n, _p.HULL, np.intp), _c(np.broadcast_to(np.eye(3), (n, 3, 3))),
               _c(centres), np.zeros((n, 3)), np.zeros(n), _c(bound), first, count,
               _c(verts)),
        pose,
    )  # fmt: skip


def halfspace(normal, offset, *, pose=None):
    """Half-spaces ``{x : normal . x <= offset}``: ``normal (N, 3)`` or ``(3,)``, not
    zero (it is normalised), ``offset`` scalar or ``(N,)``."""
    nrm, n = _centres(normal, "normal")
    off = v.as_float(offset, "offset", finite=True)
    off = np.broadcast_to(off, (n,)) if off.ndim == 0 or off.shape == (1,) else off
    if off.shape != (n,):
        raise ValueError(f"offset must be a scalar or have shape ({n},), got {off.shape}")
    length = v.lengths(nrm, axis=1)
    if (length == 0).any():
        raise ValueError(f"normal[{int(np.argmax(length == 0))}] is zero")
    unit = nrm / length[:, None]
    trans = unit * (off / length)[:, None]
    return _placed(_make(_p.HALFSPACE, _frames(unit), trans, np.zeros((n, 3)),
                         np.zeros(n), np.zeros(n)), pose)  # fmt: skip


def triangles(corners):
    """Triangles as flat convex shapes (each the hull of its corners): ``corners
    (N, 3, 3)`` or ``(3, 3)``, finite. Degenerate triangles (a segment, a point) are
    legal: a triangle is the convex hull of its corners."""
    arr = v.as_float(corners, "corners", finite=True)
    arr = arr[None] if arr.ndim == 2 else arr
    if arr.ndim != 3 or arr.shape[1:] != (3, 3):
        raise ValueError(f"corners must have shape (N, 3, 3) or (3, 3), got {arr.shape}")
    n = len(arr)
    centres = arr.mean(axis=1)
    local = arr - centres[:, None, :]
    bound = v.lengths(local, axis=2).max(axis=1) if n else np.zeros(0)
    return Shapes(np.full(n, _p.HULL, np.intp), _c(np.broadcast_to(np.eye(3), (n, 3, 3))),
                  _c(centres), np.zeros((n, 3)), np.zeros(n), _c(bound),
                  np.arange(0, 3 * n, 3, dtype=np.intp), np.full(n, 3, np.intp),
                  _c(local.reshape(-1, 3)))  # fmt: skip


def bounding_boxes(shapes):
    """World axis-aligned boxes ``(N, 2, 3)`` holding the shapes, widened by the touching
    tolerance (:data:`TOUCH` times each shape's scale): a shape that touches anything
    has its box meet that thing's box. A half-space's box is all of space."""
    s = _as_shapes(shapes, "shapes")
    out = np.empty((len(s.kind), 2, 3))
    _p.bounding_boxes(s, 4.0 * TOUCH, out)
    return out


def transform(shapes, poses):
    """The shapes moved by rigid poses: ``(K, 4, 4)`` or ``(4, 4)`` matrices, or a
    ``(positions, quaternions)`` pair (see :func:`hitbox.poses.from_quaternions`).

    N shapes and K poses pair elementwise; one shape and K poses give K copies (hull
    vertices shared, not copied); one pose moves every shape.
    """
    s = _as_shapes(shapes, "shapes")
    if isinstance(poses, tuple) and len(poses) == 2:
        poses = _poses.from_quaternions(*poses)
    rot, trans, _ = v.as_transforms(poses, "poses", rigid=True)
    n, k = len(s.kind), len(rot)
    if n != k and 1 not in (n, k):
        raise ValueError(
            f"{n} shapes and {k} poses: give as many poses as shapes, or one"
        )
    m = max(n, k) if n and k else 0
    si = np.zeros(m, np.intp) if n == 1 else np.arange(m)
    pi = np.zeros(m, np.intp) if k == 1 else np.arange(m)
    new_rot = np.einsum("kij,kjl->kil", rot[pi], s.rot[si])
    new_trans = np.einsum("kij,kj->ki", rot[pi], s.trans[si]) + trans[pi]
    return Shapes(s.kind[si].copy(), _c(new_rot), _c(new_trans), _c(s.dims[si]),
                  _c(s.radius[si]), _c(s.bound[si]), _c(s.first[si]), _c(s.count[si]),
                  s.vertices)  # fmt: skip


def concatenate(sets):
    """One :class:`Shapes` holding every shape of ``sets`` (a sequence), in order."""
    sets = [_as_shapes(s, f"sets[{m}]") for m, s in enumerate(sets)]
    if not sets:
        return _make(_p.SPHERE, np.zeros((0, 3, 3)), np.zeros((0, 3)), np.zeros((0, 3)),
                     np.zeros(0), np.zeros(0))  # fmt: skip
    shift = np.cumsum([0] + [len(s.vertices) for s in sets[:-1]])
    parts = [np.concatenate([getattr(s, f) for s in sets]) for f in Shapes._fields[:6]]
    first = np.concatenate([s.first + o for s, o in zip(sets, shift, strict=True)])
    count = np.concatenate([s.count for s in sets])
    verts = np.concatenate([s.vertices for s in sets])
    return Shapes(*(_c(p) for p in parts), _c(first.astype(np.intp)),
                  _c(count.astype(np.intp)), _c(verts))  # fmt: skip


# -- pair queries -------------------------------------------------------------------------


def distance(a, b, pairs=None):
    """Least distance of each pair and a closest point on each shape: a
    :class:`Distances` over the n pairs (see the module notes for ``pairs``).

    Exact (to rounding) for closed forms and pairs of polytopes; with a cylinder or
    cone GJK stops when the distance is known to 1e-12 relative (Gilbert, Johnson,
    Keerthi 1988; van den Bergen 2004), the points and direction to about 1e-6.
    Raises ValueError or TypeError naming a bad argument.
    """
    (value, point_a, point_b, _), _, _ = _run(_p.DISTANCE, a, b, pairs)
    return Distances(value, point_a, point_b)


def intersects(a, b, pairs=None):
    """Whether each pair shares a point, touching included: ``(n,)`` bool.

    Equal to ``distance(a, b, pairs).distance == 0``; often faster (bounding spheres
    first, GJK stops at a separating direction, box pairs by separating axes).
    """
    _, hit, _ = _run(_p.INTERSECTS, a, b, pairs)
    return hit


def penetration(a, b, pairs=None):
    """Penetration depth and normal of each pair: a :class:`Penetrations`.

    Exact for sphere, capsule and box pairs (closed forms; box-box from the least of
    the 15 separating-axis overlaps), half-spaces, and polytope pairs (EPA, van den
    Bergen 2001, on the Minkowski difference's faces). With a cylinder or cone EPA
    converges on a curved surface: the depth is always achievable (B moved by ``depth *
    normal`` no longer overlaps A), and where EPA runs out of its 512 support points it
    is the least such depth along the normals it tried (within about 1e-6 of the least
    depth in the tests); ``point_b`` is then B's deepest point along the normal and
    ``point_a`` that point moved by the depth (off A where B's deepest points along the
    normal form a segment, as along a cylinder's side). Swapping ``a`` and ``b`` negates
    the normal and swaps the points. Where the cores of a pair meet in a flat set (two
    coplanar discs, crossing capsule axes) the depth is the sum of the radii and the
    normal is perpendicular to that set.
    """
    (depth, point_a, point_b, normal), _, _ = _run(_p.PENETRATION, a, b, pairs)
    depth += 0.0  # a touching pair's -distance is -0.0: read as 0, not as apart
    normal += 0.0  # no -0.0 components (closed forms negate zeros)
    return Penetrations(depth, normal, point_a, point_b)


def manifold(a, b, pairs=None):
    """The contact manifold of each touching pair: up to four points where the two
    meet, with each point's depth along the pair's normal (a :class:`Manifolds`).

    The normal is :func:`penetration`'s. Each shape's supporting face along it (a box's
    face, a hull's vertices on its supporting plane, a cylinder's cap as a polygon
    inscribed in its rim, a capsule's segment lying flat, a sphere's deepest point)
    are clipped against each other and paired along the normal; points more than the
    touching tolerance apart are dropped, and more than four reduced to four (the
    deepest, the farthest from it, and the two spanning the largest triangles). A point
    feature or two crossing edges give the one deepest point pair. After Jolt Physics'
    ``ManifoldBetweenTwoFaces`` and Box2D's reference and incident faces. Two
    half-spaces that cannot be separated (normal NaN) have count 0; two opposite ones
    their penetration's point pair.
    """
    a = _as_shapes(a, "a")
    b = _as_shapes(b, "b")
    (_, point_a, point_b, normal), hit, beyond = _run(_p.PENETRATION, a, b, pairs)
    ia, ib = v.pair_indices(len(a.kind), len(b.kind), pairs, "shapes")
    if beyond:  # pairs beyond 2**+-100: the clipping too, each at a scale where it fits
        return _manifolds_by_scale(a, b, ia, ib)
    n = len(ia)
    scale = np.maximum(a.bound[ia], b.bound[ib])
    if n:
        scale = np.maximum(scale, np.abs(a.trans[ia]).max(axis=1))
        scale = np.maximum(scale, np.abs(b.trans[ib]).max(axis=1))
    out = (np.full((n, _m.MAX_POINTS), np.nan), np.full((n, _m.MAX_POINTS, 3), np.nan),
           np.full((n, _m.MAX_POINTS, 3), np.nan))  # fmt: skip
    count = np.zeros(n, np.intp)
    if n:
        _m.manifolds(a, ia, b, ib, hit, normal, point_a, point_b,
                     TOUCH * np.maximum(scale, 1e-300), count, out[1], out[2], out[0])  # fmt: skip
    normal[count == 0] = np.nan
    return Manifolds(count, normal + 0.0, *out)


# -- helpers ------------------------------------------------------------------------------


def _run(mode, a, b, pairs):
    """(out, hit, beyond) of the pairs: ``beyond``, whether some pair's magnitude lay
    beyond 2**+-100 (solved again at a power-of-two scale, :func:`_rescaled`)."""
    a = _as_shapes(a, "a")
    b = _as_shapes(b, "b")
    ia, ib = v.pair_indices(len(a.kind), len(b.kind), pairs, "shapes")
    n = len(ia)
    # every pair writes its row of all four (INTERSECTS too, which returns hit alone)
    out = (np.empty(n), np.empty((n, 3)), np.empty((n, 3)), np.empty((n, 3)))
    hit = np.zeros(n, np.bool_)
    left = 0
    if n:
        kernel = _k.query_parallel if n >= _PARALLEL_MIN else _k.query
        left = kernel(mode, a, ia, b, ib, out, hit)
    if left:
        _rescaled(mode, a, b, ia, ib, out, hit)
    return out, hit, left > 0


def _rescaled(mode, a, b, ia, ib, out, hit):
    """Solves the pairs the kernel left, those whose largest centre coordinate or
    bounding radius lies beyond 2**+-100 (products of their coordinates could overflow
    or vanish), each at the power of two that brings it near 1 (exact), and maps the
    answers back into ``out`` and ``hit``."""
    big = np.maximum(
        np.maximum(np.abs(a.trans[ia]).max(axis=1), a.bound[ia]),
        np.maximum(np.abs(b.trans[ib]).max(axis=1), b.bound[ib]),
    )
    g = v.pow2_each(big, v.SQUARES_SAFE_EXP)
    for scale in np.unique(g[g != 1.0]).tolist():
        rows = np.flatnonzero(g == scale)
        sub, sub_hit, _ = _run(mode, scaled(a, scale), scaled(b, scale),
                               np.stack([ia[rows], ib[rows]]))  # fmt: skip
        hit[rows] = sub_hit
        if mode != _p.INTERSECTS:  # lengths back to the caller's scale
            for part, back in zip(out, sub, strict=True):
                part[rows] = back if part is out[3] else back / scale


def safe_scale(*sets, size=0.0):
    """The power of two that brings the shape sets (and a mesh of the given ``size``)
    to magnitudes where their queries' products of coordinates neither overflow nor
    vanish: 1.0 unless some position or size lies beyond 2**+-100
    (:func:`hitbox._validate.pow2_for`)."""
    big = max([size] + [magnitude(s.trans, s.bound) for s in sets])
    return v.pow2_for(big, v.SQUARES_SAFE_EXP)


def _manifolds_by_scale(a, b, ia, ib):
    """:func:`manifold` of the pairs (ia, ib), each group of pairs sharing a power of two
    (:func:`hitbox._scale_groups.scale_groups` of their positions and sizes) solved at it:
    one scale for all would shrink the ordinary pairs until their clipping fails."""
    size_a = _sg.magnitudes(len(a.kind), a.trans, a.bound)
    size_b = _sg.magnitudes(len(b.kind), b.trans, b.bound)
    big = np.maximum(size_a[ia], size_b[ib])
    groups = _sg.scale_groups(big, v.SQUARES_SAFE_EXP) or [
        (v.pow2_for(float(big.max()), v.SQUARES_SAFE_EXP), np.arange(len(ia)))
    ]
    parts = []
    for g, rows in groups:
        m = manifold(scaled(take(a, ia[rows]), g), scaled(take(b, ib[rows]), g))
        m = m._replace(depth=m.depth / g, point_a=m.point_a / g, point_b=m.point_b / g)
        parts.append((rows, m))
    return _sg.in_order(len(ia), parts)


def take(shapes, rows):
    """The shapes at ``rows`` (hull vertices shared)."""
    fields = [np.ascontiguousarray(f[rows]) for f in shapes[:-1]]
    return Shapes(*fields, shapes.vertices)


def scaled(s, g):
    """Shapes ``s`` scaled by the power of two ``g`` (exact): positions, sizes, hulls'
    vertices; the rotations and kinds are the same."""
    return s._replace(trans=s.trans * g, dims=s.dims * g, radius=s.radius * g,
                      bound=s.bound * g, vertices=s.vertices * g)  # fmt: skip


def _as_shapes(s, name):
    if not isinstance(s, Shapes):
        raise TypeError(
            f"{name} must be a hitbox.convex.Shapes (from sphere(), box(), ...), "
            f"got {type(s).__name__}"
        )
    return s


def _c(arr):
    return np.require(arr, requirements="CW")


def _make(kind, rot, trans, dims, radius, bound):
    n = len(trans)
    return Shapes(np.full(n, kind, np.intp), _c(np.asarray(rot, np.float64)),
                  _c(np.asarray(trans, np.float64)), _c(np.asarray(dims, np.float64)),
                  _c(np.asarray(radius, np.float64)), _c(np.asarray(bound, np.float64)),
                  np.zeros(n, np.intp), np.zeros(n, np.intp), np.zeros((0, 3)))  # fmt: skip


def _placed(shapes, pose):
    return shapes if pose is None else transform(shapes, pose)


def _centres(value, name):
    arr, _ = v.as_points(value, name, dim=3, finite=True)
    return arr, len(arr)


def _sizes(value, n, name, per_axis=False):
    arr = v.as_float(value, name, finite=True)
    want = (n, 3) if per_axis else (n,)
    if per_axis and arr.shape == (3,):
        arr = np.broadcast_to(arr, want)
    elif not per_axis and (arr.ndim == 0 or arr.shape == (1,)):
        arr = np.broadcast_to(arr.reshape(()), want)
    if arr.shape != want:
        one = "(3,)" if per_axis else "a scalar"
        raise ValueError(f"{name} must be {one} or have shape {want}, got {arr.shape}")
    bad = (arr < 0).reshape(n, -1 if n else 1).any(axis=1)
    if bad.any():
        raise ValueError(f"{name}[{int(np.argmax(bad))}] is negative")
    return _c(arr)


def _axial(p0, p1, radius, name0, name1, rname):
    """Frame, centre, half length and radius of shapes given by two axis points."""
    a, na = _centres(p0, name0)
    b, nb = _centres(p1, name1)
    if na != nb and 1 not in (na, nb):
        raise ValueError(f"{name0} ({na}) and {name1} ({nb}) differ in length")
    n = max(na, nb)
    a, b = np.broadcast_to(a, (n, 3)), np.broadcast_to(b, (n, 3))
    r = _sizes(radius, n, rname)
    axis = b - a
    length = v.lengths(axis, axis=1)
    unit = np.zeros((n, 3))
    unit[:, 2] = 1.0
    nz = length > 0
    unit[nz] = axis[nz] / length[nz, None]
    return _frames(unit), 0.5 * (a + b), 0.5 * length, r


def _frames(unit):
    """Rotations whose third column is the unit vector given (Duff et al., Building an
    Orthonormal Basis, Revisited, JCGT 2017)."""
    x, y, z = unit.T
    sign = np.where(z >= 0.0, 1.0, -1.0)
    a = -1.0 / (sign + z)
    b = x * y * a
    rot = np.empty((len(unit), 3, 3))
    rot[:, :, 0] = np.stack([1.0 + sign * x * x * a, sign * b, -sign * x], axis=1)
    rot[:, :, 1] = np.stack([b, sign + y * y * a, -y], axis=1)
    rot[:, :, 2] = unit
    return rot


def _check_rotations(rots, name):
    err = np.abs(np.einsum("nji,njk->nik", rots, rots) - np.eye(3)).max(axis=(1, 2))
    bad = (err > 1e-6) | (np.linalg.det(rots) <= 0)
    if bad.any():
        raise ValueError(f"{name}[{int(np.argmax(bad))}] is not a rotation")


def _hull_vertices(pts):
    pts = np.unique(pts, axis=0)
    if len(pts) < 5:
        return pts
    try:
        from scipy.spatial import ConvexHull, QhullError
    except ImportError:
        return pts
    # joggled (QJ): with its default merging of nearly coplanar facets, qhull dropped
    # corners of nearly flat sets (a flat octagon 1e-9 thick kept 4 of its 8 corners:
    # the shape shrank and a touching capsule was found 0.06 away). Joggled, a point
    # extreme by more than the joggle (about 1e-11 of the size) stays a vertex; the
    # coplanar points and any point outside some facet's plane are kept as well.
    try:
        hull = ConvexHull(pts, qhull_options="QJ Qc")
    except QhullError:  # fewer than four distinct points: every point is kept
        return pts
    keep = np.zeros(len(pts), bool)
    keep[hull.vertices] = True
    if len(hull.coplanar):
        keep[hull.coplanar[:, 0]] = True
    keep |= (pts @ hull.equations[:, :3].T + hull.equations[:, 3] > 0.0).any(axis=1)
    return pts[keep]
