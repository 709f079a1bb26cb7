"""Queries against a whole scene through a two-level tree: a top-level tree over the
objects' world boxes, and under each mesh object its own tree in its own frame, into
which the query is moved (instancing, as in Wald, Benthin & Slusallek 2003, "Distributed
interactive ray tracing of dynamic scenes"; Embree's instanced scenes).

Objects are rows of a table (index k; a lower k is a lower object id):
``objs = (kind, rot, trans, centre, half, wrot, radius, span)``: ``kind`` MESH, SPHERE
or BOX; a mesh's pose ``rot (K, 3, 3)``, ``trans (K, 3)`` and ``span (K, 4)``, its
nodes [n0, n1) and slots [s0, s1) in the pack; a plain volume in world coordinates
(``centre``, and ``radius`` for a sphere, ``half`` and ``wrot`` for a box). The pack
holds the distinct meshes' trees one after another: ``pack = (node_box, node_first,
node_count, tris, slot_box, prim, depth)``, each tree's indices local to its own slice.
The top-level tree is ``tlas = (node_box, node_first, node_count, slot_box, prim,
depth)`` of a :class:`hitbox.bvh.BVH` over the objects' (padded) world boxes.

A point or ray moves into a mesh's frame as ``rot^T (x - trans)``, summed in the order
of :func:`hitbox._scene_tlas.to_local`, so the kernels and the twins see the same bits. The
leaf tests are the mesh queries' own (:mod:`.ray_triangle`, :mod:`.closest`), and
:mod:`.ray`'s ball and oriented slabs, so each object answers as it does alone.
"""

import math

import numpy as np
from numba import njit, prange

from hitbox._kernels.bvh_ray import (
    WIDEN,
    box_entry,
    by_entry,
    cast_one,
    ray_consts,
    slab_entry,
)
from hitbox._kernels.closest import (
    NO_FACE,
    box_d2,
    make_nearest_walk,
    nearest_in_tree,
)
from hitbox._kernels.lanes import chunk_span, lane_count
from hitbox._kernels.pipeline import _to_frame, triangle_box
from hitbox._kernels.ray import _obb, ball

#: Object kinds in the table.
MESH, SPHERE, BOX = 0, 1, 2
#: Queries per call from which the parallel kernels are used.
PARALLEL_MIN = 2048
_CHUNK = 256
# a squared distance bound widened past the rounding of squaring a distance
_SQ_WIDEN = 1.0 + 8.0 * 2.0**-53
# a hit's t is within 4 ulps of its exact value: a limit this far past it lets a hit of
# the same exact t through
_TIE = 1.0 + 16.0 * 2.0**-53
_INF = np.inf


# -- rays ----------------------------------------------------------------------------------


@njit(inline="always")
def _local(x0, x1, x2, rot):
    """rot^T x, summed as :func:`hitbox._scene_tlas.to_local` sums."""
    return (
        x0 * rot[0, 0] + x1 * rot[1, 0] + x2 * rot[2, 0],
        x0 * rot[0, 1] + x1 * rot[1, 1] + x2 * rot[2, 1],
        x0 * rot[0, 2] + x1 * rot[1, 2] + x2 * rot[2, 2],
    )


@njit
def _mesh_ray(node_box, node_first, node_count, tris, prim, stacks, o, d, t_max):
    """(t, face) of the ray's first hit on one mesh within t_max, or (inf, -1): the
    closest-hit walk of ``TriangleMesh.raycast`` (:func:`.bvh_ray.cast_one`; ``stacks``
    its node and entry stacks)."""
    o, d, zero, inv = ray_consts(o[0], o[1], o[2], d[0], d[1], d[2])
    t, s, _, _ = cast_one(
        node_box, node_first, node_count, tris, prim, stacks[0], stacks[1], o, d, zero,
        inv, t_max, False,
    )  # fmt: skip
    return (t, prim[s]) if s >= 0 else (np.inf, -1)


@njit(error_model="numpy")
def _object_ray(objs, pack, k, origins, directions, r, stack, limit):
    """(t, face) of ray r's first hit on object k within ``limit`` (inf, -1: none)."""
    kind, rot, trans, centre, half, wrot, radius, span = objs
    if kind[k] == SPHERE:
        t0, _ = ball(
            origins[r, 0] - centre[k, 0], origins[r, 1] - centre[k, 1],
            origins[r, 2] - centre[k, 2], directions[r, 0], directions[r, 1],
            directions[r, 2], radius[k], limit,
            max(abs(origins[r, 0]), abs(origins[r, 1]), abs(origins[r, 2]),
                abs(centre[k, 0]), abs(centre[k, 1]), abs(centre[k, 2])),
        )  # fmt: skip
        return t0, -1
    if kind[k] == BOX:
        t0, _, _ = _obb(centre, half, wrot, k, origins, directions, r, limit)
        return t0, -1
    m_box, m_first, m_count, m_tris, _, m_prim, _ = pack
    R = rot[k]
    o = _local(origins[r, 0] - trans[k, 0], origins[r, 1] - trans[k, 1],
               origins[r, 2] - trans[k, 2], R)  # fmt: skip
    d = _local(directions[r, 0], directions[r, 1], directions[r, 2], R)
    n0, n1, s0, s1 = span[k, 0], span[k, 1], span[k, 2], span[k, 3]
    return _mesh_ray(m_box[n0:n1], m_first[n0:n1], m_count[n0:n1], m_tris[s0:s1],
                     m_prim[s0:s1], stack, o, d, limit)  # fmt: skip


@njit(cache=True, nogil=True, error_model="numpy")
def raycast(tlas, objs, pack, rays, out, start, stop):
    """First hit of rays [start, stop) among the objects: ``out = (object k, face, t)``
    (-1, -1, inf on a miss). ``rays = (origins, directions, t_max)``.

    The top-level tree is walked nearer child first, each node and object skipped once
    its entry t passes the best hit so far; an object is cast with that best t as its
    limit, and a hit at the same t goes to the lower k.
    """
    t_box, t_first, t_count, t_slot_box, t_prim, t_depth = tlas
    origins, directions, t_max = rays
    out_obj, out_face, out_t = out
    nodes = np.empty(t_depth + 2, np.intp)
    entries = np.empty(t_depth + 2)
    stack = (np.empty(pack[6] + 2, np.intp), np.empty(pack[6] + 2))
    for r in range(start, stop):
        o, d, zero, inv = ray_consts(origins[r, 0], origins[r, 1], origins[r, 2],
                                 directions[r, 0], directions[r, 1], directions[r, 2])  # fmt: skip
        best_t, best_k, best_f = t_max[r], -1, -1
        top = 0
        if len(t_first):
            te = box_entry(t_box, 0, o, inv, zero, best_t * WIDEN)
            if te != np.inf:
                nodes[0], entries[0], top = 0, te, 1
        while top > 0:
            top -= 1
            reach = best_t * WIDEN
            if entries[top] > reach:
                continue
            m = nodes[top]
            c = t_count[m]
            f = t_first[m]
            if c > 0:
                for s in range(f, f + c):
                    te = slab_entry(t_slot_box[s, 0, 0], t_slot_box[s, 0, 1],
                                    t_slot_box[s, 0, 2], t_slot_box[s, 1, 0],
                                    t_slot_box[s, 1, 1], t_slot_box[s, 1, 2], o, inv, zero,
                                    best_t * WIDEN)  # fmt: skip
                    if te == np.inf:
                        continue
                    k = t_prim[s]
                    # past the best t by a few ulps: an exact tie with it is found
                    limit = best_t if best_k < 0 else min(best_t * _TIE, t_max[r])
                    t, face = _object_ray(objs, pack, k, origins, directions, r, stack,
                                          limit)  # fmt: skip
                    if t == np.inf:
                        continue
                    if t < best_t or (t == best_t and (best_k < 0 or k < best_k)):
                        best_t, best_k, best_f = t, k, face
                continue
            # box_entry and the push by entry t, written out: an inlined helper takes a
            # reference count on each array it is passed, at every node
            g = f + 1
            tl = slab_entry(t_box[f, 0, 0], t_box[f, 0, 1], t_box[f, 0, 2],
                            t_box[f, 1, 0], t_box[f, 1, 1], t_box[f, 1, 2], o, inv, zero,
                            reach)  # fmt: skip
            tr = slab_entry(t_box[g, 0, 0], t_box[g, 0, 1], t_box[g, 0, 2],
                            t_box[g, 1, 0], t_box[g, 1, 1], t_box[g, 1, 2], o, inv, zero,
                            reach)  # fmt: skip
            for node, t in by_entry(f, tl, tr):  # the nearer pushed last
                if t != np.inf:
                    nodes[top], entries[top] = node, t
                    top += 1
        out_obj[r], out_face[r] = best_k, best_f
        out_t[r] = best_t if best_k >= 0 else np.inf


@njit(cache=True, nogil=True, parallel=True)
def raycast_parallel(tlas, objs, pack, rays, out, threads):
    """:func:`raycast` of every ray, chunks of rays dealt to one lane per thread."""
    n = len(rays[0])
    lanes, n_chunks = lane_count(n, threads, _CHUNK)
    for lane in prange(lanes):
        for c in range(lane, n_chunks, lanes):
            lo, hi = chunk_span(c, n, _CHUNK)
            raycast(tlas, objs, pack, rays, out, lo, hi)


# -- nearest objects -----------------------------------------------------------------------


@njit
def _mesh_closest(node_box, node_first, node_count, tris, slot_box, prim, stack, bound,
                  px, py, pz, limit):  # fmt: skip
    """(squared distance, face, qx, qy, qz) of the mesh's point nearest to p, if its
    squared distance is at most ``limit`` (else (inf, -1, ...)): the walk of
    :func:`hitbox._kernels.closest.closest` (ties to the lowest face) from that bound."""
    best, best_s, _, q = nearest_in_tree(
        node_box, node_first, node_count, tris, slot_box, prim, stack, bound, px, py, pz,
        limit, -1, NO_FACE, (0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    )  # fmt: skip
    if best_s < 0:
        return np.inf, -1, 0.0, 0.0, 0.0
    return best, prim[best_s], q[0], q[1], q[2]


@njit(error_model="numpy")
def _object_distance(objs, pack, k, px, py, pz, stack, bound, limit):
    """(distance, face, qx, qy, qz): object k's distance from p (0 inside a plain
    volume) and its nearest point; (inf, -1, ...) for a mesh farther than ``limit``
    (a squared distance)."""
    kind, rot, trans, centre, half, wrot, radius, span = objs
    if kind[k] == SPHERE:
        dx, dy, dz = px - centre[k, 0], py - centre[k, 1], pz - centre[k, 2]
        length = math.sqrt(dx * dx + dy * dy + dz * dz)
        gap = length - radius[k]
        if not gap > 0.0:
            return 0.0, -1, px, py, pz
        s = radius[k] / length
        return (
            gap,
            -1,
            centre[k, 0] + dx * s,
            centre[k, 1] + dy * s,
            centre[k, 2] + dz * s,
        )
    if kind[k] == BOX:
        W = wrot[k]
        q = _local(px - centre[k, 0], py - centre[k, 1], pz - centre[k, 2], W)
        e0 = abs(q[0]) - half[k, 0]
        e1 = abs(q[1]) - half[k, 1]
        e2 = abs(q[2]) - half[k, 2]
        e0 = e0 if e0 > 0.0 else 0.0
        e1 = e1 if e1 > 0.0 else 0.0
        e2 = e2 if e2 > 0.0 else 0.0
        gap = math.sqrt(e0 * e0 + e1 * e1 + e2 * e2)
        if gap == 0.0:
            return 0.0, -1, px, py, pz
        c0 = min(max(q[0], -half[k, 0]), half[k, 0])
        c1 = min(max(q[1], -half[k, 1]), half[k, 1])
        c2 = min(max(q[2], -half[k, 2]), half[k, 2])
        return (gap, -1, centre[k, 0] + W[0, 0] * c0 + W[0, 1] * c1 + W[0, 2] * c2,
                centre[k, 1] + W[1, 0] * c0 + W[1, 1] * c1 + W[1, 2] * c2,
                centre[k, 2] + W[2, 0] * c0 + W[2, 1] * c1 + W[2, 2] * c2)  # fmt: skip
    m_box, m_first, m_count, m_tris, m_slot_box, m_prim, _ = pack
    R = rot[k]
    p = _local(px - trans[k, 0], py - trans[k, 1], pz - trans[k, 2], R)
    n0, n1, s0, s1 = span[k, 0], span[k, 1], span[k, 2], span[k, 3]
    d2, face, x, y, z = _mesh_closest(
        m_box[n0:n1], m_first[n0:n1], m_count[n0:n1], m_tris[s0:s1], m_slot_box[s0:s1],
        m_prim[s0:s1], stack, bound, p[0], p[1], p[2], limit,
    )  # fmt: skip
    if face < 0:
        return np.inf, -1, 0.0, 0.0, 0.0
    return (math.sqrt(d2), face, trans[k, 0] + R[0, 0] * x + R[0, 1] * y + R[0, 2] * z,
            trans[k, 1] + R[1, 0] * x + R[1, 1] * y + R[1, 2] * z,
            trans[k, 2] + R[2, 0] * x + R[2, 1] * y + R[2, 2] * z)  # fmt: skip


@njit(inline="always")
def _objects_in_leaf(args, f, c, px, py, pz, state):
    """:func:`nearest`'s test of top-level slots [f, f + c): ``args`` (slot_box, prim,
    objs, pack, stack, bound: scratch of the mesh walks), ``state`` (limit: the best
    distance squared and widened, best distance, k, face, qx, qy, qz); a tie in
    distance goes to the lower k."""
    slot_box, prim, objs, pack, stack, bound = args
    limit, best_d, best_k, best_f, qx, qy, qz = state
    for s in range(f, f + c):
        if box_d2(slot_box, s, px, py, pz) > limit:
            continue
        k = prim[s]
        d, face, x, y, z = _object_distance(objs, pack, k, px, py, pz, stack, bound,
                                            limit)  # fmt: skip
        if d < best_d or (d == best_d and (best_k < 0 or k < best_k)):
            best_d, best_k, best_f = d, k, face
            qx, qy, qz = x, y, z
            limit = best_d * best_d * _SQ_WIDEN
    return limit, best_d, best_k, best_f, qx, qy, qz


_nearest_object_walk = make_nearest_walk(_objects_in_leaf)


@njit(cache=True, nogil=True, error_model="numpy")
def nearest(tlas, objs, pack, points, max_distance, out, start, stop):
    """Nearest object to points [start, stop) within ``max_distance`` (inclusive):
    ``out = (object k, distance, face, point (P, 3))``; (-1, inf, -1, NaN) for none.

    The top-level tree is walked nearer box first, pruning boxes farther than the best
    distance so far; a tie in distance goes to the lower k.
    """
    t_box, t_first, t_count, t_slot_box, t_prim, t_depth = tlas
    out_obj, out_d, out_face, out_point = out
    nodes = np.empty(t_depth + 2, np.intp)
    bounds = np.empty(t_depth + 2)
    leaf_args = (t_slot_box, t_prim, objs, pack, np.empty(pack[6] + 2, np.intp),
                 np.empty(pack[6] + 2))  # fmt: skip
    for p in range(start, stop):
        px, py, pz = points[p, 0], points[p, 1], points[p, 2]
        state = (max_distance * max_distance * _SQ_WIDEN, max_distance, -1, -1,
                 np.nan, np.nan, np.nan)  # fmt: skip
        if len(t_first):
            state = _nearest_object_walk(t_box, t_first, t_count, nodes, bounds,
                                         px, py, pz, leaf_args, state)  # fmt: skip
        _, best_d, best_k, best_f, qx, qy, qz = state
        out_obj[p], out_face[p] = best_k, best_f
        out_d[p] = best_d if best_k >= 0 else np.inf
        out_point[p, 0], out_point[p, 1], out_point[p, 2] = qx, qy, qz


@njit(cache=True, nogil=True, parallel=True)
def nearest_parallel(tlas, objs, pack, points, max_distance, out, threads):
    """:func:`nearest` of every point, chunks of points dealt to one lane per thread."""
    n = len(points)
    lanes, n_chunks = lane_count(n, threads, _CHUNK)
    for lane in prange(lanes):
        for c in range(lane, n_chunks, lanes):
            lo, hi = chunk_span(c, n, _CHUNK)
            nearest(tlas, objs, pack, points, max_distance, out, lo, hi)


# -- boxes against meshes ------------------------------------------------------------------


@njit(inline="always")
def _boxes_meet(a, i, b, j):
    return (
        a[i, 0, 0] <= b[j, 1, 0] and b[j, 0, 0] <= a[i, 1, 0]
        and a[i, 0, 1] <= b[j, 1, 1] and b[j, 0, 1] <= a[i, 1, 1]
        and a[i, 0, 2] <= b[j, 1, 2] and b[j, 0, 2] <= a[i, 1, 2]
    )  # fmt: skip


@njit(cache=True, nogil=True, error_model="numpy")
def meshes_touch_boxes(pack, span, objects, centre, half, rot, cull, out):
    """For each pair p, whether a triangle of mesh object ``objects[p]`` touches the
    oriented box (``centre[p]``, ``half[p]``, ``rot[p]``, in that mesh's frame; columns
    of rot are its axes): the mesh's tree culled by the box's (padded) AABB ``cull[p]``,
    then the exact, closed triangle-box test of the Scene's narrow phase
    (:func:`hitbox._kernels.pipeline.triangle_box`)."""
    m_box, m_first, m_count, m_tris, m_slot_box, _, depth = pack
    stack = np.empty(depth + 2, np.intp)
    for p in range(len(objects)):
        k = objects[p]
        n0, s0 = span[k, 0], span[k, 2]
        c_p, h_p, r_p = centre[p], half[p], rot[p]
        found = False
        stack[0] = n0
        top = 1 if _boxes_meet(m_box, n0, cull, p) else 0
        while top > 0 and not found:
            top -= 1
            m = stack[top]
            c = m_count[m]
            f = m_first[m]
            if c > 0:
                for s in range(s0 + f, s0 + f + c):
                    if not _boxes_meet(m_slot_box, s, cull, p):
                        continue
                    v0 = _to_frame(m_tris, s, 0, c_p, r_p)
                    v1 = _to_frame(m_tris, s, 1, c_p, r_p)
                    v2 = _to_frame(m_tris, s, 2, c_p, r_p)
                    if triangle_box(v0, v1, v2, h_p[0], h_p[1], h_p[2]):
                        found = True
                        break
                continue
            for child in (n0 + f, n0 + f + 1):
                if _boxes_meet(m_box, child, cull, p):
                    stack[top] = child
                    top += 1
        out[p] = found
