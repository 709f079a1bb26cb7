"""Value types that carry several arrays together (STYLE §2).

They live at the bottom of the import graph so that validation, kernels and every public
module can share them. Each is a NamedTuple of plain arrays, so numba accepts it as one
argument and users can unpack it.
"""

from typing import NamedTuple

import numpy as np


class Spheres(NamedTuple):
    """Balls (3D) or discs (2D, 1D intervals): ``center (N, D)``, ``radius (N,)``."""

    center: np.ndarray
    radius: np.ndarray


class OBBs(NamedTuple):
    """Oriented boxes: ``center (N, 3)``, ``half (N, 3)`` extents, ``rot (N, 3, 3)``.

    Column ``k`` of ``rot[i]`` is the unit axis along which ``half[i, k]`` is measured, so a
    point of box ``i`` is ``center[i] + rot[i] @ u`` with ``|u| <= half[i]``.
    """

    center: np.ndarray
    half: np.ndarray
    rot: np.ndarray


class Rays(NamedTuple):
    """Rays or segments ``p = origin + t * direction`` with ``t`` in ``[0, t_max]``."""

    origin: np.ndarray
    direction: np.ndarray
    t_max: np.ndarray
