"""Rays and segments against bounding volumes (SPEC §3, seed 001's slab method).

A ray is ``p = origin + t * direction`` with t in ``[0, t_max]``: ``t_max = inf`` for a
ray, 1 for a segment given by its end points (:func:`segments`). Every cast takes the
volumes first, then either a :class:`~hitbox.Rays` or ``origins, directions`` (with
``t_max``), and pairs them in one of two ways:

``pairing="elementwise"``
    ray i against volume i, broadcasting one ray against many volumes or many rays against
    one volume. Returns :class:`BoxHits`, one row per pair; single ray and single volume
    give scalars.
``pairing="all"``
    every ray against every volume. Returns :class:`PairHits` with the hitting pairs only.

Volumes are closed: a ray that touches an edge or a corner, or grazes along a face, hits.
A ray whose origin lies in the volume (on its boundary included) hits at ``t_enter = 0``
with ``axis = -1`` and a zero normal: it enters through no face. A direction component of
+0 or -0 means the ray is parallel to that slab; it hits only if its origin lies in the
closed slab (no NaN, and no "near zero" tolerance that would change the answer for a tiny
but valid direction). Slab parameters are the quotients ``(lo - o) / d``. A graze that
rounding would lose (a ray through an edge or a corner, tangent to a sphere, or a segment
ending on the surface, exactly in the given floats) is a hit: the hit test allows the
roundings of ``lo - o`` and of the quotient (sphere casts: of ``o - c`` and the
discriminant; OBB and k-DOP casts: of the ray turned into the box's frame or projected
on the diagonal axes, where a nearly parallel ray's t may be off by that rounding over
its slope), so rays apart by less than about 1e-15 of the coordinates' size may be
reported as grazing hits, and on small integer input (up to 2**20) the AABB and sphere
decisions are exact. An entry parameter past the float range (a subnormal direction component, far
from the box) is a miss: no finite t exists to report.
"""

from typing import NamedTuple

import numpy as np

from hitbox import _scale_groups as _sg
from hitbox import _validate as v
from hitbox._kernels import ray as _kr
from hitbox._types import Rays, Spheres

__all__ = [
    "BoxHits",
    "PairHits",
    "segments",
    "cast_aabb",
    "cast_sphere",
    "cast_obb",
    "cast_kdop",
]

PAIRINGS = ("elementwise", "all")


class BoxHits(NamedTuple):
    """Elementwise cast results, one row per (ray, volume) pair.

    hit : (N,) bool
    t_enter : (N,) float
        First t in ``[0, t_max]`` inside the volume; ``inf`` on a miss.
    t_exit : (N,) float
        Last such t (``t_max`` when the ray ends inside); ``inf`` on a miss.
    axis : (N,) intp
        Slab of the entry face: the coordinate axis (AABB), the box's own axis (OBB), the
        row of the k-DOP's direction table (k-DOP); ties between slabs (a hit exactly on
        an edge or a corner) keep the lowest index. -1 on a miss, when the ray starts
        inside, and always for spheres.
    normal : (N, D) float
        Unit outward normal of the volume at the entry point, in world coordinates; zero
        on a miss and when the ray starts inside.
    """

    hit: np.ndarray
    t_enter: np.ndarray
    t_exit: np.ndarray
    axis: np.ndarray
    normal: np.ndarray


class PairHits(NamedTuple):
    """All-pairs cast results: only the hitting (volume, ray) pairs.

    pairs : (2, n) intp
        Row 0 indexes the volumes (the first argument), row 1 the rays, sorted by (volume,
        ray) as every pair array in hitbox.
    t_enter, t_exit, axis, normal : (n,), (n,), (n,), (n, D)
        As in :class:`BoxHits`, for each pair.
    """

    pairs: np.ndarray
    t_enter: np.ndarray
    t_exit: np.ndarray
    axis: np.ndarray
    normal: np.ndarray


def segments(starts, ends):
    """Segments from ``starts`` to ``ends`` as rays with ``t_max = 1``.

    Parameters
    ----------
    starts, ends : (N, D) float, or (D,); one of them may be a single point

    Returns
    -------
    Rays with ``origin = starts``, ``direction = ends - starts`` and ``t_max = 1``. A
    zero-length segment has no direction and raises ValueError.
    """
    a, single_a = v.as_points(starts, "starts", finite=True)
    b, single_b = v.as_points(ends, "ends", dim=a.shape[1], finite=True)
    if len(a) != len(b) and len(a) != 1 and len(b) != 1:
        raise ValueError(f"starts ({len(a)}) and ends ({len(b)}) differ in length")
    same = np.all(a == b, axis=1)
    if same.any():
        raise ValueError(
            f"ends[{int(np.argmax(same))}] equals its start: a zero-length segment"
        )
    with np.errstate(over="ignore"):
        direction = b - a  # an overflow to inf is reported by as_rays as non-finite
    rays, _ = v.as_rays(a, direction, np.ones(len(direction)))
    if single_a and single_b:
        return Rays(rays.origin[0], rays.direction[0], rays.t_max[0])
    return rays


def cast_aabb(boxes, origins, directions=None, *, t_max=None, pairing="elementwise"):
    """Rays or segments against axis-aligned boxes by the slab method (seed 001).

    Parameters
    ----------
    boxes : (M, 2, D) float, or (2, D); D in 1..3, lo in row 0, hi in row 1
    origins : (N, D) float, or (D,); or a :class:`~hitbox.Rays` (then no directions)
    directions : (N, D) float, or (D,); finite and not all zero
    t_max : float or (N,) float, optional
        End of each ray's parameter range (default ``inf``; ``1`` for segments).
    pairing : {"elementwise", "all"}

    Returns
    -------
    BoxHits (elementwise; one row per pair, scalars for one ray and one box) or PairHits
    (all). The entry face's normal is ``-sign(d) e_axis``.
    """
    rays, single_r = _rays(origins, directions, t_max)
    boxes, single_b = v.as_boxes(boxes, dim=rays.origin.shape[1])
    return _cast(_kr.AABBs(boxes), rays, single_r and single_b, pairing, "boxes")


def cast_sphere(spheres, origins, directions=None, *, t_max=None, pairing="elementwise"):
    """Rays or segments against spheres (discs in 2D, intervals in 1D).

    Parameters
    ----------
    spheres : Spheres or (center, radius) with center (M, D) and radius (M,); a negative
        radius is the empty sphere, which nothing hits
    origins, directions, t_max, pairing : as in :func:`cast_aabb`

    Returns
    -------
    BoxHits or PairHits, as in :func:`cast_aabb`; ``axis`` is always -1 (a sphere has no
    faces) and ``normal`` is ``(p - center) / |p - center|`` at the entry point ``p``.

    Notes
    -----
    The quadratic is solved in the stable form of Haines et al. (Ray Tracing Gems, ch. 7)
    after scaling the direction by its largest component, so huge and tiny directions
    neither overflow nor lose the hit; positions and radii whose magnitudes leave
    [2**-400, 2**400] are solved rescaled by a power of two (exact; t scaled back), each
    group of pairs sharing one at its own. Unlike the slab casts this is not exact:
    a ray tangent to the sphere may hit or miss by rounding.
    """
    rays, single_r = _rays(origins, directions, t_max)
    spheres, single_b = v.as_spheres(spheres, dim=rays.origin.shape[1])
    o, d, tm = rays
    c, r = spheres
    # positions and radii scaled by a power of two (the kernel scales each direction by
    # its own largest component): t scales by it too
    g = v.pow2_factor(c, r, o)
    if g != 1.0:
        mixed = _spheres_by_scale(spheres, rays, single_r and single_b, pairing)
        if mixed is not None:
            return mixed
    return _cast_scaled(c, r, o, d, tm, g, single_r and single_b, pairing)


def _cast_scaled(c, r, o, d, tm, g, single, pairing):
    """:func:`_cast` of spheres (c, r) and rays (o, d, tm) with the positions, radii and
    t_max times the power of two g (exact; the directions as they are), the hits' t
    mapped back."""
    if g == 1.0:
        return _cast(Spheres(c, r), Rays(o, d, tm), single, pairing, "spheres")
    with np.errstate(over="ignore"):  # a t_max beyond the floats is no limit
        got = _cast(Spheres(g * c, g * r), Rays(g * o, d, g * tm), single, pairing,
                    "spheres")  # fmt: skip
    return got._replace(t_enter=got.t_enter / g, t_exit=got.t_exit / g)


def _spheres_by_scale(spheres, rays, single, pairing):
    """:func:`cast_sphere` where the rays and spheres mix magnitudes too far apart for one
    power of two (a far sentinel among ordinary ones would shrink theirs until their
    squares vanish): each pair solved at the scale of its larger magnitude
    (:func:`hitbox._scale_groups.scale_groups` of positions and radii: directions are the
    kernel's to scale). None when one scale serves every pair."""
    (c, r), (o, d, tm) = spheres, rays
    if v.check_choice(pairing, "pairing", PAIRINGS) == "elementwise":
        n = v.broadcast_len(len(c), len(o), "spheres", "rays elementwise")
        groups = _sg.scale_groups(_sg.magnitudes(n, c, r, o))
        if groups is None:
            return None
        parts = []
        for g, idx in groups:

            def pick(x, idx=idx):
                return x if len(x) == 1 else x[idx]

            got = _cast_scaled(pick(c), pick(r), pick(o), pick(d), pick(tm), g, False,
                               pairing)  # fmt: skip
            parts.append((idx, got))
        return _squeeze(_sg.in_order(n, parts), single)
    # every pair: a pair's scale is its two groups' smaller (pow2_each never rises
    # with the magnitude)
    sphere_big, ray_big = _sg.magnitudes(len(c), c, r), _sg.magnitudes(len(o), o)
    by_sphere = _sg.scale_groups(sphere_big) or [(1.0, np.arange(len(c)))]
    by_ray = _sg.scale_groups(ray_big) or [(1.0, np.arange(len(o)))]
    if len(by_sphere) == 1 and len(by_ray) == 1:
        return None
    sphere_g, ray_g = v.pow2_each(sphere_big), v.pow2_each(ray_big)
    parts = []
    for _, si in by_sphere:
        for _, ri in by_ray:
            g = min(sphere_g[si[0]], ray_g[ri[0]])
            t_max = tm if len(tm) == 1 else tm[ri]
            got = _cast_scaled(
                c[si], r[si], o[ri], d[ri], t_max, float(g), False, pairing
            )
            parts.append((si[got.pairs[0]], ri[got.pairs[1]], got))
    vol = np.concatenate([p[0] for p in parts])
    ray = np.concatenate([p[1] for p in parts])
    order = np.lexsort((ray, vol))
    fields = [np.concatenate([getattr(p[2], f) for p in parts])[order]
              for f in PairHits._fields[1:]]  # fmt: skip
    return PairHits(np.stack([vol[order], ray[order]]).astype(np.intp), *fields)


def cast_obb(obbs, origins, directions=None, *, t_max=None, pairing="elementwise"):
    """Rays or segments against oriented boxes: the ray is moved into each box's frame
    (``o' = rot.T (o - center)``, ``d' = rot.T d``), then the slab method runs on
    ``[-half, half]``.

    Parameters
    ----------
    obbs : OBBs or (center (M, 3), half (M, 3), rot (M, 3, 3)); rot's columns are the axes
    origins, directions, t_max, pairing : as in :func:`cast_aabb`, 3D

    Returns
    -------
    BoxHits or PairHits, as in :func:`cast_aabb`; ``axis`` is the box's own axis (a
    column of rot) of the entry face and ``normal`` is ``-sign(d') rot[:, axis]``, in
    world coordinates. Exact in the box's frame; the frame change itself rounds.
    """
    rays, single_r = _rays(origins, directions, t_max, dim=3)
    obbs, single_b = v.as_obbs(obbs)
    return _cast(obbs, rays, single_r and single_b, pairing, "obbs")


def cast_kdop(
    kdops, origins, directions=None, *, axes=None, t_max=None, pairing="elementwise"
):
    """Rays or segments against k-DOPs: the slab method along the K/2 directions.

    Parameters
    ----------
    kdops : (M, 2, K/2) float, or (2, K/2); K in 6, 14, 18, 26, taken from the shape
    origins, directions, t_max, pairing : as in :func:`cast_aabb`, 3D
    axes : (K/2, 3) float, optional
        Slab directions, not necessarily unit length; default ``hitbox.kdop.AXES[K]``.

    Returns
    -------
    BoxHits or PairHits, as in :func:`cast_aabb`; ``axis`` indexes ``axes`` and ``normal``
    is ``-sign(a . d) a / |a|`` for the entry direction ``a``. The 6-DOP gives the same
    answers as :func:`cast_aabb`, bit for bit.
    """
    rays, single_r = _rays(origins, directions, t_max, dim=3)
    kdops, single_b, k = v.as_kdops(kdops)
    vol = _kr.KDOPs(kdops, _as_axes(axes, k))
    return _cast(vol, rays, single_r and single_b, pairing, "kdops")


# -- helpers -----------------------------------------------------------------------------


def _cast(vol, rays, single, pairing, name):
    """Validated volumes of one kind (see ``_kernels.ray.KINDS``) against validated rays,
    paired as asked; ``name`` is the volumes' noun for errors."""
    o, d, tm = rays
    if v.check_choice(pairing, "pairing", PAIRINGS) == "all":
        return PairHits(*_kr.cast_all(vol, o, d, tm))
    n = v.broadcast_len(len(vol[0]), len(o), name, "rays elementwise")
    out = _empty_hits(n, o.shape[1])
    if len(out.hit) and isinstance(vol, _kr.AABBs) and o.shape[1] == 3:
        _kr.cast_aabb_3d(vol.boxes, o, d, tm, *out)  # unrolled: the many-rays path
    elif len(out.hit):
        _kr.cast_each(vol, o, d, tm, *out)
    return _squeeze(out, single)


def _rays(origins, directions, t_max, dim=None):
    """Validated Rays from a Rays or from (origins, directions, t_max = inf)."""
    return v.as_rays(origins, directions, t_max, dim=dim)


def _as_axes(axes, k):
    """The (K/2, 3) slab directions of K-DOPs: the kdop table, or checked user input.

    A private validator (``_validate`` has none for direction tables): finite, one row per
    slab, no zero row.
    """
    if axes is None:
        from hitbox import kdop  # lazily: only k-DOP casts need the table

        arr = kdop.AXES[k]
    else:
        arr = v.as_float(axes, "axes", finite=True)
        if arr.shape != (k // 2, 3):
            raise ValueError(
                f"axes must have shape ({k // 2}, 3) for {k}-DOPs, got {arr.shape}"
            )
        zero = ~np.any(arr != 0.0, axis=1)
        if zero.any():
            raise ValueError(f"axes[{int(np.argmax(zero))}] is all zero")
    # a fresh writable copy: read-only arrays would compile a second kernel signature
    return np.array(arr, dtype=np.float64)


def _empty_hits(n, dim):
    return BoxHits(
        np.empty(n, np.bool_),
        np.empty(n),
        np.empty(n),
        np.empty(n, np.intp),
        np.empty((n, dim)),
    )


def _squeeze(out, single):
    """One ray and one volume: bool, float, float, int and a (D,) normal."""
    if not single:
        return out
    return BoxHits(
        bool(out.hit[0]),
        float(out.t_enter[0]),
        float(out.t_exit[0]),
        int(out.axis[0]),
        out.normal[0],
    )
