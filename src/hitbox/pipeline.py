"""A scene of moving objects and the three-stage pipeline that finds which ones touch
(SPEC §9, seed 003).

Objects are triangle meshes (:class:`~hitbox.mesh.TriangleMesh`, surfaces) or plain
volumes (one sphere, one box, one OBB, or one :mod:`hitbox.convex` shape: capsule,
cylinder, cone, hull, or a static half-space; solids), each with a rigid pose, static or
dynamic; dynamic ones carry a linear and an angular velocity and a linear acceleration,
which :meth:`Scene.step` integrates. Each query reports every touching pair of objects
once, with ``i < j`` (A-B, never again B-A). A step is one compiled call
(:mod:`hitbox._kernels.scene`) through these stages:

1. **Broad phase, and the pretreatment's spatial partition** (seed 000: far objects
   cannot collide soon). Each object's world box (Arvo's box of its model box under the
   pose, cut down to its bounding sphere's box), grown by ``threshold / 2``, is swept
   (every dynamic pair, or sort-and-sweep on x with the order kept from step to step).
   Static-static pairs are never formed. Pairs whose grown boxes do not meet are more
   than ``threshold`` apart: far, treated as points, skipped. A half-space has no box:
   each is paired with every dynamic object, and the gap from its plane to the
   object's bounding sphere stands for the spheres' gap below (never far).
2. **Pretreatment** of the pairs that do meet (seed 003 §1.1): pairs that groups, masks
   or the ignore list exclude are dropped; a pair asleep is skipped without a look;
   pairs whose bounding spheres are more than ``threshold`` apart are far. For the rest
   the gap lambda between the bounding spheres, with the pair's speed and acceleration
   bounds (linear velocity, the sphere centre's speed about the rotation centre, and
   the acceleration bounds), gives the least time before they can touch: a pair with
   lambda > 0 sleeps until then. Moving an object by hand (``set_pose``, ``set_poses``,
   ``set_velocity``) wakes its pairs. Pairs whose spheres meet are tested box against
   box.
3. **Per-object volumes** (seed 003 §1.2.2). Each mesh carries the volume kind
   :func:`hitbox.mixed.choose` picks for it (sphere, AABB, OBB or k-DOP; spheres and
   OBBs are moved exactly, AABBs and k-DOPs refit from the moved vertices), tested with
   the cross-kind tests of :mod:`hitbox.mixed`. A plain volume is its own volume (a
   convex shape's volume is the box about it in its own frame; a half-space has none).
4. **Narrow phase**: mesh-mesh by the tree-vs-tree walk in the relative frame, with
   temporal coherence in ``mode="any"``: the triangle pair that crossed at the last
   step (the witness) is tested first and settles the pair when it still crosses, then
   the pair its crossing has moved to (:mod:`hitbox._kernels.witness`); a pair apart
   walks from the root four nodes at a time (:mod:`hitbox._kernels.obb_wide`). In
   ``mode="all"`` a pair that touched walks from the root four nodes at a time, and a
   pair proved apart keeps the front of its walk (:mod:`hitbox._kernels.front`), each
   disjoint node pair of it with its clearance: the next walk starts there, and such
   a pair goes untested while the motion since (bounded from the relative poses)
   stays below it;
   mesh-plain by the mesh's tree and an exact triangle-sphere or triangle-box test (a
   convex shape or a half-space: each face against it as
   :meth:`~hitbox.mesh.TriangleMesh.intersect_shapes` decides, a half-space's faces
   found by its plane against the tree's boxes); plain-plain by the exact cross-kind test, or
   :func:`hitbox.convex.intersects` where one is a convex shape (closed forms, GJK;
   touching within its tolerance counts). In continuous mode a pair with a convex shape
   is swept by conservative advancement on its GJK distance.

The narrow phase walks OBB trees, the fastest kind tree against tree: a mesh given a tree
of another kind gets an OBB tree too, built once (so the step is one compiled kernel).
One mesh added many times is one tree shared by its instances.

Touching counts (closed tests throughout). A mesh is its surface: a mesh collides with
another object only where its triangles meet it; a plain volume is solid. Every stage is
conservative, so the pairs equal :meth:`Scene.query_brute`'s, which tests every pair
exactly with no pretreatment and no culling.
"""

import math
import numbers
from time import perf_counter as _clock

import numpy as np

from hitbox import _scene_brute as _brute
from hitbox import _validate as v
from hitbox import scene_queries as _queries
from hitbox._direct_call import resolving_slot
from hitbox._kernels import pipeline as _k
from hitbox._kernels import scene as _ks
from hitbox._kernels import scene_layout as _kl
from hitbox._scene_buffers import SceneBuffers
from hitbox._scene_editing import SceneEditing
from hitbox._scene_objects import (
    VOLUMES,
    check_real,
)
from hitbox._scene_results import (
    NO_OFFSETS,
    NO_TRIANGLES,
    RunResult,
    StepResult,
    StepStats,
    zero_offsets,
)

# read at every step: module constants, not attribute lookups
_FRONT_FLAG, _R_PAIRS = _kl.FRONT_FLAG, _kl.R_PAIRS
_N_COUNTS = _kl.C_HITS + 1 - _kl.C_COUNTS
_PENDING_CAP = _kl.PENDING_CAP
_R_BYTES = 8 * _R_PAIRS  # where the pairs start in a step record's bytes
_INF, _NEG_INF = math.inf, -math.inf

__all__ = ["Scene", "StepResult", "StepStats", "MODES", "BROADPHASES", "VOLUMES"]

#: Query modes: ``"any"`` reports the touching pairs; ``"all"`` also their triangles.
MODES = ("any", "all", "contacts")
#: Modes of :meth:`Scene.run` (contact segments are a per-step query).
RUN_MODES = ("any", "all")
#: Broad-phase sweeps over the objects (see :class:`Scene`).
BROADPHASES = ("auto", "sap", "brute")


#: The step kernel and the quiet steps' replay as the Scene calls them: through numba's
#: dispatch once, then through their entry points (the Scene's buffers and scalars never
#: change type; a pose read after each quiet step replays it, and the dispatch of eight
#: arguments cost more than that).
_STEP = resolving_slot(_ks.step)
_ADVANCE_STEPS = resolving_slot(_k.advance_steps)


class Scene(SceneEditing):
    """Objects with poses and motion; each query finds every touching pair (module doc).

    Parameters
    ----------
    threshold : float >= 0, optional
        Pairs farther apart than this are far: skipped, not scheduled. Nearer pairs that
        do not touch sleep until their time bound. Default: the median bounding-sphere
        diameter of the scene's meshes, 0 in a scene without meshes (recomputed as
        objects come and go): a pair of plain volumes costs less to test at every step
        than to schedule. With the default, a step that follows one where some pair
        was tested schedules no pair (it takes the threshold as 0): the schedule exists
        for the quiet horizon, which such a busy scene does not reach, and its
        bookkeeping costs more than the sphere tests it spares (benchmarks/README.md);
        the threshold is back in use from the step after one that tested no pair. A
        threshold given is used at every step.
    broadphase : {"auto", "sap", "brute"}
        ``"brute"``: every dynamic-dynamic and dynamic-static pair's grown boxes are
        compared (the twin); ``"sap"``: sort-and-sweep on x, the order kept from step to
        step (insertion sort: linear when little moved). ``"auto"``: brute up to
        :data:`hitbox._scene_editing.SMALL` dynamic objects, else sort-and-sweep.
    trace : bool
        Keep, in :attr:`trace`, the pairs that entered each stage in the last query:
        ``"near"`` (reported by the sweep, then pretreated), ``"volumes"``, ``"narrow"``
        (for tests: no static-static pair ever enters one).

    dim : {2, 3}
        2: a planar scene of discs (``Spheres`` of one 2D centre), boxes ``(2, 2)`` and
        oriented rectangles (``OBBs`` of one 2D centre, 2 half extents and a 2x2
        rotation); poses are rigid ``(3, 3)``, velocities and accelerations ``(2,)``,
        angular velocities scalars (rad/s, counter-clockwise). Each shape is the cut by
        the plane z = 0 of a 3D one moving in that plane, which the 3D step tests.

    Notes
    -----
    Object ids are ints handed out from 0 up and never reused.
    """

    def __init__(self, *, threshold=None, broadphase="auto", trace=False, dim=3):
        if isinstance(dim, bool) or dim not in (2, 3):
            raise ValueError(f"dim must be 2 or 3, got {dim!r}")
        self.dim = int(dim)
        if threshold is not None:
            threshold = check_real(threshold, "threshold")
            if not (math.isfinite(threshold) and threshold >= 0.0):
                raise ValueError(f"threshold must be finite and >= 0, got {threshold}")
        self._threshold = threshold
        self._method = v.check_choice(broadphase, "broadphase", BROADPHASES)
        self._trace_on = bool(trace)
        self.trace = {}
        self._time = 0.0
        self._objects = {}  # id -> SceneObject
        self._next = 0
        self._buf = SceneBuffers()
        self._t = self._buf.views
        self._ignore = np.empty(0, np.int64)
        self._lists_dirty = True
        self._ids_key = self._ids_idx = None  # see SceneEditing._checked_ids
        self._pose_off = np.empty(0, np.intp)  # set_poses' scratch
        self._threshold_value = 0.0 if threshold is None else threshold
        self._sweep = _kl.BRUTE
        # quiet steps: until this time no pair can touch (the last run proved it), so a
        # step only queues its motion, replayed step by step when anything looks
        self._horizon = -math.inf
        self._busy = False  # the default threshold, and the last step tested a pair
        # the quiet steps' dts (in the buffers' scratch, where the next step's kernel
        # replays them; _materialize when anything else looks first)
        self._n_pending = 0
        self._quiet_counts = None
        self._last_pairs_key, self._last_pairs = b"", None  # see _run
        self._sizes = (0, 0, 0)  # objects, dynamic, static (_refresh_lists)
        self._moving = np.empty(0, np.intp)

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

    def step(self, dt, *, mode="any", continuous=False, inside=False):
        """Advance every dynamic object by ``dt`` seconds, then :meth:`query`, in one
        compiled call.

        position += v dt + a dt^2 / 2, v += a dt, orientation turned by the angular
        velocity exactly (Rodrigues). ``dt`` = 0 is legal.

        With ``continuous=True`` nothing tunnels: every pair (meshes, spheres, boxes,
        OBBs, convex shapes and half-spaces; discs and rectangles in 2D) is
        reported when the two touch at any time within the step, not only at its end,
        and ``result.toi`` holds each pair's first contact time in seconds from the
        step's start. Plain pairs: :mod:`hitbox._kernels.contact_time` (exact for
        constant velocities, conservative advancement with spin or acceleration); a pair
        with a convex shape: conservative advancement on its GJK distance
        (:mod:`hitbox._kernels.scene_convex`, within the touching tolerance of
        :func:`hitbox.convex.intersects`). Mesh pairs:
        :mod:`hitbox._kernels.advancement` (conservative advancement on the meshes'
        distance; meshes within ``CONTACT_TOL`` (1e-9) of their bounding radii count as
        touching). A mesh against a plain volume:
        :mod:`hitbox._kernels.mesh_volume_time` (conservative advancement on their
        distance, the mesh's tree walked against the volume's exact shape; the same
        tolerance); a pair that touched only within the step reports the face that came
        nearest.

        ``mode="contacts"`` is ``"all"`` with ``result.segments`` (T, 2, 3): where each
        pair of crossing triangles meets, in world coordinates, and ``result.normals``
        (T, 3), ``result.depths`` (T,): each column's penetration as
        :class:`~hitbox.mesh.Contacts` defines it (a face against a plain volume, or two
        plain volumes: :func:`hitbox.scene_queries.contact_geometry`; in a 2D scene, in
        the plane), and ``result.manifolds``: up to four contact points of each pair of
        two plain objects, two in a 2D scene
        (:func:`hitbox.scene_queries.contact_manifolds`).
        ``inside=True`` (mode
        ``"any"``) also reports pairs of closed meshes one of which lies wholly inside
        the other (:func:`hitbox.scene_queries.inside_pairs`).
        """
        if type(dt) is not float:
            dt = check_real(dt, "dt")
        if not (dt >= 0.0 and dt < _INF):
            raise ValueError(f"dt must be finite and >= 0, got {dt}")
        if mode == "any" and continuous is False and inside is False:
            if self._time + dt < self._horizon:
                return self._quiet(dt)
            return self._run(dt, 0)  # the common step: nothing more to check or add
        v.check_choice(mode, "mode", MODES)
        if not isinstance(continuous, bool | np.bool_):
            raise TypeError(f"continuous must be a bool, got {type(continuous).__name__}")
        _check_inside(inside, mode)
        if self._time + dt < self._horizon and not continuous and not inside:
            return self._quiet(dt)
        flags = (0 if mode == "any" else 1) | (4 if continuous else 0)
        if flags & 1:
            self._buf.reserve_triangles()
        return self._finish(self._run(dt, flags), mode, inside)

    def run(self, dt, steps, *, mode="any", continuous=False):
        """``steps`` calls of :meth:`step` (``dt``, ``mode``, ``continuous``) in one
        compiled call: the same motion and the same pairs, without a Python round trip
        per step (an offline trajectory, a planner's path checked at every time step).

        Returns a :class:`~hitbox._scene_results.RunResult`: every step's touching
        pairs, flat, with each step's time; ``result[k]`` is step k's
        :class:`StepResult`. ``steps`` = 0 is legal.
        """
        dt = check_real(dt, "dt")
        if not (dt >= 0.0 and dt < math.inf):
            raise ValueError(f"dt must be finite and >= 0, got {dt}")
        if isinstance(steps, bool | np.bool_) or not isinstance(steps, numbers.Integral):
            raise TypeError(f"steps must be an int, got {type(steps).__name__}")
        if steps < 0:
            raise ValueError(f"steps must be >= 0, got {steps}")
        mode = v.check_choice(mode, "mode", RUN_MODES)
        if not isinstance(continuous, bool | np.bool_):
            raise TypeError(f"continuous must be a bool, got {type(continuous).__name__}")
        self._materialize()
        self._refresh_lists()
        flags = (1 if mode == "all" else 0) | (2 if self._trace_on else 0)
        flags |= 4 if continuous else 0
        if flags & 1:
            self._buf.reserve_triangles()
        times, log, tris, now, horizon = self._buf.run_many(
            dt, self._time, self._horizon, self._threshold_value, self._sweep, flags,
            int(steps),
        )  # fmt: skip
        self._time = now
        self._horizon = -math.inf if self._trace_on else horizon
        if self._horizon > self._time:
            quiet = self._buf.counts()
            quiet[_k.ASLEEP] += quiet[_k.SCHEDULED]
            quiet[_k.SCHEDULED] = 0
            self._quiet_counts = quiet
        if self._trace_on and steps:
            self.trace = self._buf.trace()
        pairs = np.ascontiguousarray(log[1:3], dtype=np.intp)
        toi = np.ascontiguousarray(log[3]).view(np.float64) if continuous else None
        tris = np.ascontiguousarray(tris, dtype=np.intp)  # a copy only when it must
        return RunResult(times, log[0], pairs, toi, log[4], tris)

    def query(self, mode="any", *, inside=False):
        """Every touching pair now, without moving anything: a :class:`StepResult`
        (``mode`` and ``inside`` as for :meth:`step`)."""
        if mode == "any" and inside is False:  # the common query: nothing to add
            if self._time < self._horizon:
                return self._quiet(0.0)
            return self._run(0.0, 0)
        if mode != "any":
            v.check_choice(mode, "mode", MODES)
        _check_inside(inside, mode)
        if self._time < self._horizon and not inside:
            return self._quiet(0.0)
        if mode != "any":
            self._buf.reserve_triangles()
        return self._finish(self._run(0.0, 0 if mode == "any" else 1), mode, inside)

    def within(self, distance):
        """Pairs of objects at most ``distance`` apart now, and how far: ((2, n) pairs,
        (n,) distances); see :func:`hitbox.scene_queries.within`."""
        return _queries.within(self, distance)

    def raycast(self, origins, directions, *, t_max=np.inf, mask=None, group=None):
        """The first object each ray hits now, its face (meshes) and t: a
        :class:`hitbox.scene_queries.SceneRayHits`; see
        :func:`hitbox.scene_queries.raycast`."""
        return _queries.raycast(
            self, origins, directions, t_max=t_max, mask=mask, group=group
        )

    def overlapping(self, boxes, *, mask=None, group=None):
        """(query, object id) pairs whose geometry meets each box now; see
        :func:`hitbox.scene_queries.overlapping`."""
        return _queries.overlapping(self, boxes, mask=mask, group=group)

    def nearest(self, points, *, max_distance=np.inf, mask=None, group=None):
        """The object nearest to each point now: a
        :class:`hitbox.scene_queries.SceneNearest`; see
        :func:`hitbox.scene_queries.nearest`."""
        return _queries.nearest(
            self, points, max_distance=max_distance, mask=mask, group=group
        )

    def _finish(self, result, mode, inside):
        """A step's result with what the Python side adds: contact segments, or the
        pairs of meshes nested one inside the other."""
        if mode == "contacts":
            geometry = _queries.contact_geometry(self, result)
            result.segments, result.normals, result.depths = geometry
            result.manifolds = _queries.contact_manifolds(self, result)
        if inside:
            nested = _queries.inside_pairs(self, result.pairs)
            if nested.shape[1]:
                pairs = np.concatenate([result.pairs, nested], axis=1)
                pairs = pairs[:, np.lexsort((pairs[1], pairs[0]))]
                result.pairs, result.offsets = pairs, zero_offsets(pairs.shape[1])
        return result

    def _quiet(self, dt):
        """A step before the quiet horizon: its motion queued, no pair touching (and no
        query run: its ``stats.seconds`` is 0)."""
        self._time = now = self._time + dt
        if dt > 0.0:
            n = self._n_pending
            if n == _PENDING_CAP:
                self._materialize()
                n = 0
            self._buf.pending_mv[n] = dt
            self._n_pending = n + 1
        facts = (now, self._sizes, self._quiet_counts, 0.0)
        return StepResult(NO_TRIANGLES, NO_TRIANGLES, NO_OFFSETS, facts)

    def _materialize(self):
        """Replay the queued motion of quiet steps, one step at a time."""
        if self._n_pending:
            t = self._t
            _ADVANCE_STEPS[0](t["rot"], t["trans"], t["vel"], t["omega"], t["acc"],
                              self._moving, self._buf.pending[: self._n_pending],
                              t["version"])  # fmt: skip
            self._n_pending = 0

    def _changed(self):
        """Before a change by hand: the motion so far, and no quiet horizon."""
        self._materialize()
        self._horizon = -math.inf

    def _run(self, dt, flags):
        """One compiled step (``flags``: bit 0 mode "all", bit 2 continuous) and its
        result; the Python here is kept to a few attribute reads (a step of a small
        scene costs about as much as this wrapper)."""
        start = _clock()
        buf = self._buf
        if self._n_pending:  # the kernel replays them, unless the lists change first
            if self._lists_dirty:
                self._materialize()
            else:
                buf.ctl[_kl.C_PENDING] = self._n_pending
                self._n_pending = 0
        if self._lists_dirty:
            self._refresh_lists()
        if self._trace_on:
            flags |= 2
        self._time = now = self._time + dt
        threshold = 0.0 if self._busy else self._threshold_value
        n = _STEP[0](
            buf.objs, buf.tree_f, buf.tree_i, buf.work, dt, now, threshold, self._sweep,
            flags,
        )  # fmt: skip
        if not 0 <= n < _FRONT_FLAG:  # a buffer was too small
            if n < 0:
                n = buf.run_again(dt, now, threshold, self._sweep, flags)
            if n >= _FRONT_FLAG:
                n -= _FRONT_FLAG
                buf.grow_fronts()
        # one bytes snapshot holds the counts, the horizon and the pairs
        record = buf.record_mv[: _R_PAIRS + 2 * n].tobytes()
        horizon = buf.horizon_mv[0]
        # (continuous mode reports no horizon: its steps keep the threshold)
        self._busy = horizon == _NEG_INF and self._threshold is None and not flags & 4
        if flags & 2:
            self._horizon = _NEG_INF
            self.trace = buf.trace()
        else:
            self._horizon = horizon
            if horizon > now:
                quiet = buf.record_mv[:_N_COUNTS].tolist()
                quiet[_k.ASLEEP] += quiet[_k.SCHEDULED]
                quiet[_k.SCHEDULED] = 0
                self._quiet_counts = quiet
        if n == 0:
            pairs, tris, offsets = NO_TRIANGLES, NO_TRIANGLES, NO_OFFSETS
        else:
            # read-only, and the last step's arrays again when the pairs did not change
            # (most steps of a game loop)
            key = record[_R_BYTES:]
            if key == self._last_pairs_key:
                pairs, offsets = self._last_pairs
            else:
                pairs = np.frombuffer(key, np.int64).reshape(2, n)  # the record is int64
                offsets = zero_offsets(n)
                self._last_pairs, self._last_pairs_key = (pairs, offsets), key
            if flags & 1:
                tris, offsets = buf.triangles(n)
            else:
                tris = NO_TRIANGLES
        facts = (now, self._sizes, record, _clock() - start)
        result = StepResult(pairs, tris, offsets, facts)
        if flags & 4:
            result.toi = buf.contact_times(n)
        return result

    def __getstate__(self):
        # the buffers are views of shared arenas, which a pickle would copy apart: an
        # unpickled scene would step on copies and miss pairs
        raise TypeError(
            "a Scene cannot be pickled or copied: build it again from its objects "
            "(meshes pickle as their arrays)"
        )

    def query_brute(self, mode="any"):
        """Slow twin of :meth:`query`: every pair (but static-static) that groups, masks
        and the ignore list allow, tested exactly with no pretreatment, no broad phase,
        no volumes and no BVH (meshes: every triangle pair). Schedules are untouched."""
        return _brute.query_brute(self, mode, MODES)


def _check_inside(inside, mode):
    if inside is not False and not isinstance(inside, bool | np.bool_):
        raise TypeError(f"inside must be a bool, got {type(inside).__name__}")
    if inside and mode != "any":
        raise ValueError(
            "inside=True needs mode='any': containment has no triangle pairs"
        )
