"""The flat arrays of a set of convex shapes (:mod:`hitbox.convex`), one NamedTuple:
numba takes it as one argument, and the kernels build one-row sets of it."""

from typing import NamedTuple

import numpy as np
from numba import njit

from hitbox._kernels.borrowed import borrowed


class Shapes(NamedTuple):
    """N convex shapes as flat arrays; shape i is its core grown by ``radius[i]``.

    ``kind (N,)`` intp codes into :data:`hitbox.convex.KINDS`; the pose
    ``rot (N, 3, 3)`` (columns are the local axes) and ``trans (N, 3)``; ``dims (N, 3)``
    the core in its local frame: box half extents, ``(radius, 0, half height)`` of a
    cylinder or cone (apex at +half height), ``(0, 0, half length)`` of a capsule's
    segment along z; ``radius (N,)`` of spheres and capsules (0 otherwise); ``bound
    (N,)`` a bounding radius about ``trans``; hull i's local vertices are
    ``vertices[first[i]:first[i] + count[i]]``.
    A half-space is ``{x : n . (x - trans) <= 0}``, n the local z axis.
    """

    kind: np.ndarray
    rot: np.ndarray
    trans: np.ndarray
    dims: np.ndarray
    radius: np.ndarray
    bound: np.ndarray
    first: np.ndarray
    count: np.ndarray
    vertices: np.ndarray


@njit(inline="always")
def borrowed_shapes(s):
    """``s`` with each array :func:`~hitbox._kernels.borrowed.borrowed`: the pair
    kernels hand both sets to GJK, EPA and the supports at every pair, and each call
    counted all eighteen arrays in and out, atomics both threads share."""
    return Shapes(
        borrowed(s.kind), borrowed(s.rot), borrowed(s.trans), borrowed(s.dims),
        borrowed(s.radius), borrowed(s.bound), borrowed(s.first), borrowed(s.count),
        borrowed(s.vertices),
    )  # fmt: skip


@njit(cache=True, nogil=True)
def magnitude(trans, bound):
    """The largest |coordinate| of the shapes' positions or bounding radius: the size
    their pair queries' products of coordinates scale with (0 for no shapes)."""
    big = 0.0
    for i in range(len(bound)):
        big = max(big, abs(trans[i, 0]), abs(trans[i, 1]), abs(trans[i, 2]), bound[i])
    return big
