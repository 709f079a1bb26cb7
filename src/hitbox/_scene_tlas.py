"""The machinery behind :func:`hitbox.scene_queries.raycast`, :func:`~hitbox.scene_queries.
overlapping` and :func:`~hitbox.scene_queries.nearest`: the objects a query's mask keeps
as one table, their world boxes and the top-level tree over them, the distinct meshes'
trees packed into flat arrays, and the brute-force twins.

The top-level tree is built for each query from the current poses, so it never goes
stale; the mesh pack is kept per scene until its set of meshes changes.
"""

import weakref
from typing import NamedTuple

import numba
import numpy as np

from hitbox import _validate as v
from hitbox import mixed, ray
from hitbox._kernels import pipeline as _kp
from hitbox._kernels import tlas as _k
from hitbox._mesh_probe import query_mesh
from hitbox._scene_objects import BOX, MESH, SPHERE, check_bits
from hitbox._types import OBBs, Spheres
from hitbox.bvh import BVH

#: Objects per leaf of the top-level tree.
TLAS_LEAF = 1
#: Relative padding of the objects' world boxes, far above the rounding of the moves.
PAD = 1e-9
# magnitudes within which no query needs the meshes' power-of-two rescaling
_SAFE = 2.0**90

_PACKS = weakref.WeakKeyDictionary()  # scene -> (tree ids, Pack, trees)


class Table(NamedTuple):
    """The objects a query looks at, in id order: ``ids (K,)``; ``objs`` the kernels'
    tuple (see :mod:`hitbox._kernels.tlas`); ``boxes (K, 2, 3)`` padded world boxes;
    ``meshes`` the distinct meshes and ``mesh_of (K,)`` each object's (-1: plain)."""

    ids: np.ndarray
    objs: tuple
    boxes: np.ndarray
    meshes: list
    mesh_of: np.ndarray


# -- moving points into an object's frame ---------------------------------------------------


def to_local(points, rot, trans):
    """``rot^T (p - trans)`` for (n, 3) points, rot (3, 3) or one per point (n, 3, 3),
    summed term by term in a fixed order (the kernels sum alike: the same bits)."""
    x = points - trans
    return (
        x[:, 0:1] * rot[..., 0, :]
        + x[:, 1:2] * rot[..., 1, :]
        + x[:, 2:3] * rot[..., 2, :]
    )


def turn(vectors, rot):
    """``rot^T v`` for (n, 3) directions, summed as :func:`to_local` sums."""
    x = vectors
    return (
        x[:, 0:1] * rot[..., 0, :]
        + x[:, 1:2] * rot[..., 1, :]
        + x[:, 2:3] * rot[..., 2, :]
    )


# -- the objects a query looks at -----------------------------------------------------------


def selected(scene, mask, group=None):
    """(K,) intp: the live ids, increasing, whose group shares a bit with ``mask`` and
    whose mask shares a bit with ``group`` (Box2D's filter, the query as one party;
    None leaves that side open)."""
    ids = scene.ids
    if mask is not None:
        mask = check_bits(mask, "mask")
        ids = ids[(scene._t["group"][ids] & mask) != 0]
    if group is not None:
        group = check_bits(group, "group")
        ids = ids[(scene._t["mask"][ids] & group) != 0]
    return ids


def table(scene, ids, reach):
    """The :class:`Table` of objects ``ids`` at their current poses; world boxes padded
    by PAD times their magnitude plus ``reach`` (the largest query coordinate)."""
    scene._materialize()
    t = scene._t
    n = len(ids)
    rot = np.ascontiguousarray(t["rot"][ids])
    trans = np.ascontiguousarray(t["trans"][ids])
    objects = [scene._objects[i] for i in ids.tolist()]
    kind = np.array([_KIND[o.kind] for o in objects], np.intp).reshape(n)
    plain = kind != _k.MESH
    model_c = np.array([o.center for o in objects], float).reshape(n, 3)
    centre = np.einsum("kij,kj->ki", rot, model_c) + trans
    radius = np.array([o.radius for o in objects], float).reshape(n)
    half = np.zeros((n, 3))
    wrot = np.tile(np.eye(3), (n, 1, 1))
    box = kind == _k.BOX
    if box.any():
        half[box] = [objects[k].half for k in np.flatnonzero(box)]
        wrot[box] = rot[box] @ np.array([objects[k].rot for k in np.flatnonzero(box)])
    # world boxes: a mesh's model box moved (Arvo) cut by its bounding sphere's box; a
    # sphere's or a box's own
    mbox = t["mbox"][ids]
    mid, ext = 0.5 * mbox[:, 0] + 0.5 * mbox[:, 1], 0.5 * mbox[:, 1] - 0.5 * mbox[:, 0]
    arvo_c = np.einsum("kij,kj->ki", rot, mid) + trans
    arvo_e = np.einsum("kij,kj->ki", np.abs(rot), ext)
    lo = np.maximum(arvo_c - arvo_e, centre - radius[:, None])
    hi = np.minimum(arvo_c + arvo_e, centre + radius[:, None])
    ext_box = np.einsum("kij,kj->ki", np.abs(wrot), half)
    lo[box], hi[box] = centre[box] - ext_box[box], centre[box] + ext_box[box]
    sphere = kind == _k.SPHERE
    lo[sphere] = centre[sphere] - radius[sphere, None]
    hi[sphere] = centre[sphere] + radius[sphere, None]
    size = np.maximum(np.abs(lo), np.abs(hi)).max(axis=1) if n else np.zeros(0)
    pad = PAD * (size + reach)[:, None]
    boxes = np.stack([lo - pad, hi + pad], axis=1)
    meshes, mesh_of, seen = [], np.full(n, -1, np.intp), {}
    for k in np.flatnonzero(~plain).tolist():
        mesh = objects[k].mesh
        mesh_of[k] = seen.setdefault(id(mesh), len(meshes))
        if mesh_of[k] == len(meshes):
            meshes.append(mesh)
    span = np.zeros((n, 4), np.intp)
    objs = (kind, rot, trans, centre, half, wrot, radius, span)
    return Table(ids, tuple(frozen(a) for a in objs), boxes, meshes, mesh_of)


_KIND = {MESH: _k.MESH, SPHERE: _k.SPHERE, BOX: _k.BOX}


def top_tree(tab):
    """The top-level tree over the table's world boxes: the kernels' ``tlas`` tuple and
    the BVH (box queries)."""
    tree = BVH.build(tab.boxes, node="aabb", leaf_size=TLAS_LEAF)
    tlas = (tree.node_box, tree.node_first, tree.node_count, tree.slot_box,
            tree.prim_order, tree.depth)  # fmt: skip
    return tlas, tree


def pack(scene, tab, n_rays=0):
    """The kernels' ``pack`` of the table's distinct meshes' trees, and the table's
    ``objs`` with each mesh object's span in it. A mesh walks the tree it would walk
    with ``n_rays`` more rays cast at it alone (:func:`hitbox._mesh_probe.query_mesh`)."""
    trees = [query_mesh(m, n_rays, "rays") for m in tab.meshes]
    key = tuple(id(m) for m in trees)
    cached = _PACKS.get(scene)
    if cached is None or cached[0] != key:
        cached = _PACKS[scene] = (key, _packed(trees), trees)
    packed, spans = cached[1]
    kind, rot, trans, centre, half, wrot, radius, _ = tab.objs
    span = np.zeros((len(kind), 4), np.intp)
    has = tab.mesh_of >= 0
    span[has] = spans[tab.mesh_of[has]]
    return packed, (kind, rot, trans, centre, half, wrot, radius, frozen(span))


def _packed(meshes):
    """((node_box, node_first, node_count, tris, slot_box, prim, depth), spans (n, 4))."""
    trees = [m.bvh for m in meshes]
    spans = np.zeros((len(trees), 4), np.intp)
    n_nodes = np.cumsum([0] + [t.n_nodes for t in trees])
    n_slots = np.cumsum([0] + [t.n_prims for t in trees])
    spans[:, 0], spans[:, 1] = n_nodes[:-1], n_nodes[1:]
    spans[:, 2], spans[:, 3] = n_slots[:-1], n_slots[1:]

    def cat(parts, shape, dtype):
        return frozen(np.concatenate([np.empty(shape, dtype), *parts]))

    packed = (
        cat([t.node_box for t in trees], (0, 2, 3), float),
        cat([t.node_first for t in trees], 0, np.intp),
        cat([t.node_count for t in trees], 0, np.intp),
        cat([m._slot_tris for m in meshes], (0, 3, 3), float),
        cat([t.slot_box for t in trees], (0, 2, 3), float),
        cat([t.prim_order for t in trees], 0, np.intp),
        max([t.depth for t in trees], default=0),
    )
    return packed, spans


def ordinary(tab, *arrays):
    """Whether every mesh's size and ``arrays`` (with the objects' positions) lie where
    no mesh query rescales its problem: the kernels then answer as the twins do."""
    big = max([_big(a) for a in arrays], default=0.0)
    big += _big(tab.objs[2]) + _big(tab.objs[3]) + _big(tab.objs[6])
    sizes = [m._size() for m in tab.meshes]
    return big <= _SAFE and all(2.0**-90 <= s <= _SAFE for s in sizes)


def _big(arr):
    return float(np.abs(arr).max()) if np.size(arr) else 0.0


def run(kernel, parallel, n, *args):
    """``kernel(*args, 0, n)``, or ``parallel(*args, threads)`` for many queries."""
    threads = numba.get_num_threads()
    if n >= _k.PARALLEL_MIN and threads > 1:
        parallel(*args, threads)
    elif n:
        kernel(*args, 0, n)


def frozen(arr):
    """A read-only view: the kernels then compile once for caller and cached arrays."""
    view = np.ascontiguousarray(arr).view()
    view.flags.writeable = False
    return view


# -- boxes in a mesh's frame ----------------------------------------------------------------


def local_boxes(tab, q, k, boxes):
    """Query boxes ``boxes[q]`` cut down to objects ``k``'s world boxes and moved into
    their frames as oriented boxes: (meets (n,) bool, centre, half, rot (n, 3, 3),
    cull (n, 2, 3) padded AABBs of the oriented boxes). The cut changes no answer (each
    object lies in its box) and keeps everything finite."""
    rot, trans = tab.objs[1][k], tab.objs[2][k]
    lo = np.maximum(boxes[q, 0], tab.boxes[k, 0])
    hi = np.minimum(boxes[q, 1], tab.boxes[k, 1])
    meets = np.all(lo <= hi, axis=1)
    lo, hi = np.where(meets[:, None], lo, 0.0), np.where(meets[:, None], hi, 0.0)
    half = 0.5 * hi - 0.5 * lo
    centre = to_local(0.5 * lo + 0.5 * hi, rot, trans)
    axes = np.ascontiguousarray(np.swapaxes(rot, 1, 2))
    ext = np.einsum("nij,nj->ni", np.abs(axes), half)
    pad = PAD * (np.abs(centre) + ext).max(axis=1, initial=0.0)[:, None]
    cull = np.stack([centre - ext - pad, centre + ext + pad], axis=1)
    return meets, centre, half, axes, cull


def plain_overlaps(tab, q, k, boxes):
    """(n,) bool: query boxes ``boxes[q]`` against plain objects ``k`` by the exact tests
    of :mod:`hitbox.mixed` (sphere-box, box-OBB SAT)."""
    kind, _, _, centre, half, wrot, radius, _ = tab.objs
    out = np.zeros(len(q), bool)
    s = kind[k] == _k.SPHERE
    if s.any():
        out[s] = mixed.overlap_sphere_aabb(
            Spheres(centre[k[s]], radius[k[s]]), boxes[q[s]]
        )
    b = kind[k] == _k.BOX
    if b.any():
        obbs = OBBs(centre[k[b]], half[k[b]], wrot[k[b]])
        out[b] = mixed.overlap_aabb_obb(boxes[q[b]], obbs)
    return out


# -- the brute-force twins ------------------------------------------------------------------


def raycast_brute(tab, o, d, t_max):
    """(object k, face, t) of each ray: every object cast at every ray its bounding
    sphere may reach, in id order, a hit kept when nearer (a tie keeps the lower id)."""
    best = np.array(t_max, dtype=float)
    hit_k, hit_face = np.full(len(o), -1, np.intp), np.full(len(o), -1, np.intp)
    kind, rot, trans, centre, half, wrot, radius, _ = tab.objs
    for k in range(len(tab.ids)):
        c, r = _bounding_sphere(tab, k)
        rows = np.flatnonzero(_may_reach(o, d, best, c, r))
        if not len(rows):
            continue
        oo, dd, tm = o[rows], d[rows], best[rows]
        if kind[k] == _k.MESH:
            mesh = tab.meshes[tab.mesh_of[k]]
            hits = mesh.raycast(
                to_local(oo, rot[k], trans[k]), turn(dd, rot[k]), t_max=tm
            )
            t, face = hits.t, hits.face
        else:
            if kind[k] == _k.SPHERE:
                found = ray.cast_sphere(Spheres(centre[k:k + 1], radius[k:k + 1]), oo, dd,
                                        t_max=tm)  # fmt: skip
            else:
                found = ray.cast_obb(OBBs(centre[k:k + 1], half[k:k + 1], wrot[k:k + 1]),
                                     oo, dd, t_max=tm)  # fmt: skip
            t, face = np.where(found.hit, found.t_enter, np.inf), np.full(len(rows), -1)
        hit = np.isfinite(t)
        closer = hit & ((t < tm) | ((t == tm) & (hit_k[rows] < 0)))
        rows = rows[closer]
        best[rows], hit_k[rows], hit_face[rows] = t[closer], k, face[closer]
    return hit_k, hit_face, np.where(hit_k >= 0, best, np.inf)


def nearest_brute(tab, pts, max_distance):
    """(object k, distance, face, point) of each point: every object's distance to
    every point, in id order, a nearer one kept (a tie keeps the lower id)."""
    n = len(pts)
    best = np.full(n, float(max_distance))
    hit_k, hit_face = np.full(n, -1, np.intp), np.full(n, -1, np.intp)
    point = np.full((n, 3), np.nan)
    kind, rot, trans, centre, half, wrot, radius, _ = tab.objs
    for k in range(len(tab.ids)):
        if kind[k] == _k.MESH:
            found = tab.meshes[tab.mesh_of[k]].closest_point(
                to_local(pts, rot[k], trans[k])
            )
            d, face = found.distance, found.face
            q = found.point @ rot[k].T + trans[k]
        else:
            d, q = _plain_distance(pts, kind[k], centre[k], radius[k], half[k], wrot[k])
            face = np.full(n, -1, np.intp)
        closer = (d < best) | ((d == best) & (hit_k < 0))
        best[closer], hit_k[closer], hit_face[closer] = d[closer], k, face[closer]
        point[closer] = q[closer]
    return hit_k, np.where(hit_k >= 0, best, np.inf), hit_face, point


def overlapping_brute(tab, boxes):
    """(2, n) (query, object k) pairs: every query box against every object, exactly."""
    n_q, n_k = len(boxes), len(tab.ids)
    q = np.repeat(np.arange(n_q), n_k)
    k = np.tile(np.arange(n_k), n_q)
    keep = np.zeros(len(q), bool)
    plain = tab.objs[0][k] != _k.MESH
    keep[plain] = plain_overlaps(tab, q[plain], k[plain], boxes)
    rows = np.flatnonzero(~plain)
    meets, centre, half, axes, _ = local_boxes(tab, q[rows], k[rows], boxes)
    found = np.empty(1, np.intp)
    for p in np.flatnonzero(meets).tolist():  # boxes apart from an object's box miss it
        mesh = tab.meshes[tab.mesh_of[k[rows[p]]]]
        faces = np.arange(mesh.n_faces, dtype=np.intp)
        keep[rows[p]] = (
            _kp.triangles_box(
                mesh.triangles, faces, centre[p], half[p], axes[p], True, found
            )
            > 0
        )
    return np.stack([q[keep], k[keep]])


def _plain_distance(pts, kind, centre, radius, half, wrot):
    """(distances, nearest points) of a solid sphere or box from each point, 0 inside;
    summed as the kernels sum."""
    if kind == _k.SPHERE:
        length = v.lengths(pts - centre)  # by hypot where squares would overflow
        gap = length - radius
        outside = gap > 0.0
        with np.errstate(invalid="ignore", divide="ignore"):
            q = centre + (pts - centre) * (radius / length)[:, None]
        return np.where(outside, gap, 0.0), np.where(outside[:, None], q, pts)
    local = to_local(pts, wrot, centre)
    e = np.abs(local) - half
    e = np.where(e > 0.0, e, 0.0)
    gap = v.lengths(e)
    q = centre + np.clip(local, -half, half) @ wrot.T
    return gap, np.where((gap > 0.0)[:, None], q, pts)


def _bounding_sphere(tab, k):
    lo, hi = tab.boxes[k]
    centre = 0.5 * lo + 0.5 * hi
    return centre, float(v.lengths(0.5 * hi - 0.5 * lo)) * (1 + 1e-12)


def _may_reach(o, d, t_max, centre, radius):
    """(R,) bool: whether each segment o + [0, t_max] d may come within ``radius`` of
    ``centre`` (widened by a relative 1e-9: the test only culls)."""
    # along u = d / max|d| (|u| in [1, 3**0.5]: its square cannot overflow or vanish)
    big = np.abs(d).max(axis=1)
    u = d / big[:, None]
    with np.errstate(over="ignore"):  # a t_max * big beyond the floats is no limit
        s = np.clip(np.einsum("ij,ij->i", centre - o, u) / np.einsum("ij,ij->i", u, u),
                    0.0, t_max * big)  # fmt: skip
    s = np.where(np.isfinite(s), s, 0.0)
    gap = v.lengths(o + s[:, None] * u - centre)
    scale = np.abs(o).max(axis=1) + np.abs(centre).max() + radius
    return gap <= radius + 1e-9 * scale


def max_finite(arr):
    """The largest finite |value| of ``arr`` (0 for none)."""
    a = np.abs(np.asarray(arr, float))
    a = a[np.isfinite(a)]
    return float(a.max()) if a.size else 0.0
