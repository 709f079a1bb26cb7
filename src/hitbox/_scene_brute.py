"""The Scene's slow twin (:meth:`hitbox.pipeline.Scene.query_brute`): every pair that
the filters allow, tested exactly with no pretreatment, no broad phase, no volumes and no
tree (meshes: every triangle pair)."""

import numpy as np

from hitbox import _validate as v
from hitbox import convex, mixed
from hitbox._kernels import pipeline as _k
from hitbox._scene_objects import (
    BOX,
    CONVEX,
    MESH,
    SPHERE,
    mesh_volume_brute,
    world_convex,
    world_shapes,
)
from hitbox._scene_results import StepResult, StepStats, collect


def query_brute(scene, mode, modes):
    """A :class:`~hitbox._scene_results.StepResult` of every touching pair now (``mode``
    one of ``modes``)."""
    mode = v.check_choice(mode, "mode", modes)
    scene._materialize()
    scene._refresh_lists()
    ids = scene._ids
    t = scene._t
    if len(ids) < 2:
        cand = np.empty((2, 0), np.intp)
    else:
        a, b = np.triu_indices(len(ids), 1)
        cand = np.stack([ids[a], ids[b]])
    static = t["static"] != 0
    both_static = static[cand[0]] & static[cand[1]]
    cand = cand[:, ~both_static]
    group, mask = t["group"], t["mask"]
    ok = ((group[cand[0]] & mask[cand[1]]) != 0) & ((group[cand[1]] & mask[cand[0]]) != 0)
    keys = (cand[0].astype(np.int64) << 32) | cand[1]
    ok &= ~np.isin(keys, scene._ignore)
    cand = np.ascontiguousarray(cand[:, ok])
    is_mesh = t["is_mesh"] != 0
    plain = ~(is_mesh[cand[0]] | is_mesh[cand[1]])
    contacts = [None] * cand.shape[1]
    for k in np.flatnonzero(~plain).tolist():
        contacts[k] = _exact(scene, int(cand[0, k]), int(cand[1, k]))
    touching = np.full((2, 1), -1, np.intp)
    for k in np.flatnonzero(plain)[_plain_overlap(scene, cand[:, plain])].tolist():
        contacts[k] = touching
    hits = np.array([c is not None for c in contacts], dtype=bool)
    pairs, tris, offsets = collect(
        cand, hits, contacts, "any" if mode == "any" else "all"
    )
    n_ids, n = len(ids), cand.shape[1]
    stats = StepStats(
        scene._time, n_ids, n_ids * (n_ids - 1) // 2, int(both_static.sum()), 0,
        int((~ok).sum()), 0, 0, 0, n, 0, n, pairs.shape[1], 0.0,
    )  # fmt: skip
    result = StepResult(pairs, tris, offsets, None)
    result._stats = stats
    return result


def _exact(scene, i, j):
    """Pair (i, j) with a mesh, tested exactly with no tree: (2, m) contacts, or
    None."""
    oi, oj = scene._objects[i], scene._objects[j]
    rot, trans = scene._t["rot"], scene._t["trans"]
    if oi.kind == MESH and oj.kind == MESH:
        faces = oi.mesh.intersect_brute(oj.mesh, _k.relative(rot, trans, i, j))
        return faces if faces.shape[1] else None
    flip = oi.kind != MESH
    mesh_obj, vol = (oj, oi) if flip else (oi, oj)
    matrix = _k.relative(rot, trans, j, i) if flip else _k.relative(rot, trans, i, j)
    faces = mesh_volume_brute(mesh_obj, vol, matrix)
    if not len(faces):
        return None
    out = np.full((2, len(faces)), -1, np.intp)
    out[1 if flip else 0] = faces
    return out


def _plain_overlap(scene, pairs):
    """(n,) bool: do the plain volumes of each pair overlap (world shapes, the
    public cross-kind tests, one call per pair of kinds; a pair with a convex shape
    by :func:`hitbox.convex.intersects`)?"""
    out = np.zeros(pairs.shape[1], bool)
    if not pairs.shape[1]:
        return out
    rot, trans = scene._t["rot"], scene._t["trans"]
    kinds = {i: scene._objects[i].kind for i in np.unique(pairs).tolist()}
    for k in [k for k, (i, j) in enumerate(pairs.T.tolist())
              if CONVEX in (kinds[i], kinds[j])]:  # fmt: skip
        a, b = (world_convex(scene._objects[i], _matrix(rot[i], trans[i]))
                for i in pairs[:, k].tolist())  # fmt: skip
        out[k] = convex.intersects(a, b)[0]
    for a_kind in (SPHERE, BOX):
        for b_kind in (SPHERE, BOX):
            sel = np.array(
                [kinds[i] == a_kind and kinds[j] == b_kind
                 for i, j in pairs.T.tolist()], dtype=bool,
            )  # fmt: skip
            if sel.any():
                a = world_shapes([scene._objects[i] for i in pairs[0, sel].tolist()],
                                  rot[pairs[0, sel]], trans[pairs[0, sel]])  # fmt: skip
                b = world_shapes([scene._objects[j] for j in pairs[1, sel].tolist()],
                                  rot[pairs[1, sel]], trans[pairs[1, sel]])  # fmt: skip
                out[sel] = mixed.overlap(a, b)
    return out


def _matrix(rot, trans):
    out = np.eye(4)
    out[:3, :3], out[:3, 3] = rot, trans
    return out
