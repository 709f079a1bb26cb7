"""One pass over a batch of rays that finds the first thing wrong with it and the
largest magnitudes, where numpy takes a pass per check (a single ray's validation
then costs more than its walk)."""

import math

from numba import njit

#: Problems :func:`ray_problems` reports, in the order the slow checks raise them.
FINE, BAD_ORIGIN, BAD_DIRECTION, ZERO_DIRECTION, BAD_T_MAX = 0, 1, 2, 3, 4


@njit(cache=True, nogil=True)
def ray_problems(origins, directions, t_max):
    """(problem, largest |origin coordinate|, largest |direction coordinate|) of
    (R, 3) origins and directions and (R,) t_max (or (1,), for every ray): the first
    problem by kind (FINE when none), as the slow checks would report it."""
    big_o = 0.0
    big_d = 0.0
    for r in range(len(origins)):
        for k in range(3):
            x = origins[r, k]
            if not math.isfinite(x):
                return BAD_ORIGIN, 0.0, 0.0
            big_o = max(big_o, abs(x))
    for r in range(len(directions)):
        zero = True
        for k in range(3):
            x = directions[r, k]
            if not math.isfinite(x):
                return BAD_DIRECTION, 0.0, 0.0
            big_d = max(big_d, abs(x))
            zero = zero and x == 0.0
        if zero:
            return ZERO_DIRECTION, 0.0, 0.0
    for r in range(len(t_max)):
        if not t_max[r] >= 0.0:  # negative or NaN
            return BAD_T_MAX, 0.0, 0.0
    return FINE, big_o, big_d
