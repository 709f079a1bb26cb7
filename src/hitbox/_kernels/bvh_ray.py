"""Rays against a triangle BVH: closest, any and all hits, serial and parallel over rays.

Nodes are culled with their exact AABBs (every tree keeps them beside its own volume
kind) by the slab method; a zero direction component is a ray parallel to that slab, and
is tested by where its origin lies, never by 0 * inf. The far end of each node interval
is widened by 2*gamma(3) (Ize 2013, "Robust BVH Ray Traversal"), and so is the t it is
compared with, so rounding never culls a node whose triangle the exact ray hits first.
"""

import numpy as np
from numba import njit, prange

from hitbox._kernels.borrowed import borrowed
from hitbox._kernels.bvh_traverse import push_children
from hitbox._kernels.ray import WIDEN
from hitbox._kernels.ray_triangle import (
    closer,
    final_t,
    ray_shear,
    ray_triangle,
    ray_triangle_bounded,
)
from hitbox._kernels.triangle_points import load

#: Rays per call above which the parallel kernel is used (thread start-up costs more below).
PARALLEL_MIN = 4096


@njit(inline="always")
def _slab(lo, hi, o, inv, zero, t0, t1):
    """One axis of the slab test: the narrowed [t0, t1] (t0 > t1 means a miss), the far
    end not yet widened."""
    if zero:
        if o < lo or o > hi:
            return np.inf, -np.inf
        return t0, t1
    ta = (lo - o) * inv
    tb = (hi - o) * inv
    if ta > tb:
        ta, tb = tb, ta
    return (ta if ta > t0 else t0), (tb if tb < t1 else t1)


@njit(inline="always")
def box_entry(box, m, o, inv, zero, t_far):
    """Entry t of the ray into box m within [0, t_far], or inf when it misses.

    The far end is widened once, after the three axes (the same as widening each axis:
    rounding a product by WIDEN is monotonic); ``t_far`` comes widened by the caller,
    since the entry t, rounded up, must not pass it where the exact one does not.
    """
    t0, t1 = _slab(box[m, 0, 0], box[m, 1, 0], o[0], inv[0], zero[0], 0.0, np.inf)
    t0, t1 = _slab(box[m, 0, 1], box[m, 1, 1], o[1], inv[1], zero[1], t0, t1)
    t0, t1 = _slab(box[m, 0, 2], box[m, 1, 2], o[2], inv[2], zero[2], t0, t1)
    return t0 if (t0 <= t1 * WIDEN and t0 <= t_far) else np.inf


@njit(inline="always")
def ray_consts(o0, o1, o2, d0, d1, d2):
    """(origin, direction, zero, inv) 3-tuples of a ray for :func:`box_entry`: which
    direction components are 0, and the reciprocals of the others (0 for those)."""
    o = (o0, o1, o2)
    d = (d0, d1, d2)
    zero = (d0 == 0.0, d1 == 0.0, d2 == 0.0)
    inv = (
        1.0 / d0 if d0 != 0.0 else 0.0,
        1.0 / d1 if d1 != 0.0 else 0.0,
        1.0 / d2 if d2 != 0.0 else 0.0,
    )
    return o, d, zero, inv


@njit(inline="always")
def _ray_setup(origins, directions, r):
    return ray_consts(
        origins[r, 0], origins[r, 1], origins[r, 2],
        directions[r, 0], directions[r, 1], directions[r, 2],
    )  # fmt: skip


@njit(inline="always")
def slab_entry(lo0, lo1, lo2, hi0, hi1, hi2, o, inv, zero, t_far):
    """:func:`box_entry` of the box with corners lo, hi, given as scalars: a helper
    that takes the array costs the walk a reference count on it at every node."""
    t0, t1 = _slab(lo0, hi0, o[0], inv[0], zero[0], 0.0, np.inf)
    t0, t1 = _slab(lo1, hi1, o[1], inv[1], zero[1], t0, t1)
    t0, t1 = _slab(lo2, hi2, o[2], inv[2], zero[2], t0, t1)
    return t0 if (t0 <= t1 * WIDEN and t0 <= t_far) else np.inf


@njit(inline="always")
def by_entry(f, tl, tr):
    """Children f and f + 1 with their entry t (tl, tr), the farther first: pushed in
    this order, the nearer is walked first. Scalars only (see :func:`slab_entry`)."""
    if tr < tl:
        return (f, tl), (f + 1, tr)
    return (f + 1, tr), (f, tl)


@njit
def cast_one(
    node_box, node_first, node_count, tris, prim, stack, entries, o, d, zero, inv,
    t_max, first_only,
):  # fmt: skip
    """(t, slot, u, v) of the nearest hit within t_max (any hit with first_only).

    ``stack`` (intp) and ``entries`` (float64), each of the tree's depth + 2: the nodes
    to walk and their entry t, so that a node whose entry has passed the best hit found
    since it was pushed is dropped unopened (the test its box passed, made again with
    the nearer best t).

    Each hit comes with a bound on its t's error; a hit is kept when its interval lies
    before the best one's, and ordered exactly (``closer``; ties: the lowest face,
    ``prim[slot]``, so that every tree answers alike) where the two overlap. The kept
    hit's t is refined at the end (within 4 ulps).

    The loop reads the arrays itself and inlines no helper that takes one: numba
    counts a reference to each array such a helper is passed, at every node
    (benchmarks/README.md).
    """
    shear = ray_shear(d)
    best_t = t_max
    best_e = 0.0
    best_s = -1
    best_u = 0.0
    best_v = 0.0
    te = box_entry(node_box, 0, o, inv, zero, best_t * WIDEN)
    if te == np.inf:
        return np.inf, -1, 0.0, 0.0
    stack[0], entries[0] = 0, te
    top = 1
    while top > 0:
        top -= 1
        if entries[top] > (best_t + best_e) * WIDEN:
            continue
        m = stack[top]
        c = node_count[m]
        f = node_first[m]
        if c > 0:
            for s in range(f, f + c):
                a = (tris[s, 0, 0], tris[s, 0, 1], tris[s, 0, 2])
                b = (tris[s, 1, 0], tris[s, 1, 1], tris[s, 1, 2])
                cc = (tris[s, 2, 0], tris[s, 2, 1], tris[s, 2, 2])
                hit, t, e, u, v = ray_triangle_bounded(
                    o, shear, best_t + best_e, a, b, cc
                )
                if not hit:
                    continue
                if not (t - e >= 0.0 and t + e < best_t - best_e):
                    key = prim[best_s] if best_s >= 0 else -1
                    if not closer(
                        o, d, t_max, tris, s, t, e, best_s, best_t, best_e, prim[s],
                        key,
                    ):  # fmt: skip
                        continue
                best_t, best_e, best_s, best_u, best_v = t, e, s, u, v
                if first_only:
                    return final_t(o, d, t_max, a, b, cc, t), s, u, v
            continue
        reach = (best_t + best_e) * WIDEN  # the exact best t is at most best_t + best_e
        g = f + 1
        tl = slab_entry(
            node_box[f, 0, 0], node_box[f, 0, 1], node_box[f, 0, 2],
            node_box[f, 1, 0], node_box[f, 1, 1], node_box[f, 1, 2], o, inv, zero, reach,
        )  # fmt: skip
        tr = slab_entry(
            node_box[g, 0, 0], node_box[g, 0, 1], node_box[g, 0, 2],
            node_box[g, 1, 0], node_box[g, 1, 1], node_box[g, 1, 2], o, inv, zero, reach,
        )  # fmt: skip
        for node, t in by_entry(f, tl, tr):  # the nearer pushed last: walked first
            if t != np.inf:
                stack[top], entries[top] = node, t
                top += 1
    if best_s < 0:
        return np.inf, -1, 0.0, 0.0
    a = (tris[best_s, 0, 0], tris[best_s, 0, 1], tris[best_s, 0, 2])
    b = (tris[best_s, 1, 0], tris[best_s, 1, 1], tris[best_s, 1, 2])
    cc = (tris[best_s, 2, 0], tris[best_s, 2, 1], tris[best_s, 2, 2])
    return final_t(o, d, t_max, a, b, cc, best_t), best_s, best_u, best_v


@njit(cache=True, nogil=True)
def cast(walk, rays, first_only, out, start, stop):
    """Nearest (or any) hit of rays start..stop; out_slot is -1 and out_t inf on a miss.

    walk: (node_box, node_first, node_count, tris, prim (each slot's face: exact ties
    go to the lowest face), depth); rays: (origins, directions, t_max); out: (out_t,
    out_slot, out_u, out_v). Compiled apart from :func:`cast_parallel`: parfors must not
    see the traversal's body.
    """
    node_box, node_first, node_count, tris, prim, depth = walk
    origins, directions, t_max = rays
    out_t, out_slot, out_u, out_v = out
    _cast_rays(
        node_box, node_first, node_count, tris, prim, np.empty(depth + 2, np.intp),
        np.empty(depth + 2), origins, directions, t_max, first_only, out_t, out_slot,
        out_u, out_v, start, stop,
    )  # fmt: skip


@njit
def _cast_rays(
    node_box, node_first, node_count, tris, prim, stack, entries, origins, directions,
    t_max, first_only, out_t, out_slot, out_u, out_v, start, stop,
):  # fmt: skip
    """:func:`cast`'s loop, the tree's arrays and the stacks borrowed
    (:mod:`hitbox._kernels.borrowed`; the caller holds them): the call per ray took and
    released a reference to each of its seven arrays, atomics both threads share."""
    node_box, node_first = borrowed(node_box), borrowed(node_first)
    node_count, tris, prim = borrowed(node_count), borrowed(tris), borrowed(prim)
    stack, entries = borrowed(stack), borrowed(entries)
    for r in range(start, stop):
        o, d, zero, inv = _ray_setup(origins, directions, r)
        t, s, u, v = cast_one(
            node_box, node_first, node_count, tris, prim, stack, entries, o, d, zero,
            inv, t_max[r], first_only,
        )  # fmt: skip
        out_t[r], out_slot[r], out_u[r], out_v[r] = t, s, u, v


@njit(cache=True, nogil=True, parallel=True)
def cast_parallel(walk, rays, first_only, out):
    """:func:`cast` of every ray, in parallel over chunks of 256 rays."""
    n = len(rays[0])
    chunk = 256
    for c in prange((n + chunk - 1) // chunk):
        cast(walk, rays, first_only, out, c * chunk, min(n, (c + 1) * chunk))


@njit
def _all_one(
    node_box,
    node_first,
    node_count,
    tris,
    stack,
    o,
    d,
    zero,
    inv,
    t_max,
    base,
    face,
    out_t,
    out_u,
    out_v,
    fill,
):
    shear = ray_shear(d)
    t_far = t_max * WIDEN
    n = 0
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        m = stack[top]
        if box_entry(node_box, m, o, inv, zero, t_far) == np.inf:
            continue
        c = node_count[m]
        f = node_first[m]
        if c > 0:
            for s in range(f, f + c):
                a, b, cc = load(tris, s)
                hit, t, u, v = ray_triangle(o, shear, t_max, a, b, cc)
                if hit:
                    if fill:
                        face[base + n] = s
                        out_t[base + n] = t
                        out_u[base + n] = u
                        out_v[base + n] = v
                    n += 1
        else:
            top = push_children(stack, top, f)
    return n


@njit(cache=True, nogil=True)
def all_hits(walk, rays, offsets, face, out_t, out_u, out_v, fill):
    """Every hit of every ray, count then fill. Pass 1 (``fill`` False) writes ray r's
    hit count into offsets[r + 1]; pass 2 writes its hits (slot, t, u, v) into
    [offsets[r], offsets[r + 1]) of the outputs. walk, rays: as :func:`cast`."""
    node_box, node_first, node_count, tris, _, depth = walk
    origins, directions, t_max = rays
    stack = np.empty(depth + 2, np.intp)
    for r in range(len(origins)):
        o, d, zero, inv = _ray_setup(origins, directions, r)
        n = _all_one(
            node_box, node_first, node_count, tris, stack, o, d, zero, inv, t_max[r],
            offsets[r] if fill else 0, face, out_t, out_u, out_v, fill,
        )  # fmt: skip
        if not fill:
            offsets[r + 1] = n
