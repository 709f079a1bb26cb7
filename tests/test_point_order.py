"""The spatial order of query points (hitbox._kernels.point_order): a permutation that
groups points by Morton-ordered cells."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from hitbox._kernels.bvh_build import _spread_bits
from hitbox._kernels.point_order import _BITS, spatial_order, spatial_order_parallel

finite = st.floats(-1e6, 1e6, allow_nan=False)


@given(arrays(np.float64, st.tuples(st.integers(0, 300), st.just(3)), elements=finite))
def test_a_permutation_grouped_by_morton_cell(points):
    order = spatial_order(points)
    assert np.array_equal(np.sort(order), np.arange(len(points)))
    if not len(points):
        return
    lo, hi = points.min(axis=0), points.max(axis=0)
    side = 1 << _BITS
    with np.errstate(over="ignore", invalid="ignore"):
        scale = np.where(hi > lo, side / np.where(hi > lo, hi - lo, 1.0), 0.0)
        t = (points - lo) * scale
    cells = np.where(t > 0, np.minimum(t, side - 1.0), 0.0).astype(np.int64)
    codes = sum(np.array([_spread_bits(c) for c in cells[:, k]], np.int64) << (2 - k)
                for k in range(3))  # fmt: skip
    assert (np.diff(codes[order]) >= 0).all()  # cells in Morton order, each contiguous


def test_points_a_denormal_apart_fall_in_defined_cells():
    """A box thinner than a cell's width in denormals (scale inf, inf * 0 NaN): the
    points still get cells, in Morton order."""
    points = np.zeros((300, 3))
    points[::2, 0] = 5e-324
    points[1::3, 1] = -1e-310
    order = spatial_order(points)
    assert np.array_equal(np.sort(order), np.arange(300))
    far = points[order, 0] > 0  # x's upper cell comes after the lower along Morton order
    assert np.all(np.diff(far[points[order, 1] == 0].astype(int)) >= 0)


def test_equal_points_and_one_point():
    assert spatial_order(np.ones((5, 3))).tolist() == [0, 1, 2, 3, 4]
    assert spatial_order(np.zeros((1, 3))).tolist() == [0]


@given(arrays(np.float64, st.tuples(st.integers(0, 300), st.just(3)), elements=finite))
def test_parallel_order_is_the_serial_one(points):
    np.testing.assert_array_equal(spatial_order_parallel(points), spatial_order(points))


def test_parallel_order_on_many_points_with_ties_and_a_flat_axis():
    rng = np.random.default_rng(4)
    points = np.round(rng.normal(size=(50_000, 3)), 1)
    points[:, 2] = 7.0  # every point in one plane: that axis's cells all 0
    np.testing.assert_array_equal(spatial_order_parallel(points), spatial_order(points))
