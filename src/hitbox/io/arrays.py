"""Point and ray arrays for the batched commands: one ``.npy`` file, or one array of a
zarr store (a folder ``*.zarr``; zarr comes with the ``dask`` extra), checked row by row.

Errors are :class:`hitbox.io.FileError`, one line naming the file and the problem.
"""

import os
from pathlib import Path

import numpy as np

from hitbox.io.common import FileError, _existing, _one_line

__all__ = ["load_points", "load_rays"]


def load_points(path):
    """Points from a ``.npy`` file or a zarr array store (``*.zarr``) of shape ``(N, 3)``:
    (N, 3) float64.

    Raises
    ------
    FileError
        Missing or unreadable, an archive, wrong shape or dtype, or a non-finite value
        (naming the first bad row).
    """
    return _rows(path, "points", "point", 3, "")


def load_rays(path):
    """Rays from a ``.npy`` file or a zarr array store (``*.zarr``) of shape ``(N, 6)``:
    origin x y z, direction x y z.

    Returns
    -------
    origins, directions : (N, 3) float each

    Raises
    ------
    FileError
        Missing or unreadable, wrong shape or dtype, a non-finite value or a zero
        direction (naming the first bad row).
    """
    arr = _rows(path, "rays", "ray", 6, " (origin xyz, direction xyz)")
    zero = ~(arr[:, 3:] != 0).any(axis=1)
    if zero.any():
        raise FileError(f"{path}: ray {int(np.argmax(zero))} has a zero direction")
    return np.ascontiguousarray(arr[:, :3]), np.ascontiguousarray(arr[:, 3:])


def _rows(path, what, one, width, columns):
    """A finite (N, width) float64 array from one ``.npy`` file or zarr array store (a
    folder named ``*.zarr``, read whole on this machine), or FileError naming the problem
    (``what``/``one``: plural and singular in the message)."""
    if _is_zarr(path):
        arr = _read_zarr(Path(os.fspath(path)), what)
    else:
        path = _existing(path)
        try:
            arr = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise FileError(
                f"{path}: not a readable .npy array ({_one_line(exc)})"
            ) from None
        if not isinstance(arr, np.ndarray):  # an .npz archive of arrays
            arr.close()
            raise FileError(f"{path}: {what} must be one .npy array, got an .npz archive")
    if arr.dtype.kind not in "iuf":
        raise FileError(f"{path}: {what} must be a real-valued array, got {arr.dtype}")
    if arr.ndim != 2 or arr.shape[1] != width:
        raise FileError(
            f"{path}: {what} must have shape (N, {width}){columns}, got {arr.shape}"
        )
    arr = np.ascontiguousarray(arr, np.float64)
    bad = ~np.isfinite(arr).all(axis=1)
    if bad.any():
        raise FileError(
            f"{path}: {one} {int(np.argmax(bad))} has a NaN or infinite value"
        )
    return arr


def _is_zarr(path):
    try:
        text = os.fspath(path)
    except TypeError:
        return False
    return str(text).rstrip("/\\").endswith(".zarr")


def _read_zarr(path, what):
    """The one array of a zarr store, as numpy (zarr is in the dask extra)."""
    if not path.exists():
        raise FileError(f"{path}: no such zarr store")
    try:
        import zarr
    except ImportError:
        raise FileError(
            f"{path}: reading a zarr store needs the zarr package "
            "(pip install 'hitbox[dask]')"
        ) from None
    try:
        store = zarr.open(str(path), mode="r")
        if not hasattr(store, "shape"):  # a group of arrays
            raise FileError(f"{path}: {what} must be one zarr array, got a group")
        return np.asarray(store[...])
    except FileError:
        raise
    except Exception as exc:  # zarr's own errors differ between versions
        raise FileError(f"{path}: not a readable zarr array ({_one_line(exc)})") from None
