"""flat_views: C-contiguous views of flat buffers, checked against numpy's reshape."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numba import njit

from hitbox._kernels.flat_views import blocks, rows


@njit(cache=True)
def _views(buf, at, n, r, c):
    """(n, r * c) rows and (n, r, c) blocks of buf[at:], as copies (views of a view)."""
    flat = buf[at : at + n * r * c]
    return rows(flat, n, r * c).copy(), blocks(flat, n, r, c).copy()


@njit(cache=True)
def _write_through(buf, n, c):
    view = rows(buf[: n * c], n, c)
    view[n - 1, c - 1] = -1.0


@given(
    at=st.integers(0, 5),
    n=st.integers(0, 6),
    r=st.integers(1, 4),
    c=st.integers(1, 4),
)
def test_views_equal_numpy_reshape(at, n, r, c):
    buf = np.arange(at + n * r * c + 3, dtype=np.float64)
    got_rows, got_blocks = _views(buf, at, n, r, c)
    flat = buf[at : at + n * r * c]
    np.testing.assert_array_equal(got_rows, flat.reshape(n, r * c))
    np.testing.assert_array_equal(got_blocks, flat.reshape(n, r, c))


def test_a_view_writes_into_its_buffer():
    buf = np.zeros(12)
    _write_through(buf, 3, 4)
    assert buf[11] == -1.0 and np.count_nonzero(buf) == 1


def test_a_shape_longer_than_the_buffer_raises():
    with pytest.raises(ValueError, match="length does not match"):
        _views(np.zeros(10), 0, 3, 2, 2)  # 12 entries asked of 10
