"""OBB nodes four at a time: each inner node's *wide children* side by side, so that one
node of the other tree is tested against all of them in one pass of four lanes.

A binary OBB tree's walk tests a pair, splits the larger node and tests each child.
Here the split goes two levels at once: the wide children of an inner node are its
children's children (a leaf child stands for itself), at most four. Their boxes are
stored field by field with the four lanes adjacent (``wide[p, field, lane]``), and the
separating-axis test of one lane has no branch, so the compiler runs the four lanes as
one vector of four doubles (AVX2): about 16 ns a lane against about 40 ns for the
scalar test with its early exits (benchmarks/README.md). Skipping the children's own
test only culls less, never more: a walk over wide children reaches every leaf pair
the binary walk reaches (Wald et al. 2008, "Getting rid of packets", for the layout).

The lane test is the scalar one of :mod:`hitbox._kernels.node_tests` with its products
grouped differently (``X = A_m^T rot`` once per split), which moves its rounding by a
few ulps, far inside the query's slack (:func:`~hitbox._kernels.node_tests.query_slack`).
The same lanes give the distance walk its node-pair bounds
(:mod:`hitbox._kernels.distance_wide`), as codes rounded down (:func:`gap_code`).
"""

import numpy as np
from numba import njit

from hitbox._kernels.distance import pair_gap
from hitbox._kernels.node_tests import edges_apart, face_gaps

#: Fields of a lane: centre (3), half extents (3), axes row-major (9), node id.
FIELDS = 16
LANES = 4
_ID = 15


@njit(cache=True, nogil=True)
def wide_table(center, half, rot, first, count):
    """((n - 1) // 2, FIELDS, LANES) float64: row :func:`wide_row` (p) holds inner node
    p's wide children, lane by lane (unused lanes copy lane 0 with id -1). Node ids are
    stored as floats (exact below 2**53). Leaves have no row."""
    n = len(first)
    wide = np.zeros(((n - 1) // 2, FIELDS, LANES))
    lanes = np.empty(LANES, np.intp)
    for node in range(n):
        if count[node] > 0:
            continue
        p = wide_row(first, node)
        used = 0
        for child in (first[node], first[node] + 1):
            if count[child] > 0:
                lanes[used] = child
                used += 1
            else:
                lanes[used] = first[child]
                lanes[used + 1] = first[child] + 1
                used += 2
        for lane in range(LANES):
            x = lanes[lane] if lane < used else lanes[0]
            for d in range(3):
                wide[p, d, lane] = center[x, d]
                wide[p, 3 + d, lane] = half[x, d]
                for c in range(3):
                    wide[p, 6 + 3 * d + c, lane] = rot[x, d, c]
            wide[p, _ID, lane] = x if lane < used else -1.0
    return wide


@njit(inline="always")
def wide_row(first, node):
    """Inner node ``node``'s row of the wide table. Children come in pairs after the root
    (1, 2), (3, 4), ... (:mod:`hitbox.bvh`), so a pair's first child is odd and the
    pairs number the inner nodes: only they have rows, half the nodes."""
    return first[node] >> 1


@njit(inline="always")
def lane_node(wide, p, lane):
    """The node id in lane ``lane`` of row p (-1: unused)."""
    return int(wide[p, _ID, lane])


#: Bits of a lane's code in the word :func:`b_lanes` and :func:`a_lanes` return.
CODE_BITS = 16
_CODE_MASK = (1 << CODE_BITS) - 1
_CODE_TOP = float(_CODE_MASK - 1)


@njit(inline="always")
def lane_code(word, lane):
    """Lane ``lane``'s code in ``word``: 0 where the nodes may meet, else c >= 1: apart
    by at least (c - 1) / inv_unit (see :func:`clearance`)."""
    return (word >> (CODE_BITS * lane)) & _CODE_MASK


@njit(inline="always")
def clearance(code, inv_unit):
    """The clearance a code of an apart lane promises (0 when inv_unit is 0)."""
    return (code - 1) / inv_unit if inv_unit > 0.0 else 0.0


@njit(inline="always")
def _lane_code(
    t0, t1, t2, r00, r01, r02, r10, r11, r12, r20, r21, r22,
    ha0, ha1, ha2, hb0, hb1, hb2, s, inv_unit,
):  # fmt: skip
    """One lane's verdict, without a branch, as a code (:func:`lane_code`): the
    decisions of ``node_tests._obb_xf`` (all fifteen axes; an empty node, a negative
    half extent, meets nothing) and the clearance of ``node_tests.obb_gap`` (the
    largest face-normal gap) rounded down to a multiple of 1 / inv_unit, capped.

    A code and not a float: the compiler vectorizes the lanes into an integer word
    (an OR of shifted codes), not into four stores."""
    e = 1e-12
    q00, q01, q02 = abs(r00) + e, abs(r01) + e, abs(r02) + e
    q10, q11, q12 = abs(r10) + e, abs(r11) + e, abs(r12) + e
    q20, q21, q22 = abs(r20) + e, abs(r21) + e, abs(r22) + e
    g0, g1, g2, g3, g4, g5 = face_gaps(
        (t0, t1, t2), (r00, r01, r02, r10, r11, r12, r20, r21, r22),
        (q00, q01, q02, q10, q11, q12, q20, q21, q22), (ha0, ha1, ha2), (hb0, hb1, hb2), s,
    )  # fmt: skip
    g = _max6(g0, g1, g2, g3, g4, g5)
    empty = (min(ha0, ha1, ha2) < 0.0) | (min(hb0, hb1, hb2) < 0.0)
    apart = (
        (g > 0.0)
        | empty
        | edges_apart(
            t0, t1, t2, r00, r01, r02, r10, r11, r12, r20, r21, r22,
            q00, q01, q02, q10, q11, q12, q20, q21, q22, ha0, ha1, ha2, hb0, hb1, hb2, s,
        )
    )  # fmt: skip
    held = g if ((g > 0.0) & (g < np.inf) & ~empty) else 0.0
    steps = min(held * inv_unit, _CODE_TOP)  # truncation rounds the clearance down
    return np.int64(apart) * (1 + np.int64(steps))


@njit(inline="always")
def _max6(x0, x1, x2, x3, x4, x5):
    """The largest of six (selects, which vectorize; NaN where the scalar test has it
    counts as not apart there too)."""
    y0 = x0 if x0 > x1 else x1
    y1 = x2 if x2 > x3 else x3
    y2 = x4 if x4 > x5 else x5
    y0 = y0 if y0 > y1 else y1
    return y0 if y0 > y2 else y2


#: The largest distance code (:func:`gap_code`): a lane at least 1 / inv_unit times
#: it away.
GAP_CAP = _CODE_MASK - 1
_GAP_CAP_F = float(GAP_CAP)


@njit(inline="always")
def gap_code(gap, inv_unit):
    """A distance bound as a lane code: gap in units of 1 / inv_unit, rounded down,
    capped at GAP_CAP (NaN: 0, a bound that prunes nothing)."""
    x = gap * inv_unit
    x = x if x > 0.0 else 0.0
    x = x if x < _GAP_CAP_F else _GAP_CAP_F
    return np.int64(x)


@njit(inline="always")
def _verdict(
    gaps, t0, t1, t2, r00, r01, r02, r10, r11, r12, r20, r21, r22,
    ha0, ha1, ha2, hb0, hb1, hb2, s, inv_unit,
):  # fmt: skip
    """A lane's code: with ``gaps`` (a constant where the walks call it) the distance
    bound of :func:`hitbox._kernels.distance.pair_gap` (``s``: the pose's
    |translation|_1) as a :func:`gap_code`, else the overlap verdict of
    :func:`_lane_code` (``s``: the slack)."""
    if gaps:
        return gap_code(
            pair_gap(t0, t1, t2, r00, r01, r02, r10, r11, r12, r20, r21, r22,
                     ha0, ha1, ha2, hb0, hb1, hb2, s),
            inv_unit,
        )  # fmt: skip
    return _lane_code(t0, t1, t2, r00, r01, r02, r10, r11, r12, r20, r21, r22,
                      ha0, ha1, ha2, hb0, hb1, hb2, s, inv_unit)  # fmt: skip


@njit(inline="always")
def b_lanes(a, m, wide_b, k, rot, trans, widen, slack, inv_unit, gaps):
    """A's node m against the wide children in row k of B's table (:func:`wide_row`; B
    moved by rot, trans): a word of the lanes' codes (:func:`lane_code`; unused lanes
    too: skip them by id), clearances in units of 1 / inv_unit (0: none). With
    ``gaps``, each lane's distance bound instead (:func:`_verdict`; slack the pose's
    |translation|_1, widen 0)."""
    A = a.rot
    # X = A_m^T rot and y = A_m^T (trans - c_m): each lane then needs X B_l, X c_l + y
    x00, x01, x02 = _col_t_rot(A, m, 0, rot)
    x10, x11, x12 = _col_t_rot(A, m, 1, rot)
    x20, x21, x22 = _col_t_rot(A, m, 2, rot)
    e0 = trans[0] - a.center[m, 0]
    e1 = trans[1] - a.center[m, 1]
    e2 = trans[2] - a.center[m, 2]
    y0 = A[m, 0, 0] * e0 + A[m, 1, 0] * e1 + A[m, 2, 0] * e2
    y1 = A[m, 0, 1] * e0 + A[m, 1, 1] * e1 + A[m, 2, 1] * e2
    y2 = A[m, 0, 2] * e0 + A[m, 1, 2] * e1 + A[m, 2, 2] * e2
    ha0, ha1, ha2 = a.half[m, 0], a.half[m, 1], a.half[m, 2]
    w = wide_b
    word = 0
    for lane in range(LANES):
        c0, c1, c2 = w[k, 0, lane], w[k, 1, lane], w[k, 2, lane]
        hb0, hb1, hb2 = w[k, 3, lane], w[k, 4, lane], w[k, 5, lane]
        b00, b01, b02 = w[k, 6, lane], w[k, 7, lane], w[k, 8, lane]
        b10, b11, b12 = w[k, 9, lane], w[k, 10, lane], w[k, 11, lane]
        b20, b21, b22 = w[k, 12, lane], w[k, 13, lane], w[k, 14, lane]
        code = _verdict(
            gaps,
            x00 * c0 + x01 * c1 + x02 * c2 + y0,
            x10 * c0 + x11 * c1 + x12 * c2 + y1,
            x20 * c0 + x21 * c1 + x22 * c2 + y2,
            x00 * b00 + x01 * b10 + x02 * b20,
            x00 * b01 + x01 * b11 + x02 * b21,
            x00 * b02 + x01 * b12 + x02 * b22,
            x10 * b00 + x11 * b10 + x12 * b20,
            x10 * b01 + x11 * b11 + x12 * b21,
            x10 * b02 + x11 * b12 + x12 * b22,
            x20 * b00 + x21 * b10 + x22 * b20,
            x20 * b01 + x21 * b11 + x22 * b21,
            x20 * b02 + x21 * b12 + x22 * b22,
            ha0, ha1, ha2, hb0, hb1, hb2, slack + widen * (hb0 + hb1 + hb2), inv_unit,
        )  # fmt: skip
        word |= code << (CODE_BITS * lane)
    return word


@njit(inline="always")
def a_lanes(wide_a, m, b, k, rot, trans, widen, slack, inv_unit, gaps):
    """The wide children in row m of A's table against B's node k moved by (rot,
    trans): a word of the lanes' codes, as :func:`b_lanes`."""
    B = b.rot
    # b's axes (columns) and centre in A's model frame, once for the four lanes
    m00, m10, m20 = _rot_col(rot, B, k, 0)
    m01, m11, m21 = _rot_col(rot, B, k, 1)
    m02, m12, m22 = _rot_col(rot, B, k, 2)
    bc0, bc1, bc2 = b.center[k, 0], b.center[k, 1], b.center[k, 2]
    g0 = trans[0] + rot[0, 0] * bc0 + rot[0, 1] * bc1 + rot[0, 2] * bc2
    g1 = trans[1] + rot[1, 0] * bc0 + rot[1, 1] * bc1 + rot[1, 2] * bc2
    g2 = trans[2] + rot[2, 0] * bc0 + rot[2, 1] * bc1 + rot[2, 2] * bc2
    hb0, hb1, hb2 = b.half[k, 0], b.half[k, 1], b.half[k, 2]
    s = slack + widen * (hb0 + hb1 + hb2)
    w = wide_a
    word = 0
    for lane in range(LANES):
        d0 = g0 - w[m, 0, lane]
        d1 = g1 - w[m, 1, lane]
        d2 = g2 - w[m, 2, lane]
        a00, a01, a02 = w[m, 6, lane], w[m, 7, lane], w[m, 8, lane]
        a10, a11, a12 = w[m, 9, lane], w[m, 10, lane], w[m, 11, lane]
        a20, a21, a22 = w[m, 12, lane], w[m, 13, lane], w[m, 14, lane]
        code = _verdict(
            gaps,
            a00 * d0 + a10 * d1 + a20 * d2,
            a01 * d0 + a11 * d1 + a21 * d2,
            a02 * d0 + a12 * d1 + a22 * d2,
            a00 * m00 + a10 * m10 + a20 * m20,
            a00 * m01 + a10 * m11 + a20 * m21,
            a00 * m02 + a10 * m12 + a20 * m22,
            a01 * m00 + a11 * m10 + a21 * m20,
            a01 * m01 + a11 * m11 + a21 * m21,
            a01 * m02 + a11 * m12 + a21 * m22,
            a02 * m00 + a12 * m10 + a22 * m20,
            a02 * m01 + a12 * m11 + a22 * m21,
            a02 * m02 + a12 * m12 + a22 * m22,
            w[m, 3, lane], w[m, 4, lane], w[m, 5, lane], hb0, hb1, hb2, s, inv_unit,
        )  # fmt: skip
        word |= code << (CODE_BITS * lane)
    return word


@njit(inline="always")
def _col_t_rot(A, m, c, rot):
    """Row c of ``A[m]^T rot``."""
    return (
        A[m, 0, c] * rot[0, 0] + A[m, 1, c] * rot[1, 0] + A[m, 2, c] * rot[2, 0],
        A[m, 0, c] * rot[0, 1] + A[m, 1, c] * rot[1, 1] + A[m, 2, c] * rot[2, 1],
        A[m, 0, c] * rot[0, 2] + A[m, 1, c] * rot[1, 2] + A[m, 2, c] * rot[2, 2],
    )


@njit(inline="always")
def _rot_col(rot, B, k, c):
    """Column c of ``rot B[k]``."""
    return (
        rot[0, 0] * B[k, 0, c] + rot[0, 1] * B[k, 1, c] + rot[0, 2] * B[k, 2, c],
        rot[1, 0] * B[k, 0, c] + rot[1, 1] * B[k, 1, c] + rot[1, 2] * B[k, 2, c],
        rot[2, 0] * B[k, 0, c] + rot[2, 1] * B[k, 1, c] + rot[2, 2] * B[k, 2, c],
    )


_NO_WIDE = np.zeros((0, FIELDS, LANES))
_NO_WIDE.flags.writeable = False


def wide_part(parts, first, count):
    """The wide table of a tree given as :func:`~hitbox._kernels.node_tests.node_parts`
    (centre, half, rot for OBB trees), read-only; an empty one for other kinds, whose
    walks do not read it."""
    center, half, rot = parts
    if rot.ndim != 3 or len(first) == 0:
        return _NO_WIDE
    wide = wide_table(center, half, rot, first, count)
    wide.flags.writeable = False
    return wide
