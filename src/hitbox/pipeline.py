"""A scene of moving objects and the three-stage pipeline that finds which ones touch
(SPEC §9, seed 003).

Objects are triangle meshes (:class:`~hitbox.mesh.TriangleMesh`, surfaces) or plain
volumes (one sphere, one box, one OBB: solids), each with a rigid pose, static or
dynamic; dynamic ones carry a linear and an angular velocity and a linear acceleration,
which :meth:`Scene.step` integrates. Each query reports every touching pair of objects
once, with ``i < j`` (A-B, never again B-A), through these stages:

1. **Broad phase, and the pretreatment's spatial partition** (seed 000: far objects
   cannot collide soon). Each dynamic object's world box (Arvo's box of its model box
   under the pose, cut down to its bounding sphere's box), grown by ``threshold / 2``,
   goes into an incremental sort-and-sweep or tree (:mod:`hitbox.broadphase`, temporal
   coherence). Static objects sit in a structure of their own that only dynamic objects
   query, so static-static pairs are never formed. Pairs whose grown boxes do not meet
   are more than ``threshold`` apart: far, treated as points, skipped.
2. **Pretreatment** of the pairs that do meet (seed 003 §1.1): pairs that groups, masks
   or the ignore list exclude are dropped; a pair asleep is skipped without a look;
   pairs whose bounding spheres are more than ``threshold`` apart are far. For the rest
   the gap lambda between the bounding spheres, with the pair's speed and acceleration
   bounds (linear velocity, the sphere centre's speed about the rotation centre, and
   the acceleration bounds), gives the least time before they can touch: a pair with
   lambda > 0 sleeps until then. Moving an object by hand (``set_pose``,
   ``set_velocity``) wakes its pairs. Pairs whose spheres meet are tested box against
   box (the broad phase's exact test).
3. **Per-object volumes** (seed 003 §1.2.2). Each mesh carries the volume kind
   :func:`hitbox.mixed.choose` picks for it (sphere, AABB, OBB or k-DOP; spheres and
   OBBs are moved exactly, AABBs and k-DOPs refit from the moved vertices), tested with
   the cross-kind tests of :mod:`hitbox.mixed`. A plain volume is its own volume.
4. **Narrow phase**: mesh-mesh by the BVH tree-vs-tree query in the relative frame,
   mesh-plain by the mesh's BVH query and an exact triangle-sphere or triangle-box test,
   plain-plain by the exact cross-kind test.

Touching counts (closed tests throughout). A mesh is its surface: a mesh collides with
another object only where its triangles meet it; a plain volume is solid. Every stage is
conservative, so the pairs equal :meth:`Scene.query_brute`'s, which tests every pair
exactly with no pretreatment and no culling.
"""

import math
import numbers
import time
from typing import NamedTuple

import numpy as np

from hitbox import _validate as v
from hitbox import broadphase, kdop, mixed, obb
from hitbox._kernels import mixed as _km
from hitbox._kernels import pipeline as _k
from hitbox._types import OBBs, Spheres
from hitbox.bvh import BVH
from hitbox.mesh import TriangleMesh

__all__ = [
    "Scene",
    "StepResult",
    "StepStats",
    "StageSeconds",
    "MODES",
    "BROADPHASES",
    "VOLUMES",
]

#: Query modes: ``"any"`` reports the touching pairs; ``"all"`` also their triangles.
MODES = ("any", "all")
#: Broad-phase structures for the dynamic objects (see :class:`Scene`).
BROADPHASES = ("auto", "sap", "tree", "brute")
#: Per-object volume kinds a mesh may be given.
VOLUMES = ("sphere", "aabb", "obb", "kdop14", "kdop18", "kdop26")
#: ``broadphase="auto"`` runs one compiled all-pairs pass up to this many dynamic objects
#: (and statics), where an incremental structure's bookkeeping costs more than it saves.
SMALL = 128
#: All bits: the default collision mask.
ALL_BITS = (1 << 64) - 1

_VOLUME_CODE = {
    "sphere": _k.SPHERE,
    "aabb": _k.AABB,
    "kdop14": _k.KDOP14,
    "kdop18": _k.KDOP18,
    "kdop26": _k.KDOP26,
    "obb": _k.OBB,
}
_KDOP_OF_CODE = {_k.KDOP14: 14, _k.KDOP18: 18, _k.KDOP26: 26}
# Writable copies, as hitbox.mixed passes them: one numba signature for both.
_AXES = {k: np.array(kdop.AXES[k], dtype=np.float64) for k in (6, 14, 18, 26)}
_MESH, _SPHERE, _BOX = "mesh", "sphere", "box"
# Results of a query that found nothing (read-only: shared by every such result).
_NO_TRIANGLES = np.empty((2, 0), np.intp)
_NO_OFFSETS = np.zeros(1, np.intp)
_NO_TRIANGLES.flags.writeable = _NO_OFFSETS.flags.writeable = False


class StageSeconds(NamedTuple):
    """Wall-clock seconds spent in each stage of one query (``motion``: the step's
    integration, 0 for :meth:`Scene.query`)."""

    motion: float
    broadphase: float
    pretreatment: float
    volumes: float
    narrow: float

    @property
    def total(self):
        return sum(self)


class StepStats(NamedTuple):
    """What one query did, as a funnel over all ``pairs`` = n (n - 1) / 2 object pairs.

    Every pair lands in exactly one of ``skipped_static``, ``skipped_far``,
    ``skipped_filtered``, ``skipped_scheduled``, ``rejected_by_boxes`` and
    ``broadphase_candidates``; the candidates split into ``rejected_by_volumes`` and
    ``narrow_tested`` (pairs of two plain volumes skip the volume stage: their volumes
    are their shapes, and they go straight to the exact test), of which ``colliding``
    touch.

    - ``skipped_static``: static-static pairs, never formed.
    - ``skipped_far``: world boxes (the structure never reports the pair) or bounding
      spheres more than ``threshold`` apart.
    - ``skipped_filtered``: excluded by groups and masks or by the ignore list.
    - ``skipped_scheduled``: asleep, by an earlier step's time bound or by this step's
      (spheres apart by less than ``threshold``; ``scheduled_new`` of them this step).
    - ``rejected_by_boxes``: bounding spheres meet, world boxes do not.
    """

    time: float
    objects: int
    pairs: int
    skipped_static: int
    skipped_far: int
    skipped_filtered: int
    skipped_scheduled: int
    scheduled_new: int
    rejected_by_boxes: int
    broadphase_candidates: int
    rejected_by_volumes: int
    narrow_tested: int
    colliding: int
    seconds: StageSeconds


class StepResult(NamedTuple):
    """The touching pairs of one query.

    pairs : (2, n) intp
        Object ids, row 0 < row 1, sorted by (row 0, row 1); each pair once.
    triangles : (2, T) intp
        With ``mode="all"``: pair k's touching primitive pairs are
        ``triangles[:, offsets[k]:offsets[k + 1]]``, row 0 of object ``pairs[0, k]``,
        row 1 of ``pairs[1, k]``, sorted. A mesh contributes face indices; a plain volume,
        which has no faces, -1 (so a mesh-sphere pair lists (face, -1) columns and a
        sphere-box pair the one column (-1, -1)). With ``mode="any"``: empty.
    offsets : (n + 1,) intp
        Start of each pair's columns in ``triangles``; all 0 with ``mode="any"``.
    stats : StepStats
    """

    pairs: np.ndarray
    triangles: np.ndarray
    offsets: np.ndarray
    stats: StepStats


class _Object:
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
        "trees",
        "name",
        "static",
    )

    def __init__(self, shape, kind, name, static):
        self.shape = shape  # the object given to add(), kept for the identity check
        self.kind = kind
        self.name = name
        self.static = static
        self.mesh = self.tris = self.verts = self.model_obb = None
        self.center = self.radius = self.half = self.rot = None
        self.volume = None
        self.trees = {}


class Scene:
    """Objects with poses and motion; each query finds every touching pair (module doc).

    Parameters
    ----------
    threshold : float >= 0, optional
        Pairs farther apart than this are far: skipped, not scheduled. Nearer pairs that
        do not touch sleep until their time bound. Default: the median bounding-sphere
        diameter of the objects in the scene (recomputed as objects come and go).
    broadphase : {"auto", "sap", "tree", "brute"}
        Structure over the dynamic objects: ``"sap"`` incremental sort-and-sweep
        (:class:`hitbox.broadphase.IncrementalSAP`), ``"tree"`` a refitted dynamic tree
        (:class:`hitbox.broadphase.DynamicTree`), ``"brute"`` every pair in one compiled
        pass (the twin). ``"auto"``: brute up to :data:`SMALL` dynamic objects, else
        sort-and-sweep (the broadphase module's own rule).
        Statics: a compiled pass up to :data:`SMALL` of them (or with ``"brute"``), else
        a BVH over their grown boxes, rebuilt when a static is added, moved or removed.
    trace : bool
        Keep, in :attr:`trace`, the pairs that entered each stage in the last query:
        ``"near"`` (reported by the structures, then pretreated), ``"volumes"``,
        ``"narrow"`` (for tests: no static-static pair ever enters one).

    Object ids are ints handed out from 0 up and never reused.
    """

    def __init__(self, *, threshold=None, broadphase="auto", trace=False):
        if threshold is not None:
            threshold = _real(threshold, "threshold")
            if not (math.isfinite(threshold) and threshold >= 0.0):
                raise ValueError(f"threshold must be finite and >= 0, got {threshold}")
        self._threshold = threshold
        self._method = v.check_choice(broadphase, "broadphase", BROADPHASES)
        self._trace_on = bool(trace)
        self.trace = {}
        self._time = 0.0
        self._objects = {}  # id -> _Object
        self._owner = {}  # id(shape) -> object id
        self._next = 0
        self._cap = 0
        self._alloc(16)
        self._ignore = np.empty(0, np.int64)
        self._sched_keys = np.empty(0, np.int64)
        self._sched_wake = np.empty(0)
        self._sched_epoch = np.empty((0, 2), np.int64)
        self._tracker = None
        self._tid = {}  # object id -> tracker id
        self._tid_obj = np.empty(0, np.intp)  # tracker id -> object id
        self._static_tree = None
        self._lists_dirty = True
        self._statics_dirty = True
        self._threshold_value = 0.0 if threshold is None else threshold

    # -- objects -------------------------------------------------------------------------

    def add(
        self,
        shape,
        pose=None,
        *,
        static=False,
        velocity=(0.0, 0.0, 0.0),
        angular_velocity=(0.0, 0.0, 0.0),
        acceleration=(0.0, 0.0, 0.0),
        angular_acceleration=0.0,
        group=1,
        mask=ALL_BITS,
        volume=None,
        name=None,
    ):
        """Add an object; return its id.

        Parameters
        ----------
        shape : TriangleMesh, Spheres (one sphere), (2, 3) AABB or OBBs (one box)
            Given in the object's model frame. The same Python object cannot be added
            twice (add a copy, or share a mesh by building two TriangleMesh objects).
        pose : (4, 4) float, optional
            Rigid model-to-world map (identity if omitted); its rotation is snapped to the
            nearest rotation matrix.
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
            rotating=<angular velocity non-zero>)``. Plain volumes are their own volume.
        name : str, optional
        """
        obj, data = self._make(
            shape,
            pose,
            static,
            velocity,
            angular_velocity,
            acceleration,
            angular_acceleration,
            group,
            mask,
            volume,
            name,
        )
        i = self._next
        if i >= self._cap:
            self._alloc(2 * self._cap)
        self._next += 1
        self._objects[i] = obj
        self._owner[id(shape)] = i
        for key, value in data.items():
            getattr(self, key)[i] = value
        self._version[i] += 1
        self._epoch[i] += 1
        if not static and self._method != "brute":
            tracker = self._get_tracker()
            self._tid[i] = tracker.add(np.array([[np.inf] * 3, [-np.inf] * 3]))
            tid = self._tid[i]
            if tid >= len(self._tid_obj):
                grown = np.full(max(2 * len(self._tid_obj), tid + 1), -1, np.intp)
                grown[: len(self._tid_obj)] = self._tid_obj
                self._tid_obj = grown
            self._tid_obj[tid] = i
        self._changed(static)
        return i

    def remove(self, id):
        """Remove an object; its id becomes unknown."""
        i = self._check_id(id)
        obj = self._objects.pop(i)
        del self._owner[_identity(obj.shape)]
        self._epoch[i] += 1
        if i in self._tid:
            self._tracker.remove(self._tid.pop(i))
        if len(self._ignore):
            keep = ((self._ignore >> 32) != i) & ((self._ignore & 0xFFFFFFFF) != i)
            self._ignore = self._ignore[keep]
        self._changed(obj.static)

    def set_pose(self, id, pose):
        """Move an object by hand (static objects too); wakes every pair it is in."""
        i = self._check_id(id)
        rot, trans = _pose(pose)
        self._rot[i], self._trans[i] = rot, trans
        self._version[i] += 1
        self._epoch[i] += 1
        if self._objects[i].static:
            self._statics_dirty = True

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
        i = self._check_id(id)
        new = _motion(velocity, angular_velocity, acceleration, angular_acceleration)
        if self._objects[i].static and any(np.any(x != 0) for x in new.values()):
            raise ValueError(f"object {i} is static: it cannot be given a motion")
        for key, value in new.items():
            getattr(self, key)[i] = value
        self._epoch[i] += 1
        self._lists_dirty = True

    def ignore(self, id_a, id_b):
        """Never report the pair (id_a, id_b) (trimesh issue 2454's ignore list)."""
        i, j = self._check_id(id_a), self._check_id(id_b)
        if i == j:
            raise ValueError(f"cannot ignore the pair of object {i} with itself")
        key = (min(i, j) << 32) | max(i, j)
        self._ignore = np.union1d(self._ignore, np.array([key], np.int64))

    def pose(self, id):
        """The object's current (4, 4) pose."""
        i = self._check_id(id)
        out = np.eye(4)
        out[:3, :3], out[:3, 3] = self._rot[i], self._trans[i]
        return out

    def volume(self, id):
        """The object's per-object volume kind."""
        return self._objects[self._check_id(id)].volume

    def name(self, id):
        """The name given to :meth:`add` (or None)."""
        return self._objects[self._check_id(id)].name

    @property
    def ids(self):
        """(n,) intp: the live object ids, increasing."""
        return np.array(sorted(self._objects), dtype=np.intp)

    @property
    def time(self):
        """Seconds integrated by :meth:`step` so far."""
        return self._time

    @property
    def threshold(self):
        """The far distance in use (resolved when the default is in effect)."""
        self._refresh_lists()
        return self._threshold_value

    def __len__(self):
        return len(self._objects)

    def __contains__(self, id):
        return isinstance(id, numbers.Integral) and int(id) in self._objects

    def __repr__(self):
        n_static = sum(o.static for o in self._objects.values())
        return (
            f"Scene({len(self)} objects, {n_static} static, t={self._time:g}, "
            f"broadphase={self._method!r})"
        )

    # -- time ----------------------------------------------------------------------------

    def step(self, dt, *, mode="any"):
        """Advance every dynamic object by ``dt`` seconds, then :meth:`query`.

        position += v dt + a dt^2 / 2, v += a dt, orientation turned by the angular
        velocity exactly (Rodrigues). ``dt`` = 0 is legal.
        """
        dt = _real(dt, "dt")
        if not (math.isfinite(dt) and dt >= 0.0):
            raise ValueError(f"dt must be finite and >= 0, got {dt}")
        mode = v.check_choice(mode, "mode", MODES)
        start = time.perf_counter()
        self._refresh_lists()
        if len(self._moving) and dt > 0.0:
            _k.advance(self._rot, self._trans, self._vel, self._omega, self._acc,
                       self._moving, dt, self._version)  # fmt: skip
        self._time += dt
        return self._query(mode, time.perf_counter() - start)

    def query(self, mode="any"):
        """Every touching pair now, without moving anything: a :class:`StepResult`."""
        mode = v.check_choice(mode, "mode", MODES)
        return self._query(mode, 0.0)

    def query_brute(self, mode="any"):
        """Slow twin of :meth:`query`: every pair (but static-static) that groups, masks
        and the ignore list allow, tested exactly with no pretreatment, no broad phase,
        no volumes and no BVH (meshes: every triangle pair). Schedules are untouched."""
        mode = v.check_choice(mode, "mode", MODES)
        self._refresh_lists()
        ids = self._ids
        if len(ids) < 2:
            cand = np.empty((2, 0), np.intp)
        else:
            a, b = np.triu_indices(len(ids), 1)
            cand = np.stack([ids[a], ids[b]])
        both_static = self._static[cand[0]] & self._static[cand[1]]
        cand = cand[:, ~both_static]
        group, mask = self._group, self._mask
        ok = ((group[cand[0]] & mask[cand[1]]) != 0) & (
            (group[cand[1]] & mask[cand[0]]) != 0
        )
        keys = (cand[0].astype(np.int64) << 32) | cand[1]
        ok &= ~np.isin(keys, self._ignore)
        cand = np.ascontiguousarray(cand[:, ok])
        hits, contacts = self._narrow(cand, mode, brute=True)
        pairs, tris, offsets = _collect(cand, hits, contacts, mode)
        stats = StepStats(
            self._time,
            len(ids),
            len(ids) * (len(ids) - 1) // 2,
            int(both_static.sum()),
            0,
            int((~ok).sum()),
            0,
            0,
            0,
            cand.shape[1],
            0,
            cand.shape[1],
            pairs.shape[1],
            StageSeconds(0.0, 0.0, 0.0, 0.0, 0.0),
        )
        return StepResult(pairs, tris, offsets, stats)

    # -- the pipeline --------------------------------------------------------------------

    def _query(self, mode, motion_seconds):
        t0 = time.perf_counter()
        self._refresh_lists()
        ids, dyn, stat = self._ids, self._dyn, self._stat
        _k.world_bounds(
            ids,
            self._version,
            self._bounds_version,
            self._rot,
            self._trans,
            self._mc,
            self._mr,
            self._mbox,
            0.5 * self._threshold_value,
            self._wc,
            self._wr,
            self._wbox,
            self._gbox,
        )
        near = self._near_pairs(dyn, stat)
        t1 = time.perf_counter()

        counts, cand, *schedule = _k.pretreat(
            near,
            self._group,
            self._mask,
            self._ignore,
            self._wc,
            self._wr,
            self._wbox,
            self._vel,
            self._omega,
            self._acc,
            self._alpha,
            self._mc,
            self._epoch,
            self._sched_keys,
            self._sched_wake,
            self._sched_epoch,
            self._time,
            self._threshold_value,
        )
        self._sched_keys, self._sched_wake, self._sched_epoch = schedule
        t2 = time.perf_counter()

        is_mesh = self._is_mesh
        n_cand = cand.shape[1]
        if n_cand == 0:  # every pair skipped: the common case of a quiet scene
            vol_pairs = to_test = cand
            n_passed = 0
        else:
            if n_cand == 1:  # one pair: plain Python beats a few small numpy calls
                has_mesh = bool(is_mesh[cand[0, 0]] or is_mesh[cand[1, 0]])
                vol_pairs = cand if has_mesh else cand[:, :0]
                plain = cand[:, :0] if has_mesh else cand
            else:
                has_mesh = is_mesh[cand[0]] | is_mesh[cand[1]]
                vol_pairs = np.ascontiguousarray(cand[:, has_mesh])
                plain = cand[:, ~has_mesh]
            passed = self._volumes_overlap(vol_pairs)
            n_passed = int(np.count_nonzero(passed))
            to_test = vol_pairs[:, passed]
            if plain.shape[1]:
                to_test = np.concatenate([to_test, plain], axis=1)
        t3 = time.perf_counter()

        if to_test.shape[1]:
            hits, contacts = self._narrow(to_test, mode, brute=False)
            pairs, tris, offsets = _collect(to_test, hits, contacts, mode)
        else:
            pairs, tris, offsets = to_test, _NO_TRIANGLES, _NO_OFFSETS
        t4 = time.perf_counter()

        n_ids, n_dyn, n_stat = len(ids), len(dyn), len(stat)
        formable = n_dyn * (n_dyn - 1) // 2 + n_dyn * n_stat
        if self._trace_on:
            self.trace = {"near": near, "volumes": vol_pairs, "narrow": to_test}
        n_vol = vol_pairs.shape[1]
        stats = StepStats(
            time=self._time,
            objects=n_ids,
            pairs=n_ids * (n_ids - 1) // 2,
            skipped_static=n_stat * (n_stat - 1) // 2,
            skipped_far=formable - near.shape[1] + int(counts[_k.FAR]),
            skipped_filtered=int(counts[_k.FILTERED]),
            skipped_scheduled=int(counts[_k.ASLEEP] + counts[_k.SCHEDULED]),
            scheduled_new=int(counts[_k.SCHEDULED]),
            rejected_by_boxes=int(counts[_k.BOXES_APART]),
            broadphase_candidates=int(counts[_k.CANDIDATE]),
            rejected_by_volumes=n_vol - n_passed,
            narrow_tested=to_test.shape[1],
            colliding=pairs.shape[1],
            seconds=StageSeconds(motion_seconds, t1 - t0, t2 - t1, t3 - t2, t4 - t3),
        )
        return StepResult(pairs, tris, offsets, stats)

    def _near_pairs(self, dyn, stat):
        """Pairs whose grown world boxes meet: dynamic-dynamic and dynamic-static, rows
        i < j, sorted."""
        gbox = self._gbox
        if not len(dyn):
            return np.empty((2, 0), np.intp)
        brute_dyn = self._method == "brute" or (
            self._method == "auto" and len(dyn) <= SMALL
        )
        brute_stat = self._method == "brute" or len(stat) <= SMALL
        parts = []
        if brute_dyn or brute_stat:
            parts.append(
                _k.near_pairs_brute(dyn, stat if brute_stat else dyn[:0], gbox, brute_dyn)
            )
        if not brute_dyn:
            self._tbox[self._tids] = gbox[dyn]
            tp = self._tracker.update(self._tbox)
            if tp.shape[1]:
                ob = self._tid_obj[tp]
                parts.append(np.stack([ob.min(axis=0), ob.max(axis=0)]))
        if not brute_stat and len(stat):
            if self._statics_dirty or self._static_tree is None:
                self._static_tree = BVH.build(gbox[stat], node="aabb")
                self._statics_dirty = False
            q, p = self._static_tree.query(gbox[dyn])
            if len(q):
                a, b = dyn[q], stat[p]
                parts.append(np.stack([np.minimum(a, b), np.maximum(a, b)]))
        pairs = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1)
        if pairs.shape[1] > 1:
            keys = (pairs[0].astype(np.int64) << 32) | pairs[1]
            pairs = pairs[:, np.argsort(keys, kind="stable")]
        return np.ascontiguousarray(pairs)

    def _volumes_overlap(self, pairs):
        """Per-object volume test of each pair (refitting the volumes that went stale):
        the pairs are grouped by their two kinds, each group one compiled filter."""
        n = pairs.shape[1]
        out = np.empty(n, np.bool_)
        if not n:
            return out
        self._fresh_volumes(pairs)
        cand, code, same = _k.order_pairs(pairs, self._vkind)
        if same:
            self._filter(int(code[0]) // 8, int(code[0]) % 8, cand, out)
            return out
        for c in np.unique(code).tolist():
            sel = code == c
            keep = np.empty(int(np.count_nonzero(sel)), np.bool_)
            self._filter(c // 8, c % 8, np.ascontiguousarray(cand[:, sel]), keep)
            out[sel] = keep
        return out

    def _filter(self, ka, kb, cand, keep):
        """One group of volume pairs of kinds ka <= kb (mixed.KINDS order)."""
        sph, box, obbs = self._vsph, self._vbox, self._vobb
        if ka == _k.SPHERE:
            if kb == _k.SPHERE:
                _k.filter_spheres(sph, cand, keep)
            elif kb == _k.AABB:
                _km.filter_sphere_aabb(sph, box, cand, keep)
            elif kb == _k.OBB:
                _km.filter_sphere_obb(sph, obbs, cand, keep)
            else:
                table, axes = self._slab_table(kb)
                _km.filter_sphere_kdop(sph, table, axes, cand, keep)
        elif kb == _k.OBB:
            if ka == _k.OBB:
                _k.filter_obbs(obbs, cand, keep)
            elif ka == _k.AABB:
                _km.filter_aabb_obb(box, obbs, cand, keep)
            else:
                table, axes = self._slab_table(ka)
                _km.filter_kdop_obb(table, axes, obbs, cand, keep)
        elif ka == _k.AABB and kb != _k.AABB:
            table, axes = self._slab_table(kb)
            _km.filter_aabb_kdop(box, table, axes, cand, keep)
        else:  # two slab kinds: AABB-AABB, k-DOPs of one K, or of two (their boxes)
            ta, _ = self._slab_table(ka)
            tb, _ = self._slab_table(kb)
            _k.filter_slabs(ta, tb, ta.shape[2] if ka == kb else 3, cand, keep)

    def _fresh_volumes(self, pairs):
        """Bring the world volumes of the objects in ``pairs`` up to their poses."""
        slabs = _k.world_volumes(
            pairs.ravel(),
            self._version,
            self._vol_version,
            self._is_mesh,
            self._vkind,
            self._rot,
            self._trans,
            self._wc,
            self._wr,
            self._sc,
            self._sr,
            self._sh,
            self._sq,
            *self._vsph,
            *self._vobb,
        )
        for i in set(slabs.tolist()):
            table, axes = self._slab_table(self._vkind[i])
            _k.refit_slabs(
                self._objects[i].verts, self._rot[i], self._trans[i], axes, table[i]
            )
            self._vol_version[i] = self._version[i]

    def _slab_table(self, code):
        if code == _k.AABB:
            return self._vbox, _AXES[6]
        k = _KDOP_OF_CODE[code]
        return {14: self._vkd14, 18: self._vkd18, 26: self._vkd26}[k], _AXES[k]

    def _narrow(self, pairs, mode, brute):
        """Exact test of each pair: (hit (n,) bool, contacts: list of (2, m) per pair)."""
        n = pairs.shape[1]
        hits = np.zeros(n, np.bool_)
        contacts = [None] * n
        if not n:
            return hits, contacts
        first_only = mode == "any"
        is_mesh = self._is_mesh
        if n <= 8:  # a few pairs: plain Python beats a dozen small numpy calls
            meshes = [(bool(is_mesh[i]), bool(is_mesh[j])) for i, j in pairs.T.tolist()]
            plain = np.array([not (a or b) for a, b in meshes], np.bool_)
        else:
            plain = ~(is_mesh[pairs[0]] | is_mesh[pairs[1]])
        if plain.any():
            out = self._volumes_overlap(np.ascontiguousarray(pairs[:, plain]))
            hits[plain] = out
            both = np.full((2, 1), -1, np.intp)
            for k in np.flatnonzero(plain)[out].tolist():
                contacts[k] = both
            todo = np.flatnonzero(~plain).tolist()
        else:
            todo = range(n)
        for k in todo:
            i, j = int(pairs[0, k]), int(pairs[1, k])
            if is_mesh[i] and is_mesh[j]:
                hit, faces = self._mesh_mesh(i, j, first_only, brute)
            elif is_mesh[i]:
                hit, faces = self._mesh_volume(i, j, first_only, brute)
            else:
                hit, faces = self._mesh_volume(j, i, first_only, brute)
                faces = faces[::-1]
            hits[k] = hit
            contacts[k] = faces
        return hits, contacts

    def _mesh_mesh(self, i, j, first_only, brute):
        a = self._objects[i].mesh
        b = self._tree(j, a.bvh.kind)
        matrix = _k.relative(self._rot, self._trans, i, j)
        if brute:
            faces = a.intersect_brute(b, matrix)
            return faces.shape[1] > 0, faces
        if first_only:
            return a.intersect(b, matrix, mode="any"), None
        faces = a.intersect(b, matrix, mode="all")
        return faces.shape[1] > 0, faces

    def _tree(self, j, kind):
        """Object j's mesh with a tree of ``kind`` (built once, kept)."""
        obj = self._objects[j]
        if obj.mesh.bvh.kind == kind:
            return obj.mesh
        if kind not in obj.trees:
            obj.trees[kind] = obj.mesh.with_tree(node=kind)
        return obj.trees[kind]

    def _mesh_volume(self, i, j, first_only, brute):
        """Mesh i against plain volume j, in the mesh's frame: (hit, (2, m) faces)."""
        mesh_obj, vol = self._objects[i], self._objects[j]
        matrix = _k.relative(self._rot, self._trans, i, j)
        rot = matrix[:3, :3]
        center = rot @ vol.center + matrix[:3, 3]
        if vol.kind == _SPHERE:
            query = Spheres(center, vol.radius)
        else:
            query = OBBs(center, vol.half, np.ascontiguousarray(rot @ vol.rot))
        tris = mesh_obj.tris
        if brute:
            faces = np.arange(len(tris), dtype=np.intp)
        else:
            faces = np.ascontiguousarray(mesh_obj.mesh.bvh.query(query), dtype=np.intp)
        found = np.empty(len(faces), np.intp)
        if vol.kind == _SPHERE:
            m = _k.triangles_sphere(
                tris, faces, center, float(vol.radius), first_only, found
            )
        else:
            m = _k.triangles_box(
                tris, faces, center, vol.half, query.rot, first_only, found
            )
        out = np.full((2, m), -1, np.intp)
        out[0] = found[:m]
        return m > 0, out

    # -- bookkeeping ---------------------------------------------------------------------

    def _alloc(self, cap):
        """Grow every per-object table to ``cap`` rows."""
        old = self._cap
        specs = {
            "_static": (np.bool_, (), False),
            "_is_mesh": (np.bool_, (), False),
            "_vkind": (np.intp, (), 0),
            "_rot": (np.float64, (3, 3), 0.0),
            "_trans": (np.float64, (3,), 0.0),
            "_vel": (np.float64, (3,), 0.0),
            "_omega": (np.float64, (3,), 0.0),
            "_acc": (np.float64, (3,), 0.0),
            "_alpha": (np.float64, (), 0.0),
            "_mc": (np.float64, (3,), 0.0),
            "_mr": (np.float64, (), 0.0),
            "_mbox": (np.float64, (2, 3), 0.0),
            "_wc": (np.float64, (3,), 0.0),
            "_wr": (np.float64, (), 0.0),
            "_wbox": (np.float64, (2, 3), 0.0),
            "_gbox": (np.float64, (2, 3), 0.0),
            "_group": (np.uint64, (), 0),
            "_mask": (np.uint64, (), 0),
            "_epoch": (np.int64, (), 0),
            "_version": (np.int64, (), 0),
            "_bounds_version": (np.int64, (), -1),
            "_vol_version": (np.int64, (), -1),
            "_sc": (np.float64, (3,), 0.0),
            "_sr": (np.float64, (), 0.0),
            "_sh": (np.float64, (3,), 0.0),
            "_sq": (np.float64, (3, 3), 0.0),
            "_vbox": (np.float64, (2, 3), 0.0),
            "_vkd14": (np.float64, (2, 7), 0.0),
            "_vkd18": (np.float64, (2, 9), 0.0),
            "_vkd26": (np.float64, (2, 13), 0.0),
        }
        for name, (dtype, shape, fill) in specs.items():
            arr = np.full((cap,) + shape, fill, dtype)
            if old:
                arr[:old] = getattr(self, name)
            setattr(self, name, arr)
        sph = Spheres(np.zeros((cap, 3)), np.zeros(cap))
        box = OBBs(np.zeros((cap, 3)), np.zeros((cap, 3)), np.zeros((cap, 3, 3)))
        if old:
            for new, cur in ((sph, self._vsph), (box, self._vobb)):
                for a, b in zip(new, cur, strict=True):
                    a[:old] = b
        self._vsph, self._vobb = sph, box
        self._cap = cap

    def _make(
        self,
        shape,
        pose,
        static,
        velocity,
        angular_velocity,
        acceleration,
        angular_acceleration,
        group,
        mask,
        volume,
        name,
    ):
        """Validate everything add() was given; build the object without touching the
        scene. Returns (_Object, {table name: row value})."""
        if (
            id(shape) in self._owner
            and self._objects[self._owner[id(shape)]].shape is shape
        ):
            raise ValueError(
                f"this shape is already object {self._owner[id(shape)]}: add a copy "
                "(the same Python object cannot be added twice)"
            )
        if not isinstance(static, bool | np.bool_):
            raise TypeError(f"static must be a bool, got {type(static).__name__}")
        static = bool(static)
        if name is not None and not isinstance(name, str):
            raise TypeError(f"name must be a str or None, got {type(name).__name__}")
        rot, trans = _pose(np.eye(4) if pose is None else pose)
        motion = _motion(velocity, angular_velocity, acceleration, angular_acceleration)
        if static and any(np.any(x != 0) for x in motion.values()):
            raise ValueError("a static object cannot have a velocity or an acceleration")
        group = _bits(group, "group")
        mask = _bits(mask, "mask")
        if volume is not None:
            volume = v.check_choice(volume, "volume", VOLUMES)
        obj = _shape(shape, name, static, volume)
        if obj.kind == _MESH:
            if volume is None:
                rotating = bool(np.any(motion["_omega"] != 0))
                volume = mixed.choose(obj.verts, rotating=rotating)
            obj.volume = volume
            if volume == "obb":
                fit = obb.fit(obj.verts, method="hull")
                obj.model_obb = (
                    np.asarray(fit.center),
                    np.asarray(fit.half),
                    np.asarray(fit.rot),
                )
        if obj.kind == _SPHERE:
            shape_data = {"_sc": obj.center, "_sr": obj.radius}
        elif obj.kind == _BOX:
            shape_data = {"_sc": obj.center, "_sh": obj.half, "_sq": obj.rot}
        elif obj.model_obb is not None:
            shape_data = dict(zip(("_sc", "_sh", "_sq"), obj.model_obb, strict=True))
        else:
            shape_data = {}
        data = {
            **shape_data,
            "_rot": rot,
            "_trans": trans,
            "_static": static,
            "_group": group,
            "_mask": mask,
            "_is_mesh": obj.kind == _MESH,
            "_vkind": _VOLUME_CODE[obj.volume],
            "_mc": obj.center,
            "_mr": obj.radius,
            "_mbox": _model_box(obj),
            **motion,
        }
        return obj, data

    def _check_id(self, id):
        if isinstance(id, bool | np.bool_) or not isinstance(id, numbers.Integral):
            raise TypeError(f"object ids are ints, got {type(id).__name__}")
        i = int(id)
        if i not in self._objects:
            raise ValueError(f"unknown object id {i}")
        return i

    def _get_tracker(self):
        if self._tracker is None:
            tree = self._method == "tree"
            cls = broadphase.DynamicTree if tree else broadphase.IncrementalSAP
            self._tracker = cls(dim=3)
        return self._tracker

    def _changed(self, static):
        self._lists_dirty = True
        if static:
            self._statics_dirty = True

    def _refresh_lists(self):
        """Id lists, the moving set and the default threshold, after objects changed."""
        if not self._lists_dirty:
            return
        ids = np.array(sorted(self._objects), dtype=np.intp)
        self._ids = ids
        self._stat = ids[self._static[ids]]
        self._dyn = ids[~self._static[ids]]
        moving = (
            np.any(self._vel[self._dyn] != 0, axis=1)
            | np.any(self._omega[self._dyn] != 0, axis=1)
            | np.any(self._acc[self._dyn] != 0, axis=1)
        )
        self._moving = np.ascontiguousarray(self._dyn[moving])
        if self._tracker is not None:
            self._tids = np.array([self._tid[i] for i in self._dyn.tolist()], np.intp)
            self._tbox = np.empty((self._tracker.size, 2, 3))
            self._tbox[:] = [[np.inf] * 3, [-np.inf] * 3]
        if self._threshold is None:
            value = float(np.median(2.0 * self._mr[ids])) if len(ids) else 0.0
            if value != self._threshold_value:
                self._threshold_value = value
                self._bounds_version[:] = -1  # the grown boxes depend on it
                self._statics_dirty = True
        self._lists_dirty = False


# -- validation and fitting --------------------------------------------------------------


def _identity(shape):
    """``id(shape)``: the builtin, where a parameter named ``id`` hides it."""
    return id(shape)


def _real(value, name):
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    value = float(value)
    if math.isnan(value):
        raise ValueError(f"{name} must not be NaN")
    return value


def _vector(value, name):
    arr = v.as_float(value, name, finite=True)
    if arr.shape != (3,):
        raise ValueError(f"{name} must have shape (3,), got {arr.shape}")
    return arr


def _motion(velocity, angular_velocity, acceleration, angular_acceleration):
    """Validated motion as {table name: value}, leaving out arguments given as None."""
    out = {}
    for key, value, name in (
        ("_vel", velocity, "velocity"),
        ("_omega", angular_velocity, "angular_velocity"),
        ("_acc", acceleration, "acceleration"),
    ):
        if value is not None:
            out[key] = _vector(value, name)
    if angular_acceleration is not None:
        alpha = _real(angular_acceleration, "angular_acceleration")
        if not (math.isfinite(alpha) and alpha >= 0.0):
            raise ValueError(
                "angular_acceleration is a bound and must be finite and >= 0, "
                f"got {alpha}"
            )
        out["_alpha"] = alpha
    return out


def _bits(value, name):
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int bit set, got {type(value).__name__}")
    if not 0 <= int(value) <= ALL_BITS:
        raise ValueError(f"{name} must be in [0, 2**64), got {value}")
    return np.uint64(int(value))


def _pose(pose):
    """(rot, trans) of a rigid 4x4 pose, rot snapped to the nearest rotation unless it is
    one to rounding already (so exact poses stay exact)."""
    linear, trans = v.as_transform(pose, "pose", rigid=True)
    if np.abs(linear.T @ linear - np.eye(3)).max() > 1e-14:
        u, _, vt = np.linalg.svd(linear)
        linear = u @ vt
    return np.array(linear, dtype=np.float64), np.array(trans, dtype=np.float64)


def _shape(shape, name, static, volume):
    """An _Object from a validated shape."""
    if isinstance(shape, TriangleMesh):
        if shape.n_faces == 0:
            raise ValueError("the mesh has no faces: it can never touch anything")
        obj = _Object(shape, _MESH, name, static)
        obj.mesh = shape
        obj.tris = np.ascontiguousarray(shape.triangles)
        used = np.unique(shape.faces)
        obj.verts = np.ascontiguousarray(shape.vertices[used])
        ball = _welzl(obj.verts)
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
        obj = _Object(shape, _SPHERE, name, static)
        obj.center, obj.radius = s.center[0].copy(), float(s.radius[0])
        obj.volume = "sphere"
        return obj
    if isinstance(shape, OBBs):
        o, _ = obb._as_obbs(shape, "shape", tidy=True)
        if len(o.half) != 1:
            raise ValueError(f"shape must be one OBB, got {len(o.half)}")
        if np.any(o.half[0] < 0) or not np.all(np.isfinite(o.half[0])):
            raise ValueError("an OBB's half extents must be finite and >= 0")
        obj = _Object(shape, _BOX, name, static)
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
        obj = _Object(shape, _BOX, name, static)
        obj.center, obj.half, obj.rot = 0.5 * (lo + hi), 0.5 * (hi - lo), np.eye(3)
    obj.volume = "obb"
    obj.radius = float(np.sqrt(np.sum(obj.half**2)) * (1.0 + 1e-12))
    return obj


def _welzl(points):
    from hitbox import sphere

    ball = sphere.fit(points, method="welzl")
    return np.asarray(ball.center, dtype=np.float64).copy(), float(ball.radius)


def _model_box(obj):
    """The object's model-frame AABB."""
    if obj.kind == _MESH:
        return np.stack([obj.verts.min(axis=0), obj.verts.max(axis=0)])
    if obj.kind == _SPHERE:
        return np.stack([obj.center - obj.radius, obj.center + obj.radius])
    ext = np.abs(obj.rot) @ obj.half
    return np.stack([obj.center - ext, obj.center + ext])


def _collect(tested, hits, contacts, mode):
    """The touching pairs, sorted, with their contacts flattened: (pairs (2, n),
    triangles (2, T), offsets (n + 1,))."""
    pairs = tested[:, hits]
    n = pairs.shape[1]
    offsets = np.zeros(n + 1, np.intp)
    if n > 1:
        order = np.lexsort((pairs[1], pairs[0]))
        pairs = pairs[:, order]
    else:
        order = range(n)
    pairs = np.ascontiguousarray(pairs)
    if mode == "any" or not n:
        return pairs, np.empty((2, 0), np.intp), offsets
    found = [contacts[k] for k in np.flatnonzero(hits)]
    found = [found[k] for k in order]
    offsets[1:] = np.cumsum([c.shape[1] for c in found])
    return pairs, np.ascontiguousarray(np.concatenate(found, axis=1)), offsets
