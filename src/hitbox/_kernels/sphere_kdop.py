"""Sphere against k-DOP, exact: the distance from the centre to the polytope.

Slab reject, then the k-DOP's box, then a projection by the dual active-set method of
Goldfarb & Idnani (1983) whose verdicts carry certificates, and an enumeration of faces,
edges and vertices as the slow twin. k-DOPs are ``(N, 2, S)`` slabs along the integer
directions ``axes (S, 3)`` whose first three are x, y, z; closed, and the tolerance
(``box_sat.REL_TOL`` of the magnitudes) only ever moves an answer towards "overlap".
"""

import math

import numpy as np
from numba import njit

from hitbox._kernels.box_sat import REL_TOL, slab_at
from hitbox._kernels.sphere_box import within
from hitbox._kernels.vec3 import planes_meet


@njit(inline="always")
def _kdop_holds(kd, j, axes, x, y, z, tol):
    """Is (x, y, z) inside k-DOP j, each slab widened by ``tol`` (NaN is outside)?"""
    for k in range(axes.shape[0]):
        p = axes[k, 0] * x + axes[k, 1] * y + axes[k, 2] * z
        if not (p >= kd[j, 0, k] - tol and p <= kd[j, 1, k] + tol):
            return False
    return True


@njit(inline="always")
def _plane(kd, j, axes, pl, cx, cy, cz):
    """Bounding plane ``pl`` of k-DOP j (slab pl % S; pl // S: 0 lo, 1 hi) as an outward
    normal n and a bound b with the centre c moved to the origin: n . (x - c) <= b."""
    ns = axes.shape[0]
    lo, hi, ax, ay, az, p = slab_at(kd, j, axes, pl % ns, cx, cy, cz)
    if pl >= ns:
        return ax, ay, az, hi - p
    return -ax, -ay, -az, p - lo


@njit(inline="always")
def _plane_at(kd, j, axes, pl):
    """Bounding plane ``pl`` of k-DOP j (as for :func:`_plane`) as ``a . x = d``: the
    slab's direction a and its lo or hi bound d."""
    ns = axes.shape[0]
    k = pl % ns
    return axes[k, 0], axes[k, 1], axes[k, 2], kd[j, pl // ns, k]


@njit(inline="always")
def _reaches(kd, j, axes, x, y, z, cx, cy, cz, rt, tol):
    """Does the point (x, y, z) lie in k-DOP j (to tol) and within rt of the centre?"""
    return _kdop_holds(kd, j, axes, x, y, z, tol) and within(x - cx, y - cy, z - cz, rt)


@njit(cache=True, nogil=True)
def _project_gi(kd, j, axes, cx, cy, cz, r, tol):
    """Distance test by the dual active-set method of Goldfarb & Idnani (1983) for
    min |y|^2 / 2 subject to n_i . y <= b_i (y = x - c): 1 overlap, 0 apart, -1 undecided.

    Each verdict carries its own certificate, checked apart from the bookkeeping:
    "overlap" is a point that satisfies every slab (to tol) within r + tol of the centre;
    "apart" is a set of multipliers u >= 0 whose dual value -|sum u_i n_i|^2 / 2 - sum
    u_i b_i exceeds (r + tol)^2 / 2 (weak duality: it bounds dist^2 / 2 from below).
    In 3D at most three planes are active; a handful of steps is the usual case.
    """
    ns = axes.shape[0]
    n_planes = 2 * ns
    act = np.empty(4, np.intp)  # active plane ids; the slot after them holds the new one
    u = np.zeros(4)
    nrm = np.empty((4, 3))
    bnd = np.empty(4)
    gram = np.empty((3, 3))
    rv = np.zeros(3)
    na = 0
    yx = 0.0
    yy = 0.0
    yz = 0.0
    rt = r + tol
    for _ in range(8 * n_planes):
        # the most violated plane (violation measured along the unit normal)
        worst = tol
        p = -1
        for pl in range(n_planes):
            nx, ny, nz, b = _plane(kd, j, axes, pl, cx, cy, cz)
            if not math.isfinite(b):
                continue
            viol = (nx * yx + ny * yy + nz * yz - b) / math.sqrt(
                nx * nx + ny * ny + nz * nz
            )
            if viol > worst:
                worst = viol
                p = pl
        if p < 0:  # y satisfies every slab to tol: the certificate of overlap
            return 1 if within(yx, yy, yz, rt) else 0
        px, py, pz, pb = _plane(kd, j, axes, p, cx, cy, cz)
        up = 0.0
        while True:
            # r = G^-1 N n_p, z = n_p - N^T r: n_p split along and across the active set
            for m in range(na):
                for q in range(na):
                    gram[m, q] = (
                        nrm[m, 0] * nrm[q, 0]
                        + nrm[m, 1] * nrm[q, 1]
                        + nrm[m, 2] * nrm[q, 2]
                    )
                rv[m] = nrm[m, 0] * px + nrm[m, 1] * py + nrm[m, 2] * pz
            if not _solve_small(gram, rv, na):
                return -1
            zx = px
            zy = py
            zz_ = pz
            for m in range(na):
                zx -= nrm[m, 0] * rv[m]
                zy -= nrm[m, 1] * rv[m]
                zz_ -= nrm[m, 2] * rv[m]
            z2 = zx * zx + zy * zy + zz_ * zz_
            t1 = np.inf
            drop = -1
            for m in range(na):
                if rv[m] > 0.0 and u[m] / rv[m] < t1:
                    t1 = u[m] / rv[m]
                    drop = m
            pp = px * px + py * py + pz * pz
            t2 = np.inf
            if z2 > 1e-12 * pp:
                t2 = (px * yx + py * yy + pz * yz - pb) / z2
            t = min(t1, t2)
            if not t < np.inf:
                return -1  # the slabs cannot all hold: leave it to the enumeration
            if t2 < np.inf:
                yx -= t * zx
                yy -= t * zy
                yz -= t * zz_
            for m in range(na):
                u[m] = max(u[m] - t * rv[m], 0.0)
            up += t
            if t2 <= t1:  # full step: p joins the active set
                if na == 3:
                    return -1
                act[na] = p
                nrm[na, 0] = px
                nrm[na, 1] = py
                nrm[na, 2] = pz
                bnd[na] = pb
                u[na] = up
                na += 1
                break
            # partial step: plane `drop` leaves the active set, p keeps its multiplier
            for m in range(drop, na - 1):
                act[m] = act[m + 1]
                nrm[m, 0] = nrm[m + 1, 0]
                nrm[m, 1] = nrm[m + 1, 1]
                nrm[m, 2] = nrm[m + 1, 2]
                bnd[m] = bnd[m + 1]
                u[m] = u[m + 1]
            na -= 1
        if not within(yx, yy, yz, rt):
            # the relaxed problem is already farther than r: certify by the dual value
            wx = 0.0
            wy = 0.0
            wz = 0.0
            ub = 0.0
            for m in range(na):
                wx += u[m] * nrm[m, 0]
                wy += u[m] * nrm[m, 1]
                wz += u[m] * nrm[m, 2]
                ub += u[m] * bnd[m]
            m2 = max(abs(wx), abs(wy), abs(wz), abs(ub), rt)
            if m2 == np.inf:
                return -1
            # -|w|^2/2 - u.b > rt^2/2, scaled by m2 against overflow
            wx /= m2
            wy /= m2
            wz /= m2
            q = rt / m2
            if -0.5 * (wx * wx + wy * wy + wz * wz) - ub / m2 / m2 > 0.5 * q * q:
                return 0
            return -1
    return -1


@njit
def _solve_small(g, rhs, n):
    """Solve g[:n, :n] x = rhs[:n] in place (n <= 3, symmetric), by Cramer's rule."""
    if n == 0:
        return True
    if n == 1:
        if g[0, 0] <= 0.0:
            return False
        rhs[0] /= g[0, 0]
        return True
    if n == 2:
        det = g[0, 0] * g[1, 1] - g[0, 1] * g[1, 0]
        if not abs(det) > 1e-9 * g[0, 0] * g[1, 1]:
            return False
        x0 = (rhs[0] * g[1, 1] - g[0, 1] * rhs[1]) / det
        x1 = (g[0, 0] * rhs[1] - g[1, 0] * rhs[0]) / det
        rhs[0] = x0
        rhs[1] = x1
        return True
    c00 = g[1, 1] * g[2, 2] - g[1, 2] * g[2, 1]
    c01 = g[1, 2] * g[2, 0] - g[1, 0] * g[2, 2]
    c02 = g[1, 0] * g[2, 1] - g[1, 1] * g[2, 0]
    det = g[0, 0] * c00 + g[0, 1] * c01 + g[0, 2] * c02
    if not abs(det) > 1e-9 * g[0, 0] * g[1, 1] * g[2, 2]:
        return False
    c10 = g[0, 2] * g[2, 1] - g[0, 1] * g[2, 2]
    c11 = g[0, 0] * g[2, 2] - g[0, 2] * g[2, 0]
    c12 = g[0, 1] * g[2, 0] - g[0, 0] * g[2, 1]
    c20 = g[0, 1] * g[1, 2] - g[0, 2] * g[1, 1]
    c21 = g[0, 2] * g[1, 0] - g[0, 0] * g[1, 2]
    c22 = g[0, 0] * g[1, 1] - g[0, 1] * g[1, 0]
    x0 = (c00 * rhs[0] + c10 * rhs[1] + c20 * rhs[2]) / det
    x1 = (c01 * rhs[0] + c11 * rhs[1] + c21 * rhs[2]) / det
    x2 = (c02 * rhs[0] + c12 * rhs[1] + c22 * rhs[2]) / det
    rhs[0] = x0
    rhs[1] = x1
    rhs[2] = x2
    return True


@njit(inline="always")  # see mixed._test_typed
def sphere_kdop(s, i, kd, j, axes):
    """Sphere i against k-DOP j: exact, by the distance from the centre to the polytope.

    1. Slab reject (the seed's face-by-face test): apart if the centre lies farther than r
       outside some slab, measured along the unit direction. Inside every slab: overlap.
    2. Clamp the centre to the x, y, z slabs (the k-DOP's box). If that point is in the
       k-DOP it is also the closest point of the k-DOP, so its distance decides.
    3. The projection onto the polytope by a dual active-set method (``_project_gi``),
       whose answers carry certificates (a point inside within r; a dual bound above r).
    4. If that is undecided (degenerate rounding), enumerate (``_enumerate``).
    """
    r = s.radius[i]
    if r < 0.0:
        return False
    cx = s.center[i, 0]
    cy = s.center[i, 1]
    cz = s.center[i, 2]
    ns = axes.shape[0]
    kmag = 0.0
    inside = True
    for k in range(ns):
        lo, hi, ax, ay, az, p = slab_at(kd, j, axes, k, cx, cy, cz)
        if lo > hi:
            return False
        norm = math.sqrt(ax * ax + ay * ay + az * az)
        if p < lo:
            if (lo - p) / norm > r:
                return False
            inside = False
        elif p > hi:
            if (p - hi) / norm > r:
                return False
            inside = False
        if math.isfinite(lo):
            kmag = max(kmag, abs(lo))
        if math.isfinite(hi):
            kmag = max(kmag, abs(hi))
    if inside:
        return True
    rmag = r if math.isfinite(r) else 0.0
    tol = REL_TOL * (abs(cx) + abs(cy) + abs(cz) + rmag + kmag)
    rt = r + tol
    # 2. The k-DOP's box holds the k-DOP: its closest point, when inside, is the answer.
    qx = min(max(cx, kd[j, 0, 0]), kd[j, 1, 0])
    qy = min(max(cy, kd[j, 0, 1]), kd[j, 1, 1])
    qz = min(max(cz, kd[j, 0, 2]), kd[j, 1, 2])
    if not within(qx - cx, qy - cy, qz - cz, rt):
        return False  # farther than r from the box, so from the k-DOP inside it
    if _kdop_holds(kd, j, axes, qx, qy, qz, tol):
        return True
    verdict = _project_gi(kd, j, axes, cx, cy, cz, r, tol)
    if verdict >= 0:
        return verdict == 1
    return _enumerate(kd, j, axes, cx, cy, cz, r, tol)


@njit(cache=True, nogil=True)
def _enumerate(kd, j, axes, cx, cy, cz, r, tol):
    """Sphere (c, r) against k-DOP j by enumeration: exact, the slow twin of the rest.

    The closest point x* lies in the relative interior of a face F and is the projection
    of c onto aff(F), the meet of 1, 2 or 3 independent bounding planes tight on F. Each
    passes through x*, so if x* is within r they all lie within r of c. Every plane, line
    and point cut from those "near" planes is tried: one that lies in the k-DOP within r
    proves overlap; if none does, x* is farther than r. At most C(K, 3) vertices.
    """
    ns = axes.shape[0]
    rt = r + tol
    # Planes (slab k, side 0 lo / 1 hi) within r of the centre.
    n_planes = 2 * ns
    near = np.empty(n_planes, np.intp)
    m = 0
    for pl in range(n_planes):
        ax, ay, az, d = _plane_at(kd, j, axes, pl)
        if not math.isfinite(d):
            continue
        norm = math.sqrt(ax * ax + ay * ay + az * az)
        if abs(ax * cx + ay * cy + az * cz - d) / norm <= rt:
            near[m] = pl
            m += 1
    for p in range(m):
        ax, ay, az, dp = _plane_at(kd, j, axes, near[p])
        aa = ax * ax + ay * ay + az * az
        ea = ax * cx + ay * cy + az * cz - dp
        # Face: projection onto plane p.
        lam = ea / aa
        x = cx - lam * ax
        y = cy - lam * ay
        z = cz - lam * az
        if _reaches(kd, j, axes, x, y, z, cx, cy, cz, rt, tol):
            return True
        for q in range(p + 1, m):
            bx, by, bz, dq = _plane_at(kd, j, axes, near[q])
            ab = ax * bx + ay * by + az * bz
            bb = bx * bx + by * by + bz * bz
            det = aa * bb - ab * ab
            if det < 0.5:  # integer directions: parallel planes give exactly 0
                continue
            eb = bx * cx + by * cy + bz * cz - dq
            # Edge: projection onto the line where planes p and q meet.
            l1 = (bb * ea - ab * eb) / det
            l2 = (aa * eb - ab * ea) / det
            x = cx - l1 * ax - l2 * bx
            y = cy - l1 * ay - l2 * by
            z = cz - l1 * az - l2 * bz
            if _reaches(kd, j, axes, x, y, z, cx, cy, cz, rt, tol):
                return True
            for w in range(q + 1, m):
                gx, gy, gz, dw = _plane_at(kd, j, axes, near[w])
                # Vertex: the three planes' common point.
                x, y, z, det3 = planes_meet(
                    (ax, ay, az), (bx, by, bz), (gx, gy, gz), dp, dq, dw
                )
                if abs(det3) < 0.5:  # integer directions: 0 unless independent
                    continue
                if _reaches(kd, j, axes, x, y, z, cx, cy, cz, rt, tol):
                    return True
    return False
