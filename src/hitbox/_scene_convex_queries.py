"""Convex objects in a Scene's whole-scene queries (:mod:`hitbox.scene_queries`): the
top-level tree's kernels know meshes, balls and boxes; the Scene's other convex shapes
(capsules, cylinders, cones, hulls) are answered here, each object against every query
in one batched :mod:`hitbox.convex` call, and merged with the tree's answers by the
queries' own rules (nearer first, ties to the lower id)."""

import numpy as np

from hitbox import _scene_tlas as _tlas
from hitbox import convex
from hitbox._kernels.primitives import HALFSPACE
from hitbox._scene_objects import CONVEX, MESH, is_halfspace, world_convex

#: Ray-casting iterations before a ray still approaching is settled (van den Bergen's
#: advancement reaches a polytope in a few, a curved surface about as fast as Newton;
#: only rays grazing a curved surface come near this).
MAX_ADVANCE = 100


def split(scene, ids):
    """(ids the tree's kernels answer, ids of convex objects): both increasing."""
    is_convex = np.array([scene._objects[i].kind == CONVEX for i in ids.tolist()], bool)
    return ids[~is_convex.reshape(len(ids))], ids[is_convex.reshape(len(ids))]


def _shape(scene, i):
    return world_convex(scene._objects[i], scene.pose(i))


def cast(shape, o, d, t_max):
    """(R,) t at which each ray ``o + t d`` (t in [0, t_max]) first meets the convex
    ``shape`` (one row), inf for a miss; 0 for a ray starting inside.

    Conservative advancement on the distance (van den Bergen 2004, "ray casting by
    GJK"): from the nearest point q of the shape to the ray's point p, the plane
    through q normal to p - q holds the shape behind it, so the ray may jump to where
    it crosses that plane and skips no hit; it misses once it no longer approaches
    the plane. A hit is a point within the touching tolerance of the shape
    (:data:`hitbox.convex.TOUCH` times the coordinates' scale)."""
    n = len(o)
    t = np.zeros(n)
    out = np.full(n, np.inf)
    live = np.flatnonzero(np.all(np.isfinite(o), axis=1))
    bound = float(shape.bound[0]) + float(np.abs(shape.trans[0]).max())
    for _ in range(MAX_ADVANCE):
        if not len(live):
            break
        p = o[live] + t[live, None] * d[live]
        found = convex.distance(convex.sphere(p, 0.0), shape)
        gap = found.distance
        tol = convex.TOUCH * np.maximum(np.abs(p).max(axis=1), bound)
        hit = gap <= tol
        out[live[hit]] = t[live[hit]]
        approach = np.einsum("ij,ij->i", found.point_b - p, d[live])
        with np.errstate(divide="ignore", invalid="ignore"):
            step = gap * gap / approach
        t[live] += np.where(approach > 0.0, step, np.inf)
        live = live[~hit & (approach > 0.0) & (t[live] <= t_max[live])]
    return out


def raycast(scene, ids, o, d, t_max, k, t):
    """Rays against the convex objects ``ids``: (k, t) updated in place where one is hit
    nearer, or as near with a lower id; ``k`` holds object ids (-1: none)."""
    for i in ids.tolist():
        shape = _shape(scene, i)
        centre, radius = shape.trans[0], float(shape.bound[0]) * (1 + 1e-12)
        if shape.kind[0] == HALFSPACE:  # unbounded: every ray may reach it
            reach = np.ones(len(o), bool)
        else:
            reach = _tlas._may_reach(o, d, t_max, centre, radius)
        if not reach.any():
            continue
        rows = np.flatnonzero(reach)
        found = cast(shape, o[rows], d[rows], np.minimum(t_max[rows], t[rows]))
        better = (found < t[rows]) | ((found == t[rows]) & np.isfinite(found)
                                      & ((k[rows] < 0) | (k[rows] > i)))  # fmt: skip
        t[rows[better]], k[rows[better]] = found[better], i


def nearest(scene, ids, pts, reach, k, dist, point):
    """Points against the convex objects ``ids`` (solid: 0 inside): (k, dist, point)
    updated in place where one is nearer, or as near with a lower id."""
    for i in ids.tolist():
        found = convex.distance(convex.sphere(pts, 0.0), _shape(scene, i))
        d = found.distance
        better = (d <= reach) & ((d < dist) | ((d == dist) & ((k < 0) | (k > i))))
        k[better], dist[better] = i, d[better]
        inside = (d == 0.0)[:, None]  # the point itself, not GJK's rounded copy of it
        point[better] = np.where(inside, pts, found.point_b)[better]


def overlapping(scene, ids, boxes):
    """(2, n) (query, object id) pairs of query boxes (Q, 2, 3) meeting convex objects
    ``ids``: each box cut down to the object's box first (it lies within it, so the
    answer stays and the box turns finite), then :func:`hitbox.convex.intersects`. A
    half-space has no box: a query box infinite towards it meets it, and another
    infinite one is cut down to its side nearest the half-space (:func:`_toward_plane`).
    """
    found = [np.zeros((2, 0), np.intp)]
    for i in ids.tolist():
        shape = _shape(scene, i)
        sure = np.zeros(len(boxes), bool)
        if shape.kind[0] == HALFSPACE:  # finite boxes as they are, the others cut
            sure, lo, hi = _toward_plane(shape, boxes)
            finite = np.all(np.isfinite(boxes), axis=(1, 2))[:, None]
            lo, hi = np.where(finite, boxes[:, 0], lo), np.where(finite, boxes[:, 1], hi)
        else:
            own = convex.bounding_boxes(shape)[0]
            lo, hi = np.maximum(boxes[:, 0], own[0]), np.minimum(boxes[:, 1], own[1])
        q = np.flatnonzero(np.all(lo <= hi, axis=1) & ~sure)
        if len(q):
            cut = convex.box(0.5 * lo[q] + 0.5 * hi[q], 0.5 * hi[q] - 0.5 * lo[q])
            q = q[convex.intersects(cut, shape)]
        q = np.union1d(q, np.flatnonzero(sure))
        found.append(np.stack([q, np.full(len(q), i)]).astype(np.intp))
    return np.concatenate(found, axis=1)


def _toward_plane(shape, boxes):
    """Query boxes (Q, 2, 3) against a half-space (one row of ``shape``): (sure (Q,):
    nonempty and unbounded towards the half-space, so they meet it; lo, hi (Q, 3): each
    box cut down, along every axis, to its side nearest the half-space, where the least
    of n . x over the box lies (the whole side when n is 0 along that axis, a point
    there when that axis's side is infinite), which meets the half-space iff the box
    does)."""
    n = shape.rot[0][:, 2]
    lo, hi = boxes[:, 0].copy(), boxes[:, 1].copy()
    empty = np.any(lo > hi, axis=1)
    near = np.where(n > 0.0, lo, hi)  # each axis's side nearest the half-space
    sure = ~empty & np.any((n != 0.0) & np.isinf(near), axis=1)
    for a in np.flatnonzero(n != 0.0).tolist():
        lo[:, a] = hi[:, a] = near[:, a]
    centre = shape.trans[0]
    for a in np.flatnonzero(n == 0.0).tolist():  # n . x does not vary along the axis
        lo[:, a] = np.clip(centre[a], lo[:, a], hi[:, a])
        hi[:, a] = lo[:, a]
    return sure, np.where(empty[:, None], 1.0, lo), np.where(empty[:, None], 0.0, hi)


# -- query shapes ----------------------------------------------------------------------------


def shapes_overlapping(scene, ids, shapes, brute=False):
    """(2, n) (query index, object id) pairs, sorted, of the convex query ``shapes``
    that meet objects ``ids``: a mesh where one of its faces does (the shapes moved
    into its frame, :meth:`TriangleMesh.intersect_shapes`), a ball, box or convex object
    by :func:`hitbox.convex.intersects`. Candidates: the pairs whose world boxes meet
    (a top-level tree over the objects' boxes; ``brute``: every pair, and every face)."""
    objects = [scene._objects[i] for i in ids.tolist()]
    poses = [scene.pose(i) for i in ids.tolist()]
    n_q = len(shapes.kind)
    if brute or not len(ids):
        q = np.repeat(np.arange(n_q), len(ids))
        k = np.tile(np.arange(len(ids)), n_q)
    else:
        from hitbox.bvh import BVH

        planes = np.array([is_halfspace(o) for o in objects], bool)
        bounded = np.flatnonzero(~planes)
        own = [_world_box(objects[m], poses[m]) for m in bounded.tolist()]
        q, k = np.zeros((2, 0), np.intp)
        if own:
            q, k = BVH.build(np.stack(own), node="aabb", leaf_size=1).query(
                convex.bounding_boxes(shapes)
            )
            k = bounded[k]
        unbounded = np.flatnonzero(planes)  # a half-space: every query a candidate
        q = np.concatenate([q, np.repeat(np.arange(n_q), len(unbounded))])
        k = np.concatenate([k, np.tile(unbounded, n_q)])
    keep = np.zeros(len(q), bool)
    is_mesh = np.array([o.kind == MESH for o in objects], bool)
    plain = ~is_mesh[k]
    if plain.any():
        world = convex.concatenate([world_convex(o, p) if o.kind != MESH else
                                    convex.sphere(np.zeros(3), 0.0)
                                    for o, p in zip(objects, poses, strict=True)])  # fmt: skip
        keep[plain] = convex.intersects(shapes, world, np.stack([q[plain], k[plain]]))
    for m in np.flatnonzero(is_mesh).tolist():
        rows = np.flatnonzero(k == m)
        if not len(rows):
            continue
        mesh, inverse = objects[m].mesh, np.linalg.inv(poses[m])
        local = convex.transform(convex.take(shapes, q[rows]), inverse)
        test = mesh.intersect_shapes_brute if brute else mesh.intersect_shapes
        keep[rows] = test(local, mode="any")
    pairs = np.stack([q[keep], ids[k[keep]]]).astype(np.intp).reshape(2, -1)
    return np.ascontiguousarray(pairs[:, np.lexsort((pairs[1], pairs[0]))])


def _world_box(obj, pose):
    """An object's world AABB (2, 3), padded: a mesh's vertices moved, a plain object's
    shape's box."""
    if obj.kind == MESH:
        world = obj.verts @ pose[:3, :3].T + pose[:3, 3]
        lo, hi = world.min(axis=0), world.max(axis=0)
        pad = 1e-9 * (np.abs(lo) + np.abs(hi) + 1e-300)
        return np.stack([lo - pad, hi + pad])
    return convex.bounding_boxes(world_convex(obj, pose))[0]
