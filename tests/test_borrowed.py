"""A borrowed array (hitbox._kernels.borrowed) is the same view of the same memory:
reads, writes and views through it reach its owner's elements."""

import numpy as np
from numba import njit

from hitbox._kernels.borrowed import borrowed


@njit(cache=True)
def _twice_through_a_borrowed_view(a):
    b = borrowed(a)
    rows = b[1:].reshape((-1, 2))
    rows[:, 0] *= 2.0
    return b.sum(), rows.shape[0]


def test_a_borrowed_array_reads_and_writes_its_owners_memory():
    a = np.arange(9.0)
    total, n = _twice_through_a_borrowed_view(a)
    assert total == 52.0  # the writes, seen through the borrowed view
    assert n == 4
    np.testing.assert_array_equal(a, [0, 2, 2, 6, 4, 10, 6, 14, 8])
