"""Broad phase: every method and both incremental structures against brute force."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hitbox as hb
from hitbox._kernels import pair_codes as kc
from hitbox._kernels import sort_sweep as ks
from tests import oracles
from tests.strategies import boxes, wide

bp = hb.broadphase
METHODS = ("brute", "sap", "tree", "auto")
STRUCTURES = (bp.IncrementalSAP, bp.DynamicTree)


def oracle_pairs(b):
    """Independent twin: the numpy broadcast oracle over all (i, j), kept where i < j."""
    p = oracles.overlap_pairs(b, b)
    return np.ascontiguousarray(p[:, p[0] < p[1]])


def check(b, method):
    got = bp.pairs(b, method=method)
    assert got.dtype == np.intp and got.shape[0] == 2
    np.testing.assert_array_equal(got, oracle_pairs(np.asarray(b, float)))


# -- scenes ------------------------------------------------------------------------------


def uniform(rng, n, d, overlaps=3.0):
    half = 0.5 * rng.uniform(0.5, 1.5, (n, d))
    side = (n * 2.0**d / overlaps) ** (1 / d)
    c = rng.uniform(0, side, (n, d))
    return np.stack([c - half, c + half], axis=1)


def integer_grid(rng, n, d):
    """Integer corners: faces, edges and corners touch all the time."""
    lo = rng.integers(0, max(2, int(n ** (1 / d))), (n, d)).astype(float)
    return np.stack([lo, lo + rng.integers(0, 3, (n, d))], axis=1)


def aligned(rng, n, d):
    """Every box shares one interval on each axis but the last: the sweep's worst case."""
    b = np.zeros((n, 2, d))
    b[:, 1, :] = 1.0
    b[:, 0, -1] = np.arange(n) * 0.9 + rng.uniform(0, 0.05, n)
    b[:, 1, -1] = b[:, 0, -1] + 1.0
    return b


def rods(rng, n, d):
    """Rods a quarter of the scene long, along a random axis each."""
    b = uniform(rng, n, d)
    b[np.arange(n), 1, rng.integers(0, d, n)] += 0.25 * (n * 2.0**d / 3.0) ** (1 / d)
    return b


def clusters_and_outliers(rng, n, d):
    centres = rng.uniform(0, 30, (5, d))[rng.integers(0, 5, n)] + rng.normal(
        0, 1.0, (n, d)
    )
    centres[:3] = rng.uniform(-1e12, 1e12, (3, d))
    half = rng.uniform(0.05, 0.5, (n, d))
    return np.stack([centres - half, centres + half], axis=1)


def mixed_sizes(rng, n, d):
    b = uniform(rng, n, d)
    big = rng.random(n) < 0.03
    b[big, 1] += 15.0
    tiny = rng.random(n) < 0.3
    b[tiny, 1] = b[tiny, 0] + rng.uniform(0, 1e-6, (tiny.sum(), d))
    return b


def points(rng, n, d):
    """Zero-size boxes on a coarse lattice: only coincident points overlap."""
    p = rng.integers(0, 6, (n, d)).astype(float)
    return np.stack([p, p], axis=1)


def extremes(rng, n, d):
    """Huge, tiny and infinite coordinates, empty boxes, unbounded boxes."""
    scale = rng.choice([1e-300, 1e-150, 1.0, 1e150, 1e300], size=(n, 1, 1))
    b = uniform(rng, n, d) * scale
    kind = rng.integers(0, 8, n)
    b[kind == 0] = b[kind == 0][:, ::-1]  # lo > hi: empty
    b[kind == 1, 0, 0] = -np.inf  # unbounded below on x
    b[kind == 2, 1, -1] = np.inf  # unbounded above on the last axis
    b[kind == 3] = np.array([[-np.inf] * d, [np.inf] * d])  # everything
    b[kind == 4] = np.array([[np.inf] * d, [np.inf] * d])  # a point at +inf
    return b


SCENES = {
    "uniform": uniform,
    "integer_grid": integer_grid,
    "aligned": aligned,
    "rods": rods,
    "clusters_and_outliers": clusters_and_outliers,
    "mixed_sizes": mixed_sizes,
    "points": points,
    "extremes": extremes,
}
CASES = [
    pytest.param(name, d, n, seed, id=f"{name}-D{d}-n{n}-seed{seed}")
    for seed, (name, d, n) in enumerate(
        (name, d, n) for name in SCENES for d in (1, 2, 3) for n in (7, 300, 1500)
    )
]


@pytest.mark.parametrize(("scene", "d", "n", "seed"), CASES)
def test_every_method_matches_the_oracle_on_scenes(scene, d, n, seed):
    b = SCENES[scene](np.random.default_rng(seed), n, d)
    expected = oracle_pairs(b)
    for method in METHODS:
        np.testing.assert_array_equal(
            bp.pairs(b, method=method), expected, err_msg=method
        )


@given(boxes(max_n=40))
def test_every_method_matches_the_oracle_hypothesis(b):
    for method in METHODS:
        check(b, method)


@given(boxes(max_n=25, elements=wide))
def test_huge_and_tiny_coordinates_hypothesis(b):
    for method in METHODS:
        check(b, method)


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("seed", range(40))
def test_extreme_coordinates_warn_nothing(seed):
    """Spans near the largest and smallest floats: right pairs, and no numpy warning
    from sizing the grid (it overflowed to inf silently in the kernels' favour, but
    warned the caller)."""
    rng = np.random.default_rng(seed)
    vals = [0.0, 1e-300, -1e-300, 5e-324, 1e300, -1e300, 1.7e308, -1.7e308, 1.0, 3.0]
    n, d = int(rng.integers(2, 12)), int(rng.integers(1, 4))
    lo = rng.choice(vals, size=(n, d))
    hi = lo + np.abs(rng.choice(vals[:6], size=(n, d)))
    b = np.stack([lo, np.minimum(hi, 1.7e308)], axis=1)
    for method in METHODS:
        check(b, method)


@settings(max_examples=30)
@given(st.integers(0, 2**32 - 1), st.integers(1, 3), st.integers(150, 600))
def test_larger_sets_with_touching_faces_hypothesis(seed, d, n):
    """Enough boxes for a grid of several columns, on integers so faces touch."""
    b = integer_grid(np.random.default_rng(seed), n, d)
    expected = oracle_pairs(b)
    for method in ("sap", "tree"):
        np.testing.assert_array_equal(bp.pairs(b, method=method), expected)


def test_touching_overlaps_and_empty_overlaps_nothing():
    b = np.array(
        [
            [[0.0, 0, 0], [1, 1, 1]],
            [[1.0, 1, 1], [2, 2, 2]],  # touches box 0 at a corner
            [[2.0, 0, 0], [3, 1, 1]],  # touches box 1 on an edge
            [[np.nextafter(3.0, 4), 0, 0], [4, 1, 1]],  # misses box 2 by one ulp
            [[0.5, 0.5, 0.5], [0.5, 0.5, 0.5]],  # a point inside box 0
            [[5.0, 5, 5], [0, 0, 0]],  # empty, though its corners span everything
            [[-np.inf] * 3, [np.inf] * 3],  # everything
        ]
    )
    expected = [[0, 0, 0, 1, 1, 2, 3, 4], [1, 4, 6, 2, 6, 6, 6, 6]]
    for method in METHODS:
        assert bp.pairs(b, method=method).tolist() == expected


def test_invariant_under_permutation_and_translation():
    rng = np.random.default_rng(5)
    b = uniform(rng, 800, 3)
    base = bp.pairs(b, method="sap")
    perm = rng.permutation(len(b))
    shifted = b[perm] + 1000.0  # a shift may round: judged by the oracle, not by base
    np.testing.assert_array_equal(bp.pairs(shifted, method="sap"), oracle_pairs(shifted))
    mapped = np.sort(perm[bp.pairs(b[perm], method="sap")], axis=0)
    mapped = mapped[:, np.lexsort((mapped[1], mapped[0]))]
    np.testing.assert_array_equal(mapped, base)


def test_empty_and_single_inputs():
    for method in METHODS:
        for shape in ((0, 2, 3), (0, 2, 1), (1, 2, 2)):
            out = bp.pairs(np.zeros(shape), method=method)
            assert out.shape == (2, 0) and out.dtype == np.intp
        assert bp.pairs(np.zeros((2, 3)), method=method).shape == (2, 0)  # one (2, D) box


@pytest.mark.parametrize(
    ("bad", "error", "match"),
    [
        (np.zeros((4, 3, 3)), ValueError, "boxes must have shape"),
        (np.zeros((4, 2, 4)), ValueError, "boxes must have shape"),
        (np.zeros((4,)), ValueError, "boxes must have shape"),
        (np.full((3, 2, 2), np.nan), ValueError, r"boxes\[0\] contains NaN"),
        (np.zeros((3, 2, 2), complex), TypeError, "boxes must hold real numbers"),
        ([[[0, 0], [1]], [[0, 0], [1, 1]]], ValueError, "boxes"),
    ],
)
def test_bad_input_raises_naming_the_argument(bad, error, match):
    with pytest.raises(error, match=match):
        bp.pairs(bad)


def test_nan_is_found_in_any_row_and_method_is_checked():
    b = uniform(np.random.default_rng(0), 50, 3)
    b[37, 1, 2] = np.nan
    with pytest.raises(ValueError, match=r"boxes\[37\] contains NaN"):
        bp.pairs(b)
    with pytest.raises(ValueError, match="method must be one of"):
        bp.pairs(b[:3], method="bvh")


def test_ints_and_bools_are_accepted():
    b = np.array([[[0, 0], [2, 2]], [[1, 1], [3, 3]], [[5, 5], [6, 6]]])
    assert bp.pairs(b).tolist() == [[0], [1]]
    assert bp.pairs(b.astype(bool)).tolist() == [[0, 0, 1], [1, 2, 2]]


# -- kernels -----------------------------------------------------------------------------


@given(st.lists(st.integers(0, 2**40 - 1), max_size=300), st.integers(0, 20))
def test_radix_sort_sorts_by_the_chosen_bits_stably(values, shift):
    codes = np.array(values, np.int64)
    got = kc.radix_sort(codes, shift, 40 - shift)
    key = codes >> shift
    np.testing.assert_array_equal(got, codes[np.argsort(key, kind="stable")])


def test_parallel_sweep_equals_serial():
    rng = np.random.default_rng(3)
    for d in (1, 2, 3):
        b = uniform(rng, 3000, d)
        grid = bp._grid(b)
        expected = ks.sap_pairs(b, *grid)
        for chunks in (1, 3, 16):
            np.testing.assert_array_equal(
                ks.sap_pairs_parallel(b, *grid, chunks), expected
            )
        perm, rec, tag, colstart = ks._sap_prepare(b, *grid)
        nb = kc.bit_length(len(b))
        short = ks.sweep_columns_parallel(rec, tag, colstart, nb, perm, 4, 0)  # overflows
        np.testing.assert_array_equal(kc.sorted_pairs(short, nb), expected)
        short = ks.sweep_columns_guess(rec, tag, colstart, nb, perm, 3)
        np.testing.assert_array_equal(kc.sorted_pairs(short, nb), expected)


def test_grid_keeps_entries_bounded_when_boxes_are_large():
    rng = np.random.default_rng(1)
    b = uniform(rng, 2000, 3)
    b[::10, 1] += 40.0  # a tenth of the boxes span most of the scene
    grid = bp._grid(b)
    assert ks.column_entries(b, *grid) <= bp.ENTRY_RATIO * len(b)
    np.testing.assert_array_equal(bp.pairs(b, method="sap"), oracle_pairs(b))


# -- incremental structures --------------------------------------------------------------


def _run(cls, rng, n, d, steps, motion=0.05, churn=True, teleport_every=0):
    """Random motion with adds and removes; every step against the oracle on the table."""
    b = uniform(rng, n, d)
    tracker = cls(b)
    table = b.copy()
    live = np.ones(n, bool)
    empty = np.array([[np.inf] * d, [-np.inf] * d])
    for step in range(steps):
        before = table.copy()
        with np.errstate(invalid="ignore"):
            centre, half = (
                0.5 * (table[:, 0] + table[:, 1]),
                0.5 * (table[:, 1] - table[:, 0]),
            )
            centre = centre + rng.uniform(-motion, motion, centre.shape)
            half = np.abs(half * rng.uniform(0.98, 1.02, half.shape))
            table = np.stack([centre - half, centre + half], axis=1)
        table[~live] = empty
        if teleport_every and step % teleport_every == teleport_every - 1:
            jump = rng.random(len(table)) < 0.5
            table[jump & live] += rng.uniform(-50, 50, (int((jump & live).sum()), 1, d))
        kind = step % 5
        if churn and kind == 1 and live.sum() > 4:
            gone = rng.choice(np.flatnonzero(live), 3, replace=False)
            tracker.remove(gone)
            live[gone] = False
            table[gone] = empty
        if churn and kind == 3:
            new = uniform(rng, int(rng.integers(1, 6)), d) * (n ** (1 / d) / 4)
            ids = np.atleast_1d(tracker.add(new))
            if ids.max() >= len(table):
                grow = ids.max() + 1 - len(table)
                table = np.concatenate([table, np.repeat(empty[None], grow, 0)])
                live = np.concatenate([live, np.zeros(grow, bool)])
            table[ids], live[ids] = new, True
        if kind == 4:  # move only some, by id; the others stay where they were
            some = np.flatnonzero(live)[::3]
            still = np.setdiff1d(np.arange(len(before)), some)
            table[still] = before[still]
            got = tracker.update(table[some], ids=some)
        elif kind == 2:  # rows of free ids are ignored, whatever they hold
            got = tracker.update(np.where(live[:, None, None], table, 0.0))
        else:
            got = tracker.update(table)
        expected = oracle_pairs(np.where(live[:, None, None], table, empty))
        np.testing.assert_array_equal(got, expected, err_msg=f"step {step}")
        assert tracker.size == len(table)
        np.testing.assert_array_equal(tracker.ids, np.flatnonzero(live))
    np.testing.assert_array_equal(tracker.boxes[live], bp._as_boxes(table[live])[0])


@pytest.mark.parametrize("cls", STRUCTURES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize(("n", "steps"), [(60, 200), (400, 300)])
def test_incremental_matches_brute_force_every_step(cls, d, n, steps):
    _run(cls, np.random.default_rng(100 * d + n), n, d, steps)


@pytest.mark.parametrize("cls", STRUCTURES, ids=lambda c: c.__name__)
def test_incremental_large_moves_and_teleports(cls):
    """Big motions: many column changes, drift past the grid, rebuilds."""
    _run(cls, np.random.default_rng(7), 1500, 3, 40, motion=0.6, teleport_every=9)


def test_parallel_paths_match(monkeypatch):
    """The threaded sweeps, switched on for small sets: pairs() and IncrementalSAP."""
    monkeypatch.setattr(bp, "PARALLEL_MIN", 0)
    rng = np.random.default_rng(21)
    for d in (1, 3):
        b = uniform(rng, 700, d)
        np.testing.assert_array_equal(bp.pairs(b), oracle_pairs(b))
    _run(bp.IncrementalSAP, rng, 400, 3, 30)


@pytest.mark.parametrize("cls", STRUCTURES, ids=lambda c: c.__name__)
def test_incremental_grows_from_empty(cls):
    rng = np.random.default_rng(11)
    tracker = cls(dim=2)
    assert tracker.update().shape == (2, 0)
    ids = tracker.add(uniform(rng, 500, 2))
    np.testing.assert_array_equal(ids, np.arange(500))
    one = tracker.add(np.array([[0.0, 0.0], [100.0, 100.0]]))
    assert one == 500
    np.testing.assert_array_equal(tracker.update(), oracle_pairs(tracker.boxes))
    tracker.remove([3, 500])
    assert tracker.add(np.zeros((2, 2, 2))).tolist() == [3, 500]  # freed ids come back
    np.testing.assert_array_equal(tracker.update(), oracle_pairs(tracker.boxes))


@pytest.mark.parametrize("cls", STRUCTURES, ids=lambda c: c.__name__)
def test_incremental_bad_input_changes_nothing(cls):
    rng = np.random.default_rng(2)
    b = uniform(rng, 300, 3)
    tracker = cls(b)
    before = tracker.update()
    bad = b.copy()
    bad[123, 0, 1] = np.nan
    with pytest.raises(ValueError, match=r"boxes\[123\] contains NaN"):
        tracker.update(bad)
    with pytest.raises(ValueError, match="one row per id"):
        tracker.update(b[:-1])
    with pytest.raises(ValueError, match="boxes must have shape"):
        tracker.update(np.zeros((300, 3, 3)))
    with pytest.raises(ValueError, match="2-dimensional|3-dimensional"):
        tracker.add(np.zeros((1, 2, 2)))
    with pytest.raises(ValueError, match="not a live id"):
        tracker.remove([5, 300])
    with pytest.raises(ValueError, match="not a live id"):
        tracker.update(b[:1], ids=[-1])
    with pytest.raises(ValueError, match="must not repeat"):
        tracker.remove([4, 4])
    with pytest.raises(TypeError, match="ids must be integers"):
        tracker.remove([1.5])
    with pytest.raises(ValueError, match="without boxes"):
        tracker.update(ids=[1])
    with pytest.raises(ValueError, match="one row per id in ids"):
        tracker.update(b[:3], ids=[1, 2])
    np.testing.assert_array_equal(tracker.update(), before)
    np.testing.assert_array_equal(tracker.boxes, b)


def test_incremental_needs_boxes_or_dim():
    with pytest.raises(ValueError, match="dim"):
        bp.IncrementalSAP()
    with pytest.raises(ValueError, match="dim must be"):
        bp.DynamicTree(dim=4)


# -- filters: groups, masks, ignore (the Scene's rule) ---------------------------------------


def _allowed_brute(b, groups, masks, ignore):
    """Every overlapping pair i < j, kept by the Scene's rule written out plainly."""
    bad = {(min(p), max(p)) for p in np.asarray(ignore).reshape(-1, 2).tolist()}
    keep = []
    for i, j in oracle_pairs(b).T.tolist():
        if groups[i] & masks[j] and groups[j] & masks[i] and (i, j) not in bad:
            keep.append((i, j))
    return np.array(keep, np.intp).reshape(-1, 2).T


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(2, 400),
    st.sampled_from(hb.broadphase.METHODS),
)
def test_filters_keep_exactly_what_the_rule_allows(seed, n, method):
    rng = np.random.default_rng(seed)
    lo = rng.uniform(0, 10, (n, 3))
    b = np.stack([lo, lo + rng.uniform(0.2, 3.0, (n, 3))], axis=1)
    groups = [
        int(x) for x in rng.choice(np.array([1, 2, 4, 2**63, 2**64 - 1], np.uint64), n)
    ]
    masks = [
        int(x) for x in rng.choice(np.array([1, 3, 6, 2**63, 2**64 - 1], np.uint64), n)
    ]
    ignore = rng.integers(0, n, (rng.integers(0, 40), 2))
    got = hb.broadphase.pairs(b, method=method, groups=groups, masks=masks, ignore=ignore)
    np.testing.assert_array_equal(got, _allowed_brute(b, groups, masks, ignore))
    only_ignore = hb.broadphase.pairs(b, method=method, ignore=ignore)
    everyone = [2**64 - 1] * n
    np.testing.assert_array_equal(
        only_ignore, _allowed_brute(b, everyone, everyone, ignore)
    )


def test_filters_are_the_scenes():
    """The same boxes, bits and ignore list in a Scene give the same pairs."""
    rng = np.random.default_rng(5)
    n = 60
    lo = rng.uniform(0, 6, (n, 3))
    b = np.stack([lo, lo + rng.uniform(0.5, 2.0, (n, 3))], axis=1)
    groups = rng.choice([1, 2, 4], n)
    masks = rng.choice([1, 3, 5, 7], n)
    ignore = rng.integers(0, n, (25, 2))
    ignore = ignore[ignore[:, 0] != ignore[:, 1]]
    scene = hb.Scene()
    for i in range(n):
        scene.add(b[i], group=int(groups[i]), mask=int(masks[i]))
    for i, j in ignore.tolist():
        scene.ignore(i, j)
    expected = scene.query().pairs
    got = hb.broadphase.pairs(b, groups=groups, masks=masks, ignore=ignore)
    np.testing.assert_array_equal(got, expected)
    assert 0 < got.shape[1] < hb.broadphase.pairs(b).shape[1]


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"groups": [1, 2]}, ValueError, "groups must have shape"),
        ({"masks": [1.5, 1, 1]}, TypeError, "masks must hold int"),
        ({"groups": [-1, 1, 1]}, ValueError, r"groups must be in \[0, 2\*\*64\)"),
        ({"groups": [2**64, 1, 1]}, ValueError, r"groups must be in"),
        ({"ignore": [[0, 3]]}, ValueError, "ignore holds an index"),
        ({"ignore": [0, 1, 2]}, ValueError, "ignore must be"),
        ({"ignore": [[0.0, 1.0]]}, TypeError, "ignore must hold ints"),
    ],
)
def test_bad_filters_raise_naming_the_argument(kwargs, error, match):
    b = np.array([[[0, 0, 0], [1, 1, 1]]] * 3, float)
    with pytest.raises(error, match=match):
        hb.broadphase.pairs(b, **kwargs)


def test_filters_on_empty_and_single_inputs():
    empty = np.empty((0, 2, 3))
    assert hb.broadphase.pairs(empty, groups=[], masks=[], ignore=[]).shape == (2, 0)
    one = np.array([[[0, 0, 0], [1, 1, 1]]], float)
    assert hb.broadphase.pairs(one, groups=[1], ignore=np.empty((0, 2), int)).shape == (
        2,
        0,
    )


@settings(max_examples=60, deadline=None)
@given(
    n_ids=st.integers(2, 300),
    n=st.integers(0, 400),
    seed=st.integers(0, 2**32 - 1),
)
def test_scene_pair_keys_sort_as_numpy_sorts_them(n_ids, n, seed):
    """The Scene's near keys ``i << 32 | j``: the counting sort (many keys for few ids)
    and the quicksort it falls back to (few keys, or ids outnumbering them) equal
    np.sort, duplicates and every i included."""
    rng = np.random.default_rng(seed)
    i = rng.integers(0, n_ids, n)
    j = rng.integers(0, n_ids, n)
    keys = (np.minimum(i, j).astype(np.int64) << 32) | np.maximum(i, j)
    got = keys.copy()
    kc.sort_pair_keys(got, n_ids)
    np.testing.assert_array_equal(got, np.sort(keys))
