"""Bounding volume hierarchies over point groups (SPEC §8): build, refit, query, save.

A :class:`BVH` is a few flat arrays (STYLE §2). Node ``m`` is a leaf when
``node_count[m] > 0``: it holds the primitives in slots ``node_first[m]`` up to
``node_first[m] + node_count[m] - 1``, and ``prim_order[s]`` is the index (into the
array given to :meth:`BVH.build`) of the primitive in slot ``s``. Otherwise its children
are ``node_first[m]`` and ``node_first[m] + 1``. The root is node 0; children come after
their parents, so ``reversed(range(M))`` visits children before parents; every node
covers a contiguous run of slots.

Each node carries a volume of the tree's kind (``node_bv``, fitted to the points under it)
and its exact AABB (``node_box``; the same array when the kind is ``"aabb"``). Each slot
carries its primitive's AABB (``slot_box``). :meth:`BVH.query` answers "which primitives'
boxes overlap these volumes": it descends on ``node_box``, which bounds those boxes
exactly, and tests ``slot_box`` at the leaves. ``node_bv`` bounds the primitives' points
(for triangles, the triangles themselves) but not their boxes; it is what mesh-vs-mesh
descent tests.
"""

from dataclasses import dataclass

import numba
import numpy as np

from hitbox import _bvh_check as _check
from hitbox import _validate as v
from hitbox import kdop, obb
from hitbox._kernels import bvh_build as _build
from hitbox._kernels import bvh_fit as _fit
from hitbox._kernels import bvh_fit_obb as _fit_obb
from hitbox._kernels import bvh_sah as _sah
from hitbox._kernels import bvh_traverse as _traverse
from hitbox._types import OBBs, Spheres
from hitbox.io.saved import npz_path, read_npz, write_npz

__all__ = [
    "BVH",
    "KINDS",
    "METHODS",
    "DEFAULT_METHOD",
    "LEAF_SIZE",
    "MAX_DEPTH",
    "SAH_BINS",
    "PLOC_RADIUS",
]

#: Node volume kinds.
KINDS = ("aabb", "sphere", "obb", "kdop14", "kdop18", "kdop26")
#: Build strategies: binned SAH (on the world axes or each node's principal axes), the
#: seed's middle split, bottom-up agglomerative merge.
METHODS = ("sah", "oriented_sah", "median", "bottom_up")
#: The strategy each node kind gets by default: whichever answered tree-vs-tree queries
#: fastest on the seed's tori (SAH on each node's own axes for OBB trees: 30-40 % less
#: time per query than on the world axes; the world axes for box-shaped and sphere
#: nodes, whose volumes are taken along them).
DEFAULT_METHOD = {kind: "oriented_sah" if kind == "obb" else "sah" for kind in KINDS}
# a topology without parallel subtrees: every node fitted on one thread
_NO_TASKS = np.empty((0, 3), np.intp)
#: Default most primitives per leaf (a node with more is split, depth permitting).
LEAF_SIZE = 4
#: Default depth limit (root at depth 0); a node at this depth is a leaf.
MAX_DEPTH = 64
#: Bins per axis in both SAH builds. Wald 2007 uses 16 to 32, but tree-vs-tree queries
#: want finer cuts than rays (figures: benchmarks/README.md).
SAH_BINS = 64
#: Neighbours searched on each side in the bottom-up build (Meister & Bittner 2018: 16).
PLOC_RADIUS = 16


@dataclass(frozen=True, eq=False, slots=True, repr=False)
class BVH:
    """A bounding volume hierarchy over N primitives with M = 2L - 1 nodes (L leaves).

    Attributes
    ----------
    node_bv : volumes of ``kind``, M of them
        ``(M, 2, 3)`` boxes for ``"aabb"``, ``(M, 2, K/2)`` along ``kdop.AXES[K]`` for
        ``"kdopK"``, :class:`Spheres` for ``"sphere"``, :class:`OBBs` for ``"obb"``. Each
        holds every point of every primitive under the node.
    node_box : (M, 2, 3) float
        Exact AABB of the points under each node.
    node_first : (M,) intp
        Inner node: index of the left child (the right one is next). Leaf: first slot.
    node_count : (M,) intp
        0 for inner nodes, else the number of primitives in the leaf (at least 1).
    prim_order : (N,) intp
        Slot -> index of the primitive given to :meth:`build`; a permutation.
    slot_box : (N, 2, 3) float
        Exact AABB of the primitive in each slot.
    depth : int
        Longest root-to-leaf path (0 for a single leaf or an empty tree).
    kind : str
        One of :data:`KINDS`.
    """

    node_bv: object
    node_box: np.ndarray
    node_first: np.ndarray
    node_count: np.ndarray
    prim_order: np.ndarray
    slot_box: np.ndarray
    depth: int
    kind: str

    # -- construction --------------------------------------------------------------------

    @classmethod
    def build(
        cls,
        primitives,
        *,
        node="aabb",
        method=None,
        leaf_size=LEAF_SIZE,
        max_depth=MAX_DEPTH,
    ):
        """Build a tree over point groups.

        Parameters
        ----------
        primitives : (N, K, 3) float
            Each primitive's points; triangles are ``(F, 3, 3)``. A single ``(K, 3)``
            group is one primitive. N = 0 gives the empty tree, which overlaps nothing.
        node : {"aabb", "sphere", "obb", "kdop14", "kdop18", "kdop26"}
            Kind of the node volumes.
        method : {"sah", "oriented_sah", "median", "bottom_up"}, optional
            ``"sah"``: binned surface-area heuristic (Wald 2007), top-down, on the world
            axes. ``"oriented_sah"``: the same on each node's own principal axes (its
            points' covariance axes, as an OBB is fitted; below
            ``bvh_sah.reframe_size`` primitives a node keeps its nearest such
            ancestor's), for OBB trees: cuts
            across a curved patch's own axes give compact children. By default
            :data:`DEFAULT_METHOD` of the node kind. ``"median"``:
            the seed's rule (SPEC §8): cut the node box's longest axis at its middle,
            assign by centre; else the second-longest axis; else an object-median split.
            ``"bottom_up"``: agglomerative merging of nearest clusters in Morton order
            (PLOC, Meister & Bittner 2018), O(N log N) in practice.
        leaf_size : int >= 1
            A node with at most this many primitives is a leaf (every method).
        max_depth : int >= 0
            A node at this depth is a leaf, however many primitives it holds.

        Notes
        -----
        The topology sees only the primitives' boxes and centres (mean of their points);
        node volumes are then fitted to the points under each node.
        """
        pts, _ = v.as_point_groups(primitives, "primitives", dim=3)
        node = v.check_choice(node, "node", KINDS)
        if method is None:
            method = DEFAULT_METHOD[node]
        method = v.check_choice(method, "method", METHODS)
        leaf_size = v.check_count(leaf_size, "leaf_size")
        max_depth = v.check_count(max_depth, "max_depth", minimum=0)
        n = len(pts)
        boxes = np.empty((n, 2, 3))
        centres = np.empty((n, 3))
        if method != "oriented_sah":  # which takes them in each node's own frame
            _build.primitive_bounds(pts, boxes, centres)
        if method == "bottom_up":
            left, right, root = _build.build_ploc(boxes, centres, PLOC_RADIUS)
            topo = _build.flatten_binary(left, right, root, n, leaf_size, max_depth)
        elif method in ("sah", "oriented_sah"):
            threads = numba.get_num_threads()
            if method == "sah":
                topo = _sah.build_sah(
                    boxes, centres, leaf_size, max_depth, SAH_BINS, threads
                )
                slot_pts = None
            else:
                slot_pts = np.array(pts)  # a copy, permuted into slot order in place
                topo = _sah.build_sah_oriented(
                    slot_pts, leaf_size, max_depth, SAH_BINS, threads,
                    _sah.reframe_size(n),
                )  # fmt: skip
            node_first, node_count, order, depth, tasks = topo
            return _fitted(
                pts, node_first, node_count, order, int(depth), node, tasks, slot_pts
            )
        else:
            topo = _build.build_median(boxes, centres, leaf_size, max_depth)
        node_first, node_count, order, depth = topo
        return _fitted(pts, node_first, node_count, order, int(depth), node)

    def refit(self, primitives):
        """A tree with the same topology and volumes refitted to moved points
        (deformation).

        ``primitives`` must have the same N as the build (K may differ). Returns a new
        BVH; this one is unchanged.
        """
        pts, _ = v.as_point_groups(primitives, "primitives", dim=3)
        if len(pts) != self.n_prims:
            raise ValueError(
                f"primitives must hold the {self.n_prims} primitives of the tree, "
                f"got {len(pts)}"
            )
        return _fitted(
            pts, self.node_first, self.node_count, self.prim_order, self.depth, self.kind
        )

    # -- queries -------------------------------------------------------------------------

    def query(self, volumes):
        """Primitives whose bounding box overlaps each query volume (closed test).

        Parameters
        ----------
        volumes : (Q, 2, 3) boxes, :class:`Spheres` (3D) or :class:`OBBs`
            A single ``(2, 3)`` box (or a ``Spheres``/``OBBs`` of single items) is one
            query.

        Returns
        -------
        (2, n) intp pairs (query index, primitive index), sorted; or ``(n,)`` primitive
        indices for a single box. The node kind does not change the answer.
        """
        queries, single = _as_queries(volumes)
        if self.n_nodes == 0:
            out = np.empty((2, 0), np.intp)
        else:
            out = _traverse.query_pairs(
                self.node_box,
                self.node_first,
                self.node_count,
                self.slot_box,
                self.prim_order,
                self.depth,
                queries,
            )
        return out[1] if single else out

    def query_brute(self, volumes):
        """Slow twin of :meth:`query`: every query tested against every primitive's
        box."""
        queries, single = _as_queries(volumes)
        boxes = np.empty_like(self.slot_box)
        boxes[self.prim_order] = self.slot_box
        out = _traverse.query_pairs_brute(boxes, queries)
        return out[1] if single else out

    # -- sizes ---------------------------------------------------------------------------

    @property
    def n_nodes(self):
        """M, the number of nodes."""
        return len(self.node_first)

    @property
    def n_prims(self):
        """N, the number of primitives."""
        return len(self.prim_order)

    @property
    def n_leaves(self):
        """L, the number of leaves."""
        return int(np.count_nonzero(self.node_count))

    def __reduce__(self):
        """Pickle as the tree's arrays; unpickling freezes them and builds nothing."""
        return _restore, (self.node_bv, self.node_box, self.node_first, self.node_count,
                          self.prim_order, self.slot_box, self.depth, self.kind)  # fmt: skip

    def __repr__(self):
        return (
            f"BVH(kind={self.kind!r}, prims={self.n_prims}, nodes={self.n_nodes}, "
            f"depth={self.depth})"
        )

    # -- checks --------------------------------------------------------------------------

    def validate(self, primitives=None):
        """Check every invariant; raise ValueError naming the first one broken.

        Structure: root 0, M = 2L - 1, children pairs after their parents and each node
        the child of exactly one parent, contiguous slot runs tiling [0, N),
        ``prim_order`` a permutation, ``depth`` the longest root-to-leaf path, arrays
        read-only and of the kind's layout. Bounds: finite volumes, each node's box
        holding its children's and its slots' boxes. With ``primitives`` (the points the
        tree was built or refitted on): ``slot_box`` and ``node_box`` are the exact
        boxes of the points, and every node volume holds every point under it (slab
        kinds exactly, spheres and OBBs to rounding).
        """
        if self.kind not in KINDS:
            _check.fail(f"unknown kind {self.kind!r}")
        spans = _check.check_structure(self)
        _check.check_bounds(self, spans)
        if primitives is not None:
            pts, _ = v.as_point_groups(primitives, "primitives", dim=3)
            if len(pts) != self.n_prims:
                _check.fail(f"{len(pts)} primitives given for {self.n_prims} slots")
            _check.check_points(self, _fit.slot_points(pts, self.prim_order))

    # -- files ---------------------------------------------------------------------------

    def save(self, path):
        """Write the tree to a ``.npz`` file (``.npz`` added to a path without it), with a
        format number and a checksum (see :meth:`load`)."""
        write_file(path, self)

    @classmethod
    def load(cls, path):
        """Read a tree written by :meth:`save` (``.npz`` added to a path without it).

        Verified on the way in: the format number, the checksum of the arrays, and the
        invariants :meth:`validate` checks without the points (structure, finite
        volumes, each node's box holding its children's and its slots' boxes: all that
        :meth:`query` reads). A missing file is FileNotFoundError; a truncated, damaged,
        edited or foreign one a one-line ValueError naming the file and the fault.
        """
        tree, _ = read_file(path)
        return tree


# -- helpers -----------------------------------------------------------------------------


def write_file(path, tree, **extra):
    """Write ``tree`` and the named ``extra`` arrays to one checked ``.npz`` file."""
    parts = {
        "kind": np.array(tree.kind),
        "depth": np.array(tree.depth),
        "node_first": tree.node_first,
        "node_count": tree.node_count,
        "prim_order": tree.prim_order,
        "node_box": tree.node_box,
        "slot_box": tree.slot_box,
    }
    bv = tree.node_bv
    if isinstance(bv, Spheres):
        parts.update(node_center=bv.center, node_radius=bv.radius)
    elif isinstance(bv, OBBs):
        parts.update(node_center=bv.center, node_half=bv.half, node_rot=bv.rot)
    elif tree.kind != "aabb":
        parts["node_bv"] = bv
    write_npz(path, {**parts, **extra})


def read_file(path, extra=()):
    """The tree of a file :func:`write_file` wrote, checked as :meth:`BVH.load` says,
    and a dict of the ``extra`` arrays named (each must be there); ValueError naming
    the file for any fault."""
    name = npz_path(path)
    data = read_npz(path, "saved hitbox mesh or tree")
    try:
        missing = [k for k in ("kind", "depth", *_check.INT_ARRAYS) if k not in data]
        missing += [k for k in extra if k not in data]
        if missing:
            raise ValueError(f"holds no {', '.join(missing)}: not a saved BVH or mesh")
        kind = str(data["kind"]) if data["kind"].dtype.kind == "U" else None
        if kind not in KINDS:
            raise ValueError(f"unknown node kind {data['kind'].tolist()!r}")
        fields = {
            "aabb": ("node_box",),
            "sphere": ("node_center", "node_radius"),
            "obb": ("node_center", "node_half", "node_rot"),
        }.get(kind, ("node_bv",))
        missing = [k for k in ("node_box", "slot_box", *fields) if k not in data]
        if missing:
            article = "an" if kind[0] in "ao" else "a"
            raise ValueError(f"{article} {kind!r} tree needs {', '.join(missing)}")
        if data["depth"].shape != () or data["depth"].dtype.kind not in "iu":
            raise ValueError("depth is not an integer")
        bvs = [_floats(data[k], k) for k in fields]
        node_bv = {"sphere": Spheres, "obb": OBBs}.get(kind, lambda arr: arr)(*bvs)
        tree = BVH(
            node_bv=node_bv,
            node_box=node_bv if kind == "aabb" else _floats(data["node_box"], "node_box"),
            slot_box=_floats(data["slot_box"], "slot_box"),
            depth=int(data["depth"]),
            kind=kind,
            **{k: _ints(data[k], k) for k in _check.INT_ARRAYS},
        )
        _check.check_bounds(tree, _check.check_structure(tree))
    except ValueError as exc:
        raise ValueError(f"{name}: {_check_message(exc)}") from None
    return tree, {k: data[k] for k in extra}


def _frozen(arr):
    arr.flags.writeable = False
    return arr


def _restore(node_bv, node_box, node_first, node_count, prim_order, slot_box, depth,
             kind):  # fmt: skip
    """A :class:`BVH` from the arrays :meth:`BVH.__reduce__` pickled, frozen again."""
    if isinstance(node_bv, tuple):
        node_bv = type(node_bv)(*(_frozen(arr) for arr in node_bv))
    else:
        node_bv = _frozen(node_bv)
    return BVH(node_bv, _frozen(node_box), _frozen(node_first), _frozen(node_count),
               _frozen(prim_order), _frozen(slot_box), depth, kind)  # fmt: skip


def _check_message(exc):
    text = str(exc)
    return text.removeprefix("BVH invalid: ")


def _ints(arr, name):
    if arr.dtype.kind not in "iu" or (arr.size and arr.dtype.kind == "u" and (
            arr.max() > np.iinfo(np.intp).max)):  # fmt: skip
        raise ValueError(f"{name} must hold integers, got {arr.dtype}")
    return _frozen(np.array(arr, dtype=np.intp))


def _floats(arr, name):
    if arr.dtype.kind != "f":
        raise ValueError(f"{name} must hold floats, got {arr.dtype}")
    return _frozen(np.array(arr, dtype=np.float64))


def _fitted(
    pts, node_first, node_count, order, depth, kind, tasks=_NO_TASKS, slot_pts=None
):
    """Fit node volumes of ``kind`` over a topology; return the frozen BVH. ``tasks``:
    the subtrees a parallel build made, fitted in parallel (OBB nodes); ``slot_pts``:
    ``pts[order]`` where the build made it already."""
    n_nodes = len(node_first)
    # frozen before the fits, as a refit's and a check's topology arrays are: the fit
    # kernels then compile for read-only index arrays only
    for arr in (node_first, node_count, order):
        arr.flags.writeable = False
    if slot_pts is None:
        slot_pts = _fit.slot_points(pts, order)
    node_box = np.empty((n_nodes, 2, 3))
    slot_box = np.empty((len(order), 2, 3))
    _fit.fit_boxes(slot_pts, node_first, node_count, node_box, slot_box)
    if kind == "aabb":
        node_bv = node_box
    elif kind.startswith("kdop"):
        k = _check.kdop_k(kind)
        node_bv = np.empty((n_nodes, 2, k // 2))
        _fit.fit_kdops(
            slot_pts, np.ascontiguousarray(kdop.AXES[k]), node_first, node_count, node_bv
        )
        _frozen(node_bv)
    elif kind == "sphere":
        center = np.empty((n_nodes, 3))
        radius = np.empty(n_nodes)
        # radii come from squared distances: fitted at a power-of-two scale where those
        # neither overflow nor vanish, then scaled back (both exact)
        g = v.pow2_factor(slot_pts)
        _fit.fit_spheres(
            slot_pts * g if g != 1.0 else slot_pts, node_first, node_count,
            node_box * g if g != 1.0 else node_box, depth, center, radius,
        )  # fmt: skip
        if g != 1.0:
            center /= g
            radius /= g
        node_bv = Spheres(_frozen(center), _frozen(radius))
    else:
        center = np.empty((n_nodes, 3))
        half = np.empty((n_nodes, 3))
        rot = np.empty((n_nodes, 3, 3))
        _fit_obb.fit_obbs(
            slot_pts, node_first, node_count, node_box, depth, center, half, rot,
            tasks, numba.get_num_threads(),
        )  # fmt: skip
        node_bv = OBBs(_frozen(center), _frozen(half), _frozen(rot))
    return BVH(
        node_bv=node_bv,
        node_box=_frozen(node_box),
        node_first=node_first,
        node_count=node_count,
        prim_order=order,
        slot_box=_frozen(slot_box),
        depth=int(depth),
        kind=kind,
    )


def _as_queries(volumes):
    """Validated query volumes (3D): boxes, Spheres or OBBs; and whether one was given."""
    if isinstance(volumes, Spheres):
        return v.as_spheres(volumes, "volumes", dim=3)
    if isinstance(volumes, OBBs):
        # a rotation off orthonormal (legal to 1e-6) is replaced by the nearest one and
        # its box grown to hold the given parallelepiped, as everywhere OBBs are tested
        return obb._as_obbs(volumes, "volumes", tidy=True)
    return v.as_boxes(volumes, "volumes", dim=3)
