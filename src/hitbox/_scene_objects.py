"""Objects of a Scene as the user gives them: validation of shapes, poses and motion,
and what is fitted to each object once (bounding sphere, model box, OBB volume)."""

import math
import numbers

import numpy as np

from hitbox import _validate as v
from hitbox import obb
from hitbox._types import OBBs, Spheres
from hitbox.mesh import TriangleMesh

#: All bits: the default collision mask.
ALL_BITS = (1 << 64) - 1
MESH, SPHERE, BOX = "mesh", "sphere", "box"


class SceneObject:
    """The Python side of one object: its shape and what is fitted to it once."""

    __slots__ = (
        "shape",
        "kind",
        "mesh",
        "tris",
        "verts",
        "volume",
        "center",
        "radius",
        "half",
        "rot",
        "model_obb",
        "name",
        "static",
    )

    def __init__(self, shape, kind, name, static):
        self.shape = shape  # the object given to add()
        self.kind = kind
        self.name = name
        self.static = static
        self.mesh = self.tris = self.verts = self.model_obb = None
        self.center = self.radius = self.half = self.rot = None
        self.volume = None


# -- validation and fitting --------------------------------------------------------------


def check_real(value, name):
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    value = float(value)
    if math.isnan(value):
        raise ValueError(f"{name} must not be NaN")
    return value


def check_vector(value, name):
    arr = v.as_float(value, name, finite=True)
    if arr.shape != (3,):
        raise ValueError(f"{name} must have shape (3,), got {arr.shape}")
    return arr


def check_motion(velocity, angular_velocity, acceleration, angular_acceleration):
    """Validated motion as {table name: value}, leaving out arguments given as None."""
    out = {}
    for key, value, name in (
        ("vel", velocity, "velocity"),
        ("omega", angular_velocity, "angular_velocity"),
        ("acc", acceleration, "acceleration"),
    ):
        if value is not None:
            out[key] = check_vector(value, name)
    if angular_acceleration is not None:
        alpha = check_real(angular_acceleration, "angular_acceleration")
        if not (math.isfinite(alpha) and alpha >= 0.0):
            raise ValueError(
                "angular_acceleration is a bound and must be finite and >= 0, "
                f"got {alpha}"
            )
        out["alpha"] = alpha
    return out


def check_bits(value, name):
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int bit set, got {type(value).__name__}")
    if not 0 <= int(value) <= ALL_BITS:
        raise ValueError(f"{name} must be in [0, 2**64), got {value}")
    return np.uint64(int(value))


def check_pose(pose):
    """(rot, trans) of a rigid 4x4 pose, rot snapped to the nearest rotation unless it is
    one to rounding already (so exact poses stay exact)."""
    linear, trans = v.as_transform(pose, "pose", rigid=True)
    if np.abs(linear.T @ linear - np.eye(3)).max() > 1e-14:
        u, _, vt = np.linalg.svd(linear)
        linear = u @ vt
    return np.array(linear, dtype=np.float64), np.array(trans, dtype=np.float64)


def make_object(shape, name, static, volume):
    """A SceneObject from a validated shape (a TriangleMesh, one sphere, one OBB or one
    (2, 3) AABB)."""
    if isinstance(shape, TriangleMesh):
        if shape.n_faces == 0:
            raise ValueError("the mesh has no faces: it can never touch anything")
        obj = SceneObject(shape, MESH, name, static)
        obj.mesh = shape
        obj.tris = np.ascontiguousarray(shape.triangles)
        used = np.unique(shape.faces)
        obj.verts = np.ascontiguousarray(shape.vertices[used])
        ball = ball_of(obj.verts)
        obj.center, obj.radius = ball
        return obj
    if volume is not None:
        raise ValueError("volume= is for meshes: a plain volume is its own volume")
    if isinstance(shape, Spheres):
        s, single = v.as_spheres(shape, "shape", dim=3)
        if len(s.radius) != 1:
            raise ValueError(f"shape must be one sphere, got {len(s.radius)}")
        if not (s.radius[0] >= 0.0 and math.isfinite(s.radius[0])):
            raise ValueError(
                f"a sphere's radius must be finite and >= 0, got {s.radius[0]}"
            )
        obj = SceneObject(shape, SPHERE, name, static)
        obj.center, obj.radius = s.center[0].copy(), float(s.radius[0])
        obj.volume = "sphere"
        return obj
    if isinstance(shape, OBBs):
        o, _ = obb._as_obbs(shape, "shape", tidy=True)
        if len(o.half) != 1:
            raise ValueError(f"shape must be one OBB, got {len(o.half)}")
        if np.any(o.half[0] < 0) or not np.all(np.isfinite(o.half[0])):
            raise ValueError("an OBB's half extents must be finite and >= 0")
        obj = SceneObject(shape, BOX, name, static)
        obj.center, obj.half, obj.rot = (
            o.center[0].copy(),
            o.half[0].copy(),
            o.rot[0].copy(),
        )
    elif isinstance(shape, tuple) and hasattr(shape, "_fields"):
        raise TypeError(f"unsupported shape type {type(shape).__name__}")
    else:
        try:
            box, single = v.as_boxes(shape, "shape", dim=3)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                "shape must be a TriangleMesh, one Spheres, one OBBs or a (2, 3) AABB; "
                f"{exc}"
            ) from None
        if len(box) != 1:
            raise ValueError(f"shape must be one (2, 3) box, got {len(box)}")
        lo, hi = box[0]
        if np.any(lo > hi) or not np.all(np.isfinite(box)):
            raise ValueError("a box shape must be finite and not empty (lo <= hi)")
        obj = SceneObject(shape, BOX, name, static)
        obj.center, obj.half, obj.rot = 0.5 * (lo + hi), 0.5 * (hi - lo), np.eye(3)
    obj.volume = "obb"
    obj.radius = float(np.sqrt(np.sum(obj.half**2)) * (1.0 + 1e-12))
    return obj


def ball_of(points):
    from hitbox import sphere

    ball = sphere.fit(points, method="welzl")
    return np.asarray(ball.center, dtype=np.float64).copy(), float(ball.radius)


def model_box(obj):
    """The object's model-frame AABB."""
    if obj.kind == MESH:
        return np.stack([obj.verts.min(axis=0), obj.verts.max(axis=0)])
    if obj.kind == SPHERE:
        return np.stack([obj.center - obj.radius, obj.center + obj.radius])
    ext = np.abs(obj.rot) @ obj.half
    return np.stack([obj.center - ext, obj.center + ext])
