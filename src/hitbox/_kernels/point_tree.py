"""The view of a triangle BVH that the closest-point walks of many points take.

Four-wide nodes (Wald et al. 2008, "Getting rid of packets"; Embree's BVH4 collapse),
each lane with its node's exact AABB and its disk; each slot with its triangle's disk.
A disk is a centre c, a unit normal n, a radius r and a thickness h such that every
point q of what it holds has |q - c| <= r and |n . (q - c)| <= h. The squared distance
from p to anything it holds is then at least

    max(|n . (p - c)| - h, 0)^2 + max(|(p - c) - n (n . (p - c))| - r, 0)^2

(:func:`disk_d2`): near a curved surface's patch the disk is as thin as the patch is
flat, where the patch's box is as thick as it is wide, so far points open fewer nodes
and test fewer triangles. Disks are rounded up, and the walk allows their bound
:data:`DISK_SLACK` of slack on top, so rounding never prunes what a test of every
triangle would pick (:mod:`hitbox._kernels.closest`).
"""

import numpy as np
from numba import njit

#: The slack of the disk bound's test, in units of the squared sizes it is computed
#: from (see :func:`hitbox._kernels.closest._closest_wide_range`): some 2^12 times
#: both its rounding and the triangle distance's (a few eps each), far below any gap
#: it prunes.
DISK_SLACK = 2.0**-40
_LANES = 4
_NO_LANE = -(2**62)  # an unused lane's child
_UP = 1.0 + DISK_SLACK  # rounds a radius or a thickness up, past its rounding


@njit(inline="always")
def disk_d2(qx, qy, qz, nx, ny, nz, r, h):
    """(lower bound, |q|^2): the squared distance from p to what the disk (n, r, h)
    holds is at least the square of p's offset along n beyond h plus that of its
    offset across n beyond r, q = p - c (before rounding). Scalars only."""
    along = qx * nx + qy * ny + qz * nz
    qq = qx * qx + qy * qy + qz * qz
    a = max(abs(along) - h, 0.0)
    b = max(np.sqrt(max(qq - along * along, 0.0)) - r, 0.0)
    return a * a + b * b, qq


@njit(cache=True, nogil=True)
def slot_disks(tris):
    """(S, 8) float64 for the triangles of a (S, 3, 3) array: centroid c (3), unit
    normal n (3), radius r (the farthest vertex from c) and thickness h (the farthest
    vertex from the plane through c across n: n's rounding), r and h rounded up. A
    triangle of no area gets n = 0 and h = r: its disk is c's ball of radius r."""
    out = np.empty((len(tris), 8))
    for s in range(len(tris)):
        _fit(tris, s, s + 1, out[s])
    return out


@njit
def _fit(tris, lo, hi, disk):
    """Writes into ``disk`` the disk of the triangles lo..hi-1 (:func:`slot_disks`):
    the mean of their vertices, their area-weighted normal, and the farthest vertex
    from each; returns the normal before it was made unit."""
    cx, cy, cz = 0.0, 0.0, 0.0
    sx, sy, sz = 0.0, 0.0, 0.0
    for s in range(lo, hi):
        a, b, c = tris[s, 0], tris[s, 1], tris[s, 2]
        cx += a[0] + b[0] + c[0]
        cy += a[1] + b[1] + c[1]
        cz += a[2] + b[2] + c[2]
        ux, uy, uz = b[0] - a[0], b[1] - a[1], b[2] - a[2]
        vx, vy, vz = c[0] - a[0], c[1] - a[1], c[2] - a[2]
        sx += uy * vz - uz * vy
        sy += uz * vx - ux * vz
        sz += ux * vy - uy * vx
    k = 3.0 * (hi - lo)
    cx, cy, cz = cx / k, cy / k, cz / k
    nx, ny, nz = _unit(sx, sy, sz)
    r, h = 0.0, 0.0
    for s in range(lo, hi):
        for v in range(3):
            dx, dy, dz = tris[s, v, 0] - cx, tris[s, v, 1] - cy, tris[s, v, 2] - cz
            r = max(r, np.sqrt(dx * dx + dy * dy + dz * dz))
            h = max(h, abs(nx * dx + ny * dy + nz * dz))
    _store(disk, cx, cy, cz, nx, ny, nz, r, h)
    return sx, sy, sz


@njit(inline="always")
def _unit(x, y, z):
    """(x, y, z) made unit, or 0 when it has no length."""
    size = np.sqrt(x * x + y * y + z * z)
    if not size > 0.0:
        return 0.0, 0.0, 0.0
    return x / size, y / size, z / size


@njit(inline="always")
def _store(disk, cx, cy, cz, nx, ny, nz, r, h):
    """A disk's eight numbers, r and h rounded up; no normal: the ball of radius r."""
    r *= _UP
    h = h * _UP + DISK_SLACK * r if (nx != 0.0 or ny != 0.0 or nz != 0.0) else r
    disk[0], disk[1], disk[2], disk[3] = cx, cy, cz, nx
    disk[4], disk[5], disk[6], disk[7] = ny, nz, r, h


@njit(cache=True, nogil=True)
def node_disks(node_first, node_count, tris):
    """(N, 8) float64: each node's disk (:func:`slot_disks`'s layout), bottom up in
    linear time. A leaf's is fitted to its triangles' vertices; an inner node's centre
    is its children's, weighted by their slot counts, its normal their area-weighted
    normals' sum, and its r and h bound its children's disks: a child's point q has
    |q - c| <= |c_k - c| + r_k and |n . (q - c)| <= |n . (c_k - c)| + h_k |n . n_k| +
    r_k sin(n, n_k), the sine 1 for a child with no normal."""
    n = len(node_count)
    out = np.empty((n, 8))
    normal = np.empty((n, 3))  # the area-weighted normal sums
    weight = np.empty(n)  # slots below each node
    order = np.empty(n, np.intp)  # parents before children
    order[0], k, head = 0, 1, 0
    while head < k:
        m = order[head]
        head += 1
        if node_count[m] == 0:
            order[k], order[k + 1] = node_first[m], node_first[m] + 1
            k += 2
    for i in range(k - 1, -1, -1):
        m = order[i]
        f, c = node_first[m], node_count[m]
        if c > 0:
            normal[m, 0], normal[m, 1], normal[m, 2] = _fit(tris, f, f + c, out[m])
            weight[m] = c
            continue
        g = f + 1
        wf, wg = weight[f], weight[g]
        weight[m] = wf + wg
        cx = (out[f, 0] * wf + out[g, 0] * wg) / (wf + wg)
        cy = (out[f, 1] * wf + out[g, 1] * wg) / (wf + wg)
        cz = (out[f, 2] * wf + out[g, 2] * wg) / (wf + wg)
        sx, sy, sz = (
            normal[f, 0] + normal[g, 0],
            normal[f, 1] + normal[g, 1],
            normal[f, 2] + normal[g, 2],
        )
        normal[m, 0], normal[m, 1], normal[m, 2] = sx, sy, sz
        nx, ny, nz = _unit(sx, sy, sz)
        r, h = 0.0, 0.0
        for j in (f, g):
            dx, dy, dz = out[j, 0] - cx, out[j, 1] - cy, out[j, 2] - cz
            rj, hj = out[j, 6], out[j, 7]
            r = max(r, np.sqrt(dx * dx + dy * dy + dz * dz) + rj)
            kx, ky, kz = out[j, 3], out[j, 4], out[j, 5]
            cos = min(abs(nx * kx + ny * ky + nz * kz), 1.0)
            # |n x n_k| keeps a small angle's sine, which sqrt(1 - cos^2) rounds to 0;
            # sqrt(1 - cos^2) is 1 for a child with no normal (a ball), where |n x 0| is 0
            sx, sy, sz = ny * kz - nz * ky, nz * kx - nx * kz, nx * ky - ny * kx
            sin = max(np.sqrt(sx * sx + sy * sy + sz * sz), np.sqrt(1.0 - cos * cos))
            h = max(h, abs(nx * dx + ny * dy + nz * dz) + hj * cos + rj * sin)
        _store(out[m], cx, cy, cz, nx, ny, nz, r, h)
    return out


@njit(cache=True, nogil=True)
def wide_tree(node_box, node_first, node_count, node_disk):
    """(box, disk, child): a four-wide view of the binary tree, each wide node the up
    to four nodes below two levels of it. ``box[w]`` is (6, 4): lo x, y, z then hi x,
    y, z of the lanes, ``disk[w]`` (8, 4): their :func:`node_disks`, lane-minor, so that
    the four bounds vectorize; an unused lane is the empty box. ``child[w, l]`` is a
    wide node (>= 0) or ``-1 - m`` for binary leaf m."""
    n = len(node_count)
    cap = max(1, n // 2 + 1)
    box = np.empty((cap, 6, _LANES))
    disk = np.zeros((cap, 8, _LANES))
    child = np.full((cap, _LANES), _NO_LANE, np.int64)
    todo = np.empty(cap, np.int64)  # binary inner nodes still to make into wide nodes
    lanes = np.empty(_LANES, np.int64)
    todo[0] = 0
    n_w, head = 1, 0  # wide node w comes from binary node todo[w]
    if node_count[0] > 0:  # one leaf: one wide node of one lane
        lanes[0] = 0
        _lanes(box, disk, node_box, node_disk, 0, lanes, 1)
        child[0, 0] = -1
        return box[:1], disk[:1], child[:1]
    while head < n_w:
        m = todo[head]
        f = node_first[m]
        k = 0
        for c in (f, f + 1):  # each inner child gives its two children
            if node_count[c] == 0:
                lanes[k], lanes[k + 1] = node_first[c], node_first[c] + 1
                k += 2
            else:
                lanes[k] = c
                k += 1
        _lanes(box, disk, node_box, node_disk, head, lanes, k)
        for lane in range(k):
            c = lanes[lane]
            if node_count[c] > 0:
                child[head, lane] = -1 - c
            else:
                child[head, lane] = n_w
                todo[n_w] = c
                n_w += 1
        head += 1
    return box[:n_w], disk[:n_w], child[:n_w]


@njit
def _lanes(box, disk, node_box, node_disk, w, lanes, k):
    """Wide node w's lanes: the boxes and disks of binary nodes lanes[:k], the rest
    empty boxes."""
    for lane in range(_LANES):
        for a in range(3):
            if lane < k:
                box[w, a, lane] = node_box[lanes[lane], 0, a]
                box[w, 3 + a, lane] = node_box[lanes[lane], 1, a]
            else:
                box[w, a, lane] = np.inf
                box[w, 3 + a, lane] = -np.inf
        if lane < k:
            for j in range(8):
                disk[w, j, lane] = node_disk[lanes[lane], j]
