"""Moments and principal axes of point sets: the sums a covariance is made of, and the
eigenvectors of a symmetric 3x3 matrix (for OBB fits and oriented SAH splits)."""

import numpy as np
from numba import njit


@njit
def moment_sums(pts, lo, hi, o0, o1, o2):
    """Sums over every point p of slots [lo, hi) of d = p - o and of d d^T: (s0, s1, s2,
    sxx, sxy, sxz, syy, syz, szz), in slot and point order."""
    s0 = s1 = s2 = 0.0
    sxx = sxy = sxz = syy = syz = szz = 0.0
    for s in range(lo, hi):
        for q in range(pts.shape[1]):
            d0 = pts[s, q, 0] - o0
            d1 = pts[s, q, 1] - o1
            d2 = pts[s, q, 2] - o2
            s0 += d0
            s1 += d1
            s2 += d2
            sxx += d0 * d0
            sxy += d0 * d1
            sxz += d0 * d2
            syy += d1 * d1
            syz += d1 * d2
            szz += d2 * d2
    return s0, s1, s2, sxx, sxy, sxz, syy, syz, szz


@njit
def _scaled(s, x00, x01, x02, x11, x12, x22):
    """The six entries of a symmetric 3x3 matrix, times s."""
    return x00 * s, x01 * s, x02 * s, x11 * s, x12 * s, x22 * s


@njit
def _unit_cross(a0, a1, a2, b0, b1, b2):
    c0 = a1 * b2 - a2 * b1
    c1 = a2 * b0 - a0 * b2
    c2 = a0 * b1 - a1 * b0
    return c0, c1, c2, c0 * c0 + c1 * c1 + c2 * c2


@njit
def _null_vector(b00, b01, b02, b11, b12, b22, ev, v, col):
    """Unit vector most nearly in the null space of b - ev I (rank 2): the longest cross
    product of two of its rows, into column ``col`` of v. Returns False if all vanish."""
    r00 = b00 - ev
    r11 = b11 - ev
    r22 = b22 - ev
    x0, x1, x2, n_x = _unit_cross(r00, b01, b02, b01, r11, b12)
    y0, y1, y2, n_y = _unit_cross(r00, b01, b02, b02, b12, r22)
    z0, z1, z2, n_z = _unit_cross(b01, r11, b12, b02, b12, r22)
    if n_y > n_x and n_y >= n_z:
        x0, x1, x2, n_x = y0, y1, y2, n_y
    elif n_z > n_x:
        x0, x1, x2, n_x = z0, z1, z2, n_z
    if not n_x > 0.0:
        return False
    inv = 1.0 / np.sqrt(n_x)
    v[0, col] = x0 * inv
    v[1, col] = x1 * inv
    v[2, col] = x2 * inv
    return True


@njit
def _cubic_roots(x):
    """(top, mid): the largest and the middle root of t^3 - 3 t - 2 x for x in [0, 1]
    (top = 2 cos(acos(x) / 3), in [sqrt 3, 2]; mid = the largest root of the quotient
    t^2 + top t + top^2 - 3). Two Newton steps from a quartic fit of top (error below
    2e-5): the cubic's slope there is at least 6, so each step squares the error; the
    roots come out within half an ulp, as acos and cos give them, without their
    cost."""
    t = 1.7320689568870538 + x * (
        0.3327516646355368
        + x
        * (-0.09171180508899741 + x * (0.03500617063684711 - x * 0.008128650894588101))
    )
    for _ in range(2):
        t2 = t * t
        t -= (t * (t2 - 3.0) - 2.0 * x) / (3.0 * (t2 - 1.0))
    return t, 0.5 * (np.sqrt(max(12.0 - 3.0 * t * t, 0.0)) - t)


@njit
def eigvecs_sym3(a00, a01, a02, a11, a12, a22, v):
    """Orthonormal right-handed eigenvectors (columns of v) of a symmetric 3x3 matrix.

    After Eberly 2014 ("A robust eigensolver for 3x3 symmetric matrices", Geometric
    Tools): eigenvalues from the normalised characteristic cubic (Smith 1961; its roots
    by :func:`_cubic_roots`, not trigonometry), the most separated one's
    eigenvector as the longest cross product of two rows of a - lambda I, the next within
    the plane orthogonal to it from a 2x2 null vector, the third their cross product.
    Repeated eigenvalues yield some orthonormal frame of the eigenspace; a = 0 yields I.
    """
    for p in range(3):
        for q in range(3):
            v[p, q] = 1.0 if p == q else 0.0
    scale = max(
        max(max(abs(a00), abs(a01)), max(abs(a02), abs(a11))), max(abs(a12), abs(a22))
    )
    if scale == 0.0:
        return
    b00, b01, b02, b11, b12, b22 = _scaled(1.0 / scale, a00, a01, a02, a11, a12, a22)
    off = b01 * b01 + b02 * b02 + b12 * b12
    if off == 0.0:  # diagonal: the world axes
        return
    q = (b00 + b11 + b22) / 3.0
    c00 = b00 - q
    c11 = b11 - q
    c22 = b22 - q
    p = np.sqrt((c00 * c00 + c11 * c11 + c22 * c22 + 2.0 * off) / 6.0)
    if not p > 0.0:
        return
    d00, d01, d02, d11, d12, d22 = _scaled(1.0 / p, c00, b01, b02, c11, b12, c22)
    half_det = 0.5 * (
        d00 * (d11 * d22 - d12 * d12)
        - d01 * (d01 * d22 - d12 * d02)
        + d02 * (d01 * d12 - d11 * d02)
    )
    half_det = min(max(half_det, -1.0), 1.0)
    # the roots of t^3 - 3 t = 2 half_det are the eigenvalues of d; the one farthest
    # from the other two first, then the middle one
    top, mid = _cubic_roots(abs(half_det))
    sign = 1.0 if half_det >= 0.0 else -1.0
    ev_first = q + p * (sign * top)
    ev_mid = q + p * (sign * mid)
    if not _null_vector(b00, b01, b02, b11, b12, b22, ev_first, v, 0):
        return
    # orthonormal basis (u, w) of the plane orthogonal to v[:, 0]
    e0 = v[0, 0]
    e1 = v[1, 0]
    e2 = v[2, 0]
    if abs(e0) > abs(e1):
        inv = 1.0 / np.sqrt(e0 * e0 + e2 * e2)
        u0, u1, u2 = -e2 * inv, 0.0, e0 * inv
    else:
        inv = 1.0 / np.sqrt(e1 * e1 + e2 * e2)
        u0, u1, u2 = 0.0, e2 * inv, -e1 * inv
    w0, w1, w2, _ = _unit_cross(e0, e1, e2, u0, u1, u2)
    # 2x2 matrix of b - ev_mid I in the basis (u, w)
    au0 = (b00 - ev_mid) * u0 + b01 * u1 + b02 * u2
    au1 = b01 * u0 + (b11 - ev_mid) * u1 + b12 * u2
    au2 = b02 * u0 + b12 * u1 + (b22 - ev_mid) * u2
    aw0 = (b00 - ev_mid) * w0 + b01 * w1 + b02 * w2
    aw1 = b01 * w0 + (b11 - ev_mid) * w1 + b12 * w2
    aw2 = b02 * w0 + b12 * w1 + (b22 - ev_mid) * w2
    m00 = u0 * au0 + u1 * au1 + u2 * au2
    m01 = u0 * aw0 + u1 * aw1 + u2 * aw2
    m11 = w0 * aw0 + w1 * aw1 + w2 * aw2
    # null vector (cu, cw) of [[m00, m01], [m01, m11]]
    cu = 1.0
    cw = 0.0
    if abs(m00) >= abs(m11):
        if max(abs(m00), abs(m01)) > 0.0:
            if abs(m00) >= abs(m01):
                t = m01 / m00
                cw = -1.0 / np.sqrt(1.0 + t * t)
                cu = -t * cw
            else:
                t = m00 / m01
                cu = 1.0 / np.sqrt(1.0 + t * t)
                cw = -t * cu
    elif max(abs(m11), abs(m01)) > 0.0:
        if abs(m11) >= abs(m01):
            t = m01 / m11
            cu = 1.0 / np.sqrt(1.0 + t * t)
            cw = -t * cu
        else:
            t = m11 / m01
            cw = 1.0 / np.sqrt(1.0 + t * t)
            cu = -t * cw
    x0 = cu * u0 + cw * w0
    x1 = cu * u1 + cw * w1
    x2 = cu * u2 + cw * w2
    inv = 1.0 / np.sqrt(x0 * x0 + x1 * x1 + x2 * x2)
    v[0, 1] = x0 * inv
    v[1, 1] = x1 * inv
    v[2, 1] = x2 * inv
    y0, y1, y2, ny = _unit_cross(e0, e1, e2, v[0, 1], v[1, 1], v[2, 1])
    inv = 1.0 / np.sqrt(ny)
    v[0, 2] = y0 * inv
    v[1, 2] = y1 * inv
    v[2, 2] = y2 * inv
