"""Scene files and poses.

A scene is a small JSON or TOML file: a list of objects, each a mesh file (relative to the
scene file) or a convex shape, with a pose and, optionally, velocities. In TOML::

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

    [[objects]]                       # a convex shape (hitbox.convex) instead of a file
    name = "pin"
    shape = { kind = "capsule", p0 = [0, 0, -1], p1 = [0, 0, 1], radius = 0.2 }
    pose = [0, 3, 0, 0, 0, 0]

A shape's fields, in its model frame (the pose places it): ``sphere`` (center,
radius), ``capsule`` and ``cylinder`` (p0, p1, radius), ``cone`` (base, apex, radius),
``box`` (center, half: half extents), ``hull`` (points: a list of 3-number points) and
``halfspace`` (normal, offset: the points x with normal . x <= offset; static only).

The JSON form is the same data: ``{"objects": [{"file": "torus.stl", "pose": [...]}]}``.
:func:`load_scene` reads the objects; :func:`scene_from_file` puts them in a
:class:`hitbox.pipeline.Scene`.

A pose is a rigid placement in the world: 6 numbers ``x y z rx ry rz`` (a translation,
then rotations in degrees about the fixed x, then y, then z axes: ``R = Rz @ Ry @ Rx``),
or 16 numbers of a 4x4 matrix, row by row (or a 4x4 nested list).
"""

import re
import reprlib
from pathlib import Path
from typing import NamedTuple

import numpy as np

from hitbox._validate import _real_array
from hitbox.io.common import FileError, _existing, _read_text
from hitbox.io.meshes import load_mesh

__all__ = ["SceneObject", "load_scene", "scene_from_file", "pose_matrix"]

# A rotation is accepted when R^T R is the identity to this tolerance (16-number poses).
_ROT_TOL = 1e-6


class SceneObject(NamedTuple):
    """One object of a scene file, its mesh loaded and its tree built, or its convex
    shape made.

    name : str
    mesh : TriangleMesh, or None for a shape
    pose : (4, 4) float, the object's frame in the world
    velocity : (3,) float, units per second
    angular_velocity : (3,) float, radians per second about the world x, y, z axes
    acceleration : (3,) float, units per second squared
    static : bool
    path : Path, the mesh file, or None for a shape
    shape : hitbox.convex.Shapes (one shape), or None for a mesh
    """

    name: str
    mesh: object
    pose: np.ndarray
    velocity: np.ndarray
    angular_velocity: np.ndarray
    acceleration: np.ndarray
    static: bool
    path: Path
    shape: object = None


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
        motion = [spec[k] for k in ("pose", "velocity", "angular_velocity",
                                    "acceleration", "static")]  # fmt: skip
        if "shape" in spec:
            objects.append(SceneObject(spec["name"], None, *motion, None, spec["shape"]))
            continue
        key = (spec["file"], spec["node"])
        if key in trees:  # one file and kind: one tree, but a mesh object of its own
            first = trees[key]
            mesh = TriangleMesh(first.vertices, first.faces, bvh=first.bvh)
        else:
            mesh = trees[key] = load_mesh(spec["file"], node=spec["node"])
        objects.append(SceneObject(spec["name"], mesh, *motion, spec["file"]))
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
            obj.mesh if obj.shape is None else obj.shape,
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
        "shape",
    }
    extra = set(entry) - known
    if extra:
        raise FileError(f"{where}: unknown field(s): {', '.join(sorted(extra))}")
    if "shape" in entry:
        if "file" in entry or "node" in entry:
            raise FileError(f"{where}: a shape has no 'file' or 'node'")
        shape = _shape(where, entry["shape"])
        mesh_path = None
        default_name = entry["shape"]["kind"]
    else:
        if not isinstance(entry.get("file"), str):
            raise FileError(f"{where}: needs 'file', the mesh file's path, or 'shape'")
        mesh_path = Path(entry["file"])
        if not mesh_path.is_absolute():
            mesh_path = path.parent / mesh_path
        default_name = mesh_path.stem
    name = entry.get("name", default_name)
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
    if mesh_path is None and entry["shape"]["kind"] == "halfspace" and not static:
        raise FileError(f"{where}: a half-space is unbounded and must be static = true")
    spec = {
        "name": name,
        "file": mesh_path,
        "pose": pose,
        "velocity": vel,
        "angular_velocity": np.radians(ang),
        "acceleration": acc,
        "static": static,
        "node": node,
    }
    if mesh_path is None:
        spec["shape"] = shape
    return spec


#: The fields of each shape kind of a scene file: (name, number of values; 0 a
#: scalar, -1 a list of points).
SHAPE_FIELDS = {
    "sphere": (("center", 3), ("radius", 0)),
    "capsule": (("p0", 3), ("p1", 3), ("radius", 0)),
    "cylinder": (("p0", 3), ("p1", 3), ("radius", 0)),
    "cone": (("base", 3), ("apex", 3), ("radius", 0)),
    "box": (("center", 3), ("half", 3)),
    "hull": (("points", -1),),
    "halfspace": (("normal", 3), ("offset", 0)),
}


def _shape(where, table):
    """The hitbox.convex shape of an object's ``shape`` table."""
    from hitbox import convex

    where = f"{where}.shape"
    if not isinstance(table, dict) or table.get("kind") not in SHAPE_FIELDS:
        kinds = ", ".join(SHAPE_FIELDS)
        raise FileError(f"{where} must be a table with 'kind' one of {kinds}")
    fields = SHAPE_FIELDS[table["kind"]]
    extra = set(table) - {"kind"} - {name for name, _ in fields}
    if extra:
        raise FileError(f"{where}: unknown field(s): {', '.join(sorted(extra))}")
    values = []
    for name, size in fields:
        if name not in table:
            raise FileError(f"{where} needs '{name}'")
        try:
            arr = np.asarray(table[name], dtype=np.float64)
        except (TypeError, ValueError):
            arr = None
        shape = () if size == 0 else (size,) if size > 0 else None
        ok = arr is not None and np.isfinite(arr).all() and (
            arr.shape == shape if shape is not None else arr.ndim == 2 and
            arr.shape[1] == 3 and len(arr) > 0)  # fmt: skip
        if not ok:
            what = "a number" if size == 0 else f"{size} numbers" if size > 0 else (
                "a list of points of 3 numbers")  # fmt: skip
            raise FileError(f"{where}.{name} must be {what}, finite")
        values.append(arr)
    try:
        return getattr(convex, table["kind"])(*values)
    except ValueError as exc:
        raise FileError(f"{where}: {exc}") from None


def _vector(where, entry, key):
    value = entry.get(key, [0.0, 0.0, 0.0])
    try:
        vec = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        vec = None
    if vec is None or vec.shape != (3,) or not np.isfinite(vec).all():
        raise FileError(f"{where}.{key} must be 3 finite numbers, got {value!r}")
    return vec
