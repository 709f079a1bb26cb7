"""3-vectors as tuples: products that kernels would otherwise write out per coordinate."""

from numba import njit


@njit(cache=True, nogil=True)
def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True, nogil=True)
def cross(a, b):
    return a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]


@njit(cache=True, nogil=True)
def planes_meet(a, b, c, da, db, dc):
    """``(x, y, z, det)``: the point where the planes ``a . p = da``, ``b . p = db`` and
    ``c . p = dc`` meet, by Cramer's rule, and ``det = a . (b x c)``. The point is
    (0, 0, 0) when det is 0: the planes do not meet in one point."""
    bc = cross(b, c)
    det = dot(a, bc)
    if det == 0.0:
        return 0.0, 0.0, 0.0, det
    ca = cross(c, a)
    ab = cross(a, b)
    x = (da * bc[0] + db * ca[0] + dc * ab[0]) / det
    y = (da * bc[1] + db * ca[1] + dc * ab[1]) / det
    z = (da * bc[2] + db * ca[2] + dc * ab[2]) / det
    return x, y, z, det
