"""Axis-aligned bounding boxes in 1, 2 and 3 dimensions (SPEC §1).

A box is ``(2, D)``: row 0 is lo, row 1 is hi. A set of N boxes is ``(N, 2, D)``. Intervals
are closed: touching boxes overlap and boundary points are inside. The empty box is
lo = +inf, hi = -inf; any box given with lo > hi on some axis is taken as that one box.
"""

import numpy as np

from hitbox import _affine
from hitbox import _validate as v
from hitbox._kernels import slabs

#: The queries every box kind answers, by these names (obb's as well; STYLE §3).
BOX_QUERIES = (
    "volume",
    "corners",
    "contains_points",
    "closest_points",
    "overlap",
    "overlap_pairs",
    "overlap_pairs_brute",
    "transform",
)

__all__ = [
    "empty",
    "is_empty",
    "from_points",
    "from_vertices",
    "union",
    "union_points",
    "union_all",
    "intersection",
    "center",
    "size",
    "radius",
    *BOX_QUERIES,
]


def _squeeze(result, single):
    """One item in, one out: a Python scalar or the single row."""
    if not single:
        return result
    return result[0].item() if result.ndim == 1 else result[0]


def empty(n=None, dim=3):
    """The empty box ``(2, D)`` (or ``(n, 2, D)`` of them): lo = +inf, hi = -inf."""
    dim = v.check_count(dim, "dim")
    if dim > 3:
        raise ValueError(f"dim must be 1, 2 or 3, got {dim}")
    box = np.array([[np.inf] * dim, [-np.inf] * dim])
    if n is None:
        return box
    return np.ascontiguousarray(np.broadcast_to(box, (v.check_count(n, "n", 0), 2, dim)))


def is_empty(boxes):
    """``(N,) bool``: True where lo > hi on some axis (bool for one box)."""
    boxes, single = v.as_boxes(boxes)
    return _squeeze(np.isposinf(boxes[:, 0, 0]), single)


def from_points(points, *, transform=None):
    """Tightest box of each group of points.

    Parameters
    ----------
    points : (P, K, D) float, or (K, D) for one group
    transform : (D+1, D+1) float, optional
        Affine map applied to the points first: the exact box of the moved object
        (compare :func:`transform`, which bounds a moved box).

    Returns
    -------
    (P, 2, D) float, or (2, D). A group with K = 0 gives the empty box.
    """
    groups, single = v.as_point_groups(points)
    if transform is not None:
        linear, trans = v.as_transform(transform, "transform", dim=groups.shape[2])
        groups = _affine.apply(linear, trans, groups)
    out = np.empty((len(groups), 2, groups.shape[2]))
    out[:, 0] = groups.min(axis=1, initial=np.inf)
    out[:, 1] = groups.max(axis=1, initial=-np.inf)
    return _squeeze(out, single)


def from_vertices(vertices, *, transform=None):
    """Box of a mesh's vertices ``(V, D)`` (004 ``calculateAABB``); V = 0 gives the empty box."""
    verts, _ = (
        v.as_points(vertices, "vertices", finite=True)
        if np.size(vertices)
        else (
            None,
            None,
        )
    )
    if verts is None:
        shape = np.shape(vertices)
        dim = shape[-1] if len(shape) == 2 and 1 <= shape[-1] <= 3 else 3
        return empty(dim=dim)
    return from_points(verts, transform=transform)


def union(a, b):
    """Elementwise smallest box holding both (broadcasting). Seed 002's union compares
    ``b.min`` against the max side; here hi is max(a.hi, b.hi)."""
    a, sa = v.as_boxes(a, "a")
    b, sb = v.as_boxes(b, "b", dim=a.shape[2])
    return _squeeze(slab_union(a, b), sa and sb)


def union_points(boxes, points):
    """Elementwise box grown to hold a point (seed ``add(point)``), broadcasting."""
    boxes, sb = v.as_boxes(boxes)
    pts, sp = v.as_points(points, dim=boxes.shape[2], finite=True)
    check_broadcast(boxes, pts, "points")
    out = np.empty((max(len(boxes), len(pts)), 2, boxes.shape[2]))
    np.minimum(boxes[:, 0], pts, out=out[:, 0])
    np.maximum(boxes[:, 1], pts, out=out[:, 1])
    return _squeeze(out, sb and sp)


def union_all(boxes):
    """One box holding every box of the set (empty set → empty box)."""
    boxes, _ = v.as_boxes(boxes)
    out = np.empty((2, boxes.shape[2]))
    out[0] = boxes[:, 0].min(axis=0, initial=np.inf)
    out[1] = boxes[:, 1].max(axis=0, initial=-np.inf)
    return out


def intersection(a, b):
    """Elementwise overlap box (000 ``intersectAABBs``): max of lows, min of highs; the
    empty box where they are disjoint. Touching boxes give a flat box."""
    a, sa = v.as_boxes(a, "a")
    b, sb = v.as_boxes(b, "b", dim=a.shape[2])
    check_broadcast(a, b)
    out = np.empty(np.broadcast_shapes(a.shape, b.shape))
    np.maximum(a[:, 0], b[:, 0], out=out[:, 0])
    np.minimum(a[:, 1], b[:, 1], out=out[:, 1])
    return _squeeze(v.canonical_empty(out), sa and sb)


def center(boxes):
    """``(N, D)`` centres ``(lo + hi) / 2``; NaN for the empty box, which has none."""
    boxes, single = v.as_boxes(boxes)
    with np.errstate(invalid="ignore"):
        return _squeeze(0.5 * (boxes[:, 0] + boxes[:, 1]), single)


def size(boxes):
    """``(N, D)`` side lengths ``hi - lo``; 0 for the empty box."""
    boxes, single = v.as_boxes(boxes)
    return _squeeze(np.maximum(boxes[:, 1] - boxes[:, 0], 0.0), single)


def radius(boxes):
    """``(N, D)`` radius vectors (half sizes); 0 for the empty box."""
    return 0.5 * size(boxes)


def volume(boxes):
    """``(N,)`` volumes (area in 2D, length in 1D); 0 for the empty box."""
    boxes, single = v.as_boxes(boxes)
    return _squeeze(np.prod(np.maximum(boxes[:, 1] - boxes[:, 0], 0.0), axis=1), single)


def corners(boxes):
    """``(N, 2**D, D)`` corners; in corner ``c`` bit k picks axis k's side (0 lo, 1 hi),
    so in 3D bit 0 is x, bit 1 is y, bit 2 is z (seed 002 ``corner(i)``)."""
    boxes, single = v.as_boxes(boxes)
    d = boxes.shape[2]
    bits = (np.arange(2**d)[:, None] >> np.arange(d)) & 1  # (2**D, D)
    out = boxes[:, bits, np.arange(d)]
    return _squeeze(np.ascontiguousarray(out), single)


def contains_points(boxes, points):
    """Elementwise closed containment (boundary counts), broadcasting boxes and points."""
    boxes, sb = v.as_boxes(boxes)
    pts, sp = v.as_points(points, dim=boxes.shape[2])
    check_broadcast(boxes, pts, "points")
    hit = np.all((boxes[:, 0] <= pts) & (pts <= boxes[:, 1]), axis=1)
    return _squeeze(hit, sb and sp)


def closest_points(boxes, points):
    """Elementwise closest point of the box to each point: clamp per axis (seed 002).

    Raises ValueError for an empty box, which has no points.
    """
    boxes, sb = v.as_boxes(boxes)
    pts, sp = v.as_points(points, dim=boxes.shape[2])
    check_broadcast(boxes, pts, "points")
    empties = np.isposinf(boxes[:, 0, 0])
    if empties.any():
        raise ValueError(
            f"boxes[{int(np.argmax(empties))}] is empty: it has no closest point"
        )
    out = np.minimum(np.maximum(pts, boxes[:, 0]), boxes[:, 1])
    return _squeeze(out, sb and sp)


def overlap(a, b):
    """Elementwise closed overlap of two box sets (one box against many broadcasts).

    Returns ``(N,) bool``, or a bool for two single boxes.
    """
    a, sa = v.as_boxes(a, "a", scan=False)
    b, sb = v.as_boxes(b, "b", dim=a.shape[2], scan=False)
    return slab_overlap(a, b, sa and sb)


def overlap_pairs(a, b):
    """Every overlapping pair between two sets, without an N x M matrix.

    Returns ``(2, n) intp``: row 0 indexes ``a``, row 1 indexes ``b``, sorted by (i, j).
    Sort-and-sweep along the axis where the boxes are most spread out, count then fill.
    """
    a, _ = v.as_boxes(a, "a")
    b, _ = v.as_boxes(b, "b", dim=a.shape[2])
    return sweep_pairs(a, b)


def overlap_pairs_brute(a, b):
    """Slow twin of :func:`overlap_pairs`: every pair tested (the oracle's kernel form)."""
    a, _ = v.as_boxes(a, "a")
    b, _ = v.as_boxes(b, "b", dim=a.shape[2])
    return slabs.overlap_pairs_brute(a, b)


def transform(boxes, matrix):
    """Boxes of the transformed boxes by Arvo's method (000 ``setToTransformedBox``).

    ``matrix`` is a homogeneous ``(D+1, D+1)`` affine map. The result holds the exact box of
    the transformed object (never smaller); the empty box stays empty. For the exact box of
    a moved object, refit it: ``from_points(vertices, transform=matrix)``.
    """
    boxes, single = v.as_boxes(boxes)
    linear, trans = v.as_transform(matrix, "matrix", dim=boxes.shape[2])
    out = _affine.arvo(linear, trans, boxes)
    out[np.isposinf(boxes[:, 0, 0])] = empty(dim=boxes.shape[2])
    return _squeeze(out, single)


# -- helpers shared with kdop (same layout) ------------------------------------------------


#: Below this many boxes in all, sort-and-sweep beats building a tree.
SWEEP_MAX = 2_000
#: Boxes per leaf of the implicit tree used for larger all-pairs queries.
TREE_LEAF = 4


def sweep_pairs(a, b):
    """Validated slab sets → sorted (2, n) overlapping pairs.

    Small sets: sort-and-sweep on the most spread axis. Larger: an implicit Morton-ordered
    tree over the larger set, queried by each box of the other. In clustered 3D scenes a
    1D sweep scans about n^(2/3) false starts per box; the tree does not.
    """
    if len(a) == 0 or len(b) == 0:
        return np.empty((2, 0), np.intp)
    if len(a) + len(b) > SWEEP_MAX:
        order_a, order_b = slabs.morton_order(a), slabs.morton_order(b)
        if len(a) > len(b):
            return _sorted(slabs.tree_pairs(b, a, order_b, order_a, TREE_LEAF)[::-1])
        return _sorted(slabs.tree_pairs(a, b, order_a, order_b, TREE_LEAF))
    axis = _sweep_axis(a, b)
    order_a = np.argsort(a[:, 0, axis], kind="stable")
    order_b = np.argsort(b[:, 0, axis], kind="stable")
    return _sorted(slabs.overlap_pairs(a, b, order_a, order_b, axis))


def _sorted(pairs):
    return np.ascontiguousarray(pairs[:, np.lexsort((pairs[1], pairs[0]))])


def _sweep_axis(a, b):
    """The axis whose box centres spread most relative to box sizes: fewest false starts."""
    both = np.concatenate([a, b])
    finite = np.all(np.isfinite(both), axis=(1, 2))
    if not finite.any():
        return 0
    both = both[finite]
    spread = np.ptp(0.5 * (both[:, 0] + both[:, 1]), axis=0)
    extent = np.mean(both[:, 1] - both[:, 0], axis=0) + 1e-300
    return int(np.argmax(spread / extent))


def slab_overlap(a, b, single, noun="boxes"):
    """Validated slab sets (boxes or k-DOPs) → elementwise overlap, broadcasting one
    against many; NaN is found inside the kernel's one pass."""
    check_broadcast(a, b, noun=noun)
    out = np.empty(max(len(a), len(b)) if min(len(a), len(b)) else 0, dtype=np.bool_)
    if len(out):
        bad = np.full(2, -1, np.intp)
        slabs.overlap(a, b, out, bad)
        v.raise_nan(bad, ("a", "b"))
    return bool(out[0]) if single else out


def slab_union(a, b, noun="boxes"):
    """Validated slab sets → elementwise smallest slab set holding both."""
    check_broadcast(a, b, noun=noun)
    out = np.empty(np.broadcast_shapes(a.shape, b.shape))
    np.minimum(a[:, 0], b[:, 0], out=out[:, 0])
    np.maximum(a[:, 1], b[:, 1], out=out[:, 1])
    return out


def check_broadcast(a, b, name_b="b", noun="boxes"):
    if len(a) != len(b) and len(a) != 1 and len(b) != 1:
        raise ValueError(f"cannot broadcast {len(a)} {noun} against {len(b)} {name_b}")
