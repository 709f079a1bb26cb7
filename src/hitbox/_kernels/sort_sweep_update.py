"""Incremental sort-and-sweep: last step's sorted columns brought up to this step's boxes.

Boxes whose column spans changed leave and join columns; every kept entry takes its new
coordinates in place, and an insertion sort per column restores the order by lo, which
coherent motion leaves nearly intact (Baraff 1992; Cohen et al. 1995, I-COLLIDE). The
columns are those of :mod:`hitbox._kernels.sort_sweep`.
"""

import numpy as np
from numba import njit

from hitbox._kernels.box_scan import grow_bounds
from hitbox._kernels.sort_sweep import (
    _FLAG_BITS,
    _fill_entry,
    _insertion_sort,
    _scalars,
    _spans_of,
)


@njit(cache=True, nogil=True)
def sap_spans(boxes, axes, origin, scale, gdim, spans):
    """Each box's column spans (u0, u1, v0, v1) into ``spans``; empty → (1, 0, 1, 0)."""
    g = _scalars(axes, origin, scale, gdim)
    for i in range(len(boxes)):
        if boxes[i, 0, 0] > boxes[i, 1, 0]:
            spans[i, 0], spans[i, 1], spans[i, 2], spans[i, 3] = 1, 0, 1, 0
            continue
        u0, u1, v0, v1 = _spans_of(boxes, i, g)
        spans[i, 0], spans[i, 1], spans[i, 2], spans[i, 3] = u0, u1, v0, v1


# Baraff 1992 (thesis, 7.2) and Cohen et al. 1995 (I-COLLIDE): sorted lists kept by
# insertion sort from step to step, here one list per grid column
@njit(cache=True, nogil=True)
def sap_plan(boxes, axes, origin, scale, gdim, spans, colstart, moved, old_spans):
    """Step 1 of an update: new column spans, the new column sizes, and the bounds.

    ``spans`` (C, 4) holds last step's spans and is overwritten with the new ones. Boxes
    whose spans changed are listed in ``moved`` with their old spans in ``old_spans``.
    Returns (number moved, new colstart, bounds as
    :func:`hitbox._kernels.box_scan.bounds` gives them).
    """
    g = _scalars(axes, origin, scale, gdim)
    gv = gdim[2]
    ncol = len(colstart) - 1
    size = np.empty(ncol, np.intp)
    for c in range(ncol):
        size[c] = colstart[c + 1] - colstart[c]
    n_moved = 0
    d = boxes.shape[2]
    lo = np.full(d, np.inf)
    hi = np.full(d, -np.inf)
    for i in range(len(boxes)):
        if boxes[i, 0, 0] > boxes[i, 1, 0]:
            u0, u1, v0, v1 = 1, 0, 1, 0
        else:
            u0, u1, v0, v1 = _spans_of(boxes, i, g)
            grow_bounds(lo, hi, boxes, i)
        if (
            u0 == spans[i, 0]
            and u1 == spans[i, 1]
            and v0 == spans[i, 2]
            and v1 == spans[i, 3]
        ):
            continue
        for u in range(spans[i, 0], spans[i, 1] + 1):
            for v in range(spans[i, 2], spans[i, 3] + 1):
                size[u * gv + v] -= 1
        for u in range(u0, u1 + 1):
            for v in range(v0, v1 + 1):
                size[u * gv + v] += 1
        moved[n_moved] = i
        for k in range(4):
            old_spans[n_moved, k] = spans[i, k]
        spans[i, 0], spans[i, 1], spans[i, 2], spans[i, 3] = u0, u1, v0, v1
        n_moved += 1
    new_start = np.zeros(ncol + 1, np.intp)
    for c in range(ncol):
        new_start[c + 1] = new_start[c] + size[c]
    return n_moved, new_start, lo, hi


@njit(cache=True, nogil=True)
def sap_refresh(
    boxes, axes, origin, scale, gdim, spans, tag, colstart, moved, old_spans, new_start,
    new_rec, new_tag,
):  # fmt: skip
    """Step 2: last step's sorted columns → this step's, in ``new_rec``/``new_tag``.

    ``new_rec`` and ``new_tag`` have one row more than ``new_start[-1]``, for scratch.

    Entries whose box still reaches their column keep their place and take the new
    coordinates; entries for columns a box newly reaches go to the column's end; then an
    insertion sort per column restores the order by lo (Baraff's coherence: few moves).
    """
    g = _scalars(axes, origin, scale, gdim)
    gv = gdim[2]
    ncol = len(colstart) - 1
    tail = np.empty(ncol, np.intp)
    mid = np.empty(ncol, np.intp)
    for c in range(ncol):
        cu = c // gv
        cv = c - cu * gv
        w = new_start[c]
        for e in range(colstart[c], colstart[c + 1]):
            # written whether kept or not (no branch to mispredict): a dropped entry's
            # record is overwritten by the next one, or by a newcomer, or lands in the
            # spare last row
            i = tag[e] >> _FLAG_BITS
            w += _fill_entry(boxes, i, w, g, cu, cv, new_rec, new_tag)
        tail[c] = w
        mid[c] = w
    for m in range(len(moved)):
        i = moved[m]
        for u in range(spans[i, 0], spans[i, 1] + 1):
            for v in range(spans[i, 2], spans[i, 3] + 1):
                if (
                    old_spans[m, 0] <= u <= old_spans[m, 1]
                    and old_spans[m, 2] <= v <= old_spans[m, 3]
                ):
                    continue
                c = u * gv + v
                _fill_entry(boxes, i, tail[c], g, u, v, new_rec, new_tag)
                tail[c] += 1
    _sort_merge_columns(new_rec, new_tag, new_start, mid)


@njit(cache=True, nogil=True)
def _sort_merge_columns(rec, tag, colstart, mid):
    """Sort columns whose entries [first, mid) are nearly sorted and [mid, end) are a few
    newcomers in any order: sort both runs, then merge from the back. Each kept entry
    moves at most once, where inserting newcomers one by one would shift half the
    column for each."""
    width = rec.shape[1]
    row = np.empty(width)
    spare_rec = np.empty((0, width))
    spare_tag = np.empty(0, np.int64)
    for c in range(len(colstart) - 1):
        first, m, end = colstart[c], mid[c], colstart[c + 1]
        _insertion_sort(rec, tag, first, m, row)
        if m == end:
            continue
        _insertion_sort(rec, tag, m, end, row)
        if m == first or rec[m - 1, 0] <= rec[m, 0]:
            continue
        k_new = end - m
        if len(spare_tag) < k_new:
            spare_rec = np.empty((2 * k_new, width))
            spare_tag = np.empty(2 * k_new, np.int64)
        for q in range(k_new):
            for k in range(width):
                spare_rec[q, k] = rec[m + q, k]
            spare_tag[q] = tag[m + q]
        a = m - 1
        b = k_new - 1
        w = end - 1
        while b >= 0:
            if a >= first and rec[a, 0] > spare_rec[b, 0]:
                for k in range(width):
                    rec[w, k] = rec[a, k]
                tag[w] = tag[a]
                a -= 1
            else:
                for k in range(width):
                    rec[w, k] = spare_rec[b, k]
                tag[w] = spare_tag[b]
                b -= 1
            w -= 1
