"""Distances between bounding volumes: closed forms, and GJK on support functions.

Every kernel fills, for pairs ``(ia[n], ib[n])``, ``out_d[n]`` (the distance, 0 where
the volumes touch or overlap), ``pa[n]`` on A and ``pb[n]`` on B (one common point where
the distance is 0). Empty volumes are left to the caller. The closed forms decide "0"
with the very predicates of the overlap tests (``sphere_overlap``, ``sphere_box``, the
slab test), so distance 0 and overlap agree bit for bit; a pair those predicates call
apart but whose rounded gap is 0 gets the smallest positive float instead.
"""

import math

import numpy as np
from numba import njit, prange

from hitbox._kernels.gjk import OVERLAP, gjk, witnesses
from hitbox._kernels.primitives import TOUCH, scale
from hitbox._kernels.sphere_box import sphere_aabb, sphere_obb
from hitbox._kernels.sphere_overlap import ball_overlap

#: The distance of pairs the exact predicate calls apart but whose gap rounds to 0.
TINY = 5e-324
CHUNK = 256


@njit(inline="always")
def _apart(gap):
    return gap if gap > 0.0 else TINY


@njit(inline="always")
def _meeting(ra, rb):
    """Where two touching balls (or sphere-swept cores) meet, as a fraction of the way
    from A's centre to B's: ra / (ra + rb), with an infinite radius taking it all."""
    if ra == np.inf:
        return 1.0
    if rb == np.inf:
        return 0.0
    return ra / (ra + rb) if ra + rb > 0.0 else 0.5


# -- closed forms, any dimension ------------------------------------------------------


@njit(cache=True, nogil=True)
def sphere_sphere(sa, ia, sb, ib, out_d, pa, pb):
    """Centre to centre less both radii; a common point on the centre line at
    ra / (ra + rb) from A's centre, which lies in both balls whenever they meet."""
    dim = sa.center.shape[1]
    for n in range(len(ia)):
        i, j = ia[n], ib[n]
        ra, rb = sa.radius[i], sb.radius[j]
        if ball_overlap(sa.center, i, ra, sb.center, j, rb):
            t = _meeting(ra, rb)
            out_d[n] = 0.0
            for k in range(dim):
                x = sa.center[i, k] + t * (sb.center[j, k] - sa.center[i, k])
                pa[n, k] = x
                pb[n, k] = x
            continue
        m = 0.0
        for k in range(dim):
            m = max(m, abs(sb.center[j, k] - sa.center[i, k]))
        s = 0.0
        for k in range(dim):
            e = (sb.center[j, k] - sa.center[i, k]) / m
            s += e * e
        d = m * math.sqrt(s)
        out_d[n] = _apart(d - (ra + rb))
        for k in range(dim):
            u = (sb.center[j, k] - sa.center[i, k]) / d
            pa[n, k] = sa.center[i, k] + ra * u
            pb[n, k] = sb.center[j, k] - rb * u


@njit(inline="always")
def _common(lo, hi):
    """A point of the closed interval [lo, hi] (lo <= hi, either may be infinite)."""
    if math.isfinite(lo) and math.isfinite(hi):
        return min(max(0.5 * lo + 0.5 * hi, lo), hi)
    if math.isfinite(lo):
        return lo
    if math.isfinite(hi):
        return hi
    return 0.0


@njit(cache=True, nogil=True)
def aabb_aabb(ba, ia, bb, ib, out_d, pa, pb):
    """Per axis the gap between the intervals (Ericson, RTCD 5.1.3 for both boxes):
    the distance is the norm of the gaps, the points the facing sides where there is a
    gap and the middle of the shared interval where there is none."""
    dim = ba.shape[2]
    for n in range(len(ia)):
        i, j = ia[n], ib[n]
        m = 0.0
        for k in range(dim):
            la, ha, lb, hb = ba[i, 0, k], ba[i, 1, k], bb[j, 0, k], bb[j, 1, k]
            if lb > ha:
                g = lb - ha
                pa[n, k], pb[n, k] = ha, lb
            elif la > hb:
                g = la - hb
                pa[n, k], pb[n, k] = la, hb
            else:
                g = 0.0
                x = _common(max(la, lb), min(ha, hb))
                pa[n, k], pb[n, k] = x, x
            m = max(m, g)
        if m == 0.0:
            out_d[n] = 0.0
            continue
        s = 0.0
        for k in range(dim):
            e = (pb[n, k] - pa[n, k]) / m
            s += e * e
        out_d[n] = m * math.sqrt(s)


@njit(cache=True, nogil=True)
def sphere_aabb_pairs(s, ia, boxes, ib, out_d, pa, pb):
    """The box's closest point to the centre (clamp per axis, RTCD 5.1.3); the mixed
    overlap predicate decides 0, and that point is then the common point."""
    dim = boxes.shape[2]
    for n in range(len(ia)):
        i, j = ia[n], ib[n]
        m = 0.0
        for k in range(dim):
            c = s.center[i, k]
            q = min(max(c, boxes[j, 0, k]), boxes[j, 1, k])
            pb[n, k] = q
            m = max(m, abs(c - q))
        if sphere_aabb(s, i, boxes, j):
            out_d[n] = 0.0
            for k in range(dim):
                pa[n, k] = pb[n, k]
            continue
        t = 0.0
        for k in range(dim):
            e = (s.center[i, k] - pb[n, k]) / m
            t += e * e
        d = m * math.sqrt(t)
        r = s.radius[i]
        out_d[n] = _apart(d - r)
        for k in range(dim):
            pa[n, k] = s.center[i, k] + r * (pb[n, k] - s.center[i, k]) / d


@njit(cache=True, nogil=True)
def sphere_obb_pairs(s, ia, o, ib, out_d, pa, pb):
    """The clamp in the box's frame (RTCD 5.1.4); the mixed predicate decides 0."""
    for n in range(len(ia)):
        i, j = ia[n], ib[n]
        dx = s.center[i, 0] - o.center[j, 0]
        dy = s.center[i, 1] - o.center[j, 1]
        dz = s.center[i, 2] - o.center[j, 2]
        rot = o.rot
        e0 = e1 = e2 = 0.0
        q0 = q1 = q2 = 0.0
        for c in range(3):
            u = dx * rot[j, 0, c] + dy * rot[j, 1, c] + dz * rot[j, 2, c]
            h = o.half[j, c]
            q = min(max(u, -h), h)
            if c == 0:
                q0, e0 = q, u - q
            elif c == 1:
                q1, e1 = q, u - q
            else:
                q2, e2 = q, u - q
        for k in range(3):
            pb[n, k] = (
                o.center[j, k]
                + rot[j, k, 0] * q0
                + rot[j, k, 1] * q1
                + (rot[j, k, 2] * q2)
            )
        if sphere_obb(s, i, o, j):
            out_d[n] = 0.0
            for k in range(3):
                pa[n, k] = pb[n, k]
            continue
        m = max(abs(e0), abs(e1), abs(e2))
        d = m * math.sqrt((e0 / m) ** 2 + (e1 / m) ** 2 + (e2 / m) ** 2)
        r = s.radius[i]
        out_d[n] = _apart(d - r)
        for k in range(3):
            w = (rot[j, k, 0] * e0 + rot[j, k, 1] * e1 + rot[j, k, 2] * e2) / d
            pa[n, k] = s.center[i, k] - r * w


# -- GJK pairs (3D) --------------------------------------------------------------------


@njit(inline="always")
def _gjk_pair(sa, i, sb, j, ws, out_d, pa, pb, n):
    """GJK (``_kernels.gjk``) on the cores of shape i of ``sa`` and j of ``sb`` (boxes,
    hulls, sphere centres), then the sphere radii; within ``TOUCH`` x scale is 0."""
    sc = scale(sa, i, sb, j)
    tol = TOUCH * sc
    status, m, vx, vy, vz = gjk(sa, i, sb, j, ws, sc, np.inf)
    ax, ay, az, bx, by, bz = witnesses(ws, m)
    ra, rb = sa.radius[i], sb.radius[j]
    d = math.sqrt(vx * vx + vy * vy + vz * vz)
    if status == OVERLAP or d == 0.0:
        out_d[n] = 0.0
        px, py, pz = 0.5 * (ax + bx), 0.5 * (ay + by), 0.5 * (az + bz)
    elif d - (ra + rb) <= tol:
        out_d[n] = 0.0
        w = _meeting(ra, rb)
        px, py, pz = ax + w * (bx - ax), ay + w * (by - ay), az + w * (bz - az)
    else:
        out_d[n] = d - (ra + rb)
        ux, uy, uz = -vx / d, -vy / d, -vz / d  # from A's core towards B's
        pa[n, 0], pa[n, 1], pa[n, 2] = ax + ra * ux, ay + ra * uy, az + ra * uz
        pb[n, 0], pb[n, 1], pb[n, 2] = bx - rb * ux, by - rb * uy, bz - rb * uz
        return
    pa[n, 0], pa[n, 1], pa[n, 2] = px, py, pz
    pb[n, 0], pb[n, 1], pb[n, 2] = px, py, pz


@njit(cache=True, nogil=True)
def gjk_pairs(sa, ia, sb, ib, out_d, pa, pb):
    """Pairs one after another (``sa``, ``sb``: ``hitbox.convex.Shapes`` of the
    volumes)."""
    ws = np.zeros((9, 10))
    for n in range(len(ia)):
        _gjk_pair(sa, ia[n], sb, ib[n], ws, out_d, pa, pb, n)


# convex_pairs.query_parallel's chunked loop: its own, as the rows it writes differ
@njit(cache=True, nogil=True, parallel=True)
def gjk_pairs_parallel(sa, ia, sb, ib, out_d, pa, pb):
    """:func:`gjk_pairs` over chunks of CHUNK pairs spread across threads."""
    total = len(ia)
    chunks = (total + CHUNK - 1) // CHUNK
    for c in prange(chunks):
        ws = np.zeros((9, 10))
        for n in range(c * CHUNK, min(total, (c + 1) * CHUNK)):
            _gjk_pair(sa, ia[n], sb, ib[n], ws, out_d, pa, pb, n)


# -- k-DOP vertices --------------------------------------------------------------------


@njit(inline="always")
def _vertex_tol(kdops, i):
    """1e-12 of the largest bound of k-DOP i: the distance within which a point counts
    as on a slab's plane, and two vertices as one."""
    mag = 0.0
    for k in range(kdops.shape[2]):
        mag = max(mag, abs(kdops[i, 0, k]), abs(kdops[i, 1, k]))
    return 1e-12 * mag


# The vertices of {x : lo <= axes @ x <= hi}: every three planes of independent
# directions meet in one point (Cramer's rule with the table's integer cofactors),
# kept if it lies in every slab (Klosowski et al. 1998 define k-DOPs by these slabs).
@njit(cache=True, nogil=True)
def kdop_vertices_brute(kdops, axes, triples, cof, det, out, counts):
    """Slow twin of :func:`kdop_vertices`: distinct vertices of each k-DOP into
    ``out[i, :counts[i]]`` (``out (N, V, 3)``).

    ``triples (T, 3)`` are the direction triples with ``det[t] != 0`` and cofactor rows
    ``cof (T, 3, 3)``: x = sum_r d_r cof[t, r] / det[t] for bounds d_r of the three
    slabs. A point is kept if it lies within 1e-12 of the bounds' magnitude (times the
    direction's length) of every slab, and merged with a kept point within that distance
    per coordinate: flat k-DOPs (lo == hi) and points where more than three planes meet
    give each vertex once. ``counts[i]`` may exceed V: then only V are stored and the
    caller must ask again with room for all.
    """
    ns = axes.shape[0]
    room = out.shape[1]
    norms = np.empty(ns)
    for k in range(ns):
        norms[k] = math.sqrt(axes[k, 0] ** 2 + axes[k, 1] ** 2 + axes[k, 2] ** 2)
    for i in range(len(kdops)):
        tol = _vertex_tol(kdops, i)
        cnt = 0
        for t in range(len(triples)):
            p, q, r = triples[t, 0], triples[t, 1], triples[t, 2]
            for sides in range(8):
                d0 = kdops[i, sides & 1, p]
                d1 = kdops[i, (sides >> 1) & 1, q]
                d2 = kdops[i, (sides >> 2) & 1, r]
                x = (d0 * cof[t, 0, 0] + d1 * cof[t, 1, 0] + d2 * cof[t, 2, 0]) / det[t]
                y = (d0 * cof[t, 0, 1] + d1 * cof[t, 1, 1] + d2 * cof[t, 2, 1]) / det[t]
                z = (d0 * cof[t, 0, 2] + d1 * cof[t, 1, 2] + d2 * cof[t, 2, 2]) / det[t]
                inside = True
                for k in range(ns):
                    proj = axes[k, 0] * x + axes[k, 1] * y + axes[k, 2] * z
                    slack = tol * norms[k]
                    if proj < kdops[i, 0, k] - slack or proj > kdops[i, 1, k] + slack:
                        inside = False
                        break
                if not inside:
                    continue
                seen = False
                for v in range(min(cnt, room)):
                    if (
                        abs(out[i, v, 0] - x) <= tol
                        and abs(out[i, v, 1] - y) <= tol
                        and abs(out[i, v, 2] - z) <= tol
                    ):
                        seen = True
                        break
                if seen:
                    continue
                if cnt < room:
                    out[i, cnt, 0], out[i, cnt, 1], out[i, cnt, 2] = x, y, z
                cnt += 1
        counts[i] = cnt


_CAP = 256  # vertices a clip may hold; more (never seen) sends the k-DOP to the twin


@njit(inline="always")
def _dirs(mask, ns):
    """The directions (not sides) of a plane mask, as a bit set."""
    return (mask | (mask >> ns)) & ((1 << ns) - 1)


@njit(inline="always")
def _popcount_ge2(x):
    x &= x - 1
    return x != 0


# Polytope clipping (Sutherland-Hodgman in 3D, as in Ericson, RTCD 8.3.4, on a vertex
# set): each vertex carries the bit set of the bounding planes through it, and two
# vertices span an edge when they share planes of two directions (for a convex polytope
# the meeting line of two planes holds at most one edge).
@njit(cache=True, nogil=True)
def kdop_vertices(kdops, axes, out, counts):
    """Vertices of each k-DOP by clipping its box by the other slabs' planes.

    Start from the 8 corners of the x, y, z slabs, then per remaining plane keep the
    vertices inside (within 1e-12 of the bounds' magnitude, those within it gaining the
    plane's bit) and add the points where edges from inside to outside cross it. Points
    within that tolerance merge (their plane sets joined), so flat and point-like
    k-DOPs give each vertex once. ``counts[i]`` is the number stored in
    ``out[i, :counts[i]]``, 0 when the slabs meet in no point, and -1 when the k-DOP
    needs more room than ``out`` has (the caller then asks :func:`kdop_vertices_brute`).
    """
    ns = axes.shape[0]
    room = out.shape[1]
    vx = np.empty((2, _CAP, 3))
    vm = np.zeros((2, _CAP), np.int64)
    sv = np.empty(_CAP)
    for i in range(len(kdops)):
        tol = _vertex_tol(kdops, i)
        cur = 0
        cnt = 0
        for c in range(8):
            sx, sy, sz = c & 1, (c >> 1) & 1, (c >> 2) & 1
            cnt = _add(vx, vm, cur, cnt, kdops[i, sx, 0], kdops[i, sy, 1],
                       kdops[i, sz, 2],
                       (1 << (sx * ns)) | (1 << (sy * ns + 1)) | (1 << (sz * ns + 2)),
                       tol)  # fmt: skip
        for k in range(3, ns):
            if cnt <= 0:
                break
            ax, ay, az = axes[k, 0], axes[k, 1], axes[k, 2]
            slack = tol * math.sqrt(ax * ax + ay * ay + az * az)
            for side in range(2):
                bit = 1 << (side * ns + k)
                n_out = 0
                for v in range(cnt):
                    p = ax * vx[cur, v, 0] + ay * vx[cur, v, 1] + az * vx[cur, v, 2]
                    s = p - kdops[i, 1, k] if side == 1 else kdops[i, 0, k] - p
                    sv[v] = s
                    if s > slack:
                        n_out += 1
                    elif s >= -slack:
                        vm[cur, v] |= bit
                if n_out == 0:
                    continue
                nxt = 1 - cur
                m = 0
                for v in range(cnt):  # kept vertices are distinct already: copied
                    if sv[v] <= slack:
                        for c in range(3):
                            vx[nxt, m, c] = vx[cur, v, c]
                        vm[nxt, m] = vm[cur, v]
                        m += 1
                for w in range(cnt):
                    if sv[w] <= slack:
                        continue
                    for u in range(cnt):
                        if sv[u] >= -slack or m < 0:
                            continue
                        shared = vm[cur, u] & vm[cur, w]
                        if not _popcount_ge2(_dirs(shared, ns)):
                            continue
                        t = sv[u] / (sv[u] - sv[w])
                        m = _add(vx, vm, nxt, m,
                                 vx[cur, u, 0] + t * (vx[cur, w, 0] - vx[cur, u, 0]),
                                 vx[cur, u, 1] + t * (vx[cur, w, 1] - vx[cur, u, 1]),
                                 vx[cur, u, 2] + t * (vx[cur, w, 2] - vx[cur, u, 2]),
                                 shared | bit, tol)  # fmt: skip
                cur, cnt = nxt, m
                if cnt <= 0:
                    break
        if cnt > room or cnt < 0:
            counts[i] = -1
            continue
        for v in range(cnt):
            out[i, v, 0], out[i, v, 1], out[i, v, 2] = (
                vx[cur, v, 0],
                vx[cur, v, 1],
                vx[cur, v, 2],
            )
        counts[i] = cnt


@njit(inline="always")
def _add(vx, vm, b, cnt, x, y, z, mask, tol):
    """Add a vertex to buffer b (merging with one within tol); the new count, -1 when
    full (and stays -1)."""
    if cnt < 0:
        return cnt
    for v in range(cnt):
        if (
            abs(vx[b, v, 0] - x) <= tol
            and abs(vx[b, v, 1] - y) <= tol
            and abs(vx[b, v, 2] - z) <= tol
        ):
            vm[b, v] |= mask
            return cnt
    if cnt >= _CAP:
        return -1
    vx[b, cnt, 0], vx[b, cnt, 1], vx[b, cnt, 2] = x, y, z
    vm[b, cnt] = mask
    return cnt + 1
