"""hitbox.treeless: crossing triangle pairs without trees, against every pair
tested (TriangleMesh.intersect_brute) and against the trees."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hitbox import shapes, treeless, triangle
from hitbox.mesh import TriangleMesh
from tests.strategies import rotation


def _soup(rng, n, spread):
    base = rng.uniform(0, spread, (n, 1, 3))
    return base + rng.normal(scale=0.5, size=(n, 3, 3))


def _pose(rng, reach):
    pose = np.eye(4)
    pose[:3, :3] = rotation(rng)
    pose[:3, 3] = rng.uniform(-reach, reach, 3)
    return pose


def _brute(a, b, pose):
    moved = b @ pose[:3, :3].T + pose[:3, 3]
    return triangle.overlap_pairs_brute(a, moved)


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    na=st.integers(0, 40),
    nb=st.integers(0, 40),
    spread=st.sampled_from([0.5, 3.0, 8.0]),
)
def test_pairs_equal_every_pair_tested(seed, na, nb, spread):
    rng = np.random.default_rng(seed)
    a, b = _soup(rng, na, spread), _soup(rng, nb, spread)
    pose = _pose(rng, spread)
    got = treeless.intersect(a, b, pose, mode="all")
    brute = TriangleMesh(b.reshape(-1, 3), np.arange(3 * nb).reshape(-1, 3))
    if na and nb:
        mesh_a = TriangleMesh(a.reshape(-1, 3), np.arange(3 * na).reshape(-1, 3))
        want = mesh_a.intersect_brute(brute, pose)
    else:
        want = np.empty((2, 0), np.intp)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.intp and got.flags.c_contiguous
    assert treeless.intersect(a, b, pose) is bool(want.shape[1])


def test_touching_counts_shared_corners_edges_and_faces():
    """Closed tests everywhere: b is a itself (every triangle shares a face), then a
    moved by exactly its box's width along x (boxes and triangles touching at x)."""
    tris = np.array(
        [[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
         [[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]]]
    )  # fmt: skip
    same = treeless.intersect(tris, tris, mode="all")
    np.testing.assert_array_equal(same, _brute(tris, tris, np.eye(4)))
    assert same.shape[1] == 4  # the two squares' halves share an edge, and themselves
    shift = np.eye(4)
    shift[0, 3] = 1.0  # the square's right edge on the next one's left edge
    touching = treeless.intersect(tris, tris, shift, mode="all")
    np.testing.assert_array_equal(touching, _brute(tris, tris, shift))
    assert touching.shape[1] > 0 and treeless.intersect(tris, tris, shift)
    shift[0, 3] = 1.0 + 1e-12
    assert not treeless.intersect(tris, tris, shift)


def test_equals_the_trees_on_tori():
    a, b = shapes.torus(600), shapes.torus(500)
    rng = np.random.default_rng(3)
    touching = 0
    for _ in range(40):
        pose = _pose(rng, 2.2)
        want = a.intersect(b, pose, mode="all")
        np.testing.assert_array_equal(
            treeless.intersect(a.triangles, b.triangles, pose, mode="all"), want
        )
        assert treeless.intersect(a.triangles, b.triangles, pose) == a.intersect(b, pose)
        touching += want.shape[1] > 0
    assert 5 < touching < 35  # both answers exercised


def test_many_pairs_grow_the_output():
    """More crossing pairs than the kernel's first buffer (64 columns)."""
    a = shapes.torus(400)
    got = treeless.intersect(a.triangles, a.triangles, mode="all")
    assert got.shape[1] > 64
    np.testing.assert_array_equal(got, a.intersect(a, np.eye(4), mode="all"))


def test_long_triangles_along_x_are_swept_along_another_axis():
    """Slivers spanning x in [0, 10] at scattered y, z: every pair meets on x, few on y
    or z; the sweep takes the axis with the fewest meeting pairs, and answers as every
    pair tested."""
    rng = np.random.default_rng(11)
    n = 300
    yz = rng.uniform(0, 20, (n, 1, 2)) + rng.normal(scale=0.3, size=(n, 3, 2))
    x = np.array([0.0, 10.0, 5.0])[None, :, None] + rng.normal(scale=0.1, size=(n, 3, 1))
    a = np.concatenate([x, yz], axis=2)
    b = a[::-1] + rng.normal(scale=0.2, size=a.shape)
    boxes = [np.stack([t.min(axis=1), t.max(axis=1)], axis=1) for t in (a, b)]
    assert treeless._sweep_axis(*boxes) in (1, 2)
    got = treeless.intersect(a, b, mode="all")
    np.testing.assert_array_equal(got, _brute(a, b, np.eye(4)))
    assert got.shape[1] > 0


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"mode": "some"}, ValueError, "mode"),
        ({"transform": np.diag([2.0, 1.0, 1.0, 1.0])}, ValueError, "rigid|rotation"),
        ({"tris_a": np.zeros((2, 4, 3))}, ValueError, r"tris_a must have shape"),
        ({"tris_b": np.full((1, 3, 3), np.nan)}, ValueError, "tris_b.*finite"),
        (
            {"tris_a": np.ones((1, 3, 3)), "tris_b": np.full((1, 3, 3), 2.0**120)},
            ValueError,
            "2\\*\\*100 times nearer",
        ),
        ({"tris_a": "abc"}, TypeError, "tris_a"),
    ],
)
def test_bad_input_is_named(kwargs, error, match):
    args = {"tris_a": np.zeros((1, 3, 3)), "tris_b": np.ones((1, 3, 3))}
    args.update(kwargs)
    extra = {k: args.pop(k) for k in ("mode", "transform") if k in args}
    with pytest.raises(error, match=match):
        treeless.intersect(args["tris_a"], args["tris_b"], **extra)


@pytest.mark.parametrize("e", [-600, -300, -120, 120, 300, 600])
def test_sets_beyond_2_to_the_100_are_solved_at_a_power_of_two(e):
    rng = np.random.default_rng(4)
    a = rng.normal(size=(40, 3, 3))
    b = a[::-1] + rng.normal(scale=0.3, size=a.shape)
    want = treeless.intersect(a, b, mode="all")
    assert want.shape[1] > 0
    s = 2.0**e
    np.testing.assert_array_equal(treeless.intersect(a * s, b * s, mode="all"), want)
    assert treeless.intersect(a * s, b * s) == (want.shape[1] > 0)
