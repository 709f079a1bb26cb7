"""Tree against tree: the narrow phase between two meshes under a rigid motion (SPEC §8).

The walk over node pairs, with the node tests of :mod:`hitbox._kernels.node_tests`;
leaves run the exact triangle test on B's triangle moved in the same summation order as
``_affine.apply``.

Descent: a leaf against an inner node splits the inner node (in AABB and k-DOP trees
under a rotation, the leaf's triangles are moved once and their box walks the inner
node's subtree: :func:`_make_descend`); two inner nodes split together (all four child
pairs) in AABB, k-DOP and sphere trees, and the larger alone in OBB trees (Coal's
``firstOverSecond``), whichever measured faster (:func:`splits_both`); an OBB node
splits into its wide children, tested four at a time (:mod:`hitbox._kernels.obb_wide`).
"""

import numpy as np
from numba import njit
from numba.extending import overload

from hitbox._kernels.borrowed import borrowed, borrowed_tree
from hitbox._kernels.bv import _kind_of_type
from hitbox._kernels.node_tests import (  # noqa: F401 (names the walk's users import here)
    REL_EPS,
    _turned_boxes,
    as_bv,
    node_magnitude,
    node_parts,
    overlap_xf,
    posed_bv,
    query_slack,
    size,
    skew_widening,
    split_rigid,
    splits_both,
    stack_rows,
    turn_terms,
    turns,
)
from hitbox._kernels.obb_wide import (
    LANES,
    a_lanes,
    b_lanes,
    lane_code,
    lane_node,
    wide_row,
)
from hitbox._kernels.triangle_contact import CONTACT_SCRATCH, tri_tri_segment
from hitbox._kernels.triangle_overlap import tri_tri_overlap
from hitbox._kernels.triangle_points import load, load_xf

# -- traversal -----------------------------------------------------------------------------


@njit(inline="always")
def _leaf_pair(a_tris, a_sbox, fa, ca, b_tris, fb, cb, rot, trans, first_only, out, n):
    """Exact tests of two leaves' triangles; appends crossing slot pairs to out (growing
    it). Returns (out, n, stop): stop when ``first_only`` found one.

    Each of b's triangles is moved once per leaf pair, and box tests on the moved
    coordinates skip the triangle test for most pairs: first against the box of a's
    whole leaf (near misses reach many leaf pairs where few triangles come close),
    then against each of a's stored triangle boxes.
    """
    ulo0 = ulo1 = ulo2 = np.inf
    uhi0 = uhi1 = uhi2 = -np.inf
    for s in range(fa, fa + ca):
        ulo0 = min(ulo0, a_sbox[s, 0, 0])
        ulo1 = min(ulo1, a_sbox[s, 0, 1])
        ulo2 = min(ulo2, a_sbox[s, 0, 2])
        uhi0 = max(uhi0, a_sbox[s, 1, 0])
        uhi1 = max(uhi1, a_sbox[s, 1, 1])
        uhi2 = max(uhi2, a_sbox[s, 1, 2])
    for t in range(fb, fb + cb):
        q0, q1, q2 = load_xf(b_tris, t, rot, trans)
        qlo0 = min(q0[0], q1[0], q2[0])
        qhi0 = max(q0[0], q1[0], q2[0])
        qlo1 = min(q0[1], q1[1], q2[1])
        qhi1 = max(q0[1], q1[1], q2[1])
        qlo2 = min(q0[2], q1[2], q2[2])
        qhi2 = max(q0[2], q1[2], q2[2])
        if (
            (uhi0 < qlo0) | (ulo0 > qhi0) | (uhi1 < qlo1) | (ulo1 > qhi1)
            | (uhi2 < qlo2) | (ulo2 > qhi2)
        ):  # fmt: skip
            continue
        for s in range(fa, fa + ca):
            if (
                a_sbox[s, 1, 0] < qlo0
                or a_sbox[s, 0, 0] > qhi0
                or a_sbox[s, 1, 1] < qlo1
                or a_sbox[s, 0, 1] > qhi1
                or a_sbox[s, 1, 2] < qlo2
                or a_sbox[s, 0, 2] > qhi2
            ):
                continue
            p0, p1, p2 = load(a_tris, s)
            if tri_tri_overlap(p0, p1, p2, q0, q1, q2):
                if n == out.shape[1]:
                    grown = np.empty((2, 2 * n + 16), np.intp)
                    for r in range(2):  # a loop: a slice copy compiles broadcasting
                        for c in range(n):
                            grown[r, c] = out[r, c]
                    out = grown
                out[0, n] = s
                out[1, n] = t
                n += 1
                if first_only:
                    return out, n, True
    return out, n, False


@njit(inline="always")
def inverse3(rot):
    """rot^-1 by cofactors, as three row tuples (rot is near orthonormal: no pivoting)."""
    c00 = rot[1, 1] * rot[2, 2] - rot[1, 2] * rot[2, 1]
    c01 = rot[1, 2] * rot[2, 0] - rot[1, 0] * rot[2, 2]
    c02 = rot[1, 0] * rot[2, 1] - rot[1, 1] * rot[2, 0]
    det = rot[0, 0] * c00 + rot[0, 1] * c01 + rot[0, 2] * c02
    i01 = (rot[0, 2] * rot[2, 1] - rot[0, 1] * rot[2, 2]) / det
    i02 = (rot[0, 1] * rot[1, 2] - rot[0, 2] * rot[1, 1]) / det
    i11 = (rot[0, 0] * rot[2, 2] - rot[0, 2] * rot[2, 0]) / det
    i12 = (rot[0, 2] * rot[1, 0] - rot[0, 0] * rot[1, 2]) / det
    i21 = (rot[0, 1] * rot[2, 0] - rot[0, 0] * rot[2, 1]) / det
    i22 = (rot[0, 0] * rot[1, 1] - rot[0, 1] * rot[1, 0]) / det
    return ((c00 / det, i01, i02), (c01 / det, i11, i12), (c02 / det, i21, i22))


@njit
def _box_walk(
    box, bv, first, count, root, walk_a, fixed_first, fixed_count,
    a_tris, a_sbox, b_tris, rot, trans, stack, base, first_only, out, n,
):  # fmt: skip
    """Walk one tree's subtree under ``root`` with a leaf of the other tree, boxed in this
    tree's frame as ``box`` (lo0, lo1, lo2, hi0, hi1, hi2): the subtree's x, y, z slabs
    against the box by six comparisons, the leaf test at each leaf reached. ``walk_a``:
    the subtree is A's (the fixed leaf is B's). Returns (out, n, done)."""
    lo0, lo1, lo2, hi0, hi1, hi2 = box
    stack[base, 0] = root
    top = base + 1
    while top > base:
        top -= 1
        x = stack[top, 0]
        if (
            (bv[x, 0, 0] > hi0) | (bv[x, 1, 0] < lo0)
            | (bv[x, 0, 1] > hi1) | (bv[x, 1, 1] < lo1)
            | (bv[x, 0, 2] > hi2) | (bv[x, 1, 2] < lo2)
        ):  # fmt: skip
            continue
        if count[x] > 0:
            if walk_a:
                fa, ca, fb, cb = first[x], count[x], fixed_first, fixed_count
            else:
                fa, ca, fb, cb = fixed_first, fixed_count, first[x], count[x]
            out, n, done = _leaf_pair(
                a_tris, a_sbox, fa, ca, b_tris, fb, cb, rot, trans, first_only, out, n
            )
            if done:
                return out, n, True
            continue
        f = first[x]
        stack[top, 0] = f + 1
        stack[top + 1, 0] = f
        top += 2
    return out, n, False


#: Slots of the per-query cache of leaf boxes (:func:`_cached_leaf_box`).
LEAF_BOX_SLOTS = 64


@njit(inline="always")
def leaf_box_cache():
    """An empty cache of leaf boxes: per slot lo0, lo1, lo2, hi0, hi1, hi2 and the key."""
    cache = np.empty((LEAF_BOX_SLOTS, 7))
    cache[:, 6] = -1.0
    return cache


@njit(inline="always")
def _cached_leaf_box(cache, key, first, count, tris, inv, rot, trans):
    """The box that culls a leaf's walk, from ``cache`` or computed into it.

    ``key`` 2 m: A's leaf m, its triangles mapped into B's frame by ``inv`` (rot^-1);
    ``key`` 2 k + 1: B's leaf k, its triangles moved into A's frame. Direct-mapped
    (a slot holds the last leaf hashed to it): the same leaf meets several subtrees of
    the other tree in one query (near misses walk the same leaf several times).
    """
    slot = key % LEAF_BOX_SLOTS
    if cache[slot, 6] != key:
        if key % 2 == 0:
            box = _a_leaf_box(first, count, tris, inv, trans)
        else:
            box = _b_leaf_box(first, count, tris, rot, trans)
        for d in range(6):
            cache[slot, d] = box[d]
        cache[slot, 6] = key
    return (
        cache[slot, 0], cache[slot, 1], cache[slot, 2],
        cache[slot, 3], cache[slot, 4], cache[slot, 5],
    )  # fmt: skip


@njit(inline="always")
def _b_leaf_box(fb, cb, b_tris, rot, trans):
    """B's leaf (slots fb.. fb+cb) moved into A's frame, boxed.

    The box is exact on the moved coordinates the triangle test sees, and far tighter
    than B's leaf box turned into A's frame, so A's boxes are tested against it directly
    (six comparisons) instead of by the separating-axis test.
    """
    lo0 = lo1 = lo2 = np.inf
    hi0 = hi1 = hi2 = -np.inf
    for t in range(fb, fb + cb):
        q0, q1, q2 = load_xf(b_tris, t, rot, trans)
        lo0, hi0 = min(lo0, q0[0], q1[0], q2[0]), max(hi0, q0[0], q1[0], q2[0])
        lo1, hi1 = min(lo1, q0[1], q1[1], q2[1]), max(hi1, q0[1], q1[1], q2[1])
        lo2, hi2 = min(lo2, q0[2], q1[2], q2[2]), max(hi2, q0[2], q1[2], q2[2])
    return lo0, lo1, lo2, hi0, hi1, hi2


@njit(inline="always")
def _a_leaf_box(fa, ca, a_tris, inv, trans):
    """A's leaf (slots fa.. fa+ca) mapped into B's frame (x -> inv (x - trans)), boxed.

    The triangle test itself runs in A's frame on B's moved triangles, so this box only
    culls; it is widened by a relative 1e-12 of the coordinates, far above the rounding
    of either mapping.
    """
    lo0 = lo1 = lo2 = np.inf
    hi0 = hi1 = hi2 = -np.inf
    mag = abs(trans[0]) + abs(trans[1]) + abs(trans[2])
    big = 0.0
    for s in range(fa, fa + ca):
        for v in range(3):
            x = a_tris[s, v, 0] - trans[0]
            y = a_tris[s, v, 1] - trans[1]
            z = a_tris[s, v, 2] - trans[2]
            big = max(big, abs(x) + abs(y) + abs(z))
            u0 = inv[0][0] * x + inv[0][1] * y + inv[0][2] * z
            u1 = inv[1][0] * x + inv[1][1] * y + inv[1][2] * z
            u2 = inv[2][0] * x + inv[2][1] * y + inv[2][2] * z
            lo0, hi0 = min(lo0, u0), max(hi0, u0)
            lo1, hi1 = min(lo1, u1), max(hi1, u1)
            lo2, hi2 = min(lo2, u2), max(hi2, u2)
    slack = REL_EPS * (mag + 2.0 * big) + 1e-300
    return lo0 - slack, lo1 - slack, lo2 - slack, hi0 + slack, hi1 + slack, hi2 + slack


def _make_descend(kind):
    """The node-pair walk of trees of node ``kind`` ("slabs", "sphere" or "obb"). Slab
    nodes (AABB, k-DOP) *walk*: a leaf against an inner node under a rotation walks
    the inner node's subtree with the leaf's moved triangles boxed (:func:`_box_walk`,
    :func:`_cached_leaf_box`). The kind is a closure constant, so each kind compiles
    without the others' branches (a branch on a constant from an overload still cost
    OBB trees a third of their time). The split reads its node sizes from arrays bound
    before the loop: an inlined helper taking the volumes counts a reference to each
    of their arrays at every split (borrowed arrays make the counts no-ops, not the
    calls and the spills around them)."""
    walks = kind == "slabs"

    @njit
    def descend(
        a_bv, a_first, a_count, a_tris, a_sbox, a_wide,
        b_bv, b_first, b_count, b_tris, b_sbox, b_wide,
        rot, trans, slack, stack, first_only, out, n, start_a, start_b,
    ):  # fmt: skip
        """Walk the node pairs from (start_a, start_b) ((0, 0): the whole trees). Appends
        colliding slot pairs to out (growing it); returns (out, n). With ``first_only``
        stops at the first pair. ``a_wide``, ``b_wide``: OBB trees' tables of
        :mod:`hitbox._kernels.obb_wide` (their walk goes by wide children)."""
        turned = turns(rot)
        widen = skew_widening(rot)
        if kind == "obb":
            # OBB trees: every pair on the stack was tested (the start pair here, the
            # rest as lanes of their parent's split, :mod:`hitbox._kernels.obb_wide`)
            if not overlap_xf(
                a_bv, start_a, b_bv, start_b, rot, trans, True, widen, slack
            ):
                return out, n
        if walks:
            terms = turn_terms(rot)
            inv = inverse3(rot)
            boxes = leaf_box_cache()
        # what the split compares (:func:`size`), bound once outside the loop
        if kind == "slabs":
            a_size, b_size = a_bv, b_bv
        elif kind == "sphere":
            a_size, b_size = a_bv.radius, b_bv.radius
        else:
            a_size, b_size = a_bv.half, b_bv.half
        top = 1
        stack[0, 0] = start_a
        stack[0, 1] = start_b
        while top > 0:
            top -= 1
            m = stack[top, 0]
            k = stack[top, 1]
            if walks and turned:
                if not _turned_boxes(a_bv, m, b_bv, k, terms, trans, widen, slack):
                    continue
            elif kind != "obb" and not overlap_xf(
                a_bv, m, b_bv, k, rot, trans, turned, widen, slack
            ):
                continue
            ca = a_count[m]
            cb = b_count[k]
            if ca > 0 and cb > 0:
                out, n, done = _leaf_pair(
                    a_tris, a_sbox, a_first[m], ca, b_tris, b_first[k], cb,
                    rot, trans, first_only, out, n,
                )  # fmt: skip
                if done:
                    return out, n
                continue
            if kind == "obb":  # the larger node's wide children, tested at once
                split_b = cb == 0 and (
                    ca > 0
                    or (b_size[k, 0] + b_size[k, 1] + b_size[k, 2])
                    > (a_size[m, 0] + a_size[m, 1] + a_size[m, 2])
                )
                if split_b:
                    row = wide_row(b_first, k)
                    word = b_lanes(
                        a_bv, m, b_wide, row, rot, trans, widen, slack, 0.0, False
                    )
                else:
                    row = wide_row(a_first, m)
                    word = a_lanes(
                        a_wide, row, b_bv, k, rot, trans, widen, slack, 0.0, False
                    )
                for lane in range(LANES - 1, -1, -1):  # lane 0 walked first
                    child = lane_node(b_wide if split_b else a_wide, row, lane)
                    if lane_code(word, lane) == 0 and child >= 0:
                        stack[top, 0] = m if split_b else child
                        stack[top, 1] = child if split_b else k
                        top += 1
                continue
            if walks and turned and ((ca > 0) != (cb > 0)):
                if cb > 0:
                    box = _cached_leaf_box(
                        boxes, 2 * k + 1, b_first[k], cb, b_tris, inv, rot, trans
                    )
                    out, n, done = _box_walk(
                        box, a_bv, a_first, a_count, m, True, b_first[k], cb,
                        a_tris, a_sbox, b_tris, rot, trans, stack, top, first_only, out, n,
                    )  # fmt: skip
                else:
                    box = _cached_leaf_box(
                        boxes, 2 * m, a_first[m], ca, a_tris, inv, rot, trans
                    )
                    out, n, done = _box_walk(
                        box, b_bv, b_first, b_count, k, False, a_first[m], ca,
                        a_tris, a_sbox, b_tris, rot, trans, stack, top, first_only, out, n,
                    )  # fmt: skip
                if done:
                    return out, n
                continue
            if ca == 0 and cb == 0:  # splits_both: AABB, k-DOP and sphere trees
                fa = a_first[m]
                fb = b_first[k]
                if walks and turned:
                    top = _push_leaf_children(a_count, fa, m, b_count, fb, k, stack, top)
                    continue
                stack[top, 0] = fa + 1
                stack[top, 1] = fb + 1
                stack[top + 1, 0] = fa + 1
                stack[top + 1, 1] = fb
                stack[top + 2, 0] = fa
                stack[top + 2, 1] = fb + 1
                stack[top + 3, 0] = fa
                stack[top + 3, 1] = fb
                top += 4
                continue
            # the larger node's children, each with the other (the inner one's if one is
            # a leaf)
            if cb > 0:
                split_b = False
            elif ca > 0:
                split_b = True
            elif kind == "slabs":
                split_b = (
                    (b_size[k, 1, 0] - b_size[k, 0, 0])
                    + (b_size[k, 1, 1] - b_size[k, 0, 1])
                    + (b_size[k, 1, 2] - b_size[k, 0, 2])
                ) > (
                    (a_size[m, 1, 0] - a_size[m, 0, 0])
                    + (a_size[m, 1, 1] - a_size[m, 0, 1])
                    + (a_size[m, 1, 2] - a_size[m, 0, 2])
                )
            else:
                split_b = b_size[k] > a_size[m]
            x0, y0, x1, y1 = split_pairs(split_b, m, k, a_first[m], b_first[k])
            stack[top, 0], stack[top, 1] = x0, y0
            stack[top + 1, 0], stack[top + 1, 1] = x1, y1
            top += 2
        return out, n

    return descend


@njit
def roots_meet(a_bv, b_bv, rot, trans, slack):
    """The root pair's node test (a caller that checks it first spares a pose of roots
    apart the walk's call)."""
    return overlap_xf(a_bv, 0, b_bv, 0, rot, trans, turns(rot), skew_widening(rot), slack)


@njit(inline="always")
def split_pairs(split_b, m, k, fa, fb):
    """The two node pairs a walk pushes when it splits pair (m, k): b's children (first
    fb) each with m when ``split_b``, else a's (first fa) each with k, the first child's
    pair last (walked first). Scalars only: a helper taking the stack would cost the
    walk a reference count on it at every split."""
    if split_b:
        return m, fb + 1, m, fb
    return fa + 1, k, fa, k


@njit(inline="always")
def _push(stack, top, m, k):
    stack[top, 0] = m
    stack[top, 1] = k
    return top + 1


@njit
def _push_leaf_children(a_count, fa, m, b_count, fb, k, stack, top):
    """The child pairs of inner nodes m and k, split together under a rotation, where a
    leaf child pairs with the other node itself rather than with each of its children:
    its walk then covers both (:func:`_box_walk`), and the leaf's triangles are boxed
    and tested against the other node once, not twice. Returns the new top;
    at most four pushes, as when all four child pairs are pushed, and every pair of a
    child of m with a child of k is covered exactly once."""
    leaf_a0 = a_count[fa] > 0
    leaf_a1 = a_count[fa + 1] > 0
    if leaf_a0:
        top = _push(stack, top, fa, k)
    if leaf_a1:
        top = _push(stack, top, fa + 1, k)
    if leaf_a0 and leaf_a1:
        return top
    if leaf_a0 or leaf_a1:
        inner = fa + 1 if leaf_a0 else fa
        top = _push(stack, top, inner, fb + 1)
        return _push(stack, top, inner, fb)
    for b in (fb + 1, fb):
        if b_count[b] > 0:
            top = _push(stack, top, m, b)  # both of m's children, by one walk
        else:
            top = _push(stack, top, fa + 1, b)
            top = _push(stack, top, fa, b)
    return top


_DESCEND = {kind: _make_descend(kind) for kind in ("slabs", "sphere", "obb")}


def _descend(*args):
    """Walk the node pairs from a start pair (:func:`_make_descend`), the kind's
    variant."""
    bv = args[0]
    kind = (
        "slabs"
        if isinstance(bv, np.ndarray)
        else ("obb" if hasattr(bv, "rot") else "sphere")
    )
    return _DESCEND[kind](*args)


def descend_inlined(*args):
    """:func:`_descend` compiled into its caller (the Scene's mesh pairs): a call
    passing twenty-odd arrays costs a reference count and its release on each
    (benchmarks/README.md)."""
    return _descend(*args)


def _descend_typed(
    a_bv, a_first, a_count, a_tris, a_sbox, a_wide,
    b_bv, b_first, b_count, b_tris, b_sbox, b_wide,
    rot, trans, slack, stack, first_only, out, n, start_a, start_b,
):  # fmt: skip
    """Both stubs' implementation: the kind's walk, chosen by the type of a_bv."""
    return _DESCEND[_kind_of_type(a_bv)].py_func


overload(_descend)(_descend_typed)
overload(descend_inlined, inline="always")(_descend_typed)


@njit(cache=True, nogil=True)
def collide(
    a_bv0, a_bv1, a_bv2, a_first, a_count, a_tris, a_sbox, a_depth, a_mag, a_wide,
    b_bv0, b_bv1, b_bv2, b_first, b_count, b_tris, b_sbox, b_depth, b_mag, b_wide,
    matrix, first_only,
):  # fmt: skip
    """Colliding triangle pairs of two trees, as (2, n) slot pairs; n = -1: not rigid.

    Each tree comes as the parts of :func:`node_parts` and its node_first, node_count,
    triangles and triangle boxes in slot order, depth and :func:`node_magnitude`:
    plain arrays and scalars only, because numba types a tuple argument in Python at
    about a microsecond a call. ``a_tris``/``b_tris`` hold each tree's triangles in slot
    order, so a leaf's triangles are contiguous in memory.
    """
    return _one_pose(
        a_bv0, a_bv1, a_bv2, a_first, a_count, a_tris, a_sbox, a_depth, a_mag, a_wide,
        b_bv0, b_bv1, b_bv2, b_first, b_count, b_tris, b_sbox, b_depth, b_mag, b_wide,
        matrix, first_only,
    )  # fmt: skip


# inline="always": one call level less on a query of a few microseconds
@njit(inline="always")
def _one_pose(
    a_bv0, a_bv1, a_bv2, a_first, a_count, a_tris, a_sbox, a_depth, a_mag, a_wide,
    b_bv0, b_bv1, b_bv2, b_first, b_count, b_tris, b_sbox, b_depth, b_mag, b_wide,
    matrix, first_only,
):  # fmt: skip
    rot = np.empty((3, 3))
    trans = np.empty(3)
    out = np.empty((2, 16), np.intp)
    if not split_rigid(matrix, rot, trans):
        return out, -1
    if len(a_first) == 0 or len(b_first) == 0:
        return out, 0
    # borrowed (hitbox._kernels.borrowed): held by the caller, counted by no view
    a_bv0, a_bv1, a_bv2, a_first, a_count, a_tris, a_sbox = borrowed_tree(
        a_bv0, a_bv1, a_bv2, a_first, a_count, a_tris, a_sbox
    )
    b_bv0, b_bv1, b_bv2, b_first, b_count, b_tris, b_sbox = borrowed_tree(
        b_bv0, b_bv1, b_bv2, b_first, b_count, b_tris, b_sbox
    )
    a_wide, b_wide = borrowed(a_wide), borrowed(b_wide)
    a_bv = posed_bv(a_bv0, a_bv1, a_bv2, rot)
    b_bv = posed_bv(b_bv0, b_bv1, b_bv2, rot)
    slack = query_slack(trans, a_mag, b_mag)
    if not roots_meet(a_bv, b_bv, rot, trans, slack):
        return out, 0
    stack = np.empty((stack_rows(a_depth, b_depth), 2), np.intp)
    return _descend(
        a_bv, a_first, a_count, a_tris, a_sbox, a_wide,
        b_bv, b_first, b_count, b_tris, b_sbox, b_wide,
        rot, trans, slack, stack, first_only, out, 0, 0, 0,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def collide_any(
    a_bv0, a_bv1, a_bv2, a_first, a_count, a_tris, a_sbox, a_depth, a_mag, a_wide,
    b_bv0, b_bv1, b_bv2, b_first, b_count, b_tris, b_sbox, b_depth, b_mag, b_wide,
    matrix,
):  # fmt: skip
    """:func:`collide` stopping at the first pair: 1 when one crosses, 0 if none, -1 when
    ``matrix`` is not rigid. Returns no array: boxing one back to Python costs more than
    a far pose's whole query."""
    out, n = _one_pose(
        a_bv0, a_bv1, a_bv2, a_first, a_count, a_tris, a_sbox, a_depth, a_mag, a_wide,
        b_bv0, b_bv1, b_bv2, b_first, b_count, b_tris, b_sbox, b_depth, b_mag, b_wide,
        matrix, True,
    )  # fmt: skip
    return n


@njit(cache=True, nogil=True)
def contact_segments(a_tris, b_tris, slots_a, slots_b, rot, trans, out):
    """Crossing segment of each colliding pair (B moved into A's frame): out (n, 2, 3)."""
    pts = np.empty((CONTACT_SCRATCH, 3))
    for q in range(len(slots_a)):
        p0, p1, p2 = load(a_tris, slots_a[q])
        q0, q1, q2 = load_xf(b_tris, slots_b[q], rot, trans)
        hit, x, y = tri_tri_segment(p0, p1, p2, q0, q1, q2, pts)
        for d in range(3):
            out[q, 0, d] = x[d]
            out[q, 1, d] = y[d]
