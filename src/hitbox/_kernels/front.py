"""Tree against tree from the last step's front (generalized front tracking, after
Ehmann and Lin, "Accurate and fast proximity queries between polyhedra using convex
surface decomposition", Eurographics 2001), each disjoint pair of it with a clearance
that lets it skip its test while the motion since stays below it.

A walk of two OBB trees visits node pairs of their bounding volume test tree (BVTT):
the root pair, and under each overlapping inner pair the children of the larger node
(the split of :func:`hitbox._kernels.collide._make_descend`). The pairs where a walk stops (disjoint
pairs, and leaf pairs, which go to the exact triangle test) form a *front*: a cut of the
BVTT, under which every leaf pair lies exactly once. A walk that starts from any such
cut instead of the root tests every leaf pair whose triangles can cross, once each, so
it finds the same triangle pairs.

Each disjoint pair of a front carries a clearance: how far apart its boxes were along
the face normal that parted them most (:func:`hitbox._kernels.node_tests.obb_gap`),
less the motion since. Between two walks no point of B moves, in A's frame, by more than
``|t1 - t0| + ||R1 - R0|| * reach`` (the relative poses of the two walks, ``reach`` the
largest distance of B's vertices from its origin, the norm the spectral one; Lin and
Canny's conservative advancement bound, per node pair): a pair whose clearance stays
above that is still apart, and is carried over untested. The others are tested again
and walked on where they meet. This holds for rigid motion only: a mesh whose vertices
change must drop its fronts (``Scene.set_vertices`` does).

A front is stored as ``HEAD`` int64 slots of header (the relative pose it was walked at,
as float64 bits; the walk's node tests; its last walk from the root's node tests and
size; whether it found crossing pairs; the walks since the root), then two slots per
node pair: ``m << 32 | k`` and the clearance's float64 bits (0 for a leaf pair, tested
every time).
"""

import math

import numpy as np
from numba import njit

from hitbox._kernels.collide import (
    _leaf_pair,
    posed_bv,
    query_slack,
    skew_widening,
    split_pairs,
)
from hitbox._kernels.node_tests import obb_gap

LOW = 0xFFFFFFFF
#: Header slots: the pose (rot row-major, then trans), the walk's node tests, the node
#: tests and node pairs of the last walk from the root, whether it found a crossing,
#: the walks since that root walk.
H_ROT, H_TRANS, H_TESTS, H_ROOT_TESTS, H_ROOT_SIZE, H_CONTACT = 0, 9, 12, 13, 14, 15
H_AGE, HEAD = 16, 17
#: A front that grew past FRONT_GROWTH times its last root walk's pairs plus
#: FRONT_SLACK, or whose walk tested more node pairs than that root walk, is dropped:
#: the next walk starts from the root (fronts are not pulled back up: the parents of
#: still-disjoint sibling pairs overlap again a step or two later, benchmarks/README.md).
FRONT_GROWTH, FRONT_SLACK = 2, 32
#: A front of a pair apart is walked FRONT_AGE times, then the pair walks from the root
#: again: its front only deepens, while as the meshes part a walk from the root stops
#: higher up (seed 003's tori threading: every 4 / 8 / 16 / never, 6.0 / 5.0 / 5.3 /
#: 6.9 us a step in the kernel, the root walk 9.3; benchmarks/README.md).
FRONT_AGE = 8
_SQRT_HALF = math.sqrt(0.5)


@njit(inline="always")
def front_size(front):
    """Node pairs of a stored front (0 for none)."""
    return max(0, (len(front) - HEAD) // 2)


@njit(inline="always")
def _record(new, fnew, n_new, key, clearance):
    """Append node pair ``key`` with its clearance; n_new -1 once it no longer fits."""
    if n_new < 0:
        return n_new
    if n_new + 2 > len(new):
        return -1
    new[n_new] = key
    fnew[n_new + 1] = clearance
    return n_new + 2


@njit(inline="always")
def _motion(fold, rot, trans, reach):
    """Bound on how far any point of B moved in A's frame since the pose in the header
    ``fold`` (float64 view): the translation's change (its length taken at the scale of
    its largest component, so that squares neither vanish nor overflow), rounding
    allowed for, plus the rotation's change (its spectral norm, the Frobenius norm over
    sqrt 2 for rotations, allowed 1e-9 of drift from orthonormal, which also covers
    entries too small to square) times B's reach."""
    d0 = trans[0] - fold[H_TRANS]
    d1 = trans[1] - fold[H_TRANS + 1]
    d2 = trans[2] - fold[H_TRANS + 2]
    big = max(abs(d0), abs(d1), abs(d2))
    shift = 0.0
    if big > 0.0:
        d0, d1, d2 = d0 / big, d1 / big, d2 / big
        shift = big * math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
    mag = 0.0
    for r in range(3):
        mag += abs(trans[r]) + abs(fold[H_TRANS + r])
    dr2 = 0.0
    for r in range(3):
        for c in range(3):
            d = rot[r, c] - fold[H_ROT + 3 * r + c]
            dr2 += d * d
    turn = math.sqrt(dr2) * _SQRT_HALF + 1e-9
    return (shift + 4e-16 * mag + turn * reach) * (1.0 + 1e-9)


@njit(inline="always")
def _push_toward(stack, top, other, first, child, a_split):
    """Push the pairs of ``other`` with children first and first + 1 of the split node,
    ``child`` (one of them) last: popped first. ``a_split``: A's node was split (the
    pairs are (child, other)), else B's ((other, child))."""
    sibling = first + 1 if child == first else first
    for r, c in ((top, sibling), (top + 1, child)):
        if a_split:
            stack[r, 0] = c
            stack[r, 1] = other
        else:
            stack[r, 0] = other
            stack[r, 1] = c
    return top + 2


@njit(inline="always")
def _header(new, fnew, rot, trans, tests, root_tests, root_size, contact, age):
    for r in range(3):
        fnew[H_TRANS + r] = trans[r]
        for c in range(3):
            fnew[H_ROT + 3 * r + c] = rot[r, c]
    new[H_TESTS] = tests
    new[H_ROOT_TESTS] = root_tests
    new[H_ROOT_SIZE] = root_size
    new[H_CONTACT] = contact
    new[H_AGE] = age


@njit(cache=True, nogil=True)
def front_walk(
    a0, a1, a2, a_first, a_count, a_tris, a_sbox, a_mag,
    b0, b1, b2, b_first, b_count, b_tris, b_sbox, b_mag, b_reach,
    rot, trans, first_only, stack, old, new, out, toward_a, toward_b,
):  # fmt: skip
    """Crossing slot pairs of two OBB trees (B moved into A's frame by rot, trans),
    walked from the front ``old`` (its pairs taken in order, each walked to its end
    before the next; empty: the root pair). ``b_reach``: the largest distance of B's
    vertices from its model origin (inf: no clearance holds).

    ``toward_a``, ``toward_b``: node paths from each root down to a leaf (empty for
    none), for a walk from the root with ``first_only``: each split of a pair of the
    two paths walks the child on its path first, so the walk reaches that leaf pair
    first and then the subtrees around it, nearest first (the last step's crossing
    lies there, :mod:`hitbox._kernels.witness`). The order changes nothing but which
    crossing pair is found first.

    Returns (out, n, n_new): the crossing slot pairs in ``out[:, :n]`` (grown when
    short), and the new front in ``new[:n_new]``: n_new 0 when none is kept (a
    crossing found with ``first_only``, which stops there, or a front that no longer
    pays, see FRONT_GROWTH), -1 when it did not fit (either way the next walk starts
    from the root). ``stack``: (rows, 2) int64 scratch, the rows a walk from one pair
    needs (:func:`hitbox._kernels.collide.stack_rows`).
    """
    a_bv = posed_bv(a0, a1, a2, rot)
    b_bv = posed_bv(b0, b1, b2, rot)
    slack = query_slack(trans, a_mag, b_mag)
    widen = skew_widening(rot)
    n_old = front_size(old)
    if n_old > 0 and old[H_CONTACT] == 0 and old[H_AGE] >= FRONT_AGE:
        n_old = 0
    fold = old.view(np.float64)
    fnew = new.view(np.float64)
    moved = _motion(fold, rot, trans, b_reach) if n_old > 0 else np.inf
    stack[0, 0] = 0
    stack[0, 1] = 0
    top = 1 if n_old == 0 else 0
    q = 0  # the old front's next pair
    n = 0
    n_new = HEAD if len(new) >= HEAD else -1
    tests = 0
    # the pair of the two paths walked next: (toward_a[pa], toward_b[pb]); none once
    # the paths' pair is apart or at a leaf (the walk never meets a pair twice)
    pa = pb = 0
    directed = n_old == 0 and first_only and len(toward_a) > 0 and len(toward_b) > 0
    # the loop reads and writes its arrays itself, calling no helper that takes one on
    # its common paths: numba counts a reference to each array an inlined helper is
    # passed (eight a node pair when the records and the split were helpers)
    a_half = a_bv.half
    b_half = b_bv.half
    while True:
        if top == 0:
            if q == n_old:
                break
            key = old[HEAD + 2 * q]
            left = fold[HEAD + 2 * q + 1] - moved
            q += 1
            if left > 0.0:  # still apart: carried over untested (_record, written out)
                if n_new >= 0:
                    if n_new + 2 > len(new):
                        n_new = -1
                    else:
                        new[n_new] = key
                        fnew[n_new + 1] = left
                        n_new += 2
                continue
            stack[0, 0] = key >> 32
            stack[0, 1] = key & LOW
            top = 1
        top -= 1
        m = stack[top, 0]
        k = stack[top, 1]
        tests += 1
        gap = obb_gap(a_bv, m, b_bv, k, rot, trans, widen, slack)
        if gap >= 0.0:  # apart: kept with its clearance (_record, written out)
            if n_new >= 0:
                if n_new + 2 > len(new):
                    n_new = -1
                else:
                    new[n_new] = (m << 32) | k
                    fnew[n_new + 1] = gap
                    n_new += 2
            continue
        ca = a_count[m]
        cb = b_count[k]
        if ca > 0 and cb > 0:
            out, n, done = _leaf_pair(
                a_tris, a_sbox, a_first[m], ca, b_tris, b_first[k], cb,
                rot, trans, first_only, out, n,
            )  # fmt: skip
            if done:
                return out, n, 0
            n_new = _record(new, fnew, n_new, (m << 32) | k, 0.0)
            continue
        # the larger node's children, each with the other (the inner one's if one is a
        # leaf)
        split_b = cb == 0 and (
            ca > 0
            or (b_half[k, 0] + b_half[k, 1] + b_half[k, 2])
            > (a_half[m, 0] + a_half[m, 1] + a_half[m, 2])
        )
        if directed and m == toward_a[pa] and k == toward_b[pb]:
            if split_b:
                pb += 1
                top = _push_toward(stack, top, m, b_first[k], toward_b[pb], False)
            else:
                pa += 1
                top = _push_toward(stack, top, k, a_first[m], toward_a[pa], True)
            continue
        x0, y0, x1, y1 = split_pairs(split_b, m, k, a_first[m], b_first[k])
        stack[top, 0], stack[top, 1] = x0, y0
        stack[top + 1, 0], stack[top + 1, 1] = x1, y1
        top += 2
    if n_new < 0:
        return out, n, n_new
    size = (n_new - HEAD) // 2
    if n_old == 0:
        root_tests, root_size, age = tests, size, 0
    else:
        root_tests, root_size, age = old[H_ROOT_TESTS], old[H_ROOT_SIZE], old[H_AGE] + 1
        if tests > root_tests or size > FRONT_GROWTH * root_size + FRONT_SLACK:
            return out, n, 0
    contact = 1 if n > 0 else 0
    _header(new, fnew, rot, trans, tests, root_tests, root_size, contact, age)
    return out, n, n_new
