import coal
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import hitbox as hb
from tests import oracles
from tests.strategies import affine, boxes, grid, points, wide

CUBE = np.array([[-1.0, -1.0, -1.0], [1.0, 1.0, 1.0]])


def _seed_matrices():
    """Seed 000's two placements of the cube of half-size 1."""
    c, s = np.cos(np.pi / 2), np.sin(np.pi / 2)
    translate = np.eye(4)
    translate[0, 3] = 1.0
    rot_y = np.array([[c, 0, s, 0], [0, 1, 0, 0], [-s, 0, c, 0], [0, 0, 0, 1.0]])
    scale = np.diag([0.5, 0.5, 0.5, 1.0])
    m1 = translate @ rot_y @ scale
    m2 = np.eye(4)
    m2[0, 3] = -0.5
    return m1, m2 @ scale


def test_seed_000_worked_example_exactly():
    m1, m2 = _seed_matrices()
    box1, box2 = hb.aabb.transform(CUBE, m1), hb.aabb.transform(CUBE, m2)
    np.testing.assert_array_equal(box1, [[0.5, -0.5, -0.5], [1.5, 0.5, 0.5]])
    np.testing.assert_array_equal(box2, [[-1.0, -0.5, -0.5], [0.0, 0.5, 0.5]])
    assert hb.aabb.overlap(box1, box2) is False
    assert box1[0, 0] - box2[1, 0] == 0.5  # the gap on x
    assert hb.aabb.is_empty(hb.aabb.intersection(box1, box2))
    # The exact route (refit the moved vertices) agrees here: a box rotated by 90 degrees.
    verts = hb.aabb.corners(CUBE)
    np.testing.assert_array_equal(hb.aabb.from_vertices(verts, transform=m1), box1)


def test_empty_box_conventions():
    e = hb.aabb.empty()
    assert e.shape == (2, 3) and np.all(e[0] == np.inf) and np.all(e[1] == -np.inf)
    assert hb.aabb.is_empty(e)
    assert hb.aabb.empty(4, dim=2).shape == (4, 2, 2)
    np.testing.assert_array_equal(hb.aabb.from_vertices(np.zeros((0, 3))), e)
    everything = np.array([[-np.inf] * 3, [np.inf] * 3])
    assert hb.aabb.overlap(e, everything) is False  # max(lo) <= min(hi) rejects this
    assert hb.aabb.overlap(everything, everything) is True
    assert hb.aabb.volume(e) == 0.0
    assert hb.aabb.overlap_pairs(
        np.array([e, everything]), np.array([e, everything])
    ).tolist() == [
        [1],
        [1],
    ]
    box = np.array([[0.0, 1, 2], [3, 4, 5]])
    np.testing.assert_array_equal(hb.aabb.union(box, e), box)
    # lo > hi on one axis only is still the empty box, made canonical
    np.testing.assert_array_equal(
        hb.aabb.union(np.array([[0, 2.0], [1, 1.0]]), e[:, :2]), e[:, :2]
    )


def test_touching_faces_edges_corners_overlap():
    a = np.array([[0.0, 0, 0], [1, 1, 1]])
    for shift in ([1, 0, 0], [1, 1, 0], [1, 1, 1], [0, -1, 0]):
        b = a + np.array(shift, float)
        assert hb.aabb.overlap(a, b) is True
        assert not hb.aabb.is_empty(hb.aabb.intersection(a, b))
    assert hb.aabb.overlap(a, a + [np.nextafter(1.0, 2.0), 0, 0]) is False
    point_box = np.array([[1.0, 1, 1], [1, 1, 1]])  # zero size
    assert hb.aabb.overlap(a, point_box) is True
    assert hb.aabb.contains_points(a, [1.0, 1.0, 1.0]) is True


@given(boxes(), st.data())
def test_overlap_elementwise_matches_oracle(a, data):
    b = data.draw(boxes(n=len(a), dim=a.shape[2]))
    np.testing.assert_array_equal(hb.aabb.overlap(a, b), oracles.box_overlap(a, b))
    # one against many broadcasts
    if len(a):
        np.testing.assert_array_equal(
            hb.aabb.overlap(a[0], b), oracles.box_overlap(np.repeat(a[:1], len(b), 0), b)
        )
    # swapping arguments changes nothing
    np.testing.assert_array_equal(hb.aabb.overlap(a, b), hb.aabb.overlap(b, a))


@given(boxes(max_n=30), st.data())
def test_overlap_pairs_matches_brute_force(a, data):
    b = data.draw(boxes(max_n=30, dim=a.shape[2]))
    expected = oracles.overlap_pairs(a, b)
    np.testing.assert_array_equal(hb.aabb.overlap_pairs(a, b), expected)
    np.testing.assert_array_equal(hb.aabb.overlap_pairs_brute(a, b), expected)
    np.testing.assert_array_equal(
        hb.aabb.overlap_pairs(b, a), expected[::-1][:, np.lexsort(expected)]
    )


@given(boxes(max_n=30), st.data())
def test_tree_path_matches_brute_force(a, data):
    """The implicit-tree route that large sets take, forced on small ones."""
    b = data.draw(boxes(max_n=30, dim=a.shape[2]))
    saved = hb.aabb.SWEEP_MAX
    hb.aabb.SWEEP_MAX = 0
    try:
        np.testing.assert_array_equal(
            hb.aabb.overlap_pairs(a, b), oracles.overlap_pairs(a, b)
        )
    finally:
        hb.aabb.SWEEP_MAX = saved


@given(boxes(max_n=20, elements=wide, dim=3), st.data())
def test_overlap_pairs_huge_and_tiny_coordinates(a, data):
    b = data.draw(boxes(max_n=20, elements=wide, dim=3))
    np.testing.assert_array_equal(
        hb.aabb.overlap_pairs(a, b), oracles.overlap_pairs(a, b)
    )


@given(boxes(max_n=20), st.data())
def test_overlap_pairs_invariant_under_translation_and_permutation(a, data):
    b = data.draw(boxes(max_n=20, dim=a.shape[2]))
    shift = data.draw(st.lists(grid, min_size=a.shape[2], max_size=a.shape[2]))
    base = hb.aabb.overlap_pairs(a, b)
    np.testing.assert_array_equal(hb.aabb.overlap_pairs(a + shift, b + shift), base)
    perm = np.random.default_rng(len(a)).permutation(len(a))
    moved = hb.aabb.overlap_pairs(a[perm], b)
    remapped = np.array([perm[moved[0]], moved[1]]).reshape(2, -1)
    np.testing.assert_array_equal(remapped[:, np.lexsort(remapped[::-1])], base)


def test_overlap_pairs_large_random_matches_brute_kernel():
    rng = np.random.default_rng(7)
    lo = rng.uniform(0, 100, (3000, 3))
    a = np.stack([lo, lo + rng.uniform(0, 3, (3000, 3))], axis=1)
    lo = rng.uniform(0, 100, (2000, 3))
    b = np.stack([lo, lo + rng.uniform(0, 3, (2000, 3))], axis=1)
    pairs = hb.aabb.overlap_pairs(a, b)
    assert pairs.shape[1] > 100
    np.testing.assert_array_equal(pairs, hb.aabb.overlap_pairs_brute(a, b))


@given(points(dim=3, max_n=10), st.integers(0, 4))
def test_from_points_matches_oracle(pts, groups):
    g = np.repeat(pts[None], groups, axis=0)
    got = hb.aabb.from_points(g)
    assert got.shape == (groups, 2, 3)
    for box in got:
        np.testing.assert_array_equal(box, oracles.box_of_points(pts))


@given(boxes(), st.data())
def test_union_and_intersection_match_oracle(a, data):
    b = data.draw(boxes(n=len(a), dim=a.shape[2]))
    u, x = hb.aabb.union(a, b), hb.aabb.intersection(a, b)
    for i in range(len(a)):
        pts = [
            oracles.corners(box) for box in (a[i], b[i]) if not np.any(box[0] > box[1])
        ]
        expected = oracles.box_of_points(
            np.concatenate(pts) if pts else np.zeros((0, a.shape[2]))
        )
        np.testing.assert_array_equal(u[i], expected)
        overlapping = oracles.box_overlap(a[i : i + 1], b[i : i + 1])[0]
        assert hb.aabb.is_empty(x[i]) == (not overlapping)
        if overlapping:
            np.testing.assert_array_equal(x[i, 0], np.maximum(a[i, 0], b[i, 0]))
            np.testing.assert_array_equal(x[i, 1], np.minimum(a[i, 1], b[i, 1]))


def test_seed_002_union_bug_is_not_ours():
    """002's add(box) compared box.min against max; the union must grow hi by box.hi."""
    a = np.array([[0.0, 0, 0], [1, 1, 1]])
    b = np.array([[0.5, 0.5, 0.5], [3, 3, 3]])
    np.testing.assert_array_equal(hb.aabb.union(a, b), [[0, 0, 0], [3, 3, 3]])


@given(boxes(allow_empty=False, min_n=1), st.data())
def test_union_points_contains_point(a, data):
    p = data.draw(points(n=len(a), dim=a.shape[2]))
    grown = hb.aabb.union_points(a, p)
    assert hb.aabb.contains_points(grown, p).all()
    assert hb.aabb.contains_points(grown, hb.aabb.center(a)).all()


@given(boxes(dim=3, max_n=6), affine())
def test_arvo_transform_contains_exact_refit(a, matrix):
    arvo = hb.aabb.transform(a, matrix)
    for box, out in zip(a, arvo, strict=True):
        if np.any(box[0] > box[1]):
            assert hb.aabb.is_empty(out)
            continue
        exact = oracles.box_of_points(oracles.transformed_corners(box, matrix))
        refit = hb.aabb.from_points(hb.aabb.corners(box), transform=matrix)
        np.testing.assert_array_equal(refit, exact)
        assert np.all(out[0] <= exact[0]) and np.all(out[1] >= exact[1])
        np.testing.assert_allclose(out, exact, rtol=1e-12, atol=1e-12)


@given(boxes(dim=2, max_n=6), affine(dim=2))
def test_arvo_transform_2d(a, matrix):
    out = hb.aabb.transform(a, matrix)
    for box, got in zip(a, out, strict=True):
        if not np.any(box[0] > box[1]):
            exact = oracles.box_of_points(oracles.transformed_corners(box, matrix))
            assert np.all(got[0] <= exact[0]) and np.all(got[1] >= exact[1])


def test_transform_of_infinite_box_keeps_zero_terms_out():
    slab = np.array([[-np.inf, 0.0, 0.0], [np.inf, 1.0, 1.0]])
    out = hb.aabb.transform(slab, np.diag([1.0, 2.0, 2.0, 1.0]))
    np.testing.assert_array_equal(out, [[-np.inf, 0, 0], [np.inf, 2, 2]])


@given(boxes(allow_empty=False, min_n=1))
def test_derived_quantities(a):
    np.testing.assert_array_equal(hb.aabb.size(a), a[:, 1] - a[:, 0])
    np.testing.assert_array_equal(hb.aabb.radius(a), (a[:, 1] - a[:, 0]) / 2)
    np.testing.assert_array_equal(hb.aabb.center(a), (a[:, 0] + a[:, 1]) / 2)
    np.testing.assert_allclose(hb.aabb.volume(a), np.prod(a[:, 1] - a[:, 0], axis=1))
    got = hb.aabb.corners(a)
    for box, c in zip(a, got, strict=True):
        np.testing.assert_array_equal(c, oracles.corners(box))


def test_corner_bit_order_matches_seed_002():
    box = np.array([[0.0, 10, 100], [1, 11, 101]])
    c = hb.aabb.corners(box)
    np.testing.assert_array_equal(c[0], [0, 10, 100])
    np.testing.assert_array_equal(c[1], [1, 10, 100])  # bit 0: x
    np.testing.assert_array_equal(c[2], [0, 11, 100])  # bit 1: y
    np.testing.assert_array_equal(c[4], [0, 10, 101])  # bit 2: z
    np.testing.assert_array_equal(c[7], [1, 11, 101])


@given(boxes(allow_empty=False, min_n=1), st.data())
def test_contains_and_closest_points_match_oracle(a, data):
    p = data.draw(points(n=len(a), dim=a.shape[2]))
    inside = hb.aabb.contains_points(a, p)
    closest = hb.aabb.closest_points(a, p)
    for i in range(len(a)):
        expected_in = all(a[i, 0, k] <= p[i, k] <= a[i, 1, k] for k in range(a.shape[2]))
        assert inside[i] == expected_in
        expected = [min(max(p[i, k], a[i, 0, k]), a[i, 1, k]) for k in range(a.shape[2])]
        np.testing.assert_array_equal(closest[i], expected)
        assert hb.aabb.contains_points(a[i], closest[i])
        if expected_in:
            np.testing.assert_array_equal(closest[i], p[i])


def test_closest_point_of_empty_box_is_an_error():
    with pytest.raises(ValueError, match="empty"):
        hb.aabb.closest_points(hb.aabb.empty(), [0.0, 0, 0])


def test_agrees_with_coal_on_random_box_pairs():
    rng = np.random.default_rng(2026)
    n = 10_000
    lo = rng.integers(-20, 20, (2, n, 3)).astype(float)
    size = rng.integers(0, 8, (2, n, 3)).astype(float)
    a = np.stack([lo[0], lo[0] + size[0]], axis=1)
    b = np.stack([lo[1], lo[1] + size[1]], axis=1)
    ours = hb.aabb.overlap(a, b)
    theirs = np.array(
        [
            coal.AABB(a[i, 0], a[i, 1]).overlap(coal.AABB(b[i, 0], b[i, 1]))
            for i in range(n)
        ]
    )
    # integer grid: many exact touches; Coal's AABB::overlap is closed as well
    np.testing.assert_array_equal(ours, theirs)
    assert 0 < ours.sum() < n
