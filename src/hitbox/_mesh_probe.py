"""Point and ray queries on one triangle mesh, behind the :class:`~hitbox.mesh.TriangleMesh`
methods of the same names: inside or not, closest points and signed distances, the
generalised winding number, and rays. Problems whose squared lengths would overflow or
vanish are solved on a power-of-two scaled twin of the mesh and mapped back.
"""

from typing import NamedTuple

import numba
import numpy as np

from hitbox import _containment
from hitbox import _scale_groups as _sg
from hitbox import _validate as v
from hitbox import distance as _distance
from hitbox._kernels import bvh_ray as _ray
from hitbox._kernels import closest as _closest
from hitbox._kernels import inside as _inside
from hitbox._kernels import point_order as _order
from hitbox._kernels import point_tree as _point_tree
from hitbox._kernels import winding_tree as _winding
from hitbox.triangle import RayHits

#: Modes of :func:`raycast`.
RAY_MODES = ("closest", "any", "all")
#: Rays per face a mesh without an AABB tree casts before it builds one for its rays.
RAY_TREE_AFTER = 4
#: Triangles per leaf of the tree built for rays: 4 casts 4-13 % more rays a second
#: than the AABB trees' default 8 on the peers' 2k-16k-triangle meshes, 2 % fewer on
#: a 500k-triangle torus (benchmarks/README.md).
RAY_LEAF_SIZE = 4
#: Points per face a mesh without an AABB tree answers closest points for before it
#: builds one for them: its walks are 1.07-1.22x faster than on the OBB tree's boxes,
#: and its build costs what 2 to 30 points a face save (benchmarks/README.md).
POINT_TREE_AFTER = 8
#: The trees built for queries, by purpose: (key among the mesh's other trees, leaf
#: size; None: the AABB default, and the tree a collision builds).
_QUERY_TREES = {"rays": ("rays", RAY_LEAF_SIZE), "points": ("aabb", None)}


class MeshRayHits(NamedTuple):
    """Every hit of every ray (mode ``"all"``), sorted by ray, then t, then face."""

    ray: np.ndarray
    face: np.ndarray
    t: np.ndarray
    u: np.ndarray
    v: np.ndarray


class ClosestPoints(NamedTuple):
    """The point of the mesh closest to each query point (:meth:`TriangleMesh.closest_point`).

    point : (P, 3) float64, on the surface. distance : (P,) float64. face : (P,) intp, the
    face it lies on (the lowest index on ties). barycentric : (P, 3) float64, its weights
    of the face's three vertices (each in [0, 1], summing to 1).
    """

    point: np.ndarray
    distance: np.ndarray
    face: np.ndarray
    barycentric: np.ndarray


#: The fields of a :class:`ClosestPoints` that are lengths (scaled back by a twin's g).
LENGTHS = ("point", "distance")


def by_scale(mesh, pts, query, lengths=()):
    """``query(twin, points)`` answered group by group where the (P, 3) points lie at
    scales too far apart for one power of two to serve: each point's scale is
    :func:`hitbox._validate.pow2_each` of the larger of the mesh's size and its largest
    |coordinate|, and each group sharing one is solved on the mesh's twin at that scale
    (a far point, a sentinel at 1e300 say, would otherwise scale every other point's
    problem down until its squares vanish). The answers (an array, or a NamedTuple of
    arrays whose ``lengths`` fields are divided back by the scale) are put back in the
    points' order. None when one scale serves every point."""
    big = np.maximum(np.abs(pts).max(axis=1), mesh._size())
    groups = _sg.scale_groups(big, v.SQUARES_SAFE_EXP)
    if groups is None:
        return None
    parts = []
    for g, idx in groups:
        got = query(mesh._twin(g), pts[idx] * g)
        if lengths:
            got = got._replace(**{k: getattr(got, k) / g for k in lengths})
        parts.append((idx, got))
    return _sg.in_order(len(pts), parts)


def _at_scale(mesh, pts, single, g, query, lengths=()):
    """``query(twin, points)`` for points (or a mesh) beyond the range where squares
    are safe: on the mesh's twin at the power of two g, the ``lengths`` fields scaled
    back, or group by group (:func:`by_scale`) where one scale cannot serve them all."""
    mixed = None if single else by_scale(mesh, pts, query, lengths)
    if mixed is not None:
        return mixed
    got = query(mesh._twin(g), pts[0] * g if single else pts * g)
    return got._replace(**{k: getattr(got, k) / g for k in lengths}) if lengths else got


def _contains_call(mesh, pts):
    return mesh.contains(pts)


def _closest_call(mesh, pts):
    return mesh.closest_point(pts)


def _brute_call(mesh, pts):
    return mesh.closest_point_brute(pts)


def _winding_call(mesh, pts):
    return mesh.winding_number(pts)


def contains(mesh, points):
    """:meth:`hitbox.mesh.TriangleMesh.contains` (its contract there)."""
    pts, single = _read_only(v.as_points(points, dim=3, finite=True))
    g = mesh._scale_for(pts, safe_exp=v.SQUARES_SAFE_EXP)
    if g != 1.0:  # orient3d multiplies three coordinates: the same problem at scale g
        return _at_scale(mesh, pts, single, g, _contains_call)
    if mesh._closed is None:
        mesh._closed = _inside.is_closed(mesh.faces)
    if mesh._closed and len(pts):
        code = _containment.codes(mesh._grid, mesh.bvh, mesh._slot_tris, pts)
        out = code == _inside.INSIDE
        rest = np.flatnonzero(code == _inside.UNDECIDED)
        if len(rest):
            out[rest] = contains_slow(mesh, pts[rest])
    else:
        out = contains_slow(mesh, pts)
    return bool(out[0]) if single else out


def closest_point(mesh, points):
    """:meth:`hitbox.mesh.TriangleMesh.closest_point` (its contract there)."""
    pts, single = _read_only(v.as_points(points, dim=3, finite=True))
    g = mesh._scale_for(pts, safe_exp=v.SQUARES_SAFE_EXP)
    if g != 1.0:  # the same problem where products of squares cannot overflow
        return _at_scale(mesh, pts, single, g, _closest_call, LENGTHS)
    n = len(pts)
    if not (n and mesh.n_faces):
        q, d = np.full((n, 3), np.nan), np.full(n, np.inf)
        face, w = np.full(n, -1, np.intp), np.full((n, 3), np.nan)
        return _closest_tuple(q, d, face, w, single)
    # every row is written: each point has a nearest face
    q, d, slot, w = (
        np.empty((n, 3)),
        np.empty(n),
        np.empty(n, np.intp),
        np.empty((n, 3)),
    )
    # in spatial order, each walk starts from its neighbour's answer, and the nodes
    # it visits are still in cache
    threads = numba.get_num_threads()
    parallel = n >= _closest.PARALLEL_MIN and threads > 1
    if n < _closest.SORT_MIN:
        order = np.arange(n)
    else:
        order = (_order.spatial_order_parallel if parallel else _order.spatial_order)(pts)
    mesh = query_mesh(mesh, n, "points")
    tree = mesh.bvh
    wide = _closest.NO_WIDE
    if n >= _closest.WIDE_MIN:
        if mesh._point_tree is None:  # built once, in time linear in the faces
            tris = mesh._slot_tris
            disks = _point_tree.node_disks(tree.node_first, tree.node_count, tris)
            view = _point_tree.wide_tree(
                tree.node_box, tree.node_first, tree.node_count, disks
            )
            mesh._point_tree = (*view, _point_tree.slot_disks(tris))
        wide = mesh._point_tree
    walk = (tree.node_first, tree.node_count, mesh._slot_tris, mesh._args[6])
    walk += (tree.prim_order, tree.depth, pts, order, q, d, slot, w, wide, mesh._size())
    if parallel:
        _closest.closest_parallel(*walk, threads)
    else:
        _closest.closest(tree.node_box, *walk)
    face = tree.prim_order[slot]
    return _closest_tuple(q, d, face, w, single)


def closest_point_brute(mesh, points):
    """:meth:`hitbox.mesh.TriangleMesh.closest_point_brute` (its contract there)."""
    pts, single = v.as_points(points, dim=3, finite=True)
    g = mesh._scale_for(pts, safe_exp=v.SQUARES_SAFE_EXP)
    if g != 1.0:  # as closest_point: squared distances that neither overflow nor vanish
        return _at_scale(mesh, pts, single, g, _brute_call, LENGTHS)
    n = len(pts)
    q, d = np.full((n, 3), np.nan), np.full(n, np.inf)
    face, w = np.full(n, -1, np.intp), np.full((n, 3), np.nan)
    if n and mesh.n_faces:
        _closest.closest_brute(mesh.triangles, pts, q, d, face, w)
    return _closest_tuple(q, d, face, w, single)


def signed_distance(mesh, points):
    """:meth:`hitbox.mesh.TriangleMesh.signed_distance` (its contract there)."""
    pts, single = v.as_points(points, dim=3, finite=True)
    d = mesh.closest_point(pts).distance
    out = np.where(mesh.contains(pts) & (d > 0), -d, d)
    return float(out[0]) if single else out


def winding_number(mesh, points):
    """:meth:`hitbox.mesh.TriangleMesh.winding_number` (its contract there)."""
    pts, single = v.as_points(points, dim=3, finite=True)
    g = mesh._scale_for(pts, safe_exp=v.SQUARES_SAFE_EXP)
    if g != 1.0:  # solid angles multiply three coordinates: the same angles at scale g
        return _at_scale(mesh, pts, single, g, _winding_call)
    w = winding(mesh, pts)
    return float(w[0]) if single else w


def raycast(mesh, origins, directions, *, t_max=np.inf, mode="closest"):
    """:meth:`hitbox.mesh.TriangleMesh.raycast` (its contract there)."""
    if mode != "closest":
        mode = v.check_choice(mode, "mode", RAY_MODES)
    fast = v.as_rays_fast(origins, directions, t_max)
    if fast is None:  # any other input, or one with a problem to name
        rays, single = v.as_rays(origins, directions, t_max, dim=3)
        big_o = float(np.abs(rays.origin).max(initial=0.0))
        big_d = float(np.abs(rays.direction).max(initial=0.0))
    else:
        rays, single, big_o, big_d = fast
    # the exact edge tests multiply three coordinates: kept within 2**+-100
    g = v.pow2_for(max(mesh._size(), big_o), v.SQUARES_SAFE_EXP)
    h = v.pow2_for(big_d, v.SQUARES_SAFE_EXP)
    if g != 1.0 or h != 1.0:  # where squares of coordinates overflow or vanish
        mixed = None if single else _raycast_by_scale(mesh, rays, mode)
        if mixed is not None:
            return mixed
        return _raycast_scaled(mesh, rays, single, mode, g, h)
    n = len(rays.origin)
    if mode != "any":  # "any" reports the first hit its tree finds: always the own tree
        mesh = query_mesh(mesh, n, "rays")
    tree = mesh.bvh
    # rays cull on the nodes' exact boxes, whatever the tree's own volume kind
    walk = (tree.node_box, tree.node_first, tree.node_count, mesh._slot_tris)
    walk += (tree.prim_order, tree.depth)
    rays = (rays.origin, rays.direction, rays.t_max)
    if mode == "all":
        offsets = np.zeros(n + 1, np.intp)
        face, t, u, vv = np.empty(0, np.intp), np.empty(0), np.empty(0), np.empty(0)
        if n and tree.n_nodes:
            _ray.all_hits(walk, rays, offsets, face, t, u, vv, False)
        offsets = np.cumsum(offsets)
        total = int(offsets[-1])
        face = np.empty(total, np.intp)
        t, u, vv = np.empty(total), np.empty(total), np.empty(total)
        if total:
            _ray.all_hits(walk, rays, offsets, face, t, u, vv, True)
        ray = np.repeat(np.arange(n), np.diff(offsets))
        face = tree.prim_order[face] if total else face
        order = np.lexsort((face, t, ray))
        return MeshRayHits(ray[order], face[order], t[order], u[order], vv[order])
    t = np.full(n, np.inf)
    face = np.full(n, -1, np.intp)
    u, vv = np.zeros(n), np.zeros(n)
    if n and tree.n_nodes:
        if n >= _ray.PARALLEL_MIN:
            _ray.cast_parallel(walk, rays, mode == "any", (t, face, u, vv))
        else:
            _ray.cast(walk, rays, mode == "any", (t, face, u, vv), 0, n)
    hit = face >= 0
    face[hit] = tree.prim_order[face[hit]]
    out = RayHits(hit, t, face, u, vv)
    if single:
        return RayHits(*(x[0].item() for x in out))
    return out


def query_mesh(mesh, n, purpose):
    """The mesh (this one, or it with another tree) whose tree ``n`` more queries of
    ``purpose`` ("rays" or "points", see _QUERY_TREES) walk: an AABB tree, binned SAH,
    whose boxes prune rays and closest-point walks better than those of the other
    kinds' trees; the mesh's own when it is an AABB tree, else one built once the mesh
    has had that purpose's constant times its face count in such queries (the build
    then pays), kept with it. The answers do not depend on the tree."""
    if mesh.bvh.kind == "aabb":
        return mesh
    key, leaf_size = _QUERY_TREES[purpose]
    twin = mesh._kinds.get(key)
    if twin is None:
        mesh._asked[purpose] = asked = mesh._asked.get(purpose, 0) + n
        after = RAY_TREE_AFTER if purpose == "rays" else POINT_TREE_AFTER
        if asked < after * mesh.n_faces:
            return mesh
        twin = mesh._kinds[key] = mesh.with_tree(node="aabb", leaf_size=leaf_size)
    return twin


def _raycast_scaled(mesh, rays, single, mode, g, h):
    """:meth:`raycast` of the same problem with lengths times g and directions times
    h (powers of two: exact), the hits' t mapped back; hits and faces are the same."""
    out = mesh._twin(g).raycast(rays.origin * g, rays.direction * h,
                       t_max=rays.t_max * (g / h), mode=mode)  # fmt: skip
    out = out._replace(t=out.t * (h / g))
    if single:
        return RayHits(*(x[0].item() for x in out))
    return out


def _raycast_by_scale(mesh, rays, mode):
    """:func:`_raycast_scaled` group by group of rays sharing the powers of two of their
    origins (with the mesh's size) and of their directions, or None when one pair of
    them serves every ray: a far ray would otherwise shrink the others' problem until
    their barycentrics' products vanish (hits and t survive the exact tests; u, v read
    1/3)."""
    big = np.maximum(np.abs(rays.origin).max(axis=1), mesh._size())
    scale = np.stack([v.pow2_each(big, v.SQUARES_SAFE_EXP),
                      v.pow2_each(np.abs(rays.direction).max(axis=1), v.SQUARES_SAFE_EXP)],
                     axis=1)  # fmt: skip
    combos = np.unique(scale, axis=0)
    if len(combos) == 1:
        return None
    parts = []
    for g, h in combos:
        idx = np.flatnonzero((scale[:, 0] == g) & (scale[:, 1] == h))
        t_max = rays.t_max if len(rays.t_max) == 1 else rays.t_max[idx]
        sub = rays._replace(origin=rays.origin[idx], direction=rays.direction[idx],
                            t_max=t_max)  # fmt: skip
        parts.append((idx, _raycast_scaled(mesh, sub, False, mode, float(g), float(h))))
    if mode == "all":
        ray = np.concatenate([idx[got.ray] for idx, got in parts])
        face, t, u, w = (np.concatenate([getattr(got, f) for _, got in parts])
                         for f in ("face", "t", "u", "v"))  # fmt: skip
        order = np.lexsort((face, t, ray))
        return MeshRayHits(ray[order], face[order], t[order], u[order], w[order])
    return _sg.in_order(len(rays.origin), parts)


def contains_slow(mesh, pts):
    """Generalised winding number >= 1/2 in magnitude, or on the surface."""
    return (np.abs(winding(mesh, pts)) >= 0.5) | on_surface(mesh, pts)


# -- helpers ---------------------------------------------------------------------------


#: Fewer points than this are summed face by face while the tree's boundaries are not
#: built: building them costs about as much as 20 points summed so (a closed mesh sends
#: only its few undecided points here).
FANS_MIN_POINTS = 32


def winding(mesh, pts):
    """Generalised winding numbers through the tree (:mod:`hitbox._kernels.winding_tree`)."""
    if mesh._fans is None and len(pts) < FANS_MIN_POINTS:
        return winding_brute(mesh, pts)
    out = np.zeros(len(pts))
    if len(pts) and mesh.n_faces:
        tree = mesh.bvh
        if mesh._fans is None:
            faces = np.ascontiguousarray(mesh.faces[tree.prim_order], dtype=np.intp)
            mesh._fans = _winding.node_boundaries(tree.node_first, tree.node_count, faces)
        _winding.winding_numbers_tree(
            tree.node_box, tree.node_first, tree.node_count, mesh._slot_tris,
            *mesh._fans, mesh.vertices, tree.depth, pts, out,
        )  # fmt: skip
    return out


def winding_brute(mesh, pts):
    """:func:`winding` summed over every face, the tree's twin."""
    out = np.zeros(len(pts))
    if len(pts) and mesh.n_faces:
        _winding.winding_numbers_brute(mesh._slot_tris, pts, out)
    return out


def on_surface(mesh, pts):
    """Points lying on a face: zero-size query boxes, then the exact point test."""
    if not len(pts) or not mesh.n_faces:
        return np.zeros(len(pts), bool)
    from hitbox import triangle

    boxes = np.stack([pts, pts], axis=1)
    q, f = mesh.bvh.query(boxes)
    degenerate = np.repeat(pts[q][:, None], 3, axis=1)
    touching = (
        triangle.overlap(mesh.triangles[f], degenerate) if len(q) else np.zeros(0, bool)
    )
    out = np.zeros(len(pts), bool)
    out[q[touching]] = True
    return out


def _closest_tuple(q, d, face, w, single):
    if single:
        return ClosestPoints(q[0], float(d[0]), int(face[0]), w[0])
    return ClosestPoints(q, d, face, w)


def _read_only(checked):
    """(points, single) with the points as a read-only view: the kernels then compile
    once, whether the caller's array was writable or not."""
    pts, single = checked
    view = pts.view()
    view.flags.writeable = False
    return view, single


class MeshProbes:
    """The point, ray and distance queries of :class:`hitbox.mesh.TriangleMesh`, which
    is a MeshProbes: each method checks its input and calls this module's function of
    the same name (or :mod:`hitbox.distance`)."""

    # -- distance --------------------------------------------------------------------------

    def distance(self, other, transform=None, *, max_distance=np.inf, rtol=0.0, atol=0.0):
        """Distance to ``other`` moved by ``transform`` (rigid 4x4, other's model frame
        into this one's), the closest points in this mesh's frame and their faces: a
        :class:`hitbox.distance.MeshDistance` (see :func:`hitbox.distance.distance`
        for ``max_distance``, ``rtol`` and ``atol``). 0 exactly when they touch."""
        return _distance.distance(self, other, transform, max_distance=max_distance,
                                  rtol=rtol, atol=atol)  # fmt: skip

    def distance_many(self, other, transforms, *, max_distance=np.inf, rtol=0.0,
                      atol=0.0):  # fmt: skip
        """:meth:`distance` for K poses ((K, 4, 4)) in one parallel call: a
        :class:`hitbox.distance.MeshDistances` of arrays."""
        return _distance.distance_many(self, other, transforms,
                                       max_distance=max_distance, rtol=rtol, atol=atol)  # fmt: skip

    def distance_brute(self, other, transform=None):
        """Slow twin of :meth:`distance`: (distance, face, other's face) over every
        triangle pair."""
        return _distance.distance_brute(self, other, transform)

    # -- points and rays -------------------------------------------------------------------

    def contains(self, points):
        """Whether each point lies inside this mesh: (P,) bool, or a bool for one (3,) point.

        Points on the surface count as inside (closed). A closed mesh (each directed edge
        used once and its reverse once) is decided exactly by its winding number (inside
        when nonzero): from a grid of cells with known winding numbers once the mesh has
        been asked about enough points (:mod:`hitbox._kernels.inside_grid`), else by the
        signed count of the faces an axis-aligned ray crosses
        (:mod:`hitbox._kernels.inside`); a point whose six axis rays all meet an edge or
        vertex, and every point of an open mesh, by the generalised winding number
        (>= 1/2 in magnitude, Jacobson et al. 2013; summed through the tree, see
        :meth:`winding_number`). Raises ValueError or TypeError on
        points that are not finite (P, 3) or (3,) reals.
        """
        return contains(self, points)

    def closest_point(self, points):
        """The point of the surface nearest to each point: a :class:`ClosestPoints`.

        ``points`` is (P, 3) (P = 0 is legal) or one (3,) point, for which the fields are
        a (3,) point, a float distance, an int face and (3,) weights. Distances in the
        points' units. On an empty mesh distances are inf, faces -1, points NaN. Raises
        ValueError or TypeError on points that are not finite reals of that shape.
        Ties go to the lowest face, so the answers do not depend on the tree walked:
        the mesh's own, or an AABB tree built once it has been asked about
        ``POINT_TREE_AFTER`` (8) times its face count in points. A distance far below the
        coordinates' magnitude is as accurate as they are, not relatively: the closest
        point is summed from the triangle's corners, so a point 1e-20 above a face whose
        corners lie near 1 reads about 4e-17.
        Ericson 2005, §5.1.5, over a BVH walk (:mod:`hitbox._kernels.closest`).
        """
        return closest_point(self, points)

    def closest_point_brute(self, points):
        """Slow twin of :meth:`closest_point`: every point against every face."""
        return closest_point_brute(self, points)

    def signed_distance(self, points):
        """(P,) float64 (a float for one point): minus the distance to the surface for
        points inside (:meth:`contains`), plus outside, 0 on the surface."""
        return signed_distance(self, points)

    def winding_number(self, points):
        """Generalised winding number of the mesh at each point (P, 3): (P,) float64,
        ~1 inside, ~0 outside, fractional near the holes of an open mesh.

        Summed through the tree (Jacobson et al. 2013, section 3.3): at a point outside a
        node's box, the node's faces count as the fan that closes their boundary edges
        from the box centre, an identity rather than an approximation; the sum over
        every face is ``_mesh_probe.winding_brute``, its twin. Undefined on the surface."""
        return winding_number(self, points)

    def raycast(self, origins, directions, *, t_max=np.inf, mode="closest"):
        """Cast rays against the mesh (watertight: no ray slips through a shared edge).

        Parameters
        ----------
        origins, directions : (R, 3) float, or (3,) for one ray
        t_max : float or (R,) float
            Rays end at ``origin + t_max * direction``.
        mode : {"closest", "any", "all"}

        Returns
        -------
        ``"closest"`` and ``"any"``: :class:`hitbox.triangle.RayHits` (hit, t, face, u, v),
        with t = inf and face = -1 on a miss; ``"any"`` reports some hit, not the nearest.
        ``"all"``: :class:`MeshRayHits` of every hit. The hit point is
        ``(1 - u - v) a + u b + v c`` of the face's vertices a, b, c, with u, v >= 0 and
        u + v <= 1. Hit or miss, the face hit first and the order of hits are those of
        the exact ray on the float64 inputs (a ray through a shared edge or vertex hits
        the lowest-numbered face around it); t is within 4 ulps of the exact distance
        (:mod:`hitbox._kernels.ray_distance`). Modes ``"closest"`` and ``"all"`` walk an
        AABB tree: the mesh's own, or one built once the mesh has cast
        ``RAY_TREE_AFTER`` (4) times its face count in rays; their answers do not depend
        on the tree. ``"any"`` walks the mesh's own tree, so it finds the same hit at
        every call.
        """
        return raycast(self, origins, directions, t_max=t_max, mode=mode)

    def query(self, volumes):
        """Faces whose bounding box overlaps each query volume (see :meth:`BVH.query`)."""
        return self.bvh.query(volumes)

    def _contains_slow(self, pts):
        """Generalised winding number >= 1/2 in magnitude, or on the surface."""
        return contains_slow(self, pts)

    def _contains_many(self, other, rots, transes, apart):
        """For the placements flagged ``apart`` (no surface crossing): is one mesh inside
        the other? One vertex of each decides, by :meth:`contains`, batched."""
        out = np.zeros(len(rots), bool)
        if not self.n_faces or not other.n_faces or not apart.any():
            return out
        k = np.flatnonzero(apart)
        rot, trans = rots[k], transes[k]
        out[k] = self.contains(_apply_each(rot, trans, other._slot_tris[0, 0]))
        rest = np.flatnonzero(~out[k])
        if len(rest):  # A's vertex in B's frame: rot^T x - rot^T trans
            back = np.swapaxes(rot[rest], 1, 2)
            shift = -_apply_each(back, np.zeros((len(rest), 3)), trans[rest], each=True)
            out[k[rest]] = other.contains(_apply_each(back, shift, self._slot_tris[0, 0]))
        return out

    def _contains_one(self, other, matrix):
        """No surface crossing: is one mesh inside the other? (:meth:`_contains_many`)"""
        rot, trans = v.as_transform(matrix, "transform", rigid=True)
        return bool(
            self._contains_many(other, rot[None], trans[None], np.ones(1, bool))[0]
        )


def _apply_each(rots, transes, points, each=False):
    """(K, 3): ``rots[k] @ x + transes[k]`` for one point x (or x = points[k] with
    ``each``), summed left to right as :func:`hitbox._affine.apply` sums."""
    x = points if each else np.broadcast_to(points, (len(rots), 3))
    out = np.empty((len(rots), 3))
    for r in range(3):
        acc = transes[:, r].copy()
        for c in range(3):
            acc = acc + rots[:, r, c] * x[:, c]
        out[:, r] = acc
    return out
