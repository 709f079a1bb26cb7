"""A Scene's objects as the user changes them by hand: adding and removing, poses and
motions set in bulk or one at a time, ignored pairs, and the id lists the compiled step
reads (see :class:`hitbox.pipeline.Scene`, which is a SceneEditing)."""

import numpy as np

from hitbox import _validate as v
from hitbox._direct_call import direct_entry
from hitbox._kernels import scene_layout as _kl
from hitbox._kernels.pipeline import AABB, KDOP14, KDOP18, KDOP26
from hitbox._kernels.primitives import HALFSPACE
from hitbox._kernels.rigid import write_poses
from hitbox._kernels.scene_narrow import fit_volume
from hitbox._scene_objects import (
    ALL_BITS,
    CONVEX,
    MESH,
    as_matrices,
    check_id,
    check_ids,
    check_motion,
    check_pose,
    deformed_entry,
    lift_pose2,
    lift_poses2,
    lift_rows,
    lift_shape2,
    lift_spin2,
    lift_vector2,
    lower_pose2,
    object_entry,
    snap,
)

#: write_poses' compiled entry points (hitbox._direct_call), by whether the poses array
#: is writeable and aligned (the only parts of the arguments' types that vary): numba's
#: dispatch of its seven arrays cost 2.4 of a 4.4 us call for 45 poses.
_WRITE_POSES = {}
_FLOAT64 = np.dtype(np.float64)

#: Volume kinds fitted over a mesh's vertices (the others move with their object).
_BOX_VOLUMES = (AABB, KDOP14, KDOP18, KDOP26)


def _write_poses(flags, poses, *rest):
    """write_poses(poses, *rest), through its entry point after the first call;
    ``flags`` those of ``poses``."""
    key = (flags.writeable, flags.aligned)
    entry = _WRITE_POSES.get(key)
    if entry is not None:
        return entry(poses, *rest)
    result = write_poses(poses, *rest)
    _WRITE_POSES[key] = direct_entry(write_poses, (poses, *rest))
    return result


#: ``broadphase="auto"`` tests every dynamic pair up to this many dynamic objects, where
#: keeping a sorted order costs more than it saves; sort-and-sweep above (the step's
#: pair search over the 60-tori scene of benchmarks/bench_scene_step.py, 45 dynamic:
#: about 17 us brute, 12 us swept; even at 24 dynamic).
SMALL = 32


class SceneEditing:
    """The object-editing half of :class:`hitbox.pipeline.Scene` (its state is the
    Scene's: ``_objects``, the buffers ``_buf`` and their views ``_t``, ``_ignore``);
    every change first settles the motion queued by quiet steps (``_changed``)."""

    # -- objects -------------------------------------------------------------------------

    def add(
        self,
        shape,
        pose=None,
        *,
        static=False,
        velocity=None,
        angular_velocity=None,
        acceleration=None,
        angular_acceleration=0.0,
        group=1,
        mask=ALL_BITS,
        volume=None,
        name=None,
    ):
        """Add an object; return its id.

        Parameters
        ----------
        shape : TriangleMesh, Spheres (one sphere), (2, 3) AABB, OBBs (one box) or
            hitbox.convex.Shapes (one shape: sphere, capsule, box, cylinder, cone, hull
            or half-space; 3D scenes)
            Given in the object's model frame. One shape may be added many times:
            instances of one mesh share its tree, of one hull its vertices. A
            half-space (a ground, a wall) must be static; it is paired with every
            dynamic object, outside the broad phase.
        pose : (4, 4) float or (position (3,), quaternion (4,)), optional
            Rigid model-to-world map (identity if omitted); its rotation is snapped to the
            nearest rotation matrix. A quaternion is (x, y, z, w), as
            :func:`hitbox.poses.from_quaternions` reads it.
        static : bool
            Static objects never move and never collide with each other.
        velocity, angular_velocity, acceleration : (3,) float
            World-frame linear velocity, angular velocity (about the object's origin) and
            linear acceleration of a dynamic object.
        angular_acceleration : float >= 0
            A bound on |d(angular velocity)/dt| for the time bounds of the pretreatment
            (the scene integrates a constant angular velocity).
        group, mask : int in [0, 2**64)
            Bit sets: a pair may collide iff ``group_a & mask_b`` and
            ``group_b & mask_a``.
        volume : {"sphere", "aabb", "obb", "kdop14", "kdop18", "kdop26"}, optional
            A mesh's per-object volume kind; default ``mixed.choose(vertices,
            rotating=not static)``: a dynamic object may turn, by its angular velocity
            or by hand, and its volume then moves exactly instead of being refitted
            from every vertex. Plain volumes are their own volume.
        name : str, optional
        """
        self._changed()
        if self.dim == 2:
            shape = lift_shape2(shape)
            pose = None if pose is None else lift_pose2(pose)
            velocity = lift_vector2(velocity, "velocity")
            angular_velocity = lift_spin2(angular_velocity)
            acceleration = lift_vector2(acceleration, "acceleration")
        obj, data = object_entry(
            shape, pose, static, velocity, angular_velocity, acceleration,
            angular_acceleration, group, mask, volume, name,
        )  # fmt: skip
        if obj.kind == MESH:
            data["tree"] = self._buf.tree_for(obj.mesh)
        elif obj.kind == CONVEX and obj.convex.count[0]:
            data["xat"] = self._buf.hull_for(obj.shape, obj.convex.vertices)
        i = self._next
        if i >= self._buf.cap:
            self._buf.grow(2 * self._buf.cap)
            self._t = self._buf.views
        self._next += 1
        self._objects[i] = obj
        t = self._t
        for key, value in data.items():
            t[key][i] = value
        t["bounds_version"][i] = t["vol_version"][i] = -1
        t["version"][i] += 1
        t["epoch"][i] += 1
        if obj.kind == MESH and static and data["vkind"] in _BOX_VOLUMES:
            # pretreatment: a static mesh's box or k-DOP is fitted once, here, not by
            # the step where a pair first comes near (moved by hand, it is refitted
            # when next needed)
            b = self._buf
            fit_volume(b.objs, b.tree_f, b.tree_i, i)
        self._lists_dirty = True
        return i

    def remove(self, id):
        """Remove an object; its id becomes unknown."""
        i = check_id(self._objects, id)
        self._changed()
        del self._objects[i]
        self._t["epoch"][i] += 1
        if len(self._ignore):
            keep = ((self._ignore >> 32) != i) & ((self._ignore & 0xFFFFFFFF) != i)
            self._ignore = self._ignore[keep]
        self._lists_dirty = True

    def set_pose(self, id, pose):
        """Move an object by hand (static objects too); wakes every pair it is in."""
        i = check_id(self._objects, id)
        self._changed()
        rot, trans = check_pose(lift_pose2(pose) if self.dim == 2 else pose)
        t = self._t
        t["rot"][i], t["trans"][i] = rot, trans
        t["version"][i] += 1
        t["epoch"][i] += 1

    def _checked_ids(self, ids):
        """check_ids(ids) as a C-contiguous intp array, remembered for the last array
        of ids while the set of objects stays the same (a game loop passes the same ids
        every frame: 0.5 us against 5 for 45 ids). ``_next`` only grows and the count
        drops on a removal, so the pair of them changes whenever the set does."""
        if type(ids) is not np.ndarray or ids.ndim != 1 or ids.dtype.kind not in "iu":
            return np.ascontiguousarray(check_ids(self._objects, ids))
        key = (ids.dtype.str, ids.tobytes(), self._next, len(self._objects))
        if key == self._ids_key:
            return self._ids_idx
        idx = np.array(check_ids(self._objects, ids))  # a copy the caller cannot change
        self._ids_key, self._ids_idx = key, idx
        return idx

    def set_poses(self, ids, poses):
        """Move many objects by hand in one call: ``ids (K,)`` live object ids, each once,
        and ``poses (K, 4, 4)`` rigid poses (rotations snapped as :meth:`add` does), or
        ``(positions (K, 3), quaternions (K, 4))`` (:func:`hitbox.poses.from_quaternions`,
        scalar last). Wakes every pair of each. Nothing moves unless every id and pose
        is valid."""
        idx = self._checked_ids(ids)
        self._changed()
        if self.dim == 2:
            poses = lift_poses2(poses)
        if type(poses) is not np.ndarray:
            poses = as_matrices(poses)
        t = self._t
        flags = poses.flags if type(poses) is np.ndarray else None
        if (
            flags is not None
            and flags.c_contiguous
            and poses.dtype is _FLOAT64  # numpy's own float64 dtype is one object
            and poses.shape == (len(idx), 4, 4)
        ):
            # the checks and the writes in one compiled call (a game loop's every
            # frame); a pose that fails leaves everything as it was, and the checks
            # below run again to name the problem. idx is C-contiguous intp
            # (_checked_ids), as the direct call needs.
            off = self._pose_off
            if len(off) < len(idx):
                off = self._pose_off = np.empty(len(idx), np.intp)
            bad, n_off = _write_poses(
                flags, poses, idx, t["rot"], t["trans"], t["version"], t["epoch"], off
            )
            if bad < 0:
                if n_off:
                    rows = idx[off[:n_off]]
                    t["rot"][rows] = snap(t["rot"][rows])
                return
        linear, trans, _ = v.as_transforms(poses, "poses", rigid=True)
        if len(linear) != len(idx):
            raise ValueError(f"poses holds {len(linear)} poses for {len(idx)} ids")
        linear = snap(linear)
        t["rot"][idx], t["trans"][idx] = linear, trans
        t["version"][idx] += 1
        t["epoch"][idx] += 1

    def set_vertices(self, id, vertices):
        """Deform a mesh object: the same faces on moved ``vertices`` (V, 3), in its model
        frame. Its tree is refitted, not rebuilt (:meth:`TriangleMesh.deformed`), and its
        bounding sphere, box and volume fitted again; every pair it is in wakes.
        Instances of one mesh deform apart. The object's mesh becomes the deformed one,
        with an OBB tree (the tree the step walks)."""
        i = check_id(self._objects, id)
        obj = self._objects[i]
        if obj.kind != MESH:
            raise ValueError(
                f"object {i} is not a mesh: only a mesh has vertices to move"
            )
        t = self._t
        slot = int(t["tree"][i])
        mesh = self._buf.tree_mesh(slot).deformed(vertices)  # checks the vertices
        new, fields = deformed_entry(obj, mesh)
        self._changed()
        shared = any(
            o.kind == MESH and int(t["tree"][k]) == slot
            for k, o in self._objects.items()
            if k != i
        )
        t["tree"][i] = self._buf.retree(slot, mesh, shared)
        self._buf.drop_fronts(i)
        for key, value in fields.items():
            t[key][i] = value
        self._objects[i] = new
        t["bounds_version"][i] = t["vol_version"][i] = -1
        t["version"][i] += 1
        t["epoch"][i] += 1

    def set_velocity(
        self,
        id,
        velocity=None,
        angular_velocity=None,
        acceleration=None,
        angular_acceleration=None,
    ):
        """Change a dynamic object's motion (arguments left as None keep their value);
        wakes every pair it is in."""
        i = check_id(self._objects, id)
        self._changed()
        if self.dim == 2:
            velocity = lift_vector2(velocity, "velocity")
            angular_velocity = lift_spin2(angular_velocity)
            acceleration = lift_vector2(acceleration, "acceleration")
        new = check_motion(velocity, angular_velocity, acceleration, angular_acceleration)
        if self._objects[i].static and any(np.any(x != 0) for x in new.values()):
            raise ValueError(f"object {i} is static: it cannot be given a motion")
        for key, value in new.items():
            self._t[key][i] = value
        self._t["epoch"][i] += 1
        self._lists_dirty = True

    def set_velocities(self, ids, velocities=None, angular_velocities=None):
        """Change many dynamic objects' linear and angular velocities in one call:
        ``(K, 3)`` arrays, None keeps the current values; wakes their pairs. Nothing
        changes unless every argument is valid."""
        idx = self._checked_ids(ids)
        self._changed()
        new = {}
        for key, value, name in (
            ("vel", velocities, "velocities"),
            ("omega", angular_velocities, "angular_velocities"),
        ):
            if value is None:
                continue
            arr = v.as_float(value, name, finite=True)
            spin2 = self.dim == 2 and key == "omega"
            want = (len(idx),) if spin2 else (len(idx), self.dim)
            if arr.shape != want:
                raise ValueError(f"{name} must have shape {want}, got {arr.shape}")
            new[key] = lift_rows(arr, key) if self.dim == 2 else arr
        static = self._t["static"][idx] != 0
        if static.any() and any(np.any(a[static] != 0) for a in new.values()):
            bad = int(idx[np.flatnonzero(static)[0]])
            raise ValueError(f"object {bad} is static: it cannot be given a motion")
        for key, arr in new.items():
            self._t[key][idx] = arr
        self._t["epoch"][idx] += 1
        self._lists_dirty = True

    def ignore(self, id_a, id_b):
        """Never report the pair (id_a, id_b) (trimesh issue 2454's ignore list)."""
        i, j = check_id(self._objects, id_a), check_id(self._objects, id_b)
        if i == j:
            raise ValueError(f"cannot ignore the pair of object {i} with itself")
        key = (min(i, j) << 32) | max(i, j)
        self._ignore = np.union1d(self._ignore, np.array([key], np.int64))
        self._lists_dirty = True

    def pose(self, id):
        """The object's current (4, 4) pose."""
        i = check_id(self._objects, id)
        self._materialize()
        rot, trans = self._t["rot"][i], self._t["trans"][i]
        if self.dim == 2:
            return lower_pose2(rot, trans)
        out = np.eye(4)
        out[:3, :3], out[:3, 3] = rot, trans
        return out

    def volume(self, id):
        """The object's per-object volume kind (None for a half-space: it has none)."""
        return self._objects[check_id(self._objects, id)].volume

    def name(self, id):
        """The name given to :meth:`add` (or None)."""
        return self._objects[check_id(self._objects, id)].name

    # -- bookkeeping ---------------------------------------------------------------------

    def _refresh_lists(self):
        """Id lists, the moving set, the sweep and the default threshold, after objects
        or motions changed."""
        if not self._lists_dirty:
            return
        t = self._t
        ids = np.array(sorted(self._objects), dtype=np.intp)
        self._ids = ids
        static = t["static"][ids] != 0
        # half-spaces (static) are unbounded: the step pairs each with every dynamic
        # object, outside the broad phase
        plane = t["xkind"][ids] == HALFSPACE
        planes, bounded = ids[plane], ids[~plane]
        stat, dyn = ids[static & ~plane], ids[~static]
        moving = (
            np.any(t["vel"][dyn] != 0, axis=1)
            | np.any(t["omega"][dyn] != 0, axis=1)
            | np.any(t["acc"][dyn] != 0, axis=1)
        )
        # the stats count half-spaces among the static objects (the kernel lists apart)
        self._n_dyn, self._n_stat = len(dyn), len(stat) + len(planes)
        self._sizes = (len(self._objects), self._n_dyn, self._n_stat)  # a step's facts
        brute = self._method == "brute" or (self._method == "auto" and len(dyn) <= SMALL)
        self._sweep = _kl.BRUTE if brute else _kl.SAP
        self._moving = np.ascontiguousarray(dyn[moving])
        self._buf.set_lists(dyn, stat, self._moving, bounded, planes, self._ignore)
        if self._threshold is None:
            # pairs of plain volumes cost less to test each step than to schedule
            # (benchmarks/bench_scene_shapes.py): meshes alone set the default
            meshes = ids[t["is_mesh"][ids] != 0]
            value = 2.0 * float(np.median(t["mr"][meshes])) if len(meshes) else 0.0
            if value != self._threshold_value:
                self._threshold_value = value
                t["bounds_version"][:] = -1  # the grown boxes depend on it
        self._lists_dirty = False
