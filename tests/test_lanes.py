"""Work dealt to threads (hitbox._kernels.lanes): a shared count hands each item to
exactly one lane, whatever the lanes' number and the items' costs."""

import numpy as np
import pytest
from numba import njit, prange

from hitbox._kernels.lanes import take_next


@njit(parallel=True)
def _take_all(n, lanes, taken, slow, counter):
    for lane in prange(lanes):
        while True:
            p = take_next(counter)
            if p >= n:
                break
            spin = 0.0
            for q in range(slow[p]):  # uneven items: some lanes fall behind
                spin += np.sqrt(q + 1.0)
            taken[p] += 1 + lane + 0.0 * spin


@pytest.mark.parametrize("lanes", [1, 2, 3, 8])
@pytest.mark.parametrize("n", [0, 1, 7, 1000])
def test_each_item_is_taken_by_exactly_one_lane(n, lanes):
    rng = np.random.default_rng(n + lanes)
    slow = rng.integers(0, 5000, n)
    taken = np.zeros(n)
    counter = np.zeros(1, np.int64)
    _take_all(n, lanes, taken, slow, counter)
    ones = taken >= 1
    assert ones.all()
    assert (taken <= lanes).all()  # taken once: 1 + the lane's index, never a sum of two
    # every lane stops after one look past the end
    assert counter[0] == n + lanes


def test_take_next_counts_from_the_start_value():
    @njit
    def three(counter):
        return take_next(counter), take_next(counter), take_next(counter)

    counter = np.array([5], np.int64)
    assert three(counter) == (5, 6, 7)
    assert counter[0] == 8
