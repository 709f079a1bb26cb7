"""The mesh-distance queries as called from Python: one pose checked and answered in one
compiled call, or many poses in parallel. Each pose tries the hulls' certificate first
(:mod:`hitbox._kernels.hull_certificate`) and walks the trees
(:func:`hitbox._kernels.distance_wide.mesh_distance_wide`) only when it does not hold.

Both meshes arrive as ``(walk, hull)``: walk = (centres, half extents, axes, first,
count, slot triangles[, a's slot boxes], wide table) of the tree's nodes as oriented
boxes, hull = :func:`hitbox._mesh_hull.hull_parts`.
"""

import math

import numpy as np
from numba import njit, prange

from hitbox._kernels.distance_wide import heap_size, mesh_distance_wide
from hitbox._kernels.hull_certificate import NOT_CERTIFIED, certify
from hitbox._kernels.lanes import lane_count, take_next
from hitbox._kernels.rigid import split_transforms


@njit(cache=True, nogil=True)
def one_pose(walk_a, hull_a, walk_b, hull_b, rot, trans, depth, upper, rtol, atol, out_f,
             out_i, heap_f, heap_i):  # fmt: skip
    """The distance of A and B moved by (rot, trans), as
    :func:`hitbox._kernels.distance_wide.mesh_distance_wide` answers it (``heap_f``,
    ``heap_i``: its scratch)."""
    ac, ah, ar, a_first, a_count, a_tris, a_sbox, wide_a = walk_a
    bc, bh, br, b_first, b_count, b_tris, wide_b = walk_b
    # an empty mesh has an empty hull: not certified, and the walk answers inf
    d = certify(hull_a, hull_b, a_first, a_count, a_tris, b_first, b_count, b_tris, rot,
                trans, depth, upper, rtol, atol, out_f, out_i)  # fmt: skip
    if d != NOT_CERTIFIED:
        return d
    return mesh_distance_wide(
        ac, ah, ar, a_first, a_count, a_tris, a_sbox, wide_a,
        bc, bh, br, b_first, b_count, b_tris, wide_b,
        rot, trans, depth, upper, rtol, atol, out_f, out_i, heap_f, heap_i,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def one_posed(walk_a, hull_a, walk_b, hull_b, pose, size, safe_exp, depth, upper, rtol,
              atol, out_f, out_i):  # fmt: skip
    """:func:`one_pose` for one 4x4 ``pose``, checked here (one compiled call a query,
    not three). out_i[2]: 0 when it answered; 1 when the pose is not rigid
    (:func:`hitbox._kernels.rigid.split_transforms`); 2 when max(``size``, the
    translation's magnitude) lies outside [2**-safe_exp, 2**safe_exp], where squared
    lengths may overflow or vanish (the caller solves it scaled). Returns the distance,
    inf when out_i[2] > 0."""
    rot = np.empty((1, 3, 3))
    trans = np.empty((1, 3))
    if split_transforms(pose.reshape((1, 4, 4)), True, rot, trans) >= 0:
        out_i[2] = 1
        return np.inf
    big = size
    for r in range(3):
        big = max(big, abs(trans[0, r]))
    if big != 0.0 and not (
        math.ldexp(1.0, -safe_exp) <= big <= math.ldexp(1.0, safe_exp)
    ):
        out_i[2] = 2
        return np.inf
    out_i[2] = 0
    return one_pose(walk_a, hull_a, walk_b, hull_b, rot[0], trans[0], depth, upper, rtol,
                    atol, out_f, out_i, np.empty(0), np.empty(0, np.int64))  # fmt: skip


@njit(cache=True, nogil=True, parallel=True)
def many_poses(walk_a, hull_a, walk_b, hull_b, rots, transes, depth, upper, rtol, atol,
               out_d, out_f, out_i, threads):  # fmt: skip
    """:func:`one_pose` for K poses on ``threads`` threads: out_d (K,), out_f (K, 6),
    out_i (K, 2). Each lane takes the next pose when it is free
    (:func:`~hitbox._kernels.lanes.take_next`): a certified pose costs a tenth of a
    walked one, so poses dealt in turn left one lane the larger share of walks, and
    prange's contiguous blocks one lane most of them."""
    lanes, _ = lane_count(len(rots), threads, 1)
    counter = np.zeros(1, np.int64)
    for _ in prange(lanes):
        heap_f = np.empty(heap_size(depth))  # the walks' scratch, one per lane
        heap_i = np.empty(len(heap_f), np.int64)
        while True:
            p = take_next(counter)
            if p >= len(rots):
                break
            out_d[p] = one_pose(walk_a, hull_a, walk_b, hull_b, rots[p], transes[p],
                                depth, upper, rtol, atol, out_f[p], out_i[p], heap_f,
                                heap_i)  # fmt: skip


@njit(cache=True, nogil=True)
def serial_poses(walk_a, hull_a, walk_b, hull_b, rots, transes, depth, upper, rtol, atol,
                 out_d, out_f, out_i):  # fmt: skip
    """:func:`many_poses` on one thread (few poses)."""
    heap_f = np.empty(heap_size(depth))
    heap_i = np.empty(len(heap_f), np.int64)
    for p in range(len(rots)):
        out_d[p] = one_pose(walk_a, hull_a, walk_b, hull_b, rots[p], transes[p], depth,
                            upper, rtol, atol, out_f[p], out_i[p], heap_f,
                            heap_i)  # fmt: skip
