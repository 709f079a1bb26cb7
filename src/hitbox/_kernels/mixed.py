"""Cross-kind overlap kernels (SPEC §7): sphere, AABB, k-DOP and OBB against each other.

Each pair of kinds has one predicate ``<kind>_<kind>(a, i, b, j[, axes])`` (closed:
touching counts as overlapping), here an elementwise kernel that broadcasts a single item
against many, and a ``filter_`` kernel that tests candidate pairs ``cand (2, n)`` from a
box sweep. The predicates live by family: sphere against boxes in ``sphere_box``, sphere
against k-DOP in ``sphere_kdop``, the box-like kinds against each other in ``box_sat``.
"""

from numba import njit

from hitbox._kernels.box_sat import aabb_kdop, aabb_obb, kdop_obb
from hitbox._kernels.sphere_box import sphere_aabb, sphere_obb
from hitbox._kernels.sphere_kdop import sphere_kdop

# -- elementwise kernels (one item of either side broadcasts) --------------------------


@njit(cache=True, nogil=True)
def overlap_sphere_aabb(s, boxes, out):
    si = 1 if len(s.radius) > 1 else 0
    sj = 1 if len(boxes) > 1 else 0
    for n in range(len(out)):
        out[n] = sphere_aabb(s, n * si, boxes, n * sj)


@njit(cache=True, nogil=True)
def overlap_sphere_kdop(s, kd, axes, out):
    si = 1 if len(s.radius) > 1 else 0
    sj = 1 if len(kd) > 1 else 0
    for n in range(len(out)):
        out[n] = sphere_kdop(s, n * si, kd, n * sj, axes)


@njit(cache=True, nogil=True)
def overlap_sphere_obb(s, o, out):
    si = 1 if len(s.radius) > 1 else 0
    sj = 1 if len(o.half) > 1 else 0
    for n in range(len(out)):
        out[n] = sphere_obb(s, n * si, o, n * sj)


@njit(cache=True, nogil=True)
def overlap_aabb_kdop(boxes, kd, axes, out):
    si = 1 if len(boxes) > 1 else 0
    sj = 1 if len(kd) > 1 else 0
    for n in range(len(out)):
        out[n] = aabb_kdop(boxes, n * si, kd, n * sj, axes)


@njit(cache=True, nogil=True)
def overlap_aabb_obb(boxes, o, out):
    si = 1 if len(boxes) > 1 else 0
    sj = 1 if len(o.half) > 1 else 0
    for n in range(len(out)):
        out[n] = aabb_obb(boxes, n * si, o, n * sj)


@njit(cache=True, nogil=True)
def overlap_kdop_obb(kd, axes, o, out):
    si = 1 if len(kd) > 1 else 0
    sj = 1 if len(o.half) > 1 else 0
    for n in range(len(out)):
        out[n] = kdop_obb(kd, n * si, o, n * sj, axes)


# -- candidate filters: keep[n] says whether pair cand[:, n] overlaps ------------------


@njit(cache=True, nogil=True)
def filter_sphere_aabb(s, boxes, cand, keep):
    for n in range(cand.shape[1]):
        keep[n] = sphere_aabb(s, cand[0, n], boxes, cand[1, n])


@njit(cache=True, nogil=True)
def filter_sphere_kdop(s, kd, axes, cand, keep):
    for n in range(cand.shape[1]):
        keep[n] = sphere_kdop(s, cand[0, n], kd, cand[1, n], axes)


@njit(cache=True, nogil=True)
def filter_sphere_obb(s, o, cand, keep):
    for n in range(cand.shape[1]):
        keep[n] = sphere_obb(s, cand[0, n], o, cand[1, n])


@njit(cache=True, nogil=True)
def filter_aabb_kdop(boxes, kd, axes, cand, keep):
    for n in range(cand.shape[1]):
        keep[n] = aabb_kdop(boxes, cand[0, n], kd, cand[1, n], axes)


@njit(cache=True, nogil=True)
def filter_aabb_obb(boxes, o, cand, keep):
    for n in range(cand.shape[1]):
        keep[n] = aabb_obb(boxes, cand[0, n], o, cand[1, n])


@njit(cache=True, nogil=True)
def filter_kdop_obb(kd, axes, o, cand, keep):
    for n in range(cand.shape[1]):
        keep[n] = kdop_obb(kd, cand[0, n], o, cand[1, n], axes)
