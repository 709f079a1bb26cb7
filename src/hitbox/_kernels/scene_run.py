"""Many steps of a Scene in one compiled call (:meth:`hitbox.pipeline.Scene.run`): each
step as :func:`hitbox._kernels.scene.step` runs it (meshes, plain volumes and convex
shapes alike), its touching pairs appended to a log, steps before the quiet horizon
only moving the objects."""

import numpy as np
from numba import njit

from hitbox._kernels.pipeline import advance_with
from hitbox._kernels.scene import step
from hitbox._kernels.scene_layout import (
    C_HORIZON,
    C_LISTS,
    C_N_DYN,
    C_N_MOVING,
    C_N_STAT,
    C_PAIR_CAP,
    C_TRI_CAP,
    C_TRIS,
    FRONT_FLAG,
    ROT,
    TRANS,
    VEL,
    VERSION,
    i1,
    kinematics,
    objects_split,
    work_split,
)

#: Rows of a run's log: step, i, j, contact time (float64 bits), triangle pairs.
LOG_ROWS = 5
#: run_steps' stop reasons: all steps done, a step's buffers short (nothing of it
#: logged; run it again, moved already), the log short (the step ran; its results
#: are still in ``out_i``).
RUN_DONE, RUN_SHORT_STEP, RUN_SHORT_LOG = 0, 1, 2


@njit(cache=True, nogil=True)
def run_steps(
    objs, tf, ti, work, log, log_t, times, dt, now, horizon, threshold, method, flags,
    n_log, n_log_t, step0,
):  # fmt: skip
    """Up to ``len(times)`` steps of ``dt`` from time ``now``, each as :func:`step`
    (discrete or continuous by ``flags`` bit 2), in one call, each step's end time
    written to ``times``; steps ending before the quiet ``horizon`` only move the
    objects (the very arithmetic of a step). Each touching
    pair is logged at column ``n_log`` on: its step (counted from ``step0``), i, j,
    contact time (float64 bits) and number of triangle pairs (mode all), those
    appended to ``log_t`` at ``n_log_t``.

    Returns (reason, steps done, time, horizon, n_log, n_log_t): reason RUN_DONE,
    RUN_SHORT_STEP (the next step needs larger buffers: run it as a single step,
    moved already) or RUN_SHORT_LOG (the last step done did not fit the log; its
    results are in ``out_i`` as a single step leaves them).
    """
    fb, ib, cap = objects_split(objs)
    ctl, _, _, out_i, _ = work_split(work)
    continuous = (flags & 4) != 0
    all_pairs = (flags & 1) != 0
    log_f = log.view(np.float64)
    # what a quiet step reads, made once (the lists and tables stay put within a run)
    rot, trans, vel, omega, acc = kinematics(fb, cap, ROT, TRANS, VEL)
    version = i1(ib, cap, VERSION)
    start = C_LISTS + ctl[C_N_DYN] + ctl[C_N_STAT]
    moving = ctl[start : start + ctl[C_N_MOVING]]
    scratch = np.empty((2, 3, 3))
    for s in range(len(times)):
        end = now + dt
        times[s] = end
        if end < horizon and not continuous:
            if len(moving) and dt > 0.0:
                advance_with(rot, trans, vel, omega, acc, moving, dt, version, scratch)
            now = end
            continue
        n = step(objs, tf, ti, work, dt, end, threshold, method, flags)
        if n >= FRONT_FLAG:  # ctl still says so, for the caller
            n -= FRONT_FLAG
        if n < 0:
            return RUN_SHORT_STEP, s, now, horizon, n_log, n_log_t
        now = end
        if (flags & 2) == 0:  # a traced run runs every step
            horizon = ctl[C_HORIZON:].view(np.float64)[0]
        cap_p = ctl[C_PAIR_CAP]
        n_tris = ctl[C_TRIS] if all_pairs else 0
        if n_log + n > log.shape[1] or n_log_t + n_tris > log_t.shape[1]:
            return RUN_SHORT_LOG, s + 1, now, horizon, n_log, n_log_t
        toi = out_i[3 * cap_p + 1 : 4 * cap_p + 1].view(np.float64)
        for q in range(n):
            log[0, n_log] = step0 + s
            log[1, n_log] = out_i[q]
            log[2, n_log] = out_i[cap_p + q]
            log_f[3, n_log] = toi[q]
            log[4, n_log] = out_i[2 * cap_p + q + 1] - out_i[2 * cap_p + q]
            n_log += 1
        if n_tris:
            base = 4 * cap_p + 1
            cap_t = ctl[C_TRI_CAP]
            for q in range(n_tris):
                log_t[0, n_log_t + q] = out_i[base + q]
                log_t[1, n_log_t + q] = out_i[base + cap_t + q]
            n_log_t += n_tris
    return RUN_DONE, len(times), now, horizon, n_log, n_log_t
