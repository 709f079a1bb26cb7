"""Batched triangle kernels behind :mod:`hitbox.triangle`: overlap, contact, ray casts.

Elementwise overlap and contact, and the brute-force pairs and ray casts (every pair
tested: the slow twins of the BVH paths). The per-pair tests live by concept: exact signs
in ``exact_predicates``, 3-tuple loading in ``triangle_points``, overlap in
``triangle_overlap``, contact points in ``triangle_contact``, the ray test in
``ray_triangle``.
"""

import numpy as np
from numba import njit

from hitbox._kernels.brute import pairs_where
from hitbox._kernels.ray_triangle import (
    final_t,
    ray_shear,
    ray_triangle,
    ray_triangle_bounded,
    takes_over,
)
from hitbox._kernels.triangle_contact import CONTACT_SCRATCH, tri_tri_segment
from hitbox._kernels.triangle_overlap import tri_tri_overlap_idx
from hitbox._kernels.triangle_points import load


@njit(cache=True, nogil=True)
def overlap(a, b, out):
    """Elementwise triangle overlap; a or b may hold one triangle tested against all."""
    sa = 1 if len(a) > 1 else 0
    sb = 1 if len(b) > 1 else 0
    for i in range(len(out)):
        out[i] = tri_tri_overlap_idx(a, i * sa, b, i * sb)


_tri_pairs = pairs_where(tri_tri_overlap_idx)


@njit(cache=True, nogil=True)
def overlap_pairs_brute(a, b):
    """Every (i, j) with a[i] overlapping b[j]: all pairs tested, count then fill."""
    return _tri_pairs(a, b, False)


@njit(cache=True, nogil=True)
def intersection_segments(a, b, hit, out):
    """Elementwise contact into ``hit (N,)`` and ``out (N, 2, 3)`` (NaN on a miss)."""
    sa = 1 if len(a) > 1 else 0
    sb = 1 if len(b) > 1 else 0
    pts = np.empty((CONTACT_SCRATCH, 3))
    for i in range(len(hit)):
        p0, p1, p2 = load(a, i * sa)
        q0, q1, q2 = load(b, i * sb)
        h, x, y = tri_tri_segment(p0, p1, p2, q0, q1, q2, pts)
        hit[i] = h
        for k in range(3):
            out[i, 0, k] = x[k]
            out[i, 1, k] = y[k]


@njit(cache=True, nogil=True)
def raycast_closest(origins, directions, t_max, tris, out_t, out_face, out_u, out_v):
    """Nearest hit of each ray over every triangle (ties: the lowest face index).

    Misses leave ``t = inf``, ``face = -1``, ``u = v = 0``. Hits whose t's error bounds
    overlap are ordered exactly, and the nearest one's t is refined (within 4 ulps).
    """
    for r in range(len(origins)):
        org = (origins[r, 0], origins[r, 1], origins[r, 2])
        shear = ray_shear((directions[r, 0], directions[r, 1], directions[r, 2]))
        d = shear[6]
        tm = t_max[r]
        best_t, best_e, best_f, best_u, best_v = tm, 0.0, -1, 0.0, 0.0
        for f in range(len(tris)):
            a, b, c = load(tris, f)
            h, t, e, u, v = ray_triangle_bounded(org, shear, best_t + best_e, a, b, c)
            if not h:
                continue
            if not takes_over(
                org, d, tm, tris, f, t, e, best_f, best_t, best_e, f, best_f
            ):
                continue
            best_t, best_e, best_f, best_u, best_v = t, e, f, u, v
        if best_f >= 0:
            a, b, c = load(tris, best_f)
            best_t = final_t(org, d, tm, a, b, c, best_t)
        out_t[r] = best_t if best_f >= 0 else np.inf
        out_face[r] = best_f
        out_u[r] = best_u
        out_v[r] = best_v


@njit(cache=True, nogil=True)
def raycast_any(origins, directions, t_max, tris, out_t, out_face, out_u, out_v):
    """First face (in index order) each ray hits; misses as in raycast_closest."""
    for r in range(len(origins)):
        org = (origins[r, 0], origins[r, 1], origins[r, 2])
        shear = ray_shear((directions[r, 0], directions[r, 1], directions[r, 2]))
        out_t[r], out_face[r], out_u[r], out_v[r] = np.inf, -1, 0.0, 0.0
        for f in range(len(tris)):
            a, b, c = load(tris, f)
            h, t, u, v = ray_triangle(org, shear, t_max[r], a, b, c)
            if h:
                out_t[r], out_face[r], out_u[r], out_v[r] = t, f, u, v
                break


@njit(cache=True, nogil=True)
def raycast_all_count(origins, directions, t_max, tris, counts):
    """Pass 1 of count-then-fill: how many triangles each ray hits."""
    for r in range(len(origins)):
        org = (origins[r, 0], origins[r, 1], origins[r, 2])
        shear = ray_shear((directions[r, 0], directions[r, 1], directions[r, 2]))
        n = 0
        for f in range(len(tris)):
            a, b, c = load(tris, f)
            if ray_triangle(org, shear, t_max[r], a, b, c)[0]:
                n += 1
        counts[r] = n


@njit(cache=True, nogil=True)
def raycast_all_fill(
    origins, directions, t_max, tris, offsets, out_ray, out_face, out_t, out_u, out_v
):
    """Pass 2: ray r's hits go to ``[offsets[r], offsets[r + 1])`` in face order."""
    for r in range(len(origins)):
        org = (origins[r, 0], origins[r, 1], origins[r, 2])
        shear = ray_shear((directions[r, 0], directions[r, 1], directions[r, 2]))
        n = offsets[r]
        for f in range(len(tris)):
            a, b, c = load(tris, f)
            h, t, u, v = ray_triangle(org, shear, t_max[r], a, b, c)
            if h:
                out_ray[n], out_face[n], out_t[n], out_u[n], out_v[n] = r, f, t, u, v
                n += 1
