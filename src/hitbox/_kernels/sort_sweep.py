"""Sort-and-sweep in the columns of a grid: every overlapping pair of a box set, once.

A coarse grid over the two axes other than the sweep axis cuts space into columns; a box
is entered in every column it touches; each column is sorted by lo on the sweep axis and
swept (Terdiman's box pruning, run per region as in PhysX's multi-box pruning). A pair
shared by several columns is reported only in the column holding the low corner of the
pair's overlap, so it comes out once with no hash set.

Entries of the column sweep are records ``rec[e] = (x lo, x hi, u lo, u hi, v lo, v hi)``
(sweep axis x, grid axes u, v; fewer columns in 1D/2D) and tags
``tag[e] = id << 2 | flags``: flag bit 0 says the box's lo on u falls in this column's
row, bit 1 the same for v. Two boxes in a column both reach it, so the column holds their
overlap's low corner exactly when each of the two flags is set in one of them.
"""

import numpy as np
from numba import njit, prange

from hitbox._kernels.pair_codes import bit_length, radix_sort, sorted_pairs

#: tag bits below the box id
_FLAG_BITS = 2
_BOTH = 3


# -- the grid --------------------------------------------------------------------------


@njit(inline="always")
def _cell(x, origin, scale, g):
    """Grid cell floor((x - origin) * scale) clamped to [0, g - 1]; monotone in x."""
    if g == 1:
        return 0
    q = (x - origin) * scale
    if q < 1.0:  # also -inf
        return 0
    if q >= g - 1:  # also +inf
        return g - 1
    return int(q)


@njit(inline="always")
def _span(boxes, i, k, origin, scale, g):
    """First and last cell box i covers along axis k (0, 0 when there is no such axis)."""
    if k < 0:
        return 0, 0
    return _cell(boxes[i, 0, k], origin, scale, g), _cell(
        boxes[i, 1, k], origin, scale, g
    )


@njit(inline="always")
def _scalars(axes, origin, scale, gdim):
    """The grid as a tuple of scalars (sweep axis x, grid axes u and v).

    Kernels unpack it once: read from arrays inside a loop that also stores to arrays,
    the grid would be loaded again after every store, since the compiler cannot rule out
    that the arrays overlap.
    """
    return (
        axes[0], axes[1], axes[2],
        origin[0], scale[0], gdim[0],
        origin[1], scale[1], gdim[1],
        origin[2], scale[2], gdim[2],
    )  # fmt: skip


@njit(inline="always")
def _spans_of(boxes, i, g):
    """Column spans (u0, u1, v0, v1) of non-empty box i."""
    ax, au, av, ox, sx, gx, ou, su, gu, ov, sv, gv = g
    u0, u1 = _span(boxes, i, au, ou, su, gu)
    v0, v1 = _span(boxes, i, av, ov, sv, gv)
    return u0, u1, v0, v1


@njit(cache=True, nogil=True)
def column_entries(boxes, axes, origin, scale, gdim):
    """How many (box, column) entries a grid makes: its cost, known before building it."""
    g = _scalars(axes, origin, scale, gdim)
    total = 0
    for i in range(len(boxes)):
        if boxes[i, 0, 0] > boxes[i, 1, 0]:
            continue
        u0, u1, v0, v1 = _spans_of(boxes, i, g)
        total += (u1 - u0 + 1) * (v1 - v0 + 1)
    return total


@njit(cache=True, nogil=True)
def _column_order(boxes, axes, origin, scale, gdim, nb):
    """Box ids of every entry, grouped by column and roughly by lo on the sweep axis.

    Codes (column, cell of lo on the sweep axis, id) are radix sorted on their key
    bits; the sweep-axis cell leaves only small local disorder for the insertion sort
    that follows.
    Returns (ids (E,), colstart (ncol + 1,)).
    """
    g = _scalars(axes, origin, scale, gdim)
    ax, au, av, ox, sx, gx, ou, su, gu, ov, sv, gv = g
    ncol = gu * gv
    colstart = np.zeros(ncol + 1, np.intp)
    n_entries = column_entries(boxes, axes, origin, scale, gdim)
    codes = np.empty(n_entries, np.int64)
    p = 0
    for i in range(len(boxes)):
        if boxes[i, 0, 0] > boxes[i, 1, 0]:
            continue
        u0, u1, v0, v1 = _spans_of(boxes, i, g)
        xq = _cell(boxes[i, 0, ax], ox, sx, gx)
        for u in range(u0, u1 + 1):
            for v in range(v0, v1 + 1):
                c = u * gv + v
                colstart[c + 1] += 1
                codes[p] = (np.int64(c * gx + xq) << nb) | i
                p += 1
    for c in range(ncol):
        colstart[c + 1] += colstart[c]
    codes = radix_sort(codes, nb, bit_length(ncol * gx))
    mask = (np.int64(1) << nb) - 1
    ids = np.empty(n_entries, np.intp)
    for e in range(n_entries):
        ids[e] = codes[e] & mask
    return ids, colstart


@njit(cache=True, nogil=True)
def home_order(boxes, axes, origin, scale, gdim):
    """Slots sorted by the column of their box's low corner, then by lo on the sweep axis.

    The incremental sweep keeps its boxes in this order, so each column's entries read
    neighbouring rows (four runs of them) instead of rows anywhere in memory.
    """
    n = len(boxes)
    nb = bit_length(n)
    g = _scalars(axes, origin, scale, gdim)
    ax, au, av, ox, sx, gx, ou, su, gu, ov, sv, gv = g
    keyed = np.empty(n, np.int64)
    last = np.int64(gu * gv * gx)
    for s in range(n):
        if boxes[s, 0, 0] > boxes[s, 1, 0]:
            key = last
        else:
            u0, _, v0, _ = _spans_of(boxes, s, g)
            xq = _cell(boxes[s, 0, ax], ox, sx, gx)
            key = np.int64((u0 * gv + v0) * gx + xq)
        keyed[s] = (key << nb) | s
    keyed = radix_sort(keyed, nb, bit_length(last + 1))
    mask = (np.int64(1) << nb) - 1
    order = np.empty(n, np.intp)
    for s in range(n):
        order[s] = keyed[s] & mask
    return order


# -- columns: entries sorted by lo on the sweep axis -----------------------------------


@njit(inline="always")
def _cross_slab(boxes, i, a, o, size, cells, c, rec, e, col):
    """Box i's slab on cross axis a (-1: none) into ``rec[e, col:col + 2]``: whether
    column c is the first cell it covers (always so without the axis), and whether it
    covers column c."""
    if a < 0:
        return True, True
    lo = boxes[i, 0, a]
    hi = boxes[i, 1, a]
    rec[e, col] = lo
    rec[e, col + 1] = hi
    first = _cell(lo, o, size, cells)
    return first == c, (first <= c) & (c <= _cell(hi, o, size, cells))


@njit
def _fill_entry(boxes, i, e, g, cu, cv, rec, tag):
    """Copy box i's slabs into record e of column (cu, cv) and tag it with its flags.

    Returns whether box i reaches that column (False for the empty box). Branch-free
    where it can be: callers write entries they may then drop.
    """
    ax, au, av, ox, sx, gx, ou, su, gu, ov, sv, gv = g
    x0 = boxes[i, 0, ax]
    x1 = boxes[i, 1, ax]
    rec[e, 0] = x0
    rec[e, 1] = x1
    reach = x0 <= x1
    first_u, reach_u = _cross_slab(boxes, i, au, ou, su, gu, cu, rec, e, 2)
    first_v, reach_v = _cross_slab(boxes, i, av, ov, sv, gv, cv, rec, e, 4)
    flags = np.int64(first_u) | (np.int64(first_v) << 1)
    reach &= reach_u & reach_v
    tag[e] = (np.int64(i) << _FLAG_BITS) | flags
    return reach


@njit(inline="always")
def _insertion_sort(rec, tag, first, end, row):
    """Sort entries [first, end) by lo on the sweep axis; quick when nearly sorted."""
    width = rec.shape[1]
    for e in range(first + 1, end):
        key = rec[e, 0]
        if rec[e - 1, 0] <= key:
            continue
        t = tag[e]
        for k in range(width):
            row[k] = rec[e, k]
        f = e - 1
        while f >= first and rec[f, 0] > key:
            for k in range(width):
                rec[f + 1, k] = rec[f, k]
            tag[f + 1] = tag[f]
            f -= 1
        for k in range(width):
            rec[f + 1, k] = row[k]
        tag[f + 1] = t


@njit(cache=True, nogil=True)
def _sort_columns(rec, tag, colstart):
    """Insertion sort of each column's entries by lo on the sweep axis (nearly sorted)."""
    row = np.empty(rec.shape[1])
    for c in range(len(colstart) - 1):
        _insertion_sort(rec, tag, colstart[c], colstart[c + 1], row)


@njit(cache=True, nogil=True)
def _gather_columns(boxes, ids, colstart, axes, origin, scale, gdim, rec, tag):
    g = _scalars(axes, origin, scale, gdim)
    gv = gdim[2]
    for c in range(len(colstart) - 1):
        cu = c // gv
        cv = c - cu * gv
        for e in range(colstart[c], colstart[c + 1]):
            _fill_entry(boxes, ids[e], e, g, cu, cv, rec, tag)


@njit(cache=True, nogil=True)
def sap_columns(boxes, axes, origin, scale, gdim):
    """Build the sorted columns: (rec (E, 2D), tag (E,), colstart (ncol + 1,))."""
    nb = bit_length(len(boxes))
    ids, colstart = _column_order(boxes, axes, origin, scale, gdim, nb)
    rec = np.zeros((len(ids), 2 * boxes.shape[2]))
    tag = np.empty(len(ids), np.int64)
    _gather_columns(boxes, ids, colstart, axes, origin, scale, gdim, rec, tag)
    _sort_columns(rec, tag, colstart)
    return rec, tag, colstart


# -- the sweep -------------------------------------------------------------------------


# Real-Time Collision Detection (Ericson), 7.5.2 sort and sweep, once per column
@njit
def _sweep(rec, tag, colstart, c_first, c_end, out, n, fill, nb, perm):
    """Sweep columns [c_first, c_end): count pairs, and with ``fill`` write their codes.

    Tags hold slots; ``perm`` maps a slot to the id written out (empty: slot = id).

    Writes are branch-free (``out[n] = code; n += hit``), so ``out`` needs one slot more
    than the pairs it will hold; past its end nothing is written, the count goes on.
    Returns the new count.
    """
    width = rec.shape[1]
    cap = len(out)
    relabel = len(perm) > 0
    for c in range(c_first, c_end):
        end = colstart[c + 1]
        for e in range(colstart[c], end):
            hi = rec[e, 1]
            te = tag[e]
            u0 = u1 = w0 = w1 = 0.0
            if width >= 4:
                u0 = rec[e, 2]
                u1 = rec[e, 3]
            if width >= 6:
                w0 = rec[e, 4]
                w1 = rec[e, 5]
            for f in range(e + 1, end):
                if rec[f, 0] > hi:
                    break
                tf = tag[f]
                hit = ((te | tf) & _BOTH) == _BOTH
                if width >= 4:
                    hit &= max(u0, rec[f, 2]) <= min(u1, rec[f, 3])
                if width >= 6:
                    hit &= max(w0, rec[f, 4]) <= min(w1, rec[f, 5])
                if fill and n < cap:
                    i = te >> _FLAG_BITS
                    j = tf >> _FLAG_BITS
                    if relabel:
                        i = perm[i]
                        j = perm[j]
                    out[n] = (min(i, j) << nb) | max(i, j)
                n += hit
    return n


@njit(cache=True, nogil=True)
def sweep_columns(rec, tag, colstart, nb, perm):
    """Count, then fill: the codes of every pair in the columns, unordered."""
    none = np.empty(0, np.int64)
    ncol = len(colstart) - 1
    n = _sweep(rec, tag, colstart, 0, ncol, none, 0, False, nb, perm)
    out = np.empty(n + 1, np.int64)
    _sweep(rec, tag, colstart, 0, ncol, out, 0, True, nb, perm)
    return out[:n]


@njit(cache=True, nogil=True)
def sweep_columns_guess(rec, tag, colstart, nb, perm, guess):
    """One pass into a buffer of ``guess`` pairs; a count-then-fill rerun if it was short.

    For the incremental structures, where last step's pair count is a close guess.
    """
    ncol = len(colstart) - 1
    out = np.empty(guess + 1, np.int64)
    n = _sweep(rec, tag, colstart, 0, ncol, out, 0, True, nb, perm)
    if n <= guess:
        return out[:n]
    return sweep_columns(rec, tag, colstart, nb, perm)


@njit(cache=True, nogil=True)
def _chunks(colstart, n_chunks):
    """Column ranges holding about equal numbers of entries."""
    ncol = len(colstart) - 1
    bounds = np.empty(n_chunks + 1, np.intp)
    bounds[0] = 0
    total = colstart[ncol]
    c = 0
    for t in range(1, n_chunks):
        target = total * t // n_chunks
        while c < ncol and colstart[c] < target:
            c += 1
        bounds[t] = c
    bounds[n_chunks] = ncol
    return bounds


@njit(cache=True, nogil=True, parallel=True)
def _sweep_chunks(rec, tag, colstart, bounds, nb, perm, start, buf, counts, fill):
    """Sweep chunk t's columns into buf[start[t]:start[t + 1]], chunks on threads."""
    none = np.empty(0, np.int64)
    for t in prange(len(bounds) - 1):
        part = buf[start[t] : start[t + 1]] if fill else none
        counts[t] = _sweep(
            rec, tag, colstart, bounds[t], bounds[t + 1], part, 0, fill, nb, perm
        )


@njit(cache=True, nogil=True)
def sweep_columns_parallel(rec, tag, colstart, nb, perm, n_chunks, per_entry):
    """Parallel twin of sweep_columns_guess: chunks of columns sweep side by side.

    Each chunk writes into its own slice of ``per_entry`` pairs per entry (plus spare
    slots for the branch-free writes); if any chunk overflows, all chunks count, then
    fill. A last pass closes the gaps between the chunks' slices. (Each parallel loop is
    its own kernel: a parallel loop after a reassignment of the array it writes was
    seen to write the old one.)
    """
    bounds = _chunks(colstart, n_chunks)
    start = np.zeros(n_chunks + 1, np.intp)
    for t in range(n_chunks):
        entries = colstart[bounds[t + 1]] - colstart[bounds[t]]
        start[t + 1] = start[t] + per_entry * entries + 17
    buf = np.empty(start[n_chunks], np.int64)
    counts = np.zeros(n_chunks, np.intp)
    _sweep_chunks(rec, tag, colstart, bounds, nb, perm, start, buf, counts, True)
    short = False
    for t in range(n_chunks):
        short |= counts[t] > start[t + 1] - start[t]
    if short:
        _sweep_chunks(rec, tag, colstart, bounds, nb, perm, start, buf, counts, False)
        for t in range(n_chunks):
            start[t + 1] = start[t] + counts[t] + 1
        buf = np.empty(start[n_chunks], np.int64)
        _sweep_chunks(rec, tag, colstart, bounds, nb, perm, start, buf, counts, True)
    out = np.empty(counts.sum(), np.int64)
    k = 0
    for t in range(n_chunks):
        out[k : k + counts[t]] = buf[start[t] : start[t] + counts[t]]
        k += counts[t]
    return out


# -- all pairs of a box set ------------------------------------------------------------


@njit(cache=True, nogil=True)
def _sap_prepare(boxes, axes, origin, scale, gdim):
    """Boxes gathered into home-column order, then the sorted columns over them.

    Box ids come in any order; read through them, the column entries would each miss the
    cache. One gather into the order of each box's home column first makes every later
    pass read memory in runs. Returns (perm: slot → id, rec, tag, colstart).
    """
    perm = home_order(boxes, axes, origin, scale, gdim)
    slots = np.empty_like(boxes)
    for s in range(len(perm)):
        slots[s] = boxes[perm[s]]
    rec, tag, colstart = sap_columns(slots, axes, origin, scale, gdim)
    return perm, rec, tag, colstart


@njit(cache=True, nogil=True)
def sap_pairs(boxes, axes, origin, scale, gdim):
    """Every overlapping pair by sort-and-sweep in the columns of a grid, sorted (2, n).

    The sweep first writes into a buffer of two pairs per entry, and counts, then fills,
    only when the boxes overlap more densely than that.
    """
    nb = bit_length(len(boxes))
    perm, rec, tag, colstart = _sap_prepare(boxes, axes, origin, scale, gdim)
    codes = sweep_columns_guess(rec, tag, colstart, nb, perm, 2 * len(tag) + 16)
    return sorted_pairs(codes, nb)


@njit(cache=True, nogil=True)
def sap_pairs_parallel(boxes, axes, origin, scale, gdim, n_chunks):
    """sap_pairs with the sweep split over threads (build and sort stay serial)."""
    nb = bit_length(len(boxes))
    perm, rec, tag, colstart = _sap_prepare(boxes, axes, origin, scale, gdim)
    codes = sweep_columns_parallel(rec, tag, colstart, nb, perm, n_chunks, 2)
    return sorted_pairs(codes, nb)
