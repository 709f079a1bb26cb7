"""The flat buffers a Scene's compiled step runs over (see :mod:`hitbox._kernels.scene`).

:class:`SceneBuffers` owns them: the per-object tables (and numpy views of each field,
which the Scene reads and writes), the OBB trees of the scene's meshes concatenated, the
pair memory, the control block and the output. It grows whatever the step reports too
small (:meth:`SceneBuffers.run_again`) and runs the step again, flagged as moved
already, which changes nothing twice.
"""

import numpy as np

from hitbox._direct_call import resolving_slot
from hitbox._kernels import scene as _ks
from hitbox._kernels import scene_layout as _kl
from hitbox._kernels import scene_run as _kr
from hitbox._kernels.witness import slot_neighbours, tree_links

_EMPTY_PAIRS = np.empty((2, 0), np.intp)
_ZERO_OFFSETS = np.zeros(1, np.intp)
_EMPTY_PAIRS.flags.writeable = _ZERO_OFFSETS.flags.writeable = False

#: Node pairs each row of the front buffer holds at first, and at most (48 MiB): two
#: rows of fronts, one of scratch for the tree walk's stack.
_FRONT_START, _FRONT_MAX = 1 << 12, 1 << 21
#: Room for triangle pairs: at first (a scene stepped only in mode "any" writes none),
#: and made before a scene's first step in mode "all". A step that outgrows an output
#: buffer runs again whole (its walks twice): seed 003's tori, starting from 64, walked
#: three of 200 steps twice (the crossing pairs grew past 120, 260 and 698); 4,096
#: pairs take 64 kB.
_TRI_FIRST, _TRI_START = 64, 4_096

#: Columns a run's logs start with: room for a pair a step (a triangle pair a step in
#: mode "all") up to these caps; a log that fills up returns to Python to grow (a round
#: trip and a copy).
_LOG_CAP, _LOG_T_CAP = 1 << 14, 1 << 16
#: run_steps through numba's dispatch once, its entry point after (its argument types
#: never change: the arenas, two int64 logs, a float64 slice, and scalars)
_RUN_STEPS = resolving_slot(_kr.run_steps)

_F_WIDTH = [int(np.prod(shape, dtype=np.int64)) for _, shape in _kl.F_FIELDS]
_F_OFFSET = np.concatenate([[0], np.cumsum(_F_WIDTH)]).astype(int)
assert _F_OFFSET[-1] == _kl.NF and len(_kl.I_FIELDS) == _kl.NI


def _tree_floats(mesh, verts):
    """(meta column, array) of what tree_f holds of an OBB-tree mesh: the node OBBs and
    boxes, slot triangles and boxes, the used vertices (3, V), the node magnitude
    followed by the reach (the largest distance of a vertex from the model origin,
    rounded up: :mod:`hitbox._kernels.front` bounds motion with it), and the wide table
    of :mod:`hitbox._kernels.obb_wide`."""
    bv0, bv1, bv2, _, _, tris, sbox, _, mag, wide = mesh._walk_args()
    with np.errstate(over="ignore", invalid="ignore"):
        big = float(np.abs(verts).max(initial=0.0))  # squares at this scale: no underflow
        unit = verts / big if 0.0 < big < np.inf else verts
        reach = float(np.sqrt((unit * unit).sum(axis=1)).max(initial=0.0))
        reach = reach * big if 0.0 < big < np.inf else reach
    reach = reach * (1.0 + 1e-12) if np.isfinite(reach) else np.inf
    return (
        (_kl.M_BV0, bv0), (_kl.M_BV1, bv1), (_kl.M_BV2, bv2),
        (_kl.M_NBOX, mesh.bvh.node_box), (_kl.M_TRIS, tris), (_kl.M_SBOX, sbox),
        (_kl.M_VERT, verts.T), (_kl.M_MAG, np.array([mag, reach], dtype=np.float64)),
        (_kl.M_WIDE, wide),
    )  # fmt: skip


def _grown(arr, n, need):
    """arr (rows, C) with room for at least ``need`` columns, the first n kept (arr
    itself when it has the room)."""
    if need <= arr.shape[1]:
        return arr
    out = np.empty((arr.shape[0], max(2 * arr.shape[1], need)), arr.dtype)
    out[:, :n] = arr[:, :n]
    return out


class SceneBuffers:
    """Buffers of one Scene. ``views`` maps each field name (``"rot"``, ``"static"``,
    ...) to a numpy view of its (cap, ...) table; views change when :meth:`grow` runs."""

    def __init__(self, cap=16):
        self.cap = 0
        self.objs = np.zeros(0, np.int64)
        self.fbuf = np.zeros(0)
        self.ibuf = np.zeros(0, np.int64)
        self.views = {}
        self.work = np.zeros(0, np.int64)
        self.record = np.zeros(0, np.int64)
        self.grow(cap)
        self._trees = []  # (mesh with a tree of the scene's kind, its used vertices)
        self._tree_of = {}  # id(mesh given) -> tree index
        self._given = []  # meshes given, kept alive so their ids stay unique
        self._hulls = []  # hull vertex blocks, tree_f's head (their offsets never move)
        self._hull_at = {}  # id(shape given) -> (offset, the shape, kept alive)
        self.tree_f = np.zeros(0)
        self.tree_i = np.zeros(1, np.int64)  # no trees
        # read-only like the packed trees: a scene without meshes runs the very step
        # kernel one with meshes runs (a writable array is another numba type, and would
        # compile the whole step again)
        self.tree_f.flags.writeable = self.tree_i.flags.writeable = False
        self.mem_i = np.zeros((2, 0, _kl.MEM_COLS), np.int64)
        self.front = np.zeros((3, _FRONT_START), np.int64)
        self.ctl = np.zeros(_kl.C_LISTS + 1, np.int64)
        self.out_i = np.zeros(0, np.int64)
        self._size_output(16, _TRI_FIRST, 0)
        self._size_memory(16)

    # -- per-object tables ---------------------------------------------------------------

    def grow(self, cap):
        """Tables of ``cap`` rows, the old rows kept."""
        old, old_views = self.cap, dict(self.views)
        split = cap * _kl.NF + _kl.SCRATCH_F
        objs = np.zeros(split + cap * _kl.NI, np.int64)  # zero bits: 0.0 floats
        fbuf, ibuf = objs[:split].view(np.float64), objs[split:]
        views = self.views  # refreshed in place: the Scene holds this dict
        for (name, shape), off, width in zip(
            _kl.F_FIELDS, _F_OFFSET, _F_WIDTH, strict=False
        ):
            views[name] = fbuf[cap * off : cap * (off + width)].reshape((cap, *shape))
        for k, name in enumerate(_kl.I_FIELDS):
            views[name] = ibuf[cap * k : cap * (k + 1)]
        views["group"] = views["group"].view(np.uint64)
        views["mask"] = views["mask"].view(np.uint64)
        views["bounds_version"][:] = -1
        views["vol_version"][:] = -1
        views["xkind"][:] = -1
        for name, view in views.items():
            if old:
                view[:old] = old_views[name]
        self.objs, self.fbuf, self.ibuf, self.cap = objs, fbuf, ibuf, cap
        # the quiet steps' dts, in the scratch the step kernel replays them from
        at = cap * _kl.NF + _kl.S_PENDING
        self.pending = fbuf[at : at + _kl.PENDING_CAP]
        self.pending_mv = memoryview(self.pending)  # an item stored: 3x numpy's speed

    # -- trees ---------------------------------------------------------------------------

    def tree_for(self, mesh):
        """Index of ``mesh``'s tree in the registry, added on first use (instances of one
        mesh share it). A mesh whose tree is not an OBB tree gets one, built once: the
        step walks OBB trees only (the fastest kind tree against tree; one kernel)."""
        t = self._tree_of.get(id(mesh))
        if t is not None:
            return t
        tree = mesh if mesh.bvh.kind == "obb" else mesh.with_tree(node="obb")
        return self._new_slot(tree, mesh)

    def _new_slot(self, tree, given):
        """A new tree slot: ``tree`` (an OBB-tree mesh) for the mesh ``given``."""
        verts = np.ascontiguousarray(given.vertices[np.unique(given.faces)])
        t = len(self._trees)
        self._trees.append((tree, verts))
        self._given.append(given)
        self._tree_of[id(given)] = t
        self._pack_trees()
        return t

    def hull_for(self, given, vertices):
        """Offset in tree_f of a hull's model vertices (K, 3), added on first use of the
        shape ``given`` (instances of one hull share them): hulls head tree_f, so an
        offset stays put when trees are added."""
        known = self._hull_at.get(id(given))
        if known is not None:
            return known[0]
        at = sum(len(h) for h in self._hulls)
        self._hulls.append(np.ravel(vertices).astype(np.float64))
        self._hull_at[id(given)] = (at, given)  # kept alive: its id stays unique
        self._pack_trees()
        return at

    def tree_mesh(self, t):
        """The OBB-tree mesh of tree slot t."""
        return self._trees[t][0]

    def retree(self, t, mesh, shared):
        """The slot of ``mesh``, slot t's OBB-tree mesh deformed (the same topology):
        slot t itself, its floats rewritten in place, or a new slot when ``shared``
        (other objects still use slot t)."""
        if shared:
            return self._new_slot(mesh, mesh)
        verts = np.ascontiguousarray(mesh.vertices[np.unique(mesh.faces)])
        self._tree_of.pop(id(self._given[t]), None)  # the mesh given no longer maps here
        self._trees[t] = (mesh, verts)
        self._given[t] = mesh
        self._tree_of[id(mesh)] = t
        meta = self.tree_i[1 : 1 + len(self._trees) * _kl.M_COLS]
        meta = meta.reshape(len(self._trees), _kl.M_COLS)
        self.tree_f.flags.writeable = True
        for col, arr in _tree_floats(mesh, verts):
            at = meta[t, col]
            self.tree_f[at : at + arr.size] = np.ravel(arr)
        self.tree_f.flags.writeable = False
        return t

    def drop_fronts(self, i):
        """Forget the tree-walk fronts of every remembered pair of object i (its mesh
        deformed: a front's clearances hold under rigid motion only); they walk from
        the root next."""
        n = int(self.ctl[_kl.C_MEM_N])
        rows = self.mem_i[int(self.ctl[_kl.C_CUR]), :n]
        keys = rows[:, 0]
        rows[((keys >> 32) == i) | ((keys & 0xFFFFFFFF) == i), 7] = 0

    def _pack_trees(self):
        n_trees = len(self._trees)
        floats, ints, meta = [], [], np.zeros((n_trees, _kl.M_COLS), np.int64)
        floats.extend(self._hulls)
        f_at = sum(len(h) for h in self._hulls)
        i_at = 1 + meta.size  # after the count and the table
        for t, (mesh, verts) in enumerate(self._trees):
            _, _, _, first, count, tris, _, depth, _ = mesh._args
            for col, arr in _tree_floats(mesh, verts):
                meta[t, col] = f_at
                floats.append(np.ravel(arr))
                f_at += arr.size
            order = mesh.bvh.prim_order
            parent, leaf = tree_links(first, count)
            for col, arr in ((_kl.M_FIRST, first), (_kl.M_COUNT, count),
                             (_kl.M_ORDER, order),
                             (_kl.M_ADJ, slot_neighbours(mesh.faces, order)),
                             (_kl.M_PARENT, parent), (_kl.M_LEAF, leaf)):  # fmt: skip
                meta[t, col] = i_at
                ints.append(np.ravel(arr).astype(np.int64))
                i_at += arr.size
            meta[t, _kl.M_NODES] = len(first)
            meta[t, _kl.M_SLOTS] = len(tris)
            meta[t, _kl.M_VERTS] = len(verts)
            meta[t, _kl.M_DEPTH] = depth
        # read-only, as the meshes' own arrays: the step's tree walk then types as the
        # very kernel TriangleMesh.intersect_many runs, compiled once per process
        self.tree_f = np.concatenate([np.zeros(0), *floats]).astype(np.float64)
        self.tree_i = np.concatenate([[n_trees], meta.ravel(), *ints]).astype(np.int64)
        self.tree_f.flags.writeable = self.tree_i.flags.writeable = False

    # -- lists, memory, output -----------------------------------------------------------

    def set_lists(self, dyn, stat, moving, order, planes, ignore):
        """Write the id lists into the control block (keeping its counts)."""
        head = self.ctl[: _kl.C_LISTS].copy()
        body = [dyn, stat, moving, order, planes, [len(ignore)], ignore]
        ctl = np.concatenate([head, *[np.asarray(b, np.int64) for b in body]])
        ctl[_kl.C_N_DYN] = len(dyn)
        ctl[_kl.C_N_STAT] = len(stat)
        ctl[_kl.C_N_MOVING] = len(moving)
        ctl[_kl.C_N_ORDER] = len(order)
        ctl[_kl.C_N_PLANES] = len(planes)
        self.ctl = ctl
        self._pack()

    def _pack(self):
        """Copy ``ctl``, ``mem_i``, ``front`` and ``out_i`` into a new work arena
        (``scene_layout.W_*``) with room for the step record, and make them views of it;
        also the views each step reads (a slice and a view cost more than the reading)."""
        cap = int(self.ctl[_kl.C_PAIR_CAP])
        parts = [self.ctl, self.mem_i, self.front, self.out_i]
        sizes = [p.size for p in parts] + [_kl.R_PAIRS + 2 * cap]
        lengths = [self.ctl.size, self.mem_i.shape[1], self.front.shape[1],
                   self.out_i.size, sizes[-1]]  # fmt: skip
        offsets = _kl.W_HEAD + np.concatenate([[0], np.cumsum(sizes)])
        work = np.zeros(int(offsets[-1]), np.int64)
        work[: _kl.W_HEAD] = np.ravel(np.stack([offsets[:-1], lengths], axis=1))
        views = []
        for part, at, size in zip(parts, offsets, sizes, strict=False):
            view = work[at : at + size].reshape(part.shape)
            view[...] = part
            views.append(view)
        at = int(offsets[-2])
        record = work[at : at + sizes[-1]]
        kept = min(record.size, self.record.size)
        record[:kept] = self.record[:kept]  # the last step's, read after a regrowth
        self.work, self.record = work, record
        self.ctl, self.mem_i, self.front, self.out_i = views
        self.horizon_view = self.record[_kl.R_HORIZON :].view(np.float64)
        # what each step reads back, as memoryviews: an item or a bytes snapshot of one
        # costs a third of numpy's slice, copy and scalar conversion
        self.record_mv = memoryview(self.record)
        self.horizon_mv = memoryview(self.horizon_view)
        self._counts = self.ctl[_kl.C_COUNTS : _kl.C_HITS + 1]
        self._horizon = self.ctl[_kl.C_HORIZON : _kl.C_HORIZON + 1].view(np.float64)
        self._pairs = self.out_i[: 2 * cap].reshape(2, cap)

    def _size_memory(self, cap):
        ctl = self.ctl
        n, cur = ctl[_kl.C_MEM_N], ctl[_kl.C_CUR]
        mem_i = np.zeros((2, cap, _kl.MEM_COLS), np.int64)
        mem_i[0, :n] = self.mem_i[cur, :n]
        front = self.front
        if cur:
            front = front[[1, 0, 2]]  # the fronts the rows point to, kept
        self.mem_i, self.front = mem_i, front
        ctl[_kl.C_CUR] = 0
        ctl[_kl.C_MEM_CAP] = cap
        self._pack()

    def reserve_triangles(self):
        """Room for ``_TRI_START`` triangle pairs, made before a step in mode "all"."""
        ctl = self.ctl
        if ctl[_kl.C_TRI_CAP] < _TRI_START:
            self._size_output(int(ctl[_kl.C_PAIR_CAP]), _TRI_START,
                              int(ctl[_kl.C_TRACE_CAP]))  # fmt: skip

    def _size_output(self, pairs, tris, trace):
        scratch = pairs + 2 * _kl.CROSS_ROOM  # the step's scratch (_kernels.scene.step)
        self.out_i = np.zeros(4 * pairs + 1 + 2 * tris + 6 * trace + scratch, np.int64)
        self.ctl[_kl.C_PAIR_CAP] = pairs
        self.ctl[_kl.C_TRI_CAP] = tris
        self.ctl[_kl.C_TRACE_CAP] = trace
        self._pack()

    # -- the step ------------------------------------------------------------------------

    def run_again(self, dt, now, threshold, method, flags):
        """After a step returned -1: grow what it reports too small and run it again,
        flagged as moved already (its motion is done), until it fits. Returns what the
        step kernel returns (the number of touching pairs, flagged)."""
        flags |= 8
        while True:
            ctl = self.ctl
            if ctl[_kl.C_NEED_MEM] > ctl[_kl.C_MEM_CAP]:
                self._size_memory(2 * int(ctl[_kl.C_NEED_MEM]))
            pairs = max(int(ctl[_kl.C_PAIR_CAP]), 2 * int(ctl[_kl.C_NEED_PAIRS]))
            tris = max(int(ctl[_kl.C_TRI_CAP]), 2 * int(ctl[_kl.C_NEED_TRIS]))
            trace = max(int(ctl[_kl.C_TRACE_CAP]), 2 * int(ctl[_kl.C_NEED_TRACE]))
            self._size_output(pairs, tris, trace if flags & 2 else ctl[_kl.C_TRACE_CAP])
            n = _ks.step(
                self.objs, self.tree_f, self.tree_i, self.work, dt, now, threshold,
                method, flags,
            )  # fmt: skip
            if n >= 0:
                return n

    def run_many(self, dt, now, horizon, threshold, method, flags, steps):
        """``steps`` steps in as few compiled calls as the buffers allow (see
        :func:`hitbox._kernels.scene_run.run_steps`). Returns (times, log (5, P), triangle
        pairs (2, T), time, horizon)."""
        times = np.empty(steps)
        log = np.empty((_kr.LOG_ROWS, min(max(64, steps), _LOG_CAP)), np.int64)
        log_t = np.empty(
            (2, min(max(64, steps), _LOG_T_CAP) if flags & 1 else 0), np.int64
        )
        n_log = n_log_t = done = 0
        while done < steps:
            reason, k, now, horizon, n_log, n_log_t = _RUN_STEPS[0](
                self.objs, self.tree_f, self.tree_i, self.work, log, log_t,
                times[done:], dt, now, horizon, threshold, method, flags, n_log,
                n_log_t, done,
            )  # fmt: skip
            if self.ctl[_kl.C_NEED_FRONT]:
                self.grow_fronts()
            done += k
            if reason == _kr.RUN_DONE:
                break
            if reason == _kr.RUN_SHORT_STEP:  # that step alone, its buffers grown
                now += dt
                times[done] = now
                n = self.run_again(dt, now, threshold, method, flags)
                if n >= _kl.FRONT_FLAG:
                    n -= _kl.FRONT_FLAG
                    self.grow_fronts()
                if not flags & 2:
                    horizon = self.horizon()
                done += 1
            else:
                n = int(self.ctl[_kl.C_HITS])
            # the last step done is in the output, not yet in the log
            log, log_t = self._log_step(log, log_t, n_log, n_log_t, done - 1, n, flags)
            n_log += n
            n_log_t += int(self.ctl[_kl.C_TRIS]) if flags & 1 else 0
        return times, log[:, :n_log], log_t[:, :n_log_t], now, horizon

    def _log_step(self, log, log_t, n_log, n_log_t, step, n, flags):
        """Append the last step's n pairs (from the output) to the log, grown."""
        tris, offsets = self.triangles(n) if flags & 1 else (_EMPTY_PAIRS, None)
        log = _grown(log, n_log, n_log + n)
        log_t = _grown(log_t, n_log_t, n_log_t + tris.shape[1])
        at = slice(n_log, n_log + n)
        log[0, at] = step
        log[1:3, at] = self.pairs(n)
        log[3, at] = self.contact_times(n).view(np.int64)
        log[4, at] = np.diff(offsets) if offsets is not None else 0
        log_t[:, n_log_t : n_log_t + tris.shape[1]] = tris
        return log, log_t

    def grow_fronts(self):
        """After a step whose fronts did not fit (some pairs will walk from the root
        next time): room for twice as many, up to ``_FRONT_MAX``, the kept ones
        copied."""
        need = min(int(self.ctl[_kl.C_NEED_FRONT]), _FRONT_MAX)
        if need > self.front.shape[1]:
            front = np.zeros((3, need), np.int64)
            front[:, : self.front.shape[1]] = self.front
            self.front = front
            self._pack()

    def pairs(self, n):
        """(2, n) touching object pairs of the last step."""
        if n == 0:
            return _EMPTY_PAIRS
        return self._pairs[:, :n].copy()

    def triangles(self, n):
        """(triangles (2, T), offsets (n + 1,)) of the last step (mode "all")."""
        if n == 0:
            return _EMPTY_PAIRS, _ZERO_OFFSETS
        cap = int(self.ctl[_kl.C_PAIR_CAP])
        cap_t = int(self.ctl[_kl.C_TRI_CAP])
        offsets = self.out_i[2 * cap : 2 * cap + n + 1].astype(np.intp)
        total = int(offsets[-1])
        base = 4 * cap + 1
        tris = np.empty((2, total), np.intp)
        tris[0] = self.out_i[base : base + total]
        tris[1] = self.out_i[base + cap_t : base + cap_t + total]
        return tris, offsets

    def contact_times(self, n):
        """(n,) first contact times (seconds into the last step) of its pairs."""
        cap = int(self.ctl[_kl.C_PAIR_CAP])
        return self.out_i[3 * cap + 1 : 3 * cap + 1 + n].view(np.float64).copy()

    def trace(self):
        """The last step's near, volume and narrow pairs (it ran with ``trace``)."""
        cap = int(self.ctl[_kl.C_PAIR_CAP])
        cap_t = int(self.ctl[_kl.C_TRI_CAP])
        cap_n = int(self.ctl[_kl.C_TRACE_CAP])
        base = 4 * cap + 1 + 2 * cap_t
        out = {}
        for k, name in enumerate(("near", "volumes", "narrow")):
            n = int(self.ctl[_kl.C_TRACE_NEAR + k])
            at = base + 2 * k * cap_n
            out[name] = np.stack(
                [self.out_i[at : at + n], self.out_i[at + cap_n : at + cap_n + n]]
            ).astype(np.intp)
        return out

    def horizon(self):
        """The last step's quiet horizon (see the step kernel)."""
        return float(self._horizon[0])

    def counts(self):
        """The last step's counts: verdicts (6), near, volume pairs, volume passes,
        narrow tests, touching pairs."""
        return self._counts.tolist()
