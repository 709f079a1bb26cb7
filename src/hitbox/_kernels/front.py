"""Tree against tree from the last step's front (generalized front tracking, after
Ehmann and Lin, "Accurate and fast proximity queries between polyhedra using convex
surface decomposition", Eurographics 2001).

A walk of two OBB trees visits node pairs of their bounding volume test tree (BVTT):
the root pair, and under each overlapping inner pair the children of the larger node
(:func:`hitbox._kernels.collide.split_larger`). The pairs where a walk stops (disjoint
pairs, and leaf pairs, which go to the exact triangle test) form a *front*: a cut of the
BVTT, under which every leaf pair lies exactly once. A walk that starts from any such
cut instead of the root tests every leaf pair whose triangles can cross, once each, so
it finds the same triangle pairs; between steps that barely move, the front mostly
holds and the walk costs about its size, not the whole descent to it.

A front is stored packed, one int64 ``m << 32 | k`` per node pair. A walk that stops at
its first crossing (``first_only``) leaves the front as the crossing leaf pair, then
the pairs it had not yet popped (nearest first), the old front's pairs it had not yet
taken, then the pairs it recorded: still a cut, and the next step tests the old
crossing first.
"""

from numba import njit

from hitbox._kernels.collide import (
    _leaf_pair,
    overlap_xf,
    posed_bv,
    query_slack,
    skew_widening,
    split_larger,
    turns,
)

LOW = 0xFFFFFFFF


@njit(inline="always")
def _record(new, n_new, m, k):
    """Append node pair (m, k) to the new front; n_new -1 once it no longer fits."""
    if n_new < 0:
        return n_new
    if n_new == len(new):
        return -1
    new[n_new] = (m << 32) | k
    return n_new + 1


@njit(inline="always")
def _first_then_rest(new, n_new, m, k, stack, top, old, q):
    """The front after a first crossing at leaf pair (m, k): that pair, the unpopped
    stack from its top, the old front's pairs not yet taken (from q), then the pairs
    recorded; -1 if it does not fit."""
    rest = len(old) - q
    shift = 1 + top + rest
    if n_new < 0 or n_new + shift > len(new):
        return -1
    for p in range(n_new - 1, -1, -1):
        new[p + shift] = new[p]
    new[0] = (m << 32) | k
    for p in range(top):
        s = top - 1 - p
        new[1 + p] = (stack[s, 0] << 32) | stack[s, 1]
    new[1 + top : shift] = old[q:]
    return n_new + shift


@njit(cache=True, nogil=True)
def front_walk(
    a0, a1, a2, a_first, a_count, a_tris, a_sbox, a_mag,
    b0, b1, b2, b_first, b_count, b_tris, b_sbox, b_mag,
    rot, trans, first_only, stack, old, new, out,
):  # fmt: skip
    """Crossing slot pairs of two OBB trees (B moved into A's frame by rot, trans),
    walked from the front ``old`` (packed node pairs, taken in order, each walked to
    its end before the next; empty: the root pair).

    Returns (out, n, n_new): the crossing slot pairs in ``out[:, :n]`` (grown when
    short), and the new front in ``new[:n_new]``, or n_new = -1 when it did not fit
    (the next walk then starts from the root). ``stack``: (rows, 2) int64 scratch,
    the rows a walk from one pair needs (:func:`hitbox._kernels.collide.stack_rows`).
    """
    a_bv = posed_bv(a0, a1, a2, rot)
    b_bv = posed_bv(b0, b1, b2, rot)
    slack = query_slack(trans, a_mag, b_mag)
    turned = turns(rot)
    widen = skew_widening(rot)
    n_old = len(old)
    stack[0, 0] = 0
    stack[0, 1] = 0
    top = 1 if n_old == 0 else 0
    q = 0  # the old front's next pair
    n = 0
    n_new = 0
    while True:
        if top == 0:
            if q == n_old:
                break
            stack[0, 0] = old[q] >> 32
            stack[0, 1] = old[q] & LOW
            top = 1
            q += 1
        top -= 1
        m = stack[top, 0]
        k = stack[top, 1]
        if not overlap_xf(a_bv, m, b_bv, k, rot, trans, turned, widen, slack):
            n_new = _record(new, n_new, m, k)
            continue
        ca = a_count[m]
        cb = b_count[k]
        if ca > 0 and cb > 0:
            out, n, done = _leaf_pair(
                a_tris, a_sbox, a_first[m], ca, b_tris, b_first[k], cb,
                rot, trans, first_only, out, n,
            )  # fmt: skip
            if done:
                return out, n, _first_then_rest(new, n_new, m, k, stack, top, old, q)
            n_new = _record(new, n_new, m, k)
            continue
        top = split_larger(a_bv, a_first, m, ca, b_bv, b_first, k, cb, stack, top)
    return out, n, n_new
