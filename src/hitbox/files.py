"""Reading meshes, scenes, poses and rays from files, with one clear error per bad file.

Meshes are read with trimesh (STL, OBJ, PLY, GLB/glTF, OFF), after a check of the file
against its format (sizes and counts against the body, face sizes and indices: OBJ's
start at 1, negative ones count back from the last vertex read). Polygons of four or
more vertices are split into triangles by trimesh, which must hand back as many
triangles as the file describes. A face of fewer than three vertices or with an index
out of range, counts the body does not hold, a file with no triangle at all, or a NaN
or infinite coordinate raises :class:`FileError` naming the file and, where known, the
line.

A scene is a small JSON or TOML file: a list of objects, each a mesh file (relative to the
scene file) with a pose and, optionally, velocities. In TOML::

    # two tori, the right one moving left and turning, over a floor
    [[objects]]
    name = "left"                     # optional; defaults to the file's stem
    file = "torus.stl"
    pose = [0, 0, 0, 0, 0, 0]         # x y z rx ry rz (degrees), or 16 numbers

    [[objects]]
    name = "right"
    file = "torus.stl"
    pose = [3, 0, 0, 90, 0, 0]
    velocity = [-1, 0, 0]             # units per second (default 0)
    angular_velocity = [0, 0, 45]     # degrees per second about x, y, z (default 0)
    acceleration = [0, 0, -9.8]       # units per second squared (default 0)

    [[objects]]
    file = "floor.obj"
    static = true                     # never moves (no velocities allowed)
    node = "aabb"                     # tree node kind (default "obb")

The JSON form is the same data: ``{"objects": [{"file": "torus.stl", "pose": [...]}]}``.
:func:`load_scene` reads the objects; :func:`scene_from_file` puts them in a
:class:`hitbox.pipeline.Scene`.

A pose is a rigid placement in the world: 6 numbers ``x y z rx ry rz`` (a translation,
then rotations in degrees about the fixed x, then y, then z axes: ``R = Rz @ Ry @ Rx``),
or 16 numbers of a 4x4 matrix, row by row (or a 4x4 nested list).
"""

import os
import re
import reprlib
from pathlib import Path
from typing import NamedTuple

import numpy as np

from hitbox import _mesh_formats as _formats
from hitbox._validate import _real_array

__all__ = [
    "FileError",
    "MESH_SUFFIXES",
    "SceneObject",
    "load_mesh",
    "read_mesh",
    "load_scene",
    "scene_from_file",
    "pose_matrix",
]

#: File suffixes :func:`load_mesh` reads (through trimesh).
MESH_SUFFIXES = (".stl", ".obj", ".ply", ".glb", ".gltf", ".off")

# A rotation is accepted when R^T R is the identity to this tolerance (16-number poses).
_ROT_TOL = 1e-6


class FileError(ValueError):
    """A file that cannot be used: missing, unreadable, corrupt, empty or malformed.

    The message is one line and names the file; the command line prints it as it is.
    """


class SceneObject(NamedTuple):
    """One object of a scene file, its mesh loaded and its tree built.

    name : str
    mesh : TriangleMesh
    pose : (4, 4) float, the object's frame in the world
    velocity : (3,) float, units per second
    angular_velocity : (3,) float, radians per second about the world x, y, z axes
    acceleration : (3,) float, units per second squared
    static : bool
    path : Path, the mesh file
    """

    name: str
    mesh: object
    pose: np.ndarray
    velocity: np.ndarray
    angular_velocity: np.ndarray
    acceleration: np.ndarray
    static: bool
    path: Path


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


def load_scene(path):
    """Read a scene file (``.json`` or ``.toml``, see the module docstring).

    Returns
    -------
    list of :class:`SceneObject`, in file order, each with a mesh object of its own; a
    file used by several objects (with one node kind) is read, and its tree built, once.

    Raises
    ------
    FileError
        A bad scene file, naming the object and field at fault, or a bad mesh file.
    """
    path = _existing(path)
    suffix = path.suffix.lower()
    text = _read_text(path)
    if suffix == ".json":
        import json

        kind, parse, error = "JSON", json.loads, json.JSONDecodeError
    elif suffix == ".toml":
        import tomllib

        kind, parse, error = "TOML", tomllib.loads, tomllib.TOMLDecodeError
    else:
        raise FileError(f"{path}: a scene is a .json or .toml file, got {suffix!r}")
    try:
        data = parse(text)
    except error as exc:
        raise FileError(f"{path}: not valid {kind}: {exc}") from None
    except RecursionError:
        raise FileError(f"{path}: {kind} nested too deeply to be a scene") from None
    if not isinstance(data, dict) or not isinstance(data.get("objects"), list):
        raise FileError(f"{path}: a scene needs a list 'objects' at the top level")
    if not data["objects"]:
        raise FileError(f"{path}: the scene has no objects")
    extra = set(data) - {"objects"}
    if extra:
        raise FileError(f"{path}: unknown top-level key(s): {', '.join(sorted(extra))}")
    from hitbox.mesh import TriangleMesh

    trees = {}
    objects = []
    for i, entry in enumerate(data["objects"]):
        spec = _scene_entry(path, i, entry)
        key = (spec["file"], spec["node"])
        if key in trees:  # one file and kind: one tree, but a mesh object of its own
            first = trees[key]
            mesh = TriangleMesh(first.vertices, first.faces, bvh=first.bvh)
        else:
            mesh = trees[key] = load_mesh(spec["file"], node=spec["node"])
        objects.append(
            SceneObject(
                spec["name"],
                mesh,
                spec["pose"],
                spec["velocity"],
                spec["angular_velocity"],
                spec["acceleration"],
                spec["static"],
                spec["file"],
            )
        )
    return objects


def scene_from_file(path, **options):
    """A :class:`hitbox.pipeline.Scene` holding the objects of a scene file.

    Parameters
    ----------
    path : str or PathLike
        A ``.json`` or ``.toml`` scene (see the module docstring).
    **options
        Passed to :class:`hitbox.pipeline.Scene` (``threshold``, ``broadphase`` ...).

    Returns
    -------
    scene : Scene
    ids : list of int, the scene id of each object, in file order
    """
    from hitbox.pipeline import Scene

    scene = Scene(**options)
    ids = [
        scene.add(
            obj.mesh,
            obj.pose,
            static=obj.static,
            velocity=obj.velocity,
            angular_velocity=obj.angular_velocity,
            acceleration=obj.acceleration,
            name=obj.name,
        )
        for obj in load_scene(path)
    ]
    return scene, ids


def pose_matrix(value):
    """A rigid ``(4, 4)`` pose from 6 numbers ``x y z rx ry rz`` or 16 numbers.

    Parameters
    ----------
    value : str or sequence of numbers
        A string is split on spaces and commas. 6 numbers: a translation and rotations in
        degrees about the fixed x, then y, then z axes (``R = Rz @ Ry @ Rx``). 16 numbers
        (or a 4x4 nested list): the matrix row by row; it must be rigid with last row
        ``0 0 0 1``.

    Raises
    ------
    ValueError
        Not 6 or 16 finite numbers, or a 16-number matrix that is not rigid.
    """
    if isinstance(value, str):
        parts = [p for p in re.split(r"[\s,]+", value.strip()) if p]
        try:
            numbers = np.array([float(p) for p in parts])
        except ValueError:
            raise ValueError(f"a pose is 6 or 16 numbers, got {value!r}") from None
    else:
        try:
            raw = _real_array(value, "a pose")  # Python ints of any size are floats
        except TypeError:  # complex, strings, objects
            shown = reprlib.repr(value)
            raise ValueError(f"a pose is 6 or 16 real numbers, got {shown}") from None
        numbers = raw.astype(np.float64).ravel()
    if numbers.size not in (6, 16):
        raise ValueError(
            f"a pose is 6 numbers (x y z rx ry rz) or 16 (a 4x4 matrix), "
            f"got {numbers.size}"
        )
    if not np.isfinite(numbers).all():
        raise ValueError(f"a pose must be finite, got {numbers.tolist()}")
    if numbers.size == 6:
        return _euler_pose(numbers[:3], np.radians(numbers[3:]))
    matrix = numbers.reshape(4, 4)
    rot = matrix[:3, :3]
    if not np.allclose(matrix[3], [0, 0, 0, 1]):
        raise ValueError(
            f"a 4x4 pose must end with the row 0 0 0 1, got {matrix[3].tolist()}"
        )
    if not np.allclose(rot.T @ rot, np.eye(3), atol=_ROT_TOL) or np.linalg.det(rot) < 0:
        raise ValueError("a 4x4 pose must be rigid: its 3x3 block must be a rotation")
    return matrix.copy()


# -- helpers -----------------------------------------------------------------------------


def _euler_pose(trans, angles):
    """Pose of a translation and rotations (radians) about fixed x, then y, then z."""
    cx, cy, cz = np.cos(angles)
    sx, sy, sz = np.sin(angles)
    rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    out = np.eye(4)
    out[:3, :3] = rz @ ry @ rx
    out[:3, 3] = trans
    return out


def _existing(path):
    """The path as a Path, checked to be an existing, readable, regular file."""
    try:
        path = Path(os.fspath(path))
    except TypeError:
        raise FileError(f"expected a file path, got {type(path).__name__}") from None
    if not path.exists():
        raise FileError(f"{path}: no such file")
    if path.is_dir():
        raise FileError(f"{path}: is a folder, not a file")
    if not os.access(path, os.R_OK):
        raise FileError(f"{path}: permission denied")
    return path


def _read_text(path):
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise FileError(f"{path}: cannot read as text ({_one_line(exc)})") from None


def _one_line(exc):
    text = " ".join(str(exc).split())
    return text if len(text) <= 200 else text[:197] + "..."


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


def _scene_entry(path, i, entry):
    """One object of a scene file, checked; its mesh path resolved."""
    where = f"{path}: objects[{i}]"
    if not isinstance(entry, dict):
        raise FileError(f"{where} must be a table of fields, got {type(entry).__name__}")
    known = {
        "name",
        "file",
        "pose",
        "velocity",
        "angular_velocity",
        "acceleration",
        "static",
        "node",
    }
    extra = set(entry) - known
    if extra:
        raise FileError(f"{where}: unknown field(s): {', '.join(sorted(extra))}")
    if not isinstance(entry.get("file"), str):
        raise FileError(f"{where}: needs 'file', the mesh file's path")
    mesh_path = Path(entry["file"])
    if not mesh_path.is_absolute():
        mesh_path = path.parent / mesh_path
    name = entry.get("name", mesh_path.stem)
    if not isinstance(name, str):
        raise FileError(f"{where}.name must be a string")
    static = entry.get("static", False)
    if not isinstance(static, bool):
        raise FileError(f"{where}.static must be true or false")
    node = entry.get("node", "obb")
    from hitbox.bvh import KINDS

    if node not in KINDS:
        raise FileError(f"{where}.node must be one of {', '.join(KINDS)}, got {node!r}")
    try:
        pose = pose_matrix(entry.get("pose", [0, 0, 0, 0, 0, 0]))
    except ValueError as exc:
        raise FileError(f"{where}.pose: {exc}") from None
    vel = _vector(where, entry, "velocity")
    ang = _vector(where, entry, "angular_velocity")
    acc = _vector(where, entry, "acceleration")
    if static and (vel.any() or ang.any() or acc.any()):
        raise FileError(f"{where}: a static object cannot have a velocity")
    return {
        "name": name,
        "file": mesh_path,
        "pose": pose,
        "velocity": vel,
        "angular_velocity": np.radians(ang),
        "acceleration": acc,
        "static": static,
        "node": node,
    }


def _vector(where, entry, key):
    value = entry.get(key, [0.0, 0.0, 0.0])
    try:
        vec = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        vec = None
    if vec is None or vec.shape != (3,) or not np.isfinite(vec).all():
        raise FileError(f"{where}.{key} must be 3 finite numbers, got {value!r}")
    return vec
