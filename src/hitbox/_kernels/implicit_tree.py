"""Implicit-tree broad phase: boxes in Morton order under a complete tree, self-collided.

The tree is collided with itself node pair by node pair (Coal ``selfCollisionRecurse``),
so each pair of leaves meets once and no i < j filter runs. Node m has children 2m + 1
and 2m + 2; refitting bottom-up keeps it over moving boxes from step to step.
"""

import numpy as np
from numba import njit

from hitbox._kernels.pair_codes import bit_length, radix_sort, sorted_pairs
from hitbox._kernels.slabs import slab_overlap


# Lauterbach et al. 2009, "Fast BVH construction on GPUs": Morton order as the tree
@njit(cache=True, nogil=True)
def morton_codes(boxes, origin, scale, codes):
    """30-bit Morton codes of box centres on a fixed grid; empty and unbounded last."""
    d = boxes.shape[2]
    bits = 30 // d
    top = (1 << bits) - 1
    for i in range(len(boxes)):
        code = np.int64(0)
        bad = boxes[i, 0, 0] > boxes[i, 1, 0]
        for k in range(d):
            c = 0.5 * boxes[i, 0, k] + 0.5 * boxes[i, 1, k]
            if not abs(c) < np.inf:
                bad = True
                break
            q = (c - origin[k]) * scale[k]
            cell = 0 if not q > 0.0 else (top if q >= top else int(q))
            for bit in range(bits):
                if cell & (1 << bit):
                    code |= np.int64(1) << (bit * d + k)
        codes[i] = (np.int64(1) << 30) if bad else code


@njit(cache=True, nogil=True)
def morton_perm(codes, nb):
    """Slot → id: ids stably sorted by Morton code (radix on 31 code bits)."""
    n = len(codes)
    keyed = np.empty(n, np.int64)
    for i in range(n):
        keyed[i] = (codes[i] << nb) | i
    keyed = radix_sort(keyed, nb, 31)
    mask = (np.int64(1) << nb) - 1
    perm = np.empty(n, np.intp)
    for s in range(n):
        perm[s] = keyed[s] & mask
    return perm


# Box2D b2DynamicTree / Bullet btDbvt: refit bottom-up instead of rebuilding each step
@njit(cache=True, nogil=True)
def tree_refit(slot_boxes, leaf, nodes):
    """Refit the implicit tree over boxes in slot order, bottom-up.

    ``nodes`` (2P - 1, 2, D): node m has children 2m + 1, 2m + 2; leaf l = P - 1 + l holds
    slots [l * leaf, (l + 1) * leaf). Slots past the last box count as empty boxes.
    Returns the leaves' summed extents, the measure of tree quality for the rebuild rule
    (a leaf whose boxes drift apart grows).
    """
    n = len(slot_boxes)
    d = slot_boxes.shape[2]
    p = (len(nodes) + 1) // 2
    quality = 0.0
    for l in range(p):
        m = p - 1 + l
        for k in range(d):
            nodes[m, 0, k] = np.inf
            nodes[m, 1, k] = -np.inf
        for s in range(l * leaf, min((l + 1) * leaf, n)):
            for k in range(d):
                nodes[m, 0, k] = min(nodes[m, 0, k], slot_boxes[s, 0, k])
                nodes[m, 1, k] = max(nodes[m, 1, k], slot_boxes[s, 1, k])
        for k in range(d):
            ext = nodes[m, 1, k] - nodes[m, 0, k]
            if ext > 0.0 and ext < np.inf:
                quality += ext
    for m in range(p - 2, -1, -1):
        for k in range(d):
            nodes[m, 0, k] = min(nodes[2 * m + 1, 0, k], nodes[2 * m + 2, 0, k])
            nodes[m, 1, k] = max(nodes[2 * m + 1, 1, k], nodes[2 * m + 2, 1, k])
    return quality


@njit(inline="always")
def _emit(perm, s, t, out, n, cap, nb):
    if n < cap:
        i = perm[s]
        j = perm[t]
        out[n] = (np.int64(min(i, j)) << nb) | max(i, j)
    return n + 1


@njit
def _self_collide(nodes, slot_boxes, perm, leaf, stack, out, n, fill, nb):
    """Collide the implicit tree with itself: a stack of node pairs, (m, m) inside m.

    Inside a node: each child, and the two children against each other. Two nodes that
    overlap: in a complete tree they sit at the same depth, so both descend at once, and
    only child pairs that overlap are pushed (Coal ``selfCollisionRecurse`` with the
    overlap tests moved before the push). Two leaves: each box of one is tested against
    the other leaf's box before its boxes.
    """
    p = (len(nodes) + 1) // 2
    n_slots = len(perm)
    cap = len(out) if fill else 0
    top = 1
    stack[0, 0] = 0
    stack[0, 1] = 0
    while top > 0:
        top -= 1
        a = stack[top, 0]
        b = stack[top, 1]
        if a >= p - 1:  # leaves (both: same depth)
            fa = (a - (p - 1)) * leaf
            la = min(fa + leaf, n_slots)
            if a == b:
                for s in range(fa, la):
                    for t in range(s + 1, la):
                        if slab_overlap(slot_boxes, s, slot_boxes, t):
                            n = _emit(perm, s, t, out, n, cap, nb)
                continue
            fb = (b - (p - 1)) * leaf
            lb = min(fb + leaf, n_slots)
            for s in range(fa, la):
                if not slab_overlap(slot_boxes, s, nodes, b):
                    continue
                for t in range(fb, lb):
                    if slab_overlap(slot_boxes, s, slot_boxes, t):
                        n = _emit(perm, s, t, out, n, cap, nb)
            continue
        a0 = 2 * a + 1
        a1 = a0 + 1
        if a == b:
            if nodes[a, 0, 0] > nodes[a, 1, 0]:
                continue  # an empty subtree
            stack[top, 0] = a0
            stack[top, 1] = a0
            stack[top + 1, 0] = a1
            stack[top + 1, 1] = a1
            top += 2
            if slab_overlap(nodes, a0, nodes, a1):
                stack[top, 0] = a0
                stack[top, 1] = a1
                top += 1
            continue
        b0 = 2 * b + 1
        b1 = b0 + 1
        for x in (a0, a1):
            for y in (b0, b1):
                if slab_overlap(nodes, x, nodes, y):
                    stack[top, 0] = x
                    stack[top, 1] = y
                    top += 1
    return n


@njit(cache=True, nogil=True)
def tree_depth(n_nodes):
    """Levels of a complete tree of n_nodes nodes."""
    depth = 1
    while (1 << depth) - 1 < n_nodes:
        depth += 1
    return depth


@njit(cache=True, nogil=True)
def tree_self_pairs(nodes, slot_boxes, perm, leaf, nb, guess):
    """Codes of every overlapping pair in the tree, unordered.

    With ``guess`` >= 0: one pass into a buffer of that many pairs, rerun exactly if it
    was short. With ``guess`` < 0: count, then fill.
    """
    # per level down a path, a self pair leaves 2 entries behind, a node pair 3
    stack = np.empty((4 * tree_depth(len(nodes)) + 4, 2), np.intp)
    if guess >= 0:
        out = np.empty(guess + 1, np.int64)
        n = _self_collide(nodes, slot_boxes, perm, leaf, stack, out, 0, True, nb)
        if n <= guess:
            return out[:n]
    none = np.empty(0, np.int64)
    n = _self_collide(nodes, slot_boxes, perm, leaf, stack, none, 0, False, nb)
    out = np.empty(n + 1, np.int64)
    _self_collide(nodes, slot_boxes, perm, leaf, stack, out, 0, True, nb)
    return out[:n]


@njit(cache=True, nogil=True)
def tree_pairs(boxes, origin, scale, leaf):
    """Every overlapping pair by a Morton-ordered implicit tree collided with itself."""
    n = len(boxes)
    nb = bit_length(n)
    codes = np.empty(n, np.int64)
    morton_codes(boxes, origin, scale, codes)
    perm = morton_perm(codes, nb)
    n_leaves = max((n + leaf - 1) // leaf, 1)
    p = 1
    while p < n_leaves:
        p *= 2
    nodes = np.empty((2 * p - 1, 2, boxes.shape[2]))
    slot_boxes = np.empty((n, 2, boxes.shape[2]))
    for s in range(n):
        slot_boxes[s] = boxes[perm[s]]
    tree_refit(slot_boxes, leaf, nodes)
    # one traversal into room for 4 pairs per box; count, then fill, if that was short
    return sorted_pairs(
        tree_self_pairs(nodes, slot_boxes, perm, leaf, nb, 4 * n + 16), nb
    )
