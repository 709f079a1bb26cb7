"""Poses as (position, quaternion): against scipy's Rotation, round trips, bad input."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from hitbox import poses


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 50), st.booleans())
def test_matrices_equal_scipys_and_round_trip(seed, n, scalar_first):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n, 4)) * rng.uniform(0.1, 10.0, (n, 1))  # not unit length
    p = rng.uniform(-5, 5, (n, 3))
    xyzw = q[:, [1, 2, 3, 0]] if scalar_first else q
    mats = poses.from_quaternions(p, q, scalar_first=scalar_first)
    np.testing.assert_allclose(
        mats[:, :3, :3], Rotation.from_quat(xyzw).as_matrix(), atol=1e-12
    )
    np.testing.assert_array_equal(mats[:, :3, 3], p)
    np.testing.assert_array_equal(mats[:, 3], np.tile([0.0, 0, 0, 1], (n, 1)))
    back_p, back_q = poses.to_quaternions(mats, scalar_first=scalar_first)
    unit = q / np.linalg.norm(q, axis=1, keepdims=True)
    w = unit[:, 0] if scalar_first else unit[:, 3]
    unit[w < 0] *= -1
    np.testing.assert_allclose(back_q, unit, atol=1e-12)
    np.testing.assert_array_equal(back_p, p)
    assert ((back_q[:, 0] if scalar_first else back_q[:, 3]) >= 0).all()


def test_single_items_broadcast_and_near_half_turns():
    m = poses.from_quaternions([1.0, 2, 3], [0, 0, 0, 1])
    np.testing.assert_array_equal(
        m, [[1, 0, 0, 1], [0, 1, 0, 2], [0, 0, 1, 3], [0, 0, 0, 1]]
    )
    many = poses.from_quaternions(np.zeros((5, 3)), [0, 0, 1, 0])  # half turn about z
    assert many.shape == (5, 4, 4)
    np.testing.assert_allclose(many[0, :3, :3], np.diag([-1.0, -1, 1]), atol=1e-15)
    p, q = poses.to_quaternions(many[0])
    assert p.shape == (3,) and q.shape == (4,)
    np.testing.assert_allclose(q, [0, 0, 1, 0], atol=1e-15)  # w = 0: no division by it
    for axis in np.eye(3):  # each half turn takes another branch
        half = Rotation.from_rotvec(np.pi * axis).as_matrix()
        mat = np.eye(4)
        mat[:3, :3] = half
        _, q = poses.to_quaternions(mat)
        np.testing.assert_allclose(Rotation.from_quat(q).as_matrix(), half, atol=1e-14)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: poses.from_quaternions([0, 0, 0], [0, 0, 0, 0]), ValueError, "is zero"),
        (lambda: poses.from_quaternions([0, 0, 0], [0, 0, 1]), ValueError, "shape"),
        (lambda: poses.from_quaternions([0, 0], [0, 0, 0, 1]), ValueError, "positions"),
        (
            lambda: poses.from_quaternions([0, 0, np.nan], [0, 0, 0, 1]),
            ValueError,
            "positions",
        ),
        (
            lambda: poses.from_quaternions(np.zeros((2, 3)), np.ones((3, 4))),
            ValueError,
            "differ",
        ),
        (
            lambda: poses.to_quaternions(np.diag([1.0, 1, -1, 1])),
            ValueError,
            "rigid|rotation",
        ),
    ],
)
def test_bad_input_names_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_empty_batches():
    assert poses.from_quaternions(np.empty((0, 3)), np.empty((0, 4))).shape == (0, 4, 4)
    p, q = poses.to_quaternions(np.empty((0, 4, 4)))
    assert p.shape == (0, 3) and q.shape == (0, 4)
