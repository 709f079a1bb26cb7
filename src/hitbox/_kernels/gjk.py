"""GJK: distance and overlap of two convex cores given by their support functions.

The simplex lives in a caller-owned workspace ``ws (9, 10)``: per point (rows 0-3) the
Minkowski difference point ``w = a - b`` (columns 0-2), its support points ``a`` on A
(3-5) and ``b`` on B (6-8), and its barycentric weight in the closest point (9); row 4 is
scratch, rows 5-8 the previous simplex.
"""

import math

import numpy as np
from numba import njit

from hitbox._kernels.primitives import TOUCH, support

MAX_ITER = 128
# Stop when the distance is known to 1e-12 relative, or to 1e-15 of the scale.
REL = 1e-12
ABS = 1e-15

#: A simplex that stalls (or repeats a point) within this fraction of the scale of the
#: origin, its lower bound at or below the touching tolerance, counts as touching: GJK
#: has reached its rounding floor there. On curved cores that floor lies far above
#: TOUCH: a cylinder's side along a box's face stalled 1.6e-9 to 1.3e-7 (of a scale of
#: 1 to 3) away, where the shapes touch, and read apart.
STALL_TOUCH = 2.0**-20
#: Restarts from the closest point alone when the simplex stalls without proving
#: separation, before giving up.
MAX_RESTARTS = 8

CONVERGED = 0  # separated: v is the closest point of A - B to the origin
OVERLAP = 1  # the origin is in A - B, or within the touching tolerance of it
SEPARATED = 2  # stopped early: the distance exceeds the caller's ``stop_beyond``
STALLED = -1  # grow(): the new point brought the simplex no nearer


@njit(cache=True, nogil=True)
def _dot(ws, p, x, y, z):
    return ws[p, 0] * x + ws[p, 1] * y + ws[p, 2] * z


@njit(cache=True, nogil=True)
def _keep(ws, n, lam):
    """Keep the points with weight > 0 (in order), store their weights; return the
    count and the weighted point v."""
    m = 0
    vx = vy = vz = 0.0
    for p in range(n):
        if lam[p] > 0.0:
            if m != p:
                for c in range(9):
                    ws[m, c] = ws[p, c]
            ws[m, 9] = lam[p]
            vx += lam[p] * ws[m, 0]
            vy += lam[p] * ws[m, 1]
            vz += lam[p] * ws[m, 2]
            m += 1
    return m, vx, vy, vz


@njit(cache=True, nogil=True)
def _segment(ws, p, q):
    """Weights (of p, q) of the origin's closest point on segment pq."""
    ex, ey, ez = ws[q, 0] - ws[p, 0], ws[q, 1] - ws[p, 1], ws[q, 2] - ws[p, 2]
    ee = ex * ex + ey * ey + ez * ez
    t = -_dot(ws, p, ex, ey, ez)
    if t <= 0.0 or ee <= 0.0:
        return 1.0, 0.0
    if t >= ee:
        return 0.0, 1.0
    t /= ee
    return 1.0 - t, t


# From Ericson, Real-Time Collision Detection, 5.1.5 (ClosestPtPointTriangle).
@njit(cache=True, nogil=True)
def _triangle(ws, p, q, r):
    """Weights (of p, q, r) of the origin's closest point on triangle pqr."""
    abx, aby, abz = ws[q, 0] - ws[p, 0], ws[q, 1] - ws[p, 1], ws[q, 2] - ws[p, 2]
    acx, acy, acz = ws[r, 0] - ws[p, 0], ws[r, 1] - ws[p, 1], ws[r, 2] - ws[p, 2]
    d1, d2 = _toward(ws, p, abx, aby, abz, acx, acy, acz)
    if d1 <= 0.0 and d2 <= 0.0:
        return 1.0, 0.0, 0.0
    d3, d4 = _toward(ws, q, abx, aby, abz, acx, acy, acz)
    hit, wp, wq, vc = _vertex_or_edge(d1, d2, d3, d4)
    if hit:
        return wp, wq, 0.0
    d5, d6 = _toward(ws, r, abx, aby, abz, acx, acy, acz)
    hit, wp, wr, vb = _vertex_or_edge(d2, d1, d6, d5)
    if hit:
        return wp, 0.0, wr
    va = d3 * d6 - d5 * d4
    if va <= 0.0 and d4 - d3 >= 0.0 and d5 - d6 >= 0.0:
        t = (d4 - d3) / ((d4 - d3) + (d5 - d6))
        return 0.0, 1.0 - t, t
    total = va + vb + vc
    if total > 0.0:
        ok, wp, wq, wr = _face(ws, p, q, r, abx, aby, abz, acx, acy, acz)
        if ok:
            return wp, wq, wr
        return va / total, vb / total, vc / total
    # a degenerate (collinear) triangle: the best of its edges
    best, wp, wq, wr = np.inf, 1.0, 0.0, 0.0
    for e in range(3):
        s, t = (p, q) if e == 0 else ((q, r) if e == 1 else (r, p))
        u, w = _segment(ws, s, t)
        x = u * ws[s, 0] + w * ws[t, 0]
        y = u * ws[s, 1] + w * ws[t, 1]
        z = u * ws[s, 2] + w * ws[t, 2]
        d = x * x + y * y + z * z
        if d < best:
            best = d
            wp = u if s == p else (w if t == p else 0.0)
            wq = u if s == q else (w if t == q else 0.0)
            wr = u if s == r else (w if t == r else 0.0)
    return wp, wq, wr


@njit(cache=True, nogil=True)
def _face(ws, p, q, r, abx, aby, abz, acx, acy, acz):
    """Weights of the origin's projection on the plane of triangle pqr by signed areas
    in the coordinate plane where the triangle is widest (Montanari, Petrinic and
    Barbieri 2017): a sliver (two points close, one far) keeps its closest point's
    precision, which Ericson's products of dot products lose. Returns (ok, wp, wq, wr);
    not ok where a weight comes out negative (a rounding-level face: use Ericson's)."""
    nx, ny, nz = aby * acz - abz * acy, abz * acx - abx * acz, abx * acy - aby * acx
    nn = nx * nx + ny * ny + nz * nz
    if nn == 0.0:
        return False, 0.0, 0.0, 0.0
    s = _dot(ws, p, nx, ny, nz) / nn
    # the projection, from p: o - p = n s - p
    ox, oy, oz = nx * s - ws[p, 0], ny * s - ws[p, 1], nz * s - ws[p, 2]
    ax, ay, az = abs(nx), abs(ny), abs(nz)
    if ax >= ay and ax >= az:  # drop x: (y, z)
        area = nx
        u1, u2, e1, e2, o1, o2 = aby, abz, acy, acz, oy, oz
    elif ay >= az:  # drop y: (z, x)
        area = ny
        u1, u2, e1, e2, o1, o2 = abz, abx, acz, acx, oz, ox
    else:  # drop z: (x, y)
        area = nz
        u1, u2, e1, e2, o1, o2 = abx, aby, acx, acy, ox, oy
    wq = (o1 * e2 - o2 * e1) / area
    wr = (u1 * o2 - u2 * o1) / area
    wp = 1.0 - wq - wr
    if wp < 0.0 or wq < 0.0 or wr < 0.0:
        return False, 0.0, 0.0, 0.0
    return True, wp, wq, wr


@njit(cache=True, nogil=True)
def _toward(ws, p, abx, aby, abz, acx, acy, acz):
    """How far the origin lies from point p along ab and along ac: (-p . ab, -p . ac)."""
    return -_dot(ws, p, abx, aby, abz), -_dot(ws, p, acx, acy, acz)


@njit(cache=True, nogil=True)
def _vertex_or_edge(a_own, a_other, x_own, x_other):
    """Vertex X of triangle A X Y, then edge AX, as regions of the origin (RTCD 5.1.5),
    from :func:`_toward` of A and of X along AX ("own") and AY ("other"). Returns (hit,
    weight of A, weight of X, v): hit when the closest point is X or on AX; v, the
    barycentric numerator of Y, is what the face region needs when not."""
    if x_own >= 0.0 and x_other <= x_own:
        return True, 0.0, 1.0, 0.0
    v = a_own * x_other - x_own * a_other
    if v <= 0.0 and a_own >= 0.0 and x_own <= 0.0:
        t = a_own / (a_own - x_own)
        return True, 1.0 - t, t, v
    return False, 0.0, 0.0, v


@njit(cache=True, nogil=True)
def _outside(ws, p, q, r, s):
    """Whether the origin lies on the far side of plane pqr from point s (or the
    simplex is flat there, so every face must be looked at)."""
    abx, aby, abz = ws[q, 0] - ws[p, 0], ws[q, 1] - ws[p, 1], ws[q, 2] - ws[p, 2]
    acx, acy, acz = ws[r, 0] - ws[p, 0], ws[r, 1] - ws[p, 1], ws[r, 2] - ws[p, 2]
    nx, ny, nz = aby * acz - abz * acy, abz * acx - abx * acz, abx * acy - aby * acx
    sign_o = -_dot(ws, p, nx, ny, nz)
    sign_s = (
        (ws[s, 0] - ws[p, 0]) * nx
        + (ws[s, 1] - ws[p, 1]) * ny
        + (ws[s, 2] - ws[p, 2]) * nz
    )
    if sign_s == 0.0:
        return True
    return sign_o * sign_s < 0.0


@njit(cache=True, nogil=True)
def _det(a, b, c):
    return (a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2])
            + a[2] * (b[0] * c[1] - b[1] * c[0]))  # fmt: skip


@njit(inline="always")
def _nearest_face(ws, lam, only_outside):
    """The origin's closest point on the nearest face of the tetrahedron in ws[:4]
    (weights into lam, the fourth point's 0), over the faces it lies beyond when
    ``only_outside``, else over all four; returns whether any face was looked at."""
    best = np.inf
    any_out = False
    for f in range(4):
        p, q, r, s = (
            (0, 1, 2, 3)
            if f == 0
            else ((0, 2, 3, 1) if f == 1 else ((0, 3, 1, 2) if f == 2 else (1, 3, 2, 0)))
        )
        if only_outside and not _outside(ws, p, q, r, s):
            continue
        any_out = True
        u, v, w = _triangle(ws, p, q, r)
        x = u * ws[p, 0] + v * ws[q, 0] + w * ws[r, 0]
        y = u * ws[p, 1] + v * ws[q, 1] + w * ws[r, 1]
        z = u * ws[p, 2] + v * ws[q, 2] + w * ws[r, 2]
        d = x * x + y * y + z * z
        if d < best:
            best = d
            lam[s] = 0.0
            lam[p], lam[q], lam[r] = u, v, w
    return any_out


@njit(inline="always")
def _inside_weights(ws):
    """The origin's barycentric weights in the tetrahedron ws[:4], by volumes, into
    column 9; whether they hold it (all >= -1e-9, finite)."""
    e1 = (ws[1, 0] - ws[0, 0], ws[1, 1] - ws[0, 1], ws[1, 2] - ws[0, 2])
    e2 = (ws[2, 0] - ws[0, 0], ws[2, 1] - ws[0, 1], ws[2, 2] - ws[0, 2])
    e3 = (ws[3, 0] - ws[0, 0], ws[3, 1] - ws[0, 1], ws[3, 2] - ws[0, 2])
    o = (-ws[0, 0], -ws[0, 1], -ws[0, 2])
    vol = _det(e1, e2, e3)
    if vol == 0.0:
        return False
    ws[1, 9] = _det(o, e2, e3) / vol
    ws[2, 9] = _det(e1, o, e3) / vol
    ws[3, 9] = _det(e1, e2, o) / vol
    ws[0, 9] = 1.0 - ws[1, 9] - ws[2, 9] - ws[3, 9]
    for p in range(4):
        if not ws[p, 9] >= -1e-9:
            return False
    return True


# From Ericson, Real-Time Collision Detection, 5.1.6 (ClosestPtPointTetrahedron).
@njit(cache=True, nogil=True)
def closest(ws, n, lam):
    """Reduce the simplex of ``n`` points to the smallest one holding the origin's
    closest point; return (count, vx, vy, vz). A count of 4 means the origin is inside."""
    if n == 1:
        lam[0] = 1.0
    elif n == 2:
        lam[0], lam[1] = _segment(ws, 0, 1)
    elif n == 3:
        lam[0], lam[1], lam[2] = _triangle(ws, 0, 1, 2)
    else:
        if not _nearest_face(ws, lam, True):
            # no face has the origin beyond it: inside, by the volume weights, unless
            # those say otherwise (a nearly flat simplex misleads the face signs; then
            # the nearest of all four faces)
            if _inside_weights(ws):
                return 4, 0.0, 0.0, 0.0
            _nearest_face(ws, lam, False)
    return _keep(ws, n, lam)


@njit(inline="always")
def grow(ws, n, lam, vv):
    """Reduce the simplex of n points and the new point ``ws[n]`` (:func:`closest`):
    (count, vx, vy, vz), or (STALLED, ...) with the n points restored when it came no
    nearer the origin than ``vv``, the squared distance so far."""
    for p in range(n):
        for c in range(10):
            ws[5 + p, c] = ws[p, c]
    for p in range(n + 1):
        lam[p] = 0.0
    m, ux, uy, uz = closest(ws, n + 1, lam)
    if m < 4 and ux * ux + uy * uy + uz * uz >= vv:
        for p in range(n):
            for c in range(10):
                ws[p, c] = ws[5 + p, c]
        return STALLED, ux, uy, uz
    return m, ux, uy, uz


@njit(cache=True, nogil=True)
def gjk(sa, i, sb, j, ws, scale, stop_beyond):
    """Gilbert-Johnson-Keerthi (1988) with van den Bergen's termination (Collision
    Detection in Interactive 3D Environments, 2004) on the cores of A and B.

    Returns (status, n, vx, vy, vz): ``v = a - b`` the closest point of A - B found,
    the simplex in ``ws[:n]`` with weights in column 9. OVERLAP when ``|v|`` is within
    ``TOUCH * scale`` or the origin is inside; SEPARATED as soon as the distance is known
    to exceed ``stop_beyond`` (pass inf to find the distance)."""
    lam = ws[4]
    dx = sa.trans[i, 0] - sb.trans[j, 0]
    dy = sa.trans[i, 1] - sb.trans[j, 1]
    dz = sa.trans[i, 2] - sb.trans[j, 2]
    if dx == 0.0 and dy == 0.0 and dz == 0.0:
        dx = 1.0
    ax, ay, az = support(sa, i, -dx, -dy, -dz)
    bx, by, bz = support(sb, j, dx, dy, dz)
    ws[0, 0], ws[0, 1], ws[0, 2] = ax - bx, ay - by, az - bz
    ws[0, 3], ws[0, 4], ws[0, 5] = ax, ay, az
    ws[0, 6], ws[0, 7], ws[0, 8] = bx, by, bz
    ws[0, 9] = 1.0
    n = 1
    vx, vy, vz = ws[0, 0], ws[0, 1], ws[0, 2]
    tol = TOUCH * scale
    tol2 = tol * tol
    abs_err = ABS * scale
    restarts = 0
    for _ in range(MAX_ITER):
        vv = vx * vx + vy * vy + vz * vz
        if vv <= tol2:
            return 1, n, vx, vy, vz
        ax, ay, az = support(sa, i, -vx, -vy, -vz)
        bx, by, bz = support(sb, j, vx, vy, vz)
        wx, wy, wz = ax - bx, ay - by, az - bz
        vw = vx * wx + vy * wy + vz * wz
        if vw > 0.0 and vw * vw > vv * stop_beyond * stop_beyond:
            return 2, n, vx, vy, vz
        norm = math.sqrt(vv)
        if vv - vw <= norm * max(REL * norm, abs_err):
            return 0, n, vx, vy, vz
        repeated = False
        for p in range(n):
            if ws[p, 0] == wx and ws[p, 1] == wy and ws[p, 2] == wz:
                repeated = True
        m = STALLED
        if not repeated:
            ws[n, 0], ws[n, 1], ws[n, 2] = wx, wy, wz
            ws[n, 3], ws[n, 4], ws[n, 5] = ax, ay, az
            ws[n, 6], ws[n, 7], ws[n, 8] = bx, by, bz
            m, ux, uy, uz = grow(ws, n, lam, vv)
            if m == 4:
                return 1, 4, 0.0, 0.0, 0.0
        if m == STALLED:  # no nearer: a repeated point, or a sliver simplex's rounding
            # restarts only while separation is in doubt: a polytope's repeated vertex
            # at a lower bound above the tolerance is its exact answer
            if restarts == MAX_RESTARTS or n == 1 or vw > tol * norm:
                return _stalled(vw, norm, tol, scale), n, vx, vy, vz
            # start again from the closest point alone (a point of A - B, with its
            # witnesses): a segment is well conditioned where the sliver was not
            restarts += 1
            ax, ay, az, bx, by, bz = witnesses(ws, n)
            ws[0, 0], ws[0, 1], ws[0, 2] = vx, vy, vz
            ws[0, 3], ws[0, 4], ws[0, 5] = ax, ay, az
            ws[0, 6], ws[0, 7], ws[0, 8] = bx, by, bz
            ws[0, 9] = 1.0
            n = 1
            continue
        n, vx, vy, vz = m, ux, uy, uz
    return 0, n, vx, vy, vz


@njit(inline="always")
def _stalled(vw, norm, tol, scale):
    """The status of a simplex that can come no nearer: OVERLAP when the origin lies
    within STALL_TOUCH of the scale and the lower bound ``vw / norm`` does not exceed
    the touching tolerance (no separation is proved), else CONVERGED."""
    if vw <= tol * norm and norm <= STALL_TOUCH * scale:
        return OVERLAP
    return CONVERGED


@njit(cache=True, nogil=True)
def witnesses(ws, n):
    """The points on A and on B (weighted support points) of the simplex."""
    ax = ay = az = bx = by = bz = 0.0
    for p in range(n):
        w = ws[p, 9]
        ax += w * ws[p, 3]
        ay += w * ws[p, 4]
        az += w * ws[p, 5]
        bx += w * ws[p, 6]
        by += w * ws[p, 7]
        bz += w * ws[p, 8]
    return ax, ay, az, bx, by, bz
