"""Saved trees and meshes: files of named arrays that say when they are not what was
written, a ``.npz`` archive with a format number and a CRC-32 of every array (name, dtype,
shape and bytes), written whole or not at all, and read back by a reader that trusts no
size in the file.

What the arrays must satisfy among themselves is the caller's to check: a tree's by
:meth:`hitbox.bvh.BVH.load`, a mesh's by :meth:`hitbox.mesh.TriangleMesh.load`, which
read these files (they sit below this package's other readers: ``bvh`` imports this
module, so it imports nothing of hitbox but :mod:`hitbox.io.common`).
"""

import math
import os
import zipfile
import zlib

import numpy as np

from hitbox.io.common import _one_line

#: The format number written by :func:`write_npz` and required by :func:`read_npz`:
#: 2 added the checksum (format 1 files have none).
FORMAT = 2


def npz_path(path):
    """``path`` as numpy's ``savez`` writes it: with ``.npz`` added when missing."""
    path = os.fspath(path)
    return path if path.endswith(".npz") else path + ".npz"


def write_npz(path, arrays):
    """Write ``arrays`` (name -> array) with the format number and their checksum to
    ``npz_path(path)``, through a temporary file renamed into place."""
    name = npz_path(path)
    arrays = {key: np.asarray(arr) for key, arr in arrays.items()}
    parts = dict(arrays, format=np.array(FORMAT), checksum=np.array(checksum(arrays)))
    tmp = f"{name}.{os.getpid()}.tmp"
    try:
        with open(tmp, "wb") as f:
            np.savez(f, **parts)
        os.replace(tmp, name)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def read_npz(path, what="hitbox file"):
    """The arrays :func:`write_npz` wrote to ``npz_path(path)``, checked for format and
    checksum.

    Raises
    ------
    FileNotFoundError
        No such file.
    ValueError
        One line naming the file: not a ``.npz`` archive, truncated or damaged, not a
        ``what`` (no format number), another format, or a checksum that does not match.
    """
    name = npz_path(path)
    if not os.path.exists(name):
        raise FileNotFoundError(f"{name}: no such file")
    try:
        data = _read_members(name)
    except (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile, zlib.error,
            NotImplementedError, RuntimeError, OverflowError) as exc:  # fmt: skip
        raise ValueError(f"{name}: not a readable .npz file ({_one_line(exc)})") from None
    if "format" not in data:
        raise ValueError(f"{name}: not a {what} (it has no format number)")
    fmt = data.pop("format")
    if fmt.shape != () or fmt.dtype.kind not in "iu" or int(fmt) != FORMAT:
        shown = fmt.item() if fmt.size == 1 else fmt.shape
        raise ValueError(
            f"{name}: file format {shown!r}; this hitbox reads format {FORMAT} "
            "(save it again with this version)"
        )
    stored = data.pop("checksum", None)
    if stored is None or stored.shape != () or stored.dtype.kind not in "iu":
        raise ValueError(f"{name}: damaged: its checksum is missing")
    if int(stored) != checksum(data):
        raise ValueError(f"{name}: damaged: its arrays do not match their checksum")
    return data


def checksum(arrays):
    """CRC-32 of every array's name, dtype, shape and bytes, in name order."""
    crc = 0
    for key in sorted(arrays):
        arr = np.ascontiguousarray(arrays[key])
        crc = zlib.crc32(f"{key}:{arr.dtype.str}:{arr.shape};".encode(), crc)
        crc = zlib.crc32(memoryview(arr.reshape(-1).view(np.uint8)), crc)
    return crc


# -- helpers -----------------------------------------------------------------------------


def _read_members(name):
    """Every ``.npy`` member of the archive, each read only after its header's size has
    been checked against the member's (a damaged header cannot ask for terabytes)."""
    out = {}
    with zipfile.ZipFile(name) as archive:
        for info in archive.infolist():
            key = info.filename
            if not key.endswith(".npy"):
                raise ValueError(f"member {key!r} is not a .npy array")
            with archive.open(info) as f:
                version = np.lib.format.read_magic(f)
                if version == (1, 0):
                    shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
                else:
                    shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
                if dtype.hasobject:
                    raise ValueError(f"member {key!r} holds Python objects")
                size = math.prod(shape) * dtype.itemsize
                header = f.tell()
                if info.file_size != header + size:
                    raise ValueError(
                        f"member {key!r} holds {info.file_size - header} bytes for "
                        f"an array of {size}"
                    )
                raw = f.read(size)
                if len(raw) != size:
                    raise ValueError(f"member {key!r} is truncated")
            arr = np.frombuffer(raw, dtype=dtype).reshape(
                shape, order="F" if fortran else "C"
            )
            out[key[:-4]] = arr if arr.flags.c_contiguous else arr.copy(order="C")
    return out
