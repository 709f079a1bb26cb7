"""Many poses of one mesh pair in one call (``TriangleMesh.intersect_many``): the
serial loop with its witness, and the parallel kernel that deals chunks of poses to one
lane per thread; the walk itself is :mod:`hitbox._kernels.collide`'s. Also the slot
pairs of a walk as sorted face pairs (:func:`face_pairs`), which one pose's ``all``
answer takes too."""

import numpy as np
from numba import njit, prange
from numba.typed import List

from hitbox._kernels.borrowed import borrowed, borrowed_tree
from hitbox._kernels.collide import _descend, roots_meet
from hitbox._kernels.node_tests import posed_bv, query_slack, stack_rows
from hitbox._kernels.triangle_overlap import tri_tri_overlap
from hitbox._kernels.triangle_points import load, load_xf


@njit
def _sorted_keys(slots, n, a_faces, b_faces, keys):
    """``keys[:n]``: the first n slot pairs (2, >= n) as faces, each the code
    ``face_a * len(b_faces) + face_b`` (below 2**63 for any two meshes that fit in
    memory), ascending: by A's face, then B's."""
    n_b = len(b_faces)
    for q in range(n):
        keys[q] = a_faces[slots[0, q]] * n_b + b_faces[slots[1, q]]
    keys[:n].sort()


@njit(cache=True, nogil=True)
def face_pairs(slots, a_faces, b_faces):
    """Slot pairs (2, n) of two trees as face pairs (2, n), sorted by A's face, then
    B's (``a_faces``, ``b_faces``: each tree's face of each slot)."""
    n = slots.shape[1]
    keys = np.empty(n, np.int64)
    _sorted_keys(slots, n, a_faces, b_faces, keys)
    n_b = len(b_faces)
    out = np.empty((2, n), np.intp)
    for q in range(n):
        out[0, q] = keys[q] // n_b
        out[1, q] = keys[q] - out[0, q] * n_b
    return out


# inline="always": each caller passes first_only as a constant, so the two modes compile
# apart (about 5 % per pose in the any mode)
@njit(inline="always")
def _many_serial(
    a_bv0, a_bv1, a_bv2, a_first, a_count, a_tris, a_sbox, a_depth, a_mag, a_wide,
    b_bv0, b_bv1, b_bv2, b_first, b_count, b_tris, b_sbox, b_depth, b_mag, b_wide,
    rots, transes, first_only, counts, a_faces, b_faces, flat, total, first_pose,
):  # fmt: skip
    """:func:`collide_many` on one thread, in one pass: each pose's pairs, as faces
    (``a_faces``, ``b_faces``: each tree's face of each slot) sorted by A's face then
    B's, are appended to ``flat`` (3, capacity) after its first ``total`` columns, grown
    as needed, numbered from ``first_pose``; returns (flat, total). No pose is walked
    twice, which wins below a few dozen poses or when the machine's cores are busy.
    Sorted here, by the thread that walked the pose, not once over all poses after the
    parallel loop, where it ran on one thread.

    With ``first_only``, poses are walked in order with a witness (Lin & Canny's temporal
    coherence): the last pose's crossing triangle pair is tested first, and when it still
    crosses, that settles the pose without a traversal. Along a trajectory, consecutive
    poses in contact nearly always share such a pair; a witness that fails is dropped
    until a walk finds the next one, so unrelated poses do not pay for it.
    """
    n_poses = len(rots)
    if len(a_first) == 0 or len(b_first) == 0:
        counts[:] = 0
        return flat, total
    # borrowed (hitbox._kernels.borrowed): the caller holds them through the call, and
    # each pose's walk would count references to every one
    a_bv0, a_bv1, a_bv2, a_first, a_count, a_tris, a_sbox = borrowed_tree(
        a_bv0, a_bv1, a_bv2, a_first, a_count, a_tris, a_sbox
    )
    b_bv0, b_bv1, b_bv2, b_first, b_count, b_tris, b_sbox = borrowed_tree(
        b_bv0, b_bv1, b_bv2, b_first, b_count, b_tris, b_sbox
    )
    a_wide, b_wide = borrowed(a_wide), borrowed(b_wide)
    rots, transes = borrowed(rots), borrowed(transes)
    stack = np.empty((stack_rows(a_depth, b_depth), 2), np.intp)
    out = np.empty((2, 16), np.intp)
    keys = np.empty(16, np.int64)
    n_b = len(b_faces)
    witness_a = -1
    witness_b = -1
    for p in range(n_poses):
        if first_only and witness_a >= 0:
            p0, p1, p2 = load(a_tris, witness_a)
            q0, q1, q2 = load_xf(b_tris, witness_b, rots[p], transes[p])
            if tri_tri_overlap(p0, p1, p2, q0, q1, q2):
                counts[p] = 1
                continue
            witness_a = -1  # it failed once: unrelated poses would pay it every time
        rot, trans = rots[p], transes[p]
        a_bv = posed_bv(a_bv0, a_bv1, a_bv2, rot)
        b_bv = posed_bv(b_bv0, b_bv1, b_bv2, rot)
        slack = query_slack(trans, a_mag, b_mag)
        # the root pair here: a pose whose roots are apart (a third of a typical batch)
        # skips the walk's call, whose entry counts references to its twenty arrays
        if not roots_meet(a_bv, b_bv, rot, trans, slack):
            counts[p] = 0
            continue
        out, n = _descend(
            a_bv, a_first, a_count, a_tris, a_sbox, a_wide,
            b_bv, b_first, b_count, b_tris, b_sbox, b_wide,
            rot, trans, slack, stack, first_only, out, 0, 0, 0,
        )  # fmt: skip
        counts[p] = n
        if first_only:
            if n > 0:
                witness_a = out[0, 0]
                witness_b = out[1, 0]
            continue
        if total + n > flat.shape[1]:
            grown = np.empty((3, 2 * (total + n)), np.intp)
            grown[:, :total] = flat[:, :total]
            flat = grown
        if n > len(keys):
            keys = np.empty(2 * n, np.int64)
        _sorted_keys(out, n, a_faces, b_faces, keys)
        for q in range(n):
            face_a = keys[q] // n_b
            flat[0, total + q] = first_pose + p
            flat[1, total + q] = face_a
            flat[2, total + q] = keys[q] - face_a * n_b
        total += n
    return flat, total


@njit(cache=True, nogil=True)
def collide_many_serial(
    a_bv0, a_bv1, a_bv2, a_first, a_count, a_tris, a_sbox, a_depth, a_mag, a_wide,
    b_bv0, b_bv1, b_bv2, b_first, b_count, b_tris, b_sbox, b_depth, b_mag, b_wide,
    rots, transes, first_only, counts, a_faces, b_faces,
):  # fmt: skip
    """:func:`collide_many` on one thread (see :func:`_many_serial`)."""
    flat = np.empty((3, 64), np.intp)
    if first_only:
        _many_serial(
            a_bv0, a_bv1, a_bv2, a_first, a_count, a_tris, a_sbox, a_depth, a_mag, a_wide,
            b_bv0, b_bv1, b_bv2, b_first, b_count, b_tris, b_sbox, b_depth, b_mag, b_wide,
            rots, transes, True, counts, a_faces, b_faces, flat, 0, 0,
        )  # fmt: skip
        return flat[:, :0]
    flat, total = _many_serial(
        a_bv0, a_bv1, a_bv2, a_first, a_count, a_tris, a_sbox, a_depth, a_mag, a_wide,
        b_bv0, b_bv1, b_bv2, b_first, b_count, b_tris, b_sbox, b_depth, b_mag, b_wide,
        rots, transes, False, counts, a_faces, b_faces, flat, 0, 0,
    )  # fmt: skip
    return flat[:, :total]


@njit(cache=True, nogil=True, parallel=True)
def collide_many(
    a_bv0, a_bv1, a_bv2, a_first, a_count, a_tris, a_sbox, a_depth, a_mag, a_wide,
    b_bv0, b_bv1, b_bv2, b_first, b_count, b_tris, b_sbox, b_depth, b_mag, b_wide,
    rots, transes, first_only, counts, a_faces, b_faces, threads,
):  # fmt: skip
    """K poses of B at once, in parallel over poses (``threads``: numba's thread count,
    from the caller, as reading it here would keep the kernel out of the cache).

    ``counts[k]`` gets pose k's number of colliding pairs (at most 1 with ``first_only``).
    Without ``first_only`` returns every pair as (3, n): pose, face in A, face in B
    (``a_faces``, ``b_faces``: each tree's face of each slot), sorted by all three:
    each thread walks its poses once into a buffer of its own (:func:`_lane_pairs`),
    merged once at the end.
    """
    # the node tables stay as plain arrays here: parfors cannot carry a namedtuple into
    # its loop bodies, so the functions called in them rebuild the tables
    n_poses = len(rots)
    if len(a_first) == 0 or len(b_first) == 0:
        counts[:] = 0
        return np.empty((3, 0), np.intp)
    if first_only:
        # chunks of at least 32 consecutive poses, each walked serially with its own
        # witness pair, dealt round-robin to one lane per thread: prange's contiguous
        # blocks are unequal and put a trajectory's colliding stretch on one thread
        lanes = max(1, min(threads, n_poses))
        n_chunks = lanes * max(1, n_poses // (lanes * 32))
        for lane in prange(lanes):
            for c in range(lane, n_chunks, lanes):
                lo = c * n_poses // n_chunks
                hi = (c + 1) * n_poses // n_chunks
                collide_many_serial(
                    a_bv0, a_bv1, a_bv2, a_first, a_count, a_tris, a_sbox, a_depth, a_mag, a_wide,
                    b_bv0, b_bv1, b_bv2, b_first, b_count, b_tris, b_sbox, b_depth, b_mag, b_wide,
                    rots[lo:hi], transes[lo:hi], True, counts[lo:hi], a_faces, b_faces,
                )  # fmt: skip
        return np.empty((3, 0), np.intp)
    # every pair: each lane walks its dealt chunks once, into a buffer of its own, and the
    # buffers are merged in pose order at the end (no pose walked twice)
    lanes = max(1, min(threads, n_poses))
    n_chunks = min(n_poses, lanes * 16)
    parts = List()
    for _ in range(lanes):
        parts.append(
            np.empty((3, 0), np.intp)[:, :0]
        )  # a slice's type: what lanes return
    for lane in prange(lanes):
        parts[lane] = _lane_pairs(
            a_bv0, a_bv1, a_bv2, a_first, a_count, a_tris, a_sbox, a_depth, a_mag, a_wide,
            b_bv0, b_bv1, b_bv2, b_first, b_count, b_tris, b_sbox, b_depth, b_mag, b_wide,
            rots, transes, counts, a_faces, b_faces, lane, lanes, n_chunks,
        )  # fmt: skip
    return _merge_lanes(parts, counts, lanes, n_chunks)


@njit(cache=True, nogil=True)
def _lane_pairs(
    a_bv0, a_bv1, a_bv2, a_first, a_count, a_tris, a_sbox, a_depth, a_mag, a_wide,
    b_bv0, b_bv1, b_bv2, b_first, b_count, b_tris, b_sbox, b_depth, b_mag, b_wide,
    rots, transes, counts, a_faces, b_faces, lane, lanes, n_chunks,
):  # fmt: skip
    """Every pair of the chunks dealt to ``lane`` (chunk c covers poses
    [c·K/n_chunks, (c+1)·K/n_chunks)), as (3, n) rows in chunk order, pose numbers
    global; fills those poses' counts."""
    n_poses = len(rots)
    buf = np.empty((3, 64), np.intp)
    total = 0
    for c in range(lane, n_chunks, lanes):
        lo = c * n_poses // n_chunks
        hi = (c + 1) * n_poses // n_chunks
        buf, total = _many_serial(
            a_bv0, a_bv1, a_bv2, a_first, a_count, a_tris, a_sbox, a_depth, a_mag, a_wide,
            b_bv0, b_bv1, b_bv2, b_first, b_count, b_tris, b_sbox, b_depth, b_mag, b_wide,
            rots[lo:hi], transes[lo:hi], False, counts[lo:hi], a_faces, b_faces, buf,
            total, lo,
        )  # fmt: skip
    return buf[:, :total]


@njit(cache=True, nogil=True)
def _merge_lanes(parts, counts, lanes, n_chunks):
    """The lanes' buffers of :func:`_lane_pairs` as one (3, n) array in pose order."""
    n_poses = len(counts)
    flat = np.empty((3, counts.sum()), np.intp)
    read = np.zeros(lanes, np.intp)
    o = 0
    for c in range(n_chunks):
        lane = c % lanes
        lo = c * n_poses // n_chunks
        hi = (c + 1) * n_poses // n_chunks
        n = counts[lo:hi].sum()
        part = parts[lane]
        flat[:, o : o + n] = part[:, read[lane] : read[lane] + n]
        read[lane] += n
        o += n
    return flat
