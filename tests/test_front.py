"""The walk from a front (generalized front tracking, with clearances) against the walk
from the root: along random motions, every step walked from the last step's front finds
exactly the triangle pairs a fresh walk finds, and a crossing in mode any exactly when
one exists; clearances let pairs go untested only while the motion stays below them."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from hitbox._kernels.collide import stack_rows
from hitbox._kernels.front import FRONT_AGE, H_AGE, H_TESTS, HEAD, front_size, front_walk
from hitbox._kernels.witness import tree_links, witness_path
from hitbox._torus import torus_mesh
from hitbox.mesh import TriangleMesh

MESH = TriangleMesh(*torus_mesh(600), node="obb")
REACH = float(np.linalg.norm(MESH.vertices, axis=1).max()) * (1 + 1e-12)
NONE = np.zeros(0, np.int64)


def _walk(
    pose, first_only, old, cap=1 << 15, reach=REACH, mesh=MESH, toward=(NONE, NONE)
):
    bv0, bv1, bv2, first, count, tris, sbox, depth, mag = mesh._args
    new = np.zeros(cap, np.int64)
    out, n, n_new = front_walk(
        bv0, bv1, bv2, first, count, tris, sbox, mag,
        bv0, bv1, bv2, first, count, tris, sbox, mag, reach,
        np.ascontiguousarray(pose[:3, :3]), np.ascontiguousarray(pose[:3, 3]),
        first_only, np.empty((stack_rows(depth, depth), 2), np.int64), old, new,
        np.empty((2, 4), np.intp), *toward,
    )  # fmt: skip
    pairs = {(int(a), int(b)) for a, b in zip(out[0, :n], out[1, :n], strict=True)}
    return pairs, (new[:n_new] if n_new >= 0 else None)


def _pairs(front):
    """The node pairs (m, k) of a stored front and their clearances."""
    body = front[HEAD:]
    keys = body[0::2]
    return np.stack([keys >> 32, keys & 0xFFFFFFFF], axis=1), body[1::2].view(np.float64)


def _turn(vec):
    """Rotation by |vec| radians about vec (Rodrigues)."""
    angle = np.linalg.norm(vec)
    k = vec / angle
    cross = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(angle) * cross + (1 - np.cos(angle)) * cross @ cross


def _poses(seed, steps, step_size):
    rng = np.random.default_rng(seed)
    trans = rng.uniform(-1.2, 1.2, 3)
    axis = rng.normal(size=3)
    vel = rng.normal(size=3) * step_size
    spin = rng.normal(size=3) * step_size
    out = []
    for k in range(steps):
        pose = np.eye(4)
        pose[:3, :3] = _turn(axis + k * spin)
        pose[:3, 3] = trans + k * vel
        out.append(pose)
    return out


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.01, 0.05, 0.3]))
def test_all_from_the_front_equals_all_from_the_root(seed, step_size):
    front = NONE
    for pose in _poses(seed, 12, step_size):
        root, _ = _walk(pose, False, NONE)
        got, front = _walk(pose, False, front)
        assert got == root
        assert front is not None
    order = MESH.bvh.prim_order
    faces = {(int(order[a]), int(order[b])) for a, b in root}
    brute = MESH.intersect_brute(MESH, pose)
    assert faces == set(zip(brute[0].tolist(), brute[1].tolist(), strict=True))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.01, 0.05, 0.3]))
def test_any_from_the_front_finds_a_crossing_iff_one_exists(seed, step_size):
    front = NONE
    for pose in _poses(seed, 12, step_size):
        every, _ = _walk(pose, False, NONE)
        from_root = front_size(front) == 0
        got, front = _walk(pose, True, front)
        assert len(got) == min(len(every), 1)
        assert got <= every
        # a crossing ends the walk and keeps no front; a pair apart walked from the
        # root keeps one (from a front, it may drop one that no longer pays)
        assert front is not None
        if got:
            assert front_size(front) == 0
        elif from_root:
            assert front_size(front) > 0


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.01, 0.05, 0.3]))
def test_a_walk_headed_for_a_leaf_pair_answers_as_the_plain_walk(seed, step_size):
    """Mode any from the root, headed down the paths to two slots' leaves: a crossing
    exactly when the plain walk finds one, a crossing pair, the same front when apart,
    and the target leaves' own crossing first when they hold one."""
    rng = np.random.default_rng(seed)
    first, count = MESH._args[3], MESH._args[4]
    parent, leaf = tree_links(first, count)
    n_slots = len(leaf)
    for pose in _poses(seed, 6, step_size):
        every, _ = _walk(pose, False, NONE)
        plain, plain_front = _walk(pose, True, NONE)
        targets = [tuple(rng.integers(0, n_slots, 2))] + sorted(every)[:2]
        for sa, sb in targets:
            toward = (witness_path(parent, leaf, sa), witness_path(parent, leaf, sb))
            got, front = _walk(pose, True, NONE, toward=toward)
            assert len(got) == len(plain) and got <= every
            if not got:  # the same front, in another order
                assert np.array_equal(front[:HEAD], plain_front[:HEAD])
                body = front[HEAD:].reshape(-1, 2)
                plain_body = plain_front[HEAD:].reshape(-1, 2)
                assert sorted(map(tuple, body.tolist())) == sorted(
                    map(tuple, plain_body.tolist())
                )
            here = {
                (a, b) for a, b in every if leaf[a] == leaf[sa] and leaf[b] == leaf[sb]
            }
            if here:
                assert got <= here


def test_a_walk_path_runs_from_the_root_to_the_leaf():
    first, count = MESH._args[3], MESH._args[4]
    parent, leaf = tree_links(first, count)
    for slot in (0, len(leaf) // 2, len(leaf) - 1):
        path = witness_path(parent, leaf, slot)
        assert path[0] == 0 and path[-1] == leaf[slot]
        assert all(parent[path[d + 1]] == path[d] for d in range(len(path) - 1))


def test_the_front_is_a_cut_of_the_test_tree():
    """Leaf pairs under a front, each counted once: every leaf pair of the two trees."""
    _, front = _walk(_poses(3, 1, 0.0)[0], False, NONE)
    first, count = MESH._args[3], MESH._args[4]
    leaves = {}

    def under(node):
        if count[node] > 0:
            return [node]
        return under(first[node]) + under(first[node] + 1)

    for m, k in _pairs(front)[0].tolist():
        for a in under(m):
            for b in under(k):
                leaves[(a, b)] = leaves.get((a, b), 0) + 1
    n_leaves = int((count > 0).sum())
    assert len(leaves) == n_leaves**2
    assert set(leaves.values()) == {1}


def test_a_short_front_buffer_says_so():
    _, front = _walk(_poses(5, 1, 0.0)[0], False, NONE, cap=HEAD + 2)
    assert front is None


def _pose(offset, angle):
    pose = np.eye(4)
    pose[:3, :3] = _turn(np.array([0.3, 1.0, 0.2]) * angle)
    pose[:3, 3] = offset
    return pose


def test_a_clearance_is_a_true_distance_and_spares_the_tests_while_it_holds():
    """Torus B beside A, apart (62 node pairs in its front): every node pair of the
    front is at least its clearance apart (checked on the vertices under it); the same
    pose again tests only the pairs without a clearance; a small motion carries over
    the pairs whose clearance exceeds the motion bound, less that bound; a larger one
    finds the same (empty) answer as a walk from the root."""
    pose = _pose((2.4, 0.1, 0.0), 0.4)
    none, front = _walk(pose, False, NONE)
    assert none == set() and front_size(front) > 0
    pairs, clear = _pairs(front)
    first, count = MESH._args[3], MESH._args[4]
    tris = MESH._args[5]
    moved = tris @ pose[:3, :3].T + pose[:3, 3]

    def slots(node):
        if count[node] > 0:
            return list(range(first[node], first[node] + count[node]))
        return slots(first[node]) + slots(first[node] + 1)

    rng = np.random.default_rng(0)
    for row in rng.choice(len(pairs), size=min(40, len(pairs)), replace=False):
        m, k = pairs[row]
        a = tris[slots(m)].reshape(-1, 3)
        b = moved[slots(k)].reshape(-1, 3)
        # vertices alone bound a mesh distance from above; the clearance lies below it
        gap = np.sqrt(((a[:, None] - b[None]) ** 2).sum(-1)).min()
        assert clear[row] <= gap
    assert front[H_TESTS] > 0  # the walk's node tests
    # the same pose again: only the pairs without a clearance above the (rounding)
    # motion bound are tested, each once, with the same verdicts
    _, again = _walk(pose, False, front)
    assert again[H_TESTS] == int((clear <= 2e-9 * REACH).sum())
    # a small motion: the pairs whose clearance exceeds the motion bound are carried
    # over untested, their clearance less that bound
    small = float(np.median(clear[clear > 0])) * 0.25 / (1 + 2 * REACH)
    nudge = _pose((2.4 + small, 0.1, 0.0), 0.4 + small)
    bound = np.linalg.norm(nudge[:3, 3] - pose[:3, 3])
    bound += (np.linalg.norm(nudge[:3, :3] - pose[:3, :3]) / np.sqrt(2) + 1e-9) * REACH
    got, kept = _walk(nudge, False, front)
    assert got == set()
    carried = clear > bound * 1.001
    assert 0 < carried.sum() < len(clear)
    assert int((clear <= bound * 0.999).sum()) <= kept[H_TESTS] < len(clear)
    new_pairs, new_clear = _pairs(kept)
    left = dict(zip(map(tuple, new_pairs.tolist()), new_clear.tolist(), strict=True))
    for (m, k), c in zip(pairs[carried].tolist(), clear[carried].tolist(), strict=True):
        assert abs(left[(m, k)] - (c - bound)) <= 1e-9 * (1 + c)
    # a larger one: the walk tests again where it must, and answers as from the root
    far = _pose((2.4 - 0.05, 0.1, 0.0), 0.45)
    got, kept = _walk(far, False, front)
    root, _ = _walk(far, False, NONE)
    assert got == root and kept is not None


def test_a_jump_voids_every_clearance():
    """A pose far from the front's (a teleport) tests every pair of the front again and
    finds the touching pairs a walk from the root finds."""
    apart = _pose((2.4, 0.1, 0.0), 0.4)
    _, front = _walk(apart, False, NONE)
    touching = _pose((1.2, 0.1, 0.0), 0.4)
    got, _ = _walk(touching, False, front)
    root, _ = _walk(touching, False, NONE)
    assert got == root and len(root) > 0
    brute = MESH.intersect_brute(MESH, touching)
    assert len(brute[0]) == len(root)
    got, kept = _walk(touching, True, front)
    assert len(got) == 1 and got <= root and front_size(kept) == 0


def test_an_unknown_reach_voids_every_clearance():
    """With an infinite reach (no bound on B's motion) nothing is carried untested."""
    apart = _pose((2.4, 0.1, 0.0), 0.4)
    _, front = _walk(apart, False, NONE)
    same, kept = _walk(apart, False, front, reach=np.inf)
    assert same == set() and kept is not None
    assert kept[H_TESTS] >= front_size(front)


def test_a_front_apart_is_renewed_from_the_root_after_front_age_walks():
    """The same pose walked again and again: FRONT_AGE walks from the front (each
    testing only the pairs without a clearance), then one from the root, which tests
    as many node pairs as the first."""
    pose = _pose((2.4, 0.1, 0.0), 0.4)
    _, front = _walk(pose, False, NONE)
    first = front[H_TESTS]
    ages = [int(front[H_AGE])]
    for _ in range(FRONT_AGE + 1):
        _, front = _walk(pose, False, front)
        ages.append(int(front[H_AGE]))
    assert ages == [*range(FRONT_AGE + 1), 0]
    assert front[H_TESTS] == first


def test_the_motion_bound_holds_at_tiny_scales():
    """At 2^-600 (squares of lengths vanish in float64) a small motion still uses up
    the clearances below it: the pairs the bound reaches are tested again and the
    others carried over less the bound, as at unit scale."""
    s = 2.0**-600
    mesh = TriangleMesh(MESH.vertices * s, MESH.faces, node="obb")
    pose = _pose((2.4 * s, 0.1 * s, 0.0), 0.4)
    _, front = _walk(pose, False, NONE, reach=REACH * s, mesh=mesh)
    _, clear = _pairs(front)
    unit = clear / s
    small = float(np.median(unit[unit > 0])) * 0.25 / (1 + 2 * REACH)
    nudge = _pose(((2.4 + small) * s, 0.1 * s, 0.0), 0.4 + small)
    bound = np.linalg.norm((nudge[:3, 3] - pose[:3, 3]) / s)  # in units of s
    bound += (np.linalg.norm(nudge[:3, :3] - pose[:3, :3]) / np.sqrt(2) + 1e-9) * REACH
    _, kept = _walk(nudge, False, front, reach=REACH * s, mesh=mesh)
    carried = unit > bound * 1.001
    assert 0 < carried.sum() < len(unit)
    assert int((unit <= bound * 0.999).sum()) <= kept[H_TESTS] < len(unit)
    left = _pairs(kept)[1] / s
    assert left.max() <= unit.max() - bound * 0.999
