"""Which points lie inside a closed mesh: a grid of known winding numbers first, then
exact axis rays through the tree, each taking only the points the one before left
undecided (the caller takes the rest to the generalised winding number).

The grid (:mod:`hitbox._kernels.inside_grid`) costs about as much to build as a few
ray queries per face, so a mesh builds it once its queries add up to a share of its
faces, and keeps it.
"""

import numba
import numpy as np

from hitbox._kernels import inside as _inside
from hitbox._kernels import inside_grid as _grid

#: Points queried on a mesh, per face, before its grid is built (at least GRID_MIN).
GRID_AFTER_PER_FACE = 0.25
GRID_MIN = 4096


class GridState:
    """A mesh's grid, or the points it has been asked about while it has none."""

    __slots__ = ("grid", "seen", "tried")

    def __init__(self):
        self.grid, self.seen, self.tried = None, 0, False


def codes(state, tree, slot_tris, points):
    """(P,) intp of INSIDE, OUTSIDE or UNDECIDED for the closed mesh of ``slot_tris``
    under ``tree``; ``state`` (a :class:`GridState`) is updated."""
    n = len(points)
    out = np.empty(n, np.intp)
    threads = numba.get_num_threads()
    state.seen += n
    if not state.tried and state.seen >= max(
        GRID_MIN, GRID_AFTER_PER_FACE * len(slot_tris)
    ):
        state.tried = True
        state.grid = _grid.build(slot_tris, tree.node_box, tree.node_first,
                                 tree.node_count, tree.depth,
                                 slot_tris.min(axis=(0, 1)), slot_tris.max(axis=(0, 1)),
                                 threads)  # fmt: skip
    rest = np.arange(n)
    if state.grid is not None:
        g = state.grid
        _grid.query(g.box, g.origin, g.size, g.dims, g.margin, g.code, g.winding,
                    g.first, g.slots, g.qbox, slot_tris, points, out, threads)  # fmt: skip
        rest = np.flatnonzero(out == _inside.UNDECIDED)
        if not len(rest):
            return out
    sub = points if len(rest) == n else np.ascontiguousarray(points[rest])
    sub_out = np.empty(len(sub), np.intp)
    walk = (tree.node_box, tree.node_first, tree.node_count, slot_tris, tree.depth)
    if len(sub) >= _inside.PARALLEL_MIN and threads > 1:
        _inside.inside_parallel(*walk, sub, sub_out, threads)
    else:
        _inside.inside(*walk, sub, sub_out)
    out[rest] = sub_out
    return out
