"""Point and ray queries on one triangle mesh, behind the :class:`~hitbox.mesh.TriangleMesh`
methods of the same names: inside or not, closest points and signed distances, the
generalised winding number, and rays. Problems whose squared lengths would overflow or
vanish are solved on a power-of-two scaled twin of the mesh and mapped back.
"""

from typing import NamedTuple

import numba
import numpy as np

from hitbox import _containment
from hitbox import _validate as v
from hitbox._kernels import bvh_ray as _ray
from hitbox._kernels import closest as _closest
from hitbox._kernels import collide as _collide
from hitbox._kernels import inside as _inside
from hitbox._kernels import point_order as _order
from hitbox.triangle import RayHits

#: Modes of :func:`raycast`.
RAY_MODES = ("closest", "any", "all")


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


def contains(mesh, points):
    """:meth:`hitbox.mesh.TriangleMesh.contains` (its contract there)."""
    pts, single = _read_only(v.as_points(points, dim=3, finite=True))
    g = mesh._scale_for(pts, safe_exp=v.SQUARES_SAFE_EXP)
    if g != 1.0:  # orient3d multiplies three coordinates: the same problem at scale g
        return mesh._twin(g).contains(pts[0] * g if single else pts * g)
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
        res = mesh._twin(g).closest_point(pts[0] * g if single else pts * g)
        return res._replace(point=res.point / g, distance=res.distance / g)
    n = len(pts)
    tree = mesh.bvh
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
    order = _order.spatial_order(pts) if n >= _closest.SORT_MIN else np.arange(n)
    walk = (tree.node_box, tree.node_first, tree.node_count, mesh._slot_tris)
    walk += (mesh._args[-3], tree.prim_order, tree.depth, pts, order, q, d, slot, w)
    threads = numba.get_num_threads()
    if n >= _closest.PARALLEL_MIN and threads > 1:
        _closest.closest_parallel(*walk, threads)
    else:
        _closest.closest(*walk)
    face = tree.prim_order[slot]
    return _closest_tuple(q, d, face, w, single)


def closest_point_brute(mesh, points):
    """:meth:`hitbox.mesh.TriangleMesh.closest_point_brute` (its contract there)."""
    pts, single = v.as_points(points, dim=3, finite=True)
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
    w = winding(mesh, pts)
    return float(w[0]) if single else w


def raycast(mesh, origins, directions, *, t_max=np.inf, mode="closest"):
    """:meth:`hitbox.mesh.TriangleMesh.raycast` (its contract there)."""
    mode = v.check_choice(mode, "mode", RAY_MODES)
    rays, single = v.as_rays(origins, directions, t_max, dim=3)
    # the exact edge tests multiply three coordinates: kept within 2**+-100
    g = mesh._scale_for(rays.origin, safe_exp=v.SQUARES_SAFE_EXP)
    h = v.pow2_factor(rays.direction, safe_exp=v.SQUARES_SAFE_EXP)
    if g != 1.0 or h != 1.0:  # where squares of coordinates overflow or vanish
        return _raycast_scaled(mesh, rays, single, mode, g, h)
    n = len(rays.origin)
    tree = mesh.bvh
    # rays cull on the nodes' exact boxes, whatever the tree's own volume kind
    walk = (
        tree.node_box,
        tree.node_first,
        tree.node_count,
        mesh._slot_tris,
        tree.depth,
    )
    walk += (rays.origin, rays.direction, rays.t_max)
    if mode == "all":
        counts = np.zeros(n + 1, np.intp)
        if n and tree.n_nodes:
            _ray.count_all(*walk, counts)
        offsets = np.cumsum(counts)
        total = int(offsets[-1])
        face = np.empty(total, np.intp)
        t, u, vv = np.empty(total), np.empty(total), np.empty(total)
        if total:
            _ray.fill_all(*walk, offsets, face, t, u, vv)
        ray = np.repeat(np.arange(n), counts[1:])
        face = tree.prim_order[face] if total else face
        order = np.lexsort((face, t, ray))
        return MeshRayHits(ray[order], face[order], t[order], u[order], vv[order])
    t = np.full(n, np.inf)
    face = np.full(n, -1, np.intp)
    u, vv = np.zeros(n), np.zeros(n)
    if n and tree.n_nodes:
        kernel = _ray.cast_parallel if n >= _ray.PARALLEL_MIN else _ray.cast
        kernel(*walk, mode == "any", t, face, u, vv)
    hit = face >= 0
    face[hit] = tree.prim_order[face[hit]]
    out = RayHits(hit, t, face, u, vv)
    if single:
        return RayHits(*(x[0].item() for x in out))
    return out


def _raycast_scaled(mesh, rays, single, mode, g, h):
    """:meth:`raycast` of the same problem with lengths times g and directions times
    h (powers of two: exact), the hits' t mapped back; hits and faces are the same."""
    out = mesh._twin(g).raycast(rays.origin * g, rays.direction * h,
                       t_max=rays.t_max * (g / h), mode=mode)  # fmt: skip
    out = out._replace(t=out.t * (h / g))
    if single:
        return RayHits(*(x[0].item() for x in out))
    return out


def contains_slow(mesh, pts):
    """Generalised winding number >= 1/2 in magnitude, or on the surface."""
    return (np.abs(winding(mesh, pts)) >= 0.5) | on_surface(mesh, pts)


# -- helpers ---------------------------------------------------------------------------


def winding(mesh, pts):
    out = np.zeros(len(pts))
    if len(pts) and mesh.n_faces:
        _collide.winding_numbers(mesh._slot_tris, pts, out)
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
