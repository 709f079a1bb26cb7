"""The exact stages of a Scene step for one candidate pair (see
:mod:`hitbox._kernels.scene`): per-object volumes brought up to the pose and tested
kind against kind, then the narrow phase: mesh against mesh (witness pair, the subtrees
around it, the trees from the last step's front), mesh against a plain volume or a half-space
(:mod:`hitbox._kernels.scene_mesh_volume`), and plain volumes, each at the end of the
step or swept through it (continuous mode); a half-space has no volume stage
(:mod:`hitbox._kernels.scene_planes`)."""

import numpy as np
from numba import njit

from hitbox._kernels.advancement import mesh_contact_time
from hitbox._kernels.box_sat import aabb_kdop, aabb_obb, kdop_obb
from hitbox._kernels.collide import descend_inlined, stack_rows
from hitbox._kernels.contact_time import first_contact
from hitbox._kernels.flat_views import rows
from hitbox._kernels.front import H_CONTACT, front_size, front_walk
from hitbox._kernels.mesh_volume_time import mesh_volume_contact_time
from hitbox._kernels.node_tests import (
    overlap_xf,
    posed_bv,
    query_slack,
    skew_widening,
    turns,
)
from hitbox._kernels.obb import obb_overlap
from hitbox._kernels.pipeline import (
    AABB,
    KDOP14,
    KDOP18,
    OBB,
    PAD,
    SPHERE,
    relative_into,
)
from hitbox._kernels.primitives import HALFSPACE
from hitbox._kernels.scene_convex import convex_contact_time, shapes_meet
from hitbox._kernels.scene_layout import (
    AX14,
    AX18,
    AX26,
    IS_MESH,
    M_COLS,
    M_DEPTH,
    M_MAG,
    M_VERT,
    M_VERTS,
    ROT,
    ROT0,
    SC,
    SH,
    SQ,
    SR,
    TRANS,
    TRANS0,
    TREE,
    VBOX,
    VEL0,
    VERSION,
    VKD14,
    VKD18,
    VKD26,
    VKIND,
    VOC,
    VOH,
    VOLVER,
    VOR,
    VSC,
    VSR,
    WC,
    WR,
    XKIND,
    OBBSet,
    SphereSet,
    f1,
    f2,
    f3,
    i1,
    kinematics,
    obb_parts,
    objects_split,
    relative_scratch,
    tree_arrays,
    tree_links,
    tree_neighbours,
    tree_tris,
    tree_walk_arrays,
    wide_part_of,
)
from hitbox._kernels.scene_mesh_volume import mesh_volume
from hitbox._kernels.sphere_box import sphere_aabb, sphere_obb
from hitbox._kernels.sphere_kdop import sphere_kdop
from hitbox._kernels.sphere_overlap import sphere_overlap
from hitbox._kernels.triangle_overlap import tri_tri_overlap
from hitbox._kernels.triangle_points import load, load_xf
from hitbox._kernels.witness import witness_path, witness_search

# -- per-object volumes ------------------------------------------------------------------


@njit(inline="always")
def _slab_table(kind, fb, cap):
    """The world slab table of a box kind (AABB or k-DOP), the one view made: each view
    costs numba a reference count and its release."""
    if kind == AABB:
        return f3(fb, cap, VBOX, 2, 3)
    if kind == KDOP14:
        return f3(fb, cap, VKD14, 2, 7)
    if kind == KDOP18:
        return f3(fb, cap, VKD18, 2, 9)
    return f3(fb, cap, VKD26, 2, 13)


@njit(inline="always")
def _slab_axes(kind):
    if kind == KDOP14:
        return AX14
    if kind == KDOP18:
        return AX18
    return AX26


@njit(cache=True, nogil=True)
def _slab_ranges(x, y, z, m0, m1, m2):
    """(min, max) of m_k[0] x + m_k[1] y + m_k[2] z over the columns for three
    directions m0, m1, m2 at once: one pass, six independent running extremes (a pass
    per direction ran one dependent chain; benchmarks/README.md)."""
    lo0 = lo1 = lo2 = np.inf
    hi0 = hi1 = hi2 = -np.inf
    for v in range(len(x)):
        xv, yv, zv = x[v], y[v], z[v]
        p0 = m0[0] * xv + m0[1] * yv + m0[2] * zv
        p1 = m1[0] * xv + m1[1] * yv + m1[2] * zv
        p2 = m2[0] * xv + m2[1] * yv + m2[2] * zv
        lo0, hi0 = min(lo0, p0), max(hi0, p0)
        lo1, hi1 = min(lo1, p1), max(hi1, p1)
        lo2, hi2 = min(lo2, p2), max(hi2, p2)
    return lo0, hi0, lo1, hi1, lo2, hi2


@njit(inline="always")
def _model_axis(rot, o, axes, k):
    """Axis k (a row of ``axes``; the last row again past the end) turned into object
    o's model frame: R^T a."""
    k = min(k, axes.shape[0] - 1)
    a0, a1, a2 = axes[k, 0], axes[k, 1], axes[k, 2]
    return (
        rot[o, 0, 0] * a0 + rot[o, 1, 0] * a1 + rot[o, 2, 0] * a2,
        rot[o, 0, 1] * a0 + rot[o, 1, 1] * a1 + rot[o, 2, 1] * a2,
        rot[o, 0, 2] * a0 + rot[o, 1, 2] * a1 + rot[o, 2, 2] * a2,
    )


@njit(cache=True, nogil=True)
def _refit(xyz, mag, rot, trans, o, axes, out):
    """Slabs of object o's moved vertices along ``axes``, in place on row o.

    ``xyz``: the model vertices as (3, V) rows x, y, z; ``mag`` bounds their
    coordinates. Each axis a is turned into the model frame, so a slab is
    (R^T a) . x + a . t over the model vertices, three axes a pass; it is widened by
    PAD of every magnitude that enters the sums, far above their rounding and above the
    rounding of the moved vertices the narrow phase sees.
    """
    n_axes = axes.shape[0]
    for k0 in range(0, n_axes, 3):
        m0 = _model_axis(rot, o, axes, k0)
        m1 = _model_axis(rot, o, axes, k0 + 1)
        m2 = _model_axis(rot, o, axes, k0 + 2)
        ranges = _slab_ranges(xyz[0], xyz[1], xyz[2], m0, m1, m2)
        for q in range(min(3, n_axes - k0)):
            k = k0 + q
            mx, my, mz = (m0, m1, m2)[q]
            lo, hi = ranges[2 * q], ranges[2 * q + 1]
            a0, a1, a2 = axes[k, 0], axes[k, 1], axes[k, 2]
            off = a0 * trans[o, 0] + a1 * trans[o, 1] + a2 * trans[o, 2]
            spread = abs(a0 * trans[o, 0]) + abs(a1 * trans[o, 1]) + abs(a2 * trans[o, 2])
            spread += (abs(mx) + abs(my) + abs(mz) + abs(a0) + abs(a1) + abs(a2)) * mag
            lo += off
            hi += off
            pad = PAD * (abs(lo) + abs(hi) + spread)
            out[o, 0, k] = lo - pad
            out[o, 1, k] = hi + pad


@njit(cache=True, nogil=True, _nrt=False)
def fresh_volume(o, fb, ib, cap, tf, meta):
    """Bring object o's world volume up to its pose (pipeline.world_volumes' rule)."""
    version = i1(ib, cap, VERSION)
    vol_version = i1(ib, cap, VOLVER)
    if vol_version[o] == version[o]:
        return
    vol_version[o] = version[o]
    kind = i1(ib, cap, VKIND)[o]
    is_mesh = i1(ib, cap, IS_MESH)[o] != 0
    rot = f3(fb, cap, ROT, 3, 3)
    trans = f2(fb, cap, TRANS, 3)
    if kind != SPHERE and kind != OBB:
        t = i1(ib, cap, TREE)[o]
        nv = meta[t, M_VERTS]
        vo = meta[t, M_VERT]
        xyz = rows(tf[vo : vo + 3 * nv], 3, nv)
        mag = tf[meta[t, M_MAG]]
        if kind == AABB:
            _refit(xyz, mag, rot, trans, o, AX26[:3], f3(fb, cap, VBOX, 2, 3))
        elif kind == KDOP14:
            _refit(xyz, mag, rot, trans, o, AX14, f3(fb, cap, VKD14, 2, 7))
        elif kind == KDOP18:
            _refit(xyz, mag, rot, trans, o, AX18, f3(fb, cap, VKD18, 2, 9))
        else:
            _refit(xyz, mag, rot, trans, o, AX26, f3(fb, cap, VKD26, 2, 13))
        return
    sc = f2(fb, cap, SC, 3)
    vsc = f2(fb, cap, VSC, 3)
    if kind == SPHERE and is_mesh:
        wc = f2(fb, cap, WC, 3)
        for r in range(3):
            vsc[o, r] = wc[o, r]
        f1(fb, cap, VSR)[o] = f1(fb, cap, WR)[o]
        return
    voc = f2(fb, cap, VOC, 3)
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
        f1(fb, cap, VSR)[o] = f1(fb, cap, SR)[o]
        return
    sq = f3(fb, cap, SQ, 3, 3)
    sh = f2(fb, cap, SH, 3)
    vor = f3(fb, cap, VOR, 3, 3)
    voh = f2(fb, cap, VOH, 3)
    for r in range(3):
        for c in range(3):
            vor[o, r, c] = (
                rot[o, r, 0] * sq[o, 0, c]
                + rot[o, r, 1] * sq[o, 1, c]
                + rot[o, r, 2] * sq[o, 2, c]
            )
    # a mesh's box holds its moved vertices, a convex shape's its touching tolerance
    widen = is_mesh or i1(ib, cap, XKIND)[o] >= 0
    pad = PAD * (mag + sh[o, 0] + sh[o, 1] + sh[o, 2]) if widen else 0.0
    for r in range(3):
        voh[o, r] = sh[o, r] + pad


@njit(cache=True, nogil=True)
def fit_volume(objs, tf, ti, o):
    """Object o's world volume fitted to its pose now, as a step would fit it (a static
    mesh's box or k-DOP when it is added: no step then pays the pass over its
    vertices; benchmarks/README.md)."""
    fb, ib, cap = objects_split(objs)
    meta = rows(ti[1 : 1 + ti[0] * M_COLS], ti[0], M_COLS)
    fresh_volume(o, fb, ib, cap, tf, meta)


@njit(cache=True, nogil=True)
def volumes_meet(i, j, fb, ib, cap):
    """The per-object volume test of pair (i, j): exact or conservative by kinds
    (the Scene's former per-kind filters, one pair at a time). Each branch makes only
    the views it reads: each view costs a reference count and its release."""
    vkind = i1(ib, cap, VKIND)
    if vkind[i] > vkind[j]:
        i, j = j, i
    ka, kb = vkind[i], vkind[j]  # ka <= kb: SPHERE < AABB < k-DOPs < OBB
    if ka == SPHERE:
        sph = SphereSet(f2(fb, cap, VSC, 3), f1(fb, cap, VSR))
        if kb == SPHERE:
            return sphere_overlap(sph, i, sph, j)
        if kb == AABB:
            return sphere_aabb(sph, i, f3(fb, cap, VBOX, 2, 3), j)
        if kb == OBB:
            return sphere_obb(sph, i, _obbs(fb, cap), j)
        return sphere_kdop(sph, i, _slab_table(kb, fb, cap), j, _slab_axes(kb))
    if kb == OBB:
        obbs = _obbs(fb, cap)
        if ka == OBB:
            return obb_overlap(obbs, i, obbs, j)
        if ka == AABB:
            return aabb_obb(f3(fb, cap, VBOX, 2, 3), i, obbs, j)
        return kdop_obb(_slab_table(ka, fb, cap), i, obbs, j, _slab_axes(ka))
    ta = _slab_table(ka, fb, cap)
    tb = _slab_table(kb, fb, cap)
    if ka == AABB and kb != AABB:
        return aabb_kdop(ta, i, tb, j, _slab_axes(kb))
    n_slabs = ta.shape[2] if ka == kb else 3
    for k in range(n_slabs):
        if max(ta[i, 0, k], tb[j, 0, k]) > min(ta[i, 1, k], tb[j, 1, k]):
            return False
    return True


@njit(inline="always")
def _obbs(fb, cap):
    return OBBSet(f2(fb, cap, VOC, 3), f2(fb, cap, VOH, 3), f3(fb, cap, VOR, 3, 3))


# -- narrow phase ------------------------------------------------------------------------


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


@njit(inline="always")
def _walk_stack(meta, ta, tb, scratch):
    """The stack of a walk of trees ta and tb: in ``scratch`` when it fits."""
    depth = stack_rows(meta[ta, M_DEPTH], meta[tb, M_DEPTH])
    if 2 * depth <= len(scratch):
        return rows(scratch[: 2 * depth], depth, 2)
    return np.empty((depth, 2), np.int64)


@njit(cache=True, nogil=True)
def _mesh_mesh(
    i, j, fb, cap, ib, tf, ti, meta, first_only, wit_a, wit_b, old, new, scratch, buf,
    toward_a, toward_b,
):  # fmt: skip
    """Mesh i against mesh j: (n crossing slot pairs in buf[:, :n], buf, n_new). With
    ``first_only``, the witness slot pair (wit_a, wit_b) from the last step is tested
    first and settles the pair when it still crosses (no front kept, n_new 0). The
    trees are walked from the root by wide children, no front kept, in mode all when
    the pair has a witness (it touched at the last step) and in mode any when it has
    none. Else they are walked from the front ``old`` (empty: from the root;
    :mod:`hitbox._kernels.front`), the new front written to ``new[:n_new]`` (n_new 0:
    none kept, as in mode any always; -1: it did not fit). ``scratch``: room for the
    walk's stack (allocated when short). With ``first_only``, a walk from the root
    heads for the leaves of slots (toward_a, toward_b) first (-1: for the witness's,
    if any)."""
    rel_r, rel_t = relative_scratch(fb, cap)
    relative_into(f3(fb, cap, ROT, 3, 3), f2(fb, cap, TRANS, 3), i, j, rel_r, rel_t)
    tree = i1(ib, cap, TREE)
    ta, tb = tree[i], tree[j]
    a_first, a_count, a_tris, a_sbox = tree_walk_arrays(tf, ti, meta, ta)
    b_first, b_count, b_tris, b_sbox = tree_walk_arrays(tf, ti, meta, tb)
    if len(a_first) == 0 or len(b_first) == 0:
        return 0, buf, 0
    if first_only and wit_a >= 0:
        p0, p1, p2 = load(a_tris, wit_a)
        q0, q1, q2 = load_xf(b_tris, wit_b, rel_r, rel_t)
        if tri_tri_overlap(p0, p1, p2, q0, q1, q2):
            buf[0, 0] = wit_a
            buf[1, 0] = wit_b
            return 1, buf, 0
    a0, a1, a2 = obb_parts(tf, meta, ta)
    b0, b1, b2 = obb_parts(tf, meta, tb)
    if (wit_a >= 0) != first_only:
        # by wide children from the root (:mod:`hitbox._kernels.obb_wide`), no front
        # kept: in mode all a pair that touched at the last step (every crossing pair
        # is found again; a front deep in both trees saves fewer node tests than the
        # wide walk), in mode any a pair that did not (its last walk's front, walked
        # binary, cost more than a fresh wide walk: benchmarks/README.md)
        a_bv = posed_bv(a0, a1, a2, rel_r)
        b_bv = posed_bv(b0, b1, b2, rel_r)
        slack = query_slack(rel_t, tf[meta[ta, M_MAG]], tf[meta[tb, M_MAG]])
        # collide.roots_meet written out: a call passing the two trees' arrays costs
        # their reference counts
        turned, widen = turns(rel_r), skew_widening(rel_r)
        if not overlap_xf(a_bv, 0, b_bv, 0, rel_r, rel_t, turned, widen, slack):
            return 0, buf, 0
        out, n = descend_inlined(
            a_bv, a_first, a_count, a_tris, a_sbox, wide_part_of(tf, meta, ta),
            b_bv, b_first, b_count, b_tris, b_sbox, wide_part_of(tf, meta, tb),
            rel_r, rel_t, slack, _walk_stack(meta, ta, tb, scratch), first_only, buf, 0,
            0, 0,
        )  # fmt: skip
        return n, out, 0
    if toward_a < 0:
        toward_a, toward_b = wit_a, wit_b
    path_a = path_b = old[:0]  # none: the walk heads nowhere first
    if first_only and toward_a >= 0 and front_size(old) == 0:
        a_parent, a_leaf = tree_links(ti, meta, ta)
        b_parent, b_leaf = tree_links(ti, meta, tb)
        path_a = witness_path(a_parent, a_leaf, toward_a)
        path_b = witness_path(b_parent, b_leaf, toward_b)
    out, n, n_new = front_walk(
        a0, a1, a2, a_first, a_count, a_tris, a_sbox, tf[meta[ta, M_MAG]],
        b0, b1, b2, b_first, b_count, b_tris, b_sbox, tf[meta[tb, M_MAG]],
        tf[meta[tb, M_MAG] + 1], rel_r, rel_t, first_only,
        _walk_stack(meta, ta, tb, scratch), old, new, buf, path_a, path_b,
    )  # fmt: skip
    # mode any keeps no front: a pair apart walks from the root by wide children next
    return n, out, 0 if first_only else n_new


@njit(cache=True, nogil=True, _nrt=False)
def pair_witness(i, j, s, rot, trans, tree, tf, ti, meta, mem_i, cur, rel_r, rel_t):
    """Mode any, meshes i and j, their row ``s`` of the current memory (-1: none)
    (``tree``: each object's tree index; ``rel_r``, ``rel_t``: scratch for their
    relative pose): (sa, sb, ca, cb), a crossing slot pair (sa, sb) near the last step's
    witness (:func:`hitbox._kernels.witness.witness_search`), (-1, -1) when the pair has
    no witness or none crosses; (ca, cb) the pair the search centred on, where a walk
    of the trees heads first (-1, -1 without a witness)."""
    if s < 0 or mem_i[cur, s, 3] < 0:
        return -1, -1, -1, -1
    relative_into(rot, trans, i, j, rel_r, rel_t)
    ta, tb = tree[i], tree[j]
    return witness_search(
        tree_tris(tf, meta, ta), tree_neighbours(ti, meta, ta),
        tree_tris(tf, meta, tb), tree_neighbours(ti, meta, tb),
        rel_r, rel_t, mem_i[cur, s, 3], mem_i[cur, s, 4],
    )  # fmt: skip


@njit(inline="always")
def motion_state(o, fb, ib, cap):
    """Object o's start of step, motion and plain shape as contact_time's (12, 3)
    state, and its kind there (0 sphere, 1 box)."""
    st = np.zeros((12, 3))
    rot0, trans0, vel0, omega, acc = kinematics(fb, cap, ROT0, TRANS0, VEL0)
    sc = f2(fb, cap, SC, 3)
    sh = f2(fb, cap, SH, 3)
    sq = f3(fb, cap, SQ, 3, 3)
    for r in range(3):
        st[r] = rot0[o, r]
        st[3, r] = trans0[o, r]
        st[4, r] = vel0[o, r]
        st[5, r] = omega[o, r]
        st[6, r] = acc[o, r]
        st[7, r] = sc[o, r]
    if i1(ib, cap, VKIND)[o] == SPHERE:
        st[8, 0] = f1(fb, cap, SR)[o]
        return 0, st
    for r in range(3):
        st[8, r] = sh[o, r]
        for c in range(3):
            st[9 + r, c] = sq[o, r, c]  # rows 9..11: the model rotation
    return 1, st


@njit(inline="always")
def narrow_pair(
    i, j, s, fb, ib, cap, tf, ti, meta, mem_i, cur, front_old, front_new,
    scratch, buf, first_only, sweeps, swept, dt, tris_out, n_tris, witness_tried,
    toward_a, toward_b,
):  # fmt: skip
    """The exact test of one candidate pair (``s``: its row of the current memory, -1
    for none): (touching primitive pairs m (1 for two plain volumes), contact time (dt
    unless swept), witness slot pair or -1, -1, the length of its new front,
    written at the start of ``front_new``: -1 when it did not fit, 0 for none, and
    ``buf``, the (2, K) room for a mesh pair's crossing slot pairs, or a larger one
    grown in its place, which the step keeps for its next pairs). Two
    meshes walk from the front their memory row points to in ``front_old``
    (:func:`hitbox._kernels.front.front_walk`), ``scratch`` holding its stack; a front
    left by a touching step is dropped once the pair is found apart (walked from the
    root next: such a front lies deep in both trees, where a walk from the root stops
    higher up once the meshes part). Writes the pair's triangle pairs at
    ``tris_out[:, n_tris:]`` where they fit (mode all). ``witness_tried``:
    :func:`pair_witness` found no crossing pair already (the walk does not test the
    witness again); (``toward_a``, ``toward_b``): the slot pair it centred on, where a
    walk from the root heads first (-1, -1: the witness's). ``sweeps``: whether the
    sweeps of continuous mode may run (False for a discrete step)."""
    is_mesh = i1(ib, cap, IS_MESH)
    mesh_i = is_mesh[i] != 0
    mesh_j = is_mesh[j] != 0
    cap_t = tris_out.shape[1]
    if mesh_i and mesh_j:
        wit_a = wit_b = -1
        old = front_old[:0]
        if s >= 0:
            if not witness_tried:
                wit_a, wit_b = mem_i[cur, s, 3], mem_i[cur, s, 4]
            at, length = mem_i[cur, s, 6], mem_i[cur, s, 7]
            old = front_old[at : at + length]
        m, buf, n_new = _mesh_mesh(
            i, j, fb, cap, ib, tf, ti, meta, first_only, wit_a, wit_b, old, front_new,
            scratch, buf, toward_a, toward_b,
        )  # fmt: skip
        hit_time = dt
        if sweeps and swept:  # touching at any time in the step: by advancement
            toi, sa, sb = mesh_contact_time(i, j, fb, ib, cap, tf, ti, meta, dt)
            if toi <= dt:
                hit_time = toi
                if m == 0:  # touched within the step only: the pair that came closest
                    buf[0, 0] = sa
                    buf[1, 0] = sb
                    m = 1
        if m == 0:  # apart: a front left by a touching step is dropped
            if front_size(old) > 0 and old[H_CONTACT] != 0:
                n_new = 0
            return 0, dt, -1, -1, n_new, buf
        if not first_only and n_tris + m <= cap_t:
            tree = i1(ib, cap, TREE)
            _, _, _, _, _, order_a = tree_arrays(tf, ti, meta, tree[i])
            _, _, _, _, _, order_b = tree_arrays(tf, ti, meta, tree[j])
            tris_out[:, n_tris : n_tris + m] = _sorted_face_pairs(
                buf[0], buf[1], m, order_a, order_b
            )
        return m, hit_time, buf[0, 0], buf[1, 0], n_new, buf
    if mesh_i or mesh_j:
        mo, w = (i, j) if mesh_i else (j, i)
        if i1(ib, cap, XKIND)[w] != HALFSPACE:  # a half-space has no volume
            fresh_volume(w, fb, ib, cap, tf, meta)
        walk = np.empty(2 * meta[i1(ib, cap, TREE)[mo], M_DEPTH] + 4, np.intp)
        faces = mesh_volume(
            mo, w, fb, ib, cap, tf, ti, meta, first_only, *relative_scratch(fb, cap), walk
        )
        m = len(faces)
        hit_time = dt
        if sweeps and swept:  # touching at any time in the step: by advancement
            toi, face = mesh_volume_contact_time(mo, w, fb, ib, cap, tf, ti, meta, dt)
            if toi <= dt:
                hit_time = toi
                if m == 0:  # touched within the step only: the face that came closest
                    faces = np.full(1, face, np.int64)
                    m = 1
        if m > 0 and not first_only and n_tris + m <= cap_t:
            row = 0 if mesh_i else 1
            tris_out[row, n_tris : n_tris + m] = faces
            tris_out[1 - row, n_tris : n_tris + m] = -1
        return m, hit_time, -1, -1, 0, buf
    hit_time = dt
    xkind = i1(ib, cap, XKIND)
    convex = xkind[i] >= 0 or xkind[j] >= 0
    if sweeps and swept:
        if convex:
            hit_time = convex_contact_time(i, j, fb, ib, cap, tf, dt)
        else:
            kind_i, state_i = motion_state(i, fb, ib, cap)
            kind_j, state_j = motion_state(j, fb, ib, cap)
            hit_time = first_contact(kind_i, state_i, kind_j, state_j, dt)
        m = 1 if hit_time <= dt else 0
    elif xkind[i] == HALFSPACE or xkind[j] == HALFSPACE:  # no volume: the shapes
        rot, trans = f3(fb, cap, ROT, 3, 3), f2(fb, cap, TRANS, 3)
        m = 1 if shapes_meet(i, j, rot, trans, fb, ib, cap, tf) else 0
    else:
        fresh_volume(i, fb, ib, cap, tf, meta)
        fresh_volume(j, fb, ib, cap, tf, meta)
        m = 1 if volumes_meet(i, j, fb, ib, cap) else 0
        if m and convex:  # the boxes of convex shapes meet: their shapes decide
            rot, trans = f3(fb, cap, ROT, 3, 3), f2(fb, cap, TRANS, 3)
            m = 1 if shapes_meet(i, j, rot, trans, fb, ib, cap, tf) else 0
    if m > 0 and not first_only and n_tris + 1 <= cap_t:
        tris_out[0, n_tris] = -1
        tris_out[1, n_tris] = -1
    return m, hit_time, -1, -1, 0, buf
