"""Broad-phase kernels: every overlapping pair within one box set, each pair once, i < j.

Three routes to one result, and the state updates of the two incremental structures:

- **Sort-and-sweep in columns** (``sap_*``). A coarse grid over the two axes other than
  the sweep axis cuts space into columns; a box is entered in every column it touches;
  each column is sorted by lo on the sweep axis and swept (Terdiman's box pruning, run
  per region as in PhysX's multi-box pruning). A pair shared by several columns is
  reported only in the column holding the low corner of the pair's overlap, so it comes
  out once with no hash set.
- **Implicit tree** (``tree_*``). Boxes in Morton order under a complete binary tree; the
  tree is collided with itself node pair by node pair (Coal ``selfCollisionRecurse``), so
  each pair of leaves meets once and no i < j filter runs.
- **Brute force** (``brute_pairs``): the slow twin, every pair tested.

Pairs travel as int64 codes ``i << nb | j`` (i < j, nb bits per index) and are put in
(i, j) order by an LSD radix sort: a few sequential passes with small bucket tables,
where a scatter into N rows would miss the cache on every write.

Entries of the column sweep are records ``rec[e] = (x lo, x hi, u lo, u hi, v lo, v hi)``
(sweep axis x, grid axes u, v; fewer columns in 1D/2D) and tags
``tag[e] = id << 2 | flags``: flag bit 0 says the box's lo on u falls in this column's
row, bit 1 the same for v. Two boxes in a column both reach it, so the column holds their
overlap's low corner exactly when each of the two flags is set in one of them.
"""

import numpy as np
from numba import njit, prange

from hitbox._kernels.slabs import slab_overlap

#: tag bits below the box id
_FLAG_BITS = 2
_BOTH = 3


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
    that the arrays overlap (measured: the refresh loop ran 3x slower).
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
def bit_length(n):
    """Bits needed to hold every integer in [0, n): at least 1."""
    b = 1
    while (np.int64(1) << b) < n:
        b += 1
    return b


@njit(cache=True, nogil=True)
def radix_sort(codes, shift, nbits):
    """Sort int64 ``codes`` by bits [shift, shift + nbits): stable LSD, digits <= 11 bits.

    Returns a sorted array: ``codes`` itself when no pass runs, else a new array. Each
    pass reads sequentially and writes into at most 2048 running buckets, which stay in
    cache (Knuth, TAOCP vol. 3, 5.2.5).
    """
    n = len(codes)
    passes = (nbits + 10) // 11
    if passes == 0 or n < 2:
        return codes
    b = (nbits + passes - 1) // passes
    mask = (np.int64(1) << b) - 1
    src = codes.copy()
    dst = np.empty_like(codes)
    hist = np.empty(1 << b, np.intp)
    for p in range(passes):
        s = shift + p * b
        hist[:] = 0
        for k in range(n):
            hist[(src[k] >> s) & mask] += 1
        total = 0
        for k in range(1 << b):
            c = hist[k]
            hist[k] = total
            total += c
        for k in range(n):
            v = src[k]
            d = (v >> s) & mask
            dst[hist[d]] = v
            hist[d] += 1
        src, dst = dst, src
    return src


@njit(cache=True, nogil=True)
def decode_pairs(codes, nb):
    """(2, n) intp pairs from sorted codes ``i << nb | j``."""
    mask = (np.int64(1) << nb) - 1
    out = np.empty((2, len(codes)), np.intp)
    for k in range(len(codes)):
        out[0, k] = codes[k] >> nb
        out[1, k] = codes[k] & mask
    return out


@njit(cache=True, nogil=True)
def sorted_pairs(codes, nb):
    """Codes of unordered pairs → (2, n) intp pairs sorted by (i, j)."""
    return decode_pairs(radix_sort(codes, 0, 2 * nb), nb)


@njit(cache=True, nogil=True)
def scan_boxes(boxes):
    """One read for validation: (first row holding NaN or -1, rows with lo > hi).

    An empty box already in canonical form (lo = +inf, hi = -inf everywhere) is not
    counted: only the others need rewriting.
    """
    d = boxes.shape[2]
    n_empty = 0
    for i in range(len(boxes)):
        nan = False
        empty = False
        canonical = True
        for k in range(d):
            lo = boxes[i, 0, k]
            hi = boxes[i, 1, k]
            nan |= (lo != lo) | (hi != hi)
            empty |= lo > hi
            canonical &= (lo == np.inf) & (hi == -np.inf)
        if nan:
            return i, n_empty
        n_empty += empty & ~canonical
    return -1, n_empty


@njit(cache=True, nogil=True)
def bounds(boxes):
    """(min finite lo (D,), max finite hi (D,), non-empty boxes) in one pass."""
    d = boxes.shape[2]
    lo = np.full(d, np.inf)
    hi = np.full(d, -np.inf)
    live = 0
    for i in range(len(boxes)):
        if boxes[i, 0, 0] > boxes[i, 1, 0]:
            continue
        live += 1
        for k in range(d):
            a = boxes[i, 0, k]
            b = boxes[i, 1, k]
            if a > -np.inf:
                lo[k] = min(lo[k], a)
            if b < np.inf:
                hi[k] = max(hi[k], b)
    return lo, hi, live


@njit(cache=True, nogil=True)
def sample_stats(boxes, step):
    """Statistics of every ``step``-th box, over those bounded and non-empty.

    Returns (count, median extent (D,), 0.5th percentile of lo (D,), 99.5th percentile of
    hi (D,), live share of the sample); percentiles by nearest rank.
    """
    d = boxes.shape[2]
    n_seen = 0
    n_live = 0
    m = 0
    rows = np.empty((len(boxes) + step - 1) // step, np.intp)
    for i in range(0, len(boxes), step):
        n_seen += 1
        if boxes[i, 0, 0] > boxes[i, 1, 0]:
            continue
        n_live += 1
        ok = True
        for k in range(d):
            ok &= (abs(boxes[i, 0, k]) < np.inf) & (abs(boxes[i, 1, k]) < np.inf)
        if ok:
            rows[m] = i
            m += 1
    ext = np.zeros(d)
    lo = np.zeros(d)
    hi = np.zeros(d)
    if m == 0:
        return 0, ext, lo, hi, 0.0
    col = np.empty(m)
    low = int(0.005 * (m - 1))
    high = int(0.995 * (m - 1) + 0.5)
    for k in range(d):
        for q in range(m):
            col[q] = boxes[rows[q], 1, k] - boxes[rows[q], 0, k]
        ext[k] = np.median(col)
        for q in range(m):
            col[q] = boxes[rows[q], 0, k]
        lo[k] = np.partition(col, low)[low]
        for q in range(m):
            col[q] = boxes[rows[q], 1, k]
        hi[k] = np.partition(col, high)[high]
    return m, ext, lo, hi, n_live / max(n_seen, 1)


# -- brute force: the oracle's kernel form ---------------------------------------------


# Coal NaiveCollisionManager: every pair, the twin to check the others against
@njit(cache=True, nogil=True)
def brute_pairs(boxes):
    """Every pair i < j tested (slabs.slab_overlap); count, then fill; already sorted."""
    n = len(boxes)
    count = 0
    for i in range(n):
        for j in range(i + 1, n):
            if slab_overlap(boxes, i, boxes, j):
                count += 1
    out = np.empty((2, count), np.intp)
    count = 0
    for i in range(n):
        for j in range(i + 1, n):
            if slab_overlap(boxes, i, boxes, j):
                out[0, count] = i
                out[1, count] = j
                count += 1
    return out


@njit(cache=True, nogil=True)
def brute_codes(boxes, perm, nb):
    """brute_pairs over boxes in slot order, as codes of ids (``perm``: slot → id)."""
    n = len(boxes)
    count = 0
    for s in range(n):
        for t in range(s + 1, n):
            count += slab_overlap(boxes, s, boxes, t)
    out = np.empty(count, np.int64)
    count = 0
    for s in range(n):
        for t in range(s + 1, n):
            if slab_overlap(boxes, s, boxes, t):
                i = perm[s]
                j = perm[t]
                out[count] = (np.int64(min(i, j)) << nb) | max(i, j)
                count += 1
    return out


# -- sort-and-sweep in columns -----------------------------------------------------------


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
    flags = np.int64(0)
    if au >= 0:
        lo = boxes[i, 0, au]
        hi = boxes[i, 1, au]
        rec[e, 2] = lo
        rec[e, 3] = hi
        first = _cell(lo, ou, su, gu)
        flags |= np.int64(first == cu)
        reach &= (first <= cu) & (cu <= _cell(hi, ou, su, gu))
    else:
        flags |= 1
    if av >= 0:
        lo = boxes[i, 0, av]
        hi = boxes[i, 1, av]
        rec[e, 4] = lo
        rec[e, 5] = hi
        first = _cell(lo, ov, sv, gv)
        flags |= np.int64(first == cv) << 1
        reach &= (first <= cv) & (cv <= _cell(hi, ov, sv, gv))
    else:
        flags |= 2
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


# -- incremental sort-and-sweep ----------------------------------------------------------


@njit(cache=True, nogil=True)
def gather_boxes(src, perm, live, dst):
    """Validate and copy in one read: dst[s] = src[perm[s]], the structures' slot order.

    Ids not ``live`` get the empty box; a box with lo > hi somewhere becomes the
    canonical empty box. Returns the id of a box holding NaN (dst is then partly
    written), or -1.
    """
    d = src.shape[2]
    for s in range(len(perm)):
        i = perm[s]
        empty = not live[i]
        nan = False
        if not empty:
            for k in range(d):
                lo = src[i, 0, k]
                hi = src[i, 1, k]
                dst[s, 0, k] = lo
                dst[s, 1, k] = hi
                nan |= (lo != lo) | (hi != hi)
                empty |= lo > hi
        if nan:
            return i
        if empty:
            for k in range(d):
                dst[s, 0, k] = np.inf
                dst[s, 1, k] = -np.inf
    return -1


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
    Returns (number moved, new colstart, bounds as :func:`bounds` gives them).
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
            for k in range(d):
                a = boxes[i, 0, k]
                b = boxes[i, 1, k]
                if a > -np.inf:
                    lo[k] = min(lo[k], a)
                if b < np.inf:
                    hi[k] = max(hi[k], b)
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


# -- implicit tree, collided with itself -------------------------------------------------


# Lauterbach et al. 2009, "Fast BVH construction on GPUs": Morton order as the tree
@njit(cache=True, nogil=True)
def morton_codes(boxes, origin, scale, codes):
    """30-bit Morton codes of box centres on a fixed grid; empty and unbounded last."""
    d = boxes.shape[2]
    bits = 30 // d
    top = (1 << bits) - 1
    for i in range(len(boxes)):
        code = np.int64(0)
        bad = boxes[i, 0, 0] > boxes[i, 1, 0]
        for k in range(d):
            c = 0.5 * boxes[i, 0, k] + 0.5 * boxes[i, 1, k]
            if not abs(c) < np.inf:
                bad = True
                break
            q = (c - origin[k]) * scale[k]
            cell = 0 if not q > 0.0 else (top if q >= top else int(q))
            for bit in range(bits):
                if cell & (1 << bit):
                    code |= np.int64(1) << (bit * d + k)
        codes[i] = (np.int64(1) << 30) if bad else code


@njit(cache=True, nogil=True)
def morton_perm(codes, nb):
    """Slot → id: ids stably sorted by Morton code (radix on 31 code bits)."""
    n = len(codes)
    keyed = np.empty(n, np.int64)
    for i in range(n):
        keyed[i] = (codes[i] << nb) | i
    keyed = radix_sort(keyed, nb, 31)
    mask = (np.int64(1) << nb) - 1
    perm = np.empty(n, np.intp)
    for s in range(n):
        perm[s] = keyed[s] & mask
    return perm


# Box2D b2DynamicTree / Bullet btDbvt: refit bottom-up instead of rebuilding each step
@njit(cache=True, nogil=True)
def tree_refit(slot_boxes, leaf, nodes):
    """Refit the implicit tree over boxes in slot order, bottom-up.

    ``nodes`` (2P - 1, 2, D): node m has children 2m + 1, 2m + 2; leaf l = P - 1 + l holds
    slots [l * leaf, (l + 1) * leaf). Slots past the last box count as empty boxes.
    Returns the leaves' summed extents, the measure of tree quality for the rebuild rule
    (a leaf whose boxes drift apart grows).
    """
    n = len(slot_boxes)
    d = slot_boxes.shape[2]
    p = (len(nodes) + 1) // 2
    quality = 0.0
    for l in range(p):
        m = p - 1 + l
        for k in range(d):
            nodes[m, 0, k] = np.inf
            nodes[m, 1, k] = -np.inf
        for s in range(l * leaf, min((l + 1) * leaf, n)):
            for k in range(d):
                nodes[m, 0, k] = min(nodes[m, 0, k], slot_boxes[s, 0, k])
                nodes[m, 1, k] = max(nodes[m, 1, k], slot_boxes[s, 1, k])
        for k in range(d):
            ext = nodes[m, 1, k] - nodes[m, 0, k]
            if ext > 0.0 and ext < np.inf:
                quality += ext
    for m in range(p - 2, -1, -1):
        for k in range(d):
            nodes[m, 0, k] = min(nodes[2 * m + 1, 0, k], nodes[2 * m + 2, 0, k])
            nodes[m, 1, k] = max(nodes[2 * m + 1, 1, k], nodes[2 * m + 2, 1, k])
    return quality


@njit(inline="always")
def _emit(perm, s, t, out, n, cap, nb):
    if n < cap:
        i = perm[s]
        j = perm[t]
        out[n] = (np.int64(min(i, j)) << nb) | max(i, j)
    return n + 1


@njit
def _self_collide(nodes, slot_boxes, perm, leaf, stack, out, n, fill, nb):
    """Collide the implicit tree with itself: a stack of node pairs, (m, m) inside m.

    Inside a node: each child, and the two children against each other. Two nodes that
    overlap: in a complete tree they sit at the same depth, so both descend at once, and
    only child pairs that overlap are pushed (Coal ``selfCollisionRecurse`` with the
    overlap tests moved before the push). Two leaves: each box of one is tested against
    the other leaf's box before its boxes.
    """
    p = (len(nodes) + 1) // 2
    n_slots = len(perm)
    cap = len(out) if fill else 0
    top = 1
    stack[0, 0] = 0
    stack[0, 1] = 0
    while top > 0:
        top -= 1
        a = stack[top, 0]
        b = stack[top, 1]
        if a >= p - 1:  # leaves (both: same depth)
            fa = (a - (p - 1)) * leaf
            la = min(fa + leaf, n_slots)
            if a == b:
                for s in range(fa, la):
                    for t in range(s + 1, la):
                        if slab_overlap(slot_boxes, s, slot_boxes, t):
                            n = _emit(perm, s, t, out, n, cap, nb)
                continue
            fb = (b - (p - 1)) * leaf
            lb = min(fb + leaf, n_slots)
            for s in range(fa, la):
                if not slab_overlap(slot_boxes, s, nodes, b):
                    continue
                for t in range(fb, lb):
                    if slab_overlap(slot_boxes, s, slot_boxes, t):
                        n = _emit(perm, s, t, out, n, cap, nb)
            continue
        a0 = 2 * a + 1
        a1 = a0 + 1
        if a == b:
            if nodes[a, 0, 0] > nodes[a, 1, 0]:
                continue  # an empty subtree
            stack[top, 0] = a0
            stack[top, 1] = a0
            stack[top + 1, 0] = a1
            stack[top + 1, 1] = a1
            top += 2
            if slab_overlap(nodes, a0, nodes, a1):
                stack[top, 0] = a0
                stack[top, 1] = a1
                top += 1
            continue
        b0 = 2 * b + 1
        b1 = b0 + 1
        for x in (a0, a1):
            for y in (b0, b1):
                if slab_overlap(nodes, x, nodes, y):
                    stack[top, 0] = x
                    stack[top, 1] = y
                    top += 1
    return n


@njit(cache=True, nogil=True)
def tree_depth(n_nodes):
    """Levels of a complete tree of n_nodes nodes."""
    depth = 1
    while (1 << depth) - 1 < n_nodes:
        depth += 1
    return depth


@njit(cache=True, nogil=True)
def tree_self_pairs(nodes, slot_boxes, perm, leaf, nb, guess):
    """Codes of every overlapping pair in the tree, unordered.

    With ``guess`` >= 0: one pass into a buffer of that many pairs, rerun exactly if it
    was short. With ``guess`` < 0: count, then fill.
    """
    # per level down a path, a self pair leaves 2 entries behind, a node pair 3
    stack = np.empty((4 * tree_depth(len(nodes)) + 4, 2), np.intp)
    if guess >= 0:
        out = np.empty(guess + 1, np.int64)
        n = _self_collide(nodes, slot_boxes, perm, leaf, stack, out, 0, True, nb)
        if n <= guess:
            return out[:n]
    none = np.empty(0, np.int64)
    n = _self_collide(nodes, slot_boxes, perm, leaf, stack, none, 0, False, nb)
    out = np.empty(n + 1, np.int64)
    _self_collide(nodes, slot_boxes, perm, leaf, stack, out, 0, True, nb)
    return out[:n]


@njit(cache=True, nogil=True)
def tree_pairs(boxes, origin, scale, leaf):
    """Every overlapping pair by a Morton-ordered implicit tree collided with itself."""
    n = len(boxes)
    nb = bit_length(n)
    codes = np.empty(n, np.int64)
    morton_codes(boxes, origin, scale, codes)
    perm = morton_perm(codes, nb)
    n_leaves = max((n + leaf - 1) // leaf, 1)
    p = 1
    while p < n_leaves:
        p *= 2
    nodes = np.empty((2 * p - 1, 2, boxes.shape[2]))
    slot_boxes = np.empty((n, 2, boxes.shape[2]))
    for s in range(n):
        slot_boxes[s] = boxes[perm[s]]
    tree_refit(slot_boxes, leaf, nodes)
    # one traversal into room for 4 pairs per box; count, then fill, if that was short
    return sorted_pairs(
        tree_self_pairs(nodes, slot_boxes, perm, leaf, nb, 4 * n + 16), nb
    )
