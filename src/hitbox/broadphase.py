"""Broad phase: every overlapping pair of boxes within one set, each pair once (SPEC §9).

``pairs(boxes)`` answers one set. ``IncrementalSAP`` and ``DynamicTree`` keep state
between the steps of a scene that moves a little each step, and answer each step faster.

Every result is a ``(2, n)`` intp array of pairs ``i < j``, sorted by (i, j): the pair
A–B is reported once and never again as B–A (Box2D's rule). Intervals are closed, so
touching boxes overlap; empty boxes (lo > hi on some axis) overlap nothing.

How ``method="auto"`` chooses: brute force up to BRUTE_MAX boxes (where the grid's setup
costs more than testing every pair) and sort-and-sweep above, whose grid columns keep
the sweep short where a single sorted axis would not (every box overlapping every other
along each axis); the tree, slower on every scene tried but one, stays available by
name (the scenes and figures: benchmarks/README.md).
"""

import numbers

import numba
import numpy as np

from hitbox import _validate as v
from hitbox._kernels import box_scan as _scan
from hitbox._kernels import broadphase as _brute
from hitbox._kernels import implicit_tree as _tree
from hitbox._kernels import pair_codes as _codes
from hitbox._kernels import pair_filter as _filter
from hitbox._kernels import sort_sweep as _sap
from hitbox._kernels import sort_sweep_update as _sap_update

__all__ = ["METHODS", "pairs", "IncrementalSAP", "DynamicTree"]

#: Every bit of a group or mask set.
ALL_BITS = (1 << 64) - 1
#: Methods of :func:`pairs`.
METHODS = ("auto", "sap", "tree", "brute")
#: ``method="auto"`` tests every pair up to this many boxes.
BRUTE_MAX = 160
#: Grid columns are this many typical box extents wide (1.5 to 4 answer alike).
COLUMN_WIDTH = 2.0
#: The grid is coarsened while it would hold more than this many entries per box.
ENTRY_RATIO = 4.0
#: Boxes per leaf of the implicit tree (2 to 8 answer alike).
TREE_LEAF = 4
#: Boxes sampled for the grid's statistics.
SAMPLE = 2048
#: The sweep runs on all numba threads from this many boxes (None: never); below it
#: the threads cost more than they save (benchmarks/README.md).
PARALLEL_MIN = 10_000


def pairs(boxes, *, method="auto", groups=None, masks=None, ignore=None):
    """Every overlapping pair of boxes within one set, once, that the filters allow.

    Parameters
    ----------
    boxes : (N, 2, D) float
        Boxes, lo in row 0 and hi in row 1, D in 1..3.
    method : {"auto", "sap", "tree", "brute"}
        ``"sap"``: sort-and-sweep along the axis where boxes spread most, run in the
        columns of a coarse grid over the other axes. ``"tree"``: a Morton-ordered
        implicit tree collided with itself. ``"brute"``: every pair tested, the slow
        twin. ``"auto"``: brute up to BRUTE_MAX boxes, else sap (see the module notes).
    groups, masks : (N,) int bit sets in [0, 2**64), optional
        The Scene's rule (Box2D's category and mask bits): boxes i and j pair iff
        ``groups[i] & masks[j]`` and ``groups[j] & masks[i]`` are nonzero. Omitted:
        every group 1, every mask all bits.
    ignore : (m, 2) int, optional
        Index pairs never reported, in either order (the Scene's ``ignore``).

    Returns
    -------
    (2, n) intp
        Pairs ``i < j``, sorted by (i, j).

    Examples
    --------
    >>> i, j = pairs(boxes)        # boxes[i[k]] and boxes[j[k]] overlap, i[k] < j[k]
    """
    boxes, _ = _as_boxes(boxes)
    method = v.check_choice(method, "method", METHODS)
    filters = _filters(len(boxes), groups, masks, ignore)
    if len(boxes) < 2:
        return np.empty((2, 0), np.intp)
    found = _pairs(boxes, method)
    if filters is None:
        return found
    return _filter.keep_allowed(found, *filters, _codes.bit_length(len(boxes)))


def _pairs(boxes, method):
    if method == "auto":
        method = "brute" if len(boxes) <= BRUTE_MAX else "sap"
    if method == "brute":
        return _brute.brute_pairs(boxes)
    if method == "tree":
        origin, scale = _morton_grid(boxes)
        return _tree.tree_pairs(boxes, origin, scale, TREE_LEAF)
    grid = _grid(boxes)
    if _parallel(len(boxes)):
        return _sap.sap_pairs_parallel(boxes, *grid, 4 * numba.get_num_threads())
    return _sap.sap_pairs(boxes, *grid)


def _filters(n, groups, masks, ignore):
    """(group, mask, ignore codes) for :func:`hitbox._kernels.pair_filter.keep_allowed`,
    or None when nothing is filtered."""
    if groups is None and masks is None and ignore is None:
        return None
    bits = groups is not None or masks is not None
    group = _bit_sets(groups, "groups", n, 1) if bits else np.empty(0, np.uint64)
    mask = _bit_sets(masks, "masks", n, ALL_BITS) if bits else np.empty(0, np.uint64)
    codes = np.empty(0, np.int64)
    if ignore is not None:
        pairs = np.asarray(ignore)
        if pairs.size == 0:  # [] or an empty array of any dtype: nothing ignored
            pairs = np.empty((0, 2), np.intp)
        if pairs.ndim != 2 or pairs.shape[1] != 2:
            raise ValueError(
                f"ignore must be (m, 2) index pairs, got shape {pairs.shape}"
            )
        if not np.issubdtype(pairs.dtype, np.integer):
            raise TypeError(f"ignore must hold ints, got {pairs.dtype}")
        if len(pairs) and (pairs.min() < 0 or pairs.max() >= n):
            raise ValueError(f"ignore holds an index outside [0, {n})")
        lo = np.minimum(pairs[:, 0], pairs[:, 1]).astype(np.int64)
        hi = np.maximum(pairs[:, 0], pairs[:, 1]).astype(np.int64)
        codes = np.unique((lo << _codes.bit_length(n)) | hi)
    return group, mask, codes


def _bit_sets(values, name, n, default):
    """(n,) uint64 bit sets from ints in [0, 2**64); None: every one ``default``."""
    if values is None:
        return np.full(n, default, np.uint64)
    # a list keeps Python's ints exact (numpy would make 2**64 - 1 beside 1 a float)
    arr = values if isinstance(values, np.ndarray) else np.array(values, dtype=object)
    if arr.dtype == object:
        if not all(isinstance(x, numbers.Integral) and not isinstance(x, bool | np.bool_)
                   for x in arr.ravel()):  # fmt: skip
            raise TypeError(f"{name} must hold int bit sets")
    elif not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must hold int bit sets, got {arr.dtype}")
    if arr.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), got {arr.shape}")
    if n and (int(arr.min()) < 0 or int(arr.max()) > ALL_BITS):
        raise ValueError(f"{name} must be in [0, 2**64)")
    return np.array([int(x) for x in arr], np.uint64)


def _as_boxes(boxes, name="boxes", dim=None):
    """``_validate.as_boxes`` with its NaN and empty-box scans fused into one pass."""
    arr, single = v.as_boxes(boxes, name, dim=dim, scan=False)
    bad, n_empty = _scan.scan_boxes(arr)
    if bad >= 0:
        raise ValueError(f"{name}[{bad}] contains NaN")
    return (v.canonical_empty(arr) if n_empty else arr), single


def _parallel(n):
    return PARALLEL_MIN is not None and n >= PARALLEL_MIN and numba.get_num_threads() > 1


# -- grids -------------------------------------------------------------------------------


def _sample(boxes):
    """Statistics of a strided sample of the bounded, non-empty boxes, or None if none.

    Returns (median extent (D,), robust lo (D,), robust hi (D,), share of boxes live).
    The robust bounds leave out the outer 0.5 % on each side, so a few far-away boxes do
    not stretch a grid over empty space; they fall in its edge cells, which is still
    correct, as every cell function here is only required to be monotone.
    """
    count, ext, lo, hi, live_share = _scan.sample_stats(
        boxes, max(1, len(boxes) // SAMPLE)
    )
    return (ext, lo, hi, live_share) if count else None


@np.errstate(over="ignore", divide="ignore", invalid="ignore")
def _grid(boxes):
    """Grid for the column sweep: (axes (3,), origin (3,), scale (3,), gdim (3,)).

    Index 0 is the sweep axis (its cells only pre-sort entries), 1 and 2 the grid axes
    (-1 when D < 3). The sweep axis is the one where boxes spread most relative to their
    size. Columns are COLUMN_WIDTH typical extents wide, at most about one per four
    boxes, and coarsened while boxes would make more than ENTRY_RATIO entries each.

    Spans near the largest or the smallest float overflow to inf in the sizing below;
    cell counts are capped and infinite scales replaced at the end, so numpy's warnings
    about them would only alarm the caller.
    """
    n, _, d = boxes.shape
    axes = np.array([0, -1, -1], np.intp)
    origin = np.zeros(3)
    scale = np.ones(3)
    gdim = np.ones(3, np.intp)
    stats = _sample(boxes)
    if stats is None:
        return axes, origin, scale, gdim
    ext, lo, hi, live_share = stats
    live = max(1, int(live_share * n))
    span = hi - lo
    span = np.where(np.isfinite(span) & (span > 0), span, 0.0)
    spread = np.where(span > 0, span / np.maximum(ext, span * 1e-9), 0.0)
    sweep = int(np.argmax(spread))
    others = [a for a in range(d) if a != sweep]
    axes[0] = sweep
    axes[1 : 1 + len(others)] = others
    cap = max(1, int(np.sqrt(n / 4))) if d == 3 else max(1, n // 4)
    for slot in (1, 2):
        a = axes[slot]
        if a < 0 or span[a] == 0:
            continue
        width = COLUMN_WIDTH * ext[a]
        cells = span[a] / width if width > 0 else np.inf
        gdim[slot] = int(min(max(np.ceil(cells), 1), cap))
        origin[slot] = lo[a]
        scale[slot] = gdim[slot] / span[a]
    entries = _sap.column_entries(boxes, axes, origin, scale, gdim)
    while gdim[1] * gdim[2] > 1 and entries > ENTRY_RATIO * live:
        for slot in (1, 2):
            if gdim[slot] > 1:
                gdim[slot] = (gdim[slot] + 1) // 2
                scale[slot] = gdim[slot] / span[axes[slot]]
        entries = _sap.column_entries(boxes, axes, origin, scale, gdim)
    # sweep-axis cells pre-sort each column for its insertion sort: about two per entry,
    # within the bits the radix key has beside the box index
    ncol = int(gdim[1] * gdim[2])
    if span[sweep] > 0:
        key_room = (1 << (62 - int(_codes.bit_length(n)))) // ncol
        cells = np.ceil(span[sweep] / ext[sweep]) if ext[sweep] > 0 else 4 * live
        gdim[0] = max(1, min(max(2 * entries // ncol + 1, cells), 4 * live, key_room))
        origin[0] = lo[sweep]
        scale[0] = gdim[0] / span[sweep]
    # a cell function must stay monotone: an infinite scale (span near the smallest
    # float) would give NaN at the origin, so such an axis gets one cell
    bad = ~np.isfinite(scale)
    gdim[bad], scale[bad] = 1, 1.0
    return axes, origin, scale, gdim


def _morton_grid(boxes):
    """Origin and scale that map box centres onto the Morton code's integer grid.

    Over the sample's robust bounds (see :func:`_sample`); boxes beyond them clamp.
    """
    d = boxes.shape[2]
    stats = _sample(boxes)
    if stats is None:
        return np.zeros(d), np.zeros(d)
    _, lo, hi, _ = stats
    with np.errstate(over="ignore", invalid="ignore"):
        span = hi - lo
        good = np.isfinite(span) & (span > 0)
        scale = np.where(good, ((1 << (30 // d)) - 1) / np.where(good, span, 1.0), 0.0)
    return np.ascontiguousarray(lo, dtype=np.float64), np.ascontiguousarray(scale)


# -- incremental structures --------------------------------------------------------------


class _Tracker:
    """Ids, and the box table in slot order, shared by the incremental structures.

    Each box has a stable integer id: the rows of the boxes given at construction are ids
    0..N-1; ``add`` hands out new ids, the lowest free one first (Box2D reuses proxy ids
    the same way), and ``remove`` frees them. Internally each id has a slot, and the
    table is kept in slot order, which each structure chooses so that boxes near in space
    are near in memory (``_perm``: slot → id, ``_slot``: id → slot). A free id holds the
    empty box, which overlaps nothing, so the kernels never ask which ids are live.
    """

    def __init__(self, boxes=None, *, dim=None):
        if boxes is None:
            if dim is None:
                raise ValueError("give boxes, or dim for an empty structure")
            dim = v.check_count(dim, "dim")
            if dim > 3:
                raise ValueError(f"dim must be 1, 2 or 3, got {dim}")
            boxes = np.empty((0, 2, dim))
        table, _ = _as_boxes(boxes, dim=dim)
        self._dim = table.shape[2]
        self._table = table.copy()  # slot order
        self._spare = np.empty_like(self._table)
        self._perm = np.arange(len(table), dtype=np.intp)
        self._slot = self._perm.copy()
        self._live = np.ones(len(table), bool)
        self._guess = 0
        self._dirty = True

    # -- ids and table -------------------------------------------------------------------

    @property
    def dim(self):
        """D: every box has shape (2, D)."""
        return self._dim

    @property
    def size(self):
        """One more than the largest id handed out: the rows ``update(boxes)`` takes."""
        return len(self._perm)

    @property
    def ids(self):
        """(n,) intp: the live ids, increasing."""
        return np.flatnonzero(self._live)

    @property
    def boxes(self):
        """(size, 2, D) float: each id's box (a copy); free ids hold the empty box."""
        return self._table[self._slot]

    def add(self, boxes):
        """Add boxes; return their ids ((k,) intp, or an int for a single (2, D) box)."""
        new, single = _as_boxes(boxes, dim=self._dim)
        free = np.flatnonzero(~self._live)[: len(new)]
        n_fresh = len(new) - len(free)
        if n_fresh:  # fresh ids take fresh slots at the end, empty until set below
            size = self.size
            fresh = np.arange(size, size + n_fresh, dtype=np.intp)
            self._perm = np.concatenate([self._perm, fresh])
            self._slot = np.concatenate([self._slot, fresh])
            self._live = np.concatenate([self._live, np.zeros(n_fresh, bool)])
            grown = np.empty((size + n_fresh, 2, self._dim))
            grown[:size] = self._table
            grown[size:] = _empty(self._dim)
            self._table, self._spare = grown, np.empty_like(grown)
            self._resized(n_fresh)
        else:
            fresh = np.empty(0, np.intp)
        ids = np.concatenate([free, fresh])
        self._table[self._slot[ids]] = new
        self._live[ids] = True
        return int(ids[0]) if single else ids

    def remove(self, ids):
        """Remove boxes by id (an int or a sequence); their ids become free."""
        ids = self._check_ids(ids)
        self._table[self._slot[ids]] = _empty(self._dim)
        self._live[ids] = False

    def update(self, boxes=None, *, ids=None):
        """Move boxes and return every overlapping pair of ids, once, sorted (2, n) intp.

        ``boxes`` is ``(size, 2, D)``, one row per id (rows of free ids are ignored), or
        with ``ids`` the new boxes of just those ids. With neither, the pairs of the
        boxes as they are (after ``add`` or ``remove``). A rejected call changes nothing.
        """
        if boxes is not None and ids is None:
            arr, _ = v.as_boxes(boxes, dim=self._dim, scan=False)
            if len(arr) != self.size:
                raise ValueError(
                    f"boxes must have one row per id ({self.size}), got {len(arr)}; "
                    "pass ids= to move some of them"
                )
            bad = _scan.gather_boxes(arr, self._perm, self._live, self._spare)
            if bad >= 0:
                raise ValueError(f"boxes[{bad}] contains NaN")
            self._table, self._spare = self._spare, self._table
        elif boxes is not None:
            index = self._check_ids(ids)
            new, _ = _as_boxes(boxes, dim=self._dim)
            if len(new) != len(index):
                raise ValueError(
                    f"boxes must have one row per id in ids ({len(index)}), "
                    f"got {len(new)}"
                )
            self._table[self._slot[index]] = new
        elif ids is not None:
            raise ValueError("ids given without boxes")
        if self.size == 0:
            return np.empty((2, 0), np.intp)
        nb = _codes.bit_length(self.size)
        if self.size <= BRUTE_MAX:  # as pairs() does: the structures cost more here
            self._dirty = True
            return _codes.sorted_pairs(
                _brute.brute_codes(self._table, self._perm, nb), nb
            )
        codes = self._step()
        self._guess = int(1.125 * len(codes)) + 16
        return _codes.sorted_pairs(codes, nb)

    def _check_ids(self, ids):
        arr = np.asarray(ids)
        if arr.size == 0:
            return np.empty(0, np.intp)
        if arr.dtype.kind not in "iu":
            raise TypeError(f"ids must be integers, got dtype {arr.dtype}")
        if arr.ndim > 1:
            raise ValueError(
                f"ids must be an int or a 1-D sequence, got shape {arr.shape}"
            )
        arr = np.atleast_1d(arr).astype(np.intp)
        bad = (arr < 0) | (arr >= self.size)
        bad[~bad] = ~self._live[arr[~bad]]
        if bad.any():
            raise ValueError(
                f"ids[{int(np.argmax(bad))}] = {arr[bad][0]} is not a live id"
            )
        if len(np.unique(arr)) != len(arr):
            raise ValueError("ids must not repeat")
        return arr

    def _reorder(self, order):
        """Put the slots in a new ``order`` (new slot → old slot)."""
        self._table = np.ascontiguousarray(self._table[order])
        self._perm = self._perm[order]
        self._slot[self._perm] = np.arange(len(order), dtype=np.intp)

    def _resized(self, n_fresh):
        self._dirty = True


def _empty(dim):
    return np.array([[np.inf] * dim, [-np.inf] * dim])


class IncrementalSAP(_Tracker):
    """Sort-and-sweep with temporal coherence, for scenes that move a little each step.

    It keeps what :func:`pairs` with ``method="sap"`` builds: the grid's columns, each
    sorted by lo on the sweep axis. An update keeps every entry whose box still reaches
    its column in place with its new coordinates, puts entries for newly reached columns
    at the column's end, and restores the order with an insertion sort and a merge,
    which do few moves when boxes move little (Baraff 1992; Cohen et al. 1995,
    I-COLLIDE). Boxes are stored in the order of their columns, so an update reads
    memory in runs. The grid is built again when the boxes outgrow it, shrink well
    inside it, or many have changed columns since. The sweep writes into a buffer sized
    by the last step's pair count. The pairs are those of
    ``pairs(self.boxes, method="brute")``; up to BRUTE_MAX ids they are found so.

    Parameters
    ----------
    boxes : (N, 2, D) float, optional
        The first boxes: their ids are 0..N-1.
    dim : int, optional
        D, for a structure that starts empty.

    Examples
    --------
    >>> sap = IncrementalSAP(boxes)          # ids 0..N-1
    >>> i, j = sap.update(moved_boxes)       # one row per id
    >>> new_id = sap.add(box); sap.remove([3, 7])
    """

    #: Build the grid again when the boxes reach past it by more than this share of it.
    DRIFT = 0.25
    #: ... or when this share of the boxes has changed columns since it was built.
    CHURN = 0.5

    def __init__(self, boxes=None, *, dim=None):
        super().__init__(boxes, dim=dim)
        self._grid = None

    def _rebuild(self):
        self._grid = _grid(self._table)
        self._reorder(_sap.home_order(self._table, *self._grid))
        rec, tag, self._colstart = _sap.sap_columns(self._table, *self._grid)
        # this step's columns are the first colstart[-1] rows of these
        self._columns = (rec, tag)
        self._spare_columns = (np.empty_like(rec), np.empty_like(tag))
        n = self.size
        self._spans = np.empty((n, 4), np.intp)
        _sap_update.sap_spans(self._table, *self._grid, self._spans)
        self._moved = np.empty(n, np.intp)
        self._old_spans = np.empty((n, 4), np.intp)
        self._reach = _scan.bounds(self._table)[:2]
        self._churn = 0
        self._dirty = False

    def _resized(self, n_fresh):
        if self._grid is None:
            return
        empty_spans = np.tile(np.array([1, 0, 1, 0], np.intp), (n_fresh, 1))
        self._spans = np.concatenate([self._spans, empty_spans])
        self._moved = np.empty(self.size, np.intp)
        self._old_spans = np.empty((self.size, 4), np.intp)

    def _outgrown(self, lo, hi):
        """The boxes reach past the grid, or fill only half of it, on some axis."""
        g_lo, g_hi = self._reach
        with np.errstate(invalid="ignore", over="ignore"):
            margin = self.DRIFT * (g_hi - g_lo)
            past = np.any(lo < g_lo - margin) or np.any(hi > g_hi + margin)
            return bool(past or np.any(hi - lo < (1 - 2 * self.DRIFT) * (g_hi - g_lo)))

    def _step(self):
        n = self.size
        if self._dirty or self._grid is None:
            self._rebuild()
        else:
            n_moved, start, lo, hi = _sap_update.sap_plan(
                self._table, *self._grid, self._spans, self._colstart, self._moved,
                self._old_spans,
            )  # fmt: skip
            self._churn += n_moved
            n_entries = int(start[-1])
            if (
                self._churn > self.CHURN * n + 64
                or n_entries > 2 * ENTRY_RATIO * n
                or self._outgrown(lo, hi)
            ):
                self._rebuild()  # start from a fresh grid and a fresh order
            else:
                rec_full, tag_full = self._spare_columns
                if n_entries >= len(tag_full):
                    rec_full = np.empty((2 * n_entries + 1, rec_full.shape[1]))
                    tag_full = np.empty(2 * n_entries + 1, np.int64)
                old_tag = self._columns[1][: self._colstart[-1]]
                _sap_update.sap_refresh(
                    self._table, *self._grid, self._spans, old_tag, self._colstart,
                    self._moved[:n_moved], self._old_spans[:n_moved], start,
                    rec_full[: n_entries + 1], tag_full[: n_entries + 1],
                )  # fmt: skip
                self._spare_columns, self._columns = self._columns, (rec_full, tag_full)
                self._colstart = start
        n_entries = self._colstart[-1]
        rec, tag = self._columns[0][:n_entries], self._columns[1][:n_entries]
        nb = _codes.bit_length(n)
        if _parallel(n):
            per_entry = 2 * self._guess // max(n_entries, 1) + 1
            chunks = 4 * numba.get_num_threads()
            return _sap.sweep_columns_parallel(
                rec, tag, self._colstart, nb, self._perm, chunks, per_entry
            )
        return _sap.sweep_columns_guess(
            rec, tag, self._colstart, nb, self._perm, self._guess
        )


class DynamicTree(_Tracker):
    """An implicit Morton-ordered tree refitted each step: the alternative to
    :class:`IncrementalSAP`, with the same interface and the same pairs.

    A tree needs no grid, so it follows the density of a scene wherever it is; on the
    scenes measured (module notes) the column sweep was still faster, but for one: a
    dense lattice of tiny boxes amid larger ones. The boxes are stored in the tree's slot
    order, so an update refits the nodes bottom-up in one sequential pass (Box2D and
    Bullet refit their dynamic trees likewise); when the leaves have grown by REBUILD
    since the last build, the boxes are sorted into Morton order again. The tree is then
    collided with itself.
    """

    #: Sort the boxes again when the leaves' summed extents grow by this factor.
    REBUILD = 1.3

    def _rebuild(self):
        n = self.size
        origin, scale = _morton_grid(self._table)
        codes = np.empty(n, np.int64)
        _tree.morton_codes(self._table, origin, scale, codes)
        self._reorder(_tree.morton_perm(codes, _codes.bit_length(n)))
        p = _leaf_count(n)
        self._nodes = np.empty((2 * p - 1, 2, self._dim))
        self._quality = _tree.tree_refit(self._table, TREE_LEAF, self._nodes)
        self._dirty = False

    def _step(self):
        if self._dirty:
            self._rebuild()
        else:
            quality = _tree.tree_refit(self._table, TREE_LEAF, self._nodes)
            if quality > self.REBUILD * self._quality:
                self._rebuild()
        nb = _codes.bit_length(self.size)
        return _tree.tree_self_pairs(
            self._nodes, self._table, self._perm, TREE_LEAF, nb, self._guess
        )


def _leaf_count(n):
    """Leaves of the implicit tree over n boxes: a power of two."""
    n_leaves = max((n + TREE_LEAF - 1) // TREE_LEAF, 1)
    return 1 << (n_leaves - 1).bit_length()
