"""Node volumes of a built BVH, fitted to the points under each node (SPEC §8).

Every kernel takes the points already in slot order, ``slot_pts (N, K, 3)``, and the flat
topology; node ``m`` covers the contiguous slots ``[span_lo[m], span_hi[m])``. Children
follow their parents, so a reversed loop over nodes runs bottom-up (no parent array).

Slab kinds (AABB, k-DOP) are exact: leaves from their points, inner nodes by union.
Spheres and OBBs enclose every point under the node: fitted per node from its points, the
radius or extents measured from every point, so nothing is left out by construction order.
"""

import numpy as np
from numba import njit

from hitbox._kernels.covariance import (  # noqa: F401 (bvh_fit_obb imports them here)
    _unit_cross,
    eigvecs_sym3,
    moment_sums,
)

#: Relative padding of sphere radii and OBB extents, well above rounding in their fit, so
#: a point on the boundary stays inside when re-measured (and touching contacts stay
#: found).
PAD = 1e-12


@njit(cache=True, nogil=True)
def slot_points(points, order):
    """``points[order]`` as a new C-contiguous array (one sequential pass)."""
    out = np.empty((len(order), points.shape[1], points.shape[2]))
    for s in range(len(order)):
        p = order[s]
        for v in range(points.shape[1]):
            for k in range(points.shape[2]):
                out[s, v, k] = points[p, v, k]
    return out


@njit(cache=True, nogil=True)
def spans(node_first, node_count, span_lo, span_hi):
    """Slot run [span_lo[m], span_hi[m]) of every node, bottom-up."""
    for m in range(len(node_first) - 1, -1, -1):
        f = node_first[m]
        if node_count[m] > 0:
            span_lo[m] = f
            span_hi[m] = f + node_count[m]
        else:
            span_lo[m] = span_lo[f]
            span_hi[m] = span_hi[f + 1]


# -- slab kinds --------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def fit_boxes(slot_pts, node_first, node_count, node_box, slot_box):
    """Exact AABB of every slot's points and of every node (union of its children)."""
    n_pts = slot_pts.shape[1]
    for s in range(len(slot_pts)):
        for k in range(3):
            lo = np.inf
            hi = -np.inf
            for v in range(n_pts):
                lo = min(lo, slot_pts[s, v, k])
                hi = max(hi, slot_pts[s, v, k])
            slot_box[s, 0, k] = lo
            slot_box[s, 1, k] = hi
    for m in range(len(node_first) - 1, -1, -1):
        f = node_first[m]
        if node_count[m] > 0:
            for k in range(3):
                lo = np.inf
                hi = -np.inf
                for s in range(f, f + node_count[m]):
                    lo = min(lo, slot_box[s, 0, k])
                    hi = max(hi, slot_box[s, 1, k])
                node_box[m, 0, k] = lo
                node_box[m, 1, k] = hi
        else:
            for k in range(3):
                node_box[m, 0, k] = min(node_box[f, 0, k], node_box[f + 1, 0, k])
                node_box[m, 1, k] = max(node_box[f, 1, k], node_box[f + 1, 1, k])


@njit(cache=True, nogil=True)
def fit_kdops(slot_pts, axes, node_first, node_count, out):
    """Exact k-DOP of every node along ``axes`` (K/2, 3): leaves project their points,
    inner nodes take the union. Projections sum x, y, z terms in that order, as
    ``kdop.fit`` does, so both give the same bits."""
    n_pts = slot_pts.shape[1]
    n_axes = len(axes)
    for m in range(len(node_first) - 1, -1, -1):
        f = node_first[m]
        if node_count[m] > 0:
            for a in range(n_axes):
                out[m, 0, a] = np.inf
                out[m, 1, a] = -np.inf
            for s in range(f, f + node_count[m]):
                for v in range(n_pts):
                    x = slot_pts[s, v, 0]
                    y = slot_pts[s, v, 1]
                    z = slot_pts[s, v, 2]
                    for a in range(n_axes):
                        p = axes[a, 0] * x + axes[a, 1] * y + axes[a, 2] * z
                        out[m, 0, a] = min(out[m, 0, a], p)
                        out[m, 1, a] = max(out[m, 1, a], p)
        else:
            for a in range(n_axes):
                out[m, 0, a] = min(out[f, 0, a], out[f + 1, 0, a])
                out[m, 1, a] = max(out[f, 1, a], out[f + 1, 1, a])


# -- spheres and OBBs: shared pieces -----------------------------------------------------

#: Nodes over at most this many slots read all their points; larger ones search their
#: subtree by branch and bound (fewer points, more bookkeeping per node).
DIRECT_SLOTS = 32

#: OBB nodes over at most this many slots also try frames from their extreme points
#: (most of the query gain of a larger limit, at no build cost: benchmarks/README.md).
FRAME_SLOTS = 8


@njit
def _copy_point(slot_pts, j, ext, m, r):
    """ext[m, r] = point j of slot_pts (j: slot * points per slot + point)."""
    n_pts = slot_pts.shape[1]
    s, v = j // n_pts, j % n_pts
    for q in range(3):
        ext[m, r, q] = slot_pts[s, v, q]


@njit
def _world_extremes(slot_pts, node_first, node_count, m, ext):
    """ext[m, 2k] / ext[m, 2k + 1]: a point of node m with the least / greatest coordinate
    k; leaves from their points, inner nodes from their children's (bottom-up)."""
    f = node_first[m]
    if node_count[m] > 0:
        range_extremes(slot_pts, f, f + node_count[m], ext, m)
    else:
        merge_extremes(ext, f, f + 1, m)


@njit
def range_extremes(slot_pts, lo_s, hi_s, ext, m):
    """ext[m, 2k] / ext[m, 2k + 1]: the first point of slots [lo_s, hi_s) (in slot order)
    with the least / greatest coordinate k."""
    # the winners' values and (slot, point) in scalars, copied once at the end:
    # through ext in memory every test read it again after the copies
    n_pts = slot_pts.shape[1]
    lo0, lo1, lo2 = slot_pts[lo_s, 0, 0], slot_pts[lo_s, 0, 1], slot_pts[lo_s, 0, 2]
    hi0, hi1, hi2 = lo0, lo1, lo2
    il0 = il1 = il2 = ih0 = ih1 = ih2 = lo_s * n_pts
    for s in range(lo_s, hi_s):
        for v in range(n_pts):
            x, y, z = slot_pts[s, v, 0], slot_pts[s, v, 1], slot_pts[s, v, 2]
            j = s * n_pts + v
            if x < lo0:
                lo0, il0 = x, j
            if x > hi0:
                hi0, ih0 = x, j
            if y < lo1:
                lo1, il1 = y, j
            if y > hi1:
                hi1, ih1 = y, j
            if z < lo2:
                lo2, il2 = z, j
            if z > hi2:
                hi2, ih2 = z, j
    _copy_point(slot_pts, il0, ext, m, 0)
    _copy_point(slot_pts, ih0, ext, m, 1)
    _copy_point(slot_pts, il1, ext, m, 2)
    _copy_point(slot_pts, ih1, ext, m, 3)
    _copy_point(slot_pts, il2, ext, m, 4)
    _copy_point(slot_pts, ih2, ext, m, 5)


@njit
def merge_extremes(ext, a, b, m):
    """ext[m, 0:6]: the extremes of rows a and b (ties: row a's, the earlier slots)."""
    for k in range(3):
        c = a if ext[a, 2 * k, k] <= ext[b, 2 * k, k] else b
        for q in range(3):
            ext[m, 2 * k, q] = ext[c, 2 * k, q]
        c = a if ext[a, 2 * k + 1, k] >= ext[b, 2 * k + 1, k] else b
        for q in range(3):
            ext[m, 2 * k + 1, q] = ext[c, 2 * k + 1, q]


@njit
def _box_far2(node_box, y, c0, c1, c2):
    """Squared distance from (c0, c1, c2) to the farthest point of box y."""
    d0 = max(abs(c0 - node_box[y, 0, 0]), abs(c0 - node_box[y, 1, 0]))
    d1 = max(abs(c1 - node_box[y, 0, 1]), abs(c1 - node_box[y, 1, 1]))
    d2 = max(abs(c2 - node_box[y, 0, 2]), abs(c2 - node_box[y, 1, 2]))
    return d0 * d0 + d1 * d1 + d2 * d2


@njit
def _far_bound2(node_box, center, radius, y, c0, c1, c2):
    """An upper bound on the squared distance from c to every point under node y: the
    smaller of the bounds from y's box and from y's sphere."""
    d0 = c0 - center[y, 0]
    d1 = c1 - center[y, 1]
    d2 = c2 - center[y, 2]
    fs = np.sqrt(d0 * d0 + d1 * d1 + d2 * d2) + radius[y]
    return min(_box_far2(node_box, y, c0, c1, c2), fs * fs)


# -- spheres -----------------------------------------------------------------------------


@njit
def _sphere_points(slot_pts, lo, hi, cx, cy, cz, r2, n_cand):
    for s in range(lo, hi):
        for v in range(slot_pts.shape[1]):
            for c in range(n_cand):
                d0 = slot_pts[s, v, 0] - cx[c]
                d1 = slot_pts[s, v, 1] - cy[c]
                d2 = slot_pts[s, v, 2] - cz[c]
                r2[c] = max(r2[c], d0 * d0 + d1 * d1 + d2 * d2)


@njit(cache=True, nogil=True)
def fit_spheres(slot_pts, node_first, node_count, node_box, depth, center, radius):
    """A sphere around every node's points: three candidate centres, each with its exact
    radius (largest distance to the node's points); the smallest sphere wins.

    Centres: (a) the node's AABB centre; (b) the midpoint of the widest pair of
    axis-extreme points (Ritter 1990's starting diameter, Graphics Gems); (c) for inner
    nodes, the centre of the sphere around both children's spheres. Small nodes measure
    every point; large ones search their subtree by branch and bound: a child whose box
    and sphere (fitted already, bottom-up) cannot raise any candidate's radius is
    skipped, so upper nodes read few points, yet every radius is the exact maximum
    distance. Nodes without points get radius -1 (empty).
    """
    n_pts = slot_pts.shape[1]
    n_nodes = len(node_first)
    if n_pts == 0:
        center[:, :] = 0.0
        radius[:] = -1.0
        return
    ext = np.empty((n_nodes, 6, 3))
    span_lo = np.empty(n_nodes, np.intp)
    span_hi = np.empty(n_nodes, np.intp)
    spans(node_first, node_count, span_lo, span_hi)
    stack = np.empty(depth + 2, np.intp)
    cx = np.empty(3)
    cy = np.empty(3)
    cz = np.empty(3)
    r2 = np.empty(3)
    for m in range(n_nodes - 1, -1, -1):
        f = node_first[m]
        _world_extremes(slot_pts, node_first, node_count, m, ext)
        inner = node_count[m] == 0
        n_cand = 3 if inner else 2
        # (a)
        cx[0] = 0.5 * (node_box[m, 0, 0] + node_box[m, 1, 0])
        cy[0] = 0.5 * (node_box[m, 0, 1] + node_box[m, 1, 1])
        cz[0] = 0.5 * (node_box[m, 0, 2] + node_box[m, 1, 2])
        # (b)
        best = -1.0
        kb = 0
        for k in range(3):
            d2 = 0.0
            for q in range(3):
                d = ext[m, 2 * k, q] - ext[m, 2 * k + 1, q]
                d2 += d * d
            if d2 > best:
                best = d2
                kb = k
        cx[1] = 0.5 * (ext[m, 2 * kb, 0] + ext[m, 2 * kb + 1, 0])
        cy[1] = 0.5 * (ext[m, 2 * kb, 1] + ext[m, 2 * kb + 1, 1])
        cz[1] = 0.5 * (ext[m, 2 * kb, 2] + ext[m, 2 * kb + 1, 2])
        # (c)
        if inner:
            u0 = center[f + 1, 0] - center[f, 0]
            u1 = center[f + 1, 1] - center[f, 1]
            u2 = center[f + 1, 2] - center[f, 2]
            dist = np.sqrt(u0 * u0 + u1 * u1 + u2 * u2)
            rl = radius[f]
            rr = radius[f + 1]
            if dist + rr <= rl:
                cx[2], cy[2], cz[2] = center[f, 0], center[f, 1], center[f, 2]
            elif dist + rl <= rr:
                cx[2], cy[2], cz[2] = center[f + 1, 0], center[f + 1, 1], center[f + 1, 2]
            else:
                t = 0.5 * (dist + rr - rl) / dist
                cx[2] = center[f, 0] + u0 * t
                cy[2] = center[f, 1] + u1 * t
                cz[2] = center[f, 2] + u2 * t
        for c in range(n_cand):  # seed with the six extreme points (points of the node)
            r2[c] = 0.0
            for e in range(6):
                d0 = ext[m, e, 0] - cx[c]
                d1 = ext[m, e, 1] - cy[c]
                d2 = ext[m, e, 2] - cz[c]
                r2[c] = max(r2[c], d0 * d0 + d1 * d1 + d2 * d2)
        if node_count[m] > 0 or span_hi[m] - span_lo[m] <= DIRECT_SLOTS:
            _sphere_points(slot_pts, span_lo[m], span_hi[m], cx, cy, cz, r2, n_cand)
        else:
            stack[0] = m
            top = 1
            while top > 0:
                top -= 1
                x = stack[top]
                g = node_first[x]
                if node_count[x] > 0:
                    _sphere_points(slot_pts, g, g + node_count[x], cx, cy, cz, r2, n_cand)
                    continue
                for y in range(g, g + 2):
                    for c in range(n_cand):
                        if (
                            _far_bound2(node_box, center, radius, y, cx[c], cy[c], cz[c])
                            > r2[c]
                        ):
                            stack[top] = y
                            top += 1
                            break
        c_best = 0
        for c in range(1, n_cand):
            if r2[c] < r2[c_best]:
                c_best = c
        r = np.sqrt(r2[c_best])
        center[m, 0] = cx[c_best]
        center[m, 1] = cy[c_best]
        center[m, 2] = cz[c_best]
        radius[m] = r + PAD * (r + abs(cx[c_best]) + abs(cy[c_best]) + abs(cz[c_best]))


# -- oriented boxes ----------------------------------------------------------------------


@njit
def _obb_interval(center, half, rot, y, mu0, mu1, mu2, a0, a1, a2):
    """Projection of OBB y on the unit axis a, relative to mu: (lo, hi)."""
    c = (center[y, 0] - mu0) * a0 + (center[y, 1] - mu1) * a1 + (center[y, 2] - mu2) * a2
    r = 0.0
    for q in range(3):
        r += half[y, q] * abs(rot[y, 0, q] * a0 + rot[y, 1, q] * a1 + rot[y, 2, q] * a2)
    return c - r, c + r


@njit
def _box_interval(node_box, y, mu0, mu1, mu2, a0, a1, a2):
    """Projection of box y on the unit axis a, relative to mu: (lo, hi)."""
    c0 = 0.5 * (node_box[y, 0, 0] + node_box[y, 1, 0]) - mu0
    c1 = 0.5 * (node_box[y, 0, 1] + node_box[y, 1, 1]) - mu1
    c2 = 0.5 * (node_box[y, 0, 2] + node_box[y, 1, 2]) - mu2
    c = c0 * a0 + c1 * a1 + c2 * a2
    r = (
        0.5 * (node_box[y, 1, 0] - node_box[y, 0, 0]) * abs(a0)
        + 0.5 * (node_box[y, 1, 1] - node_box[y, 0, 1]) * abs(a1)
        + 0.5 * (node_box[y, 1, 2] - node_box[y, 0, 2]) * abs(a2)
    )
    return c - r, c + r


@njit
def _project_slots(slot_pts, lo_s, hi_s, mu0, mu1, mu2, v, lo, hi, seeds, m):
    """Project the points of slots [lo_s, hi_s) on the columns of v (relative to mu),
    widening lo/hi; seeds[m, 6 + 2a] / seeds[m, 7 + 2a] take the point that last
    widened lo[a] / hi[a] (first wins ties); m < 0: none kept. ``seeds`` row m is not
    among those read.

    lo/hi and the winners' indices in scalars, the points copied once at the end:
    through the arrays every test reloaded them after each copy."""
    n_pts = slot_pts.shape[1]
    v00, v10, v20 = v[0, 0], v[1, 0], v[2, 0]
    v01, v11, v21 = v[0, 1], v[1, 1], v[2, 1]
    v02, v12, v22 = v[0, 2], v[1, 2], v[2, 2]
    lo0, lo1, lo2 = lo[0], lo[1], lo[2]
    hi0, hi1, hi2 = hi[0], hi[1], hi[2]
    jl0 = jl1 = jl2 = jh0 = jh1 = jh2 = -1
    for s in range(lo_s, hi_s):
        for q in range(n_pts):
            d0 = slot_pts[s, q, 0] - mu0
            d1 = slot_pts[s, q, 1] - mu1
            d2 = slot_pts[s, q, 2] - mu2
            j = s * n_pts + q
            u0 = d0 * v00 + d1 * v10 + d2 * v20
            u1 = d0 * v01 + d1 * v11 + d2 * v21
            u2 = d0 * v02 + d1 * v12 + d2 * v22
            lo0, jl0, hi0, jh0 = _widen(u0, lo0, jl0, hi0, jh0, j)
            lo1, jl1, hi1, jh1 = _widen(u1, lo1, jl1, hi1, jh1, j)
            lo2, jl2, hi2, jh2 = _widen(u2, lo2, jl2, hi2, jh2, j)
    lo[0], lo[1], lo[2] = lo0, lo1, lo2
    hi[0], hi[1], hi[2] = hi0, hi1, hi2
    if m < 0:
        return
    for r, j in ((6, jl0), (7, jh0), (8, jl1), (9, jh1), (10, jl2), (11, jh2)):
        if j >= 0:
            _copy_point(slot_pts, j, seeds, m, r)


@njit
def _widen(u, lo, j_lo, hi, j_hi, j):
    """A running least and greatest value with the index of each: first wins ties."""
    if u < lo:
        lo, j_lo = u, j
    if u > hi:
        hi, j_hi = u, j
    return lo, j_lo, hi, j_hi


@njit
def _extreme_frames(slot_pts, lo_s, hi_s, frames, ext, p):
    """Up to three candidate OBB frames from the points' extremes (the idea of Larsson &
    Kallberg's DiTO): the farthest pair among the extreme points along seven directions
    (the 14-DOP's: x, y, z, x + y + z, x + y - z, x - y + z, x - y - z)
    is a long edge, the point farthest from its line closes a large triangle, and each
    edge of that triangle with the triangle's normal is one frame (columns: edge,
    normal x edge, normal). Returns how many frames it wrote (0 for collinear points).
    ``ext`` (7, 2, 3) and ``p`` (3, 3) are scratch: the caller's, as this runs for most
    nodes of a tree."""
    n_pts = slot_pts.shape[1]
    if n_pts == 0 or hi_s <= lo_s:
        return 0
    # the 14 extremes' values and (slot, point) indices in scalars, the points copied
    # once at the end (through arrays every test reloaded them after each copy); the
    # seven directions written out: u = x * 1 + y * 0 + z * 0 rounds as x does
    lx = ly = lz = la = lb = lc = ld = np.inf
    hx = hy = hz = ha = hb = hc = hd = -np.inf
    jlx = jly = jlz = jla = jlb = jlc = jld = 0
    jhx = jhy = jhz = jha = jhb = jhc = jhd = 0
    for s in range(lo_s, hi_s):
        for q in range(n_pts):
            x, y, z = slot_pts[s, q, 0], slot_pts[s, q, 1], slot_pts[s, q, 2]
            j = s * n_pts + q
            lx, jlx, hx, jhx = _widen(x, lx, jlx, hx, jhx, j)
            ly, jly, hy, jhy = _widen(y, ly, jly, hy, jhy, j)
            lz, jlz, hz, jhz = _widen(z, lz, jlz, hz, jhz, j)
            la, jla, ha, jha = _widen((x + y) + z, la, jla, ha, jha, j)
            lb, jlb, hb, jhb = _widen((x + y) - z, lb, jlb, hb, jhb, j)
            lc, jlc, hc, jhc = _widen((x - y) + z, lc, jlc, hc, jhc, j)
            ld, jld, hd, jhd = _widen((x - y) - z, ld, jld, hd, jhd, j)
    for k, jl, jh in ((0, jlx, jhx), (1, jly, jhy), (2, jlz, jhz), (3, jla, jha),
                      (4, jlb, jhb), (5, jlc, jhc), (6, jld, jhd)):  # fmt: skip
        _copy_point(slot_pts, jl, ext, k, 0)
        _copy_point(slot_pts, jh, ext, k, 1)
    best = 0.0  # p: the triangle's corners, one per row
    for k in range(7):
        d0 = ext[k, 1, 0] - ext[k, 0, 0]
        d1 = ext[k, 1, 1] - ext[k, 0, 1]
        d2 = ext[k, 1, 2] - ext[k, 0, 2]
        d = d0 * d0 + d1 * d1 + d2 * d2
        if d > best:
            best = d
            for j in range(3):  # loops: a slice copy compiles broadcasting helpers
                p[0, j] = ext[k, 0, j]
                p[1, j] = ext[k, 1, j]
    if best == 0.0:
        return 0
    o0, o1, o2 = p[0, 0], p[0, 1], p[0, 2]
    e0, e1, e2 = p[1, 0] - o0, p[1, 1] - o1, p[1, 2] - o2
    far = 0.0
    j_far = 0
    for s in range(lo_s, hi_s):
        for q in range(n_pts):
            w0 = slot_pts[s, q, 0] - o0
            w1 = slot_pts[s, q, 1] - o1
            w2 = slot_pts[s, q, 2] - o2
            c0, c1, c2, c = _unit_cross(w0, w1, w2, e0, e1, e2)
            if c > far:
                far = c
                j_far = s * n_pts + q
    if not far > 0.0:
        return 0  # collinear points: no plane, and the covariance frame serves
    for c in range(3):
        p[2, c] = slot_pts[j_far // n_pts, j_far % n_pts, c]
    f0, f1, f2 = p[2, 0] - p[0, 0], p[2, 1] - p[0, 1], p[2, 2] - p[0, 2]
    n0, n1, n2, nn = _unit_cross(e0, e1, e2, f0, f1, f2)
    if not nn > 0.0:
        return 0
    inv = 1.0 / np.sqrt(nn)
    n0, n1, n2 = n0 * inv, n1 * inv, n2 * inv
    count = 0
    for k in range(3):
        a, b = k, (k + 1) % 3
        u0, u1, u2 = p[b, 0] - p[a, 0], p[b, 1] - p[a, 1], p[b, 2] - p[a, 2]
        # off the normal's line exactly, however thin the triangle (rounding can tilt
        # a nearly collinear triangle's normal towards its edges): orthonormal frames
        un = u0 * n0 + u1 * n1 + u2 * n2
        u0, u1, u2 = u0 - un * n0, u1 - un * n1, u2 - un * n2
        uu = u0 * u0 + u1 * u1 + u2 * u2
        if not uu > 0.0:
            continue
        inv = 1.0 / np.sqrt(uu)
        u0, u1, u2 = u0 * inv, u1 * inv, u2 * inv
        w0, w1, w2, ww = _unit_cross(n0, n1, n2, u0, u1, u2)
        if not ww > 0.0:
            continue
        inv = 1.0 / np.sqrt(ww)
        frames[count, 0, 0], frames[count, 1, 0], frames[count, 2, 0] = u0, u1, u2
        frames[count, 0, 1] = w0 * inv
        frames[count, 1, 1] = w1 * inv
        frames[count, 2, 1] = w2 * inv
        frames[count, 0, 2], frames[count, 1, 2], frames[count, 2, 2] = n0, n1, n2
        count += 1
    return count


@njit
def _frame_extents(slot_pts, lo_s, hi_s, mu0, mu1, mu2, v, lo, hi):
    """lo/hi of the points' projections, relative to mu, on the columns of v."""
    v00, v10, v20 = v[0, 0], v[1, 0], v[2, 0]
    v01, v11, v21 = v[0, 1], v[1, 1], v[2, 1]
    v02, v12, v22 = v[0, 2], v[1, 2], v[2, 2]
    lo0 = lo1 = lo2 = np.inf
    hi0 = hi1 = hi2 = -np.inf
    for s in range(lo_s, hi_s):
        for q in range(slot_pts.shape[1]):
            d0 = slot_pts[s, q, 0] - mu0
            d1 = slot_pts[s, q, 1] - mu1
            d2 = slot_pts[s, q, 2] - mu2
            u = d0 * v00 + d1 * v10 + d2 * v20
            lo0, hi0 = min(lo0, u), max(hi0, u)
            u = d0 * v01 + d1 * v11 + d2 * v21
            lo1, hi1 = min(lo1, u), max(hi1, u)
            u = d0 * v02 + d1 * v12 + d2 * v22
            lo2, hi2 = min(lo2, u), max(hi2, u)
    lo[0], lo[1], lo[2] = lo0, lo1, lo2
    hi[0], hi[1], hi[2] = hi0, hi1, hi2
