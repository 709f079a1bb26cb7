"""Cross-kind overlap kernels (SPEC §7): sphere, AABB, k-DOP and OBB against each other.

Layouts, as everywhere in hitbox: spheres ``s.center (N, D)``, ``s.radius (N,)``
(negative radius: empty); boxes ``(N, 2, D)`` lo/hi (empty: +inf/-inf); k-DOPs
``(N, 2, S)`` along the integer directions ``axes (S, 3)`` whose first three are x, y, z;
OBBs ``o.center (N, 3)``, ``o.half (N, 3)``, ``o.rot (N, 3, 3)`` with the axes in the
columns (negative half: empty).

Each pair of kinds has one predicate ``<kind>_<kind>(a, i, b, j[, axes])`` (closed:
touching counts as overlapping), an elementwise kernel that broadcasts a single item
against many, and a ``filter_`` kernel that tests candidate pairs ``cand (2, n)`` from a
box sweep.

Tolerances only ever move an answer towards "overlap": a predicate may call two volumes
that are apart by about 1e-12 of their coordinates' magnitude overlapping, never the
reverse.
"""

import math

import numpy as np
from numba import njit

#: Relative slack of the SAT test (added to |R| as in Ericsson's RTCD §4.4.1, and to the
#: separation threshold) and of the polytope feasibility checks.
REL_TOL = 1e-12


# -- sphere vs AABB ----------------------------------------------------------------------


@njit(inline="always")
def within(ex, ey, ez, r):
    """sqrt(ex**2 + ey**2 + ez**2) <= r, scaled by the largest term so that no square
    overflows or underflows (huge and tiny scenes answer as unit-sized ones)."""
    m = max(abs(ex), abs(ey), abs(ez))
    if not m <= r:
        return False
    if m == 0.0:
        return True
    x = ex / m
    y = ey / m
    z = ez / m
    q = r / m
    return x * x + y * y + z * z <= q * q


@njit(inline="always")
def sphere_aabb(s, i, boxes, j):
    """Closest point of the box (per-axis clamp, RTCD §5.1.3) within r. Exact up to a few
    ulps (the distance is scaled by its largest term, so no square overflows)."""
    r = s.radius[i]
    if r < 0.0:
        return False
    m = 0.0
    for k in range(boxes.shape[2]):
        lo = boxes[j, 0, k]
        hi = boxes[j, 1, k]
        if lo > hi:
            return False
        c = s.center[i, k]
        m = max(m, lo - c, c - hi)
    if not m <= r:
        return False
    if m == 0.0:
        return True
    d2 = 0.0
    for k in range(boxes.shape[2]):
        c = s.center[i, k]
        e = max(boxes[j, 0, k] - c, c - boxes[j, 1, k], 0.0) / m
        d2 += e * e
    q = r / m
    return d2 <= q * q


# -- sphere vs OBB -----------------------------------------------------------------------


@njit(inline="always")
def sphere_obb(s, i, o, j):
    """The sphere-AABB clamp in the box frame (RTCD §5.2.5). Exact."""
    r = s.radius[i]
    if r < 0.0:
        return False
    if o.half[j, 0] < 0.0 or o.half[j, 1] < 0.0 or o.half[j, 2] < 0.0:
        return False
    dx = s.center[i, 0] - o.center[j, 0]
    dy = s.center[i, 1] - o.center[j, 1]
    dz = s.center[i, 2] - o.center[j, 2]
    rot = o.rot
    u0 = dx * rot[j, 0, 0] + dy * rot[j, 1, 0] + dz * rot[j, 2, 0]
    u1 = dx * rot[j, 0, 1] + dy * rot[j, 1, 1] + dz * rot[j, 2, 1]
    u2 = dx * rot[j, 0, 2] + dy * rot[j, 1, 2] + dz * rot[j, 2, 2]
    e0 = max(abs(u0) - o.half[j, 0], 0.0)
    e1 = max(abs(u1) - o.half[j, 1], 0.0)
    e2 = max(abs(u2) - o.half[j, 2], 0.0)
    return within(e0, e1, e2, r)


# -- AABB vs OBB -------------------------------------------------------------------------


@njit(inline="always")
def _apart(tl, ra, rb, slack):
    """Separated on an axis: the centre offset's projection beyond both radii, with
    REL_TOL of the radii and ``slack`` (REL_TOL of the centres' magnitude) to spare."""
    return abs(tl) > (ra + rb) * (1.0 + REL_TOL) + slack


@njit
def _box_obb_sat(ca0, ca1, ca2, ea0, ea1, ea2, o, j):
    """15-axis SAT between the world-aligned box (centre ca, half ea) and OBB j.

    From Real-Time Collision Detection §4.4.1 (Gottschalk's OBB test) with A's axes the
    identity, so R[m, n] = A_m . B_n is ``o.rot[j]`` itself. REL_TOL is added to |R| so
    that (near-)parallel edges, whose cross product is (nearly) zero, never separate, and
    the threshold grows by REL_TOL of the magnitudes so rounding in the centres does not.
    """
    t0 = o.center[j, 0] - ca0
    t1 = o.center[j, 1] - ca1
    t2 = o.center[j, 2] - ca2
    h0 = o.half[j, 0]
    h1 = o.half[j, 1]
    h2 = o.half[j, 2]
    r00 = o.rot[j, 0, 0]
    r01 = o.rot[j, 0, 1]
    r02 = o.rot[j, 0, 2]
    r10 = o.rot[j, 1, 0]
    r11 = o.rot[j, 1, 1]
    r12 = o.rot[j, 1, 2]
    r20 = o.rot[j, 2, 0]
    r21 = o.rot[j, 2, 1]
    r22 = o.rot[j, 2, 2]
    a00 = abs(r00) + REL_TOL
    a01 = abs(r01) + REL_TOL
    a02 = abs(r02) + REL_TOL
    a10 = abs(r10) + REL_TOL
    a11 = abs(r11) + REL_TOL
    a12 = abs(r12) + REL_TOL
    a20 = abs(r20) + REL_TOL
    a21 = abs(r21) + REL_TOL
    a22 = abs(r22) + REL_TOL
    cmag = max(abs(ca0), abs(ca1), abs(ca2))
    cmag = max(cmag, abs(o.center[j, 0]), abs(o.center[j, 1]), abs(o.center[j, 2]))
    sl = REL_TOL * cmag
    # A's face normals: the world axes
    if _apart(t0, ea0, h0 * a00 + h1 * a01 + h2 * a02, sl):
        return False
    if _apart(t1, ea1, h0 * a10 + h1 * a11 + h2 * a12, sl):
        return False
    if _apart(t2, ea2, h0 * a20 + h1 * a21 + h2 * a22, sl):
        return False
    # B's face normals: the columns of rot
    if _apart(t0 * r00 + t1 * r10 + t2 * r20, ea0 * a00 + ea1 * a10 + ea2 * a20, h0, sl):
        return False
    if _apart(t0 * r01 + t1 * r11 + t2 * r21, ea0 * a01 + ea1 * a11 + ea2 * a21, h1, sl):
        return False
    if _apart(t0 * r02 + t1 * r12 + t2 * r22, ea0 * a02 + ea1 * a12 + ea2 * a22, h2, sl):
        return False
    # edge axes A_m x B_n: |t2 r1n - t1 r2n| etc. (RTCD table 4.1 with A = identity)
    if _apart(t2 * r10 - t1 * r20, ea1 * a20 + ea2 * a10, h1 * a02 + h2 * a01, sl):
        return False
    if _apart(t2 * r11 - t1 * r21, ea1 * a21 + ea2 * a11, h2 * a00 + h0 * a02, sl):
        return False
    if _apart(t2 * r12 - t1 * r22, ea1 * a22 + ea2 * a12, h0 * a01 + h1 * a00, sl):
        return False
    if _apart(t0 * r20 - t2 * r00, ea2 * a00 + ea0 * a20, h1 * a12 + h2 * a11, sl):
        return False
    if _apart(t0 * r21 - t2 * r01, ea2 * a01 + ea0 * a21, h2 * a10 + h0 * a12, sl):
        return False
    if _apart(t0 * r22 - t2 * r02, ea2 * a02 + ea0 * a22, h0 * a11 + h1 * a10, sl):
        return False
    if _apart(t1 * r00 - t0 * r10, ea0 * a10 + ea1 * a00, h1 * a22 + h2 * a21, sl):
        return False
    if _apart(t1 * r01 - t0 * r11, ea0 * a11 + ea1 * a01, h2 * a20 + h0 * a22, sl):
        return False
    if _apart(t1 * r02 - t0 * r12, ea0 * a12 + ea1 * a02, h0 * a21 + h1 * a20, sl):
        return False
    return True


@njit
def box_obb(lo0, lo1, lo2, hi0, hi1, hi2, o, j):
    """AABB (given by its six bounds) against OBB j: the SAT with the AABB as an OBB.

    An unbounded AABB is first cut down to the OBB's own box, widened by REL_TOL: the OBB
    lies inside that box, so the cut changes no answer and keeps the SAT finite.
    """
    if lo0 > hi0 or lo1 > hi1 or lo2 > hi2:
        return False
    if o.half[j, 0] < 0.0 or o.half[j, 1] < 0.0 or o.half[j, 2] < 0.0:
        return False
    if not (
        math.isfinite(lo0)
        and math.isfinite(lo1)
        and math.isfinite(lo2)
        and math.isfinite(hi0)
        and math.isfinite(hi1)
        and math.isfinite(hi2)
    ):
        lo = np.array((lo0, lo1, lo2))
        hi = np.array((hi0, hi1, hi2))
        for m in range(3):
            ext = 0.0
            for n in range(3):
                ext += abs(o.rot[j, m, n]) * o.half[j, n]
            c = o.center[j, m]
            pad = REL_TOL * (abs(c) + ext) + ext * REL_TOL
            lo[m] = max(lo[m], c - ext - pad)
            hi[m] = min(hi[m], c + ext + pad)
            if lo[m] > hi[m]:
                return False
        lo0, lo1, lo2 = lo[0], lo[1], lo[2]
        hi0, hi1, hi2 = hi[0], hi[1], hi[2]
    return _box_obb_sat(
        0.5 * (lo0 + hi0),
        0.5 * (lo1 + hi1),
        0.5 * (lo2 + hi2),
        0.5 * (hi0 - lo0),
        0.5 * (hi1 - lo1),
        0.5 * (hi2 - lo2),
        o,
        j,
    )


@njit(inline="always")
def aabb_obb(boxes, i, o, j):
    """AABB i against OBB j: 15-axis SAT, the AABB taken as an OBB. Exact (to REL_TOL)."""
    return box_obb(
        boxes[i, 0, 0],
        boxes[i, 0, 1],
        boxes[i, 0, 2],
        boxes[i, 1, 0],
        boxes[i, 1, 1],
        boxes[i, 1, 2],
        o,
        j,
    )


# -- sphere vs k-DOP ---------------------------------------------------------------------


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
    k = pl % ns
    ax = axes[k, 0]
    ay = axes[k, 1]
    az = axes[k, 2]
    p = ax * cx + ay * cy + az * cz
    if pl >= ns:
        return ax, ay, az, kd[j, 1, k] - p
    return -ax, -ay, -az, p - kd[j, 0, k]


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


@njit
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
        lo = kd[j, 0, k]
        hi = kd[j, 1, k]
        if lo > hi:
            return False
        ax = axes[k, 0]
        ay = axes[k, 1]
        az = axes[k, 2]
        p = ax * cx + ay * cy + az * cz
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
    # Planes (slab k, side 0 lo / 1 hi) within r of the centre, as a bit mask.
    n_planes = 2 * ns
    near = 0
    for pl in range(n_planes):
        k = pl % ns
        d = kd[j, pl // ns, k]
        if not math.isfinite(d):
            continue
        ax = axes[k, 0]
        ay = axes[k, 1]
        az = axes[k, 2]
        norm = math.sqrt(ax * ax + ay * ay + az * az)
        if abs(ax * cx + ay * cy + az * cz - d) / norm <= rt:
            near |= 1 << pl
    for p in range(n_planes):
        if not (near >> p) & 1:
            continue
        kp = p % ns
        ax = axes[kp, 0]
        ay = axes[kp, 1]
        az = axes[kp, 2]
        dp = kd[j, p // ns, kp]
        aa = ax * ax + ay * ay + az * az
        ea = ax * cx + ay * cy + az * cz - dp
        # Face: projection onto plane p.
        lam = ea / aa
        x = cx - lam * ax
        y = cy - lam * ay
        z = cz - lam * az
        if _kdop_holds(kd, j, axes, x, y, z, tol):
            if within(x - cx, y - cy, z - cz, rt):
                return True
        for q in range(p + 1, n_planes):
            if not (near >> q) & 1:
                continue
            kq = q % ns
            bx = axes[kq, 0]
            by = axes[kq, 1]
            bz = axes[kq, 2]
            dq = kd[j, q // ns, kq]
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
            if _kdop_holds(kd, j, axes, x, y, z, tol):
                if within(x - cx, y - cy, z - cz, rt):
                    return True
            for w in range(q + 1, n_planes):
                if not (near >> w) & 1:
                    continue
                kw = w % ns
                gx = axes[kw, 0]
                gy = axes[kw, 1]
                gz = axes[kw, 2]
                dw = kd[j, w // ns, kw]
                # Vertex: the three planes' common point, by Cramer's rule.
                c0x = by * gz - bz * gy
                c0y = bz * gx - bx * gz
                c0z = bx * gy - by * gx
                det3 = ax * c0x + ay * c0y + az * c0z
                if abs(det3) < 0.5:
                    continue
                c1x = gy * az - gz * ay
                c1y = gz * ax - gx * az
                c1z = gx * ay - gy * ax
                c2x = ay * bz - az * by
                c2y = az * bx - ax * bz
                c2z = ax * by - ay * bx
                x = (dp * c0x + dq * c1x + dw * c2x) / det3
                y = (dp * c0y + dq * c1y + dw * c2y) / det3
                z = (dp * c0z + dq * c1z + dw * c2z) / det3
                if _kdop_holds(kd, j, axes, x, y, z, tol):
                    if within(x - cx, y - cy, z - cz, rt):
                        return True
    return False


# -- AABB vs k-DOP -----------------------------------------------------------------------


@njit
def aabb_kdop(boxes, i, kd, j, axes):
    """AABB i against k-DOP j: the box's exact k-DOP against the k-DOP, slab by slab.

    Conservative: the box lies inside its own k-DOP, so slabs that are apart prove the box
    and the k-DOP apart; two k-DOPs whose slabs all meet may still be apart along a
    direction outside the table. Tighter than the seed's substitute (the box's sphere),
    whose every slab is wider. The diagonal slabs of the box are sums of at most three
    exact products (directions are small integers), widened by 1e-15 of their magnitude
    for the rounding of the sum.
    """
    for k in range(axes.shape[0]):
        if k < 3:
            blo = boxes[i, 0, k]
            bhi = boxes[i, 1, k]
        else:
            blo = 0.0
            bhi = 0.0
            mag = 0.0
            for m in range(3):
                a = axes[k, m]
                if a == 0.0:
                    continue
                u = a * boxes[i, 0, m]
                v = a * boxes[i, 1, m]
                blo += min(u, v)
                bhi += max(u, v)
                mag += abs(u) + abs(v)
            if math.isfinite(mag):
                blo -= 1e-15 * mag
                bhi += 1e-15 * mag
        if max(blo, kd[j, 0, k]) > min(bhi, kd[j, 1, k]):
            return False
    return True


# -- k-DOP vs OBB ------------------------------------------------------------------------


@njit
def kdop_obb(kd, i, o, j, axes):
    """k-DOP i against OBB j: conservative, two substitutions that each hold the original.

    1. The OBB's k-DOP (per direction a: a.c +- sum_n h_n |a.u_n|, widened by REL_TOL)
       against the k-DOP by slabs: the OBB lies inside its k-DOP.
    2. The k-DOP's box (its x, y, z slabs) against the OBB by the exact 15-axis SAT: the
       k-DOP lies inside its box. This adds the OBB's own axes and the edge axes.
    Either test saying "apart" proves the originals apart.
    """
    if o.half[j, 0] < 0.0 or o.half[j, 1] < 0.0 or o.half[j, 2] < 0.0:
        return False
    cx = o.center[j, 0]
    cy = o.center[j, 1]
    cz = o.center[j, 2]
    for k in range(axes.shape[0]):
        lo = kd[i, 0, k]
        hi = kd[i, 1, k]
        if lo > hi:
            return False
        ax = axes[k, 0]
        ay = axes[k, 1]
        az = axes[k, 2]
        p = ax * cx + ay * cy + az * cz
        ext = 0.0
        for n in range(3):
            u = ax * o.rot[j, 0, n] + ay * o.rot[j, 1, n] + az * o.rot[j, 2, n]
            ext += o.half[j, n] * abs(u)
        pad = REL_TOL * (abs(ax * cx) + abs(ay * cy) + abs(az * cz) + ext)
        if max(p - ext - pad, lo) > min(p + ext + pad, hi):
            return False
    return box_obb(
        kd[i, 0, 0], kd[i, 0, 1], kd[i, 0, 2], kd[i, 1, 0], kd[i, 1, 1], kd[i, 1, 2], o, j
    )


# -- elementwise kernels (one item of either side broadcasts) ----------------------------


@njit(cache=True, nogil=True)
def overlap_sphere_aabb(s, boxes, out):
    si = 1 if len(s.radius) > 1 else 0
    sj = 1 if len(boxes) > 1 else 0
    for n in range(len(out)):
        out[n] = sphere_aabb(s, n * si, boxes, n * sj)


@njit(cache=True, nogil=True)
def overlap_sphere_kdop(s, kd, axes, out):
    si = 1 if len(s.radius) > 1 else 0
    sj = 1 if len(kd) > 1 else 0
    for n in range(len(out)):
        out[n] = sphere_kdop(s, n * si, kd, n * sj, axes)


@njit(cache=True, nogil=True)
def overlap_sphere_obb(s, o, out):
    si = 1 if len(s.radius) > 1 else 0
    sj = 1 if len(o.half) > 1 else 0
    for n in range(len(out)):
        out[n] = sphere_obb(s, n * si, o, n * sj)


@njit(cache=True, nogil=True)
def overlap_aabb_kdop(boxes, kd, axes, out):
    si = 1 if len(boxes) > 1 else 0
    sj = 1 if len(kd) > 1 else 0
    for n in range(len(out)):
        out[n] = aabb_kdop(boxes, n * si, kd, n * sj, axes)


@njit(cache=True, nogil=True)
def overlap_aabb_obb(boxes, o, out):
    si = 1 if len(boxes) > 1 else 0
    sj = 1 if len(o.half) > 1 else 0
    for n in range(len(out)):
        out[n] = aabb_obb(boxes, n * si, o, n * sj)


@njit(cache=True, nogil=True)
def overlap_kdop_obb(kd, axes, o, out):
    si = 1 if len(kd) > 1 else 0
    sj = 1 if len(o.half) > 1 else 0
    for n in range(len(out)):
        out[n] = kdop_obb(kd, n * si, o, n * sj, axes)


# -- candidate filters: keep[n] says whether pair cand[:, n] overlaps --------------------


@njit(cache=True, nogil=True)
def filter_sphere_aabb(s, boxes, cand, keep):
    for n in range(cand.shape[1]):
        keep[n] = sphere_aabb(s, cand[0, n], boxes, cand[1, n])


@njit(cache=True, nogil=True)
def filter_sphere_kdop(s, kd, axes, cand, keep):
    for n in range(cand.shape[1]):
        keep[n] = sphere_kdop(s, cand[0, n], kd, cand[1, n], axes)


@njit(cache=True, nogil=True)
def filter_sphere_obb(s, o, cand, keep):
    for n in range(cand.shape[1]):
        keep[n] = sphere_obb(s, cand[0, n], o, cand[1, n])


@njit(cache=True, nogil=True)
def filter_aabb_kdop(boxes, kd, axes, cand, keep):
    for n in range(cand.shape[1]):
        keep[n] = aabb_kdop(boxes, cand[0, n], kd, cand[1, n], axes)


@njit(cache=True, nogil=True)
def filter_aabb_obb(boxes, o, cand, keep):
    for n in range(cand.shape[1]):
        keep[n] = aabb_obb(boxes, cand[0, n], o, cand[1, n])


@njit(cache=True, nogil=True)
def filter_kdop_obb(kd, axes, o, cand, keep):
    for n in range(cand.shape[1]):
        keep[n] = kdop_obb(kd, cand[0, n], o, cand[1, n], axes)
