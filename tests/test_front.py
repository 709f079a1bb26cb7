"""The walk from a front (generalized front tracking) against the walk from the root:
along random motions, every step walked from the last step's front finds exactly the
triangle pairs a fresh walk finds, and stops where a fresh walk stops in mode any."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from hitbox._kernels.collide import stack_rows
from hitbox._kernels.front import front_walk
from hitbox._torus import torus_mesh
from hitbox.mesh import TriangleMesh

MESH = TriangleMesh(*torus_mesh(600), node="obb")


def _walk(pose, first_only, old, cap=1 << 14):
    bv0, bv1, bv2, first, count, tris, sbox, depth, mag = MESH._args
    new = np.zeros(cap, np.int64)
    out, n, n_new = front_walk(
        bv0, bv1, bv2, first, count, tris, sbox, mag,
        bv0, bv1, bv2, first, count, tris, sbox, mag,
        np.ascontiguousarray(pose[:3, :3]), np.ascontiguousarray(pose[:3, 3]),
        first_only, np.empty((stack_rows(depth, depth), 2), np.int64), old, new,
        np.empty((2, 4), np.intp),
    )  # fmt: skip
    pairs = {(int(a), int(b)) for a, b in zip(out[0, :n], out[1, :n], strict=True)}
    return pairs, (new[:n_new] if n_new >= 0 else None)


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
    front = np.zeros(0, np.int64)
    for pose in _poses(seed, 12, step_size):
        root, _ = _walk(pose, False, np.zeros(0, np.int64))
        got, front = _walk(pose, False, front)
        assert got == root
        assert front is not None and len(front) > 0
    order = MESH.bvh.prim_order
    faces = {(int(order[a]), int(order[b])) for a, b in root}
    brute = MESH.intersect_brute(MESH, pose)
    assert faces == set(zip(brute[0].tolist(), brute[1].tolist(), strict=True))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.01, 0.05, 0.3]))
def test_any_from_the_front_finds_a_crossing_iff_one_exists(seed, step_size):
    front = np.zeros(0, np.int64)
    for pose in _poses(seed, 12, step_size):
        every, _ = _walk(pose, False, np.zeros(0, np.int64))
        got, front = _walk(pose, True, front)
        assert len(got) == min(len(every), 1)
        assert got <= every
        assert front is not None and len(front) > 0


def test_the_front_is_a_cut_of_the_test_tree():
    """Leaf pairs under a front, each counted once: every leaf pair of the two trees."""
    _, front = _walk(_poses(3, 1, 0.0)[0], False, np.zeros(0, np.int64))
    first, count = MESH._args[3], MESH._args[4]
    leaves = {}

    def under(node):
        if count[node] > 0:
            return [node]
        return under(first[node]) + under(first[node] + 1)

    for packed in front.tolist():
        for a in under(packed >> 32):
            for b in under(packed & 0xFFFFFFFF):
                leaves[(a, b)] = leaves.get((a, b), 0) + 1
    n_leaves = int((count > 0).sum())
    assert len(leaves) == n_leaves**2
    assert set(leaves.values()) == {1}


def test_a_short_front_buffer_says_so():
    _, front = _walk(_poses(5, 1, 0.0)[0], False, np.zeros(0, np.int64), cap=2)
    assert front is None
