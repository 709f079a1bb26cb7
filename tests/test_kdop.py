import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import hitbox as hb
from tests import oracles
from tests.strategies import affine, grid, rotation

KS = (6, 14, 18, 26)
point_sets = hnp.arrays(
    np.float64, st.tuples(st.integers(1, 12), st.just(3)), elements=grid
)


def test_axis_tables():
    assert {k: hb.kdop.AXES[k].shape for k in KS} == {
        6: (3, 3),
        14: (7, 3),
        18: (9, 3),
        26: (13, 3),
    }
    for k in KS:
        np.testing.assert_array_equal(hb.kdop.AXES[k][:3], np.eye(3))  # AABB slabs first
        rows = {tuple(r) for r in hb.kdop.AXES[k]}
        assert len(rows) == k // 2  # no repeated direction
        assert not any(tuple(-np.array(r)) in rows for r in rows)  # and no opposite pair
    assert not hb.kdop.AXES[18].flags.writeable


@given(st.lists(point_sets, min_size=1, max_size=3), st.sampled_from(KS))
def test_fit_matches_oracle_and_contains_points(groups, k):
    for pts in groups:
        got = hb.kdop.fit(pts, k)
        np.testing.assert_array_equal(got, oracles.kdop_of_points(pts, hb.kdop.AXES[k]))
        assert hb.kdop.contains_points(got, pts).all()


@given(point_sets)
def test_aabb_is_the_6_dop(pts):
    np.testing.assert_array_equal(hb.kdop.fit(pts, 6), hb.aabb.from_points(pts))


def test_empty_group_gives_empty_kdop_that_overlaps_nothing():
    e = hb.kdop.fit(np.zeros((0, 3)), 14)
    assert np.all(e[0] == np.inf) and np.all(e[1] == -np.inf)
    assert hb.kdop.overlap(e, hb.kdop.fit(np.zeros((1, 3)), 14)) is False
    assert len(hb.kdop.vertices(e)) == 0
    np.testing.assert_array_equal(hb.kdop.transform(e, np.eye(4)), e)


@given(point_sets, point_sets, st.sampled_from(KS))
def test_overlap_and_pairs_match_slab_oracle(p, q, k):
    a = hb.kdop.fit(np.stack([p, p + 1.5]), k)
    b = hb.kdop.fit(np.stack([q, q - 0.5, q + 3]), k)
    expected = oracles.overlap_pairs(a, b)
    np.testing.assert_array_equal(hb.kdop.overlap_pairs(a, b), expected)
    np.testing.assert_array_equal(hb.kdop.overlap_pairs_brute(a, b), expected)
    assert hb.kdop.overlap(a[0], b[0]) == bool(
        np.all(np.maximum(a[0, 0], b[0, 0]) <= np.minimum(a[0, 1], b[0, 1]))
    )
    # conservative: overlapping point sets always give overlapping k-DOPs
    if any((pt == p).all(axis=1).any() for pt in q):
        assert hb.kdop.overlap(a[0], b[0])


@given(point_sets, point_sets, st.sampled_from(KS))
def test_union_is_fit_of_both(p, q, k):
    u = hb.kdop.union(hb.kdop.fit(p, k), hb.kdop.fit(q, k))
    np.testing.assert_array_equal(u, hb.kdop.fit(np.concatenate([p, q]), k))


@given(point_sets, st.sampled_from(KS))
def test_vertices_lie_in_the_polytope_and_span_it(pts, k):
    d = hb.kdop.fit(pts, k)
    verts = hb.kdop.vertices(d)
    assert len(verts) >= 1
    proj = verts @ hb.kdop.AXES[k].T
    tol = 1e-9 * (np.abs(d).max() + 1)
    assert np.all(proj >= d[0] - tol) and np.all(proj <= d[1] + tol)
    np.testing.assert_allclose(
        hb.kdop.fit(verts, k), d, atol=tol
    )  # vertices reach every slab


@given(point_sets, st.sampled_from(KS), affine(), st.integers(0, 2**32 - 1))
def test_transform_bounds_moved_points(pts, k, matrix, seed):
    if seed % 2:  # half the time a rigid motion, the case that matters most
        matrix = np.eye(4)
        matrix[:3, :3] = rotation(np.random.default_rng(seed))
        matrix[:3, 3] = [1.0, -2.0, 0.5]
    d = hb.kdop.fit(pts, k)
    exact = hb.kdop.fit(pts, k, transform=matrix)
    np.testing.assert_array_equal(hb.kdop.transform(d, matrix, points=pts), exact)
    loose = hb.kdop.transform(d, matrix)
    assert np.all(loose[0] <= exact[0]) and np.all(loose[1] >= exact[1])


def test_transform_of_a_box_kdop_by_identity_is_tight():
    box = np.array([[0.0, 0, 0], [1, 2, 3]])
    d = hb.kdop.from_boxes(box, 26)
    np.testing.assert_array_equal(d, hb.kdop.fit(hb.aabb.corners(box), 26))
    np.testing.assert_allclose(hb.kdop.transform(d, np.eye(4)), d, atol=1e-8)
    assert (
        len(np.unique(np.round(hb.kdop.vertices(hb.kdop.from_boxes(box, 6)), 9), axis=0))
        == 8
    )
    np.testing.assert_array_equal(hb.kdop.to_boxes(d), box)


def test_unbounded_kdop_transform_is_conservative():
    d = hb.kdop.from_boxes(np.array([[-np.inf, 0, 0], [np.inf, 1, 1]]), 14)
    out = hb.kdop.transform(d, np.diag([1.0, 2.0, 2.0, 1.0]))
    np.testing.assert_array_equal(out[:, :3], [[-np.inf, 0, 0], [np.inf, 2, 2]])
    assert np.all(out[0, 3:] == -np.inf) and np.all(out[1, 3:] == np.inf)


@pytest.mark.parametrize("k", [0, 8, 12, 32, "18", 18.0, True])
def test_bad_k_is_rejected(k):
    with pytest.raises(ValueError, match="k must be one of"):
        hb.kdop.fit(np.zeros((3, 3)), k)


def test_mismatched_k_is_rejected():
    with pytest.raises(ValueError, match="b must be 14-DOPs"):
        hb.kdop.overlap(
            hb.kdop.fit(np.zeros((3, 3)), 14), hb.kdop.fit(np.zeros((3, 3)), 18)
        )
