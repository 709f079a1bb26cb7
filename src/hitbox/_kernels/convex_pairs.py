"""Batched convex pair queries: each pair to its closed form, or GJK and EPA.

``out = (value (n,), point_a (n, 3), point_b (n, 3), normal (n, 3))`` and ``hit (n,)``,
whether the pair touches or overlaps. ``value`` is the distance (mode DISTANCE; 0 for
touching pairs, whose points are then one common point) or the signed penetration depth
(mode PENETRATION; minus the distance for separated pairs). Mode INTERSECTS is read for
``hit`` only.
"""

import math

import numpy as np
from numba import njit, prange

from hitbox._kernels.borrowed import borrowed
from hitbox._kernels.epa import epa
from hitbox._kernels.gjk import OVERLAP, SEPARATED, gjk, witnesses
from hitbox._kernels.primitives import (
    BOX,
    CAPSULE,
    DISTANCE,
    HALFSPACE,
    INTERSECTS,
    SPHERE,
    TOUCH,
    box_box_contact,
    box_box_sat,
    box_sphere,
    finish_rounded,
    flip,
    halfspace_shape,
    halfspaces,
    scale,
    segments,
    write,
)
from hitbox._kernels.shape_set import borrowed_shapes

CHUNK = 256
#: Pairs whose largest centre coordinate or bounding radius lies beyond 2**+-SAFE_EXP
#: are left to the caller, who solves them at a power-of-two scale: products of their
#: coordinates could overflow or vanish (``hitbox._validate.SQUARES_SAFE_EXP``).
SAFE_EXP = 100
_HUGE, _TINY = 2.0**SAFE_EXP, 2.0**-SAFE_EXP


@njit(inline="always")
def _beyond(sa, i, sb, j):
    """Whether the pair's magnitude lies beyond 2**+-SAFE_EXP (0 is not)."""
    big = max(sa.bound[i], sb.bound[j])
    for c in range(3):
        big = max(big, abs(sa.trans[i, c]), abs(sb.trans[j, c]))
    return big > _HUGE or 0.0 < big < _TINY


@njit(inline="always")
def pair(mode, sa, i, sb, j, ws, out, hit, k):
    """One pair (shape i of ``sa``, shape j of ``sb``) into row k."""
    ka, kb = sa.kind[i], sb.kind[j]
    sc = scale(sa, i, sb, j)
    tol = TOUCH * sc
    if ka == HALFSPACE:
        if kb == HALFSPACE:
            halfspaces(mode, sa, i, sb, j, out, hit, k, tol)
        else:
            halfspace_shape(mode, sa, i, sb, j, out, hit, k, tol)
        return
    if kb == HALFSPACE:
        halfspace_shape(mode, sb, j, sa, i, out, hit, k, tol)
        flip(out, k)
        return
    if ka <= CAPSULE and kb <= CAPSULE:
        segments(mode, sa, i, sb, j, out, hit, k, tol)
        return
    if ka == BOX and kb == SPHERE:
        box_sphere(mode, sa, i, sb, j, out, hit, k, tol)
        return
    if ka == SPHERE and kb == BOX:
        box_sphere(mode, sb, j, sa, i, out, hit, k, tol)
        flip(out, k)
        return
    if mode == INTERSECTS:  # bounding spheres apart: done
        d2 = 0.0
        for c in range(3):
            d2 += (sa.trans[i, c] - sb.trans[j, c]) ** 2
        reach = sa.bound[i] + sb.bound[j] + tol
        if d2 > reach * reach:
            hit[k] = False
            return
    if ka == BOX and kb == BOX and mode != DISTANCE:
        depth, nx, ny, nz, code = box_box_sat(sa, i, sb, j, tol)
        if depth >= -tol:
            if mode == INTERSECTS:
                hit[k] = True
            else:
                box_box_contact(sa, i, sb, j, out, hit, k, depth, nx, ny, nz, code)
            return
        if mode == INTERSECTS:
            hit[k] = False
            return
    general(mode, sa, i, sb, j, ws, out, hit, k, sc)


@njit(inline="always")
def general(mode, sa, i, sb, j, ws, out, hit, k, sc):
    """Any two bounded shapes: GJK on the cores, EPA where the cores overlap, the radii
    added after."""
    ra, rb = sa.radius[i], sb.radius[j]
    tol = TOUCH * sc
    stop = ra + rb + tol if mode == INTERSECTS else np.inf
    status, n, vx, vy, vz = gjk(sa, i, sb, j, ws, sc, stop)
    if mode == INTERSECTS:
        if status == SEPARATED:
            hit[k] = False
        elif status == OVERLAP:
            hit[k] = True
        else:
            hit[k] = math.sqrt(vx * vx + vy * vy + vz * vz) <= ra + rb + tol
        return
    if status == OVERLAP:
        if mode == DISTANCE:
            ax, ay, az, bx, by, bz = witnesses(ws, n)
            px, py, pz = 0.5 * (ax + bx), 0.5 * (ay + by), 0.5 * (az + bz)
            write(out, hit, k, 0.0, px, py, pz, px, py, pz, 0.0, 0.0, 0.0, True)
            return
        d, nx, ny, nz, ax, ay, az, bx, by, bz = epa(sa, i, sb, j, ws, n, sc)
        write(out, hit, k, d + ra + rb, ax + ra * nx, ay + ra * ny, az + ra * nz,
              bx - rb * nx, by - rb * ny, bz - rb * nz, nx, ny, nz, True)  # fmt: skip
        return
    ax, ay, az, bx, by, bz = witnesses(ws, n)
    d = math.sqrt(vx * vx + vy * vy + vz * vz)
    if d == 0.0:  # only with a zero scale: everything at the origin
        write(out, hit, k, 0.0, ax, ay, az, ax, ay, az, 0.0, 0.0, 1.0, True)
        return
    finish_rounded(mode, out, hit, k, d, ax, ay, az, bx, by, bz, -vx / d, -vy / d,
                   -vz / d, ra, rb, tol)  # fmt: skip


@njit(cache=True, nogil=True)
def query(mode, sa, ia, sb, ib, out, hit):
    """Pairs (ia[k], ib[k]) one after another; returns how many were left unsolved,
    their magnitude beyond 2**+-SAFE_EXP (rows not written)."""
    return _pairs(mode, sa, ia, sb, ib, out, hit, np.zeros((9, 10)), 0, len(ia))


@njit
def _pairs(mode, sa, ia, sb, ib, out, hit, ws, lo, hi):
    """Pairs lo..hi, every array borrowed (:func:`.shape_set.borrowed_shapes`; the
    caller holds them); the count left unsolved."""
    sa, sb, ws = borrowed_shapes(sa), borrowed_shapes(sb), borrowed(ws)
    value, pa, pb, normal = out
    out = (borrowed(value), borrowed(pa), borrowed(pb), borrowed(normal))
    hit, ia, ib = borrowed(hit), borrowed(ia), borrowed(ib)
    left = 0
    for k in range(lo, hi):
        if _beyond(sa, ia[k], sb, ib[k]):
            left += 1
            continue
        pair(mode, sa, ia[k], sb, ib[k], ws, out, hit, k)
    return left


@njit(cache=True, nogil=True, parallel=True)
def query_parallel(mode, sa, ia, sb, ib, out, hit):
    """:func:`query` over chunks of CHUNK pairs spread across threads."""
    n = len(ia)
    chunks = (n + CHUNK - 1) // CHUNK
    left = np.zeros(chunks, np.intp)
    for c in prange(chunks):
        lo = c * CHUNK
        left[c] = _pairs(mode, sa, ia, sb, ib, out, hit, np.zeros((9, 10)), lo,
                         min(n, lo + CHUNK))  # fmt: skip
    return left.sum()
