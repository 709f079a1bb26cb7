"""Convex shapes against one mesh's faces through its tree: each shape's box walks the
nodes' boxes down to the leaves, and each slot whose triangle box meets the shape's box
is decided by the convex pair test (:func:`hitbox._kernels.convex_pairs.query`, the
triangle a flat hull). In parallel over the shapes."""

import numpy as np
from numba import njit, prange

from hitbox._kernels.convex_pairs import query
from hitbox._kernels.primitives import INTERSECTS


@njit(inline="always")
def _meets(a, i, b, j):
    """Closed overlap of box a[i] and box b[j] (2, 3)."""
    for c in range(3):
        if a[i, 1, c] < b[j, 0, c] or b[j, 1, c] < a[i, 0, c]:
            return False
    return True


@njit(nogil=True)
def _scratch():
    """One walk's scratch for the pair test: its two one-pair index arrays, a row of
    output and a hit flag (made outside the parallel loops' bodies, which numba
    rewrites)."""
    out = (np.empty(1), np.empty((1, 3)), np.empty((1, 3)), np.empty((1, 3)))
    return np.zeros(1, np.intp), np.zeros(1, np.intp), out, np.zeros(1, np.bool_)


@njit(inline="always")
def _walk(node_box, node_first, node_count, slot_box, stack, boxes, q, tris, shapes,
          decide, first_only, row, at):  # fmt: skip
    """Slots under the tree whose box meets box q; with ``decide``, those whose triangle
    touches shape q, written to row[at:] (when row is long enough: the count pass
    passes an empty row). Returns the count; with ``first_only``, stops at one."""
    n = 0
    if len(node_first) == 0 or not _meets(node_box, 0, boxes, q):
        return 0
    ia, ib, out, hit = _scratch()
    ib[0] = q
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        m = node_first[stack[top]]
        count = node_count[stack[top]]
        if count == 0:
            for child in (m, m + 1):
                if _meets(node_box, child, boxes, q):
                    stack[top] = child
                    top += 1
            continue
        for s in range(m, m + count):
            if not _meets(slot_box, s, boxes, q):
                continue
            if decide:
                # the convex pairs' own compiled kernel, called for one pair: its code
                # is not compiled again here (a tenth of a microsecond a call); the mode
                # as np.intp, since a literal one compiles a second copy of query
                ia[0] = s
                query(np.intp(INTERSECTS), tris, ia, shapes, ib, out, hit)
                if not hit[0]:
                    continue
            if at + n < len(row):
                row[at + n] = s
            n += 1
            if first_only:
                return n
    return n


@njit(cache=True, nogil=True, parallel=True)
def touching_slots(node_box, node_first, node_count, slot_box, depth, tris, shapes,
                   boxes, first_only):  # fmt: skip
    """(shape, slot) of every touching pair, (2, n) intp, by shape then walk order (with
    ``first_only``, a shape's first touching slot only): the box candidates counted
    first, then decided into their places, then packed."""
    n_q = len(boxes)
    offsets = np.zeros(n_q + 1, np.intp)
    empty = np.empty(0, np.intp)
    for q in prange(n_q):
        stack = np.empty(depth + 2, np.intp)
        offsets[q + 1] = _walk(node_box, node_first, node_count, slot_box, stack, boxes,
                               q, tris, shapes, False, False, empty, 0)  # fmt: skip
    for q in range(n_q):
        offsets[q + 1] += offsets[q]
    slots = np.empty(offsets[n_q], np.intp)
    found = np.zeros(n_q, np.intp)
    for q in prange(n_q):
        stack = np.empty(depth + 2, np.intp)
        found[q] = _walk(node_box, node_first, node_count, slot_box, stack, boxes, q,
                         tris, shapes, True, first_only, slots, offsets[q])  # fmt: skip
    total = 0
    for q in range(n_q):
        total += found[q]
    out = np.empty((2, total), np.intp)
    k = 0
    for q in range(n_q):
        for s in range(offsets[q], offsets[q] + found[q]):
            out[0, k] = q
            out[1, k] = slots[s]
            k += 1
    return out
