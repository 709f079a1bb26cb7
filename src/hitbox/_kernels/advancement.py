"""First contact of two moving meshes within a step, by conservative advancement
(Mirtich 1996; Zhang, Lee & Kim, "C2A", 2009): from the step's start, take the
meshes' distance, advance time by as much as their motion bounds allow without
closing it, and repeat, until they come within a tolerance (contact) or the step ends
(none). No step can skip a contact, since no point moves faster than the bounds.

The motion is the Scene's (see :mod:`hitbox._kernels.pipeline`): constant linear
acceleration and angular velocity from the start state, integrated to any time by the
very kernel a step uses. A point of object o moves at most |v + a t| + |w| arm and
speeds up at most |a| + alpha arm, arm = |mc| + mr (its bounding sphere about its
origin). Pairs with a convex shape advance the same way on their GJK distance
(:func:`hitbox._kernels.scene_convex.convex_contact_time`).
"""

import math

import numpy as np
from numba import njit

from hitbox._kernels.distance_wide import heap_size, mesh_distance_wide
from hitbox._kernels.pipeline import advance, relative_into, time_to_close
from hitbox._kernels.scene_layout import (
    ALPHA,
    M_DEPTH,
    MC,
    MR,
    ROT0,
    TRANS0,
    TREE,
    VEL0,
    f1,
    f2,
    i1,
    kinematics,
    obb_parts,
    tree_walk_arrays,
    wide_part_of,
)

#: Contact tolerance, relative to the two bounding spheres' radii: meshes this close
#: count as touching (advancement converges to a contact, never onto it).
CONTACT_TOL = 1e-9
#: Advancement steps before a pair that cannot be proved apart is reported touching
#: (conservative: a near graze, not a miss).
MAX_STEPS = 256
#: Relative slack of the distance used per step: an approximate distance within a
#: factor (1 + rtol) costs less, and its lower bound still advances safely.
RTOL = 0.25


@njit(inline="always")
def reach(o, vel0, omega, acc, alpha, mc, mr, t):
    """(speed, acceleration) bounds of every point of object o from time t on."""
    arm = math.sqrt(mc[o, 0] ** 2 + mc[o, 1] ** 2 + mc[o, 2] ** 2) + mr[o]
    v0 = vel0[o, 0] + acc[o, 0] * t
    v1 = vel0[o, 1] + acc[o, 1] * t
    v2 = vel0[o, 2] + acc[o, 2] * t
    v = math.sqrt(v0 * v0 + v1 * v1 + v2 * v2)
    w = math.sqrt(omega[o, 0] ** 2 + omega[o, 1] ** 2 + omega[o, 2] ** 2)
    a = math.sqrt(acc[o, 0] ** 2 + acc[o, 1] ** 2 + acc[o, 2] ** 2)
    return v + w * arm, a + alpha[o] * arm


@njit(inline="always")
def pair_motion(fb, cap):
    """What a pair's advancement reads: the start-of-step state and the motion bounds'
    inputs (rot0, trans0, vel0, omega, acc, alpha, mc, mr), and the scratch of the two
    objects' poses at a time into the step (:func:`relative_at`)."""
    rot0, trans0, vel0, omega, acc = kinematics(fb, cap, ROT0, TRANS0, VEL0)
    state = (rot0, trans0, vel0, omega, acc, f1(fb, cap, ALPHA), f2(fb, cap, MC, 3),
             f1(fb, cap, MR))  # fmt: skip
    scratch = (np.empty((2, 3, 3)), np.empty((2, 3)), np.empty((2, 3)),
               np.empty((2, 3)), np.empty((2, 3)), np.zeros(2, np.int64), np.arange(2),
               np.empty((3, 3)), np.empty(3))  # fmt: skip
    return state, scratch


@njit(inline="always")
def relative_at(i, j, t, state, scratch):
    """(rel_r, rel_t): object j's model frame into object i's, ``t`` seconds into the
    step, both moved from the start state as the step moves them."""
    rot0, trans0, vel0, omega, acc = state[0], state[1], state[2], state[3], state[4]
    rot, trans, vel, spin, accel, version, both, rel_r, rel_t = scratch
    for s, o in enumerate((i, j)):
        rot[s] = rot0[o]
        trans[s] = trans0[o]
        vel[s] = vel0[o]
        spin[s] = omega[o]
        accel[s] = acc[o]
    if t > 0.0:
        advance(rot, trans, vel, spin, accel, both, t, version)
    relative_into(rot, trans, 0, 1, rel_r, rel_t)
    return rel_r, rel_t


@njit(inline="always")
def advanced(i, j, t, lower, state):
    """``t`` plus the least time objects i and j need to close a gap ``lower``, by the
    bounds on their points' speeds and accelerations from t on."""
    _, _, vel0, omega, acc, alpha, mc, mr = state
    si, ai = reach(i, vel0, omega, acc, alpha, mc, mr, t)
    sj, aj = reach(j, vel0, omega, acc, alpha, mc, mr, t)
    return t + time_to_close(lower, si + sj, ai + aj)


@njit(cache=True, nogil=True)
def mesh_contact_time(i, j, fb, ib, cap, tf, ti, meta, dt):
    """First time in [0, dt] meshes i and j (OBB trees) come within CONTACT_TOL of
    each other, from the step's start state: (time, slot of i, slot of j), or
    (inf, -1, -1) when they stay apart through the step."""
    state, scratch = pair_motion(fb, cap)
    tree = i1(ib, cap, TREE)
    ta, tb = tree[i], tree[j]
    a0, a1, a2 = obb_parts(tf, meta, ta)
    b0, b1, b2 = obb_parts(tf, meta, tb)
    a_first, a_count, a_tris, a_sbox = tree_walk_arrays(tf, ti, meta, ta)
    b_first, b_count, b_tris, _ = tree_walk_arrays(tf, ti, meta, tb)
    wide_a, wide_b = wide_part_of(tf, meta, ta), wide_part_of(tf, meta, tb)
    depth = meta[ta, M_DEPTH] + meta[tb, M_DEPTH] + 4
    mr = state[7]
    tol = CONTACT_TOL * (mr[i] + mr[j])
    out_f = np.empty(6)
    out_i = np.empty(2, np.intp)
    heap_f = np.empty(heap_size(depth))  # the walks' scratch, kept between steps
    heap_i = np.empty(len(heap_f), np.int64)
    t = 0.0
    for _ in range(MAX_STEPS):
        rel_r, rel_t = relative_at(i, j, t, state, scratch)
        d = mesh_distance_wide(
            a0, a1, a2, a_first, a_count, a_tris, a_sbox, wide_a,
            b0, b1, b2, b_first, b_count, b_tris, wide_b,
            rel_r, rel_t, depth, np.inf, RTOL, 0.0, out_f, out_i, heap_f, heap_i,
        )  # fmt: skip
        if out_i[0] < 0:  # an empty mesh: never touches
            return np.inf, -1, -1
        lower = d / (1.0 + RTOL)
        if lower <= tol:
            return t, out_i[0], out_i[1]
        t = advanced(i, j, t, lower, state)
        if not t <= dt:
            return np.inf, -1, -1
    return t, out_i[0], out_i[1]
