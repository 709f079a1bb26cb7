"""Exact overlap of two closed triangles (Guigue & Devillers 2003, with exact signs).

Triangles are closed sets: touching counts, so mesh neighbours that share a vertex or an
edge overlap. Zero-area triangles are the segment or point they span. Every decision is
the sign of an orientation determinant (:mod:`hitbox._kernels.exact_predicates`) or a
comparison of coordinates, so the answer is exact for the float64 inputs and does not
depend on the order of the vertices or of the two triangles.
"""

from numba import njit, types

from hitbox._kernels.apart import apart
from hitbox._kernels.exact_predicates import orient2d, orient3d
from hitbox._kernels.orient_filter import (
    _filtered_orient3d,
    apart_by_box_or_plane,
    canonical_order,
)
from hitbox._kernels.triangle_points import _cross, _sub, load, load_xf

# -- projections -----------------------------------------------------------------------


@njit(inline="always")
def _o2(a, b, c, ax):
    """orient2d of three points projected along axis ``ax`` (dropping that coordinate)."""
    i = 1 if ax == 0 else 0
    j = 1 if ax == 2 else 2
    return orient2d(a[i], a[j], b[i], b[j], c[i], c[j])


@njit(cache=True)
def _proj_axis(p0, p1, p2):
    """An axis along which the triangle projects to a non-degenerate 2D triangle, or -1.

    Tries the axes by the size of the float normal's components, and confirms with the
    exact orient2d, which is that normal component exactly. -1 exactly when the three
    points are collinear (a zero-area triangle).
    """
    n = _cross(_sub(p1, p0), _sub(p2, p0))
    a0, a1, a2 = abs(n[0]), abs(n[1]), abs(n[2])
    first = 0 if (a0 >= a1 and a0 >= a2) else (1 if a1 >= a2 else 2)
    if _o2(p0, p1, p2, first) != 0:
        return first
    for ax in range(3):
        if ax != first and _o2(p0, p1, p2, ax) != 0:
            return ax
    return -1


@njit(cache=True)
def _span(p0, p1, p2):
    """Indices (lo, hi) of the two vertices spanning a collinear triple: its segment."""
    best, lo, hi = -1.0, 0, 0
    for k in range(3):
        i_lo, i_hi = 0, 0
        c = (p0[k], p1[k], p2[k])
        for i in range(1, 3):
            if c[i] < c[i_lo]:
                i_lo = i
            if c[i] > c[i_hi]:
                i_hi = i
        spread = c[i_hi] - c[i_lo]
        if spread > best:
            best, lo, hi = spread, i_lo, i_hi
    return lo, hi


# -- exact 2D tests in a projection (coplanar inputs) ----------------------------------


@njit(cache=True)
def _box_overlap_2d(a, b, c, d, ax):
    """Closed overlap of the projected boxes of segments ab and cd (collinear inputs)."""
    for k in range(3):
        if k == ax:
            continue
        if max(min(a[k], b[k]), min(c[k], d[k])) > min(max(a[k], b[k]), max(c[k], d[k])):
            return False
    return True


@njit(cache=True)
def _seg_seg_2d(a, b, c, d, ax):
    """Closed segments ab and cd meet (projected along ``ax``); either may be a point."""
    o1 = _o2(a, b, c, ax)
    o2 = _o2(a, b, d, ax)
    if o1 * o2 > 0:
        return False
    o3 = _o2(c, d, a, ax)
    o4 = _o2(c, d, b, ax)
    if o3 * o4 > 0:
        return False
    if o1 == 0 and o2 == 0:  # collinear, or ab is a point on line cd
        return _box_overlap_2d(a, b, c, d, ax)
    return True


@njit(inline="always")
def _in_tri_2d(x, t0, t1, t2, ax, s):
    """x in the closed triangle, projected; ``s``: the triangle's non-zero orientation."""
    return (
        _o2(t0, t1, x, ax) * s >= 0
        and _o2(t1, t2, x, ax) * s >= 0
        and _o2(t2, t0, x, ax) * s >= 0
    )


@njit(cache=True)
def _seg_tri_2d(a, b, t0, t1, t2, ax):
    """Closed segment ab meets the closed, non-degenerate triangle (projected)."""
    s = _o2(t0, t1, t2, ax)
    if _in_tri_2d(a, t0, t1, t2, ax, s) or _in_tri_2d(b, t0, t1, t2, ax, s):
        return True
    return (
        _seg_seg_2d(a, b, t0, t1, ax)
        or _seg_seg_2d(a, b, t1, t2, ax)
        or _seg_seg_2d(a, b, t2, t0, ax)
    )


@njit(cache=True)
def _tri_tri_2d(p0, p1, p2, q0, q1, q2, ax):
    """Coplanar closed triangles meet: a vertex inside the other, or two edges cross."""
    sp = _o2(p0, p1, p2, ax)
    sq = _o2(q0, q1, q2, ax)
    if _in_tri_2d(p0, q0, q1, q2, ax, sq) or _in_tri_2d(q0, p0, p1, p2, ax, sp):
        return True
    P = (p0, p1, p2)
    Q = (q0, q1, q2)
    for i in range(3):
        for j in range(3):
            if _seg_seg_2d(P[i], P[(i + 1) % 3], Q[j], Q[(j + 1) % 3], ax):
                return True
    return False


# -- exact 3D tests --------------------------------------------------------------------


@njit(cache=True)
def _seg_tri_3d(a, b, sa, sb, t0, t1, t2):
    """Closed segment ab meets the closed non-degenerate triangle t.

    ``sa``, ``sb`` are ``orient3d(t0, t1, t2, .)`` of a and b. If ab crosses the plane,
    the crossing point x is inside t iff the tetrahedra (a, b, t_k, t_k+1) all have one
    sign (zeros allowed): each is ``2 area(x, t_k, t_k+1) ((b - a) . n)``.
    """
    if sa * sb > 0:
        return False
    if sa == 0 and sb == 0:
        return _seg_tri_2d(a, b, t0, t1, t2, _proj_axis(t0, t1, t2))
    o0 = orient3d(a, b, t0, t1)
    o1 = orient3d(a, b, t1, t2)
    if o0 * o1 < 0:
        return False
    o2 = orient3d(a, b, t2, t0)
    return (o0 >= 0 and o1 >= 0 and o2 >= 0) or (o0 <= 0 and o1 <= 0 and o2 <= 0)


@njit(cache=True)
def _seg_seg_3d(a, b, c, d):
    """Closed segments (or points) ab and cd meet in 3D.

    They must be coplanar; then some axis projects their common plane one to one, and
    meeting in every axis projection is the same as meeting in 3D.
    """
    if orient3d(a, b, c, d) != 0:
        return False
    for ax in range(3):  # a loop, not literal axes: one compiled _seg_seg_2d
        if not _seg_seg_2d(a, b, c, d, ax):
            return False
    return True


@njit(inline="always")
def _exact_signs(s0, s1, s2, p0, p1, p2, q0, q1, q2):
    """The exact signs of q0, q1, q2 against plane p0 p1 p2: the filter's
    (:func:`~hitbox._kernels.orient_filter.side_signs`) where it decided, orient3d's
    where it did not."""
    return (
        s0 if s0 != 0 else orient3d(p0, p1, p2, q0),
        s1 if s1 != 0 else orient3d(p0, p1, p2, q1),
        s2 if s2 != 0 else orient3d(p0, p1, p2, q2),
    )


@njit(cache=True)
def tri_tri_overlap(p0, p1, p2, q0, q1, q2):
    """Closed triangles p and q (three 3-tuples each) share at least one point. Exact.

    Guigue & Devillers 2003, "Fast and Robust Triangle-Triangle Overlap Test Using
    Orientation Predicates", for triangles whose planes cross with no vertex on the
    other's plane. Every tie (a vertex on the other plane: touching, shared vertices and
    edges), coplanar pair and zero-area triangle goes through the edge characterisation
    instead: two closed triangles meet iff an edge of one meets the other.
    """
    # boxes apart, or a plane with every vertex of the other strictly on one side:
    # exact, cheap, and the common case; only the signs the filter left undecided go
    # to orient3d
    apart, a0, a1, a2, b0, b1, b2 = apart_by_box_or_plane(p0, p1, p2, q0, q1, q2)
    if apart:
        return False
    sq = _exact_signs(a0, a1, a2, p0, p1, p2, q0, q1, q2)
    if sq[0] == sq[1] and sq[1] == sq[2] and sq[0] != 0:
        return False
    sp = _exact_signs(b0, b1, b2, q0, q1, q2, p0, p1, p2)
    if sp[0] == sp[1] and sp[1] == sp[2] and sp[0] != 0:
        return False
    if sp[0] * sp[1] * sp[2] != 0 and sq[0] * sq[1] * sq[2] != 0:
        # Guigue-Devillers: compare the two intervals cut from the line of the planes
        a0, a1, a2, b0, b1, b2 = canonical_order(p0, p1, p2, q0, q1, q2, sp, sq)
        # the filter inline, orient3d's call only where it cannot decide
        # (benchmarks/README.md)
        s1 = _filtered_orient3d(a1, b0, a0, b1)
        if s1 == 0:
            s1 = orient3d(a1, b0, a0, b1)
        if s1 > 0:
            return False
        s2 = _filtered_orient3d(a0, b0, a2, b2)
        if s2 == 0:
            s2 = orient3d(a0, b0, a2, b2)
        return s2 <= 0
    # a vertex on the other's plane: touching, coplanar or zero-area triangles
    return _ties_apart(
        p0[0], p0[1], p0[2], p1[0], p1[1], p1[2], p2[0], p2[1], p2[2],
        q0[0], q0[1], q0[2], q1[0], q1[1], q1[2], q2[0], q2[1], q2[2],
        sp[0], sp[1], sp[2], sq[0], sq[1], sq[2],
    ) != 0  # fmt: skip


@njit(cache=True)
def _ties(p0, p1, p2, q0, q1, q2, sp, sq):
    """:func:`tri_tri_overlap` once the exact signs ``sp`` (of p's vertices against q's
    plane) and ``sq`` are known and some sign is 0: a vertex on the other's plane
    (touching, shared vertices and edges), coplanar pairs and zero-area triangles, by
    the edge characterisation: two closed triangles meet iff an edge of one meets the
    other."""
    P = (p0, p1, p2)
    Q = (q0, q1, q2)
    flat_q = sq[0] == 0 and sq[1] == 0 and sq[2] == 0
    flat_p = sp[0] == 0 and sp[1] == 0 and sp[2] == 0
    if flat_q:  # q lies in p's plane, or p has zero area
        ax_p = _proj_axis(p0, p1, p2)
        ax_q = _proj_axis(q0, q1, q2)
        if ax_p >= 0 and ax_q >= 0:
            return _tri_tri_2d(p0, p1, p2, q0, q1, q2, ax_p)
        if ax_p >= 0:
            j0, j1 = _span(q0, q1, q2)
            return _seg_tri_3d(Q[j0], Q[j1], sq[j0], sq[j1], p0, p1, p2)
        i0, i1 = _span(p0, p1, p2)
        if ax_q >= 0:
            return _seg_tri_3d(P[i0], P[i1], sp[i0], sp[i1], q0, q1, q2)
        j0, j1 = _span(q0, q1, q2)
        return _seg_seg_3d(P[i0], P[i1], Q[j0], Q[j1])
    if flat_p:  # then q has zero area (p is proper, else flat_q)
        j0, j1 = _span(q0, q1, q2)
        return _seg_tri_3d(Q[j0], Q[j1], sq[j0], sq[j1], p0, p1, p2)
    for k in range(3):
        k1 = (k + 1) % 3
        if _seg_tri_3d(P[k], P[k1], sp[k], sp[k1], q0, q1, q2):
            return True
        if _seg_tri_3d(Q[k], Q[k1], sq[k], sq[k1], p0, p1, p2):
            return True
    return False


@apart("tri_tri_ties", types.intp(*(types.float64,) * 18, *(types.intp,) * 6))
def _ties_apart(
    p0x, p0y, p0z, p1x, p1y, p1z, p2x, p2y, p2z,
    q0x, q0y, q0z, q1x, q1y, q1z, q2x, q2y, q2z,
    sp0, sp1, sp2, sq0, sq1, sq2,
):  # fmt: skip
    """:func:`_ties` compiled apart (:mod:`hitbox._kernels.apart`), on flat scalars: the
    rare cases stay out of the compile unit of every kernel that tests triangles."""
    return _ties(
        (p0x, p0y, p0z), (p1x, p1y, p1z), (p2x, p2y, p2z),
        (q0x, q0y, q0z), (q1x, q1y, q1z), (q2x, q2y, q2z),
        (sp0, sp1, sp2), (sq0, sq1, sq2),
    )  # fmt: skip


@njit(inline="always")
def tri_tri_overlap_idx(a, i, b, j):
    """``a[i]`` and ``b[j]`` of two ``(F, 3, 3)`` arrays overlap (closed, exact)."""
    p0, p1, p2 = load(a, i)
    q0, q1, q2 = load(b, j)
    return tri_tri_overlap(p0, p1, p2, q0, q1, q2)


@njit(inline="always")
def tri_tri_overlap_xf(a, i, b, j, rot, trans):
    """``a[i]`` and ``rot @ b[j] + trans`` overlap: b's triangle moved into a's frame.

    Exact for the moved coordinates as float64 computes them (in ``_affine.apply`` order).
    """
    p0, p1, p2 = load(a, i)
    q0, q1, q2 = load_xf(b, j, rot, trans)
    return tri_tri_overlap(p0, p1, p2, q0, q1, q2)
