"""Contact manifolds of convex shape pairs: up to four contact points per touching
pair, after the penetration depth and normal are known (Jolt Physics'
``ManifoldBetweenTwoFaces``; Box2D's reference and incident faces).

Each shape gives its *supporting face* along the normal (A along n, B along -n):

- sphere: its one deepest point; capsule: both ends of its segment when the segment
  is within ``FLAT`` (sine) of perpendicular to n, else its deepest end;
- box: the face whose normal is nearest n (four corners);
- cylinder: the cap facing n when n is nearer the axis than the side (the cap's rim
  sampled at ``RIM`` points, a polygon inscribed in it), else the side line facing n;
  cone: the base the same way, else the side line from the apex;
- hull: its vertices within ``HULL_TOL`` (relative) of its supporting plane;
- half-space: its plane, unbounded.

Rounded shapes (spheres, capsules) have their face moved by the radius along the
direction. B's face is clipped to the prism A's face sweeps along n (Sutherland and
Hodgman, in 3D, so clipped points stay on B's face); each point of B is paired with
the point of A's face plane straight along n, and kept when it is no more than
``tol`` outside A: ``depth_i = n . (point_a_i - point_b_i) >= -tol``. Crossing edges,
a point feature, or a clip that keeps nothing give the single deepest point pair of
the penetration. More than four points are reduced to four (the deepest, the one
farthest from it, then the two spanning the largest triangles with them on either
side, as Jolt's ``PruneContactPoints``).
"""

import math

import numpy as np
from numba import njit

from hitbox._kernels.primitives import (
    BOX,
    CAPSULE,
    CONE,
    CYLINDER,
    HALFSPACE,
    HULL,
    SPHERE,
)

#: Most points a manifold keeps.
MAX_POINTS = 4
#: Points of a cylinder's cap or a cone's base rim on a face polygon.
RIM = 8
#: A segment (capsule, cylinder or cone side) lies flat on a face when its direction is
#: within this sine of perpendicular to the normal (about 1 degree).
FLAT = 0.0175
#: Hull vertices within this fraction of the hull's size of its supporting plane form
#: its face (the normal of a face contact is exact to far below it).
HULL_TOL = 1e-7


# -- supporting faces ----------------------------------------------------------------------


@njit(inline="always")
def _put(face, n, s, i, x, y, z, r, dx, dy, dz):
    """face[n] = shape i's local point (x, y, z) in the world, moved r along d."""
    rot, t = s.rot, s.trans
    for c in range(3):
        face[n, c] = (
            t[i, c] + rot[i, c, 0] * x + rot[i, c, 1] * y + rot[i, c, 2] * z
            + r * (dx, dy, dz)[c]
        )  # fmt: skip
    return n + 1


@njit(cache=True, nogil=True)
def supporting_face(s, i, dx, dy, dz, face):
    """Shape i's supporting face along the unit world direction d, as points of
    ``face`` (rows, world frame, in order around the face); returns their number
    (0 for a half-space: its face is its whole plane)."""
    kind = s.kind[i]
    rot = s.rot
    lx = rot[i, 0, 0] * dx + rot[i, 1, 0] * dy + rot[i, 2, 0] * dz
    ly = rot[i, 0, 1] * dx + rot[i, 1, 1] * dy + rot[i, 2, 1] * dz
    lz = rot[i, 0, 2] * dx + rot[i, 1, 2] * dy + rot[i, 2, 2] * dz
    r = s.radius[i]
    h = s.dims[i, 2]
    n = 0
    if kind == SPHERE:
        n = _put(face, n, s, i, 0.0, 0.0, 0.0, r, dx, dy, dz)
    elif kind == CAPSULE:
        if abs(lz) <= FLAT:
            n = _put(face, n, s, i, 0.0, 0.0, h, r, dx, dy, dz)
            n = _put(face, n, s, i, 0.0, 0.0, -h, r, dx, dy, dz)
        else:
            n = _put(face, n, s, i, 0.0, 0.0, h if lz > 0.0 else -h, r, dx, dy, dz)
    elif kind == BOX:
        a = 0
        if abs(ly) > abs(lx):
            a = 1
        if abs(lz) > max(abs(lx), abs(ly)):
            a = 2
        b, c = (a + 1) % 3, (a + 2) % 3
        sign = 1.0 if (lx, ly, lz)[a] >= 0.0 else -1.0
        for u, w in ((1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)):
            p = np.zeros(3)
            p[a] = sign * s.dims[i, a]
            p[b] = u * s.dims[i, b]
            p[c] = w * s.dims[i, c]
            n = _put(face, n, s, i, p[0], p[1], p[2], 0.0, dx, dy, dz)
    elif kind == CYLINDER or kind == CONE:
        rho = s.dims[i, 0]
        radial = math.sqrt(lx * lx + ly * ly)
        ux, uy = (lx / radial, ly / radial) if radial > 0.0 else (1.0, 0.0)
        if kind == CYLINDER:
            cap = abs(lz) >= radial
            z_cap = h if lz >= 0.0 else -h
        else:  # the base (normal -z) against the side facing d (normal (2h u, rho))
            side = (2.0 * h * radial + rho * lz) / math.sqrt(4.0 * h * h + rho * rho)
            cap = -lz >= side
            z_cap = -h
        if cap:
            for m in range(RIM):
                angle = 2.0 * math.pi * m / RIM
                x, y = rho * math.cos(angle), rho * math.sin(angle)
                n = _put(face, n, s, i, x, y, z_cap, 0.0, dx, dy, dz)
        elif kind == CYLINDER:
            n = _put(face, n, s, i, rho * ux, rho * uy, h, 0.0, dx, dy, dz)
            n = _put(face, n, s, i, rho * ux, rho * uy, -h, 0.0, dx, dy, dz)
        else:
            n = _put(face, n, s, i, 0.0, 0.0, h, 0.0, dx, dy, dz)
            n = _put(face, n, s, i, rho * ux, rho * uy, -h, 0.0, dx, dy, dz)
    elif kind == HULL:
        v = s.vertices
        f, count = s.first[i], s.count[i]
        top = -np.inf
        for m in range(f, f + count):
            top = max(top, v[m, 0] * lx + v[m, 1] * ly + v[m, 2] * lz)
        tol = HULL_TOL * max(s.bound[i], 1e-300)
        for m in range(f, f + count):
            if v[m, 0] * lx + v[m, 1] * ly + v[m, 2] * lz >= top - tol:
                n = _put(face, n, s, i, v[m, 0], v[m, 1], v[m, 2], 0.0, dx, dy, dz)
    # in turn around d, repeats and inner points dropped (flat boxes, flat hulls)
    return _order(face, n, dx, dy, dz)


@njit(inline="always")
def _basis(nx, ny, nz):
    """Two unit vectors completing n to an orthonormal frame (Duff et al. 2017)."""
    sign = 1.0 if nz >= 0.0 else -1.0
    a = -1.0 / (sign + nz)
    b = nx * ny * a
    return (1.0 + sign * nx * nx * a, sign * b, -sign * nx), (b, sign + ny * ny * a, -ny)


@njit(cache=True, nogil=True)
def _order(face, n, nx, ny, nz):
    """face[:n] replaced by the corners of its convex hull seen along n, in turn
    (Andrew's monotone chain; repeated and collinear points dropped). Returns their
    number."""
    if n < 2:
        return n
    u, w = _basis(nx, ny, nz)
    x = np.empty(n)
    y = np.empty(n)
    for m in range(n):
        x[m] = u[0] * face[m, 0] + u[1] * face[m, 1] + u[2] * face[m, 2]
        y[m] = w[0] * face[m, 0] + w[1] * face[m, 1] + w[2] * face[m, 2]
    # sort by (x, y): a stable pass on y, then on x
    order = np.argsort(y, kind="mergesort")
    order = order[np.argsort(x[order], kind="mergesort")]
    chain = np.empty(2 * n + 1, np.intp)
    k = 0
    for half in range(2):
        start = k
        for q in range(n):
            m = order[q] if half == 0 else order[n - 1 - q]
            while k >= start + 2:
                a, b = chain[k - 2], chain[k - 1]
                turn = (x[b] - x[a]) * (y[m] - y[a]) - (y[b] - y[a]) * (x[m] - x[a])
                if turn > 0.0:
                    break
                k -= 1
            chain[k] = m
            k += 1
        k -= 1  # the last point starts the other half
    copy = face[:n].copy()
    if k < 1:
        k = 1
    for m in range(k):
        face[m] = copy[chain[m]]
    if k == 2 and (
        face[0, 0] == face[1, 0] and face[0, 1] == face[1, 1] and face[0, 2] == face[1, 2]
    ):
        k = 1
    return k


# -- clipping ------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _clip(poly, n, px, py, pz, mx, my, mz, out):
    """The part of poly[:n] (a point, a segment, or a polygon in turn) on the side
    m . (x - p) >= 0 of a plane, into out; returns its number of points (Sutherland
    and Hodgman, one plane). A point within rounding of the plane counts as on the
    kept side: an edge lying along the plane, its ends' distances both rounding noise,
    would otherwise cross it at an arbitrary point."""
    big = abs(px) + abs(py) + abs(pz)
    for e in range(n):
        big = max(big, abs(poly[e, 0]) + abs(poly[e, 1]) + abs(poly[e, 2]))
    eps = 1e-12 * (abs(mx) + abs(my) + abs(mz)) * big
    k = 0
    if n <= 2:  # a point or a segment: its kept end points and the crossing
        for e in range(n):
            d = mx * (poly[e, 0] - px) + my * (poly[e, 1] - py) + mz * (poly[e, 2] - pz)
            if d >= -eps:
                out[k] = poly[e]
                k += 1
        if n == 2 and k == 1:
            da = mx * (poly[0, 0] - px) + my * (poly[0, 1] - py) + mz * (poly[0, 2] - pz)
            db = mx * (poly[1, 0] - px) + my * (poly[1, 1] - py) + mz * (poly[1, 2] - pz)
            t = min(max(da / (da - db), 0.0), 1.0)  # eps-kept ends: t may round out
            for c in range(3):
                out[k, c] = poly[0, c] + t * (poly[1, c] - poly[0, c])
            k += 1
        return k
    a = n - 1
    da = mx * (poly[a, 0] - px) + my * (poly[a, 1] - py) + mz * (poly[a, 2] - pz)
    for b in range(n):
        db = mx * (poly[b, 0] - px) + my * (poly[b, 1] - py) + mz * (poly[b, 2] - pz)
        if (da >= -eps) != (db >= -eps):
            t = min(max(da / (da - db), 0.0), 1.0)  # eps-kept ends: t may round out
            for c in range(3):
                out[k, c] = poly[a, c] + t * (poly[b, c] - poly[a, c])
            k += 1
        if db >= -eps:
            out[k] = poly[b]
            k += 1
        a, da = b, db
    return k


@njit(cache=True, nogil=True)
def _clip_to_prism(face_a, na, face_b, nb, nx, ny, nz, work, spare):
    """B's face clipped to the prism A's face (a polygon, n_a >= 3, or an edge, n_a =
    2) sweeps along n; the points land in work, their number returned."""
    for m in range(nb):
        work[m] = face_b[m]
    k = nb
    if na == 2:  # an edge: the slab between its ends' planes across it (seen along n)
        ex = face_a[1, 0] - face_a[0, 0]
        ey = face_a[1, 1] - face_a[0, 1]
        ez = face_a[1, 2] - face_a[0, 2]
        along = ex * nx + ey * ny + ez * nz
        ex, ey, ez = ex - along * nx, ey - along * ny, ez - along * nz
        k = _clip(work, k, face_a[0, 0], face_a[0, 1], face_a[0, 2], ex, ey, ez, spare)
        k = _clip(spare, k, face_a[1, 0], face_a[1, 1], face_a[1, 2], -ex, -ey, -ez, work)
        return k
    # the polygon's winding about n: inward side normals are (n x edge) or its opposite
    area = 0.0
    for m in range(na):
        p, q = face_a[m], face_a[(m + 1) % na]
        area += nx * (p[1] * q[2] - p[2] * q[1]) + ny * (p[2] * q[0] - p[0] * q[2])
        area += nz * (p[0] * q[1] - p[1] * q[0])
    sign = 1.0 if area >= 0.0 else -1.0
    src, dst = work, spare
    for m in range(na):
        p, q = face_a[m], face_a[(m + 1) % na]
        ex, ey, ez = q[0] - p[0], q[1] - p[1], q[2] - p[2]
        mx = sign * (ny * ez - nz * ey)
        my = sign * (nz * ex - nx * ez)
        mz = sign * (nx * ey - ny * ex)
        k = _clip(src, k, p[0], p[1], p[2], mx, my, mz, dst)
        src, dst = dst, src
        if k == 0:
            break
    if src is not work:
        for m in range(k):
            work[m] = src[m]
    return k


# -- reduction -----------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _keep_four(pts, depth, n, nx, ny, nz):
    """Indices of at most four of the n points: the deepest, the farthest from it
    (across n), then the two making the largest triangles with them, one on each
    side."""
    if n <= MAX_POINTS:
        return np.arange(n)
    first = int(np.argmax(depth[:n]))
    best = -1.0
    second = first
    for m in range(n):
        d = 0.0
        for c in range(3):
            d += (pts[m, c] - pts[first, c]) ** 2
        if d > best:
            best, second = d, m
    lo, hi = 0.0, 0.0
    third = fourth = first
    ax = pts[second, 0] - pts[first, 0]
    ay = pts[second, 1] - pts[first, 1]
    az = pts[second, 2] - pts[first, 2]
    for m in range(n):
        bx = pts[m, 0] - pts[first, 0]
        by = pts[m, 1] - pts[first, 1]
        bz = pts[m, 2] - pts[first, 2]
        area = (
            nx * (ay * bz - az * by) + ny * (az * bx - ax * bz) + nz * (ax * by - ay * bx)
        )
        if area > hi:
            hi, third = area, m
        if area < lo:
            lo, fourth = area, m
    keep = [first, second]
    for m in (third, fourth):
        if m not in keep:
            keep.append(m)
    return np.array(keep)


# -- pairs -----------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def manifold_pair(sa, i, sb, j, normal, point_a, point_b, tol, out_a, out_b, out_d):
    """The manifold of touching pair (A i, B j) with unit ``normal`` (A to B) and deepest
    points ``point_a``, ``point_b``: points into out_a, out_b (MAX_POINTS, 3), depths
    into out_d; returns their number (>= 1)."""
    nx, ny, nz = normal[0], normal[1], normal[2]
    size = 8 + RIM + max(sa.count[i], sb.count[j])
    face_a = np.empty((size, 3))
    face_b = np.empty((size, 3))
    na = supporting_face(sa, i, nx, ny, nz, face_a)
    nb = supporting_face(sb, j, -nx, -ny, -nz, face_b)
    pts_b = np.empty((2 * size + 8, 3))
    pts_a = np.empty((2 * size + 8, 3))
    depth = np.empty(2 * size + 8)
    k = 0
    if sa.kind[i] == HALFSPACE and sb.kind[j] == HALFSPACE:
        k = 0  # two planes have no face to clip: the penetration's point pair
    elif sa.kind[i] == HALFSPACE or sb.kind[j] == HALFSPACE:
        # a face against a plane: each point of the face paired with the plane along n
        plane_a = sa.kind[i] == HALFSPACE
        hs, h = (sa, i) if plane_a else (sb, j)
        face, nf = (face_b, nb) if plane_a else (face_a, na)
        qx, qy, qz = hs.rot[h, 0, 2], hs.rot[h, 1, 2], hs.rot[h, 2, 2]
        den = qx * nx + qy * ny + qz * nz
        for m in range(nf if den != 0.0 else 0):
            off = qx * (face[m, 0] - hs.trans[h, 0]) + qy * (face[m, 1] - hs.trans[h, 1])
            off += qz * (face[m, 2] - hs.trans[h, 2])
            t = (-off if plane_a else off) / den
            if t >= -tol:
                for c in range(3):
                    if plane_a:  # B's point, A's straight along n
                        pts_b[k, c] = face[m, c]
                        pts_a[k, c] = face[m, c] + t * normal[c]
                    else:  # A's point, B's straight back along n
                        pts_a[k, c] = face[m, c]
                        pts_b[k, c] = face[m, c] - t * normal[c]
                depth[k] = t
                k += 1
    elif na >= 2 and nb >= 2 and not _crossing_edges(face_a, na, face_b, nb, normal):
        spare = np.empty_like(pts_b)
        if na >= 3 or nb == 2:  # B's face clipped to A's, paired with A's plane along n
            k = _clip_to_prism(face_a, na, face_b, nb, nx, ny, nz, pts_b, spare)
            k = _pair_with_plane(face_a, na, pts_b, k, pts_a, depth, normal, 1.0, tol)
        else:  # A's edge clipped to B's polygon, paired with B's plane back along n
            k = _clip_to_prism(face_b, nb, face_a, na, nx, ny, nz, pts_a, spare)
            k = _pair_with_plane(face_b, nb, pts_a, k, pts_b, depth, normal, -1.0, tol)
    if k == 0:
        for c in range(3):
            out_a[0, c] = point_a[c]
            out_b[0, c] = point_b[c]
        out_d[0] = 0.0
        for c in range(3):
            out_d[0] += (point_a[c] - point_b[c]) * normal[c]
        return 1
    keep = _keep_four(pts_b, depth, k, nx, ny, nz)
    for m in range(len(keep)):
        for c in range(3):
            out_a[m, c] = pts_a[keep[m], c]
            out_b[m, c] = pts_b[keep[m], c]
        out_d[m] = depth[keep[m]]
    return len(keep)


@njit(inline="always")
def _pair_with_plane(face, nf, pts, k, other, depth, normal, sign, tol):
    """Pair each of pts[:k] with the point of the face's plane straight along
    ``sign * normal``, into other[:k]; keep the pairs whose depth (that distance,
    positive when the point lies inside) is at least -tol. Returns the count kept."""
    nx, ny, nz = normal[0], normal[1], normal[2]
    ax, ay, az = _plane_normal(face, nf, nx, ny, nz)
    den = ax * nx + ay * ny + az * nz
    kept = 0
    for m in range(k):
        t = (
            ax * (face[0, 0] - pts[m, 0])
            + ay * (face[0, 1] - pts[m, 1])
            + az * (face[0, 2] - pts[m, 2])
        ) / den
        t *= sign
        if t >= -tol:
            for c in range(3):
                pts[kept, c] = pts[m, c]
                other[kept, c] = pts[m, c] + sign * t * normal[c]
            depth[kept] = t
            kept += 1
    return kept


@njit(inline="always")
def _plane_normal(face, n, nx, ny, nz):
    """Unit normal of the face polygon (Newell's method) signed along n; n itself for an
    edge or a degenerate polygon."""
    if n < 3:
        return nx, ny, nz
    px = py = pz = 0.0
    for m in range(n):
        p, q = face[m], face[(m + 1) % n]
        px += (p[1] - q[1]) * (p[2] + q[2])
        py += (p[2] - q[2]) * (p[0] + q[0])
        pz += (p[0] - q[0]) * (p[1] + q[1])
    length = math.sqrt(px * px + py * py + pz * pz)
    if length == 0.0 or abs(px * nx + py * ny + pz * nz) < 1e-3 * length:
        return nx, ny, nz
    if px * nx + py * ny + pz * nz < 0.0:
        length = -length
    return px / length, py / length, pz / length


@njit(inline="always")
def _crossing_edges(face_a, na, face_b, nb, normal):
    """Two edges that cross (not parallel seen along n): they meet at one point."""
    if na != 2 or nb != 2:
        return False
    e = face_a[1] - face_a[0]
    f = face_b[1] - face_b[0]
    cross = normal[0] * (e[1] * f[2] - e[2] * f[1]) + normal[1] * (
        e[2] * f[0] - e[0] * f[2]
    )
    cross += normal[2] * (e[0] * f[1] - e[1] * f[0])
    le = math.sqrt(e[0] ** 2 + e[1] ** 2 + e[2] ** 2)
    lf = math.sqrt(f[0] ** 2 + f[1] ** 2 + f[2] ** 2)
    return abs(cross) > FLAT * le * lf


@njit(cache=True, nogil=True)
def manifolds(sa, ia, sb, ib, hit, normal, point_a, point_b, tol, count, out_a, out_b,
              out_d):  # fmt: skip
    """:func:`manifold_pair` of every touching pair (``hit``); count 0 elsewhere.
    ``tol (n,)``: each pair's touching tolerance."""
    for k in range(len(ia)):
        if not hit[k] or not np.isfinite(normal[k, 0]):
            count[k] = 0
            continue
        count[k] = manifold_pair(
            sa, ia[k], sb, ib[k], normal[k], point_a[k], point_b[k], tol[k], out_a[k],
            out_b[k], out_d[k],
        )  # fmt: skip
