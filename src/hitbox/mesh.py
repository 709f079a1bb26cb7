"""Triangle meshes with their hierarchy: mesh vs mesh, many poses, rays, points inside.

A :class:`TriangleMesh` builds its BVH once, in model space. Queries against another mesh
take the rigid transform from the other mesh's frame into this one's; the other tree's
nodes are moved on the fly (SPEC §8), never refitted from vertices.
"""

from typing import NamedTuple

import numba
import numpy as np

from hitbox import _containment
from hitbox import _validate as v
from hitbox._bvh_check import check_points
from hitbox._kernels import collide as _collide
from hitbox._kernels import collide_many as _many
from hitbox._kernels import self_collide as _self
from hitbox._mesh_probe import ClosestPoints, MeshProbes, MeshRayHits
from hitbox.bvh import BVH, npz_path, read_file, write_file

__all__ = ["TriangleMesh", "Contacts", "MeshRayHits", "ClosestPoints", "MODES"]

#: Modes of :meth:`TriangleMesh.intersect`.
MODES = ("any", "all")

#: Default node kind: OBB trees descend least on meshes at arbitrary relative poses.
NODE = "obb"
#: Default triangles per leaf, by node kind. Box-shaped nodes (AABB, k-DOP) prune less
#: tightly under a rotation and their leaf walks make a larger leaf cheap: on the seed's
#: tori, leaves of 6 answered `any` 2-4 % and `all` 3 % faster than leaves of 4, and
#: leaves of 8 (with 64 SAH bins) `any` another 2-3 % (rays within 2 % throughout); OBB
#: trees measured best at 4 to 6 (1, 2 and 8 were slower).
LEAF_SIZE = {"obb": 4, "sphere": 4, "aabb": 8, "kdop14": 8, "kdop18": 8, "kdop26": 8}
#: Poses per call from which intersect_many runs in parallel (thread wake-up and the
#: second walk of colliding poses cost more than they save below this).
PARALLEL_MIN_POSES = 256


class Contacts(NamedTuple):
    """Colliding triangle pairs with where they cross.

    faces : (2, n) intp, row 0 faces of the first mesh, row 1 of the second, sorted.
    segments : (n, 2, 3) float, in the first mesh's frame: the two end points of the set
        where the two triangles meet (for coplanar overlaps, the two points of the overlap
        polygon farthest apart; both equal when they touch at one point).
    """

    faces: np.ndarray
    segments: np.ndarray


class TriangleMesh(MeshProbes):
    """A triangle mesh and its BVH, built once in model space.

    Parameters
    ----------
    vertices : (V, 3) float
    faces : (F, 3) int
        Indices into ``vertices``. Degenerate (zero-area) faces are legal; F = 0 is an empty
        mesh, which touches nothing.
    node : {"aabb", "sphere", "obb", "kdop14", "kdop18", "kdop26"}
        Kind of the tree's node volumes.
    method : {"sah", "oriented_sah", "median", "bottom_up"}, optional
        Build strategy (see :meth:`hitbox.bvh.BVH.build`); by default the node kind's
        (:data:`hitbox.bvh.DEFAULT_METHOD`).
    leaf_size : int, optional
        Triangles per leaf at most; by default :data:`LEAF_SIZE` of the node kind.
    """

    __slots__ = (
        "vertices", "faces", "bvh", "_slot_tris", "_args", "_closed", "_boxes", "_kinds",
        "_grid", "_magnitude", "_twins",
    )  # fmt: skip

    def __init__(
        self, vertices, faces, *, node=NODE, method=None, leaf_size=None, bvh=None
    ):
        verts, faces = v.as_mesh(vertices, faces)
        verts.flags.writeable = False
        faces.flags.writeable = False
        self.vertices = verts
        self.faces = faces
        tris = verts[faces] if len(faces) else np.zeros((0, 3, 3))
        if bvh is None:
            if leaf_size is None:
                # an unknown or mistyped node is BVH.build's to report
                leaf_size = LEAF_SIZE.get(node, 4) if isinstance(node, str) else 4
            bvh = BVH.build(tris, node=node, method=method, leaf_size=leaf_size)
        elif bvh.n_prims != len(faces):
            raise ValueError(
                f"bvh holds {bvh.n_prims} primitives, the mesh {len(faces)} faces"
            )
        self.bvh = bvh
        self._closed = None  # closed surface? decided by the first contains call
        self._grid = _containment.GridState()  # contains' grid, built on demand
        self._magnitude = None  # largest |coordinate|, for rays at extreme scales
        self._twins = {}  # this mesh scaled by a power of two, by factor
        self._boxes = None  # the nodes as oriented boxes, made by the first distance
        self._kinds = {}  # this mesh with a tree of another node kind, built on demand
        slot_tris = np.ascontiguousarray(tris[bvh.prim_order])
        slot_tris.flags.writeable = False
        self._slot_tris = slot_tris
        # each slot's exact triangle box, from the triangles themselves (the leaf test's
        # prefilter must bound exactly these, whatever tree was passed in)
        slot_box = np.stack([slot_tris.min(axis=1), slot_tris.max(axis=1)], axis=1)
        slot_box.flags.writeable = False
        # the traversal's arguments, gathered once and all plain arrays: a single query
        # must stay a few microseconds (see _kernels.collide.collide)
        self._args = (
            *_collide.node_parts(bvh.node_bv),
            bvh.node_first,
            bvh.node_count,
            slot_tris,
            slot_box,
            bvh.depth,
            _collide.node_magnitude(bvh.node_bv),
        )

    # -- construction ----------------------------------------------------------------------

    @classmethod
    def from_trimesh(cls, mesh, **options):
        """From a ``trimesh.Trimesh`` (its vertices and faces)."""
        if not hasattr(mesh, "vertices") or not hasattr(mesh, "faces"):
            raise TypeError(f"mesh must be a trimesh.Trimesh, got {type(mesh).__name__}")
        return cls(np.asarray(mesh.vertices), np.asarray(mesh.faces), **options)

    def save(self, path):
        """Write the mesh and its built tree to one ``.npz`` file (``.npz`` added to a
        path without it), with a format number and a checksum."""
        write_file(path, self.bvh, mesh_vertices=self.vertices, mesh_faces=self.faces)

    @classmethod
    def load(cls, path):
        """Read a mesh saved by :meth:`save`. The tree is not rebuilt but verified as
        :meth:`hitbox.bvh.BVH.load` verifies it, and against the mesh: its vertices and
        faces must give triangles whose boxes are exactly the tree's slot boxes, inside
        every node volume above them. A missing file is FileNotFoundError; any fault a
        one-line ValueError naming the file."""
        tree, data = read_file(path, ("mesh_vertices", "mesh_faces"))
        try:
            mesh = cls(data["mesh_vertices"], data["mesh_faces"], bvh=tree)
            check_points(tree, mesh._slot_tris)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{npz_path(path)}: {exc}") from None
        return mesh

    def deformed(self, vertices):
        """The same faces on moved vertices, the tree refitted, not rebuilt (deformation).

        Refitting keeps the topology, so queries stay exact; a tree refitted after large
        deformations prunes less well than a rebuilt one.
        """
        verts, faces = v.as_mesh(vertices, self.faces)
        if len(verts) != len(self.vertices):
            raise ValueError(
                f"vertices must keep the mesh's {len(self.vertices)} vertices, got {len(verts)}"
            )
        tris = verts[faces] if len(faces) else np.zeros((0, 3, 3))
        return TriangleMesh(verts, faces, bvh=self.bvh.refit(tris))

    def scaled(self, scale):
        """A scaled instance: vertices times ``scale`` (a number or one per axis, > 0),
        the same faces and tree topology, the volumes refitted (:meth:`deformed`), not a
        new build."""
        factor = np.asarray(v.as_float(scale, "scale", finite=True), dtype=np.float64)
        if factor.shape not in ((), (3,)):
            raise ValueError(
                f"scale must be a number or 3 numbers, got shape {factor.shape}"
            )
        if (factor <= 0).any():
            raise ValueError(f"scale must be > 0, got {factor.tolist()}")
        return self.deformed(self.vertices * factor)

    def with_tree(self, node=NODE, method=None, leaf_size=None):
        """The same mesh with a tree of another kind or build."""
        return TriangleMesh(
            self.vertices, self.faces, node=node, method=method, leaf_size=leaf_size
        )

    @property
    def triangles(self):
        """(F, 3, 3) float: each face's three vertices."""
        out = np.empty_like(self._slot_tris)
        out[self.bvh.prim_order] = self._slot_tris
        return out

    @property
    def n_faces(self):
        return len(self.faces)

    def __reduce__(self):
        """Pickle as the vertices, faces and built tree: unpickling rebuilds no tree
        (the caches of distances and other node kinds start empty)."""
        return _restore, (self.vertices, self.faces, self.bvh, self._closed)

    def __repr__(self):
        return (
            f"TriangleMesh({len(self.vertices)} vertices, {len(self.faces)} faces, "
            f"{self.bvh.kind} tree of depth {self.bvh.depth})"
        )

    # -- mesh vs mesh ----------------------------------------------------------------------

    def intersect(self, other, transform=None, *, mode="any", inside=False):
        """Does ``other``, placed by ``transform``, touch this mesh? Which triangles?

        Parameters
        ----------
        other : TriangleMesh
            Of any node kind: one of another kind than this mesh's is walked with a tree
            of this mesh's kind, built on first use and kept with it.
        transform : (4, 4) float, optional
            Rigid map from ``other``'s frame into this mesh's frame (identity if omitted).
        mode : {"any", "all"}
            ``"any"`` stops at the first crossing pair and returns a bool. ``"all"`` returns
            every crossing pair as ``(2, n) intp`` (row 0 this mesh's faces, row 1 other's),
            sorted.
        inside : bool
            With ``mode="any"``: also True when one closed mesh lies wholly inside the other
            without the surfaces crossing (a vertex of each tested by :meth:`contains`).

        Touching (a shared point, edge or face) counts as intersecting. The rule of
        exactness: ``other``'s vertices are moved by ``transform`` and rounded once to
        float64 (as :meth:`intersect_brute` moves them), then every decision is exact on
        those numbers; so two meshes whose gap is below the rounding of coordinates at
        their place (2**-20 at 1e12) may touch after the move.
        """
        if mode != "any":
            v.check_choice(mode, "mode", MODES)
            if inside:
                raise ValueError(
                    "inside=True needs mode='any': containment has no triangle pairs"
                )
        if type(other) is not TriangleMesh or other.bvh.kind != self.bvh.kind:
            _, other = self._pair(other)
        matrix = _matrix(transform)
        if self._extreme() or other._extreme():  # where products of coordinates fail
            g = v.pow2_factor(np.array([self._size(), other._size()]), matrix[:3, 3],
                              safe_exp=v.SQUARES_SAFE_EXP)  # fmt: skip
            if g != 1.0:
                scaled = matrix.copy()
                scaled[:3, 3] *= g
                return self._twin(g).intersect(other._twin(g), scaled, mode=mode,
                                               inside=inside)  # fmt: skip
        if mode == "any":
            n = _collide.collide_any(*self._args, *other._args, matrix)
        else:
            out, n = _collide.collide(*self._args, *other._args, matrix, False)
        if n < 0:
            v.as_transform(matrix, "transform", rigid=True)  # names the problem
            raise ValueError("transform must be rigid (a rotation and a translation)")
        if mode == "any":
            if n > 0 or not inside:
                return n > 0
            return self._contains_one(other, matrix)
        return self._faces(other, out[:, :n])

    def contacts(self, other, transform=None):
        """Every crossing triangle pair with its contact segment: a :class:`Contacts`."""
        matrix = _matrix(transform)
        faces = self.intersect(other, matrix, mode="all")
        rot, trans = v.as_transform(matrix, "transform", rigid=True)
        seg = np.empty((faces.shape[1], 2, 3))
        slot_a = _slots(self.bvh.prim_order, faces[0])
        slot_b = _slots(other.bvh.prim_order, faces[1])
        _collide.contact_segments(
            self._slot_tris,
            other._slot_tris,
            slot_a,
            slot_b,
            np.ascontiguousarray(rot),
            trans,
            seg,
        )
        return Contacts(faces, seg)

    def intersect_many(self, other, transforms, *, mode="any", inside=False):
        """K placements of ``other`` in one call, in parallel over the placements.

        Parameters
        ----------
        transforms : (K, 4, 4) float
            Rigid maps from ``other``'s frame into this mesh's frame.
        mode : {"any", "all"}
        inside : bool
            With ``mode="any"``: also True where one closed mesh lies wholly inside the
            other without the surfaces crossing, as :meth:`intersect` decides it (one
            vertex of each tested by :meth:`contains`, batched over the placements).

        Returns
        -------
        ``"any"``: (K,) bool. ``"all"``: (3, n) intp rows (placement, this mesh's face,
        other's face), sorted.
        """
        mode = v.check_choice(mode, "mode", MODES)
        if inside and mode != "any":
            raise ValueError(
                "inside=True needs mode='any': containment has no triangle pairs"
            )
        a, b = self._pair(other)
        rots, transes, _ = v.as_transforms(transforms, "transforms", rigid=True)
        if self._extreme() or other._extreme():  # as in intersect
            g = v.pow2_factor(np.array([self._size(), other._size()]), transes,
                              safe_exp=v.SQUARES_SAFE_EXP)  # fmt: skip
            if g != 1.0:
                scaled = np.array(transforms, dtype=np.float64, copy=True)
                scaled[..., :3, 3] *= g
                return self._twin(g).intersect_many(other._twin(g), scaled, mode=mode,
                                                    inside=inside)  # fmt: skip
        counts = np.zeros(len(rots), np.intp)
        threads = numba.get_num_threads()
        # the any mode takes the dealt-chunk kernel on one thread too: measured 13-15 %
        # faster per pose than the plain serial loop on 2*10^5 random poses
        if len(rots) >= PARALLEL_MIN_POSES and (threads > 1 or mode == "any"):
            flat = _many.collide_many(
                *a._args, *b._args, rots, transes, mode == "any", counts, threads
            )
        else:
            flat = _many.collide_many_serial(
                *a._args, *b._args, rots, transes, mode == "any", counts
            )
        if mode == "any":
            hit = counts > 0
            if inside:
                hit |= self._contains_many(other, rots, transes, ~hit)
            return hit
        faces = np.stack(
            [flat[0], a.bvh.prim_order[flat[1]], b.bvh.prim_order[flat[2]]]
        ).reshape(3, -1)
        return np.ascontiguousarray(faces[:, np.lexsort(faces[::-1])])

    def self_intersections(self, *, mode="all"):
        """Where the mesh meets itself: every pair of faces that touch (closed, exact)
        and share no vertex index (neighbours are never reported; weld duplicate
        vertices first, e.g. trimesh's ``merge_vertices``). ``mode="all"``: (2, n)
        intp face pairs, row 0 < row 1, sorted; ``"any"``: a bool. One walk of the
        tree against itself (:mod:`hitbox._kernels.self_collide`)."""
        mode = v.check_choice(mode, "mode", MODES)
        tree = self.bvh
        pairs = _self.self_pairs(
            tree.node_box, tree.node_first, tree.node_count, self._slot_tris,
            tree.prim_order, self.faces, tree.depth, mode == "any",
        )  # fmt: skip
        if mode == "any":
            return bool(pairs.shape[1])
        return np.ascontiguousarray(pairs[:, np.lexsort((pairs[1], pairs[0]))])

    def self_intersections_brute(self):
        """Slow twin of :meth:`self_intersections`: every face pair tested."""
        tris = np.ascontiguousarray(self.triangles)
        return _self.self_pairs_brute(tris, self.faces)

    def contacts_many(self, other, transforms):
        """:meth:`contacts` for K placements ((K, 4, 4) rigid transforms) in one call:
        (pairs (3, n) intp, segments (n, 2, 3)) with the rows of
        ``intersect_many(mode="all")`` (placement, this mesh's face, other's face) and
        each pair's contact segment in this mesh's frame."""
        pairs = self.intersect_many(other, transforms, mode="all")
        segments = np.empty((pairs.shape[1], 2, 3))
        if not pairs.shape[1]:
            return pairs, segments
        rots, transes, _ = v.as_transforms(transforms, "transforms", rigid=True)
        slot_a = _slots(self.bvh.prim_order, pairs[1])
        slot_b = _slots(other.bvh.prim_order, pairs[2])
        # the rows come sorted by placement: one kernel call per placement that touches
        cuts = np.flatnonzero(np.diff(pairs[0])) + 1
        for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, pairs.shape[1]], strict=True):
            k = pairs[0, lo]
            _collide.contact_segments(
                self._slot_tris, other._slot_tris, slot_a[lo:hi], slot_b[lo:hi],
                np.ascontiguousarray(rots[k]), transes[k], segments[lo:hi],
            )  # fmt: skip
        return pairs, segments

    def intersect_brute(self, other, transform=None):
        """Slow twin of ``intersect(mode="all")``: every triangle pair tested."""
        from hitbox import triangle

        matrix = _matrix(transform)
        rot, trans = v.as_transform(matrix, "transform", rigid=True)
        moved = _apply(rot, trans, other.triangles)
        return triangle.overlap_pairs_brute(self.triangles, moved)

    def _size(self):
        """The largest |coordinate| of the vertices (0 for no faces), kept."""
        if self._magnitude is None:
            self._magnitude = float(np.abs(self.vertices).max()) if self.n_faces else 0.0
        return self._magnitude

    def _extreme(self):
        """Whether the coordinates leave [2**-100, 2**100], where products of three of
        them may overflow or vanish."""
        size = self._size()
        return size != 0.0 and not (
            2.0**-v.SQUARES_SAFE_EXP <= size <= 2.0**v.SQUARES_SAFE_EXP
        )

    def _scale_for(self, *arrays, safe_exp=None):
        """The power of two that brings this mesh and ``arrays`` to safe magnitudes."""
        return v.pow2_factor(np.array([self._size()]), *arrays, safe_exp=safe_exp)

    def _twin(self, g):
        """This mesh scaled by the power of two g (kept: one refit per factor)."""
        twin = self._twins.get(g)
        if twin is None:
            twin = self._twins[g] = self.scaled(g) if g != 1.0 else self
        return twin

    def _pair(self, other):
        if not isinstance(other, TriangleMesh):
            raise TypeError(f"other must be a TriangleMesh, got {type(other).__name__}")
        if other.bvh.kind != self.bvh.kind:
            # the walk tests nodes of one kind against each other: the other mesh gets
            # a tree of this one's kind, built once and kept with it
            kind = self.bvh.kind
            if kind not in other._kinds:
                other._kinds[kind] = other.with_tree(node=kind)
            other = other._kinds[kind]
        return self, other

    def _faces(self, other, slots):
        faces = np.stack([self.bvh.prim_order[slots[0]], other.bvh.prim_order[slots[1]]])
        return np.ascontiguousarray(faces[:, np.lexsort((faces[1], faces[0]))])


_EYE = np.eye(4)
_EYE.flags.writeable = False


def _matrix(transform):
    """A 4x4 float64 C-ordered matrix; the kernel checks it is rigid (cheap for one query)."""
    if (
        type(transform) is np.ndarray
        and transform.dtype == np.float64
        and transform.shape == (4, 4)
        and transform.flags.c_contiguous
    ):
        return transform  # the common case, checked in a few hundred nanoseconds
    if transform is None:
        return _EYE
    if not (isinstance(transform, np.ndarray) and transform.dtype == np.float64):
        arr = np.asarray(transform)
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"transform must hold real numbers, got dtype {arr.dtype}")
        transform = arr.astype(np.float64)
    if transform.shape != (4, 4):
        raise ValueError(f"transform must be a 4x4 matrix, got shape {transform.shape}")
    return np.ascontiguousarray(transform)


def _restore(vertices, faces, bvh, closed):
    """A :class:`TriangleMesh` from what :meth:`TriangleMesh.__reduce__` pickled."""
    mesh = TriangleMesh(vertices, faces, bvh=bvh)
    mesh._closed = closed
    return mesh


def _apply(rot, trans, points):
    from hitbox import _affine

    return _affine.apply(rot, trans, points)


def _slots(prim_order, faces):
    inverse = np.empty_like(prim_order)
    inverse[prim_order] = np.arange(len(prim_order))
    return np.ascontiguousarray(inverse[faces])
