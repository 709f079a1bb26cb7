"""Objects of a Scene as the user gives them: validation of shapes, poses and motion,
and what is fitted to each object once (bounding sphere, model box, OBB volume)."""

import math
import numbers

import numpy as np

from hitbox import _validate as v
from hitbox import convex, mixed, obb
from hitbox._kernels import pipeline as _k
from hitbox._kernels import primitives as _p
from hitbox._kernels.obb import rot_error
from hitbox._kernels.rigid import SNAP_TOL
from hitbox._kernels.shape_set import Shapes
from hitbox._types import OBBs, Spheres
from hitbox.mesh import TriangleMesh
from hitbox.poses import from_quaternions

#: All bits: the default collision mask.
ALL_BITS = (1 << 64) - 1
MESH, SPHERE, BOX, CONVEX = "mesh", "sphere", "box", "convex"


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
        "convex",
    )

    def __init__(self, shape, kind, name, static):
        self.shape = shape  # the object given to add()
        self.kind = kind
        self.name = name
        self.static = static
        self.mesh = self.tris = self.verts = self.model_obb = None
        self.center = self.radius = self.half = self.rot = None
        self.volume = None
        self.convex = None  # a convex object's shape, one row of hitbox.convex.Shapes


# -- validation and fitting --------------------------------------------------------------


check_real = v.check_real


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


def as_matrices(poses):
    """4x4 poses as given, or the matrices of a ``(positions, quaternions)`` pair
    (:func:`hitbox.poses.from_quaternions`)."""
    if isinstance(poses, tuple) and len(poses) == 2:
        return from_quaternions(*poses)
    return poses


def check_pose(pose):
    """(rot, trans) of a rigid 4x4 pose (or a (position, quaternion) pair), rot snapped
    to the nearest rotation unless it is one to rounding already (so exact poses stay
    exact)."""
    linear, trans = v.as_transform(as_matrices(pose), "pose", rigid=True)
    if np.abs(linear.T @ linear - np.eye(3)).max() > SNAP_TOL:
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
        _check_reach(obj)
        return obj
    if volume is not None:
        raise ValueError("volume= is for meshes: a plain volume is its own volume")
    if isinstance(shape, Shapes):
        return _convex_object(shape, name, static)
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
        _check_reach(obj)
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
        except v.OutOfRange:
            raise
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
        # halves first: lo + hi and hi - lo may overflow where their halves do not
        obj.center, obj.half, obj.rot = (
            0.5 * lo + 0.5 * hi,
            0.5 * hi - 0.5 * lo,
            np.eye(3),
        )
    obj.volume = "obb"
    obj.radius = _norm(obj.half) * (1.0 + 1e-12)
    _check_reach(obj)
    return obj


def _convex_object(shape, name, static):
    """A SceneObject of one hitbox.convex shape: a ball, a box, or a CONVEX object whose
    volume is the box about its core (grown by its radius) in its own frame."""
    n = len(shape.kind)
    if n != 1:
        raise ValueError(f"shape must be one convex shape, got {n}")
    kind = int(shape.kind[0])
    if kind == _p.HALFSPACE and not static:
        raise ValueError(
            "a half-space must be static (static=True): it has no bounds to sweep; "
            "move it by hand with set_pose"
        )
    if not 0 <= kind <= _p.HALFSPACE:
        raise ValueError(f"shape.kind must be a code of hitbox.convex.KINDS, got {kind}")
    first, count = int(shape.first[0]), int(shape.count[0])
    verts = np.asarray(shape.vertices, np.float64)[first : first + count]
    if kind == _p.HULL and (count < 1 or len(verts) != count):
        raise ValueError("a hull shape needs its vertices (shape.first, shape.count)")
    rot = np.asarray(shape.rot[0], np.float64)
    trans = np.asarray(shape.trans[0], np.float64)
    dims = np.asarray(shape.dims[0], np.float64)
    radius, bound = float(shape.radius[0]), float(shape.bound[0])
    parts = (rot, trans, dims, verts, np.array([radius, bound]))
    if not all(np.all(np.isfinite(p)) for p in parts) or radius < 0 or np.any(dims < 0):
        raise ValueError("the shape's pose, dims and radii must be finite (and >= 0)")
    if np.abs(rot.T @ rot - np.eye(3)).max() > 1e-6 or np.linalg.det(rot) <= 0:
        raise ValueError("shape.rot[0] is not a rotation")
    if kind == _p.SPHERE:
        return make_object(Spheres(trans[None], np.array([radius])), name, static, None)
    if kind == _p.BOX and radius == 0.0:
        return make_object(OBBs(trans[None], dims[None], rot[None]), name, static, None)
    if kind == _p.HALFSPACE:  # unbounded: no box, an infinite sphere about its point
        lo = hi = np.zeros(3)
    elif kind == _p.HULL:
        lo, hi = verts.min(axis=0), verts.max(axis=0)
    else:  # capsule (0, 0, h), cylinder and cone (r, 0, h): the core's half extents
        core = dims if kind == _p.BOX else np.array([dims[0], dims[0], dims[2]])
        lo, hi = -core, core
    obj = SceneObject(shape, CONVEX, name, static)
    obj.convex = Shapes(np.array([kind], np.intp), rot[None].copy(), trans[None].copy(),
                        dims[None].copy(), np.array([radius]), np.array([bound]),
                        np.zeros(1, np.intp), np.array([count], np.intp),
                        np.ascontiguousarray(verts))  # fmt: skip
    half = 0.5 * hi - 0.5 * lo + radius
    obj.model_obb = (trans + rot @ (0.5 * lo + 0.5 * hi), half, rot.copy())
    obj.center, obj.radius = trans.copy(), bound * (1.0 + 1e-12)
    obj.volume = "obb"
    _check_reach(obj)
    if kind == _p.HALFSPACE:  # no volume and no bounds
        obj.radius, obj.volume = math.inf, None
    return obj


def convex_fields(obj):
    """The table fields of a CONVEX object (all but its hull's offset, ``xat``)."""
    s = obj.convex
    center, half, rot = obj.model_obb
    return {"sc": center, "sh": half, "sq": rot, "xc": s.trans[0], "xq": s.rot[0],
            "xd": s.dims[0], "xr": s.radius[0], "xb": s.bound[0],
            "xkind": int(s.kind[0]), "xn": int(s.count[0])}  # fmt: skip


def _norm(vec):
    """Euclidean norm of a finite vector, scaled so that squares never overflow."""
    big = float(np.max(np.abs(vec)))
    return big * float(np.sqrt(np.sum((vec / big) ** 2))) if big > 0.0 else 0.0


def _check_reach(obj):
    """ValueError unless |centre| + radius is finite: the scene adds and squares
    world distances of this size."""
    reach = float(np.max(np.abs(obj.center))) + obj.radius
    if not math.isfinite(reach):
        raise ValueError(
            f"shape reaches beyond the float64 range (centre {obj.center.tolist()}, "
            f"bounding radius {obj.radius})"
        )


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
    center, half, rot = obj.model_obb if obj.kind == CONVEX else (obj.center, obj.half,
                                                                 obj.rot)  # fmt: skip
    ext = np.abs(rot) @ half
    return np.stack([center - ext, center + ext])


# -- 2D scenes: discs, boxes and oriented rectangles, lifted into the plane z = 0 -------


def lift_pose2(pose, name="pose"):
    """A rigid (3, 3) homogeneous 2D pose as a (4, 4) pose turning about z."""
    linear, trans = v.as_transform(pose, name, dim=2, rigid=True)
    out = np.eye(4)
    out[:2, :2] = linear
    out[:2, 3] = trans
    return out


def lift_poses2(poses, name="poses"):
    """(K, 3, 3) rigid 2D poses as (K, 4, 4)."""
    arr = np.asarray(poses)
    if arr.ndim != 3 or arr.shape[1:] != (3, 3):
        raise ValueError(
            f"{name} must have shape (K, 3, 3) in a 2D scene, got {arr.shape}"
        )
    out = np.tile(np.eye(4), (len(arr), 1, 1))
    for k in range(len(arr)):
        out[k] = lift_pose2(arr[k], f"{name}[{k}]")
    return out


def lower_pose2(rot, trans):
    """The (3, 3) 2D pose of a lifted object."""
    out = np.eye(3)
    out[:2, :2] = rot[:2, :2]
    out[:2, 2] = trans[:2]
    return out


def lift_vector2(value, name):
    """A 2D vector (or None) as a 3D one with z = 0."""
    if value is None:
        return None
    arr = v.as_float(value, name, finite=True)
    if arr.shape != (2,):
        raise ValueError(f"{name} must have shape (2,) in a 2D scene, got {arr.shape}")
    return np.append(arr, 0.0)


def lift_spin2(value, name="angular_velocity"):
    """A 2D angular velocity (a scalar, rad/s counter-clockwise; or None) as (0, 0, w)."""
    if value is None:
        return None
    return np.array([0.0, 0.0, check_real(value, name)])


def lift_shape2(shape):
    """A disc (Spheres of one 2D centre), a (2, 2) box or an oriented rectangle (OBBs of
    one 2D centre, half extents and 2x2 rotation) as the 3D shape whose cut by z = 0 it
    is: tests between such shapes equal the 2D tests."""
    if isinstance(shape, TriangleMesh | Shapes):
        what = "meshes" if isinstance(shape, TriangleMesh) else "3D convex shapes"
        raise TypeError(
            f"a 2D scene holds discs, boxes and oriented rectangles, not {what}"
        )
    if isinstance(shape, Spheres):
        center = v.as_float(shape.center, "shape.center", finite=True).reshape(-1)
        if center.shape != (2,):
            raise ValueError(
                f"a disc's centre must have 2 coordinates, got {center.shape}"
            )
        return Spheres(np.append(center, 0.0), shape.radius)
    if isinstance(shape, OBBs):
        center = v.as_float(shape.center, "shape.center", finite=True).reshape(-1)
        half = v.as_float(shape.half, "shape.half", finite=True).reshape(-1)
        rot = v.as_float(shape.rot, "shape.rot", finite=True).reshape(-1)
        if center.shape != (2,) or half.shape != (2,) or rot.shape != (4,):
            raise ValueError(
                "an oriented rectangle needs a 2D centre, 2 half extents and a 2x2 rotation"
            )
        lifted = np.eye(3)
        lifted[:2, :2] = rot.reshape(2, 2)
        return OBBs(
            np.append(center, 0.0)[None], np.append(half, 0.0)[None], lifted[None]
        )
    if isinstance(shape, tuple) and hasattr(shape, "_fields"):
        raise TypeError(f"unsupported shape type {type(shape).__name__}")
    box = v.as_float(shape, "shape", finite=True)
    if box.shape != (2, 2):
        raise TypeError(
            "shape must be one Spheres (disc), one OBBs (oriented rectangle) or a (2, 2) "
            f"box in a 2D scene, got an array of shape {box.shape}"
        )
    return np.concatenate([box, np.zeros((2, 1))], axis=1)


# -- the brute-force twin's shapes, and poses in bulk ------------------------------------


def lift_rows(arr, key):
    """(K, 2) velocities as (K, 3) with z = 0, or (K,) spins as (K, 3) about z."""
    out = np.zeros((len(arr), 3))
    if key == "omega":
        out[:, 2] = arr
    else:
        out[:, :2] = arr
    return out


def snap(linear):
    """Rotations snapped to the nearest rotation where they are not one to rounding."""
    out = np.array(linear, dtype=np.float64)
    err = np.empty(len(out))
    rot_error(out, err)
    off = np.flatnonzero(err > SNAP_TOL)
    if len(off):
        u, _, vt = np.linalg.svd(out[off])
        out[off] = u @ vt
    return out


def world_shapes(objs, rot, trans):
    """Plain objects of one kind in world coordinates: Spheres or OBBs."""
    center = np.einsum("kij,kj->ki", rot, np.array([o.center for o in objs])) + trans
    if objs[0].kind == SPHERE:
        return Spheres(center, np.array([o.radius for o in objs]))
    half = np.array([o.half for o in objs])
    return OBBs(center, half, rot @ np.array([o.rot for o in objs]))


def world_convex(obj, pose):
    """A plain object (ball, box or convex shape) moved by ``pose`` (4, 4) as one
    :mod:`hitbox.convex` shape."""
    if obj.kind == CONVEX:
        return convex.transform(obj.convex, pose)
    centre = pose[:3, :3] @ obj.center + pose[:3, 3]
    if obj.kind == SPHERE:
        return convex.sphere(centre, obj.radius)
    return convex.box(centre, obj.half, pose[:3, :3] @ obj.rot)


def mesh_volume_brute(mesh_obj, vol, matrix):
    """Faces of the mesh touching the plain volume (given in the mesh's frame by
    ``matrix``): every face tested exactly."""
    if vol.kind == CONVEX:  # as the mesh's intersect_shapes decides, face by face
        found = mesh_obj.mesh.intersect_shapes_brute(vol.convex, matrix, mode="all")
        return found[1]
    rot = matrix[:3, :3]
    center = np.array([rot[r] @ vol.center for r in range(3)]) + matrix[:3, 3]
    tris = mesh_obj.tris
    faces = np.arange(len(tris), dtype=np.intp)
    found = np.empty(len(faces), np.intp)
    if vol.kind == SPHERE:
        m = _k.triangles_sphere(tris, faces, center, float(vol.radius), False, found)
    else:
        box_rot = np.ascontiguousarray(rot @ vol.rot)
        m = _k.triangles_box(tris, faces, center, vol.half, box_rot, False, found)
    return found[:m]


#: Per-object volume kinds a mesh may be given.
VOLUMES = ("sphere", "aabb", "obb", "kdop14", "kdop18", "kdop26")

_VOLUME_CODE = {
    "sphere": _k.SPHERE,
    "aabb": _k.AABB,
    "kdop14": _k.KDOP14,
    "kdop18": _k.KDOP18,
    "kdop26": _k.KDOP26,
    "obb": _k.OBB,
}


def object_entry(
    shape, pose, static, velocity, angular_velocity, acceleration,
    angular_acceleration, group, mask, volume, name,
):  # fmt: skip
    """Validate everything add() was given; build the object without touching the
    scene. Returns (SceneObject, {field: row value})."""
    if not isinstance(static, bool | np.bool_):
        raise TypeError(f"static must be a bool, got {type(static).__name__}")
    static = bool(static)
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name must be a str or None, got {type(name).__name__}")
    rot, trans = check_pose(np.eye(4) if pose is None else pose)
    motion = check_motion(velocity, angular_velocity, acceleration, angular_acceleration)
    if static and any(np.any(x != 0) for x in motion.values()):
        raise ValueError("a static object cannot have a velocity or an acceleration")
    group = check_bits(group, "group")
    mask = check_bits(mask, "mask")
    if volume is not None:
        volume = v.check_choice(volume, "volume", VOLUMES)
    obj = make_object(shape, name, static, volume)
    if obj.kind == MESH:
        if volume is None:
            # a dynamic object may be turned by hand (set_pose) at any step: its
            # volume must move without a refit from every vertex
            volume = mixed.choose(obj.verts, rotating=not static)
        _fit_volume(obj, volume)
    if obj.kind == MESH:
        shape_data = _mesh_volume_fields(obj)
    elif obj.kind == CONVEX:
        shape_data = convex_fields(obj)
    elif obj.kind == SPHERE:
        shape_data = {"sc": obj.center, "sr": obj.radius}
    else:
        shape_data = {"sc": obj.center, "sh": obj.half, "sq": obj.rot}
    data = {
        **shape_data,
        "rot": rot,
        "trans": trans,
        "static": static,
        "group": group,
        "mask": mask,
        "is_mesh": obj.kind == MESH,
        "vkind": _VOLUME_CODE.get(obj.volume, _k.OBB),  # a half-space: never read
        "mc": obj.center,
        "mr": obj.radius,
        "mbox": model_box(obj),
        **motion,
    }
    if is_halfspace(obj):  # it never moves: no reach (the step bounds its pairs apart)
        data["mc"], data["mr"] = np.zeros(3), 0.0
    return obj, data


def is_halfspace(obj):
    """Is the SceneObject a half-space (unbounded, static)?"""
    return obj.kind == CONVEX and int(obj.convex.kind[0]) == _p.HALFSPACE


def _fit_volume(obj, volume):
    """A mesh object's volume kind, with its model-frame OBB when it has one."""
    obj.volume = volume
    if volume == "obb":
        fit = obb.fit(obj.verts, method="hull")
        obj.model_obb = tuple(np.asarray(x) for x in (fit.center, fit.half, fit.rot))


def _mesh_volume_fields(obj):
    if obj.model_obb is None:
        return {}
    return dict(zip(("sc", "sh", "sq"), obj.model_obb, strict=True))


def deformed_entry(obj, mesh):
    """Mesh object ``obj`` on ``mesh``, the same faces on moved vertices: a new
    SceneObject (name, motion and volume kind kept; sphere, box and volume fitted
    again) and the fields of its row that change."""
    new = make_object(mesh, obj.name, obj.static, None)
    _fit_volume(new, obj.volume)
    fields = {"mc": new.center, "mr": new.radius, "mbox": model_box(new)}
    return new, {**_mesh_volume_fields(new), **fields}


def check_id(objects, id):
    """The int id of a live object (``objects``: id -> SceneObject)."""
    if isinstance(id, bool | np.bool_) or not isinstance(id, numbers.Integral):
        raise TypeError(f"object ids are ints, got {type(id).__name__}")
    i = int(id)
    if i not in objects:
        raise ValueError(f"unknown object id {i}")
    return i


def check_ids(objects, ids):
    """(K,) intp of live, distinct object ids."""
    arr = np.asarray(ids)
    if arr.dtype.kind not in "iu":  # np.issubdtype took 1 us of a 60-id call
        raise TypeError(f"ids must be an array of ints, got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"ids must be one-dimensional, got shape {arr.shape}")
    idx = arr.astype(np.intp, copy=False)
    listed = idx.tolist()
    # one set answers both checks (a loop of dict lookups cost 10 us for 60 ids)
    given = set(listed)
    if not objects.keys() >= given:
        unknown = next(i for i in listed if i not in objects)
        raise ValueError(f"unknown object id {unknown} in ids")
    if len(given) != len(listed):
        raise ValueError("ids must not repeat an object")
    return idx
