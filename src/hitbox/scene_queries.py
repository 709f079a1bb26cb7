"""Queries on a whole :class:`~hitbox.pipeline.Scene` beyond touching pairs: contact
segments of a step's triangle pairs, closed meshes wholly inside others, the pairs
within a distance of each other, and the first object each of many rays hits. They read
the Scene's current poses, honour its groups, masks and ignore list (the pair queries),
and never move anything (3D scenes).

A mesh is its surface, a plain volume (sphere, box, OBB) is solid, as in the Scene's
touching test: distances are between surfaces and solids accordingly (a mesh wholly
inside a box is at distance 0 from it, a mesh around a sphere is not).
"""

import math
from typing import NamedTuple

import numpy as np

from hitbox import _validate as v
from hitbox import convex, ray
from hitbox._scene_objects import MESH, SPHERE
from hitbox._types import OBBs, Spheres
from hitbox.shapes import box as _box_mesh

__all__ = ["SceneRayHits", "contact_segments", "inside_pairs", "raycast", "within"]


class SceneRayHits(NamedTuple):
    """First hit of each ray among a scene's objects: ``object`` and ``face`` (R,) intp
    (-1 for a miss; ``face`` -1 for a plain volume), ``t`` (R,) float (inf for a miss)."""

    object: np.ndarray
    face: np.ndarray
    t: np.ndarray


def raycast(scene, origins, directions, *, t_max=np.inf):
    """The first object each ray hits, the face of a mesh, and t (hit point ``origin +
    t direction``), over every object of a 3D scene; ties go to the lower object id.
    ``origins``, ``directions`` (R, 3) (or one (3,) ray), ``t_max`` a number or (R,).

    A mesh is hit on its surface (:meth:`TriangleMesh.raycast`, the ray moved into the
    mesh's frame, which preserves t), a plain volume on entering it (a ray starting inside
    hits at 0; :mod:`hitbox.ray`). Each object first culls the rays whose segment cannot
    reach its bounding sphere, so the cost grows with objects times rays.
    """
    if scene.dim != 3:
        raise ValueError("raycast() is for 3D scenes")
    rays, single = v.as_rays(origins, directions, t_max, dim=3)
    o, d, best = rays.origin, rays.direction, np.array(rays.t_max, dtype=float)
    hit_object = np.full(len(o), -1, np.intp)
    hit_face = np.full(len(o), -1, np.intp)
    for i in _ids(scene):
        centre, radius = _world_sphere(scene, i)
        rows = np.flatnonzero(_may_reach(o, d, best, centre, radius))
        if not len(rows):
            continue
        t, face = _first_hits(scene, i, o[rows], d[rows], best[rows])
        closer = t < best[rows]
        rows, t, face = rows[closer], t[closer], face[closer]
        best[rows], hit_object[rows], hit_face[rows] = t, i, face
    t = np.where(hit_object >= 0, best, np.inf)
    if single:
        return SceneRayHits(int(hit_object[0]), int(hit_face[0]), float(t[0]))
    return SceneRayHits(hit_object, hit_face, t)


def contact_segments(scene, result):
    """(T, 2, 3) world-frame contact segments, one per column of ``result.triangles``
    (a ``mode="all"`` result of ``scene``, taken before anything moves): where each
    pair of crossing triangles meets (:meth:`TriangleMesh.contacts`). A column with a
    plain volume has no triangle pair, and NaN end points."""
    segments = np.full((result.triangles.shape[1], 2, 3), np.nan)
    for k in range(result.pairs.shape[1]):
        i, j = (int(x) for x in result.pairs[:, k])
        lo, hi = result.offsets[k], result.offsets[k + 1]
        a, b = _object(scene, i), _object(scene, j)
        if a.kind != MESH or b.kind != MESH:
            continue
        pose_i = scene.pose(i)
        found = a.mesh.contacts(b.mesh, _relative(pose_i, scene.pose(j)))
        if not np.array_equal(found.faces, result.triangles[:, lo:hi]):
            raise ValueError("result is not this scene's latest mode='all' result")
        segments[lo:hi] = found.segments @ pose_i[:3, :3].T + pose_i[:3, 3]
    return segments


def inside_pairs(scene, touching):
    """(2, m) pairs of closed meshes, not among ``touching`` ((2, n) pairs), one of
    which lies wholly inside the other (:meth:`TriangleMesh.intersect` with
    ``inside=True``); sorted, filters honoured."""
    touching = {tuple(p) for p in np.asarray(touching).T.tolist()}
    meshes = [i for i in _ids(scene) if _object(scene, i).kind == MESH]
    boxes = {i: _world_box(scene, i) for i in meshes}
    found = []
    for a in range(len(meshes)):
        for b in range(a + 1, len(meshes)):
            i, j = meshes[a], meshes[b]
            if (i, j) in touching or not _allowed(scene, i, j):
                continue
            if not (_holds(boxes[i], boxes[j]) or _holds(boxes[j], boxes[i])):
                continue
            mi, mj = _object(scene, i).mesh, _object(scene, j).mesh
            if mi.intersect(mj, _relative(scene.pose(i), scene.pose(j)), inside=True):
                found.append((i, j))
    return np.array(found, np.intp).reshape(-1, 2).T


def within(scene, distance):
    """Pairs of objects at most ``distance`` apart (touching pairs at 0), and how far:
    ((2, n) pairs sorted, (n,) distances). Static-static pairs are skipped, as in a
    step; filters are honoured. Exact for meshes (:meth:`TriangleMesh.distance`) and
    closed forms or GJK for plain volumes (:mod:`hitbox.convex`)."""
    if isinstance(distance, bool) or not isinstance(distance, int | float | np.number):
        raise TypeError(f"distance must be a real number, got {type(distance).__name__}")
    distance = float(distance)
    if not (distance >= 0.0 and math.isfinite(distance)):
        raise ValueError(f"distance must be finite and >= 0, got {distance}")
    if scene.dim != 3:
        raise ValueError("within() is for 3D scenes")
    ids = _ids(scene)
    spheres = {i: _world_sphere(scene, i) for i in ids}
    pairs, dists = [], []
    for a in range(len(ids)):
        for b in range(a + 1, len(ids)):
            i, j = ids[a], ids[b]
            oi, oj = _object(scene, i), _object(scene, j)
            if (oi.static and oj.static) or not _allowed(scene, i, j):
                continue
            (ci, ri), (cj, rj) = spheres[i], spheres[j]
            if np.linalg.norm(ci - cj) - ri - rj > distance * (1 + 1e-12) + 1e-300:
                continue
            d = _pair_distance(scene, i, j, distance)
            if d <= distance:
                pairs.append((i, j))
                dists.append(d)
    return np.array(pairs, np.intp).reshape(-1, 2).T, np.array(dists, float)


# -- helpers -------------------------------------------------------------------------------


def _may_reach(o, d, t_max, centre, radius):
    """(R,) bool: whether each segment o + [0, t_max] d may come within ``radius`` of
    ``centre`` (widened by a relative 1e-9: the test only culls)."""
    dd = np.einsum("ij,ij->i", d, d)
    s = np.clip(np.einsum("ij,ij->i", centre - o, d) / dd, 0.0, t_max)
    s = np.where(np.isfinite(s), s, 0.0)
    gap = np.linalg.norm(o + s[:, None] * d - centre, axis=1)
    scale = np.abs(o).max(axis=1) + np.abs(centre).max() + radius
    return gap <= radius + 1e-9 * scale


def _first_hits(scene, i, o, d, t_max):
    """(t, face) of the rays' first hits on object i before t_max (inf, -1 where none)."""
    obj, pose = _object(scene, i), scene.pose(i)
    rot, trans = pose[:3, :3], pose[:3, 3]
    if obj.kind == MESH:
        hits = obj.mesh.raycast((o - trans) @ rot, d @ rot, t_max=t_max)
        return hits.t, hits.face
    centre = rot @ obj.center + trans
    if obj.kind == SPHERE:
        found = ray.cast_sphere(Spheres(centre[None], np.array([obj.radius])), o, d,
                                t_max=t_max)  # fmt: skip
    else:
        box = OBBs(centre[None], obj.half[None], (rot @ obj.rot)[None])
        found = ray.cast_obb(box, o, d, t_max=t_max)
    t = np.where(found.hit, found.t_enter, np.inf)
    return t, np.full(len(o), -1, np.intp)


def _object(scene, i):
    return scene._objects[i]


def _ids(scene):
    return [int(i) for i in scene.ids]


def _relative(pose_i, pose_j):
    """inverse(pose_i) @ pose_j for rigid poses."""
    rel = np.eye(4)
    rel[:3, :3] = pose_i[:3, :3].T @ pose_j[:3, :3]
    rel[:3, 3] = pose_i[:3, :3].T @ (pose_j[:3, 3] - pose_i[:3, 3])
    return rel


def _allowed(scene, i, j):
    group, mask = scene._t["group"], scene._t["mask"]
    if (group[i] & mask[j]) == 0 or (group[j] & mask[i]) == 0:
        return False
    key = (min(i, j) << 32) | max(i, j)
    return not np.isin(key, scene._ignore)


def _world_vertices(scene, i):
    obj, pose = _object(scene, i), scene.pose(i)
    return obj.verts @ pose[:3, :3].T + pose[:3, 3]


def _world_box(scene, i):
    verts = _world_vertices(scene, i)
    return verts.min(axis=0), verts.max(axis=0)


def _holds(outer, inner):
    return bool(np.all(outer[0] <= inner[0]) and np.all(inner[1] <= outer[1]))


def _world_sphere(scene, i):
    obj, pose = _object(scene, i), scene.pose(i)
    return pose[:3, :3] @ obj.center + pose[:3, 3], obj.radius * (1 + 1e-12)


def _convex(scene, i):
    """A plain volume as a :mod:`hitbox.convex` shape in the world."""
    obj, pose = _object(scene, i), scene.pose(i)
    centre = pose[:3, :3] @ obj.center + pose[:3, 3]
    if obj.kind == SPHERE:
        return convex.sphere(centre, obj.radius)
    return convex.box(centre, obj.half, pose[:3, :3] @ obj.rot)


def _as_mesh(scene, i):
    """(mesh, pose): an object as a triangle mesh surface (a box volume as its 12
    triangles)."""
    obj = _object(scene, i)
    if obj.kind == MESH:
        return obj.mesh, scene.pose(i)
    frame = np.eye(4)
    frame[:3, :3], frame[:3, 3] = obj.rot, obj.center
    return _box_mesh(2.0 * obj.half), scene.pose(i) @ frame


def _pair_distance(scene, i, j, reach):
    oi, oj = _object(scene, i), _object(scene, j)
    if oi.kind != MESH and oj.kind != MESH:
        return float(convex.distance(_convex(scene, i), _convex(scene, j)).distance[0])
    if oi.kind != MESH:
        i, j, oi, oj = j, i, oj, oi  # the mesh first
    mesh, pose = oi.mesh, scene.pose(i)
    if oj.kind == SPHERE:  # the surface against a solid ball
        centre, radius = _world_sphere(scene, j)[0], oj.radius
        local = pose[:3, :3].T @ (centre - pose[:3, 3])
        return max(0.0, float(mesh.closest_point(local).distance) - radius)
    other, other_pose = _as_mesh(scene, j)
    if oj.kind != MESH and _any_vertex_in_box(scene, i, j):
        return 0.0  # the surface reaches into the solid box
    rel = _relative(pose, other_pose)
    found = mesh.distance(other, rel, max_distance=reach * (1 + 1e-12) + 1e-300)
    return float(found.distance)


def _any_vertex_in_box(scene, i, j):
    obj, pose = _object(scene, j), scene.pose(j)
    local = (_world_vertices(scene, i) - (pose[:3, :3] @ obj.center + pose[:3, 3])) @ (
        pose[:3, :3] @ obj.rot
    )
    return bool(np.any(np.all(np.abs(local) <= obj.half, axis=1)))
