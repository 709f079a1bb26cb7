"""The flat layout of a Scene's state (see :mod:`hitbox._kernels.scene`): which column
of the per-object tables holds what, the tree table's and the control block's slots, and
the views a kernel makes of them."""

from collections import namedtuple

import numpy as np
from numba import njit

from hitbox._kernels.bv import _AXES
from hitbox._kernels.flat_views import blocks, rows
from hitbox._kernels.obb_wide import FIELDS as WIDE_FIELDS
from hitbox._kernels.obb_wide import LANES as WIDE_LANES

WIDE_ROW = WIDE_FIELDS * WIDE_LANES

#: Per-object float fields (name, row shape), in buffer order.
F_FIELDS = (
    ("rot", (3, 3)), ("trans", (3,)), ("vel", (3,)), ("omega", (3,)), ("acc", (3,)),
    ("alpha", ()), ("mc", (3,)), ("mr", ()), ("mbox", (2, 3)), ("wc", (3,)), ("wr", ()),
    ("wbox", (2, 3)), ("gbox", (2, 3)), ("sc", (3,)), ("sr", ()), ("sh", (3,)),
    ("sq", (3, 3)), ("vbox", (2, 3)), ("vkd14", (2, 7)), ("vkd18", (2, 9)),
    ("vkd26", (2, 13)), ("vsc", (3,)), ("vsr", ()), ("voc", (3,)), ("voh", (3,)),
    ("vor", (3, 3)), ("rot0", (3, 3)), ("trans0", (3,)), ("vel0", (3,)),
    ("xc", (3,)), ("xq", (3, 3)), ("xd", (3,)), ("xr", ()), ("xb", ()),
    ("sweep", (8,)),
)  # fmt: skip
#: Per-object int fields, in buffer order (group and mask hold uint64 bits).
I_FIELDS = ("static", "is_mesh", "vkind", "group", "mask", "epoch", "version",
            "bounds_version", "vol_version", "tree", "xkind", "xat", "xn")  # fmt: skip

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
VSC, VSR, VOC, VOH, VOR, ROT0, TRANS0, VEL0 = 128, 131, 132, 135, 138, 147, 156, 159
# A convex object's exact shape (hitbox.convex): its model-frame centre and axes, dims,
# radius and bounding radius (sc, sh, sq hold its bounding box, the object's volume).
XC, XQ, XD, XR, XB = 162, 165, 174, 177, 178
# Scratch rows of the broad phase's sweep (a box, an id and a static flag each).
SWEEP, NF = 179, 187
# Int fields.
STATIC, IS_MESH, VKIND, GROUP, MASK, EPOCH, VERSION, BVER, VOLVER, TREE = range(10)
# A convex object's shape kind (hitbox.convex.KINDS; -1 for the other objects), and
# where its hull's model vertices (XN rows of 3) start in tree_f.
XKIND, XAT, XN, NI = 10, 11, 12, 13

#: Columns of the tree table: sizes, then offsets into tree_f and tree_i.
M_NODES, M_SLOTS, M_VERTS, M_DEPTH = 0, 1, 2, 3
M_BV0, M_BV1, M_BV2, M_NBOX, M_TRIS, M_SBOX, M_VERT, M_MAG = 5, 6, 7, 8, 9, 10, 11, 12
M_FIRST, M_COUNT, M_ORDER, M_ADJ, M_PARENT, M_LEAF, M_WIDE, M_COLS = range(13, 21)

#: ``ctl`` layout: buffer state, capacities, counts, needs, then the id lists.
C_CUR, C_MEM_N, C_MEM_CAP, C_PAIR_CAP, C_TRI_CAP, C_TRACE_CAP = 0, 1, 2, 3, 4, 5
C_COUNTS = 8  # 6 verdict counts (pipeline.FILTERED..CANDIDATE) from here
C_NEAR, C_VOL, C_VOL_PASSED, C_NARROW, C_HITS, C_TRIS = 14, 15, 16, 17, 18, 19
C_TRACE_NEAR, C_TRACE_VOL, C_TRACE_NARROW = 20, 21, 22
C_NEED_MEM, C_NEED_PAIRS, C_NEED_TRIS, C_NEED_TRACE, C_HORIZON = 24, 25, 26, 27, 28
C_NEED_FRONT = 29
C_PENDING = 30  # quiet steps to replay before the step's own motion
#: Columns of a pair's memory row (see the step kernel).
MEM_COLS = 8
#: Scratch floats after the per-object float tables (:func:`objects_split` counts the
#: rows without them): a pair's relative rotation and translation;
#: from S_SHAPES two one-row convex shapes (20 each: rot, trans, dims, radius, bound,
#: then kind, first and count as int64 bits), a pair query's output row (10), its index
#: and hit flag, and a triangle's three vertices (9): a convex pair test allocates
#: nothing (see :func:`shape_rows`); from S_TURN the step's turn and turned pose
#: (2, 3, 3: :func:`turn_scratch`); from S_PENDING the dts of up to PENDING_CAP quiet
#: steps not yet moved (``ctl[C_PENDING]`` of them), which the next step replays (a
#: full queue is replayed from Python: room for a long quiet stretch, 8 KB a scene).
S_SHAPES, S_OUT, S_INDEX, S_HIT, S_TRI, S_TURN, S_PENDING = 12, 52, 62, 63, 64, 73, 91
PENDING_CAP = 1024
SCRATCH_F = S_PENDING + PENDING_CAP
#: From ``C_LISTS`` the id lists: dynamic, static (half-spaces not among them), moving,
#: the sweep's order, the half-spaces (static, never in the broad phase), then the
#: ignore list (its length first).
C_N_DYN, C_N_STAT, C_N_MOVING, C_N_ORDER, C_N_PLANES, C_LISTS = 32, 33, 34, 35, 36, 40

#: The work arena (one int64 array, so a step unboxes one argument for five buffers):
#: a header of (offset, length) pairs of ``ctl``, ``mem_i`` (length: its row
#: capacity), ``front`` (length: its width), ``out_i`` and the step record.
W_CTL, W_MEM, W_FRONT, W_OUT, W_REC, W_HEAD = 0, 2, 4, 6, 8, 10
#: The step record a step leaves for Python to copy in one go: the counts
#: (``C_COUNTS`` to ``C_HITS``), the quiet horizon's float64 bits, then the touching
#: pairs, row 0 then row 1 (2 n).
R_HORIZON, R_PAIRS = 11, 12
#: Room for a mesh pair's crossing slot pairs in the step's scratch (a pair with more
#: grows an array of its own for the rest of the step).
CROSS_ROOM = 16
#: Added to a step's return value when its fronts did not fit (``C_NEED_FRONT``).
FRONT_FLAG = 1 << 40

#: Broad-phase methods: every dynamic pair, or sort-and-sweep on x with a kept order.
BRUTE, SAP = 0, 1

SphereSet = namedtuple("SphereSet", ["center", "radius"])
OBBSet = namedtuple("OBBSet", ["center", "half", "rot"])

# k-DOP directions of each volume kind, rows of bv._AXES (as hitbox.kdop.AXES).
AX14 = np.ascontiguousarray(_AXES[:7])
AX18 = np.ascontiguousarray(_AXES[np.array([0, 1, 2, 7, 8, 9, 10, 11, 12])])
AX26 = np.ascontiguousarray(_AXES)


# -- views of the flat buffers -----------------------------------------------------------


@njit(inline="always")
def f1(fb, cap, off):
    return fb[cap * off : cap * (off + 1)]


@njit(inline="always")
def f2(fb, cap, off, n):
    return rows(fb[cap * off : cap * (off + n)], cap, n)


@njit(inline="always")
def f3(fb, cap, off, r, c):
    return blocks(fb[cap * off : cap * (off + r * c)], cap, r, c)


@njit(inline="always")
def kinematics(fb, cap, rot, trans, vel):
    """Views of a pose (the fields at ``rot``, ``trans``), a velocity (at ``vel``) and
    the angular velocities and accelerations."""
    return (
        f3(fb, cap, rot, 3, 3),
        f2(fb, cap, trans, 3),
        f2(fb, cap, vel, 3),
        f2(fb, cap, OMEGA, 3),
        f2(fb, cap, ACC, 3),
    )


@njit(inline="always")
def relative_scratch(fb, cap):
    """The scratch (3, 3) rotation and (3,) translation after the float tables."""
    at = cap * NF
    return rows(fb[at : at + 9], 3, 3), fb[at + 9 : at + 12]


@njit(inline="always")
def turn_scratch(fb, cap):
    """The scratch (2, 3, 3) of an object's turn and turned pose (``advance_with``)."""
    at = cap * NF + S_TURN
    return blocks(fb[at : at + 18], 2, 3, 3)


@njit(inline="always")
def shape_rows(fb, cap, side):
    """The scratch arrays of one-row convex shape ``side`` (0 or 1): kind, rot, trans,
    dims, radius, bound, first and count, as :class:`hitbox.convex.Shapes` holds them."""
    at = cap * NF + S_SHAPES + 20 * side
    ints = fb[at + 17 : at + 20].view(np.int64)
    return (
        ints[0:1],
        blocks(fb[at : at + 9], 1, 3, 3),
        rows(fb[at + 9 : at + 12], 1, 3),
        rows(fb[at + 12 : at + 15], 1, 3),
        fb[at + 15 : at + 16],
        fb[at + 16 : at + 17],
        ints[1:2],
        ints[2:3],
    )


@njit(inline="always")
def pair_scratch(fb, cap):
    """A one-pair query's index array, output row (value, two points, normal), hit flag,
    and a (3, 3) vertex table, in the arena's scratch."""
    at = cap * NF
    out = (
        fb[at + S_OUT : at + S_OUT + 1],
        rows(fb[at + S_OUT + 1 : at + S_OUT + 4], 1, 3),
        rows(fb[at + S_OUT + 4 : at + S_OUT + 7], 1, 3),
        rows(fb[at + S_OUT + 7 : at + S_OUT + 10], 1, 3),
    )
    index = fb[at + S_INDEX : at + S_INDEX + 1].view(np.int64)
    hit = fb[at + S_HIT : at + S_HIT + 1].view(np.bool_)[0:1]
    return index, out, hit, rows(fb[at + S_TRI : at + S_TRI + 9], 3, 3)


@njit(inline="always")
def objects_split(objs):
    """(fbuf, ibuf, cap) of the object arena: the float tables' bits and the scratch,
    then the int tables, ``cap`` rows each (``len(objs) = cap (NF + NI) + SCRATCH_F``)."""
    cap = (len(objs) - SCRATCH_F) // (NF + NI)
    split = cap * NF + SCRATCH_F
    return objs[:split].view(np.float64), objs[split:], cap


@njit(inline="always")
def work_split(work):
    """(ctl, mem_i, front, out_i, record) of the work arena (see ``W_*``)."""
    ctl = work[work[W_CTL] : work[W_CTL] + work[W_CTL + 1]]
    at, n_rows = work[W_MEM], work[W_MEM + 1]
    mem_i = blocks(work[at : at + 2 * n_rows * MEM_COLS], 2, n_rows, MEM_COLS)
    at, width = work[W_FRONT], work[W_FRONT + 1]
    front = rows(work[at : at + 3 * width], 3, width)
    out_i = work[work[W_OUT] : work[W_OUT] + work[W_OUT + 1]]
    record = work[work[W_REC] : work[W_REC] + work[W_REC + 1]]
    return ctl, mem_i, front, out_i, record


@njit(inline="always")
def i1(ib, cap, off):
    return ib[cap * off : cap * (off + 1)]


@njit(inline="always")
def obb_parts(tf, meta, t):
    """Tree t's OBB node table as collide.node_parts gives it: centre, half, rot."""
    m = meta[t, M_NODES]
    a, b, c = meta[t, M_BV0], meta[t, M_BV1], meta[t, M_BV2]
    return (
        rows(tf[a : a + 3 * m], m, 3),
        rows(tf[b : b + 3 * m], m, 3),
        blocks(tf[c : c + 9 * m], m, 3, 3),
    )


@njit(inline="always")
def wide_part_of(tf, meta, t):
    """Tree t's wide table (:mod:`hitbox._kernels.obb_wide`): (rows, FIELDS, LANES)."""
    n = max(0, (meta[t, M_NODES] - 1) // 2)
    w = meta[t, M_WIDE]
    return blocks(tf[w : w + n * WIDE_ROW], n, WIDE_FIELDS, WIDE_LANES)


@njit(inline="always")
def tree_arrays(tf, ti, meta, t):
    """Tree t's node_first, node_count, slot triangles (S, 3, 3), slot boxes
    (S, 2, 3), node boxes (M, 2, 3) and prim_order."""
    m = meta[t, M_NODES]
    s = meta[t, M_SLOTS]
    f, c, o = meta[t, M_FIRST], meta[t, M_COUNT], meta[t, M_ORDER]
    tr, sb, nb = meta[t, M_TRIS], meta[t, M_SBOX], meta[t, M_NBOX]
    return (
        ti[f : f + m],
        ti[c : c + m],
        blocks(tf[tr : tr + 9 * s], s, 3, 3),
        blocks(tf[sb : sb + 6 * s], s, 2, 3),
        blocks(tf[nb : nb + 6 * m], m, 2, 3),
        ti[o : o + s],
    )


@njit(inline="always")
def tree_walk_arrays(tf, ti, meta, t):
    """What a walk of tree t reads besides its nodes: node_first, node_count, slot
    triangles (S, 3, 3) and slot boxes (S, 2, 3)."""
    m = meta[t, M_NODES]
    s = meta[t, M_SLOTS]
    f, c = meta[t, M_FIRST], meta[t, M_COUNT]
    tr, sb = meta[t, M_TRIS], meta[t, M_SBOX]
    return (
        ti[f : f + m],
        ti[c : c + m],
        blocks(tf[tr : tr + 9 * s], s, 3, 3),
        blocks(tf[sb : sb + 6 * s], s, 2, 3),
    )


@njit(inline="always")
def tree_tris(tf, meta, t):
    """Tree t's slot triangles (S, 3, 3)."""
    s = meta[t, M_SLOTS]
    tr = meta[t, M_TRIS]
    return blocks(tf[tr : tr + 9 * s], s, 3, 3)


@njit(inline="always")
def tree_neighbours(ti, meta, t):
    """Tree t's slot neighbours (S, 3): the slots sharing each edge, -1 for none
    (:func:`hitbox._kernels.witness.slot_neighbours`)."""
    s = meta[t, M_SLOTS]
    o = meta[t, M_ADJ]
    return rows(ti[o : o + 3 * s], s, 3)


@njit(inline="always")
def tree_links(ti, meta, t):
    """Tree t's node parents (M,) and the leaf of each slot (S,)
    (:func:`hitbox._kernels.witness.tree_links`)."""
    p = meta[t, M_PARENT]
    q = meta[t, M_LEAF]
    return ti[p : p + meta[t, M_NODES]], ti[q : q + meta[t, M_SLOTS]]
