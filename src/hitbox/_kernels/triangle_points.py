"""Points and triangles as 3-tuples of float64: loading, rigid moves, vector arithmetic.

Inside the triangle kernels a point is a 3-tuple of float64 and a triangle three of them,
so a triangle moved by a rigid transform (``load_xf``) needs no scratch array. Load them
from ``(F, 3, 3)`` arrays with ``load(tris, i)`` or ``load_xf(tris, j, rot, trans)``.
"""

from numba import njit


@njit(inline="always")
def load(tris, i):
    """Triangle ``tris[i]`` of an ``(F, 3, 3)`` array as three 3-tuples."""
    return (
        (tris[i, 0, 0], tris[i, 0, 1], tris[i, 0, 2]),
        (tris[i, 1, 0], tris[i, 1, 1], tris[i, 1, 2]),
        (tris[i, 2, 0], tris[i, 2, 1], tris[i, 2, 2]),
    )


@njit(inline="always")
def _xf_point(tris, j, k, rot, trans):
    # Summed as hitbox._affine.apply sums, so kernel and numpy agree bit for bit.
    x, y, z = tris[j, k, 0], tris[j, k, 1], tris[j, k, 2]
    return (
        trans[0] + rot[0, 0] * x + rot[0, 1] * y + rot[0, 2] * z,
        trans[1] + rot[1, 0] * x + rot[1, 1] * y + rot[1, 2] * z,
        trans[2] + rot[2, 0] * x + rot[2, 1] * y + rot[2, 2] * z,
    )


@njit(inline="always")
def load_xf(tris, j, rot, trans):
    """Triangle ``tris[j]`` mapped by ``x -> rot @ x + trans``, as three 3-tuples."""
    return (
        _xf_point(tris, j, 0, rot, trans),
        _xf_point(tris, j, 1, rot, trans),
        _xf_point(tris, j, 2, rot, trans),
    )


@njit(inline="always")
def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@njit(inline="always")
def _cross(a, b):
    return (
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    )


@njit(inline="always")
def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(inline="always")
def _lerp(a, b, t):
    return (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]), a[2] + t * (b[2] - a[2]))


@njit(inline="always")
def cross_products(u, v):
    """The six products of ``u x v``: (yz, zy, zx, xz, xy, yx), so that the cross
    product is (yz - zy, zx - xz, xy - yx) and the sums of their magnitudes bound its
    rounding (Shewchuk's permanents)."""
    return u[1] * v[2], u[2] * v[1], u[2] * v[0], u[0] * v[2], u[0] * v[1], u[1] * v[0]
