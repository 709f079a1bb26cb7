"""Node tests of a tree-vs-tree walk (SPEC §8): nodes of tree B moved into tree A's
frame and tested against A's nodes, one test per node kind, and the per-query quantities
they share.

Tree B lives in its own model frame; ``rot``, ``trans`` map it into A's frame. Nodes of B
are moved on the fly, never refitted from vertices: exactly for spheres and OBBs; for
AABB and k-DOP nodes exactly under a translation (every slab shifts) and, under a
rotation, as boxes by the box-box separating-axis test (Arvo's box first). Every node
test is widened by a relative 1e-12 of the coordinates' magnitude (for turned box and
OBB nodes, one bound per query from both trees' largest node: :func:`query_slack`),
so rounding cannot separate volumes that touch.

Entry kernels take plain arrays only (:func:`node_parts`): numba types a tuple argument
in Python at about a microsecond a call, which is a tenth of a whole query.
"""

from collections import namedtuple

import numpy as np
from numba import njit
from numba.extending import overload

from hitbox._kernels.bv import _AXES, _kind_of_type, axis_row, kind_of
from hitbox._kernels.rigid import is_rotation, ortho_error

#: Relative widening of every moved-node test (rounding must never separate a touch).
REL_EPS = 1e-12
#: Above this, the square of a reach or distance could overflow.
_BIG = 2.0**500


# -- moved-node tests, one per kind --------------------------------------------------------


@njit(inline="always")
def _slabs_xf(a, i, b, j, rot, trans, turned, widen, slack):
    """Slab node a[i] against slab node b[j] moved by (rot, trans).

    Under a translation every slab of b just shifts: the test is the exact k-DOP test.
    Under a rotation both nodes are taken as their boxes (a k-DOP's x, y, z slabs):
    Arvo's box of b against a's slabs is exactly the first three axes of the box-box
    separating-axis test, so those come first; then, for survivors, the other twelve
    axes, which prune rotated AABB trees almost as well as OBB trees. The diagonal slabs
    are left out there: bounded through a moved box they prune too few pairs to pay for
    their cost (figures: benchmarks/README.md).
    """
    if turned:
        return _turned_boxes(a, i, b, j, turn_terms(rot), trans, widen, slack)
    if a[i, 0, 0] > a[i, 1, 0] or b[j, 0, 0] > b[j, 1, 0]:
        return False
    n_slabs = a.shape[2]
    # a translation moves every slab of b by its axis . trans: exact, all slabs
    for k in range(n_slabs):
        row = axis_row(n_slabs, k)
        shift = _AXES[row, 0] * trans[0] + _AXES[row, 1] * trans[1]
        shift += _AXES[row, 2] * trans[2]
        lo = b[j, 0, k] + shift
        hi = b[j, 1, k] + shift
        gap = REL_EPS * (abs(lo) + abs(hi) + abs(a[i, 0, k]) + abs(a[i, 1, k]))
        gap += 1e-300
        if lo > a[i, 1, k] + gap or hi < a[i, 0, k] - gap:
            return False
    return True


@njit(inline="always")
def turn_terms(rot):
    """rot's entries and ``|rot| + 1e-12`` as 18 scalars, for :func:`_turned_boxes`.

    A traversal takes them once per query: read from ``rot`` inside its loop, they were
    loaded and rebuilt at every node pair (the loop's stores to the stack keep the
    compiler from hoisting them), which cost turned AABB-tree queries 14-16 % of their
    time on the seed's tori. The 1e-12 keeps parallel edges (zero cross axes) from
    separating a touch.
    """
    e = 1e-12
    return (
        rot[0, 0], rot[0, 1], rot[0, 2],
        rot[1, 0], rot[1, 1], rot[1, 2],
        rot[2, 0], rot[2, 1], rot[2, 2],
        abs(rot[0, 0]) + e, abs(rot[0, 1]) + e, abs(rot[0, 2]) + e,
        abs(rot[1, 0]) + e, abs(rot[1, 1]) + e, abs(rot[1, 2]) + e,
        abs(rot[2, 0]) + e, abs(rot[2, 1]) + e, abs(rot[2, 2]) + e,
    )  # fmt: skip


@njit(inline="always")
def _turned_boxes(a, i, b, j, terms, trans, widen, slack):
    """The turned case of :func:`_slabs_xf`: the box-box separating-axis test, Arvo's
    three axes first, with rot given as :func:`turn_terms`."""
    if a[i, 0, 0] > a[i, 1, 0] or b[j, 0, 0] > b[j, 1, 0]:
        return False
    (
        r00, r01, r02, r10, r11, r12, r20, r21, r22,
        q00, q01, q02, q10, q11, q12, q20, q21, q22,
    ) = terms  # fmt: skip
    c0 = 0.5 * (b[j, 0, 0] + b[j, 1, 0])
    c1 = 0.5 * (b[j, 0, 1] + b[j, 1, 1])
    c2 = 0.5 * (b[j, 0, 2] + b[j, 1, 2])
    r0 = 0.5 * (b[j, 1, 0] - b[j, 0, 0])
    r1 = 0.5 * (b[j, 1, 1] - b[j, 0, 1])
    r2 = 0.5 * (b[j, 1, 2] - b[j, 0, 2])
    cx = trans[0] + r00 * c0 + r01 * c1 + r02 * c2
    cy = trans[1] + r10 * c0 + r11 * c1 + r12 * c2
    cz = trans[2] + r20 * c0 + r21 * c1 + r22 * c2
    rx = q00 * r0 + q01 * r1 + q02 * r2
    ry = q10 * r0 + q11 * r1 + q12 * r2
    rz = q20 * r0 + q21 * r1 + q22 * r2
    ha0 = 0.5 * (a[i, 1, 0] - a[i, 0, 0])
    ha1 = 0.5 * (a[i, 1, 1] - a[i, 0, 1])
    ha2 = 0.5 * (a[i, 1, 2] - a[i, 0, 2])
    m0 = 0.5 * (a[i, 0, 0] + a[i, 1, 0])
    m1 = 0.5 * (a[i, 0, 1] + a[i, 1, 1])
    m2 = 0.5 * (a[i, 0, 2] + a[i, 1, 2])
    t0, t1, t2 = cx - m0, cy - m1, cz - m2
    s = slack  # rounding bound of this query's every node pair (query_slack)
    if (abs(t0) > ha0 + rx + s) | (abs(t1) > ha1 + ry + s) | (abs(t2) > ha2 + rz + s):
        return False
    if not (abs(t0) + abs(t1) + abs(t2) < np.inf):
        return True  # an unbounded node: the slab tests above are all that is sound
    return _sat_rest(
        t0, t1, t2, r00, r01, r02, r10, r11, r12, r20, r21, r22,
        q00, q01, q02, q10, q11, q12, q20, q21, q22,
        ha0, ha1, ha2, r0, r1, r2, s + widen * (r0 + r1 + r2),
    )  # fmt: skip


@njit(inline="always")
def _sphere_xf(a, i, b, j, rot, trans, turned, widen, slack):
    ra, rb = a.radius[i], b.radius[j]
    if ra < 0.0 or rb < 0.0:
        return False
    x, y, z = b.center[j, 0], b.center[j, 1], b.center[j, 2]
    dx = trans[0] + rot[0, 0] * x + rot[0, 1] * y + rot[0, 2] * z - a.center[i, 0]
    dy = trans[1] + rot[1, 0] * x + rot[1, 1] * y + rot[1, 2] * z - a.center[i, 1]
    dz = trans[2] + rot[2, 0] * x + rot[2, 1] * y + rot[2, 2] * z - a.center[i, 2]
    reach = (ra + rb) * (1.0 + REL_EPS) + REL_EPS * (abs(dx) + abs(dy) + abs(dz))
    if widen != 0.0:  # (an infinite radius times 0 would be NaN)
        reach += rb * widen
    if reach > _BIG:  # squares would overflow: compare at the scale of the reach
        dx, dy, dz = dx / reach, dy / reach, dz / reach
        return dx * dx + dy * dy + dz * dz <= 1.0
    return dx * dx + dy * dy + dz * dz <= reach * reach


@njit(inline="always")
def _obb_terms(a, i, b, j, rot, trans, widen, slack):
    """OBB b[j] moved by (rot, trans) as seen from OBB a[i]: the centres' offset t and
    b's axes R (columns), both in a[i]'s frame, |R| widened (q = |R| + 1e-12) and the
    pair's slack s, as the scalars t0..t2, r00..r22, q00..q22, s."""
    B, A = b.rot, a.rot
    # m = rot @ B[j]: b's axes (columns) in a's model frame
    m00, m10, m20 = _times(rot, B[j, 0, 0], B[j, 1, 0], B[j, 2, 0])
    m01, m11, m21 = _times(rot, B[j, 0, 1], B[j, 1, 1], B[j, 2, 1])
    m02, m12, m22 = _times(rot, B[j, 0, 2], B[j, 1, 2], B[j, 2, 2])
    mc0, mc1, mc2 = _times(rot, b.center[j, 0], b.center[j, 1], b.center[j, 2])
    d0 = trans[0] + mc0 - a.center[i, 0]
    d1 = trans[1] + mc1 - a.center[i, 1]
    d2 = trans[2] + mc2 - a.center[i, 2]
    # a's axes are the columns of A[i]: t = A^T d, R = A^T m (column by column)
    t0, t1, t2 = _times_t(A, i, d0, d1, d2)
    r00, r10, r20 = _times_t(A, i, m00, m10, m20)
    r01, r11, r21 = _times_t(A, i, m01, m11, m21)
    r02, r12, r22 = _times_t(A, i, m02, m12, m22)
    s = slack + widen * (b.half[j, 0] + b.half[j, 1] + b.half[j, 2])
    e = 1e-12
    q00, q01, q02 = abs(r00) + e, abs(r01) + e, abs(r02) + e
    q10, q11, q12 = abs(r10) + e, abs(r11) + e, abs(r12) + e
    q20, q21, q22 = abs(r20) + e, abs(r21) + e, abs(r22) + e
    return (
        t0, t1, t2, r00, r01, r02, r10, r11, r12, r20, r21, r22,
        q00, q01, q02, q10, q11, q12, q20, q21, q22, s,
    )  # fmt: skip


@njit(inline="always")
def _obb_xf(a, i, b, j, rot, trans, turned, widen, slack):
    """Separating-axis test of OBB a[i] and OBB b[j] moved by (rot, trans), in a's frame.

    Gottschalk, Lin & Manocha 1996 (RAPID); Ericson, Real-Time Collision Detection p101.
    |R| is widened so that parallel edges (a zero cross-product axis) cannot separate.
    Scalars only: no allocation in the innermost test.
    """
    ha0, ha1, ha2 = a.half[i, 0], a.half[i, 1], a.half[i, 2]
    hb0, hb1, hb2 = b.half[j, 0], b.half[j, 1], b.half[j, 2]
    if min(ha0, ha1, ha2) < 0.0 or min(hb0, hb1, hb2) < 0.0:
        return False
    (
        t0, t1, t2, r00, r01, r02, r10, r11, r12, r20, r21, r22,
        q00, q01, q02, q10, q11, q12, q20, q21, q22, s,
    ) = _obb_terms(a, i, b, j, rot, trans, widen, slack)  # fmt: skip
    if abs(t0) > ha0 + hb0 * q00 + hb1 * q01 + hb2 * q02 + s:
        return False
    if abs(t1) > ha1 + hb0 * q10 + hb1 * q11 + hb2 * q12 + s:
        return False
    if abs(t2) > ha2 + hb0 * q20 + hb1 * q21 + hb2 * q22 + s:
        return False
    return _sat_rest(
        t0, t1, t2, r00, r01, r02, r10, r11, r12, r20, r21, r22,
        q00, q01, q02, q10, q11, q12, q20, q21, q22,
        ha0, ha1, ha2, hb0, hb1, hb2, s,
    )  # fmt: skip


#: :func:`obb_gap` of two boxes that may meet
MAY_MEET = -1.0


@njit(inline="always")
def obb_gap(a, i, b, j, rot, trans, widen, slack):
    """:func:`_obb_xf` of OBB nodes with a clearance: ``MAY_MEET`` where it says the
    boxes may meet; else how far apart they are at least along the face normal of
    either box that parts them most (0.0 when only an edge-edge axis parts them), so
    that while b's points move by less than that, the two stay apart. The same
    decisions as :func:`_obb_xf` (a difference of floats has the sign of theirs)."""
    ha0, ha1, ha2 = a.half[i, 0], a.half[i, 1], a.half[i, 2]
    hb0, hb1, hb2 = b.half[j, 0], b.half[j, 1], b.half[j, 2]
    if min(ha0, ha1, ha2) < 0.0 or min(hb0, hb1, hb2) < 0.0:
        return 0.0  # an empty node holds nothing to meet
    (
        t0, t1, t2, r00, r01, r02, r10, r11, r12, r20, r21, r22,
        q00, q01, q02, q10, q11, q12, q20, q21, q22, s,
    ) = _obb_terms(a, i, b, j, rot, trans, widen, slack)  # fmt: skip
    g0, g1, g2, g3, g4, g5 = face_gaps(
        (t0, t1, t2), (r00, r01, r02, r10, r11, r12, r20, r21, r22),
        (q00, q01, q02, q10, q11, q12, q20, q21, q22), (ha0, ha1, ha2), (hb0, hb1, hb2), s,
    )  # fmt: skip
    gap = max(g0, g1, g2, g3, g4, g5)
    if gap > 0.0 and gap < np.inf:
        return gap
    if gap > 0.0 or not _sat_rest(
        t0, t1, t2, r00, r01, r02, r10, r11, r12, r20, r21, r22,
        q00, q01, q02, q10, q11, q12, q20, q21, q22,
        ha0, ha1, ha2, hb0, hb1, hb2, s,
    ):  # fmt: skip
        return 0.0
    return MAY_MEET


@njit(inline="always")
def _times(m, x0, x1, x2):
    """``m @ x`` for a 3x3 m."""
    return (
        m[0, 0] * x0 + m[0, 1] * x1 + m[0, 2] * x2,
        m[1, 0] * x0 + m[1, 1] * x1 + m[1, 2] * x2,
        m[2, 0] * x0 + m[2, 1] * x1 + m[2, 2] * x2,
    )


@njit(inline="always")
def _times_t(m, i, x0, x1, x2):
    """``m[i].T @ x``: x against each column of m[i]."""
    return (
        m[i, 0, 0] * x0 + m[i, 1, 0] * x1 + m[i, 2, 0] * x2,
        m[i, 0, 1] * x0 + m[i, 1, 1] * x1 + m[i, 2, 1] * x2,
        m[i, 0, 2] * x0 + m[i, 1, 2] * x1 + m[i, 2, 2] * x2,
    )


@njit(inline="always")
def _sat_rest(
    t0, t1, t2, r00, r01, r02, r10, r11, r12, r20, r21, r22,
    q00, q01, q02, q10, q11, q12, q20, q21, q22,
    ha0, ha1, ha2, hb0, hb1, hb2, s,
):  # fmt: skip
    """The twelve axes after a's face normals, for box a (axis-aligned here) and box b
    with axes R, centre offset t, |R| widened (q = |R| + 1e-12) and slack s.

    Every quantity is in a's frame. The widening of |R| and the relative slack keep
    parallel edges (zero cross axes) and rounding from separating a touch.
    """
    # b's face normals, then the nine edge pairs: each group in one branch (which axis
    # separates is unpredictable, and mispredicted early exits cost more than the tests)
    _, _, _, g3, g4, g5 = face_gaps(
        (t0, t1, t2), (r00, r01, r02, r10, r11, r12, r20, r21, r22),
        (q00, q01, q02, q10, q11, q12, q20, q21, q22), (ha0, ha1, ha2), (hb0, hb1, hb2), s,
    )  # fmt: skip
    if (g3 > 0.0) | (g4 > 0.0) | (g5 > 0.0):
        return False
    return not edges_apart(
        t0, t1, t2, r00, r01, r02, r10, r11, r12, r20, r21, r22,
        q00, q01, q02, q10, q11, q12, q20, q21, q22, ha0, ha1, ha2, hb0, hb1, hb2, s,
    )  # fmt: skip


@njit(inline="always")
def face_gaps(t, r, q, ha, hb, s):
    """How far a's three face normals, then b's, part the boxes (positive: apart along
    that normal), from the terms of :func:`_sat_rest` as tuples: t (3), r and q (9, row
    by row), ha, hb (3) and the slack s. A difference of floats has the sign of their
    comparison, so these decide as the comparisons would."""
    t0, t1, t2 = t
    r00, r01, r02, r10, r11, r12, r20, r21, r22 = r
    q00, q01, q02, q10, q11, q12, q20, q21, q22 = q
    ha0, ha1, ha2 = ha
    hb0, hb1, hb2 = hb
    return (
        abs(t0) - (ha0 + hb0 * q00 + hb1 * q01 + hb2 * q02 + s),
        abs(t1) - (ha1 + hb0 * q10 + hb1 * q11 + hb2 * q12 + s),
        abs(t2) - (ha2 + hb0 * q20 + hb1 * q21 + hb2 * q22 + s),
        abs(t0 * r00 + t1 * r10 + t2 * r20) - (ha0 * q00 + ha1 * q10 + ha2 * q20 + hb0 + s),
        abs(t0 * r01 + t1 * r11 + t2 * r21) - (ha0 * q01 + ha1 * q11 + ha2 * q21 + hb1 + s),
        abs(t0 * r02 + t1 * r12 + t2 * r22) - (ha0 * q02 + ha1 * q12 + ha2 * q22 + hb2 + s),
    )  # fmt: skip


@njit(inline="always")
def edges_apart(
    t0, t1, t2, r00, r01, r02, r10, r11, r12, r20, r21, r22,
    q00, q01, q02, q10, q11, q12, q20, q21, q22, ha0, ha1, ha2, hb0, hb1, hb2, s,
):  # fmt: skip
    """Whether one of the nine edge-pair axes parts the boxes, without a branch (the
    lanes of :mod:`hitbox._kernels.obb_wide` run it side by side)."""
    return (
        (abs(t2 * r10 - t1 * r20) > ha1 * q20 + ha2 * q10 + hb1 * q02 + hb2 * q01 + s)
        | (abs(t2 * r11 - t1 * r21) > ha1 * q21 + ha2 * q11 + hb0 * q02 + hb2 * q00 + s)
        | (abs(t2 * r12 - t1 * r22) > ha1 * q22 + ha2 * q12 + hb0 * q01 + hb1 * q00 + s)
        | (abs(t0 * r20 - t2 * r00) > ha0 * q20 + ha2 * q00 + hb1 * q12 + hb2 * q11 + s)
        | (abs(t0 * r21 - t2 * r01) > ha0 * q21 + ha2 * q01 + hb0 * q12 + hb2 * q10 + s)
        | (abs(t0 * r22 - t2 * r02) > ha0 * q22 + ha2 * q02 + hb0 * q11 + hb1 * q10 + s)
        | (abs(t1 * r00 - t0 * r10) > ha0 * q10 + ha1 * q00 + hb1 * q22 + hb2 * q21 + s)
        | (abs(t1 * r01 - t0 * r11) > ha0 * q11 + ha1 * q01 + hb0 * q22 + hb2 * q20 + s)
        | (abs(t1 * r02 - t0 * r12) > ha0 * q12 + ha1 * q02 + hb0 * q21 + hb1 * q20 + s)
    )


@njit(inline="always")
def _slabs_size(a, i):
    return (
        (a[i, 1, 0] - a[i, 0, 0]) + (a[i, 1, 1] - a[i, 0, 1]) + (a[i, 1, 2] - a[i, 0, 2])
    )


@njit(inline="always")
def _sphere_size(a, i):
    return a.radius[i]


@njit(inline="always")
def _obb_size(a, i):
    return a.half[i, 0] + a.half[i, 1] + a.half[i, 2]


_XF = {"slabs": _slabs_xf, "sphere": _sphere_xf, "obb": _obb_xf}
_SIZE = {"slabs": _slabs_size, "sphere": _sphere_size, "obb": _obb_size}


def overlap_xf(a, i, b, j, rot, trans, turned, widen, slack):
    """Node a[i] against node b[j] moved by (rot, trans); both trees of one kind.
    ``turned``: rot is not the identity (slab nodes take a cheaper, exact path if not).
    ``widen``: relative growth of b's extents that covers rot's distance from
    orthonormal (see :func:`skew_widening`). ``slack``: the query's rounding bound for
    turned box and OBB nodes (see :func:`query_slack`)."""
    return _XF[kind_of(a)](a, i, b, j, rot, trans, turned, widen, slack)


# inline="always": called through the overload, the test was a real call taking two
# namedtuples of arrays, and the call cost half as much as the test itself
@overload(overlap_xf, inline="always")
def _overlap_xf_typed(a, i, b, j, rot, trans, turned, widen, slack):
    kind = _kind_of_type(a)
    if kind is None or kind != _kind_of_type(b):
        return None
    return _XF[kind].py_func


def size(a, i):
    """A node's size for the descent rule (which of two nodes to split)."""
    return _SIZE[kind_of(a)](a, i)


@overload(size, inline="always")
def _size_typed(a, i):
    kind = _kind_of_type(a)
    return None if kind is None else _SIZE[kind].py_func


def splits_both(a):
    """Whether two inner nodes split together (all four child pairs) rather than the
    larger alone (Coal's firstOverSecond): together for every kind but OBB trees,
    whose nodes fit tightly enough that splitting the larger alone wastes fewer tests
    (benchmarks/README.md)."""
    return kind_of(a) != "obb"


@overload(splits_both, inline="always")
def _splits_both_typed(a):
    kind = _kind_of_type(a)
    if kind is None:
        return None
    both = kind != "obb"
    return lambda a: both


# -- node tables as plain arrays -----------------------------------------------------------

# Kernels import only kernels: these mirror hitbox._types' Spheres and OBBs field for
# field, which is all the kind dispatch of bv.py looks at.
_SphereNodes = namedtuple("_SphereNodes", ["center", "radius"])
_OBBNodes = namedtuple("_OBBNodes", ["center", "half", "rot"])

_NO_PART = np.empty(0)
_NO_PART.flags.writeable = False


def node_parts(bv):
    """A node table as three arrays (slab set, its box part, unused), (centre, radius,
    unused) or (centre, half, rot): what the entry kernels take, see
    :func:`hitbox._kernels.collide.collide`.

    The box part of a k-DOP table is a contiguous copy of its x, y, z slabs: under a
    rotation its nodes are tested as their boxes (:func:`_slabs_xf`), and reading them
    from the full table would drag 26-DOP nodes of 208 bytes through the cache for 48
    used. An AABB table is its own box part.
    """
    if isinstance(bv, np.ndarray):
        if bv.shape[2] == 3:
            return bv, bv, _NO_PART
        box = np.ascontiguousarray(bv[:, :, :3])
        box.flags.writeable = False
        return bv, box, _NO_PART
    if kind_of(bv) == "sphere":
        return bv.center, bv.radius, _NO_PART
    return bv.center, bv.half, bv.rot


def as_bv(x, y, z):
    """The node table back from :func:`node_parts` (Python side)."""
    if x.ndim == 3:
        return x
    if y.ndim == 1:
        return _SphereNodes(x, y)
    return _OBBNodes(x, y, z)


def posed_bv(x, y, z, rot):
    """:func:`as_bv` for a query under ``rot``: a slab table's box part when rot turns
    (all a turned slab node's test reads), else the table."""
    if x.ndim == 3:
        return y if turns(rot) else x
    return as_bv(x, y, z)


@overload(as_bv)
def _as_bv_typed(x, y, z):
    if x.ndim == 3:
        return lambda x, y, z: x
    if y.ndim == 1:
        return lambda x, y, z: _SphereNodes(x, y)
    return lambda x, y, z: _OBBNodes(x, y, z)


@overload(posed_bv)
def _posed_bv_typed(x, y, z, rot):
    if x.ndim == 3:
        return lambda x, y, z, rot: y if turns(rot) else x
    return lambda x, y, z, rot: as_bv(x, y, z)


@njit(inline="always")
def turns(rot):
    """Whether rot is anything but the identity, exactly."""
    for r in range(3):
        for c in range(3):
            if rot[r, c] != (1.0 if r == c else 0.0):
                return True
    return False


# -- the transform, checked inside the kernel ----------------------------------------------


@njit(inline="always")
def split_rigid(matrix, rot, trans):
    """Copy a 4x4 into (rot, trans); False unless finite, affine and rigid to 1e-6.

    Checking here keeps a single query to one compiled call: the check costs a few
    nanoseconds in the kernel and several microseconds in numpy.
    """
    for r in range(4):
        for c in range(4):
            if not abs(matrix[r, c]) < np.inf:
                return False
    if matrix[3, 0] != 0.0 or matrix[3, 1] != 0.0 or matrix[3, 2] != 0.0:
        return False
    if matrix[3, 3] != 1.0:
        return False
    for r in range(3):
        trans[r] = matrix[r, 3]
        for c in range(3):
            rot[r, c] = matrix[r, c]
    return is_rotation(rot)


@njit(inline="always")
def skew_widening(rot):
    """How much b's moved extents must grow, relative, for a rot that is orthonormal
    only to a tolerance (callers accept 1e-6, as float32 matrices are).

    The separating-axis radii of a moved box assume orthonormal columns. With
    ``R^T R = I + E`` and every ``|E_pq| <= skew``, a radius computed that way falls
    short of the true one by at most 3 skew (b-face axes) or 6 skew (edge axes) times
    the sum of b's half extents, and a moved sphere's radius grows by at most 3/2 skew:
    8 skew covers all three. 0 for an exactly orthonormal rot.
    """
    return 8.0 * ortho_error(rot)


def node_magnitude(bv):
    """The largest ``|centre|_1 + sum(half extents)`` over a table's nodes: bounds the
    coordinates every turned box or OBB node test of this tree reads (see
    :func:`query_slack`). Taken over every node, not the root: a tree read from a file
    or passed in is checked for structure, not for nested volumes. Empty nodes are left
    out; a table with a non-finite node gets inf (every such test then says maybe).
    0.0 for sphere tables, whose test needs none.
    """
    if isinstance(bv, np.ndarray):
        # a box node: |centre_k| + half_k = max(|lo_k|, |hi_k|) on each of x, y, z
        lo, hi = bv[:, 0, :3], bv[:, 1, :3]
        full = ~np.any(lo > hi, axis=1)
        per_node = np.maximum(np.abs(lo), np.abs(hi)).sum(axis=1)[full]
    elif kind_of(bv) == "obb":
        full = ~np.any(bv.half < 0.0, axis=1)
        per_node = (np.abs(bv.center).sum(axis=1) + bv.half.sum(axis=1))[full]
    else:
        return 0.0
    if len(per_node) == 0:
        return 0.0
    top = float(per_node.max())
    return top if np.all(np.isfinite(per_node)) else np.inf


@njit(inline="always")
def query_slack(trans, a_mag, b_mag):
    """Rounding bound of every turned box and OBB node test of one query, from each
    tree's :func:`node_magnitude`.

    The bound each test once summed itself, ``1e-12 (|centres| + |half extents| + |t|
    + |trans|)`` with |t| counted twice for OBBs (t: the centres' offset in a's frame,
    ``|t|_1 <= |trans|_1 + 2 |b centre|_1 + |a centre|_1`` under a rotation near
    orthonormal), is at most ``1e-12 (3 |trans|_1 + 3 a_mag + 5 b_mag)`` for every
    node pair, so one figure per query serves them all (rather than nine magnitudes
    summed per node pair).
    """
    reach = abs(trans[0]) + abs(trans[1]) + abs(trans[2])
    return REL_EPS * (3.0 * reach + 3.0 * a_mag + 5.0 * b_mag) + 1e-300


@njit(inline="always")
def stack_rows(a_depth, b_depth):
    """Rows of the traversal stack: each step down pops one pair and pushes at most
    four, a path from the root pairs takes at most a_depth + b_depth steps, and a leaf
    walk (:func:`hitbox._kernels.collide._box_walk`) runs above that, at most one tree
    deep."""
    return 4 * (a_depth + b_depth) + 6
