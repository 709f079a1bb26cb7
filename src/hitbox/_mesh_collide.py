"""Mesh against mesh behind the :class:`~hitbox.mesh.TriangleMesh` methods of the same
names: one placement or many, the crossing triangle pairs and their contact segments,
and the mesh against itself. Tree against tree in the first mesh's frame, the other's
nodes moved on the fly (SPEC §8), exact triangle tests at the leaves.
"""

from typing import NamedTuple

import numba
import numpy as np

from hitbox import _mesh_shapes
from hitbox import _validate as v
from hitbox._kernels import collide as _collide
from hitbox._kernels import collide_many as _many
from hitbox._kernels import self_collide as _self
from hitbox._kernels import triangle_depth as _depth

#: Modes of :meth:`TriangleMesh.intersect`.
MODES = ("any", "all")
#: Poses per call from which intersect_many runs in parallel (thread wake-up and the
#: second walk of colliding poses cost more than they save below this).
PARALLEL_MIN_POSES = 256


class Contacts(NamedTuple):
    """Colliding triangle pairs with where they cross, how deep and which way.

    faces : (2, n) intp, row 0 faces of the first mesh, row 1 of the second, sorted.
    segments : (n, 2, 3) float, in the first mesh's frame: the two end points of the set
        where the two triangles meet (for coplanar overlaps, the two points of the overlap
        polygon farthest apart; both equal when they touch at one point).
    normals : (n, 3) float, unit, in the first mesh's frame; depths : (n,) float >= 0.
        Each triangle pair's own penetration: moving the second mesh's triangle by
        ``depths[k] * normals[k]`` is the shortest translation that leaves the two
        triangles touching at most (two triangles are convex, so this is exact, found
        over their eleven separating-axis candidates: :mod:`hitbox._kernels.
        triangle_depth`). It is the depth of that pair, not of the meshes, which have
        none in general (they need not be convex). Coplanar pairs have depth 0 along
        their common normal; a pair with no axis (both triangles collapsed to points or
        to parallel segments) has depth 0 and a NaN normal.
    """

    faces: np.ndarray
    segments: np.ndarray
    normals: np.ndarray
    depths: np.ndarray


class ManyContacts(NamedTuple):
    """:class:`Contacts` of K placements: ``pairs`` (3, n) intp rows (placement, first
    mesh's face, second's), sorted, and each row's ``segments`` (n, 2, 3), ``normals``
    (n, 3) and ``depths`` (n,), in the first mesh's frame."""

    pairs: np.ndarray
    segments: np.ndarray
    normals: np.ndarray
    depths: np.ndarray


class MeshCollisions:
    """Mesh-mesh queries of :class:`~hitbox.mesh.TriangleMesh` (a mixin: it reads the
    mesh's tree, its slot triangles and kernel arguments, and ``_pair``)."""

    __slots__ = ()

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
            without the surfaces crossing (a vertex of each tested by
            :meth:`~hitbox.mesh.TriangleMesh.contains`).

        Notes
        -----
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
        if type(other) is not type(self) or other.bvh.kind != self.bvh.kind:
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
            n = _collide.collide_any(*self._walk_args(), *other._walk_args(), matrix)
        else:
            out, n = _collide.collide(
                *self._walk_args(), *other._walk_args(), matrix, False
            )
        if n < 0:
            v.as_transform(matrix, "transform", rigid=True)  # names the problem
            raise ValueError("transform must be rigid (a rotation and a translation)")
        if mode == "any":
            if n > 0 or not inside:
                return n > 0
            return self._contains_one(other, matrix)
        return self._faces(other, out[:, :n])

    def intersect_shapes(self, shapes, transform=None, *, mode="any"):
        """Which convex shapes touch this mesh's surface, and at which faces?

        Parameters
        ----------
        shapes : hitbox.convex.Shapes
            N spheres, capsules, boxes, cylinders, cones, hulls or half-spaces.
        transform : (4, 4) float or (positions, quaternions), optional
            Rigid map from the shapes' frame into this mesh's frame (identity if
            omitted), as :func:`hitbox.convex.transform` takes it.
        mode : {"any", "all"}
            ``"any"``: (N,) bool, whether each shape touches a face. ``"all"``: (2, n) intp
            (shape index, face index) of every face each shape touches, sorted.

        Notes
        -----
        Exact as :func:`hitbox.convex.intersects` on each face (the convex hull of its
        corners): touching, within :data:`hitbox.convex.TOUCH` of the pair's scale,
        counts. A shape wholly inside a closed mesh touches no face (ask
        :meth:`~hitbox.mesh.TriangleMesh.contains` of a point of it). The mesh's tree
        finds the faces whose boxes meet each shape's box (:mod:`hitbox._mesh_shapes`).
        """
        return _mesh_shapes.intersect_shapes(self, shapes, transform, mode)

    def intersect_shapes_brute(self, shapes, transform=None, *, mode="any"):
        """Slow twin of :meth:`intersect_shapes`: every face against every shape."""
        return _mesh_shapes.intersect_shapes_brute(self, shapes, transform, mode)

    def contacts(self, other, transform=None):
        """Every crossing triangle pair with its contact segment: a :class:`Contacts`."""
        matrix = _matrix(transform)
        g = self._contact_scale(other, matrix[:3, 3])
        if g != 1.0:  # as intersect: where products of coordinates cannot overflow
            scaled = matrix.copy()
            scaled[:3, 3] *= g
            c = self._twin(g).contacts(other._twin(g), scaled)
            return Contacts(c.faces, c.segments / g, c.normals, c.depths / g)
        faces = self.intersect(other, matrix, mode="all")
        rot, trans = v.as_transform(matrix, "transform", rigid=True)
        n = faces.shape[1]
        seg, normals, depths = np.empty((n, 2, 3)), np.empty((n, 3)), np.empty(n)
        slot_a = _slots(self.bvh.prim_order, faces[0])
        slot_b = _slots(other.bvh.prim_order, faces[1])
        if n:
            args = (self._slot_tris, other._slot_tris, slot_a, slot_b,
                    np.ascontiguousarray(rot), trans)  # fmt: skip
            _collide.contact_segments(*args, seg)
            _depth.pair_depths(*args, normals, depths)
        return Contacts(faces, seg, normals, depths)

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
            vertex of each tested by :meth:`~hitbox.mesh.TriangleMesh.contains`,
            batched over the placements).

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
        faces = (a.bvh.prim_order, b.bvh.prim_order)
        if len(rots) >= PARALLEL_MIN_POSES and (threads > 1 or mode == "any"):
            flat = _many.collide_many(
                *a._walk_args(), *b._walk_args(), rots, transes, mode == "any", counts,
                *faces, threads,
            )  # fmt: skip
        else:
            flat = _many.collide_many_serial(
                *a._walk_args(), *b._walk_args(), rots, transes, mode == "any", counts,
                *faces,
            )  # fmt: skip
        if mode == "any":
            hit = counts > 0
            if inside:
                hit |= self._contains_many(other, rots, transes, ~hit)
            return hit
        return np.ascontiguousarray(flat)  # faces, sorted by the kernel

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
        a :class:`ManyContacts`, the rows of ``intersect_many(mode="all")`` (placement,
        this mesh's face, other's face) with each pair's contact segment, normal and
        depth in this mesh's frame."""
        rots, transes, _ = v.as_transforms(transforms, "transforms", rigid=True)
        g = self._contact_scale(other, transes)
        if g != 1.0:  # as contacts
            scaled = np.array(transforms, dtype=np.float64, copy=True)
            scaled[..., :3, 3] *= g
            c = self._twin(g).contacts_many(other._twin(g), scaled)
            return ManyContacts(c.pairs, c.segments / g, c.normals, c.depths / g)
        pairs = self.intersect_many(other, transforms, mode="all")
        n = pairs.shape[1]
        segments, normals, depths = np.empty((n, 2, 3)), np.empty((n, 3)), np.empty(n)
        if not n:
            return ManyContacts(pairs, segments, normals, depths)
        slot_a = _slots(self.bvh.prim_order, pairs[1])
        slot_b = _slots(other.bvh.prim_order, pairs[2])
        # the rows come sorted by placement: one kernel call per placement that touches
        cuts = np.flatnonzero(np.diff(pairs[0])) + 1
        for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, pairs.shape[1]], strict=True):
            k = pairs[0, lo]
            args = (self._slot_tris, other._slot_tris, slot_a[lo:hi], slot_b[lo:hi],
                    np.ascontiguousarray(rots[k]), transes[k])  # fmt: skip
            _collide.contact_segments(*args, segments[lo:hi])
            _depth.pair_depths(*args, normals[lo:hi], depths[lo:hi])
        return ManyContacts(pairs, segments, normals, depths)

    def _contact_scale(self, other, translations):
        """The power of two the contact geometry of this mesh and ``other`` is computed
        at: 1 unless a coordinate leaves [2**-100, 2**100] (normals and depths take
        fourth powers of them, which overflowed or vanished from about 2**+-260: NaN
        normals, zero depths)."""
        if not isinstance(other, type(self)) or not (self._extreme() or other._extreme()):
            return 1.0
        return v.pow2_factor(np.array([self._size(), other._size()]), translations,
                             safe_exp=v.SQUARES_SAFE_EXP)  # fmt: skip

    def intersect_brute(self, other, transform=None):
        """Slow twin of ``intersect(mode="all")``: every triangle pair tested."""
        from hitbox import triangle

        matrix = _matrix(transform)
        rot, trans = v.as_transform(matrix, "transform", rigid=True)
        moved = _apply(rot, trans, other.triangles)
        return triangle.overlap_pairs_brute(self.triangles, moved)


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


def _apply(rot, trans, points):
    from hitbox import _affine

    return _affine.apply(rot, trans, points)


def _slots(prim_order, faces):
    inverse = np.empty_like(prim_order)
    inverse[prim_order] = np.arange(len(prim_order))
    return np.ascontiguousarray(inverse[faces])
