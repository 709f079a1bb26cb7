"""One compiled step of a Scene (SPEC §9, seed 003): motion, world bounds, broad phase,
pretreatment and sleep schedule, per-object volumes and the narrow phase, in one call.

The scene's state lives in a few flat buffers, so a step costs one Python-to-numba call
with seven array arguments (each argument costs numba about 0.07 µs to unbox):

- ``fbuf``: the per-object float tables, field after field (``F_FIELDS``), each a
  C-contiguous block of ``cap`` rows; ``ibuf`` the int tables (``I_FIELDS``).
- ``tree_f``, ``tree_i``: every mesh's OBB tree and model vertices, concatenated;
  ``tree_i`` starts with the number of trees T and a (T, M_COLS) table of each tree's
  sizes and offsets (``M_*``). OBB trees only (the fastest kind tree against tree), so
  the step compiles once, whatever trees the meshes were given.
- ``mem_i``: what a pair carries from one step to the next, double-buffered and
  sorted by pair key ``i << 32 | j``: its sleep (wake-up time, the two objects'
  epochs) and its witness (the triangle pair that crossed last step); column 5 holds
  the wake-up time's float64 bits.
- ``ctl``: sizes, capacities, counts out, and the id lists (``C_*``).
- ``out_i``: the touching pairs, their triangle pairs and offsets, and the trace.

A step that finds a buffer too small writes what it needs into ``ctl`` and returns -1
before it changes any state but poses and bounds; the second call, flagged as moved
already, leaves them as they are.
"""

import math
from collections import namedtuple

import numpy as np
from numba import njit

from hitbox._kernels.bv import _AXES, overlap
from hitbox._kernels.collide import (
    _leaf_pair,
    _pose,
    overlap_xf,
    posed_bv,
    query_slack,
    size,
    skew_widening,
    stack_rows,
    turns,
)
from hitbox._kernels.contact_time import first_contact
from hitbox._kernels.mixed import (
    aabb_kdop,
    aabb_obb,
    kdop_obb,
    sphere_aabb,
    sphere_kdop,
    sphere_obb,
)
from hitbox._kernels.obb import obb_overlap
from hitbox._kernels.pipeline import (
    AABB,
    ASLEEP,
    CANDIDATE,
    FAR,
    FILTERED,
    KDOP14,
    KDOP18,
    OBB,
    PAD,
    SCHEDULED,
    SPHERE,
    WAKE_SAFETY,
    _verdict,
    advance,
    time_to_close,
    triangle_box,
    triangle_sphere,
    world_bounds,
)
from hitbox._kernels.slabs import slab_overlap
from hitbox._kernels.sphere import sphere_overlap
from hitbox._kernels.triangle import load, load_xf, tri_tri_overlap

#: Per-object float fields (name, row shape), in buffer order.
F_FIELDS = (
    ("rot", (3, 3)), ("trans", (3,)), ("vel", (3,)), ("omega", (3,)), ("acc", (3,)),
    ("alpha", ()), ("mc", (3,)), ("mr", ()), ("mbox", (2, 3)), ("wc", (3,)), ("wr", ()),
    ("wbox", (2, 3)), ("gbox", (2, 3)), ("sc", (3,)), ("sr", ()), ("sh", (3,)),
    ("sq", (3, 3)), ("vbox", (2, 3)), ("vkd14", (2, 7)), ("vkd18", (2, 9)),
    ("vkd26", (2, 13)), ("vsc", (3,)), ("vsr", ()), ("voc", (3,)), ("voh", (3,)),
    ("vor", (3, 3)), ("rot0", (3, 3)), ("trans0", (3,)), ("vel0", (3,)),
)  # fmt: skip
#: Per-object int fields, in buffer order (group and mask hold uint64 bits).
I_FIELDS = ("static", "is_mesh", "vkind", "group", "mask", "epoch", "version",
            "bounds_version", "vol_version", "tree")  # fmt: skip

# Column offsets of the float fields (a field's block starts at cap * offset).
ROT, TRANS, VEL, OMEGA, ACC, ALPHA, MC, MR, MBOX, WC, WR = (
    0,
    9,
    12,
    15,
    18,
    21,
    22,
    25,
    26,
    32,
    35,
)
WBOX, GBOX, SC, SR, SH, SQ, VBOX, VKD14, VKD18, VKD26 = (
    36,
    42,
    48,
    51,
    52,
    55,
    64,
    70,
    84,
    102,
)
VSC, VSR, VOC, VOH, VOR, ROT0, TRANS0, VEL0, NF = (
    128,
    131,
    132,
    135,
    138,
    147,
    156,
    159,
    162,
)
# Int fields.
STATIC, IS_MESH, VKIND, GROUP, MASK, EPOCH, VERSION, BVER, VOLVER, TREE, NI = range(11)

#: Columns of the tree table: sizes, then offsets into tree_f and tree_i.
M_NODES, M_SLOTS, M_VERTS, M_DEPTH = 0, 1, 2, 3
M_BV0, M_BV1, M_BV2, M_NBOX, M_TRIS, M_SBOX, M_VERT, M_MAG = 5, 6, 7, 8, 9, 10, 11, 12
M_FIRST, M_COUNT, M_ORDER, M_PARENT, M_LEAF, M_COLS = 13, 14, 15, 16, 17, 18

#: ``ctl`` layout: buffer state, capacities, counts, needs, then the id lists.
C_CUR, C_MEM_N, C_MEM_CAP, C_PAIR_CAP, C_TRI_CAP, C_TRACE_CAP = 0, 1, 2, 3, 4, 5
C_COUNTS = 8  # 6 verdict counts (pipeline.FILTERED..CANDIDATE) from here
C_NEAR, C_VOL, C_VOL_PASSED, C_NARROW, C_HITS, C_TRIS = 14, 15, 16, 17, 18, 19
C_TRACE_NEAR, C_TRACE_VOL, C_TRACE_NARROW = 20, 21, 22
C_NEED_MEM, C_NEED_PAIRS, C_NEED_TRIS, C_NEED_TRACE, C_HORIZON = 24, 25, 26, 27, 28
C_N_DYN, C_N_STAT, C_N_MOVING, C_N_ORDER, C_LISTS = 32, 33, 34, 35, 40

#: Broad-phase methods: every dynamic pair, or sort-and-sweep on x with a kept order.
BRUTE, SAP = 0, 1

_Spheres = namedtuple("_Spheres", ["center", "radius"])
_OBBs = namedtuple("_OBBs", ["center", "half", "rot"])

# k-DOP directions of each volume kind, rows of bv._AXES (as hitbox.kdop.AXES).
_AX14 = np.ascontiguousarray(_AXES[:7])
_AX18 = np.ascontiguousarray(_AXES[np.array([0, 1, 2, 7, 8, 9, 10, 11, 12])])
_AX26 = np.ascontiguousarray(_AXES)


# -- views of the flat buffers -----------------------------------------------------------


@njit(inline="always")
def _f1(fb, cap, off):
    return fb[cap * off : cap * (off + 1)]


@njit(inline="always")
def _f2(fb, cap, off, n):
    return fb[cap * off : cap * (off + n)].reshape((cap, n))


@njit(inline="always")
def _f3(fb, cap, off, r, c):
    return fb[cap * off : cap * (off + r * c)].reshape((cap, r, c))


@njit(inline="always")
def _i1(ib, cap, off):
    return ib[cap * off : cap * (off + 1)]


@njit(inline="always")
def _obb_parts(tf, meta, t):
    """Tree t's OBB node table as collide.node_parts gives it: centre, half, rot."""
    m = meta[t, M_NODES]
    a, b, c = meta[t, M_BV0], meta[t, M_BV1], meta[t, M_BV2]
    return (
        tf[a : a + 3 * m].reshape((m, 3)),
        tf[b : b + 3 * m].reshape((m, 3)),
        tf[c : c + 9 * m].reshape((m, 3, 3)),
    )


@njit(inline="always")
def _tree_arrays(tf, ti, meta, t):
    """Tree t's node_first, node_count, slot triangles (S, 3, 3), slot boxes
    (S, 2, 3), node boxes (M, 2, 3) and prim_order."""
    m = meta[t, M_NODES]
    s = meta[t, M_SLOTS]
    f, c, o = meta[t, M_FIRST], meta[t, M_COUNT], meta[t, M_ORDER]
    tr, sb, nb = meta[t, M_TRIS], meta[t, M_SBOX], meta[t, M_NBOX]
    return (
        ti[f : f + m],
        ti[c : c + m],
        tf[tr : tr + 9 * s].reshape((s, 3, 3)),
        tf[sb : sb + 6 * s].reshape((s, 2, 3)),
        tf[nb : nb + 6 * m].reshape((m, 2, 3)),
        ti[o : o + s],
    )


# -- the pair memory ---------------------------------------------------------------------


@njit(inline="always")
def _remember(mem_i, mem_f, nxt, n, key, epoch, i, j, wit_a, wit_b, wake):
    """Row n of the next memory: pair (i, j)'s epochs, witness and wake-up time."""
    mem_i[nxt, n, 0] = key
    mem_i[nxt, n, 1] = epoch[i]
    mem_i[nxt, n, 2] = epoch[j]
    mem_i[nxt, n, 3] = wit_a
    mem_i[nxt, n, 4] = wit_b
    mem_f[nxt, n, 5] = wake
    return n + 1


@njit(inline="always")
def _find_key(mem_i, cur, n, key):
    """Row of ``key`` in the current memory (sorted on column 0), or -1."""
    lo = 0
    hi = n
    while lo < hi:
        mid = (lo + hi) // 2
        if mem_i[cur, mid, 0] < key:
            lo = mid + 1
        else:
            hi = mid
    if lo < n and mem_i[cur, lo, 0] == key:
        return lo
    return -1


# -- broad phase -------------------------------------------------------------------------


@njit(inline="always")
def _push_key(keys, n, i, j):
    if n == len(keys):
        grown = np.empty(2 * len(keys) + 16, np.int64)
        grown[:n] = keys[:n]
        keys = grown
    keys[n] = (min(i, j) << 32) | max(i, j)
    return keys, n + 1


@njit(cache=True, nogil=True)
def near_keys(method, ctl, static, gbox):
    """Sorted keys of the dynamic-dynamic and dynamic-static pairs whose grown world
    boxes meet (closed). ``SAP`` keeps its order (``ctl``'s order list) from step to
    step: insertion sort on the boxes' lower x is linear when little moved."""
    n_dyn = ctl[C_N_DYN]
    n_stat = ctl[C_N_STAT]
    dyn = ctl[C_LISTS : C_LISTS + n_dyn]
    keys = np.empty(16, np.int64)
    n = 0
    if method == BRUTE:
        stat = ctl[C_LISTS + n_dyn : C_LISTS + n_dyn + n_stat]
        for a in range(n_dyn):
            i = dyn[a]
            for b in range(a + 1, n_dyn):
                if slab_overlap(gbox, i, gbox, dyn[b]):
                    keys, n = _push_key(keys, n, i, dyn[b])
            for b in range(n_stat):
                if slab_overlap(gbox, i, gbox, stat[b]):
                    keys, n = _push_key(keys, n, i, stat[b])
    else:
        start = C_LISTS + n_dyn + n_stat + ctl[C_N_MOVING]
        order = ctl[start : start + ctl[C_N_ORDER]]
        for a in range(1, len(order)):  # insertion sort on lo x
            o = order[a]
            x = gbox[o, 0, 0]
            b = a - 1
            while b >= 0 and gbox[order[b], 0, 0] > x:
                order[b + 1] = order[b]
                b -= 1
            order[b + 1] = o
        for a in range(len(order)):
            i = order[a]
            hi = gbox[i, 1, 0]
            for b in range(a + 1, len(order)):
                j = order[b]
                if gbox[j, 0, 0] > hi:
                    break
                if static[i] and static[j]:
                    continue
                if slab_overlap(gbox, i, gbox, j):
                    keys, n = _push_key(keys, n, i, j)
    out = keys[:n]
    for q in range(1, n):  # sort only when out of order (few pairs usually are not)
        if out[q - 1] > out[q]:
            out.sort()
            break
    return out


# -- per-object volumes ------------------------------------------------------------------


@njit(inline="always")
def _slab_table(kind, vbox, vkd14, vkd18, vkd26):
    if kind == AABB:
        return vbox
    if kind == KDOP14:
        return vkd14
    if kind == KDOP18:
        return vkd18
    return vkd26


@njit(inline="always")
def _slab_axes(kind):
    if kind == KDOP14:
        return _AX14
    if kind == KDOP18:
        return _AX18
    return _AX26


@njit(cache=True, nogil=True)
def _refit(verts, rot, trans, o, axes, out):
    """Slabs of object o's moved vertices along ``axes``, widened by PAD
    (pipeline.refit_slabs, in place on row o)."""
    n_slabs = axes.shape[0]
    for k in range(n_slabs):
        out[o, 0, k] = np.inf
        out[o, 1, k] = -np.inf
    for v in range(len(verts)):
        x, y, z = verts[v, 0], verts[v, 1], verts[v, 2]
        px = trans[o, 0] + rot[o, 0, 0] * x + rot[o, 0, 1] * y + rot[o, 0, 2] * z
        py = trans[o, 1] + rot[o, 1, 0] * x + rot[o, 1, 1] * y + rot[o, 1, 2] * z
        pz = trans[o, 2] + rot[o, 2, 0] * x + rot[o, 2, 1] * y + rot[o, 2, 2] * z
        for k in range(n_slabs):
            p = axes[k, 0] * px + axes[k, 1] * py + axes[k, 2] * pz
            out[o, 0, k] = min(out[o, 0, k], p)
            out[o, 1, k] = max(out[o, 1, k], p)
    for k in range(n_slabs):
        pad = PAD * (abs(out[o, 0, k]) + abs(out[o, 1, k]))
        out[o, 0, k] -= pad
        out[o, 1, k] += pad


@njit(cache=True, nogil=True)
def _fresh_volume(o, fb, ib, cap, tf, meta):
    """Bring object o's world volume up to its pose (pipeline.world_volumes' rule)."""
    version = _i1(ib, cap, VERSION)
    vol_version = _i1(ib, cap, VOLVER)
    if vol_version[o] == version[o]:
        return
    vol_version[o] = version[o]
    kind = _i1(ib, cap, VKIND)[o]
    is_mesh = _i1(ib, cap, IS_MESH)[o] != 0
    rot = _f3(fb, cap, ROT, 3, 3)
    trans = _f2(fb, cap, TRANS, 3)
    if kind != SPHERE and kind != OBB:
        t = _i1(ib, cap, TREE)[o]
        nv = meta[t, M_VERTS]
        vo = meta[t, M_VERT]
        verts = tf[vo : vo + 3 * nv].reshape((nv, 3))
        if kind == AABB:
            _refit(verts, rot, trans, o, _AX26[:3], _f3(fb, cap, VBOX, 2, 3))
        elif kind == KDOP14:
            _refit(verts, rot, trans, o, _AX14, _f3(fb, cap, VKD14, 2, 7))
        elif kind == KDOP18:
            _refit(verts, rot, trans, o, _AX18, _f3(fb, cap, VKD18, 2, 9))
        else:
            _refit(verts, rot, trans, o, _AX26, _f3(fb, cap, VKD26, 2, 13))
        return
    sc = _f2(fb, cap, SC, 3)
    vsc = _f2(fb, cap, VSC, 3)
    if kind == SPHERE and is_mesh:
        wc = _f2(fb, cap, WC, 3)
        for r in range(3):
            vsc[o, r] = wc[o, r]
        _f1(fb, cap, VSR)[o] = _f1(fb, cap, WR)[o]
        return
    voc = _f2(fb, cap, VOC, 3)
    mag = 0.0
    for r in range(3):
        x = trans[o, r] + rot[o, r, 0] * sc[o, 0] + rot[o, r, 1] * sc[o, 1]
        x = x + rot[o, r, 2] * sc[o, 2]
        mag = max(mag, abs(x))
        if kind == SPHERE:
            vsc[o, r] = x
        else:
            voc[o, r] = x
    if kind == SPHERE:
        _f1(fb, cap, VSR)[o] = _f1(fb, cap, SR)[o]
        return
    sq = _f3(fb, cap, SQ, 3, 3)
    sh = _f2(fb, cap, SH, 3)
    vor = _f3(fb, cap, VOR, 3, 3)
    voh = _f2(fb, cap, VOH, 3)
    for r in range(3):
        for c in range(3):
            vor[o, r, c] = (
                rot[o, r, 0] * sq[o, 0, c]
                + rot[o, r, 1] * sq[o, 1, c]
                + rot[o, r, 2] * sq[o, 2, c]
            )
    pad = PAD * (mag + sh[o, 0] + sh[o, 1] + sh[o, 2]) if is_mesh else 0.0
    for r in range(3):
        voh[o, r] = sh[o, r] + pad


@njit(cache=True, nogil=True)
def _volumes_meet(i, j, fb, ib, cap):
    """The per-object volume test of pair (i, j): exact or conservative by kinds
    (the Scene's former per-kind filters, one pair at a time)."""
    vkind = _i1(ib, cap, VKIND)
    if vkind[i] > vkind[j]:
        i, j = j, i
    ka, kb = vkind[i], vkind[j]
    sph = _Spheres(_f2(fb, cap, VSC, 3), _f1(fb, cap, VSR))
    obbs = _OBBs(_f2(fb, cap, VOC, 3), _f2(fb, cap, VOH, 3), _f3(fb, cap, VOR, 3, 3))
    vbox = _f3(fb, cap, VBOX, 2, 3)
    vkd14 = _f3(fb, cap, VKD14, 2, 7)
    vkd18 = _f3(fb, cap, VKD18, 2, 9)
    vkd26 = _f3(fb, cap, VKD26, 2, 13)
    if ka == SPHERE:
        if kb == SPHERE:
            return sphere_overlap(sph, i, sph, j)
        if kb == AABB:
            return sphere_aabb(sph, i, vbox, j)
        if kb == OBB:
            return sphere_obb(sph, i, obbs, j)
        return sphere_kdop(
            sph, i, _slab_table(kb, vbox, vkd14, vkd18, vkd26), j, _slab_axes(kb)
        )
    if kb == OBB:
        if ka == OBB:
            return obb_overlap(obbs, i, obbs, j)
        if ka == AABB:
            return aabb_obb(vbox, i, obbs, j)
        return kdop_obb(
            _slab_table(ka, vbox, vkd14, vkd18, vkd26), i, obbs, j, _slab_axes(ka)
        )
    if ka == AABB and kb != AABB:
        return aabb_kdop(
            vbox, i, _slab_table(kb, vbox, vkd14, vkd18, vkd26), j, _slab_axes(kb)
        )
    ta = _slab_table(ka, vbox, vkd14, vkd18, vkd26)
    tb = _slab_table(kb, vbox, vkd14, vkd18, vkd26)
    n_slabs = ta.shape[2] if ka == kb else 3
    for k in range(n_slabs):
        if max(ta[i, 0, k], tb[j, 0, k]) > min(ta[i, 1, k], tb[j, 1, k]):
            return False
    return True


# -- narrow phase ------------------------------------------------------------------------


@njit(inline="always")
def relative_into(rot, trans, i, j, r_out, t_out):
    """(r_out, t_out): the rigid map from object j's model frame into object i's,
    inverse(pose_i) @ pose_j, summed as pipeline.relative."""
    d0 = trans[j, 0] - trans[i, 0]
    d1 = trans[j, 1] - trans[i, 1]
    d2 = trans[j, 2] - trans[i, 2]
    for r in range(3):
        for c in range(3):
            r_out[r, c] = (
                rot[i, 0, r] * rot[j, 0, c]
                + rot[i, 1, r] * rot[j, 1, c]
                + (rot[i, 2, r] * rot[j, 2, c])
            )
        t_out[r] = rot[i, 0, r] * d0 + rot[i, 1, r] * d1 + rot[i, 2, r] * d2


@njit(inline="always")
def _sorted_face_pairs(fa, fb, n, order_a, order_b):
    """Slot pairs (fa, fb)[:n] as face pairs sorted by (row 0, row 1): (2, n)."""
    keys = np.empty(n, np.int64)
    wide = np.int64(len(order_b))
    for q in range(n):
        keys[q] = order_a[fa[q]] * wide + order_b[fb[q]]
    keys.sort()
    out = np.empty((2, n), np.int64)
    for q in range(n):
        out[0, q] = keys[q] // wide
        out[1, q] = keys[q] % wide
    return out


@njit(cache=True, nogil=True)
def _mesh_volume(m, w, fb, ib, cap, tf, ti, meta, first_only, rel_r, rel_t, stack):
    """Mesh object m against plain volume w, in m's frame: the touching faces of m,
    sorted (at most one with ``first_only``)."""
    rot = _f3(fb, cap, ROT, 3, 3)
    trans = _f2(fb, cap, TRANS, 3)
    relative_into(rot, trans, m, w, rel_r, rel_t)
    sc = _f2(fb, cap, SC, 3)
    center = np.empty((1, 3))
    for r in range(3):
        center[0, r] = (
            rel_r[r, 0] * sc[w, 0] + rel_r[r, 1] * sc[w, 1] + rel_r[r, 2] * sc[w, 2]
        ) + rel_t[r]
    is_sphere = _i1(ib, cap, VKIND)[w] == SPHERE
    radius = np.full(1, _f1(fb, cap, SR)[w])
    half = np.empty((1, 3))
    brot = np.empty((1, 3, 3))
    sq = _f3(fb, cap, SQ, 3, 3)
    sh = _f2(fb, cap, SH, 3)
    for r in range(3):
        half[0, r] = sh[w, r]
        for c in range(3):
            brot[0, r, c] = (
                rel_r[r, 0] * sq[w, 0, c]
                + rel_r[r, 1] * sq[w, 1, c]
                + rel_r[r, 2] * sq[w, 2, c]
            )
    ball = _Spheres(center, radius)
    box = _OBBs(center, half, brot)
    t = _i1(ib, cap, TREE)[m]
    first, count, tris, sbox, nbox, order = _tree_arrays(tf, ti, meta, t)
    found = np.empty(16, np.int64)
    n = 0
    if len(first) == 0:
        return found[:0]
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        k = stack[top]
        hit = overlap(nbox, k, ball, 0) if is_sphere else overlap(nbox, k, box, 0)
        if not hit:
            continue
        f = first[k]
        c = count[k]
        if c == 0:
            stack[top] = f + 1
            stack[top + 1] = f
            top += 2
            continue
        for s in range(f, f + c):
            near = overlap(sbox, s, ball, 0) if is_sphere else overlap(sbox, s, box, 0)
            if not near:
                continue
            if is_sphere:
                touch = triangle_sphere(
                    tris, s, center[0, 0], center[0, 1], center[0, 2], radius[0]
                )
            else:
                touch = _triangle_in_box(tris, s, center, half, brot)
            if touch:
                if n == len(found):
                    grown = np.empty(2 * n, np.int64)
                    grown[:n] = found[:n]
                    found = grown
                found[n] = order[s]
                n += 1
                if first_only:
                    return found[:n]
    out = found[:n]
    out.sort()
    return out


@njit(inline="always")
def _triangle_in_box(tris, s, center, half, rot):
    """Slot s's triangle against the oriented box, in the box's frame
    (pipeline.triangles_box for one face)."""
    v = np.empty((3, 3))
    for k in range(3):
        dx = tris[s, k, 0] - center[0, 0]
        dy = tris[s, k, 1] - center[0, 1]
        dz = tris[s, k, 2] - center[0, 2]
        for a in range(3):
            v[k, a] = rot[0, 0, a] * dx + rot[0, 1, a] * dy + rot[0, 2, a] * dz
    return triangle_box(
        (v[0, 0], v[0, 1], v[0, 2]),
        (v[1, 0], v[1, 1], v[1, 2]),
        (v[2, 0], v[2, 1], v[2, 2]),
        half[0, 0],
        half[0, 1],
        half[0, 2],
    )


#: Levels above a witness's leaves where the next step's search starts.
LOCAL_LEVELS = 3


@njit(inline="always")
def _ancestor(ti, meta, t, slot):
    """The node LOCAL_LEVELS above the leaf holding ``slot`` in tree t."""
    leaf = ti[meta[t, M_LEAF] + slot]
    parent = meta[t, M_PARENT]
    node = leaf
    for _ in range(LOCAL_LEVELS):
        if node == 0:
            break
        node = ti[parent + node]
    return node


@njit(cache=True, nogil=True)
def _local_walk(
    a_bv, a_first, a_count, a_tris, a_sbox, b_bv, b_first, b_count, b_tris, b_sbox,
    rot, trans, slack, start_a, start_b, rows,
):  # fmt: skip
    """The first crossing slot pair below node pair (start_a, start_b), by the OBB
    walk's own rules (collide._descend: split the larger node): (found, slot a,
    slot b)."""
    turned = turns(rot)
    widen = skew_widening(rot)
    stack = np.empty((rows, 2), np.intp)
    out = np.empty((2, 4), np.intp)
    stack[0, 0] = start_a
    stack[0, 1] = start_b
    top = 1
    while top > 0:
        top -= 1
        m = stack[top, 0]
        k = stack[top, 1]
        if not overlap_xf(a_bv, m, b_bv, k, rot, trans, turned, widen, slack):
            continue
        ca = a_count[m]
        cb = b_count[k]
        if ca > 0 and cb > 0:
            out, n, done = _leaf_pair(
                a_tris, a_sbox, a_first[m], ca, b_tris, b_first[k], cb, rot, trans,
                True, out, 0,
            )  # fmt: skip
            if done:
                return 1, out[0, 0], out[1, 0]
            continue
        if cb == 0 and (ca > 0 or size(b_bv, k) > size(a_bv, m)):
            f = b_first[k]
            stack[top, 0] = m
            stack[top, 1] = f + 1
            stack[top + 1, 0] = m
            stack[top + 1, 1] = f
        else:
            f = a_first[m]
            stack[top, 0] = f + 1
            stack[top, 1] = k
            stack[top + 1, 0] = f
            stack[top + 1, 1] = k
        top += 2
    return 0, -1, -1


@njit(cache=True, nogil=True)
def _mesh_mesh(i, j, fb, cap, ib, tf, ti, meta, first_only, wit, rel_r, rel_t, buf):
    """Mesh i against mesh j: (n crossing slot pairs in buf[:, :n], buf). With
    ``first_only``, the witness slot pair ``wit`` (from the last step) is tested
    first and settles the pair when it still crosses; then the subtrees around it
    (:func:`_local_walk`); then the whole trees."""
    rot = _f3(fb, cap, ROT, 3, 3)
    trans = _f2(fb, cap, TRANS, 3)
    relative_into(rot, trans, i, j, rel_r, rel_t)
    tree = _i1(ib, cap, TREE)
    ta, tb = tree[i], tree[j]
    a_first, a_count, a_tris, a_sbox, _, _ = _tree_arrays(tf, ti, meta, ta)
    b_first, b_count, b_tris, b_sbox, _, _ = _tree_arrays(tf, ti, meta, tb)
    if len(a_first) == 0 or len(b_first) == 0:
        return 0, buf
    if first_only and wit[0] >= 0:
        p0, p1, p2 = load(a_tris, wit[0])
        q0, q1, q2 = load_xf(b_tris, wit[1], rel_r, rel_t)
        if tri_tri_overlap(p0, p1, p2, q0, q1, q2):
            buf[0, 0] = wit[0]
            buf[1, 0] = wit[1]
            return 1, buf
    a0, a1, a2 = _obb_parts(tf, meta, ta)
    b0, b1, b2 = _obb_parts(tf, meta, tb)
    if first_only and wit[0] >= 0:
        # the crossing moves little between steps: walk the subtrees a few levels
        # above the witness's leaves first (Lin & Canny's coherence, by node pairs)
        n, sa, sb = _local_walk(
            posed_bv(a0, a1, a2, rel_r), a_first, a_count, a_tris, a_sbox,
            posed_bv(b0, b1, b2, rel_r), b_first, b_count, b_tris, b_sbox,
            rel_r, rel_t, query_slack(rel_t, tf[meta[ta, M_MAG]], tf[meta[tb, M_MAG]]),
            _ancestor(ti, meta, ta, wit[0]), _ancestor(ti, meta, tb, wit[1]),
            stack_rows(meta[ta, M_DEPTH], meta[tb, M_DEPTH]),
        )  # fmt: skip
        if n > 0:
            buf[0, 0] = sa
            buf[1, 0] = sb
            return 1, buf
    # the walk TriangleMesh.intersect_many runs (read-only views of the registry type
    # as the meshes' own arrays)
    out, n = _pose(
        a0, a1, a2, a_first, a_count, a_tris, a_sbox, tf[meta[ta, M_MAG]],
        b0, b1, b2, b_first, b_count, b_tris, b_sbox, tf[meta[tb, M_MAG]],
        rel_r, rel_t, first_only, stack_rows(meta[ta, M_DEPTH], meta[tb, M_DEPTH]), 16,
    )  # fmt: skip
    return n, out


@njit(inline="always")
def _motion_state(o, fb, ib, cap):
    """Object o's start of step, motion and plain shape as contact_time's (12, 3)
    state, and its kind there (0 sphere, 1 box)."""
    st = np.zeros((12, 3))
    rot0 = _f3(fb, cap, ROT0, 3, 3)
    trans0 = _f2(fb, cap, TRANS0, 3)
    vel0 = _f2(fb, cap, VEL0, 3)
    omega = _f2(fb, cap, OMEGA, 3)
    acc = _f2(fb, cap, ACC, 3)
    sc = _f2(fb, cap, SC, 3)
    sh = _f2(fb, cap, SH, 3)
    sq = _f3(fb, cap, SQ, 3, 3)
    for r in range(3):
        st[r] = rot0[o, r]
        st[3, r] = trans0[o, r]
        st[4, r] = vel0[o, r]
        st[5, r] = omega[o, r]
        st[6, r] = acc[o, r]
        st[7, r] = sc[o, r]
    if _i1(ib, cap, VKIND)[o] == SPHERE:
        st[8, 0] = _f1(fb, cap, SR)[o]
        return 0, st
    for r in range(3):
        st[8, r] = sh[o, r]
        for c in range(3):
            st[9 + r, c] = sq[o, r, c]  # rows 9..11: the model rotation
    return 1, st


@njit(inline="always")
def _start_of_step(fb, cap, ids):
    """Keep every object's pose and velocity before the motion (continuous mode)."""
    rot = _f3(fb, cap, ROT, 3, 3)
    trans = _f2(fb, cap, TRANS, 3)
    vel = _f2(fb, cap, VEL, 3)
    rot0 = _f3(fb, cap, ROT0, 3, 3)
    trans0 = _f2(fb, cap, TRANS0, 3)
    vel0 = _f2(fb, cap, VEL0, 3)
    for o in ids:
        for r in range(3):
            trans0[o, r] = trans[o, r]
            vel0[o, r] = vel[o, r]
            for c in range(3):
                rot0[o, r, c] = rot[o, r, c]


@njit(inline="always")
def _sweep_boxes(fb, cap, moving, dt):
    """Grow each moving object's grown world box by how far any of its points can go
    in the step, so the sweep sees every pair that can meet within it."""
    gbox = _f3(fb, cap, GBOX, 2, 3)
    vel0 = _f2(fb, cap, VEL0, 3)
    omega = _f2(fb, cap, OMEGA, 3)
    acc = _f2(fb, cap, ACC, 3)
    mc = _f2(fb, cap, MC, 3)
    mr = _f1(fb, cap, MR)
    for o in moving:
        arm = math.sqrt(mc[o, 0] ** 2 + mc[o, 1] ** 2 + mc[o, 2] ** 2) + mr[o]
        v = math.sqrt(vel0[o, 0] ** 2 + vel0[o, 1] ** 2 + vel0[o, 2] ** 2)
        a = math.sqrt(acc[o, 0] ** 2 + acc[o, 1] ** 2 + acc[o, 2] ** 2)
        w = math.sqrt(omega[o, 0] ** 2 + omega[o, 1] ** 2 + omega[o, 2] ** 2)
        reach = (v + a * dt + w * arm) * dt
        reach += PAD * (reach + abs(gbox[o, 0, 0]) + abs(gbox[o, 1, 0]))
        for r in range(3):
            gbox[o, 0, r] -= reach
            gbox[o, 1, r] += reach


@njit(cache=True, nogil=True)
def _narrow_pair(
    i, j, key, fb, ib, cap, tf, ti, meta, mem_i, cur, n_mem, first_only, swept, dt,
    tris_out, n_tris,
):  # fmt: skip
    """The exact test of one candidate pair: (touching primitive pairs m (1 for two
    plain volumes), contact time (dt unless swept), witness slot pair or -1, -1).
    Writes the pair's triangle pairs at ``tris_out[:, n_tris:]`` where they fit (mode
    all)."""
    is_mesh = _i1(ib, cap, IS_MESH)
    mesh_i = is_mesh[i] != 0
    mesh_j = is_mesh[j] != 0
    cap_t = tris_out.shape[1]
    rel_r = np.empty((3, 3))
    rel_t = np.empty(3)
    if mesh_i and mesh_j:
        wit = np.full(2, -1, np.int64)
        if first_only:
            s = _find_key(mem_i, cur, n_mem, key)
            if s >= 0:
                wit[0] = mem_i[cur, s, 3]
                wit[1] = mem_i[cur, s, 4]
        buf = np.empty((2, 16), np.intp)
        m, buf = _mesh_mesh(
            i, j, fb, cap, ib, tf, ti, meta, first_only, wit, rel_r, rel_t, buf
        )
        if m > 0 and first_only:
            return m, dt, buf[0, 0], buf[1, 0]
        if m > 0 and n_tris + m <= cap_t:
            tree = _i1(ib, cap, TREE)
            _, _, _, _, _, order_a = _tree_arrays(tf, ti, meta, tree[i])
            _, _, _, _, _, order_b = _tree_arrays(tf, ti, meta, tree[j])
            tris_out[:, n_tris : n_tris + m] = _sorted_face_pairs(
                buf[0], buf[1], m, order_a, order_b
            )
        return m, dt, -1, -1
    if mesh_i or mesh_j:
        mo, w = (i, j) if mesh_i else (j, i)
        _fresh_volume(w, fb, ib, cap, tf, meta)
        walk = np.empty(2 * meta[_i1(ib, cap, TREE)[mo], M_DEPTH] + 4, np.intp)
        faces = _mesh_volume(
            mo, w, fb, ib, cap, tf, ti, meta, first_only, rel_r, rel_t, walk
        )
        m = len(faces)
        if m > 0 and not first_only and n_tris + m <= cap_t:
            row = 0 if mesh_i else 1
            tris_out[row, n_tris : n_tris + m] = faces
            tris_out[1 - row, n_tris : n_tris + m] = -1
        return m, dt, -1, -1
    hit_time = dt
    if swept:
        kind_i, state_i = _motion_state(i, fb, ib, cap)
        kind_j, state_j = _motion_state(j, fb, ib, cap)
        hit_time = first_contact(kind_i, state_i, kind_j, state_j, dt)
        m = 1 if hit_time <= dt else 0
    else:
        _fresh_volume(i, fb, ib, cap, tf, meta)
        _fresh_volume(j, fb, ib, cap, tf, meta)
        m = 1 if _volumes_meet(i, j, fb, ib, cap) else 0
    if m > 0 and not first_only and n_tris + 1 <= cap_t:
        tris_out[0, n_tris] = -1
        tris_out[1, n_tris] = -1
    return m, hit_time, -1, -1


@njit(inline="always")
def _far_time(fb, cap, ctl, threshold):
    """Least time in which any pair more than ``threshold`` apart can touch: every
    point of a moving object moves at most |v| + |w| (|mc| + mr), speeding up by at
    most |a| + alpha (|mc| + mr)."""
    start = C_LISTS + ctl[C_N_DYN] + ctl[C_N_STAT]
    vel = _f2(fb, cap, VEL, 3)
    omega = _f2(fb, cap, OMEGA, 3)
    acc = _f2(fb, cap, ACC, 3)
    mc = _f2(fb, cap, MC, 3)
    mr = _f1(fb, cap, MR)
    alpha = _f1(fb, cap, ALPHA)
    speed = 0.0
    accel = 0.0
    for o in ctl[start : start + ctl[C_N_MOVING]]:
        arm = math.sqrt(mc[o, 0] ** 2 + mc[o, 1] ** 2 + mc[o, 2] ** 2) + mr[o]
        v = math.sqrt(vel[o, 0] ** 2 + vel[o, 1] ** 2 + vel[o, 2] ** 2)
        w = math.sqrt(omega[o, 0] ** 2 + omega[o, 1] ** 2 + omega[o, 2] ** 2)
        a = math.sqrt(acc[o, 0] ** 2 + acc[o, 1] ** 2 + acc[o, 2] ** 2)
        speed = max(speed, v + w * arm)
        accel = max(accel, a + alpha[o] * arm)
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


@njit(cache=True, nogil=True)
def step(
    fb, ib, tf, ti, mem_i, ctl, out_i, dt, now, threshold, method, flags,
):  # fmt: skip
    """Advance the moving objects by ``dt`` and find every touching pair (see the
    module doc for the buffers). ``flags``: bit 0 ``all`` (every triangle pair, else
    stop at the first), bit 1 trace, bit 2 continuous (pairs of plain volumes report
    the first time in the step they touch, see contact_time; mesh pairs are tested at
    the end of the step), bit 3 "moved already" (the motion of this step is done).
    Returns the number of touching pairs, or -1 when a buffer is too small
    (``ctl[C_NEED_*]`` say how large; nothing but poses and bounds has changed).
    ``ctl[C_HORIZON]`` gets (float64 bits) the quiet horizon: no pair can touch before
    it (the least wake-up time of the sleeping pairs, and the time the pairs farther
    apart than ``threshold`` need to close it), or -inf when a pair was near enough to
    be tested.

    ``out_i`` holds, at capacities P = ctl[C_PAIR_CAP], T = ctl[C_TRI_CAP] and
    N = ctl[C_TRACE_CAP]: pairs (2, P), offsets (P + 1), contact times (P, float64
    bits: seconds into the step), triangle pairs (2, T), then the trace's near, volume
    and narrow pairs, (2, N) each.
    """
    cap = len(fb) // NF
    meta = ti[1 : 1 + ti[0] * M_COLS].reshape((ti[0], M_COLS))
    mem_f = mem_i.view(np.float64)  # column 5 holds the wake-up times
    first_only = (flags & 1) == 0
    tracing = (flags & 2) != 0
    continuous = (flags & 4) != 0 and dt > 0.0
    moves = (flags & 8) == 0  # a run again after a short buffer has moved already
    n_dyn = ctl[C_N_DYN]
    n_stat = ctl[C_N_STAT]
    n_moving = ctl[C_N_MOVING]
    # each view is a reshape (a call into numba's runtime): made once, here
    rot = _f3(fb, cap, ROT, 3, 3)
    trans = _f2(fb, cap, TRANS, 3)
    vel = _f2(fb, cap, VEL, 3)
    omega = _f2(fb, cap, OMEGA, 3)
    acc = _f2(fb, cap, ACC, 3)
    mc = _f2(fb, cap, MC, 3)
    version = _i1(ib, cap, VERSION)
    if continuous and moves:
        _start_of_step(fb, cap, ctl[C_LISTS : C_LISTS + n_dyn + n_stat])
    if moves and n_moving and dt > 0.0:
        start = C_LISTS + n_dyn + n_stat
        advance(rot, trans, vel, omega, acc, ctl[start : start + n_moving], dt, version)
    wc = _f2(fb, cap, WC, 3)
    wr = _f1(fb, cap, WR)
    wbox = _f3(fb, cap, WBOX, 2, 3)
    gbox = _f3(fb, cap, GBOX, 2, 3)
    world_bounds(
        ctl[C_LISTS : C_LISTS + n_dyn + n_stat], version, _i1(ib, cap, BVER), rot,
        trans, mc, _f1(fb, cap, MR), _f3(fb, cap, MBOX, 2, 3),
        0.5 * threshold, wc, wr, wbox, gbox,
    )  # fmt: skip
    if continuous:
        start = C_LISTS + n_dyn + n_stat
        _sweep_boxes(fb, cap, ctl[start : start + n_moving], dt)
    static = _i1(ib, cap, STATIC)
    keys = near_keys(method, ctl, static, gbox) if n_dyn else np.empty(0, np.int64)
    n_near = len(keys)

    for k in range(C_COUNTS, C_NEED_TRACE + 1):
        ctl[k] = 0
    ctl[C_NEAR] = n_near
    cap_p = ctl[C_PAIR_CAP]
    cap_t = ctl[C_TRI_CAP]
    cap_n = ctl[C_TRACE_CAP]
    if n_near > ctl[C_MEM_CAP] or n_near > cap_p or (tracing and n_near > cap_n):
        ctl[C_NEED_MEM] = n_near
        ctl[C_NEED_PAIRS] = n_near
        ctl[C_NEED_TRACE] = n_near
        return -1
    tri_base = 4 * cap_p + 1
    toi = out_i[3 * cap_p + 1 : 4 * cap_p + 1].view(np.float64)
    trace_base = tri_base + 2 * cap_t

    cur = ctl[C_CUR]
    n_mem = ctl[C_MEM_N]
    nxt = 1 - cur
    group = _i1(ib, cap, GROUP)
    mask = _i1(ib, cap, MASK)
    epoch = _i1(ib, cap, EPOCH)
    is_mesh = _i1(ib, cap, IS_MESH)
    alpha = _f1(fb, cap, ALPHA)
    sched_keys = mem_i[cur, :n_mem, 0]
    sched_wake = mem_f[cur, :n_mem, 5]
    sched_epoch = mem_i[cur, :n_mem, 1:3]
    ignore = ctl[C_LISTS + n_dyn + n_stat + n_moving + ctl[C_N_ORDER] :]
    ignore = ignore[1 : 1 + ignore[0]]
    n_new = 0
    n_hits = 0
    n_tris = 0
    horizon = np.inf  # no pair can touch before this time (the quiet horizon)
    far = False
    tris_out = out_i[tri_base : tri_base + 2 * cap_t].reshape((2, cap_t))
    for q in range(n_near):
        key = keys[q]
        i = key >> 32
        j = key & 0xFFFFFFFF
        if tracing:
            _trace_pair(out_i, ctl, trace_base, 0, i, j)
        v, wake = _verdict(
            i, j, group, mask, ignore, wc, wr, wbox, vel, omega, acc, alpha, mc,
            epoch, sched_keys, sched_wake, sched_epoch, now, threshold,
        )  # fmt: skip
        mesh_i = is_mesh[i] != 0
        mesh_j = is_mesh[j] != 0
        swept = continuous and not (mesh_i or mesh_j) and v != FILTERED and v != ASLEEP
        if swept and v == SCHEDULED:  # sleeps from the end of the step on, as usual
            n_new = _remember(mem_i, mem_f, nxt, n_new, key, epoch, i, j, -1, -1, wake)
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
            n_new = _remember(mem_i, mem_f, nxt, n_new, key, epoch, i, j, -1, -1, wake)
            continue
        if v != CANDIDATE:
            continue
        if mesh_i or mesh_j:
            ctl[C_VOL] += 1
            if tracing:
                _trace_pair(out_i, ctl, trace_base, 1, i, j)
            _fresh_volume(i, fb, ib, cap, tf, meta)
            _fresh_volume(j, fb, ib, cap, tf, meta)
            if not _volumes_meet(i, j, fb, ib, cap):
                continue
            ctl[C_VOL_PASSED] += 1
        ctl[C_NARROW] += 1
        if tracing:
            _trace_pair(out_i, ctl, trace_base, 2, i, j)
        m, hit_time, wit_a, wit_b = _narrow_pair(
            i, j, key, fb, ib, cap, tf, ti, meta, mem_i, cur, n_mem, first_only,
            swept, dt, tris_out, n_tris,
        )  # fmt: skip
        if m > 0 and wit_a >= 0:
            n_new = _remember(
                mem_i, mem_f, nxt, n_new, key, epoch, i, j, wit_a, wit_b, -np.inf
            )
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
    formable = n_dyn * (n_dyn - 1) // 2 + n_dyn * n_stat
    if far or n_near < formable:
        horizon = min(horizon, now + _far_time(fb, cap, ctl, threshold))
    ctl[C_HORIZON:].view(np.float64)[0] = horizon if not continuous else -np.inf
    ctl[C_CUR] = nxt
    ctl[C_MEM_N] = n_new
    return n_hits
