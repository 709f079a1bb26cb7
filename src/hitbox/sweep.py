"""Sweeps: when does a moving volume first touch another? (SPEC §2, seed 000)

The first argument moves by ``displacement`` over t in ``[0, 1]``, so its position at time
t is ``start + t * displacement``; the second stands still, or moves by
``displacement_b``, in which case the sweep uses the relative displacement
``displacement - displacement_b``. Calls are elementwise and broadcast: any argument may
hold one item for all.

Every sweep returns :class:`SweepHits` ``(hit, t, normal)``: the first contact time
(``inf`` and ``hit = False`` when they do not touch for t in [0, 1]; seed 000's 1e30 is
not a time) and the contact normal, the unit outward normal of the second volume at the
contact point, which faces the mover and opposes its relative motion. Volumes are closed,
so touching counts; volumes that already overlap (or touch) at t = 0 give t = 0 and a zero
normal. A path that grazes the other volume exactly in the given floats touches it even
where the roundings of the differences formed would lose the contact: paths apart by less
than about 1e-15 of the coordinates' size may be reported as touching. Empty volumes
touch nothing.
"""

from typing import NamedTuple

import numpy as np

from hitbox import _scale_groups as _sg
from hitbox import _validate as v
from hitbox._kernels import sweep as _ks

__all__ = ["SweepHits", "aabb_aabb", "sphere_sphere", "sphere_aabb"]


class SweepHits(NamedTuple):
    """Sweep results, one row per pair.

    hit : (N,) bool
    t : (N,) float
        First contact time in [0, 1]; ``inf`` on a miss.
    normal : (N, D) float
        Unit outward normal of the second volume at first contact; zero on a miss and
        when t = 0.
    """

    hit: np.ndarray
    t: np.ndarray
    normal: np.ndarray


def aabb_aabb(moving, stationary, displacement, *, displacement_b=None):
    """Time of first contact of a moving box with another box (seed 000
    ``intersectMovingAABB``).

    Per axis with velocity ``s``: zero is the static closed overlap test (overlap on that
    axis for all t, or never); otherwise the box is inside the slab for t in
    ``[(S.lo - M.hi) / s, (S.hi - M.lo) / s]``, swapped when ``s < 0``. The intersection
    of those intervals with [0, 1] is the contact interval; its start is t. Each t is one
    correctly rounded quotient: seed 000's example gives ``0.5 / 3`` exactly.

    Parameters
    ----------
    moving, stationary : (N, 2, D) float, or (2, D); D in 1..3
    displacement : (N, D) float, or (D,); finite, may be zero
    displacement_b : (N, D) float, or (D,), optional
        The second box's own displacement over the same interval.

    Returns
    -------
    SweepHits; the normal is ``-sign(s) e_axis`` for the slab entered last. Scalars (and a
    (D,) normal) when every argument holds one item.
    """
    moving, s1 = v.as_boxes(moving, "moving")
    still, s2 = v.as_boxes(stationary, "stationary", dim=moving.shape[2])
    disp, s3 = _relative(displacement, displacement_b, moving.shape[2])
    n = _broadcast_len(moving=moving, stationary=still, displacement=disp)
    out = _empty(n, moving.shape[2])
    if n:
        _ks.aabb_aabb(moving, still, disp, *out)
    return _squeeze(out, s1 and s2 and s3)


def sphere_sphere(moving, stationary, displacement, *, displacement_b=None):
    """Time of first contact of a moving sphere with another sphere (RTCD 5.5.5).

    The centres' offset ``m`` moves as ``m + t s``; contact is ``|m + t s| = r_a + r_b``,
    the ray-sphere quadratic (stable form, see :func:`hitbox.ray.cast_sphere`).

    Parameters
    ----------
    moving, stationary : Spheres or (center (N, D), radius (N,)); D in 1..3
    displacement, displacement_b : as in :func:`aabb_aabb`

    Returns
    -------
    SweepHits; the normal is ``(c_a(t) - c_b) / |c_a(t) - c_b|``.

    Inputs whose magnitudes leave [2**-400, 2**400] are solved rescaled by one power of
    two (exact), so squares neither overflow nor vanish.
    """
    a, s1 = v.as_spheres(moving, "moving")
    b, s2 = v.as_spheres(stationary, "stationary", dim=a.center.shape[1])
    disp, s3 = _relative(displacement, displacement_b, a.center.shape[1])
    n = _broadcast_len(moving=a.center, stationary=b.center, displacement=disp)
    out = _empty(n, a.center.shape[1])
    if n:
        # positions, radii and motion scaled alike: the same t, the same normals
        g = v.pow2_factor(a.center, a.radius, b.center, b.radius, disp)
        parts = (a.center, a.radius, b.center, b.radius, disp)
        if g != 1.0 and _by_scale(n, parts, _ks.sphere_sphere, out):
            return _squeeze(out, s1 and s2 and s3)
        if g != 1.0:
            a, b, disp = _scaled(a, g), _scaled(b, g), g * disp
        _ks.sphere_sphere(a.center, a.radius, b.center, b.radius, disp, *out)
    return _squeeze(out, s1 and s2 and s3)


def sphere_aabb(spheres, boxes, displacement, *, displacement_b=None):
    """Time of first contact of a moving sphere with a box, exact for the rounded box.

    The sphere of radius r touches the box when its centre enters the rounded box
    ``{p : dist(p, box) <= r}`` (the Minkowski sum of box and ball). That set is cut into
    convex pieces: the box grown by r along one axis (faces), the edge cylinders and the
    corner balls (corner discs in 2D); the first contact is the earliest entry of the
    centre's path into any piece (Ericson, RTCD 5.5.7, cuts it the same way). Slab entries
    are exact quotients; cylinder and ball entries solve the stable quadratic.

    Parameters
    ----------
    spheres : Spheres or (center (N, D), radius (N,)); the moving volume
    boxes : (N, 2, D) float, or (2, D)
    displacement, displacement_b : as in :func:`aabb_aabb` (``displacement_b`` moves the
        boxes)

    Returns
    -------
    SweepHits; the normal points from the box's nearest point to the centre at contact
    (``-sign(s) e_axis`` for a face contact; a point sphere, radius 0, takes the normal
    of the face it enters).
    """
    sph, s1 = v.as_spheres(spheres, "spheres")
    dim = sph.center.shape[1]
    boxes, s2 = v.as_boxes(boxes, "boxes", dim=dim)
    disp, s3 = _relative(displacement, displacement_b, dim)
    n = _broadcast_len(spheres=sph.center, boxes=boxes, displacement=disp)
    out = _empty(n, dim)
    if n:
        g = v.pow2_factor(sph.center, sph.radius, boxes, disp)
        parts = (sph.center, sph.radius, boxes, disp)
        if g != 1.0 and _by_scale(n, parts, _ks.sphere_aabb, out):
            return _squeeze(out, s1 and s2 and s3)
        if g != 1.0:
            sph, boxes, disp = _scaled(sph, g), g * boxes, g * disp
        _ks.sphere_aabb(sph.center, sph.radius, boxes, disp, *out)
    return _squeeze(out, s1 and s2 and s3)


# -- helpers -----------------------------------------------------------------------------


def _by_scale(n, parts, kernel, out):
    """Fill ``out`` by ``kernel(*parts, *out)`` group by group of the n elements whose
    magnitudes share a power of two (:func:`hitbox._scale_groups.scale_groups`), each group's
    ``parts`` (each (n, ...) or (1, ...)) scaled by its own: times of contact and unit
    normals do not change with the scale. False (nothing done) when one scale serves
    every element."""
    groups = _sg.scale_groups(_sg.magnitudes(n, *parts))
    if groups is None:
        return False
    for g, idx in groups:
        got = _empty(len(idx), out.normal.shape[1])
        kernel(*(g * (p if len(p) == 1 else p[idx]) for p in parts), *got)
        for full, part in zip(out, got, strict=True):
            full[idx] = part
    return True


def _scaled(spheres, g):
    return type(spheres)(g * spheres.center, g * spheres.radius)


def _relative(displacement, displacement_b, dim):
    """(relative displacement (N, D), was_single) from one or two displacements."""
    disp, single = v.as_points(displacement, "displacement", dim=dim, finite=True)
    if displacement_b is None:
        return disp, single
    disp_b, single_b = v.as_points(displacement_b, "displacement_b", dim=dim, finite=True)
    _broadcast_len(displacement=disp, displacement_b=disp_b)
    with np.errstate(over="ignore"):
        rel = disp - disp_b
    if not np.isfinite(rel).all():
        raise ValueError("displacement - displacement_b overflows")
    return np.ascontiguousarray(rel), single and single_b


def _broadcast_len(**arrays):
    """The common length of arrays that each hold N items or 1; ValueError naming the
    first that disagrees."""
    n = 1
    first = None
    for name, arr in arrays.items():
        if len(arr) != 1:
            if first is None:
                first, n = name, len(arr)
            elif len(arr) != n:
                raise ValueError(f"{name} has {len(arr)} items but {first} has {n}")
    return n


def _empty(n, dim):
    return SweepHits(np.empty(n, np.bool_), np.empty(n), np.empty((n, dim)))


def _squeeze(out, single):
    if not single:
        return out
    return SweepHits(bool(out.hit[0]), float(out.t[0]), out.normal[0])
