"""Poses as (position, quaternion) pairs, in bulk: to and from the 4x4 rigid matrices that
every hitbox call takes.

Quaternions are ``(x, y, z, w)`` by default, scalar last, as scipy's ``Rotation`` and
PyBullet write them; ``scalar_first=True`` reads and writes ``(w, x, y, z)`` (Eigen,
Coal, MuJoCo). A quaternion need not be unit length: it is normalised, as scipy does; a
zero or non-finite one is refused.
"""

import numpy as np

from hitbox import _validate as v

__all__ = ["from_quaternions", "to_quaternions"]


def from_quaternions(positions, quaternions, *, scalar_first=False):
    """4x4 rigid matrices from positions and rotation quaternions.

    Parameters
    ----------
    positions : (K, 3) or (3,) float
    quaternions : (K, 4) or (4,) float
        Broadcast against ``positions`` when one of them is a single item.
    scalar_first : bool
        ``(w, x, y, z)`` rather than ``(x, y, z, w)``.

    Returns
    -------
    (K, 4, 4) float64, or (4, 4) for single items: ``[[R, p], [0, 1]]`` with R the
    rotation of the unit quaternion (Shoemake 1985).

    Raises
    ------
    ValueError
        Wrong shapes, NaN or infinite values, a zero quaternion.
    """
    p, single_p = v.as_points(positions, "positions", dim=3, finite=True)
    q = np.asarray(v.as_float(quaternions, "quaternions", finite=True))
    single_q = q.ndim == 1
    q = q[None] if single_q else q
    if q.ndim != 2 or q.shape[1] != 4:
        raise ValueError(
            f"quaternions must have shape (K, 4) or (4,), got {np.shape(quaternions)}"
        )
    if len(p) != len(q) and 1 not in (len(p), len(q)):
        raise ValueError(
            f"positions ({len(p)}) and quaternions ({len(q)}) differ in length"
        )
    norm = v.lengths(q, axis=1)
    if (norm == 0.0).any():
        raise ValueError(f"quaternions[{int(np.argmax(norm == 0.0))}] is zero")
    q = q / norm[:, None]
    w, x, y, z = q.T if scalar_first else q[:, [3, 0, 1, 2]].T
    n = max(len(p), len(q))
    out = np.zeros((n, 4, 4))
    out[:, 0, 0] = 1 - 2 * (y * y + z * z)
    out[:, 0, 1] = 2 * (x * y - z * w)
    out[:, 0, 2] = 2 * (x * z + y * w)
    out[:, 1, 0] = 2 * (x * y + z * w)
    out[:, 1, 1] = 1 - 2 * (x * x + z * z)
    out[:, 1, 2] = 2 * (y * z - x * w)
    out[:, 2, 0] = 2 * (x * z - y * w)
    out[:, 2, 1] = 2 * (y * z + x * w)
    out[:, 2, 2] = 1 - 2 * (x * x + y * y)
    out[:, :3, 3] = p
    out[:, 3, 3] = 1.0
    return out[0] if single_p and single_q else out


def to_quaternions(matrices, *, scalar_first=False):
    """Positions and unit quaternions of rigid 4x4 matrices.

    Parameters
    ----------
    matrices : (K, 4, 4) or (4, 4) float
        Rigid: a rotation (orthonormal, det +1, to 1e-6) and a translation.
    scalar_first : bool
        Return ``(w, x, y, z)`` rather than ``(x, y, z, w)``.

    Returns
    -------
    positions (K, 3), quaternions (K, 4) (single items for one matrix), each quaternion
    with w >= 0 (q and -q are the same rotation). From the largest of the four squared
    components, as Shepperd 1978, so no division loses digits.
    """
    single = np.ndim(matrices) == 2
    arr = np.asarray(matrices, dtype=float)
    rots, trans, _ = v.as_transforms(arr[None] if single else arr, "matrices", rigid=True)
    r = rots
    trace = r[:, 0, 0] + r[:, 1, 1] + r[:, 2, 2]
    # 4 w^2, 4 x^2, 4 y^2, 4 z^2, each from the diagonal
    squares = np.stack(
        [
            1 + trace,
            1 + r[:, 0, 0] - r[:, 1, 1] - r[:, 2, 2],
            1 - r[:, 0, 0] + r[:, 1, 1] - r[:, 2, 2],
            1 - r[:, 0, 0] - r[:, 1, 1] + r[:, 2, 2],
        ],
        axis=1,
    )
    pick = np.argmax(squares, axis=1)
    q = np.empty((len(r), 4))  # w, x, y, z
    for k in range(4):
        sel = pick == k
        if not sel.any():
            continue
        m = r[sel]
        s = 2.0 * np.sqrt(squares[sel, k])  # 4 * the picked component
        wx = m[:, 2, 1] - m[:, 1, 2]
        wy = m[:, 0, 2] - m[:, 2, 0]
        wz = m[:, 1, 0] - m[:, 0, 1]
        xy = m[:, 0, 1] + m[:, 1, 0]
        xz = m[:, 0, 2] + m[:, 2, 0]
        yz = m[:, 1, 2] + m[:, 2, 1]
        rows = {
            0: (s * s / 4, wx, wy, wz),
            1: (wx, s * s / 4, xy, xz),
            2: (wy, xy, s * s / 4, yz),
            3: (wz, xz, yz, s * s / 4),
        }[k]
        q[sel] = np.stack(rows, axis=1) / s[:, None]
    q /= v.lengths(q, axis=1)[:, None]
    q[q[:, 0] < 0] *= -1.0
    if not scalar_first:
        q = q[:, [1, 2, 3, 0]]
    positions = np.ascontiguousarray(trans, dtype=np.float64)
    return (positions[0], q[0]) if single else (positions, q)
