"""One compiled step of a Scene (SPEC §9, seed 003): motion, world bounds, broad phase,
pretreatment and sleep schedule, per-object volumes and the narrow phase, in one call.

The scene's state lives in a few flat buffers, packed into two arenas (an object arena,
``fbuf`` then ``ibuf``, and a work arena, ``ctl``, ``mem_i``, ``front``, ``out_i`` and
the step record), so a step is one Python-to-numba call of four arrays (each unboxed):

- ``fbuf``: the per-object float tables, field after field (``F_FIELDS``), each a
  C-contiguous block of ``cap`` rows, then a scratch block (a pair's relative pose, the
  one-row shapes of a convex pair test, an object's turn: ``scene_layout.S_*``);
  ``ibuf`` the int tables (``I_FIELDS``).
- ``tree_f``, ``tree_i``: every mesh's OBB tree and model vertices, concatenated;
  ``tree_i`` starts with the number of trees T and a (T, M_COLS) table of each tree's
  sizes and offsets (``M_*``). OBB trees only (the fastest kind tree against tree), so
  the step compiles once, whatever trees the meshes were given.
- ``mem_i``: what a pair carries from one step to the next, double-buffered and
  sorted by pair key ``i << 32 | j``: its sleep (wake-up time, the two objects'
  epochs), its witness (the triangle pair that crossed last step) and where its front
  lies in ``front``; column 5 holds the wake-up time's float64 bits.
- ``front``: (3, F) int64, rows 0 and 1 double-buffered as the memory: the node
  pairs where each mesh pair's last tree walk stopped, with their clearances (pairs
  apart in mode all; :mod:`hitbox._kernels.front`); row 2 the walk's stack. A step
  whose fronts do not fit asks for more in ``ctl[C_NEED_FRONT]``; the pairs that
  missed out walk from the root next time.
- ``ctl``: sizes, capacities, counts out, and the id lists (``C_*``).
- ``out_i``: the touching pairs, their triangle pairs and offsets, the trace, and the
  step's scratch (the near keys, a mesh pair's crossing pairs): with the sweep's rows
  and the turn's scratch, a step allocates nothing unless a pair outgrows them.

A step that finds a buffer too small writes what it needs into ``ctl`` and returns -1
before it changes any state but poses and bounds; the second call, flagged as moved
already, leaves them as they are.
"""

import math

import numpy as np
from numba import njit

from hitbox._kernels.borrowed import borrowed
from hitbox._kernels.flat_views import rows
from hitbox._kernels.pipeline import (
    ASLEEP,
    BOXES_APART,
    CANDIDATE,
    FAR,
    FILTERED,
    PAD,
    SCHEDULED,
    WAKE_SAFETY,
    advance_steps,
    advance_with,
    asleep_until,
    filtered,
    sphere_gap,
    time_to_close,
    wake_time,
    world_bounds,
)
from hitbox._kernels.primitives import HALFSPACE
from hitbox._kernels.scene_broadphase import near_keys, planes
from hitbox._kernels.scene_layout import (
    ALPHA,
    BVER,
    C_COUNTS,
    C_CUR,
    C_HITS,
    C_HORIZON,
    C_LISTS,
    C_MEM_CAP,
    C_MEM_N,
    C_N_DYN,
    C_N_MOVING,
    C_N_ORDER,
    C_N_PLANES,
    C_N_STAT,
    C_NARROW,
    C_NEAR,
    C_NEED_FRONT,
    C_NEED_MEM,
    C_NEED_PAIRS,
    C_NEED_TRACE,
    C_NEED_TRIS,
    C_PAIR_CAP,
    C_PENDING,
    C_TRACE_CAP,
    C_TRACE_NEAR,
    C_TRI_CAP,
    C_TRIS,
    C_VOL,
    C_VOL_PASSED,
    CROSS_ROOM,
    EPOCH,
    FRONT_FLAG,
    GBOX,
    GROUP,
    IS_MESH,
    M_COLS,
    MASK,
    MBOX,
    MC,
    MR,
    NF,
    R_HORIZON,
    R_PAIRS,
    ROT,
    ROT0,
    S_PENDING,
    STATIC,
    SWEEP,
    TRANS,
    TRANS0,
    TREE,
    VEL,
    VEL0,
    VERSION,
    WBOX,
    WC,
    WR,
    XKIND,
    f1,
    f2,
    f3,
    i1,
    kinematics,
    objects_split,
    relative_scratch,
    turn_scratch,
    work_split,
)
from hitbox._kernels.scene_narrow import (
    fresh_volume,
    narrow_pair,
    pair_witness,
    volumes_meet,
)
from hitbox._kernels.scene_planes import plane_gap
from hitbox._kernels.slabs import slab_overlap

# -- the pair memory ---------------------------------------------------------------------


@njit(inline="always")
def _remember(mem_i, mem_f, nxt, n, key, epoch, i, j, wit_a, wit_b, wake, at, size):
    """Row n of the next memory: pair (i, j)'s epochs, witness, wake-up time, and its
    front (offset, length)."""
    mem_i[nxt, n, 0] = key
    mem_i[nxt, n, 1] = epoch[i]
    mem_i[nxt, n, 2] = epoch[j]
    mem_i[nxt, n, 3] = wit_a
    mem_i[nxt, n, 4] = wit_b
    mem_f[nxt, n, 5] = wake
    mem_i[nxt, n, 6] = at
    mem_i[nxt, n, 7] = size
    return n + 1


@njit(inline="always")
def _start_of_step(fb, cap, ids):
    """Keep every object's pose and velocity before the motion (continuous mode)."""
    rot = f3(fb, cap, ROT, 3, 3)
    trans = f2(fb, cap, TRANS, 3)
    vel = f2(fb, cap, VEL, 3)
    rot0 = f3(fb, cap, ROT0, 3, 3)
    trans0 = f2(fb, cap, TRANS0, 3)
    vel0 = f2(fb, cap, VEL0, 3)
    for o in ids:
        for r in range(3):
            trans0[o, r] = trans[o, r]
            vel0[o, r] = vel[o, r]
            for c in range(3):
                rot0[o, r, c] = rot[o, r, c]


@njit(inline="always")
def _point_bounds(o, vel, omega, acc, alpha, mc, mr):
    """Bounds on the speed of every point of object o, and on its growth: |v| + |w|
    (|mc| + mr) and |a| + alpha (|mc| + mr) (the points lie within the bounding sphere,
    the spin is about the origin)."""
    arm = math.sqrt(mc[o, 0] ** 2 + mc[o, 1] ** 2 + mc[o, 2] ** 2) + mr[o]
    v = math.sqrt(vel[o, 0] ** 2 + vel[o, 1] ** 2 + vel[o, 2] ** 2)
    w = math.sqrt(omega[o, 0] ** 2 + omega[o, 1] ** 2 + omega[o, 2] ** 2)
    a = math.sqrt(acc[o, 0] ** 2 + acc[o, 1] ** 2 + acc[o, 2] ** 2)
    return v + w * arm, a + alpha[o] * arm


@njit(inline="always")
def _reach_views(fb, cap):
    """Views of alpha, the model sphere centres mc and radii mr."""
    return f1(fb, cap, ALPHA), f2(fb, cap, MC, 3), f1(fb, cap, MR)


@njit(inline="always")
def _sweep_boxes(fb, cap, moving, dt):
    """Grow each moving object's grown world box by how far any of its points can go
    in the step, so the sweep sees every pair that can meet within it."""
    gbox = f3(fb, cap, GBOX, 2, 3)
    _, _, vel0, omega, acc = kinematics(fb, cap, ROT0, TRANS0, VEL0)
    alpha, mc, mr = _reach_views(fb, cap)
    for o in moving:
        speed, accel = _point_bounds(o, vel0, omega, acc, alpha, mc, mr)
        reach = (speed + accel * dt) * dt
        reach += PAD * (reach + abs(gbox[o, 0, 0]) + abs(gbox[o, 1, 0]))
        for r in range(3):
            gbox[o, 0, r] -= reach
            gbox[o, 1, r] += reach


@njit(inline="always")
def _far_time(fb, cap, ctl, threshold):
    """Least time in which any pair more than ``threshold`` apart can touch: every
    point of a moving object moves at most |v| + |w| (|mc| + mr), speeding up by at
    most |a| + alpha (|mc| + mr)."""
    start = C_LISTS + ctl[C_N_DYN] + ctl[C_N_STAT]
    _, _, vel, omega, acc = kinematics(fb, cap, ROT, TRANS, VEL)
    alpha, mc, mr = _reach_views(fb, cap)
    speed = 0.0
    accel = 0.0
    for o in ctl[start : start + ctl[C_N_MOVING]]:
        v, a = _point_bounds(o, vel, omega, acc, alpha, mc, mr)
        speed = max(speed, v)
        accel = max(accel, a)
    return time_to_close(threshold, 2.0 * speed, 2.0 * accel) * (1.0 - WAKE_SAFETY)


# -- the step ----------------------------------------------------------------------------


@njit(inline="always")
def _trace_pair(out_i, ctl, base, slot, i, j):
    """Append (i, j) to trace list ``slot`` (0 near, 1 volumes, 2 narrow) when traced."""
    cap_t = ctl[C_TRACE_CAP]
    n = ctl[C_TRACE_NEAR + slot]
    if n < cap_t:
        off = base + slot * 2 * cap_t
        out_i[off + n] = i
        out_i[off + cap_t + n] = j
    ctl[C_TRACE_NEAR + slot] = n + 1


@njit(inline="always")
def _record(ctl, out_i, record, n):
    """Write the step record (``R_*``) of a step that returned n; n, flagged."""
    if n < 0:
        return n
    for k in range(C_HITS + 1 - C_COUNTS):
        record[k] = ctl[C_COUNTS + k]
    record[R_HORIZON] = ctl[C_HORIZON]
    cap_p = ctl[C_PAIR_CAP]
    for k in range(n):
        record[R_PAIRS + k] = out_i[k]
        record[R_PAIRS + n + k] = out_i[cap_p + k]
    return n + FRONT_FLAG if ctl[C_NEED_FRONT] else n


# One compiled entry point, the step's whole body, for discrete and continuous steps
# alike: numba links a callee's code into each caller and optimizes and compiles it
# again there, so each entry point over a shared body cost 9 to 15 s of compile time
# of its own (and inlined, numba deep-copies the IR at every level).
@njit(cache=True, nogil=True)
def step(objs, tf, ti, work, dt, now, threshold, method, flags):
    """Advance the moving objects by ``dt`` and find every touching pair, over the
    object arena ``objs`` and the work arena ``work`` (``scene_layout.objects_split``,
    ``work_split``; see the module doc for the buffers). ``flags``: bit 0 ``all``
    (every triangle pair, else stop at the first), bit 1 trace, bit 2 continuous (pairs
    report the first time in the step they touch, see contact_time, advancement and
    mesh_volume_time), bit 3 "moved already" (the motion of this step is done).
    Returns the number of touching pairs (plus ``FRONT_FLAG`` when fronts did not
    fit), the step record holding the counts, horizon and pairs; or -1 when a buffer
    is too small (``ctl[C_NEED_*]`` say how large; nothing but poses and bounds has
    changed).
    ``ctl[C_HORIZON]`` gets (float64 bits) the quiet horizon: no pair can touch before
    it (the least wake-up time of the sleeping pairs, and the time the pairs farther
    apart than ``threshold`` need to close it), or -inf when a pair was near enough to
    be tested.

    ``out_i`` holds, at capacities P = ctl[C_PAIR_CAP], T = ctl[C_TRI_CAP] and
    N = ctl[C_TRACE_CAP]: pairs (2, P), offsets (P + 1), contact times (P, float64
    bits: seconds into the step), triangle pairs (2, T), the trace's near, volume and
    narrow pairs, (2, N) each, then scratch: room for the near keys (P) and a mesh
    pair's crossing slot pairs (2, ``CROSS_ROOM``).
    """
    # borrowed: the arenas outlive the step, so views of them need no reference counts
    objs, tf, ti, work = borrowed(objs), borrowed(tf), borrowed(ti), borrowed(work)
    fb, ib, cap = objects_split(objs)
    ctl, mem_i, front, out_i, record = work_split(work)
    # a run-time bool, not a literal: a literal would compile the body once per value
    sweeps = (flags & 4) != 0
    meta = rows(ti[1 : 1 + ti[0] * M_COLS], ti[0], M_COLS)
    mem_f = mem_i.view(np.float64)  # column 5 holds the wake-up times
    first_only = (flags & 1) == 0
    tracing = (flags & 2) != 0
    continuous = sweeps and (flags & 4) != 0 and dt > 0.0
    moves = (flags & 8) == 0  # a run again after a short buffer has moved already
    n_dyn = ctl[C_N_DYN]
    n_stat = ctl[C_N_STAT]
    n_moving = ctl[C_N_MOVING]
    # the views are made once, here (each is a few ns: hitbox._kernels.flat_views)
    rot, trans, vel, omega, acc = kinematics(fb, cap, ROT, TRANS, VEL)
    mc = f2(fb, cap, MC, 3)
    version = i1(ib, cap, VERSION)
    if continuous and moves:
        _start_of_step(fb, cap, ctl[C_LISTS : C_LISTS + n_dyn + n_stat])
        _start_of_step(fb, cap, planes(ctl))
    n_pending = ctl[C_PENDING]
    if moves and n_pending > 0:  # the quiet steps since the last, one at a time
        start = C_LISTS + n_dyn + n_stat
        at = cap * NF + S_PENDING
        advance_steps(
            rot, trans, vel, omega, acc, ctl[start : start + n_moving],
            fb[at : at + n_pending], version,
        )  # fmt: skip
    if moves:
        ctl[C_PENDING] = 0
    if moves and n_moving and dt > 0.0:
        start = C_LISTS + n_dyn + n_stat
        advance_with(
            rot, trans, vel, omega, acc, ctl[start : start + n_moving], dt, version,
            turn_scratch(fb, cap),
        )  # fmt: skip
    wc = f2(fb, cap, WC, 3)
    wr = f1(fb, cap, WR)
    wbox = f3(fb, cap, WBOX, 2, 3)
    gbox = f3(fb, cap, GBOX, 2, 3)
    world_bounds(
        ctl[C_LISTS : C_LISTS + n_dyn + n_stat], version, i1(ib, cap, BVER), rot,
        trans, mc, f1(fb, cap, MR), f3(fb, cap, MBOX, 2, 3),
        0.5 * threshold, wc, wr, wbox, gbox,
    )  # fmt: skip
    if continuous:
        start = C_LISTS + n_dyn + n_stat
        _sweep_boxes(fb, cap, ctl[start : start + n_moving], dt)
    static = i1(ib, cap, STATIC)
    cap_p = ctl[C_PAIR_CAP]
    cap_t = ctl[C_TRI_CAP]
    cap_n = ctl[C_TRACE_CAP]
    tri_base = 4 * cap_p + 1
    trace_base = tri_base + 2 * cap_t
    room_at = trace_base + 6 * cap_n  # the near keys' room, then the crossing pairs'
    room = out_i[room_at : room_at + cap_p]
    box = f2(fb, cap, SWEEP, 8)
    keys = near_keys(method, ctl, static, gbox, room, box) if n_dyn else room[:0]
    n_near = len(keys)

    for k in range(C_COUNTS, C_NEED_TRACE + 1):
        ctl[k] = 0
    ctl[C_NEED_FRONT] = 0
    ctl[C_NEAR] = n_near
    if n_near > ctl[C_MEM_CAP] or n_near > cap_p or (tracing and n_near > cap_n):
        ctl[C_NEED_MEM] = n_near
        ctl[C_NEED_PAIRS] = n_near
        ctl[C_NEED_TRACE] = n_near
        return -1
    toi = out_i[3 * cap_p + 1 : 4 * cap_p + 1].view(np.float64)

    cur = ctl[C_CUR]
    n_mem = ctl[C_MEM_N]
    nxt = 1 - cur
    group = i1(ib, cap, GROUP)
    mask = i1(ib, cap, MASK)
    epoch = i1(ib, cap, EPOCH)
    is_mesh = i1(ib, cap, IS_MESH)
    xkind = i1(ib, cap, XKIND)
    alpha = f1(fb, cap, ALPHA)
    sched_keys = mem_i[cur, :n_mem, 0]
    sched_wake = mem_f[cur, :n_mem, 5]
    sched_epoch = mem_i[cur, :n_mem, 1:3]
    ignore = ctl[C_LISTS + n_dyn + n_stat + n_moving + ctl[C_N_ORDER] + ctl[C_N_PLANES] :]
    ignore = ignore[1 : 1 + ignore[0]]
    n_new = 0
    front_at = 0  # where the next pair's front goes in front[nxt]
    n_hits = 0
    n_tris = 0
    horizon = np.inf  # no pair can touch before this time (the quiet horizon)
    far = False
    tris_out = rows(out_i[tri_base : tri_base + 2 * cap_t], 2, cap_t)
    tree = i1(ib, cap, TREE)
    rel_r, rel_t = relative_scratch(fb, cap)
    # a mesh pair's crossing slot pairs (grows into an array of its own)
    pair_buf = rows(
        out_i[room_at + cap_p : room_at + cap_p + 2 * CROSS_ROOM], 2, CROSS_ROOM
    )
    row = 0  # the memory's rows and the near keys are both sorted: one merge
    for q in range(n_near):
        key = keys[q]
        i = key >> 32
        j = key & 0xFFFFFFFF
        while row < n_mem and sched_keys[row] < key:
            row += 1
        s = row if row < n_mem and sched_keys[row] == key else -1
        if tracing:
            _trace_pair(out_i, ctl, trace_base, 0, i, j)
        wake = 0.0
        plane = xkind[i] == HALFSPACE or xkind[j] == HALFSPACE
        if filtered(i, j, key, group, mask, ignore):
            v = FILTERED
        else:
            wake = asleep_until(i, j, s, epoch, sched_wake, sched_epoch, now)
            if wake > -np.inf:
                v = ASLEEP
            else:
                if plane:  # half-space against its object's sphere; never far
                    gap = plane_gap(i, j, xkind, fb, ib, cap, rot, trans, wc, wr)
                else:
                    gap = sphere_gap(i, j, wc, wr)
                if gap > threshold and not plane:
                    v = FAR
                elif gap > 0.0:
                    v = SCHEDULED
                    wake = wake_time(gap, i, j, vel, omega, acc, alpha, mc, now)
                else:
                    v = (
                        CANDIDATE
                        if plane or slab_overlap(wbox, i, wbox, j)
                        else BOXES_APART
                    )
        mesh_i = is_mesh[i] != 0
        mesh_j = is_mesh[j] != 0
        swept = continuous and v != FILTERED and v != ASLEEP
        if swept and v == SCHEDULED:  # sleeps from the end of the step on, as usual
            n_new = _remember(
                mem_i, mem_f, nxt, n_new, key, epoch, i, j, -1, -1, wake, 0, 0
            )
        if swept:
            v = CANDIDATE
        ctl[C_COUNTS + v] += 1
        if v == ASLEEP or v == SCHEDULED:
            horizon = min(horizon, wake)
        elif v == FAR:
            far = True
        elif v != FILTERED:
            horizon = -np.inf  # a pair near enough to be tested: no quiet steps
        if v == ASLEEP or v == SCHEDULED:
            n_new = _remember(
                mem_i, mem_f, nxt, n_new, key, epoch, i, j, -1, -1, wake, 0, 0
            )
            continue
        if v != CANDIDATE:
            continue
        tried = first_only and mesh_i and mesh_j and not swept
        toward_a = toward_b = -1
        if tried:  # a crossing pair near the last one settles it before any volume
            wit_a, wit_b, toward_a, toward_b = pair_witness(
                i, j, s, rot, trans, tree, tf, ti, meta, mem_i, cur, rel_r, rel_t
            )
            if wit_a >= 0:
                for stage in (C_VOL, C_VOL_PASSED, C_NARROW):
                    ctl[stage] += 1
                if tracing:
                    _trace_pair(out_i, ctl, trace_base, 1, i, j)
                    _trace_pair(out_i, ctl, trace_base, 2, i, j)
                n_new = _remember(
                    mem_i, mem_f, nxt, n_new, key, epoch, i, j, wit_a, wit_b, -np.inf,
                    front_at, 0,
                )  # fmt: skip
                out_i[n_hits] = i
                out_i[cap_p + n_hits] = j
                out_i[2 * cap_p + n_hits] = n_tris
                toi[n_hits] = dt
                n_hits += 1
                continue
        if (mesh_i or mesh_j) and not swept and not plane:  # a half-space: no volume
            ctl[C_VOL] += 1
            if tracing:
                _trace_pair(out_i, ctl, trace_base, 1, i, j)
            fresh_volume(i, fb, ib, cap, tf, meta)
            fresh_volume(j, fb, ib, cap, tf, meta)
            if not volumes_meet(i, j, fb, ib, cap):
                continue
            ctl[C_VOL_PASSED] += 1
        ctl[C_NARROW] += 1
        if tracing:
            _trace_pair(out_i, ctl, trace_base, 2, i, j)
        m, hit_time, wit_a, wit_b, n_front, pair_buf = narrow_pair(
            i, j, s, fb, ib, cap, tf, ti, meta, mem_i, cur, front[cur],
            front[nxt, front_at:], front[2], pair_buf, first_only, sweeps, swept, dt,
            tris_out, n_tris, tried, toward_a, toward_b,
        )  # fmt: skip
        if n_front < 0:
            ctl[C_NEED_FRONT] = 2 * front.shape[1]  # for the next step
            n_front = 0
        if wit_a >= 0 or n_front > 0:
            n_new = _remember(
                mem_i, mem_f, nxt, n_new, key, epoch, i, j, wit_a, wit_b, -np.inf,
                front_at, n_front,
            )  # fmt: skip
            front_at += n_front
        if m == 0:
            continue
        out_i[n_hits] = i
        out_i[cap_p + n_hits] = j
        out_i[2 * cap_p + n_hits] = n_tris
        toi[n_hits] = hit_time
        n_hits += 1
        if not first_only:
            n_tris += m
    out_i[2 * cap_p + n_hits] = n_tris
    ctl[C_HITS] = n_hits
    ctl[C_TRIS] = n_tris
    if n_tris > cap_t:
        ctl[C_NEED_TRIS] = n_tris
        return -1
    formable = n_dyn * (n_dyn - 1) // 2 + n_dyn * (n_stat + ctl[C_N_PLANES])
    if far or n_near < formable:
        horizon = min(horizon, now + _far_time(fb, cap, ctl, threshold))
    ctl[C_HORIZON:].view(np.float64)[0] = horizon if not continuous else -np.inf
    ctl[C_CUR] = nxt
    ctl[C_MEM_N] = n_new
    return _record(ctl, out_i, record, n_hits)
