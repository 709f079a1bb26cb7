"""EPA: penetration depth and direction of two overlapping convex cores.

Started from GJK's final simplex (which holds the origin, or lies within the touching
tolerance of it), grown to a tetrahedron, then expanded towards the boundary of the
Minkowski difference A - B until the face nearest the origin is on that boundary.
"""

import math

import numpy as np
from numba import njit

from hitbox._kernels.gjk import witnesses
from hitbox._kernels.primitives import support_call

MAX_VERTS = 512
MAX_FACES = 2 * MAX_VERTS
# A face is final when the support point along its normal is within this of its plane,
# relative to the scale.
REL = 1e-13


@njit(cache=True, nogil=True)
def _add_vertex(va, vb, nv, sa, i, sb, j, dx, dy, dz):
    """Support point of A - B along d into slot nv of the vertex arrays."""
    ax, ay, az = support_call(sa, i, dx, dy, dz)
    bx, by, bz = support_call(sb, j, -dx, -dy, -dz)
    va[nv, 0], va[nv, 1], va[nv, 2] = ax, ay, az
    vb[nv, 0], vb[nv, 1], vb[nv, 2] = bx, by, bz


@njit(cache=True, nogil=True)
def _w(va, vb, p):
    return va[p, 0] - vb[p, 0], va[p, 1] - vb[p, 1], va[p, 2] - vb[p, 2]


@njit(cache=True, nogil=True)
def _set_face(va, vb, faces, normals, dist, f, p, q, r):
    """Face f = (p, q, r), counter-clockwise from outside; its unit normal and plane
    offset. A degenerate face gets offset inf, so it is never chosen."""
    px, py, pz = _w(va, vb, p)
    qx, qy, qz = _w(va, vb, q)
    rx, ry, rz = _w(va, vb, r)
    ux, uy, uz = qx - px, qy - py, qz - pz
    wx, wy, wz = rx - px, ry - py, rz - pz
    nx, ny, nz = uy * wz - uz * wy, uz * wx - ux * wz, ux * wy - uy * wx
    m = math.sqrt(nx * nx + ny * ny + nz * nz)
    faces[f, 0], faces[f, 1], faces[f, 2] = p, q, r
    if m == 0.0:
        normals[f, 0], normals[f, 1], normals[f, 2] = 0.0, 0.0, 0.0
        dist[f] = np.inf
        return
    nx, ny, nz = nx / m, ny / m, nz / m
    normals[f, 0], normals[f, 1], normals[f, 2] = nx, ny, nz
    dist[f] = nx * px + ny * py + nz * pz


@njit(cache=True, nogil=True)
def _seed(sa, i, sb, j, ws, n, va, vb, tol):
    """Grow GJK's simplex (n points in ws) to four affinely independent points of
    A - B holding the origin. Returns 4, or 0 with (nx, ny, nz) when A - B is flat (a
    point, segment or polygon): then the depth is 0 along n."""
    for p in range(n):
        va[p, 0], va[p, 1], va[p, 2] = ws[p, 3], ws[p, 4], ws[p, 5]
        vb[p, 0], vb[p, 1], vb[p, 2] = ws[p, 6], ws[p, 7], ws[p, 8]
    if n == 1:
        for d in range(6):
            dx = 1.0 if d == 0 else (-1.0 if d == 1 else 0.0)
            dy = 1.0 if d == 2 else (-1.0 if d == 3 else 0.0)
            dz = 1.0 if d == 4 else (-1.0 if d == 5 else 0.0)
            _add_vertex(va, vb, 1, sa, i, sb, j, dx, dy, dz)
            x0, y0, z0 = _w(va, vb, 0)
            x1, y1, z1 = _w(va, vb, 1)
            if (x1 - x0) ** 2 + (y1 - y0) ** 2 + (z1 - z0) ** 2 > tol * tol:
                n = 2
                break
        if n == 1:
            return 0, 0.0, 0.0, 1.0
    if n == 2:
        x0, y0, z0 = _w(va, vb, 0)
        x1, y1, z1 = _w(va, vb, 1)
        ex, ey, ez = x1 - x0, y1 - y0, z1 - z0
        e = math.sqrt(ex * ex + ey * ey + ez * ez)
        ex, ey, ez = ex / e, ey / e, ez / e
        # two unit vectors across the segment
        if abs(ex) <= abs(ey) and abs(ex) <= abs(ez):
            px, py, pz = 0.0, ez, -ey
        elif abs(ey) <= abs(ez):
            px, py, pz = -ez, 0.0, ex
        else:
            px, py, pz = ey, -ex, 0.0
        m = math.sqrt(px * px + py * py + pz * pz)
        px, py, pz = px / m, py / m, pz / m
        qx, qy, qz = ey * pz - ez * py, ez * px - ex * pz, ex * py - ey * px
        for d in range(6):
            c, s = math.cos(d * math.pi / 3.0), math.sin(d * math.pi / 3.0)
            _add_vertex(va, vb, 2, sa, i, sb, j, c * px + s * qx, c * py + s * qy,
                        c * pz + s * qz)  # fmt: skip
            x2, y2, z2 = _w(va, vb, 2)
            rx, ry, rz = x2 - x0, y2 - y0, z2 - z0
            t = rx * ex + ry * ey + rz * ez
            rx, ry, rz = rx - t * ex, ry - t * ey, rz - t * ez
            if rx * rx + ry * ry + rz * rz > tol * tol:
                n = 3
                break
        if n == 2:
            return 0, px, py, pz
    x0, y0, z0 = _w(va, vb, 0)
    x1, y1, z1 = _w(va, vb, 1)
    x2, y2, z2 = _w(va, vb, 2)
    if n == 3:
        ux, uy, uz = x1 - x0, y1 - y0, z1 - z0
        wx, wy, wz = x2 - x0, y2 - y0, z2 - z0
        nx, ny, nz = uy * wz - uz * wy, uz * wx - ux * wz, ux * wy - uy * wx
        m = math.sqrt(nx * nx + ny * ny + nz * nz)
        nx, ny, nz = nx / m, ny / m, nz / m
        _add_vertex(va, vb, 3, sa, i, sb, j, nx, ny, nz)
        x3, y3, z3 = _w(va, vb, 3)
        up = (x3 - x0) * nx + (y3 - y0) * ny + (z3 - z0) * nz
        _add_vertex(va, vb, 4, sa, i, sb, j, -nx, -ny, -nz)
        x4, y4, z4 = _w(va, vb, 4)
        down = -((x4 - x0) * nx + (y4 - y0) * ny + (z4 - z0) * nz)
        if max(up, down) <= tol:
            return 0, nx, ny, nz
        if down > up:
            for c in range(3):
                va[3, c], vb[3, c] = va[4, c], vb[4, c]
    return 4, 0.0, 0.0, 0.0


# From van den Bergen, Proximity Queries and Penetration Depth Computation on 3D Game
# Objects (GDC 2001), the expanding polytope algorithm.
@njit(cache=True, nogil=True)
def epa(sa, i, sb, j, ws, n, scale):
    """Penetration of the cores, from GJK's simplex (n points in ``ws``).

    Returns (depth, nx, ny, nz, ax, ay, az, bx, by, bz): ``n`` the unit normal from A
    to B (moving B by depth * n makes the cores touch), ``a`` on A and ``b`` on B with
    ``a - b = depth * n``. Exact for polytopes; curved cores stop within REL x scale or,
    after MAX_VERTS support points, take the depth along the best normal found (an upper
    bound that does separate the cores; ``b`` is then B's deepest point).
    """
    tol = REL * scale
    va = np.empty((MAX_VERTS, 3))
    vb = np.empty((MAX_VERTS, 3))
    faces = np.empty((MAX_FACES, 3), np.intp)
    normals = np.empty((MAX_FACES, 3))
    dist = np.empty(MAX_FACES)
    edges = np.empty((3 * MAX_FACES, 2), np.intp)
    removed = np.zeros(MAX_FACES, np.bool_)
    stack = np.empty(MAX_FACES, np.intp)
    got, fx, fy, fz = _seed(sa, i, sb, j, ws, n, va, vb, tol)
    if got == 0:  # flat A - B: any push off its plane (line, point) separates
        dx = sb.trans[j, 0] - sa.trans[i, 0]
        dy = sb.trans[j, 1] - sa.trans[i, 1]
        dz = sb.trans[j, 2] - sa.trans[i, 2]
        if fx * dx + fy * dy + fz * dz < 0.0:
            fx, fy, fz = -fx, -fy, -fz
        ax, ay, az, bx, by, bz = witnesses(ws, n)
        return 0.0, fx, fy, fz, ax, ay, az, bx, by, bz
    # orient the tetrahedron: face 0 = (0, 1, 2) must face away from vertex 3
    x0, y0, z0 = _w(va, vb, 0)
    x1, y1, z1 = _w(va, vb, 1)
    x2, y2, z2 = _w(va, vb, 2)
    x3, y3, z3 = _w(va, vb, 3)
    ux, uy, uz = x1 - x0, y1 - y0, z1 - z0
    wx, wy, wz = x2 - x0, y2 - y0, z2 - z0
    vol = (uy * wz - uz * wy) * (x3 - x0) + (uz * wx - ux * wz) * (y3 - y0) + (
        ux * wy - uy * wx) * (z3 - z0)  # fmt: skip
    if vol > 0.0:  # swap 1 and 2
        for c in range(3):
            va[1, c], va[2, c] = va[2, c], va[1, c]
            vb[1, c], vb[2, c] = vb[2, c], vb[1, c]
    _set_face(va, vb, faces, normals, dist, 0, 0, 1, 2)
    _set_face(va, vb, faces, normals, dist, 1, 0, 3, 1)
    _set_face(va, vb, faces, normals, dist, 2, 0, 2, 3)
    _set_face(va, vb, faces, normals, dist, 3, 1, 3, 2)
    nf, nv = 4, 4
    converged = False
    # the least depth seen that separates the cores: a face's normal n and the support
    # of A - B along it, n . w (an upper bound; the faces' distances are lower bounds)
    up_d, up_n, up_b = np.inf, np.zeros(3), np.zeros(3)
    while True:
        best = 0
        for f in range(1, nf):
            if dist[f] < dist[best]:
                best = f
        nx, ny, nz = normals[best, 0], normals[best, 1], normals[best, 2]
        if nv == MAX_VERTS or dist[best] == np.inf:
            break
        _add_vertex(va, vb, nv, sa, i, sb, j, nx, ny, nz)
        wx, wy, wz = _w(va, vb, nv)
        reach = nx * wx + ny * wy + nz * wz
        if reach < up_d:
            up_d = reach
            up_n[0], up_n[1], up_n[2] = nx, ny, nz
            up_b[0], up_b[1], up_b[2] = vb[nv, 0], vb[nv, 1], vb[nv, 2]
        if reach - dist[best] <= tol:
            converged = True
            break
        # remove the faces that see the new point, found by a flood from the chosen
        # face (so the removed region is connected); the edges to the faces kept are
        # the horizon
        removed[:nf] = False
        removed[best] = True
        stack[0] = best
        top, ne = 1, 0
        while top > 0:
            top -= 1
            f = stack[top]
            for e in range(3):
                s, t = faces[f, e], faces[f, (e + 1) % 3]
                g = _neighbour(faces, nf, t, s)
                if g < 0 or removed[g]:
                    continue
                p = faces[g, 0]
                px, py, pz = _w(va, vb, p)
                if normals[g, 0] * (wx - px) + normals[g, 1] * (wy - py) + normals[g, 2] * (
                    wz - pz
                ) > 0.0:  # fmt: skip
                    removed[g] = True
                    stack[top] = g
                    top += 1
                else:
                    edges[ne, 0], edges[ne, 1] = s, t
                    ne += 1
        m = 0
        for f in range(nf):
            if not removed[f]:
                if m != f:
                    for c in range(3):
                        faces[m, c] = faces[f, c]
                        normals[m, c] = normals[f, c]
                    dist[m] = dist[f]
                m += 1
        nf = m
        if nf + ne > MAX_FACES:
            break
        for g in range(ne):
            _set_face(va, vb, faces, normals, dist, nf, edges[g, 0], edges[g, 1], nv)
            nf += 1
        nv += 1
    best = 0
    for f in range(1, nf):
        if dist[f] < dist[best]:
            best = f
    nx, ny, nz = normals[best, 0], normals[best, 1], normals[best, 2]
    if not converged and dist[best] < np.inf:
        # out of room (curved cores): the least separating depth seen, or the one
        # along the last best face's normal (a sliver face's normal can be far off)
        bx, by, bz = support_call(sb, j, -nx, -ny, -nz)
        ax, ay, az = support_call(sa, i, nx, ny, nz)
        d = max(nx * (ax - bx) + ny * (ay - by) + nz * (az - bz), 0.0)
        if up_d < d:
            d = max(up_d, 0.0)
            nx, ny, nz = up_n[0], up_n[1], up_n[2]
            bx, by, bz = up_b[0], up_b[1], up_b[2]
        return d, nx, ny, nz, bx + d * nx, by + d * ny, bz + d * nz, bx, by, bz
    # the origin's projection on the chosen face, by barycentric weights
    d = max(dist[best], 0.0)
    p, q, r = faces[best, 0], faces[best, 1], faces[best, 2]
    u, v, w = _barycentric(va, vb, p, q, r, d * nx, d * ny, d * nz)
    ax = u * va[p, 0] + v * va[q, 0] + w * va[r, 0]
    ay = u * va[p, 1] + v * va[q, 1] + w * va[r, 1]
    az = u * va[p, 2] + v * va[q, 2] + w * va[r, 2]
    bx = u * vb[p, 0] + v * vb[q, 0] + w * vb[r, 0]
    by = u * vb[p, 1] + v * vb[q, 1] + w * vb[r, 1]
    bz = u * vb[p, 2] + v * vb[q, 2] + w * vb[r, 2]
    return d, nx, ny, nz, ax, ay, az, bx, by, bz


@njit(cache=True, nogil=True)
def _neighbour(faces, nf, s, t):
    """The face holding the directed edge (s, t), or -1."""
    for g in range(nf):
        for e in range(3):
            if faces[g, e] == s and faces[g, (e + 1) % 3] == t:
                return g
    return -1


# From Ericson, Real-Time Collision Detection, 3.4 (Barycentric, by areas).
@njit(cache=True, nogil=True)
def _barycentric(va, vb, p, q, r, x, y, z):
    px, py, pz = _w(va, vb, p)
    qx, qy, qz = _w(va, vb, q)
    rx, ry, rz = _w(va, vb, r)
    v0x, v0y, v0z = qx - px, qy - py, qz - pz
    v1x, v1y, v1z = rx - px, ry - py, rz - pz
    v2x, v2y, v2z = x - px, y - py, z - pz
    d00 = v0x * v0x + v0y * v0y + v0z * v0z
    d01 = v0x * v1x + v0y * v1y + v0z * v1z
    d11 = v1x * v1x + v1y * v1y + v1z * v1z
    d20 = v2x * v0x + v2y * v0y + v2z * v0z
    d21 = v2x * v1x + v2y * v1y + v2z * v1z
    denom = d00 * d11 - d01 * d01
    if denom <= 0.0:
        return 1.0, 0.0, 0.0
    v = (d11 * d20 - d01 * d21) / denom
    w = (d00 * d21 - d01 * d20) / denom
    return 1.0 - v - w, v, w
