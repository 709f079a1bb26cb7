"""Primitive shapes: support functions and the closed-form pair tests.

A shape set arrives as the ``Shapes`` NamedTuple of :mod:`hitbox.convex`: per shape a
``kind`` code, a pose (``rot (N, 3, 3)``, ``trans (N, 3)``), ``dims (N, 3)``, a rounding
``radius (N,)``, a bounding radius ``bound (N,)`` about ``trans``, and for hulls a run
``first``, ``count`` of rows in the shared local ``vertices (V, 3)``.

Every shape is a *core* (point, segment, box, cylinder, cone, hull; in its local frame,
centred on the origin, axis z) grown by ``radius``: a sphere is a point core, a capsule a
segment core. GJK and EPA work on the cores and add the radii afterwards, which is exact
(the Minkowski sum with a ball moves every support point by ``radius`` along the
direction). Closed forms take the whole shapes.

Every pair routine writes row k of ``out = (value (n,), point_a (n, 3), point_b (n, 3),
normal (n, 3))`` and ``hit[k]``, in the pair's own order; see
:mod:`hitbox._kernels.convex_pairs` for what ``value`` means in each mode. Four arrays,
not one (n, 10) table: each is what the caller returns, with no copy out of a table.
"""

import math

import numpy as np
from numba import njit

from hitbox._kernels.triangle_distance import segment_segment

SPHERE = 0
CAPSULE = 1
BOX = 2
CYLINDER = 3
CONE = 4
HULL = 5
HALFSPACE = 6

INTERSECTS = 0
DISTANCE = 1
PENETRATION = 2

# Pairs closer than TOUCH x (the pair's coordinate scale) touch: GJK's rounding on
# polytopes stays far below it, and a touching pair counts as overlapping.
TOUCH = 1e-12


@njit(inline="always")
def support(s, i, dx, dy, dz):
    """World support point of shape ``i``'s core (radius left out) along (dx, dy, dz)."""
    r = s.rot
    lx = r[i, 0, 0] * dx + r[i, 1, 0] * dy + r[i, 2, 0] * dz
    ly = r[i, 0, 1] * dx + r[i, 1, 1] * dy + r[i, 2, 1] * dz
    lz = r[i, 0, 2] * dx + r[i, 1, 2] * dy + r[i, 2, 2] * dz
    kind = s.kind[i]
    px = py = pz = 0.0
    if kind == CAPSULE:
        pz = s.dims[i, 2] if lz >= 0.0 else -s.dims[i, 2]
    elif kind == BOX:
        px = s.dims[i, 0] if lx >= 0.0 else -s.dims[i, 0]
        py = s.dims[i, 1] if ly >= 0.0 else -s.dims[i, 1]
        pz = s.dims[i, 2] if lz >= 0.0 else -s.dims[i, 2]
    elif kind == CYLINDER:
        rho = math.sqrt(lx * lx + ly * ly)
        if rho > 0.0:
            px = s.dims[i, 0] * lx / rho
            py = s.dims[i, 0] * ly / rho
        pz = s.dims[i, 2] if lz >= 0.0 else -s.dims[i, 2]
    elif kind == CONE:  # apex at +h, base disc of radius dims[0] at -h
        h = s.dims[i, 2]
        rho = math.sqrt(lx * lx + ly * ly)
        if h * lz >= s.dims[i, 0] * rho - h * lz:
            pz = h
        else:
            if rho > 0.0:
                px = s.dims[i, 0] * lx / rho
                py = s.dims[i, 0] * ly / rho
            pz = -h
    elif kind == HULL and s.count[i] > 0:  # an empty hull (a k-DOP with no point): 0
        v = s.vertices
        f = s.first[i]
        best = -np.inf
        top = f
        # only the index is carried through the loop: carrying the three coordinates
        # kept it several times slower (see benchmarks/README.md)
        for m in range(f, f + s.count[i]):
            d = v[m, 0] * lx + v[m, 1] * ly + v[m, 2] * lz
            if d > best:
                best = d
                top = m
        px, py, pz = v[top, 0], v[top, 1], v[top, 2]
    t = s.trans
    return (
        t[i, 0] + r[i, 0, 0] * px + r[i, 0, 1] * py + r[i, 0, 2] * pz,
        t[i, 1] + r[i, 1, 0] * px + r[i, 1, 1] * py + r[i, 1, 2] * pz,
        t[i, 2] + r[i, 2, 0] * px + r[i, 2, 1] * py + r[i, 2, 2] * pz,
    )


@njit(cache=True, nogil=True)
def support_call(s, i, dx, dy, dz):
    """:func:`support` compiled once, for callers off the hot path (EPA, contact
    manifolds): each inlined copy of support costs compile time."""
    return support(s, i, dx, dy, dz)


@njit(inline="always")
def scale(sa, i, sb, j):
    """The pair's coordinate scale: largest centre coordinate or bounding radius."""
    out = max(sa.bound[i], sb.bound[j])  # 0 for a half-space
    for k in range(3):
        out = max(out, abs(sa.trans[i, k]), abs(sb.trans[j, k]))
    return max(out, 1e-300)


@njit(inline="always")
def write(out, hit, k, value, ax, ay, az, bx, by, bz, nx, ny, nz, is_hit):
    pa, pb, nrm = out[1], out[2], out[3]
    out[0][k] = value
    pa[k, 0], pa[k, 1], pa[k, 2] = ax, ay, az
    pb[k, 0], pb[k, 1], pb[k, 2] = bx, by, bz
    nrm[k, 0], nrm[k, 1], nrm[k, 2] = nx, ny, nz
    hit[k] = is_hit


@njit(inline="always")
def flip(out, k):
    """Turn row k from the (B, A) order into (A, B): swap the points, negate the normal."""
    pa, pb, nrm = out[1], out[2], out[3]
    for c in range(3):
        pa[k, c], pb[k, c] = pb[k, c], pa[k, c]
        nrm[k, c] = -nrm[k, c]


@njit(inline="always")
def finish_rounded(mode, out, hit, k, d, ax, ay, az, bx, by, bz, nx, ny, nz, ra, rb, tol):
    """Row k from cores at distance ``d >= 0`` (closest points a, b on the cores, unit
    n from a towards b) grown by radii ra, rb. ``d == 0`` means the cores meet at a, b
    and n is the caller's choice of direction."""
    gap = d - ra - rb
    touching = gap <= tol
    if mode == PENETRATION:
        write(out, hit, k, -gap, ax + ra * nx, ay + ra * ny, az + ra * nz,
              bx - rb * nx, by - rb * ny, bz - rb * nz, nx, ny, nz, touching)  # fmt: skip
        if touching and out[0][k] < 0.0:
            out[0][k] = 0.0
    elif touching:  # a common point: within ra of a and rb of b
        w = ra / (ra + rb) if ra + rb > 0.0 else 0.5
        px, py, pz = ax + w * (bx - ax), ay + w * (by - ay), az + w * (bz - az)
        write(out, hit, k, 0.0, px, py, pz, px, py, pz, nx, ny, nz, True)
    else:
        write(out, hit, k, gap, ax + ra * nx, ay + ra * ny, az + ra * nz,
              bx - rb * nx, by - rb * ny, bz - rb * nz, nx, ny, nz, False)  # fmt: skip


@njit(inline="always")
def closest_segments(p1x, p1y, p1z, q1x, q1y, q1z, p2x, p2y, p2z, q2x, q2y, q2z):
    """Closest points of segments p1q1 and p2q2 (either may be a point), as six
    coordinates: :func:`hitbox._kernels.triangle_distance.segment_segment`."""
    c1, c2 = segment_segment(
        (p1x, p1y, p1z), (q1x, q1y, q1z), (p2x, p2y, p2z), (q2x, q2y, q2z)
    )
    return c1[0], c1[1], c1[2], c2[0], c2[1], c2[2]


@njit(cache=True, nogil=True)
def _perpendicular(ux, uy, uz):
    """A unit vector perpendicular to u (any, if u is zero: +z)."""
    ax, ay, az = abs(ux), abs(uy), abs(uz)
    if ax == 0.0 and ay == 0.0 and az == 0.0:
        return 0.0, 0.0, 1.0
    if ax <= ay and ax <= az:  # u x e_x
        px, py, pz = 0.0, uz, -uy
    elif ay <= az:  # u x e_y
        px, py, pz = -uz, 0.0, ux
    else:  # u x e_z
        px, py, pz = uy, -ux, 0.0
    n = math.sqrt(px * px + py * py + pz * pz)
    return px / n, py / n, pz / n


@njit(inline="always")
def segments(mode, sa, i, sb, j, out, hit, k, tol):
    """Sphere and capsule pairs: segment-segment closest points, then the radii."""
    ha, hb = sa.dims[i, 2], sb.dims[j, 2]
    ta, tb = sa.trans[i], sb.trans[j]
    ux, uy, uz = sa.rot[i, 0, 2] * ha, sa.rot[i, 1, 2] * ha, sa.rot[i, 2, 2] * ha
    vx, vy, vz = sb.rot[j, 0, 2] * hb, sb.rot[j, 1, 2] * hb, sb.rot[j, 2, 2] * hb
    ax, ay, az, bx, by, bz = closest_segments(
        ta[0] - ux, ta[1] - uy, ta[2] - uz, ta[0] + ux, ta[1] + uy, ta[2] + uz,
        tb[0] - vx, tb[1] - vy, tb[2] - vz, tb[0] + vx, tb[1] + vy, tb[2] + vz,
    )  # fmt: skip
    dx, dy, dz = bx - ax, by - ay, bz - az
    d = math.sqrt(dx * dx + dy * dy + dz * dz)
    if d > 0.0:
        nx, ny, nz = dx / d, dy / d, dz / d
    else:  # the cores meet: the normal of the plane of both axes, else any
        nx, ny, nz = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
        m = math.sqrt(nx * nx + ny * ny + nz * nz)
        if m > 0.0:
            nx, ny, nz = nx / m, ny / m, nz / m
        elif ux != 0.0 or uy != 0.0 or uz != 0.0:
            nx, ny, nz = _perpendicular(ux, uy, uz)
        else:
            nx, ny, nz = _perpendicular(vx, vy, vz)
        if nx * (tb[0] - ta[0]) + ny * (tb[1] - ta[1]) + nz * (tb[2] - ta[2]) < 0.0:
            nx, ny, nz = -nx, -ny, -nz
    finish_rounded(mode, out, hit, k, d, ax, ay, az, bx, by, bz, nx, ny, nz,
                   sa.radius[i], sb.radius[j], tol)  # fmt: skip


# From Ericson, Real-Time Collision Detection, 5.1.4 (ClosestPtPointOBB).
@njit(cache=True, nogil=True)
def box_sphere(mode, sa, i, sb, j, out, hit, k, tol):
    """Box i of ``sa`` against sphere j of ``sb``, in that order."""
    r = sa.rot
    h = sa.dims[i]
    rb = sb.radius[j]
    cx, cy, cz = sb.trans[j, 0], sb.trans[j, 1], sb.trans[j, 2]
    wx, wy, wz = cx - sa.trans[i, 0], cy - sa.trans[i, 1], cz - sa.trans[i, 2]
    q0 = r[i, 0, 0] * wx + r[i, 1, 0] * wy + r[i, 2, 0] * wz
    q1 = r[i, 0, 1] * wx + r[i, 1, 1] * wy + r[i, 2, 1] * wz
    q2 = r[i, 0, 2] * wx + r[i, 1, 2] * wy + r[i, 2, 2] * wz
    c0, c1, c2 = (
        min(max(q0, -h[0]), h[0]),
        min(max(q1, -h[1]), h[1]),
        min(max(q2, -h[2]), h[2]),
    )
    px = sa.trans[i, 0] + r[i, 0, 0] * c0 + r[i, 0, 1] * c1 + r[i, 0, 2] * c2
    py = sa.trans[i, 1] + r[i, 1, 0] * c0 + r[i, 1, 1] * c1 + r[i, 1, 2] * c2
    pz = sa.trans[i, 2] + r[i, 2, 0] * c0 + r[i, 2, 1] * c1 + r[i, 2, 2] * c2
    dx, dy, dz = cx - px, cy - py, cz - pz
    d = math.sqrt(dx * dx + dy * dy + dz * dz)
    # inside by the box-frame coordinates: the world round trip of a centre inside
    # leaves d a rounding error above 0, which is not a way out
    inside = c0 == q0 and c1 == q1 and c2 == q2
    if not inside or mode != PENETRATION:
        if d > 0.0:
            nx, ny, nz = dx / d, dy / d, dz / d
        else:
            nx, ny, nz = 0.0, 0.0, 1.0
        finish_rounded(mode, out, hit, k, d, px, py, pz, cx, cy, cz, nx, ny, nz,
                       0.0, rb, tol)  # fmt: skip
        return
    # the centre is inside the box: out through the nearest face
    best, axis = np.inf, 0
    for a, q in ((0, q0), (1, q1), (2, q2)):
        gap = h[a] - abs(q)
        if gap < best:
            best, axis = gap, a
    sign = 1.0
    if (axis == 0 and q0 < 0.0) or (axis == 1 and q1 < 0.0) or (axis == 2 and q2 < 0.0):
        sign = -1.0
    nx, ny, nz = sign * r[i, 0, axis], sign * r[i, 1, axis], sign * r[i, 2, axis]
    write(out, hit, k, best + rb, cx + best * nx, cy + best * ny, cz + best * nz,
          cx - rb * nx, cy - rb * ny, cz - rb * nz, nx, ny, nz, True)  # fmt: skip


@njit(cache=True, nogil=True)
def _box_sign(ra, i, c, nx, ny, nz):
    d = ra[i, 0, c] * nx + ra[i, 1, c] * ny + ra[i, 2, c] * nz
    return 1.0 if d >= 0.0 else -1.0


# The separating-axis test of Gottschalk, Lin, Manocha (OBBTree, 1996) as in Ericson,
# Real-Time Collision Detection, 4.4.1; the least overlap over the 15 axes is the exact
# penetration depth of two boxes (the Minkowski difference's faces have those normals).
@njit(cache=True, nogil=True)
def box_box_sat(sa, i, sb, j, tol):
    """(depth, nx, ny, nz, axis code): the least overlap along the 15 axes, n from A to
    B. depth < -tol means separated. Axis codes: 0-2 faces of A, 3-5 faces of B, 6 + 3p + q
    the edges A_p x B_q."""
    ra, rb = sa.rot, sb.rot
    tx = sb.trans[j, 0] - sa.trans[i, 0]
    ty = sb.trans[j, 1] - sa.trans[i, 1]
    tz = sb.trans[j, 2] - sa.trans[i, 2]
    best, bx, by, bz, code = np.inf, 0.0, 0.0, 1.0, -1
    for ax_code in range(15):
        if ax_code < 3:
            lx, ly, lz = ra[i, 0, ax_code], ra[i, 1, ax_code], ra[i, 2, ax_code]
        elif ax_code < 6:
            c = ax_code - 3
            lx, ly, lz = rb[j, 0, c], rb[j, 1, c], rb[j, 2, c]
        else:
            p, q = (ax_code - 6) // 3, (ax_code - 6) % 3
            ux, uy, uz = ra[i, 0, p], ra[i, 1, p], ra[i, 2, p]
            vx, vy, vz = rb[j, 0, q], rb[j, 1, q], rb[j, 2, q]
            lx, ly, lz = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
            m2 = lx * lx + ly * ly + lz * lz
            if m2 <= 1e-24:  # parallel edges: the face axes cover them
                continue
            m = math.sqrt(m2)
            lx, ly, lz = lx / m, ly / m, lz / m
        pa = 0.0
        pb = 0.0
        for c in range(3):
            pa += sa.dims[i, c] * abs(
                ra[i, 0, c] * lx + ra[i, 1, c] * ly + ra[i, 2, c] * lz
            )
            pb += sb.dims[j, c] * abs(
                rb[j, 0, c] * lx + rb[j, 1, c] * ly + rb[j, 2, c] * lz
            )
        s = tx * lx + ty * ly + tz * lz
        overlap = pa + pb - abs(s)
        if overlap < -tol:
            return overlap, lx, ly, lz, ax_code
        if overlap < best:
            sg = 1.0 if s >= 0.0 else -1.0
            best, bx, by, bz, code = overlap, sg * lx, sg * ly, sg * lz, ax_code
    return best, bx, by, bz, code


@njit(cache=True, nogil=True)
def box_box_contact(sa, i, sb, j, out, hit, k, depth, nx, ny, nz, code):
    """Row k of a penetration from the SAT's least axis: witness points with
    point_a - point_b = depth * n (a vertex of B on A's face plane, a vertex of A on B's,
    or the closest points of the two edges)."""
    depth = max(depth, 0.0)
    if code < 3:  # a face of A: B's deepest vertex
        bx, by, bz = support_call(sb, j, -nx, -ny, -nz)
        ax, ay, az = bx + depth * nx, by + depth * ny, bz + depth * nz
    elif code < 6:
        ax, ay, az = support_call(sa, i, nx, ny, nz)
        bx, by, bz = ax - depth * nx, ay - depth * ny, az - depth * nz
    else:
        p, q = (code - 6) // 3, (code - 6) % 3
        ra, rb = sa.rot, sb.rot
        ex, ey, ez = sa.trans[i, 0], sa.trans[i, 1], sa.trans[i, 2]
        fx, fy, fz = sb.trans[j, 0], sb.trans[j, 1], sb.trans[j, 2]
        for c in range(3):
            if c != p:
                w = sa.dims[i, c] * _box_sign(ra, i, c, nx, ny, nz)
                ex, ey, ez = (
                    ex + w * ra[i, 0, c],
                    ey + w * ra[i, 1, c],
                    ez + w * ra[i, 2, c],
                )
            if c != q:
                w = -sb.dims[j, c] * _box_sign(rb, j, c, nx, ny, nz)
                fx, fy, fz = (
                    fx + w * rb[j, 0, c],
                    fy + w * rb[j, 1, c],
                    fz + w * rb[j, 2, c],
                )
        hp, hq = sa.dims[i, p], sb.dims[j, q]
        ux, uy, uz = hp * ra[i, 0, p], hp * ra[i, 1, p], hp * ra[i, 2, p]
        vx, vy, vz = hq * rb[j, 0, q], hq * rb[j, 1, q], hq * rb[j, 2, q]
        ax, ay, az, bx, by, bz = closest_segments(
            ex - ux, ey - uy, ez - uz, ex + ux, ey + uy, ez + uz,
            fx - vx, fy - vy, fz - vz, fx + vx, fy + vy, fz + vz,
        )  # fmt: skip
    write(out, hit, k, depth, ax, ay, az, bx, by, bz, nx, ny, nz, True)


@njit(cache=True, nogil=True)
def halfspace_shape(mode, sa, i, sb, j, out, hit, k, tol):
    """Half-space i of ``sa`` ({x : n.x <= n.trans}, n the local z axis) against the
    non-half-space shape j of ``sb``: B's deepest point along -n decides."""
    nx, ny, nz = sa.rot[i, 0, 2], sa.rot[i, 1, 2], sa.rot[i, 2, 2]
    c = nx * sa.trans[i, 0] + ny * sa.trans[i, 1] + nz * sa.trans[i, 2]
    rb = sb.radius[j]
    bx, by, bz = support_call(sb, j, -nx, -ny, -nz)
    bx, by, bz = bx - rb * nx, by - rb * ny, bz - rb * nz
    s = nx * bx + ny * by + nz * bz - c
    ax, ay, az = bx - s * nx, by - s * ny, bz - s * nz
    touching = s <= tol
    if mode == PENETRATION:
        write(out, hit, k, max(-s, 0.0) if touching else -s, ax, ay, az, bx, by, bz,
              nx, ny, nz, touching)  # fmt: skip
    elif touching:
        write(out, hit, k, 0.0, bx, by, bz, bx, by, bz, nx, ny, nz, True)
    else:
        write(out, hit, k, s, ax, ay, az, bx, by, bz, nx, ny, nz, False)


@njit(cache=True, nogil=True)
def halfspaces(mode, sa, i, sb, j, out, hit, k, tol):
    """Two half-spaces. They meet unless their normals are opposite and they face
    apart; the penetration of two that are not opposite is infinite (NaN normal)."""
    nx, ny, nz = sa.rot[i, 0, 2], sa.rot[i, 1, 2], sa.rot[i, 2, 2]
    mx, my, mz = sb.rot[j, 0, 2], sb.rot[j, 1, 2], sb.rot[j, 2, 2]
    ca = nx * sa.trans[i, 0] + ny * sa.trans[i, 1] + nz * sa.trans[i, 2]
    cb = mx * sb.trans[j, 0] + my * sb.trans[j, 1] + mz * sb.trans[j, 2]
    cx, cy, cz = ny * mz - nz * my, nz * mx - nx * mz, nx * my - ny * mx
    cross2 = cx * cx + cy * cy + cz * cz
    dot = nx * mx + ny * my + nz * mz
    if cross2 <= 1e-24 and dot < 0.0:  # opposite normals: a slab or a gap along n
        gap = -cb - ca
        touching = gap <= tol
        ax, ay, az = ca * nx, ca * ny, ca * nz
        bx, by, bz = -cb * nx, -cb * ny, -cb * nz
        if mode == PENETRATION:
            write(out, hit, k, max(-gap, 0.0) if touching else -gap, ax, ay, az,
                  bx, by, bz, nx, ny, nz, touching)  # fmt: skip
        elif touching:
            w = 0.5 * (ca - cb)
            write(out, hit, k, 0.0, w * nx, w * ny, w * nz, w * nx, w * ny, w * nz,
                  nx, ny, nz, True)  # fmt: skip
        else:
            write(out, hit, k, gap, ax, ay, az, bx, by, bz, nx, ny, nz, False)
        return
    if cross2 <= 1e-24:  # same normal: the lower boundary plane is in both
        w = min(ca, cb)
        px, py, pz = w * nx, w * ny, w * nz
    else:  # a point of the line where both boundary planes meet
        ua = (ca - cb * dot) / cross2
        ub = (cb - ca * dot) / cross2
        px, py, pz = ua * nx + ub * mx, ua * ny + ub * my, ua * nz + ub * mz
    if mode == PENETRATION:
        nan = np.nan
        write(out, hit, k, np.inf, nan, nan, nan, nan, nan, nan, nan, nan, nan, True)
    else:
        write(out, hit, k, 0.0, px, py, pz, px, py, pz, nx, ny, nz, True)


@njit(cache=True, nogil=True)
def bounding_boxes(s, pad, out):
    """World AABBs ``out (N, 2, 3)`` of the shapes: each axis's extent from the support
    points along it and against it, plus the radius, widened by ``pad`` times the
    shape's scale (its largest coordinate or bounding radius); a half-space's box is
    all of space."""
    for i in range(len(s.kind)):
        if s.kind[i] == HALFSPACE:
            for a in range(3):
                out[i, 0, a] = -np.inf
                out[i, 1, a] = np.inf
            continue
        grow = s.radius[i]
        size = max(s.bound[i], abs(s.trans[i, 0]), abs(s.trans[i, 1]), abs(s.trans[i, 2]))
        for a in range(3):
            d = (1.0 if a == 0 else 0.0, 1.0 if a == 1 else 0.0, 1.0 if a == 2 else 0.0)
            hi = support(s, i, d[0], d[1], d[2])[a]
            lo = support(s, i, -d[0], -d[1], -d[2])[a]
            out[i, 0, a] = lo - grow - pad * size
            out[i, 1, a] = hi + grow + pad * size
