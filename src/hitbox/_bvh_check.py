"""The invariants of a :class:`hitbox.bvh.BVH`, checked on trees read from files and by
``BVH.validate``: each check raises ValueError naming the first thing broken.

:func:`check_structure` (arrays, topology, depth) comes first: the later checks and their
kernels index by it. :func:`check_bounds` needs only the tree: finite volumes, each
node's box around its children's boxes and its slots' boxes. :func:`check_points` takes
the points the tree was built on: exact boxes, every node volume around every point
under it.
"""

import numpy as np

from hitbox import kdop
from hitbox._kernels import bvh_check as _check
from hitbox._kernels import bvh_fit as _fit
from hitbox._types import OBBs, Spheres

INT_ARRAYS = ("node_first", "node_count", "prim_order")
#: How far from orthonormal an OBB node's axes may be (fitted ones are to rounding).
ROT_TOL = 1e-9
#: A point may stick out of a node's sphere or OBB by this much, relative to the node's
#: ``|centre|_1 + extent``: far above the check's rounding, a tenth of the padding the
#: fit adds (``bvh_fit.PAD``) and of the slack every node test allows, so a tree that
#: passes answers as the tree rebuilt from its points.
VOLUME_REL_TOL = 1e-13


def fail(msg):
    raise ValueError(f"BVH invalid: {msg}")


def kdop_k(kind):
    return int(kind[4:])


def arrays(tree):
    """(name, array) of every array of the tree."""
    out = [(name, getattr(tree, name)) for name in (*INT_ARRAYS, "node_box", "slot_box")]
    bv = tree.node_bv
    if isinstance(bv, tuple):
        out += [(f"node_bv.{f}", arr) for f, arr in zip(bv._fields, bv, strict=True)]
    else:
        out.append(("node_bv", bv))
    return out


def check_structure(tree, read_only=True):
    """Arrays of the kind's layout and dtype (read-only unless told), a binary tree with
    children pairs after their parents, slot runs tiling [0, N), ``prim_order`` a
    permutation, ``depth`` the longest path. Returns (span_lo, span_hi) of every node."""
    nf, nc, order = tree.node_first, tree.node_count, tree.prim_order
    for name in INT_ARRAYS:
        arr = getattr(tree, name)
        if not isinstance(arr, np.ndarray) or arr.ndim != 1 or arr.dtype != np.intp:
            fail(f"{name} must be a 1-D intp array, got {_describe(arr)}")
    m, n = len(nf), len(order)
    if len(nc) != m:
        fail(f"node_first has {m} entries, node_count {len(nc)}")
    _check_layout(tree, m, n)
    if read_only:
        for name, arr in arrays(tree):
            if arr.flags.writeable:
                fail(f"{name} is writeable; built trees are read-only")
    span_lo = np.empty(m, np.intp)
    span_hi = np.empty(m, np.intp)
    if n == 0:
        if m != 0 or tree.depth != 0:
            fail(f"an empty tree has no nodes and depth 0, got {m} nodes, {tree.depth}")
        return span_lo, span_hi
    if (nc < 0).any() or (nc > n).any():
        fail(f"node_count[{int(np.argmax((nc < 0) | (nc > n)))}] is not in 0..{n}")
    leaf = nc > 0
    n_leaves = int(leaf.sum())
    if m != 2 * n_leaves - 1:
        fail(f"{m} nodes for {n_leaves} leaves; a binary tree has 2L - 1")
    inner = np.flatnonzero(~leaf)
    first = nf[inner]
    bad = (first <= inner) | (first + 1 >= m) | (first % 2 != 1)
    if bad.any():
        i = int(inner[np.argmax(bad)])
        fail(f"node {i}: children {nf[i]}, {nf[i] + 1} must be an odd-even pair after it")
    children = np.sort(np.concatenate([first, first + 1]))
    if not np.array_equal(children, np.arange(1, m)):
        fail("every node but the root must be the child of exactly one node")
    leaves = np.flatnonzero(leaf)
    if (nf[leaves] < 0).any() or (nf[leaves] > n - nc[leaves]).any():
        fail(f"a leaf's slots run past the {n} slots")
    seen = np.zeros(n, bool)
    in_range = (order >= 0) & (order < n)
    seen[order[in_range]] = True
    if not in_range.all() or not seen.all():
        fail("prim_order is not a permutation of 0..N-1")
    _fit.spans(nf, nc, span_lo, span_hi)
    if span_lo[0] != 0 or span_hi[0] != n:
        fail(f"the root covers slots [{span_lo[0]}, {span_hi[0]}), not [0, {n})")
    if (span_hi[first] != span_lo[first + 1]).any():
        i = int(inner[np.argmax(span_hi[first] != span_lo[first + 1])])
        fail(f"node {i}: its children's slot runs are not adjacent")
    node_depth = np.empty(m, np.intp)
    _check.node_depths(nf, nc, node_depth)
    longest = int(node_depth[leaves].max())
    if longest != tree.depth:
        fail(f"depth is {tree.depth}, the longest path is {longest}")
    return span_lo, span_hi


def check_bounds(tree, spans):
    """Finite volumes (boxes may be the one empty box), each node's box holding its
    children's boxes and, at a leaf, its slots' boxes; k-DOP nodes holding their
    children's k-DOPs. Enough for :meth:`BVH.query`, which reads only boxes; the
    spheres and OBBs need the points (:func:`check_points`)."""
    for name, arr in arrays(tree):
        if name in INT_ARRAYS:
            continue
        if name in ("node_box", "slot_box", "node_bv"):
            _check_slabs(name, arr)
        elif not np.isfinite(arr).all():
            fail(f"{name}[{_first_row(~np.isfinite(arr))}] is not finite")
    nf, nc = tree.node_first, tree.node_count
    if tree.n_nodes == 0:
        return
    inner = np.flatnonzero(nc == 0)
    for name, slabs in (("node_box", tree.node_box), ("node_bv", tree.node_bv)):
        if not isinstance(slabs, np.ndarray):
            continue
        for child in (nf[inner], nf[inner] + 1):
            bad = ~_holds(slabs[inner], slabs[child])
            if bad.any():
                i = int(inner[np.argmax(bad)])
                fail(f"{name}[{i}] does not hold its child {int(child[np.argmax(bad)])}")
    leaves = np.flatnonzero(nc > 0)
    span_lo, span_hi = spans
    union = _union(tree.slot_box, span_lo[leaves], span_hi[leaves])
    bad = ~_holds(tree.node_box[leaves], union)
    if bad.any():
        fail(
            f"node_box[{int(leaves[np.argmax(bad)])}] does not hold its triangles' boxes"
        )


def check_points(tree, slot_pts):
    """``slot_box`` and ``node_box`` the exact boxes of the points under them, k-DOPs
    exact, every sphere and OBB holding every point under its node (to
    :data:`VOLUME_REL_TOL`). ``slot_pts`` (N, K, 3) float64: each slot's points, in slot
    order; the tree's structure checked (:func:`check_structure`)."""
    n = tree.n_prims
    if len(slot_pts) != n:
        fail(f"{len(slot_pts)} primitives given for {n} slots")
    if n == 0 or slot_pts.shape[1] == 0:
        return
    nf, nc, m = tree.node_first, tree.node_count, tree.n_nodes
    spans = np.empty(m, np.intp), np.empty(m, np.intp)
    _fit.spans(nf, nc, *spans)
    node_box, slot_box = np.empty((m, 2, 3)), np.empty((n, 2, 3))
    _fit.fit_boxes(slot_pts, nf, nc, node_box, slot_box)  # as the build fits them
    if not np.array_equal(slot_box, tree.slot_box):
        s = int(np.argmax(np.any(slot_box != tree.slot_box, axis=(1, 2))))
        fail(f"slot_box[{s}] is not the exact box of primitive {int(tree.prim_order[s])}")
    if not np.array_equal(node_box, tree.node_box):
        i = int(np.argmax(np.any(node_box != tree.node_box, axis=(1, 2))))
        fail(f"node_box[{i}] is not the exact box of the points under node {i}")
    bv = tree.node_bv
    span_lo, span_hi = spans
    if tree.kind.startswith("kdop"):
        k = kdop_k(tree.kind)
        fitted = np.empty((m, 2, k // 2))
        _fit.fit_kdops(slot_pts, np.ascontiguousarray(kdop.AXES[k]), nf, nc, fitted)
        if not np.array_equal(fitted, bv):
            i = int(np.argmax(np.any(fitted != bv, axis=(1, 2))))
            fail(f"node_bv[{i}] is not the exact k-DOP of its points")
    elif tree.kind == "sphere":
        m = _check.first_sphere_outlier(
            slot_pts, span_lo, span_hi, bv.center, bv.radius, VOLUME_REL_TOL
        )
        if m >= 0:
            fail(f"node {m}'s sphere does not hold all the points under it")
    elif tree.kind == "obb":
        m = _check.first_obb_outlier(
            slot_pts, span_lo, span_hi, bv.center, bv.half, bv.rot, VOLUME_REL_TOL
        )
        if m >= 0:
            fail(f"node {m}'s OBB does not hold all the points under it")


# -- helpers -----------------------------------------------------------------------------


def _describe(arr):
    if isinstance(arr, np.ndarray):
        return f"{arr.dtype} {arr.shape}"
    return type(arr).__name__


def _first_row(mask):
    return int(np.argmax(mask.reshape(len(mask), -1).any(axis=1)))


def _check_layout(tree, m, n):
    for name, arr, shape in (
        ("node_box", tree.node_box, (m, 2, 3)),
        ("slot_box", tree.slot_box, (n, 2, 3)),
    ):
        if not isinstance(arr, np.ndarray) or arr.shape != shape:
            fail(f"{name} must have shape {shape}, got {np.shape(arr)}")
    bv = tree.node_bv
    if tree.kind == "sphere":
        ok = (
            isinstance(bv, Spheres)
            and bv.center.shape == (m, 3)
            and bv.radius.shape == (m,)
        )
    elif tree.kind == "obb":
        ok = (
            isinstance(bv, OBBs)
            and bv.center.shape == (m, 3)
            and bv.half.shape == (m, 3)
            and bv.rot.shape == (m, 3, 3)
        )
    else:
        s = 3 if tree.kind == "aabb" else kdop_k(tree.kind) // 2
        ok = isinstance(bv, np.ndarray) and bv.shape == (m, 2, s)
    if not ok:
        fail(f"node_bv does not have the {tree.kind!r} layout for {m} nodes")
    for name, arr in arrays(tree):
        want = np.intp if name in INT_ARRAYS else np.float64
        if arr.dtype != want:
            fail(f"{name} must be {np.dtype(want)}, got {arr.dtype}")
    if tree.kind == "obb":
        i = _check.first_not_rotation(bv.rot, ROT_TOL)
        if i >= 0:
            fail(f"node_bv.rot[{i}] is not a rotation")


def _check_slabs(name, arr):
    """Finite slabs with lo <= hi, or the one empty box (+inf lo, -inf hi everywhere)."""
    if not len(arr):
        return
    lo, hi = arr[:, 0], arr[:, 1]
    ok = np.isfinite(arr).all(axis=(1, 2)) & (lo <= hi).all(axis=1)
    if ok.all():
        return
    empty = (lo == np.inf).all(axis=1) & (hi == -np.inf).all(axis=1)
    bad = ~(ok | empty)
    if bad.any():
        fail(f"{name}[{int(np.argmax(bad))}] is not a finite box (NaN, inf or lo > hi)")


def _holds(outer, inner):
    """Per row: slab set ``outer`` (R, 2, S) holds ``inner`` (R, 2, S); an empty inner
    box is held by anything."""
    return (
        (outer[:, 0] <= inner[:, 0]).all(axis=1)
        & (inner[:, 1] <= outer[:, 1]).all(axis=1)
    ) | (inner[:, 0] > inner[:, 1]).any(axis=1)


def _union(boxes, lo, hi):
    """The box around ``boxes[lo[i]:hi[i]]`` for every i (non-empty runs)."""
    return np.stack(
        [
            _ranges_reduce(np.minimum, boxes[:, 0], lo, hi),
            _ranges_reduce(np.maximum, boxes[:, 1], lo, hi),
        ],
        axis=1,
    )


def _ranges_reduce(ufunc, values, lo, hi):
    """``ufunc.reduce(values[lo[i]:hi[i]])`` for every i (non-empty ranges),
    vectorised."""
    padded = np.concatenate([values, values[:1]])
    idx = np.empty(2 * len(lo), np.intp)
    idx[0::2], idx[1::2] = lo, hi
    return ufunc.reduceat(padded, idx, axis=0)[0::2]
