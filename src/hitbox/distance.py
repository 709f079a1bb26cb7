"""How far apart two triangle meshes are, and where: the least distance over every pair
of triangles, one pose or many. Each pose tries the meshes' convex hulls first
(:mod:`hitbox._kernels.hull_certificate`: where the hulls are nearest on both surfaces,
as for most poses of meshes apart, a separating plane proves a triangle pair the
nearest) and walks the two trees only when that fails
(:mod:`hitbox._kernels.distance_wide`).

Results are in the first mesh's model frame: ``point_a`` on mesh A, ``point_b`` on mesh
B moved by the transform, ``|point_a - point_b| == distance`` (to rounding). Touching
meshes are at distance 0 exactly (the exact triangle test decides, as
:meth:`~hitbox.mesh.TriangleMesh.intersect` does), and ``point_a == point_b`` is a
common point. Empty meshes are infinitely far apart. The walk's answer is the least
triangle-pair distance exactly; a certified one is a triangle pair's distance proved
within 1e-12 relative of the least (equal to it but for ties within rounding).

Distances are found from squared lengths. Below about 1e-154 (in the meshes' units, or
at the power of two they are solved at when a size or translation lies beyond
2**+-100) the squares are subnormal and lose relative precision; below 2.2e-162 they
vanish, and meshes that close but apart read 2.2e-162 (never 0: only touching meshes
do), not the gap to 1e-12.
"""

import math
from typing import NamedTuple

import numba
import numpy as np

from hitbox import _affine
from hitbox import _scale_groups as _sg
from hitbox import _validate as v
from hitbox._direct_call import direct_entry
from hitbox._kernels import distance as _kd
from hitbox._kernels import distance_calls as _calls
from hitbox._kernels.obb_wide import wide_part
from hitbox._kernels.rigid import split_transforms
from hitbox._mesh_hull import hull_parts
from hitbox.bvh import BVH


class MeshDistance(NamedTuple):
    """Distance of two meshes, the closest points (A's frame) and their faces.

    ``lower_bound``: the true distance is at least this (equal to ``distance`` for
    an exact query; ``(distance - atol) / (1 + rtol)`` with tolerances). ``distance``
    is inf, the points NaN and the faces -1 when the meshes are at least
    ``max_distance`` apart (then ``lower_bound`` is ``max_distance``).
    """

    distance: float
    point_a: np.ndarray
    point_b: np.ndarray
    face_a: int
    face_b: int
    lower_bound: float


class MeshDistances(NamedTuple):
    """:class:`MeshDistance` for K poses, as arrays: (K,), (K, 3), (K, 3), (K,), (K,),
    (K,)."""

    distance: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray
    face_a: np.ndarray
    face_b: np.ndarray
    lower_bound: np.ndarray


def node_boxes(mesh):
    """The mesh tree's nodes as oriented boxes (centres, half extents, axes as
    columns): an OBB tree's own boxes, any other kind's exact AABBs; made once per
    mesh."""
    if mesh._boxes is None:
        tree = mesh.bvh
        if tree.kind == "obb":
            mesh._boxes = mesh._args[0], mesh._args[1], mesh._args[2]
        else:
            box = tree.node_box
            centre = np.ascontiguousarray(0.5 * (box[:, 0] + box[:, 1]))
            half = np.ascontiguousarray(0.5 * (box[:, 1] - box[:, 0]))
            axes = np.broadcast_to(np.eye(3), (len(box), 3, 3)).copy()
            for arr in (centre, half, axes):
                arr.flags.writeable = False
            mesh._boxes = centre, half, axes
    return mesh._boxes[:3]


def node_wide(mesh):
    """The wide table (:mod:`hitbox._kernels.obb_wide`) over :func:`node_boxes`, which
    the distance walk splits by: an OBB tree's collision table, any other kind's over
    its AABBs, made once per mesh."""
    if mesh.bvh.kind == "obb":
        return mesh._walk_args()[-1]
    boxes = node_boxes(mesh)
    if len(mesh._boxes) == 3:
        wide = wide_part(boxes, mesh.bvh.node_first, mesh.bvh.node_count)
        mesh._boxes = (*boxes, wide)
    return mesh._boxes[3]


def _meshes(a, b):
    """TypeError unless a and b are meshes (hitbox.mesh.TriangleMesh, a layer above:
    known here by its tree)."""
    for name, m in (("a", a), ("b", b)):
        if not isinstance(getattr(m, "bvh", None), BVH) or not hasattr(m, "_slot_tris"):
            raise TypeError(f"{name} must be a TriangleMesh, got {type(m).__name__}")


def _options(max_distance, rtol, atol):
    if (
        max_distance is np.inf
        and rtol == 0.0 == atol
        and type(rtol) is type(atol) is float
    ):
        return np.inf, 0.0, 0.0  # the defaults, without a check each
    upper = v.check_real(max_distance, "max_distance")
    if not upper > 0.0:
        raise ValueError(f"max_distance must be > 0, got {upper}")
    rtol = v.check_real(rtol, "rtol")
    atol = v.check_real(atol, "atol")
    for name, x in (("rtol", rtol), ("atol", atol)):
        if not (x >= 0.0 and x < np.inf):
            raise ValueError(f"{name} must be finite and >= 0, got {x}")
    return upper, rtol, atol


def _args(a, b):
    """Both meshes' parts for :mod:`hitbox._kernels.distance_calls`: each its walk's
    arrays and its hull's."""
    return (
        (*node_boxes(a), a.bvh.node_first, a.bvh.node_count, a._slot_tris, a._args[6],
         node_wide(a)),
        hull_parts(a),
        (*node_boxes(b), b.bvh.node_first, b.bvh.node_count, b._slot_tris, node_wide(b)),
        hull_parts(b),
    )  # fmt: skip


def _posed_call(a, b):
    """(the kernel one pose of A and B runs, :func:`_args`, the larger mesh size, the
    walk's heap depth), kept on A for its last partner B. After the pair's first query
    the kernel is its compiled entry point (:mod:`hitbox._direct_call`): resolving the
    types of some thirty arrays took numba's dispatch about 5 us a query. The entry
    point is taken for the arguments :func:`distance`'s fast path passes, whose types
    never change for the pair: these very arrays, a writeable C-contiguous float64 pose,
    Python ints and floats."""
    kept = a._partner
    if kept is not None and kept[0] is b:
        if kept[1] is None:  # the pair's first query compiled or loaded the kernel
            probe = (*kept[2], np.eye(4), 1.0, v.SQUARES_SAFE_EXP, 1, np.inf, 0.0, 0.0,
                     np.empty(6), np.empty(3, np.intp))  # fmt: skip
            kept = a._partner = (b, direct_entry(_calls.one_posed, probe), *kept[2:])
        return kept[1:]
    parts = _args(a, b)
    size = max(a._size(), b._size())
    depth = a.bvh.depth + b.bvh.depth + 4
    a._partner = (b, None, parts, size, depth)
    return _calls.one_posed, parts, size, depth


_new_tuple = tuple.__new__


def _lower(d, upper, rtol, atol):
    return np.where(np.isinf(d), upper, np.maximum(0.0, (d - atol) / (1.0 + rtol)))


def distance(a, b, transform=None, *, max_distance=np.inf, rtol=0.0, atol=0.0):
    """Distance between mesh ``a`` and mesh ``b`` moved by ``transform`` (4x4 rigid,
    B's model frame into A's; identity if None): a :class:`MeshDistance`.

    ``max_distance``: stop as soon as the meshes are known to be at least that far
    apart ("is it farther than d?"). ``rtol``, ``atol``: an approximate answer,
    guaranteed ``true <= distance <= true (1 + rtol) + atol``, found faster.
    """
    _meshes(a, b)
    upper, rtol, atol = _options(max_distance, rtol, atol)
    out_f = np.empty(6)
    out_i = np.empty(3, np.intp)
    if (
        type(transform) is np.ndarray
        and transform.dtype == np.float64
        and transform.shape == (4, 4)
        and transform.flags.c_contiguous
        and transform.flags.writeable
    ):  # the common case: checked and answered in one compiled call
        call, parts, size, depth = _posed_call(a, b)
        d = call(*parts, transform, size, v.SQUARES_SAFE_EXP, depth, upper, rtol, atol,
                 out_f, out_i)  # fmt: skip
        fa, fb, status = out_i.tolist()
        if status == 0 and fa >= 0:  # built here, in Python scalars: 1 us of a query
            lower = d if rtol == 0.0 == atol else max(0.0, (d - atol) / (1.0 + rtol))
            return _new_tuple(MeshDistance, (
                d, out_f[:3], out_f[3:], a.bvh.prim_order.item(fa),
                b.bvh.prim_order.item(fb), lower,
            ))  # fmt: skip
        if status == 0:
            return _answer(a, b, d, out_f, out_i, upper, rtol, atol, 1.0)
    depth = a.bvh.depth + b.bvh.depth + 4
    rot, trans = _one_transform(transform)  # names what is wrong with the transform
    g = _scale_one(a, b, trans)
    if g != 1.0:  # the same problem where products of squared lengths cannot overflow
        a, b, trans, upper, atol = a._twin(g), b._twin(g), trans * g, upper * g, atol * g
    d = _calls.one_pose(*_args(a, b), rot, trans, depth, upper, rtol, atol, out_f,
                        out_i, np.empty(0), np.empty(0, np.int64))  # fmt: skip
    return _answer(a, b, d, out_f, out_i, upper, rtol, atol, g)


def _answer(a, b, d, out_f, out_i, upper, rtol, atol, g):
    """The MeshDistance of a kernel's answer at scale g."""
    if out_i[0] < 0:
        nan = np.full(3, np.nan)
        return MeshDistance(np.inf, nan, nan.copy(), -1, -1, upper / g)
    lower = max(0.0, (d - atol) / (1.0 + rtol))
    if g != 1.0:
        out_f /= g
    fa, fb = out_i[0], out_i[1]
    return MeshDistance(
        float(d) / g, out_f[:3], out_f[3:],
        int(a.bvh.prim_order[fa]), int(b.bvh.prim_order[fb]), lower / g,
    )  # fmt: skip


def distance_many(a, b, transforms, *, max_distance=np.inf, rtol=0.0, atol=0.0):
    """:func:`distance` for K poses ((K, 4, 4) transforms) in one parallel call: a
    :class:`MeshDistances`."""
    _meshes(a, b)
    upper, rtol, atol = _options(max_distance, rtol, atol)
    rots, transes, _ = v.as_transforms(transforms, "transforms", rigid=True)
    return _many(a, b, rots, transes, upper, rtol, atol)


def _many(a, b, rots, transes, upper, rtol, atol):
    """:func:`distance_many` of checked poses."""
    g = _scale(a, b, transes)
    if g != 1.0 and len(rots) > 1:  # poses far apart in scale: each group at its own
        big = np.maximum(np.abs(transes).max(axis=1), max(a._size(), b._size()))
        groups = _sg.scale_groups(big, v.SQUARES_SAFE_EXP)
        if groups is not None:
            return _many_by_scale(a, b, rots, transes, upper, rtol, atol, groups)
    if g != 1.0:  # as in distance()
        a, b, transes, upper, atol = (
            a._twin(g),
            b._twin(g),
            transes * g,
            upper * g,
            atol * g,
        )
    k = len(rots)
    out_d = np.empty(k)
    out_f = np.empty((k, 6))
    out_i = np.empty((k, 2), np.intp)
    depth = a.bvh.depth + b.bvh.depth + 4
    threads = numba.get_num_threads()
    if k >= 8 and threads > 1:
        _calls.many_poses(*_args(a, b), rots, transes, depth, upper, rtol, atol, out_d,
                          out_f, out_i, threads)  # fmt: skip
    elif k:
        _calls.serial_poses(*_args(a, b), rots, transes, depth, upper, rtol, atol, out_d,
                            out_f, out_i)  # fmt: skip
    found = out_i[:, 0] >= 0
    face_a = np.full(k, -1, np.intp)
    face_b = np.full(k, -1, np.intp)
    face_a[found] = a.bvh.prim_order[out_i[found, 0]]
    face_b[found] = b.bvh.prim_order[out_i[found, 1]]
    out_f[~found] = np.nan
    return MeshDistances(out_d / g, out_f[:, :3] / g, out_f[:, 3:] / g, face_a, face_b,
                         _lower(out_d, upper, rtol, atol) / g)  # fmt: skip


def _many_by_scale(a, b, rots, transes, upper, rtol, atol, groups):
    """:func:`_many` group by group of poses sharing a power of two (``groups``:
    :func:`hitbox._scale_groups.scale_groups`): one far pose would otherwise scale every
    other pose's problem down until its squares vanish."""
    parts = [(idx, _many(a, b, rots[idx], transes[idx], upper, rtol, atol))
             for _, idx in groups]  # fmt: skip
    return _sg.in_order(len(rots), parts)


def distance_brute(a, b, transform=None):
    """Slow twin of :func:`distance`: every triangle pair, by the same triangle-pair
    distance. Returns (distance, face_a, face_b); ties to the lowest (face_a,
    face_b)."""
    _meshes(a, b)
    rot, trans = v.as_transform(_as_matrix(transform), "transform", rigid=True)
    g = _scale_one(a, b, trans)
    if g != 1.0:  # as distance: squared lengths that neither overflow nor vanish
        moved = np.eye(4)
        moved[:3, :3], moved[:3, 3] = rot, trans * g
        d, fa, fb = distance_brute(a._twin(g), b._twin(g), moved)
        return d / g, fa, fb
    tri_a = a.triangles
    tri_b = np.ascontiguousarray(_affine.apply(rot, trans, b.triangles))
    if not len(tri_a) or not len(tri_b):
        return np.inf, -1, -1
    d2 = _kd.pair_distances(np.ascontiguousarray(tri_a), tri_b)
    fa, fb = np.unravel_index(np.argmin(d2), d2.shape)
    return float(np.sqrt(d2[fa, fb])), int(fa), int(fb)


def _scale(a, b, translations):
    """The power of two that brings both meshes and the translations to magnitudes where
    the distance kernel's products of squared lengths neither overflow nor vanish."""
    sizes = np.array([a._size(), b._size()])
    return v.pow2_factor(sizes, translations, safe_exp=v.SQUARES_SAFE_EXP)


def _scale_one(a, b, trans):
    """:func:`_scale` for one translation (3,), in Python floats: a single query's
    arrays are too small for numpy's reductions to pay."""
    big = max(a._size(), b._size())
    for x in trans.tolist():
        if math.isfinite(x):
            big = max(big, abs(x))
    return v.pow2_for(big, v.SQUARES_SAFE_EXP)


def _one_transform(transform):
    """(rot, trans) of one rigid 4x4 transform (identity if None), checked in one
    compiled pass; the numpy checks name what is wrong."""
    if transform is None:
        return np.eye(3), np.zeros(3)
    if (
        isinstance(transform, np.ndarray)
        and transform.dtype == np.float64
        and (transform.shape == (4, 4))
    ):
        rot, trans = np.empty((1, 3, 3)), np.empty((1, 3))
        if split_transforms(transform[None], True, rot, trans) < 0:
            return rot[0], trans[0]
    return v.as_transform(transform, "transform", rigid=True)


def _as_matrix(transform):
    return np.eye(4) if transform is None else transform
