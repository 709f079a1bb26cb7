"""Mesh files: STL, OBJ, PLY, GLB/glTF and OFF, read with trimesh after a check of the
file against its format (sizes and counts against the body, face sizes and indices: OBJ's
start at 1, negative ones count back from the last vertex read). Polygons of four or
more vertices are split into triangles by trimesh, which must hand back as many
triangles as the file describes. A face of fewer than three vertices or with an index
out of range, counts the body does not hold, a file with no triangle at all, or a NaN
or infinite coordinate raises :class:`hitbox.io.FileError` naming the file and, where
known, the line.
"""

import numpy as np

from hitbox.io import mesh_formats as _formats
from hitbox.io.common import FileError, _existing, _one_line

__all__ = ["MESH_SUFFIXES", "load_mesh", "read_mesh"]

#: File suffixes :func:`load_mesh` reads (through trimesh).
MESH_SUFFIXES = (".stl", ".obj", ".ply", ".glb", ".gltf", ".off")


def load_mesh(path, *, node="obb"):
    """Read a triangle mesh file into a :class:`hitbox.TriangleMesh`.

    Parameters
    ----------
    path : str or PathLike
        An STL, OBJ, PLY, GLB/glTF or OFF file. A GLB holding a scene of several meshes
        gives them as one mesh, each placed by its node's transform.
    node : str
        Node kind of the mesh's tree (see :data:`hitbox.bvh.KINDS`).

    Raises
    ------
    FileError
        Missing, unreadable, of an unknown type, corrupt or empty; a face of fewer than
        three vertices; NaN or infinite coordinates; a face index past the vertices.
    """
    from hitbox.mesh import TriangleMesh

    vertices, faces = read_mesh(path)
    return TriangleMesh(vertices, faces, node=node)


def read_mesh(path):
    """The checked ``(vertices (V, 3) float, faces (F, 3) intp)`` of a mesh file.

    Same checks as :func:`load_mesh`, without building a tree. An STL file's repeated
    corners are merged (exactly equal coordinates only).
    """
    path = _existing(path)
    suffix = path.suffix.lower()
    if suffix not in MESH_SUFFIXES:
        raise FileError(
            f"{path}: unknown mesh type {suffix or '(no suffix)'!r}; hitbox reads "
            + ", ".join(s[1:].upper() for s in MESH_SUFFIXES)
        )
    if path.stat().st_size == 0:
        raise FileError(f"{path}: the file is empty")
    try:
        triangles = _formats.scan(path, suffix)
    except _formats.Malformed as exc:
        raise FileError(f"{path}: {exc}") from None
    except OSError as exc:
        raise FileError(f"{path}: cannot read ({_one_line(exc)})") from None
    mesh = _trimesh_load(path, suffix)
    vertices = np.asarray(getattr(mesh, "vertices", np.zeros((0, 3))))
    faces = np.asarray(getattr(mesh, "faces", np.zeros((0, 3), np.intp)))
    if faces.size == 0:
        found = f"{len(vertices)} vertices but " if len(vertices) else ""
        raise FileError(
            f"{path}: {found}no triangles in the file (corrupt, empty, or not a surface)"
        )
    if faces.ndim != 2 or faces.shape[1] != 3:
        raise FileError(
            f"{path}: faces must have 3 vertices each, got shape {faces.shape}"
        )
    if vertices.ndim != 2 or vertices.shape[1] != 3:
        raise FileError(
            f"{path}: vertices must have 3 coordinates, got shape {vertices.shape}"
        )
    bad = ~np.isfinite(vertices).all(axis=1)
    if bad.any():
        i = int(np.argmax(bad))
        what = "NaN" if np.isnan(vertices[i]).any() else "an infinite"
        raise FileError(
            f"{path}: vertex {i} has {what} coordinate {vertices[i].tolist()}"
        )
    if triangles is not None and len(faces) != triangles:
        raise FileError(
            f"{path}: trimesh read {len(faces)} triangles where the file describes "
            f"{triangles}"
        )
    out_of_range = ((faces < 0) | (faces >= len(vertices))).any(axis=1)
    if out_of_range.any():
        i = int(np.argmax(out_of_range))
        raise FileError(
            f"{path}: face {i} {faces[i].tolist()} indexes past the "
            f"{len(vertices)} vertices"
        )
    vertices = np.ascontiguousarray(vertices, np.float64)
    faces = np.ascontiguousarray(faces, np.intp)
    if suffix == ".stl":
        # STL repeats every corner of every triangle: share equal corners, so that the
        # mesh's vertices and edges are those of the surface (nothing moves).
        vertices, inverse = np.unique(vertices, axis=0, return_inverse=True)
        faces = np.ascontiguousarray(inverse.reshape(-1)[faces], np.intp)
    return vertices, faces


# -- helpers -----------------------------------------------------------------------------


def _trimesh_load(path, suffix):
    """trimesh's reading of the file as one mesh, its logging silenced, errors wrapped."""
    import logging
    import warnings

    try:
        import trimesh
    except ImportError:
        raise FileError(
            f"{path}: reading mesh files needs trimesh (pip install 'hitbox[cli]')"
        ) from None
    log = logging.getLogger("trimesh")
    level = log.level
    log.setLevel(logging.CRITICAL)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return trimesh.load(path, file_type=suffix[1:], force="mesh", process=False)
    except ImportError:  # trimesh's fallback readers of odd files need optional modules
        fmt = suffix[1:].upper()
        raise FileError(f"{path}: cannot read as {fmt}: not a valid {fmt} file") from None
    except Exception as exc:  # trimesh raises many kinds on a corrupt file
        raise FileError(
            f"{path}: cannot read as {suffix[1:].upper()} ({type(exc).__name__}: "
            f"{_one_line(exc)})"
        ) from None
    finally:
        log.setLevel(level)
