"""Triangle meshes with their hierarchy: mesh vs mesh, many poses, rays, points inside.

A :class:`TriangleMesh` builds its BVH once, in model space. Queries against another mesh
take the rigid transform from the other mesh's frame into this one's; the other tree's
nodes are moved on the fly (SPEC §8), never refitted from vertices.
"""

import numpy as np

from hitbox import _containment
from hitbox import _validate as v
from hitbox._bvh_check import check_points
from hitbox._kernels import collide as _collide
from hitbox._kernels import collide_many as _many
from hitbox._kernels.obb_wide import wide_part
from hitbox._mesh_collide import MODES, Contacts, ManyContacts, MeshCollisions
from hitbox._mesh_probe import ClosestPoints, MeshProbes, MeshRayHits
from hitbox.bvh import BVH, npz_path, read_file, write_file

__all__ = [
    "TriangleMesh",
    "Contacts",
    "ManyContacts",
    "MeshRayHits",
    "ClosestPoints",
    "MODES",
]

#: Default node kind: OBB trees descend least on meshes at arbitrary relative poses.
NODE = "obb"
#: Default triangles per leaf, by node kind. Box-shaped nodes (AABB, k-DOP) prune less
#: tightly under a rotation and their leaf walks make a larger leaf cheap; OBB trees
#: answer best at 4 to 6 (figures: benchmarks/README.md).
LEAF_SIZE = {"obb": 4, "sphere": 4, "aabb": 8, "kdop14": 8, "kdop18": 8, "kdop26": 8}


class TriangleMesh(MeshCollisions, MeshProbes):
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
        "vertices", "faces", "bvh", "_slot_tris", "_args", "_wide", "_closed", "_boxes",
        "_kinds", "_grid", "_magnitude", "_twins", "_asked", "_convex", "_fans",
        "_hull", "_partner", "_point_tree",
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
        self._asked = {}  # rays cast and points asked so far (_mesh_probe.query_mesh)
        self._convex = None  # the slot triangles as convex shapes, made on demand
        self._fans = None  # the nodes' boundary edges, for winding numbers, on demand
        self._point_tree = None  # the tree's view for closest points, on demand
        self._hull = None  # the convex hull that certifies distances, made on demand
        self._partner = None  # the last mesh this one's distance was asked to, and how
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
        # the collision walks' arguments, with the wide table, made on demand
        self._wide = None

    def _walk_args(self):
        """:attr:`_args` and the OBB tree's wide table (:mod:`hitbox._kernels.obb_wide`),
        what the collision walks take. The table is built by the first collision query:
        it holds about 160 bytes a triangle (twice the node boxes), which meshes used
        only for rays, points or distances never read."""
        if self._wide is None:
            a = self._args
            self._wide = (*a, wide_part(a[:3], self.bvh.node_first, self.bvh.node_count))
        return self._wide

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
        try:  # the count first: the faces' check would name the faces, not the vertices
            rows = len(vertices) if np.shape(vertices)[1:] == (3,) else None
        except (TypeError, ValueError):
            rows = None  # not (V, 3): as_mesh names the problem
        if rows is not None and rows != len(self.vertices):
            raise ValueError(
                f"vertices must keep the mesh's {len(self.vertices)} vertices, got {rows}"
            )
        verts, faces = v.as_mesh(vertices, self.faces)
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
        """Slot pairs of this tree and other's as face pairs, sorted."""
        return _many.face_pairs(
            np.ascontiguousarray(slots), self.bvh.prim_order, other.bvh.prim_order
        )


def _restore(vertices, faces, bvh, closed):
    """A :class:`TriangleMesh` from what :meth:`TriangleMesh.__reduce__` pickled."""
    mesh = TriangleMesh(vertices, faces, bvh=bvh)
    mesh._closed = closed
    return mesh
