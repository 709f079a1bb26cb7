"""Whether 3x3 matrices are rotations: orthonormal to a tolerance, determinant above 0;
and K rigid 4x4 transforms checked and split into rotations and translations at once
(or written into a Scene's pose tables).

The checks run compiled because in numpy (einsum, cross, per-pose reductions) the
rotation check cost 0.9 microseconds a pose, a third of a many-pose query, and the
finiteness and last-row checks with the two copies another 25 microseconds a call.
"""

import numpy as np
from numba import njit

#: Largest |R^T R - I| entry a rotation may have (float32 matrices reach about 1e-7).
RIGID_TOL = 1e-6
#: Rotations further than this from orthonormal are snapped to the nearest rotation
#: when a Scene stores them (nearer ones are rotations to rounding and stay exact).
SNAP_TOL = 1e-14


@njit(inline="always")
def ortho_error(rot):
    """max |rot.T @ rot - I| of one (3, 3) matrix: how far it is from orthonormal;
    inf when an entry is NaN."""
    err = 0.0
    for p in range(3):
        for q in range(p, 3):
            dot = rot[0, p] * rot[0, q] + rot[1, p] * rot[1, q] + rot[2, p] * rot[2, q]
            e = abs(dot - (1.0 if p == q else 0.0))
            if e != e:
                return np.inf
            err = max(err, e)
    return err


@njit(inline="always")
def det3(rot):
    """The determinant of a (3, 3) matrix."""
    return (
        rot[0, 0] * (rot[1, 1] * rot[2, 2] - rot[1, 2] * rot[2, 1])
        - rot[0, 1] * (rot[1, 0] * rot[2, 2] - rot[1, 2] * rot[2, 0])
        + rot[0, 2] * (rot[1, 0] * rot[2, 1] - rot[1, 1] * rot[2, 0])
    )


@njit(inline="always")
def is_rotation(rot):
    """rot (3, 3): columns orthonormal to RIGID_TOL and det > 0."""
    return ortho_error(rot) <= RIGID_TOL and det3(rot) > 0.0


@njit(cache=True, nogil=True)
def first_not_rotation(rots):
    """Index of the first of rots (K, 3, 3) that is not a rotation, or -1."""
    for k in range(len(rots)):
        if not is_rotation(rots[k]):
            return k
    return -1


def first_not_rotation_py(rots):
    """Numpy twin of :func:`first_not_rotation` (the oracle in tests)."""
    bad = _not_rotations_py(rots)
    return int(np.argmax(bad)) if bad.any() else -1


def _not_rotations_py(rots):
    """Which of rots (K, 3, 3) are not rotations, in numpy (NaN and inf count as not)."""
    if not len(rots):
        return np.zeros(0, bool)
    with np.errstate(invalid="ignore"):
        err = np.abs(np.einsum("kji,kjl->kil", rots, rots) - np.eye(3)).max(axis=(1, 2))
        det = np.linalg.det(np.where(np.isfinite(rots), rots, 0.0))
    return ~(err <= RIGID_TOL) | ~(det > 0)


@njit(cache=True, nogil=True)
def split_transforms(mats, rigid, rots, trans):
    """Check K homogeneous 4x4 matrices and split them into rots (K, 3, 3) and trans
    (K, 3). Returns the index of the first matrix with a non-finite entry, a last row
    other than exactly (0, 0, 0, 1), or (``rigid``) a linear part that is not a rotation;
    -1 when all pass. The caller's numpy checks then name the problem."""
    for k in range(len(mats)):
        for r in range(4):
            for c in range(4):
                x = mats[k, r, c]
                if not np.isfinite(x):
                    return k
        if (
            mats[k, 3, 0] != 0.0
            or mats[k, 3, 1] != 0.0
            or mats[k, 3, 2] != 0.0
            or mats[k, 3, 3] != 1.0
        ):
            return k
        for r in range(3):
            trans[k, r] = mats[k, r, 3]
            for c in range(3):
                rots[k, r, c] = mats[k, r, c]
        if rigid and not is_rotation(rots[k]):
            return k
    return -1


@njit(cache=True, nogil=True)
def write_poses(mats, idx, rots, trans, version, epoch, off):
    """Check K rigid 4x4 poses as :func:`split_transforms` does and, only when all pass,
    write pose k into row idx[k] of rots (N, 3, 3) and trans (N, 3) and count that
    row's version and epoch up: a Scene's ``set_poses`` in one call.

    Returns (first bad index or -1, n_off); ``off[:n_off]`` lists the poses whose
    rotation is further than SNAP_TOL from orthonormal, for the caller to snap to the
    nearest rotation. Nothing is written when a pose fails."""
    n_off = 0
    for k in range(len(mats)):
        for r in range(4):
            for c in range(4):
                if not np.isfinite(mats[k, r, c]):
                    return k, 0
        if (
            mats[k, 3, 0] != 0.0
            or mats[k, 3, 1] != 0.0
            or mats[k, 3, 2] != 0.0
            or mats[k, 3, 3] != 1.0
        ):
            return k, 0
        linear = mats[k, :3, :3]
        err = ortho_error(linear)  # is_rotation, the error kept for the snap test
        if not (err <= RIGID_TOL and det3(linear) > 0.0):
            return k, 0
        if err > SNAP_TOL:
            off[n_off] = k
            n_off += 1
    for k in range(len(mats)):
        row = idx[k]
        for r in range(3):
            trans[row, r] = mats[k, r, 3]
            for c in range(3):
                rots[row, r, c] = mats[k, r, c]
        version[row] += 1
        epoch[row] += 1
    return -1, n_off


def split_transforms_py(mats, rigid):
    """Numpy twin of :func:`split_transforms`: (first bad index or -1, rots, trans)."""
    mats = np.asarray(mats, dtype=np.float64)
    rots = np.ascontiguousarray(mats[:, :3, :3])
    trans = np.ascontiguousarray(mats[:, :3, 3])
    bad = ~np.isfinite(mats).all(axis=(1, 2))
    bad |= ~np.all(mats[:, 3] == np.array([0.0, 0.0, 0.0, 1.0]), axis=1)
    if rigid:
        bad |= _not_rotations_py(rots)
    return (int(np.argmax(bad)) if bad.any() else -1), rots, trans
