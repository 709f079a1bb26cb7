"""Queries on a whole :class:`~hitbox.pipeline.Scene` beyond touching pairs: contact
segments of a step's triangle pairs, closed meshes wholly inside others, the pairs
within a distance of each other; and, batched, the first object each of many rays hits
(:func:`raycast`), the objects meeting each of many boxes (:func:`overlapping`) and the
object nearest to each of many points (:func:`nearest`), through a top-level tree over
the objects' world boxes. They read the Scene's current poses, honour its groups, masks
and ignore list (the pair queries) or a query's ``mask`` and ``group`` (the batched
ones), and never move anything (2D and 3D scenes: a 2D query is asked in the plane
z = 0).

A mesh is its surface, a plain volume (sphere, box, OBB) is solid, as in the Scene's
touching test: distances are between surfaces and solids accordingly (a mesh wholly
inside a box is at distance 0 from it, a mesh around a sphere is not).
"""

import math
from typing import NamedTuple

import numpy as np

from hitbox import _scene_convex_queries as _cq
from hitbox import _scene_planar as _planar
from hitbox import _scene_tlas as _tlas
from hitbox import _validate as v
from hitbox import broadphase, convex
from hitbox._kernels import tlas as _kt
from hitbox._kernels import triangle_depth as _kd
from hitbox._scene_objects import CONVEX, MESH, SPHERE, world_convex
from hitbox._types import Rays
from hitbox.shapes import box as _box_mesh

__all__ = [
    "SceneRayHits",
    "SceneNearest",
    "contact_geometry",
    "contact_manifolds",
    "contact_segments",
    "inside_pairs",
    "nearest",
    "nearest_brute",
    "overlapping",
    "overlapping_brute",
    "raycast",
    "raycast_brute",
    "within",
]


class SceneRayHits(NamedTuple):
    """First hit of each ray among a scene's objects: ``object`` and ``face`` (R,) intp
    (-1 for a miss; ``face`` -1 for a plain volume), ``t`` (R,) float (inf for a miss)."""

    object: np.ndarray
    face: np.ndarray
    t: np.ndarray


def raycast(scene, origins, directions, *, t_max=np.inf, mask=None, group=None):
    """The first object each ray hits, the face of a mesh, and t (hit point ``origin +
    t direction``, t in [0, t_max]), over the objects of the scene; ties go to the
    lower object id. ``origins``, ``directions`` (R, 3) (or one (3,) ray; (R, 2) in a
    2D scene), ``t_max`` a number or (R,); ``mask`` and ``group`` (see
    :func:`overlapping`) limit the objects looked at. Returns a :class:`SceneRayHits`
    (ints and a float for one ray).

    A mesh is hit on its surface (exactly as :meth:`TriangleMesh.raycast` answers the
    ray moved into the mesh's frame, which preserves t), a plain volume on entering it
    (a ray starting inside hits at 0; :mod:`hitbox.ray`). Rays walk a top-level tree
    over the objects' world boxes, nearer box first, and each mesh's own tree in its
    frame; a box or object whose entry t passes the best hit so far is skipped
    (:mod:`hitbox._kernels.tlas`). Inputs past 2**90 in magnitude, or meshes smaller
    than 2**-90, go through :func:`raycast_brute`. A convex shape (capsule, cylinder,
    cone, hull) is hit where the ray comes within its touching tolerance, found by
    conservative advancement on the GJK distance; each such object is cast, outside the
    tree, at every ray whose segment may reach its bounding sphere (a half-space: at
    every ray) (:func:`hitbox._scene_convex_queries.cast`): cheap for tens of them,
    linear in their number.
    """
    rays, single = _rays(scene, origins, directions, t_max)
    ids, convex_ids = _cq.split(scene, _tlas.selected(scene, mask, group))
    o, d, tm = (_tlas.frozen(a) for a in rays)
    tab = _tlas.table(scene, ids, _tlas.max_finite(o))
    n = len(o)
    least = np.abs(d).max(axis=1).min(initial=1.0)
    if _tlas.ordinary(tab, o) and 2.0**-90 <= least and _tlas.max_finite(d) <= 2.0**90:
        tlas, _ = _tlas.top_tree(tab)
        packed, objs = _tlas.pack(scene, tab, n)
        k = np.full(n, -1, np.intp)
        out = (k, np.full(n, -1, np.intp), np.full(n, np.inf))
        _tlas.run(
            _kt.raycast, _kt.raycast_parallel, n, tlas, objs, packed, (o, d, tm), out
        )
        face, t = out[1], out[2]
    else:
        k, face, t = _tlas.raycast_brute(tab, o, d, tm)
    return _ray_hits(scene, convex_ids, rays, _object_ids(ids, k), face, t, single)


def raycast_brute(scene, origins, directions, *, t_max=np.inf, mask=None, group=None):
    """Slow twin of :func:`raycast`: every object in id order, cast at the rays its
    bounding sphere may reach (:meth:`TriangleMesh.raycast`, :func:`hitbox.ray.cast_sphere`,
    :func:`hitbox.ray.cast_obb`), a hit kept when nearer than the best so far."""
    rays, single = _rays(scene, origins, directions, t_max)
    ids, convex_ids = _cq.split(scene, _tlas.selected(scene, mask, group))
    tab = _tlas.table(scene, ids, _tlas.max_finite(rays.origin))
    k, face, t = _tlas.raycast_brute(tab, *rays)
    return _ray_hits(scene, convex_ids, rays, _object_ids(ids, k), face, t, single)


def overlapping(scene, boxes, *, mask=None, group=None):
    """Which objects' geometry meets each query box (or convex shape), touching
    included: (2, n) intp pairs (query index, object id), sorted; for one (2, 3) box,
    the (n,) object ids.

    ``boxes`` may be a :class:`hitbox.convex.Shapes` of Q query shapes (3D scenes): a
    mesh meets a shape where one of its faces does (:meth:`TriangleMesh.intersect_shapes`
    of the shapes moved into its frame), any other object by
    :func:`hitbox.convex.intersects` (within the touching tolerance); candidates are the
    pairs whose world boxes meet (a half-space object: every query).

    ``boxes`` (Q, 2, 3) AABBs (lo in row 0); an empty box (lo > hi on some axis) meets
    nothing, infinite bounds are legal. A mesh meets a box where one of its triangles
    does (it is a surface: a box wholly inside a closed mesh does not meet it), by the
    exact closed triangle-box test of the Scene's narrow phase in the mesh's frame; a
    sphere or box by :func:`hitbox.mixed.overlap_sphere_aabb` and
    :func:`hitbox.mixed.overlap_aabb_obb`. Candidates come from the top-level tree over
    the objects' world boxes, then each mesh's own tree.

    ``mask`` (here and in :func:`raycast`, :func:`nearest`): an int bit set; only
    objects whose ``group`` (given to :meth:`Scene.add`) shares a bit with it are looked
    at. ``group``: the query's own group bits; only objects whose ``mask`` shares a bit
    with it are looked at (the rule the Scene applies to a pair, with the query as one
    of the two). None (the default for both) leaves that side open: without ``group``
    the query acts as a member of every group.

    In a 2D scene (``Scene(dim=2)``) the queries take 2D rays, boxes ``(Q, 2, 2)`` and
    points, and the nearest points come back 2D: the objects are the cuts by z = 0 of
    their 3D shapes, and each query is asked in that plane.
    """
    if isinstance(boxes, convex.Shapes):
        return _cq.shapes_overlapping(scene, _selected_3d(scene, mask, group), boxes)
    queries, single = _boxes(scene, boxes)
    ids, convex_ids = _cq.split(scene, _tlas.selected(scene, mask, group))
    tab = _tlas.table(scene, ids, _tlas.max_finite(queries))
    q, k = (
        _tlas.top_tree(tab)[1].query(queries) if len(ids) else np.zeros((2, 0), np.intp)
    )
    keep = np.zeros(len(q), bool)
    plain = tab.objs[0][k] != _kt.MESH
    keep[plain] = _tlas.plain_overlaps(tab, q[plain], k[plain], queries)
    rows = np.flatnonzero(~plain)
    meets, centre, half, axes, cull = _tlas.local_boxes(tab, q[rows], k[rows], queries)
    rows, parts = rows[meets], (centre[meets], half[meets], axes[meets], cull[meets])
    if len(rows):
        packed, objs = _tlas.pack(scene, tab)
        touch = np.zeros(len(rows), bool)
        _kt.meshes_touch_boxes(packed, objs[7], _tlas.frozen(k[rows]),
                               *(_tlas.frozen(a) for a in parts), touch)  # fmt: skip
        keep[rows] = touch
    return _box_pairs(scene, convex_ids, queries, ids, q[keep], k[keep], single)


def overlapping_brute(scene, boxes, *, mask=None, group=None):
    """Slow twin of :func:`overlapping`: every query box against every object (meshes:
    every triangle)."""
    if isinstance(boxes, convex.Shapes):
        ids = _selected_3d(scene, mask, group)
        return _cq.shapes_overlapping(scene, ids, boxes, brute=True)
    queries, single = _boxes(scene, boxes)
    ids, convex_ids = _cq.split(scene, _tlas.selected(scene, mask, group))
    tab = _tlas.table(scene, ids, _tlas.max_finite(queries))
    q, k = _tlas.overlapping_brute(tab, queries)
    return _box_pairs(scene, convex_ids, queries, ids, q, k, single)


class SceneNearest(NamedTuple):
    """Nearest object to each point: ``object`` (P,) intp (-1 for none within reach),
    ``distance`` (P,) float (inf for none), ``face`` (P,) intp (the mesh's face, -1
    for a plain volume or none), ``point`` (P, 3) float ((P, 2) in a 2D scene), the
    object's point nearest to it in world coordinates (the point itself inside a plain
    volume; NaN for none)."""

    object: np.ndarray
    distance: np.ndarray
    face: np.ndarray
    point: np.ndarray


def nearest(scene, points, *, max_distance=np.inf, mask=None, group=None):
    """The object nearest to each point within ``max_distance`` (inclusive), its
    distance, face (meshes) and nearest point: a :class:`SceneNearest` (scalars and a
    (3,) point for one (3,) point). Ties go to the lower object id; ``mask`` and
    ``group`` as for :func:`overlapping`.

    A mesh is its surface (:meth:`TriangleMesh.closest_point` of the point moved into
    its frame, ties to the lowest face); a plain volume is solid, at distance 0 from the
    points inside it (closed forms: sphere, box; GJK for a convex shape, against every
    point). Points walk a top-level tree over the
    objects' world boxes, nearer box first, skipping boxes farther than the best
    distance so far, then each mesh's own tree in its frame. Inputs past 2**90 in
    magnitude, or meshes smaller than 2**-90, go through :func:`nearest_brute`.
    """
    pts, single = _points(scene, points)
    reach = _check_distance(max_distance)
    ids, convex_ids = _cq.split(scene, _tlas.selected(scene, mask, group))
    pts = _tlas.frozen(pts)
    tab = _tlas.table(scene, ids, _tlas.max_finite(pts))
    n = len(pts)
    if _tlas.ordinary(tab, pts):
        tlas, _ = _tlas.top_tree(tab)
        packed, objs = _tlas.pack(scene, tab)
        out = (np.full(n, -1, np.intp), np.full(n, np.inf), np.full(n, -1, np.intp),
               np.full((n, 3), np.nan))  # fmt: skip
        _tlas.run(
            _kt.nearest, _kt.nearest_parallel, n, tlas, objs, packed, pts, reach, out
        )
        k, d, face, point = out
    else:
        k, d, face, point = _tlas.nearest_brute(tab, pts, reach)
    found = (_object_ids(ids, k), d, face, point)
    return _nearest(scene, convex_ids, pts, reach, found, single)


def nearest_brute(scene, points, *, max_distance=np.inf, mask=None, group=None):
    """Slow twin of :func:`nearest`: every object's distance to every point, in id
    order (meshes by :meth:`TriangleMesh.closest_point`)."""
    pts, single = _points(scene, points)
    reach = _check_distance(max_distance)
    ids, convex_ids = _cq.split(scene, _tlas.selected(scene, mask, group))
    tab = _tlas.table(scene, ids, _tlas.max_finite(pts))
    k, d, face, point = _tlas.nearest_brute(tab, pts, reach)
    found = (_object_ids(ids, k), d, face, point)
    return _nearest(scene, convex_ids, pts, reach, found, single)


def contact_segments(scene, result):
    """(T, 2, 3) world-frame contact segments, one per column of ``result.triangles``
    (a ``mode="all"`` result of ``scene``, taken before anything moves): where each
    pair of crossing triangles meets (:meth:`TriangleMesh.contacts`). A column with a
    plain volume has no triangle pair, and NaN end points."""
    return contact_geometry(scene, result)[0]


def contact_geometry(scene, result):
    """(segments (T, 2, 3), normals (T, 3), depths (T,)) of each column of
    ``result.triangles`` (as :func:`contact_segments`), in world coordinates: the
    contact segment, and the triangle pair's normal and depth as
    :class:`~hitbox.mesh.Contacts` defines them (the second object's triangle moved by
    depth times normal parts the pair). In a 3D scene, a pair of two plain volumes has
    one column with the pair's own depth and normal (:func:`hitbox.convex.penetration`:
    exact for spheres and boxes), and a mesh against a plain volume each touching
    face's own (the face against the ball or box, exact:
    :mod:`hitbox._kernels.triangle_depth`); their segment ends are NaN. In a 2D scene
    each pair's depth and normal lie in the plane (z = 0): those of the two shapes
    extruded along z (:mod:`hitbox._scene_planar`), exact for discs and rectangles alike."""
    n = result.triangles.shape[1]
    segments = np.full((n, 2, 3), np.nan)
    normals, depths = np.full((n, 3), np.nan), np.full(n, np.nan)
    for k in range(result.pairs.shape[1]):
        i, j = (int(x) for x in result.pairs[:, k])
        lo, hi = result.offsets[k], result.offsets[k + 1]
        a, b = _object(scene, i), _object(scene, j)
        if a.kind != MESH and b.kind != MESH:
            pen = convex.penetration(*_planar.plain_pair(scene, i, j))
            normals[lo], depths[lo] = pen.normal[0], max(float(pen.depth[0]), 0.0)
            continue
        if a.kind != MESH or b.kind != MESH:  # (a 2D scene holds no meshes)
            _mesh_volume_depths(scene, i, j, result.triangles[:, lo:hi],
                                normals[lo:hi], depths[lo:hi])  # fmt: skip
            continue
        pose_i = _pose(scene, i)
        found = a.mesh.contacts(b.mesh, _relative(pose_i, _pose(scene, j)))
        if not np.array_equal(found.faces, result.triangles[:, lo:hi]):
            raise ValueError("result is not this scene's latest mode='all' result")
        segments[lo:hi] = found.segments @ pose_i[:3, :3].T + pose_i[:3, 3]
        normals[lo:hi] = found.normals @ pose_i[:3, :3].T
        depths[lo:hi] = found.depths
    return segments, normals, depths


def contact_manifolds(scene, result):
    """A :class:`hitbox.convex.Manifolds` with one row per pair of ``result`` (a
    ``mode="contacts"`` result of ``scene``): up to four contact points, their depths
    and the pair's normal (A = ``pairs[0]``, B = ``pairs[1]``, world frame) for each pair
    of two plain objects (balls, boxes, convex shapes), from one
    :func:`hitbox.convex.manifold` call over them all; count 0 and NaN for a pair with
    a mesh (its contacts are its triangle columns). In a 2D scene the points lie in the
    plane, at most two a pair (:func:`hitbox._scene_planar.in_plane`)."""
    pairs = result.pairs
    plain = [k for k, (i, j) in enumerate(pairs.T.tolist())
             if MESH not in (_object(scene, i).kind, _object(scene, j).kind)]  # fmt: skip
    n, m = pairs.shape[1], convex.MAX_POINTS
    out = convex.Manifolds(np.zeros(n, np.intp), np.full((n, 3), np.nan),
                           np.full((n, m), np.nan), np.full((n, m, 3), np.nan),
                           np.full((n, m, 3), np.nan))  # fmt: skip
    if plain:
        shapes = [_planar.plain_pair(scene, i, j) for i, j in pairs[:, plain].T.tolist()]
        a, b = (convex.concatenate([pair[side] for pair in shapes]) for side in (0, 1))
        found = convex.manifold(a, b)
        if scene.dim == 2:
            found = _planar.in_plane(found)
        for field, value in zip(out, found, strict=True):
            field[plain] = value
    return out


def _mesh_volume_depths(scene, i, j, columns, normals, depths):
    """Each touching face of the mesh against the plain volume (one of objects i < j),
    into normals and depths, as moves of object j (world frame)."""
    mesh_first = _object(scene, i).kind == MESH
    m, p = (i, j) if mesh_first else (j, i)
    pose = _pose(scene, m)
    # only the touching faces, moved into the world
    touching = _object(scene, m).mesh.triangles[columns[0 if mesh_first else 1]]
    tris = np.ascontiguousarray(touching @ pose[:3, :3].T + pose[:3, 3])
    faces = np.arange(len(tris), dtype=np.intp)
    vol, vpose = _object(scene, p), _pose(scene, p)
    if vol.kind == CONVEX:  # each face a flat hull against the shape (EPA or closed form)
        pen = convex.penetration(convex.triangles(tris), world_convex(vol, vpose))
        normals[:], depths[:] = pen.normal, np.maximum(pen.depth, 0.0)
    else:
        _kd.volume_depths(tris, faces, *_volume_args(vol, vpose), normals, depths)
    if not mesh_first:  # the mesh is object j: it moves the other way
        normals *= -1.0


def _volume_args(vol, vpose):
    """volume_depths' description of a ball or box object at pose ``vpose``."""
    centre = vpose[:3, :3] @ vol.center + vpose[:3, 3]
    if vol.kind == SPHERE:
        return 0, centre, np.zeros(3), np.eye(3), float(vol.radius)
    return 1, centre, vol.half, np.ascontiguousarray(vpose[:3, :3] @ vol.rot), 0.0


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
            if mi.intersect(mj, _relative(_pose(scene, i), _pose(scene, j)), inside=True):
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
    ids = _ids(scene)
    spheres = [_world_sphere(scene, i) for i in ids]
    pairs, dists = [], []
    for a, b in _near_spheres(spheres, distance):
        i, j = ids[a], ids[b]
        oi, oj = _object(scene, i), _object(scene, j)
        if (oi.static and oj.static) or not _allowed(scene, i, j):
            continue
        (ci, ri), (cj, rj) = spheres[a], spheres[b]
        # math.dist scales as hypot does: no overflow for objects 1e200 apart
        if math.dist(ci, cj) - ri - rj > distance * (1 + 1e-12) + 1e-300:
            continue
        d = _pair_distance(scene, i, j, distance)
        if d <= distance:
            pairs.append((i, j))
            dists.append(d)
    out = np.array(pairs, np.intp).reshape(-1, 2).T
    order = np.lexsort((out[1], out[0]))
    return np.ascontiguousarray(out[:, order]), np.array(dists, float)[order]


def _near_spheres(spheres, distance):
    """Index pairs (a < b) of the (centre, radius) spheres that may lie within
    ``distance``: those whose boxes, grown by half of it and by their rounding, meet
    (:func:`hitbox.broadphase.pairs`), and every pair with an unbounded one (a
    half-space). A superset of the pairs at most that far apart; what a loop over every
    pair found in about 3 s for a thousand objects."""
    n = len(spheres)
    if n < 2:
        return []
    dim = len(spheres[0][0])
    c = np.array([s[0] for s in spheres], float).reshape(n, dim)
    r = np.array([s[1] for s in spheres], float)
    bounded = np.isfinite(r) & np.isfinite(c).all(axis=1)
    with np.errstate(over="ignore", invalid="ignore"):
        reach = np.abs(c).max(axis=1) + r
        pad = (r + 0.5 * distance) * (1 + 1e-12) + 4e-16 * reach + 1e-300
        boxes = np.stack([c - pad[:, None], c + pad[:, None]], axis=1)
    kept = np.flatnonzero(bounded & np.isfinite(boxes).all(axis=(1, 2)))
    found = broadphase.pairs(boxes[kept]) if len(kept) > 1 else np.empty((2, 0), int)
    near = {(int(kept[p]), int(kept[q])) for p, q in found.T}
    for u in np.setdiff1d(np.arange(n), kept):  # unbounded: near everything
        near.update((min(u, k), max(u, k)) for k in range(n) if k != u)
    return sorted(near)


# -- helpers -------------------------------------------------------------------------------


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
    obj, pose = _object(scene, i), _pose(scene, i)
    return obj.verts @ pose[:3, :3].T + pose[:3, 3]


def _world_box(scene, i):
    verts = _world_vertices(scene, i)
    return verts.min(axis=0), verts.max(axis=0)


def _holds(outer, inner):
    return bool(np.all(outer[0] <= inner[0]) and np.all(inner[1] <= outer[1]))


_pose = _planar.pose4


def _world_sphere(scene, i):
    obj, pose = _object(scene, i), _pose(scene, i)
    return pose[:3, :3] @ obj.center + pose[:3, 3], obj.radius * (1 + 1e-12)


def _convex(scene, i):
    """A plain volume as a :mod:`hitbox.convex` shape in the world."""
    return world_convex(_object(scene, i), _pose(scene, i))


def _as_mesh(scene, i):
    """(mesh, pose): an object as a triangle mesh surface (a box volume as its 12
    triangles)."""
    obj = _object(scene, i)
    if obj.kind == MESH:
        return obj.mesh, _pose(scene, i)
    frame = np.eye(4)
    frame[:3, :3], frame[:3, 3] = obj.rot, obj.center
    return _box_mesh(2.0 * obj.half), _pose(scene, i) @ frame


def _pair_distance(scene, i, j, reach):
    oi, oj = _object(scene, i), _object(scene, j)
    if oi.kind != MESH and oj.kind != MESH:
        return float(convex.distance(_convex(scene, i), _convex(scene, j)).distance[0])
    if oi.kind != MESH:
        i, j, oi, oj = j, i, oj, oi  # the mesh first
    mesh, pose = oi.mesh, _pose(scene, i)
    if oj.kind == CONVEX:  # every face, a flat hull, against the solid shape
        world = mesh.vertices @ pose[:3, :3].T + pose[:3, 3]
        faces = convex.triangles(world[mesh.faces])
        return float(convex.distance(faces, _convex(scene, j)).distance.min())
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
    obj, pose = _object(scene, j), _pose(scene, j)
    local = (_world_vertices(scene, i) - (pose[:3, :3] @ obj.center + pose[:3, 3])) @ (
        pose[:3, :3] @ obj.rot
    )
    return bool(np.any(np.all(np.abs(local) <= obj.half, axis=1)))


def _selected_3d(scene, mask, group):
    """The ids a query of convex shapes looks at (3D scenes only)."""
    if scene.dim != 3:
        raise TypeError("query shapes (hitbox.convex.Shapes) need a 3D scene")
    return _tlas.selected(scene, mask, group)


def _object_ids(ids, k):
    """Table positions ``k`` (-1: none) as object ids."""
    return np.where(k >= 0, ids[np.maximum(k, 0)] if len(ids) else -1, -1).astype(np.intp)


def _ray_hits(scene, convex_ids, rays, obj, face, t, single):
    """The hits of the tree's objects merged with the convex objects' (plain: face -1)."""
    if len(convex_ids):
        obj, t = obj.copy(), np.array(t, float)
        before = obj.copy()
        _cq.raycast(scene, convex_ids, *rays, obj, t)
        face = np.where(obj != before, -1, face)
    if single:
        return SceneRayHits(int(obj[0]), int(face[0]), float(t[0]))
    return SceneRayHits(obj, np.asarray(face, np.intp), np.asarray(t, float))


def _box_pairs(scene, convex_ids, queries, ids, q, k, single):
    pairs = np.stack([q, ids[k]]).astype(np.intp).reshape(2, -1)
    if len(convex_ids):
        pairs = np.concatenate([pairs, _cq.overlapping(scene, convex_ids, queries)], 1)
    pairs = np.ascontiguousarray(pairs[:, np.lexsort((pairs[1], pairs[0]))])
    return pairs[1] if single else pairs


def _nearest(scene, convex_ids, pts, reach, found, single):
    obj, d, face, point = (np.array(a) for a in found)
    if len(convex_ids):
        before = obj.copy()
        _cq.nearest(scene, convex_ids, pts, reach, obj, d, point)
        face = np.where(obj != before, -1, face)
    point = _lower(scene, point)
    if single:
        return SceneNearest(int(obj[0]), float(d[0]), int(face[0]), point[0])
    return SceneNearest(obj, d, np.asarray(face, np.intp), point)


# -- 2D scenes: queries lifted into the plane z = 0, where the scene's shapes lie ---------


def _lift(arr):
    """(n, 2) as (n, 3) with z = 0."""
    return np.ascontiguousarray(np.concatenate([arr, np.zeros((len(arr), 1))], axis=1))


def _rays(scene, origins, directions, t_max):
    """(Rays, single) of the scene's dimension, as 3D rays."""
    if scene.dim == 3:
        return v.as_rays(origins, directions, t_max, dim=3)
    rays, single = v.as_rays(origins, directions, t_max, dim=2)
    return Rays(_lift(rays.origin), _lift(rays.direction), rays.t_max), single


def _boxes(scene, boxes):
    """((Q, 2, 3) boxes, single) of the scene's dimension; an empty 2D box stays empty
    (lo +inf, hi -inf on z too)."""
    if scene.dim == 3:
        return v.as_boxes(boxes, "boxes", dim=3)
    flat, single = v.as_boxes(boxes, "boxes", dim=2)
    out = np.zeros((len(flat), 2, 3))
    out[:, :, :2] = flat
    empty = (flat[:, 0] > flat[:, 1]).any(axis=1)
    out[empty, 0, 2], out[empty, 1, 2] = np.inf, -np.inf
    return out, single


def _points(scene, points):
    """((P, 3) points, single) of the scene's dimension."""
    pts, single = v.as_points(points, "points", dim=scene.dim, finite=True)
    return (pts if scene.dim == 3 else _lift(pts)), single


def _lower(scene, points):
    """World points in the scene's dimension: a 2D scene's drop their z (0)."""
    return points if scene.dim == 3 else np.ascontiguousarray(points[:, :2])


def _check_distance(value):
    if isinstance(value, bool) or not isinstance(value, int | float | np.number):
        raise TypeError(f"max_distance must be a real number, got {type(value).__name__}")
    value = float(value)
    if not value >= 0.0:
        raise ValueError(f"max_distance must be >= 0, got {value}")
    return value
