"""One overlap test for every pair of bounding-volume kinds, chosen at compile time.

``overlap(a, i, b, j)`` says whether volume ``i`` of set ``a`` and volume ``j`` of set
``b`` overlap. A set is one of three layouts (STYLE §2):

- an array ``(N, 2, S)``: slab sets, lo at ``[:, 0]`` and hi at ``[:, 1]``. S = 3 is
  the AABB (the 6-DOP); S = 7, 9, 13 are the 14-, 18- and 26-DOPs along ``_AXES`` below
  (the rows of ``kdop.AXES``); S = 1 or 2 are 1D and 2D boxes.
- ``Spheres(center (N, D), radius (N,))``, any namedtuple with those two fields.
- ``OBBs(center (N, 3), half (N, 3), rot (N, 3, 3))``, columns of ``rot`` are the axes.

Inside jitted code ``numba.extending.overload`` resolves the call from the argument types
(madmann91's ``Bvh<Node>`` template in numba form), so one traversal kernel serves every
kind and stays in numba's disk cache. From Python (and under ``NUMBA_DISABLE_JIT=1``) the
plain function below dispatches on the values.

Every test is closed (touching overlaps) and false for an empty volume: a slab set with
lo > hi, a negative radius, a negative half extent. Tests between different kinds are
conservative: they never say "disjoint" for overlapping volumes (SPEC §7). Tests that
rotate (anything with an OBB) widen by a relative 1e-12 so that rounding cannot separate
volumes that touch.
"""

import numpy as np
from numba import njit, types
from numba.extending import overload

from hitbox._kernels.obb import obb_overlap
from hitbox._kernels.sphere_overlap import sphere_overlap

# The 13 k-DOP directions in kdop.AXES order: faces, corners, edges (Klosowski et al.
# 1998). 14-DOP = rows 0..6, 26-DOP = rows 0..12, 18-DOP = rows 0..2 then 7..12.
_AXES = np.array(
    [
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
        [1.0, 1.0, 1.0],
        [1.0, -1.0, 1.0],
        [1.0, 1.0, -1.0],
        [1.0, -1.0, -1.0],
        [1.0, 1.0, 0.0],
        [1.0, 0.0, 1.0],
        [0.0, 1.0, 1.0],
        [1.0, -1.0, 0.0],
        [1.0, 0.0, -1.0],
        [0.0, 1.0, -1.0],
    ]
)
_NORMS = np.sqrt((_AXES * _AXES).sum(axis=1))

#: Relative widening of every test that involves a rotation.
REL_EPS = 1e-12
#: Cross-product axes shorter than this (squared) are skipped: near-parallel edges.
_TINY_AXIS2 = 1e-20


@njit
def axis_row(n_slabs, k):
    """Row of ``_AXES`` that slab ``k`` of an ``n_slabs``-slab set uses."""
    if n_slabs == 9 and k >= 3:
        return k + 4
    return k


# -- slab sets ---------------------------------------------------------------------------


@njit
def _is_empty_slabs(a, i):
    for k in range(a.shape[2]):
        if a[i, 0, k] > a[i, 1, k]:
            return True
    return False


@njit(cache=True)
def slabs_slabs(a, i, b, j):
    """Slab sets: separated on some shared slab. Different K compare the x, y, z slabs
    only (every layout starts with them), which is conservative."""
    n = a.shape[2] if a.shape[2] == b.shape[2] else min(min(a.shape[2], b.shape[2]), 3)
    for k in range(n):
        if max(a[i, 0, k], b[j, 0, k]) > min(a[i, 1, k], b[j, 1, k]):
            return False
    if a.shape[2] != b.shape[2] and (_is_empty_slabs(a, i) or _is_empty_slabs(b, j)):
        return False
    return True


# -- spheres -----------------------------------------------------------------------------


@njit(cache=True)
def sphere_sphere(a, i, b, j):
    """Disjoint iff the centre distance exceeds r_a + r_b (SPEC §4): the sphere module's
    predicate, so trees and ``hitbox.sphere`` agree bit for bit."""
    return sphere_overlap(a, i, b, j)


@njit(cache=True)
def slabs_sphere(a, i, b, j):
    """Slab set vs sphere. From Real-Time Collision Detection §5.2.5: the squared distance
    from the centre to the box (clamp per axis) against r². Exact for AABBs; k-DOPs also
    test their other slabs against the sphere's projection, which stays conservative."""
    r = b.radius[j]
    if r < 0.0:
        return False
    n_slabs = a.shape[2]
    dim = b.center.shape[1]
    d2 = 0.0
    for k in range(min(n_slabs, dim)):
        c = b.center[j, k]
        q = min(max(c, a[i, 0, k]), a[i, 1, k])
        d2 += (c - q) * (c - q)
    if not d2 <= r * r:
        return False
    if _is_empty_slabs(a, i):
        return False
    for k in range(3, n_slabs):
        row = axis_row(n_slabs, k)
        p = (
            _AXES[row, 0] * b.center[j, 0]
            + _AXES[row, 1] * b.center[j, 1]
            + _AXES[row, 2] * b.center[j, 2]
        )
        rn = r * _NORMS[row]
        if p - rn > a[i, 1, k] or p + rn < a[i, 0, k]:
            return False
    return True


# -- oriented boxes ----------------------------------------------------------------------


@njit
def _is_empty_obb(a, i):
    return a.half[i, 0] < 0.0 or a.half[i, 1] < 0.0 or a.half[i, 2] < 0.0


@njit
def _apart(lo_a, hi_a, lo_b, hi_b):
    """Intervals separated by more than rounding: the widened closed test."""
    if lo_b - hi_a > REL_EPS * (abs(lo_b) + abs(hi_a)):
        return True
    return lo_a - hi_b > REL_EPS * (abs(lo_a) + abs(hi_b))


@njit(cache=True)
def obb_obb(a, i, b, j):
    """Separating-axis test on 15 axes (SPEC §5): the OBB module's predicate, so trees
    and ``hitbox.obb`` agree bit for bit."""
    return obb_overlap(a, i, b, j)


@njit
def _obb_interval(b, j, n0, n1, n2):
    """Projection of OBB j on the axis (n0, n1, n2): (lo, hi)."""
    c = b.center[j, 0] * n0 + b.center[j, 1] * n1 + b.center[j, 2] * n2
    r = 0.0
    for q in range(3):
        r += b.half[j, q] * abs(
            b.rot[j, 0, q] * n0 + b.rot[j, 1, q] * n1 + b.rot[j, 2, q] * n2
        )
    return c - r, c + r


@njit
def _box_interval(a, i, n0, n1, n2):
    """Projection of the x, y, z slabs of a[i] on an axis; zero components add nothing, so
    an infinite side only matters where the axis leans on it (Arvo's rule)."""
    lo = 0.0
    hi = 0.0
    if n0 != 0.0:
        lo += min(n0 * a[i, 0, 0], n0 * a[i, 1, 0])
        hi += max(n0 * a[i, 0, 0], n0 * a[i, 1, 0])
    if n1 != 0.0:
        lo += min(n1 * a[i, 0, 1], n1 * a[i, 1, 1])
        hi += max(n1 * a[i, 0, 1], n1 * a[i, 1, 1])
    if n2 != 0.0:
        lo += min(n2 * a[i, 0, 2], n2 * a[i, 1, 2])
        hi += max(n2 * a[i, 0, 2], n2 * a[i, 1, 2])
    return lo, hi


@njit(cache=True)
def slabs_obb(a, i, b, j):
    """Slab set vs OBB: the AABB part is treated as an OBB with the world axes and tested
    on all 15 SAT axes (SPEC §7, RTCD §4.4.1), in interval form so that infinite boxes
    work; a k-DOP's other slabs are then tested against the OBB's projection on their
    axes."""
    if _is_empty_obb(b, j) or _is_empty_slabs(a, i):
        return False
    n_slabs = a.shape[2]
    for k in range(3):  # world axes
        e0 = 1.0 if k == 0 else 0.0
        e1 = 1.0 if k == 1 else 0.0
        e2 = 1.0 if k == 2 else 0.0
        lo, hi = _obb_interval(b, j, e0, e1, e2)
        if _apart(a[i, 0, k], a[i, 1, k], lo, hi):
            return False
    for q in range(3):  # box axes of the OBB
        n0 = b.rot[j, 0, q]
        n1 = b.rot[j, 1, q]
        n2 = b.rot[j, 2, q]
        blo, bhi = _box_interval(a, i, n0, n1, n2)
        lo, hi = _obb_interval(b, j, n0, n1, n2)
        if _apart(blo, bhi, lo, hi):
            return False
    for k in range(3):  # e_k x axis_q
        for q in range(3):
            u0 = b.rot[j, 0, q]
            u1 = b.rot[j, 1, q]
            u2 = b.rot[j, 2, q]
            if k == 0:
                n0, n1, n2 = 0.0, -u2, u1
            elif k == 1:
                n0, n1, n2 = u2, 0.0, -u0
            else:
                n0, n1, n2 = -u1, u0, 0.0
            if n0 * n0 + n1 * n1 + n2 * n2 < _TINY_AXIS2:
                continue
            blo, bhi = _box_interval(a, i, n0, n1, n2)
            lo, hi = _obb_interval(b, j, n0, n1, n2)
            if _apart(blo, bhi, lo, hi):
                return False
    for k in range(3, n_slabs):  # the k-DOP's diagonal slabs
        row = axis_row(n_slabs, k)
        lo, hi = _obb_interval(b, j, _AXES[row, 0], _AXES[row, 1], _AXES[row, 2])
        if _apart(a[i, 0, k], a[i, 1, k], lo, hi):
            return False
    return True


@njit(cache=True)
def sphere_obb(a, i, b, j):
    """Sphere vs OBB, From Real-Time Collision Detection §5.2.5: the centre in the box
    frame, clamped to the extents, within r."""
    r = a.radius[i]
    if r < 0.0 or _is_empty_obb(b, j):
        return False
    d2 = 0.0
    mag = 0.0
    for q in range(3):
        u = 0.0
        for k in range(3):
            u += (a.center[i, k] - b.center[j, k]) * b.rot[j, k, q]
        h = b.half[j, q]
        d = abs(u) - h
        mag += abs(u) + h
        if d > 0.0:
            d2 += d * d
    rr = r + REL_EPS * (mag + r)
    return d2 <= rr * rr


# -- swapped arguments -------------------------------------------------------------------


@njit(cache=True)
def sphere_slabs(a, i, b, j):
    return slabs_sphere(b, j, a, i)


@njit(cache=True)
def obb_slabs(a, i, b, j):
    return slabs_obb(b, j, a, i)


@njit(cache=True)
def obb_sphere(a, i, b, j):
    return sphere_obb(b, j, a, i)


_PAIRS = {
    ("slabs", "slabs"): slabs_slabs,
    ("slabs", "sphere"): slabs_sphere,
    ("slabs", "obb"): slabs_obb,
    ("sphere", "slabs"): sphere_slabs,
    ("sphere", "sphere"): sphere_sphere,
    ("sphere", "obb"): sphere_obb,
    ("obb", "slabs"): obb_slabs,
    ("obb", "sphere"): obb_sphere,
    ("obb", "obb"): obb_obb,
}

_SPHERE_FIELDS = ("center", "radius")
_OBB_FIELDS = ("center", "half", "rot")


def kind_of(value):
    """'slabs', 'sphere' or 'obb' for a volume set given as a value (Python side)."""
    if isinstance(value, np.ndarray):
        return "slabs"
    fields = getattr(type(value), "_fields", None)
    if fields == _SPHERE_FIELDS:
        return "sphere"
    if fields == _OBB_FIELDS:
        return "obb"
    raise TypeError(f"not a bounding-volume set: {type(value).__name__}")


def _kind_of_type(ty):
    if isinstance(ty, types.Array) and ty.ndim == 3:
        return "slabs"
    if isinstance(ty, types.BaseNamedTuple):
        fields = tuple(ty.fields)
        if fields == _SPHERE_FIELDS:
            return "sphere"
        if fields == _OBB_FIELDS:
            return "obb"
    return None


def overlap(a, i, b, j):
    """Closed overlap of volume ``i`` of ``a`` and volume ``j`` of ``b``, any two kinds.

    Jitted callers get the kind pair's kernel inlined at compile time; this Python body
    (used from Python and with ``NUMBA_DISABLE_JIT=1``) dispatches on the values.
    """
    return _PAIRS[kind_of(a), kind_of(b)](a, i, b, j)


@overload(overlap)
def _overlap_typed(a, i, b, j):
    impl = _PAIRS.get((_kind_of_type(a), _kind_of_type(b)))
    if impl is None:
        return None
    return impl.py_func


def count(a):
    """Number of volumes in a set of any kind (``len`` of a namedtuple counts its
    fields)."""
    return len(a) if isinstance(a, np.ndarray) else len(a.center)


@overload(count)
def _count_typed(a):
    kind = _kind_of_type(a)
    if kind == "slabs":
        return lambda a: len(a)
    if kind is not None:
        return lambda a: len(a.center)
    return None
