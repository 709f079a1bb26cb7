import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import hitbox as hb
from hitbox.sweep import SweepHits
from tests import oracles_ray as oracle
from tests.strategies import boxes, grid

INF = math.inf
CUBE = np.array([[-1.0, -1.0, -1.0], [1.0, 1.0, 1.0]])
dyadic = st.builds(lambda n, e: n / 2**e, st.integers(-64, 64), st.integers(0, 3))
radii = st.sampled_from([-1.0, 0.0, 0.25, 0.5, 1.0, 2.0])


def _seed_boxes():
    """Seed 000's two boxes, built the way the seed builds them."""
    c, s = np.cos(np.pi / 2), np.sin(np.pi / 2)
    translate = np.eye(4)
    translate[0, 3] = 1.0
    rot_y = np.array([[c, 0, s, 0], [0, 1, 0, 0], [-s, 0, c, 0], [0, 0, 0, 1.0]])
    scale = np.diag([0.5, 0.5, 0.5, 1.0])
    m2 = np.eye(4)
    m2[0, 3] = -0.5
    box1 = hb.aabb.transform(CUBE, translate @ rot_y @ scale)
    box2 = hb.aabb.transform(CUBE, m2 @ scale)
    return box1, box2


def test_seed_000_time_of_contact_is_one_sixth_exactly():
    stationary, moving = _seed_boxes()
    np.testing.assert_array_equal(stationary, [[0.5, -0.5, -0.5], [1.5, 0.5, 0.5]])
    np.testing.assert_array_equal(moving, [[-1.0, -0.5, -0.5], [0.0, 0.5, 0.5]])
    r = hb.sweep.aabb_aabb(moving, stationary, [3.0, 0.0, 0.0])
    assert isinstance(r, SweepHits) and r.hit is True
    assert r.t == 0.5 / 3 == 1 / 6
    assert f"{r.t:.5f}" == "0.16667"
    np.testing.assert_array_equal(r.normal, [-1.0, 0.0, 0.0])
    # the same contact seen from the other box, and with both boxes moving
    r = hb.sweep.aabb_aabb(stationary, moving, [-3.0, 0.0, 0.0])
    assert r.t == 1 / 6
    np.testing.assert_array_equal(r.normal, [1.0, 0.0, 0.0])
    r = hb.sweep.aabb_aabb(moving, stationary, [2.0, 0, 0], displacement_b=[-1.0, 0, 0])
    assert r.t == 1 / 6
    # too slow to get there, and moving away: no contact, t = inf (not the seed's 1e30)
    assert hb.sweep.aabb_aabb(moving, stationary, [0.25, 0, 0]).t == INF
    assert not hb.sweep.aabb_aabb(moving, stationary, [-3.0, 0, 0]).hit
    # exactly reaching the face at t = 1 touches
    r = hb.sweep.aabb_aabb(moving, stationary, [0.5, 0, 0])
    assert r.hit and r.t == 1.0


AABB_EDGES = [
    # name, moving, stationary, displacement, (t, normal)
    ("overlapping at 0", [[0, 0], [2, 2]], [[1, 1], [3, 3]], [5, 5], (0.0, [0, 0])),
    ("touching at 0", [[0, 0], [1, 1]], [[1, 0], [2, 1]], [1, 0], (0.0, [0, 0])),
    (
        "touching at 0, moving away",
        [[0, 0], [1, 1]],
        [[1, 0], [2, 1]],
        [-1, 0],
        (0.0, [0, 0]),
    ),
    ("no velocity, apart", [[0, 0], [1, 1]], [[2, 0], [3, 1]], [0, 0], (INF, [0, 0])),
    (
        "no velocity on y, apart on y",
        [[0, 0], [1, 1]],
        [[2, 2], [3, 3]],
        [5, -0.0],
        (INF, [0, 0]),
    ),
    ("slides along a face", [[0, 0], [1, 1]], [[2, 1], [3, 2]], [4, 0], (0.25, [-1, 0])),
    ("corner to corner", [[0, 0], [1, 1]], [[2, 2], [3, 3]], [2, 2], (0.5, [-1, 0])),
    ("y enters last", [[0, 0], [1, 1]], [[2, 3.5], [3, 4.5]], [2, 4], (0.625, [0, -1])),
    ("passes by", [[0, 0], [1, 1]], [[2, 3], [3, 4]], [4, 1], (INF, [0, 0])),
    ("tunnels through", [[0, 0], [1, 1]], [[2, 0], [2.5, 1]], [10, 0], (0.1, [-1, 0])),
    ("from the right", [[4, 0], [5, 1]], [[2, 0], [3, 1]], [-2, 0], (0.5, [1, 0])),
    (
        "tiny displacement",
        [[0, 0], [1, 1]],
        [[1 + 2**-40, 0], [2, 1]],
        [2**-40, 0],
        (1.0, [-1, 0]),
    ),
]


@pytest.mark.parametrize(
    "name, m, s, v, want", AABB_EDGES, ids=[e[0] for e in AABB_EDGES]
)
def test_aabb_edge_table(name, m, s, v, want):
    r = hb.sweep.aabb_aabb(np.array(m, float), np.array(s, float), v)
    assert r.t == want[0] and r.hit == (want[0] < INF)
    np.testing.assert_array_equal(r.normal, want[1])


def test_aabb_empty_infinite_and_1d():
    empty = hb.aabb.empty(dim=2)
    box = np.array([[0.0, 0.0], [1.0, 1.0]])
    assert not hb.sweep.aabb_aabb(empty, box, [1, 1]).hit
    assert not hb.sweep.aabb_aabb(box, empty, [1, 1]).hit
    half_plane = np.array([[3.0, -INF], [INF, INF]])
    r = hb.sweep.aabb_aabb(box, half_plane, [4.0, 0.0])
    assert r.t == 0.5 and r.normal.tolist() == [-1.0, 0.0]
    r = hb.sweep.aabb_aabb([[0.0], [1.0]], [[[2.0], [3.0]], [[-3.0], [-2.5]]], [2.0])
    np.testing.assert_array_equal(r.t, [0.5, INF])


@settings(max_examples=300, deadline=None)
@given(st.data(), st.integers(1, 3), st.sampled_from([grid, dyadic]))
def test_aabb_sweep_matches_exact_oracle(data, dim, elements):
    n = data.draw(st.integers(1, 8))
    m = data.draw(boxes(n=n, dim=dim, elements=elements))
    s = data.draw(boxes(n=n, dim=dim, elements=elements))
    v = data.draw(
        hnp.arrays(np.float64, (n, dim), elements=st.one_of(elements, st.just(-0.0)))
    )
    r = hb.sweep.aabb_aabb(m, s, v)
    for i in range(n):
        t, axis = oracle.aabb_sweep(m[i], s[i], v[i])
        assert r.t[i] == float(t) and r.hit[i] == (t != INF)
        want = np.zeros(dim)
        if axis >= 0 and t != INF:
            want[axis] = -math.copysign(1.0, v[i, axis])
        np.testing.assert_array_equal(r.normal[i], want)


@settings(max_examples=200, deadline=None)
@given(st.data(), st.integers(1, 3))
def test_aabb_static_overlap_iff_t_zero_and_relative_motion(data, dim):
    n = data.draw(st.integers(1, 8))
    m = data.draw(boxes(n=n, dim=dim))
    s = data.draw(boxes(n=n, dim=dim))
    va = data.draw(hnp.arrays(np.float64, (n, dim), elements=grid))
    vb = data.draw(hnp.arrays(np.float64, (n, dim), elements=grid))
    r = hb.sweep.aabb_aabb(m, s, va, displacement_b=vb)
    np.testing.assert_array_equal(r.t == 0, hb.aabb.overlap(m, s))
    rel = hb.sweep.aabb_aabb(m, s, va - vb)
    for x, y in zip(r, rel, strict=True):
        np.testing.assert_array_equal(x, y)
    # swapping the roles mirrors the motion: same time, opposite normal
    back = hb.sweep.aabb_aabb(s, m, vb - va)
    np.testing.assert_array_equal(back.t, r.t)
    np.testing.assert_array_equal(back.normal, -r.normal + 0.0)


def test_aabb_sweep_against_dense_sampling():
    rng = np.random.default_rng(1)
    n = 400
    lo = rng.uniform(-3, 3, (n, 2, 3))
    m = np.stack([lo[:, 0], lo[:, 0] + rng.uniform(0.1, 1, (n, 3))], axis=1)
    s = np.stack([lo[:, 1], lo[:, 1] + rng.uniform(0.1, 1, (n, 3))], axis=1)
    aim = s.mean(axis=1) - m.mean(axis=1)  # towards the other box, give or take
    v = (aim + rng.normal(size=(n, 3))) * rng.uniform(0.3, 2, (n, 1))
    r = hb.sweep.aabb_aabb(m, s, v)
    assert 20 < r.hit.sum() < n - 20
    for i in range(n):

        def gap(t, i=i):
            t = np.asarray(t, float)[..., None, None]
            moved = m[i] + t * v[i]  # (..., 2, 3)
            return np.max(
                np.maximum(moved[..., 0, :] - s[i, 1], s[i, 0] - moved[..., 1, :]), -1
            )

        first = oracle.first_sampled_contact(gap, 2001)
        if r.hit[i]:
            assert abs(gap(r.t[i])) <= 1e-9 or (r.t[i] == 0 and gap(0.0) <= 0)
            assert first >= r.t[i] - 1e-12
            if r.t[i] > 0:
                assert gap(0.0) > 0
                assert np.all(gap(np.linspace(0, r.t[i], 50)[:-1]) > -1e-12)
        else:
            assert first == INF


# -- spheres -----------------------------------------------------------------------------


def test_sphere_sphere_cases():
    a = hb.Spheres([0.0, 0.0, 0.0], 1.0)
    b = hb.Spheres([5.0, 0.0, 0.0], 1.0)
    r = hb.sweep.sphere_sphere(a, b, [6.0, 0, 0])
    assert r.hit and r.t == 0.5
    np.testing.assert_array_equal(r.normal, [-1, 0, 0])
    r = hb.sweep.sphere_sphere(a, b, [3.0, 0, 0], displacement_b=[-3.0, 0, 0])
    assert r.t == 0.5
    assert not hb.sweep.sphere_sphere(a, b, [2.9, 0, 0]).hit
    assert hb.sweep.sphere_sphere(a, b, [3.0, 0, 0]).t == 1.0  # touches at the very end
    r = hb.sweep.sphere_sphere(a, hb.Spheres([2.0, 0, 0], 1.0), [-1.0, 0, 0])
    assert r.t == 0.0 and not r.normal.any()  # touching at t = 0
    # grazing: passes b at distance exactly r_a + r_b
    r = hb.sweep.sphere_sphere(a, hb.Spheres([5.0, 2.0, 0], 1.0), [10.0, 0, 0])
    assert r.hit and r.t == 0.5
    np.testing.assert_array_equal(r.normal, [0, -1, 0])
    assert not hb.sweep.sphere_sphere(a, b, [0.0, 0, 0]).hit
    assert not hb.sweep.sphere_sphere(hb.Spheres([0, 0, 0], -1.0), b, [9.0, 0, 0]).hit
    r = hb.sweep.sphere_sphere(
        hb.Spheres([[0.0], [10.0]], [1, 1]), hb.Spheres([4.0], 1.0), [4.0]
    )
    np.testing.assert_array_equal(r.t, [0.5, INF])
    np.testing.assert_array_equal(r.normal, [[-1.0], [0.0]])
    r = hb.sweep.sphere_sphere(
        hb.Spheres([0, 0], 0.0), hb.Spheres([2.0, 0], 0.0), [4.0, 0]
    )
    assert r.t == 0.5
    np.testing.assert_array_equal(
        r.normal, [-1, 0]
    )  # two points meet: against the motion


@settings(max_examples=200, deadline=None)
@given(st.data(), st.integers(1, 3))
def test_sphere_sphere_matches_decimal_oracle(data, dim):
    n = data.draw(st.integers(1, 6))
    ca = data.draw(hnp.arrays(np.float64, (n, dim), elements=grid))
    cb = data.draw(hnp.arrays(np.float64, (n, dim), elements=grid))
    ra = data.draw(hnp.arrays(np.float64, (n,), elements=radii))
    rb = data.draw(hnp.arrays(np.float64, (n,), elements=radii))
    v = data.draw(hnp.arrays(np.float64, (n, dim), elements=grid))
    r = hb.sweep.sphere_sphere(hb.Spheres(ca, ra), hb.Spheres(cb, rb), v)
    for i in range(n):
        if ra[i] < 0 or rb[i] < 0:
            assert not r.hit[i]
            continue
        radius = ra[i] + rb[i]
        dist2 = sum(Fraction(x) ** 2 for x in ca[i] - cb[i])
        if dist2 <= Fraction(radius) ** 2:
            assert r.t[i] == 0.0 and not r.normal[i].any()
            continue
        assert r.t[i] > 0
        if not v[i].any():
            assert not r.hit[i]
            continue
        disc, t0, _ = oracle.ball_roots(cb[i], radius, ca[i], v[i])
        if disc is None or disc < -1e-9:
            assert not r.hit[i]
            continue
        if abs(disc) <= 1e-9 or abs(t0 - 1.0) <= 1e-9:
            continue  # grazing, or touching exactly at t = 1: rounding decides
        assert r.hit[i] == (0 <= t0 <= 1)
        if r.hit[i]:
            assert r.t[i] == pytest.approx(t0, rel=1e-12)
            p = ca[i] + r.t[i] * v[i] - cb[i]
            np.testing.assert_allclose(r.normal[i], p / np.linalg.norm(p), atol=1e-12)


def _sphere_box_reference(c, rad, box, v, t):
    """Checks for one sphere_aabb answer against distances along the path."""

    scale = 1.0 + np.abs(c).max() + np.abs(v).max()

    def gap(s):
        return oracle.box_distance(box, c + np.asarray(s, float)[..., None] * v) - rad

    # a sampled overlap deeper than rounding; exact grazing may be reported either way
    first = oracle.first_sampled_contact(lambda s: gap(s) + 1e-9 * scale, 1001)
    if t == INF:
        assert first == INF
        return
    if t == 0:
        assert gap(0.0) <= 1e-12 * scale
        return
    assert abs(gap(t)) <= 1e-9 * scale
    assert first >= t - 1e-9
    assert np.all(gap(np.linspace(0, t, 64)[:-1]) > -1e-9 * scale)


def test_sphere_aabb_faces_edges_corners():
    box = np.array([[0.5, -0.5, -0.5], [1.5, 0.5, 0.5]])
    r = hb.sweep.sphere_aabb(hb.Spheres([-2, 0.2, 0.2], 1.0), box, [4, 0, 0])
    assert r.t == 0.375
    np.testing.assert_array_equal(r.normal, [-1, 0, 0])
    r = hb.sweep.sphere_aabb(hb.Spheres([-2, 1.2, 0], 1.0), box, [4, 0, 0])  # edge
    assert r.t == pytest.approx((2.5 - math.sqrt(0.51)) / 4, rel=1e-14)
    np.testing.assert_allclose(r.normal, [-math.sqrt(0.51), 0.7, 0], rtol=1e-12)
    r = hb.sweep.sphere_aabb(hb.Spheres([-2, 1.2, 1.2], 1.0), box, [4, 0, 0])  # corner
    assert r.t == pytest.approx((2.5 - math.sqrt(0.02)) / 4, rel=1e-14)
    np.testing.assert_allclose(r.normal, [-math.sqrt(0.02), 0.7, 0.7], rtol=1e-12)
    r = hb.sweep.sphere_aabb(
        hb.Spheres([1.0, 3.0, 0.0], 1.0), box, [0, -4, 0]
    )  # face from +y
    assert r.t == 0.375
    np.testing.assert_array_equal(r.normal, [0, 1, 0])
    assert not hb.sweep.sphere_aabb(hb.Spheres([-2, 1.8, 1.8], 1.0), box, [4, 0, 0]).hit
    r = hb.sweep.sphere_aabb(hb.Spheres([1.0, 0, 0], 0.1), box, [5, 5, 5])
    assert r.t == 0 and not r.normal.any()  # inside at t = 0
    # grazing an edge exactly: passes the edge at distance r
    r = hb.sweep.sphere_aabb(hb.Spheres([-2, 1.5, 0], 1.0), box, [4, 0, 0])
    assert r.hit and r.t == pytest.approx(2.5 / 4)
    np.testing.assert_array_equal(r.normal, [0, 1, 0])  # from the edge to the centre
    # sliding along a face's plane onto the box: the normal is that face's (the path
    # enters the face's piece through the x slab, whose -x it reported)
    flat = np.array([[0.0, 0, 0], [1, 1, 1]])
    r = hb.sweep.sphere_aabb(hb.Spheres([-5.0, 0.5, 2.0], 1.0), flat, [10.0, 0, 0])
    assert r.t == 0.5
    np.testing.assert_array_equal(r.normal, [0, 0, 1])
    r = hb.sweep.sphere_aabb(hb.Spheres([-5.0, 2.0], 1.0), flat[:, :2], [10.0, 0])
    np.testing.assert_array_equal(r.normal, [0, 1])
    r = hb.sweep.sphere_aabb(hb.Spheres([-10.0, 4, 5], 5.0), flat, [20.0, 0, 0])
    np.testing.assert_allclose(r.normal, [0, 0.6, 0.8], rtol=1e-15)
    r = hb.sweep.sphere_aabb(hb.Spheres([-5.0, 0.5, 0.5], 0.0), flat, [10.0, 0, 0])
    np.testing.assert_array_equal(r.normal, [-1, 0, 0])  # a point: the face it enters
    # 2D (discs and rectangles) and 1D
    r = hb.sweep.sphere_aabb(hb.Spheres([-2, 1.2], 1.0), box[:, :2], [4, 0])
    assert r.t == pytest.approx((2.5 - math.sqrt(0.51)) / 4, rel=1e-14)
    r = hb.sweep.sphere_aabb(hb.Spheres([-2.0], 1.0), box[:, :1], [4.0])
    assert r.t == 0.375
    # unbounded boxes: no corners at infinity
    slab = np.array([[0.5, -INF, -INF], [INF, 0.5, INF]])
    r = hb.sweep.sphere_aabb(hb.Spheres([-2, 1.2, 7], 1.0), slab, [4, 0, 0])
    assert r.t == pytest.approx((2.5 - math.sqrt(0.51)) / 4, rel=1e-14)
    assert not hb.sweep.sphere_aabb(hb.Spheres([0, 0, 0], -1.0), box, [4, 0, 0]).hit
    assert not hb.sweep.sphere_aabb(
        hb.Spheres([0, 0, 0], 1.0), hb.aabb.empty(), [4, 0, 0]
    ).hit


@settings(max_examples=100, deadline=None)
@given(st.data(), st.integers(1, 3))
def test_sphere_aabb_point_equals_segment_cast(data, dim):
    n = data.draw(st.integers(1, 8))
    b = data.draw(boxes(n=n, dim=dim))
    c = data.draw(hnp.arrays(np.float64, (n, dim), elements=grid))
    v = data.draw(hnp.arrays(np.float64, (n, dim), elements=grid))
    v[~np.any(v != 0, axis=1), 0] = 1.0
    r = hb.sweep.sphere_aabb(hb.Spheres(c, np.zeros(n)), b, v)
    seg = hb.ray.cast_aabb(b, c, v, t_max=1.0)
    np.testing.assert_array_equal(r.t, seg.t_enter)
    np.testing.assert_array_equal(r.normal, seg.normal)


@settings(max_examples=150, deadline=None)
@given(st.data(), st.integers(1, 3))
def test_sphere_aabb_static_overlap_iff_t_zero_and_sampling(data, dim):
    n = data.draw(st.integers(1, 5))
    b = data.draw(boxes(n=n, dim=dim))
    c = data.draw(hnp.arrays(np.float64, (n, dim), elements=grid))
    rad = data.draw(hnp.arrays(np.float64, (n,), elements=radii))
    v = data.draw(hnp.arrays(np.float64, (n, dim), elements=grid))
    r = hb.sweep.sphere_aabb(hb.Spheres(c, rad), b, v)
    for i in range(n):
        if rad[i] < 0 or np.any(b[i, 0] > b[i, 1]):
            assert not r.hit[i]
            continue
        gap2 = sum(
            max(
                Fraction(b[i, 0, k]) - Fraction(c[i, k]),
                0,
                Fraction(c[i, k]) - Fraction(b[i, 1, k]),
            )
            ** 2
            for k in range(dim)
        )
        assert (r.t[i] == 0) == (gap2 <= Fraction(rad[i]) ** 2)
        _sphere_box_reference(c[i], rad[i], b[i], v[i], r.t[i])


def test_sphere_aabb_against_dense_sampling():
    rng = np.random.default_rng(2)
    n = 300
    lo = rng.uniform(-2, 2, (n, 3))
    b = np.stack([lo, lo + rng.uniform(0.1, 2, (n, 3))], axis=1)
    c = rng.uniform(-5, 5, (n, 3))
    rad = rng.uniform(0.05, 1.5, n)
    v = (b.mean(axis=1) + rng.normal(size=(n, 3)) * 2 - c) * rng.uniform(0.3, 2, (n, 1))
    r = hb.sweep.sphere_aabb(hb.Spheres(c, rad), b, v)
    assert 30 < (r.hit & (r.t > 0)).sum() < n - 30
    for i in range(n):
        _sphere_box_reference(c[i], rad[i], b[i], v[i], r.t[i])
        if 0 < r.t[i] < INF:
            p = c[i] + r.t[i] * v[i]
            q = np.clip(p, b[i, 0], b[i, 1])
            np.testing.assert_allclose(
                r.normal[i], (p - q) / np.linalg.norm(p - q), atol=1e-6
            )


# -- bad input and empty batches ---------------------------------------------------------

SWEEPS = {
    "aabb_aabb": lambda a, b, v, **kw: hb.sweep.aabb_aabb(a, b, v, **kw),
    "sphere_sphere": lambda a, b, v, **kw: hb.sweep.sphere_sphere(
        hb.Spheres(a[..., 0, :], np.ones(a.shape[:-2])),
        hb.Spheres(b[..., 0, :], np.ones(b.shape[:-2])),
        v,
        **kw,
    ),
    "sphere_aabb": lambda a, b, v, **kw: hb.sweep.sphere_aabb(
        hb.Spheres(a[..., 0, :], np.ones(a.shape[:-2])), b, v, **kw
    ),
}
BOX = np.array([[0.0, 0, 0], [1, 1, 1]])


@pytest.mark.parametrize("kind", SWEEPS)
@pytest.mark.parametrize(
    "a, b, v, kw, name",
    [
        (BOX, BOX, [np.nan, 0, 0], {}, "displacement"),
        (BOX, BOX, [np.inf, 0, 0], {}, "displacement"),
        (BOX, BOX, [1, 0, 0], {"displacement_b": [0, -np.inf, 0]}, "displacement_b"),
        (BOX, BOX, [1e308, 0, 0], {"displacement_b": [-1e308, 0, 0]}, "displacement"),
        (BOX, BOX, [1, 0], {}, "displacement"),
        (np.stack([BOX] * 3), np.stack([BOX] * 2), [1, 0, 0], {}, "has 2 items"),
        (
            BOX,
            BOX,
            np.ones((2, 3)),
            {"displacement_b": np.ones((3, 3))},
            "displacement_b",
        ),
    ],
)
def test_sweep_bad_input_names_the_argument(kind, a, b, v, kw, name):
    with pytest.raises(ValueError, match=name):
        SWEEPS[kind](np.asarray(a, float), np.asarray(b, float), v, **kw)


def test_sweep_bad_volumes():
    with pytest.raises(ValueError, match="moving"):
        hb.sweep.aabb_aabb([[np.nan, 0], [1, 1]], [[0, 0], [1, 1]], [1, 0])
    with pytest.raises(ValueError, match="stationary"):
        hb.sweep.aabb_aabb([[0, 0], [1, 1]], [[0, 0, 0], [1, 1, 1]], [1, 0])
    with pytest.raises(ValueError, match="moving"):
        hb.sweep.sphere_sphere(
            hb.Spheres([np.inf, 0], 1.0), hb.Spheres([0, 0], 1.0), [1, 0]
        )
    with pytest.raises(ValueError, match="spheres"):
        hb.sweep.sphere_aabb(hb.Spheres([0, 0], np.nan), [[0, 0], [1, 1]], [1, 0])
    with pytest.raises(ValueError, match="boxes"):
        hb.sweep.sphere_aabb(hb.Spheres([0, 0], 1.0), [[0, 0, 0], [1, 1, 1]], [1, 0])


@pytest.mark.parametrize("kind", SWEEPS)
def test_sweep_empty_batches_and_broadcasting(kind):
    none = np.zeros((0, 2, 3))
    r = SWEEPS[kind](none, none, np.zeros((0, 3)))
    assert r.hit.shape == (0,) and r.hit.dtype == np.bool_
    assert r.t.shape == (0,) and r.normal.shape == (0, 3)
    r = SWEEPS[kind](none, BOX, [1.0, 0, 0])
    assert r.t.shape == (0,)
    many = np.stack([BOX + [3.0, 0, 0], BOX + [6.0, 0, 0], BOX + [30.0, 0, 0]])
    one_vs_many = SWEEPS[kind](BOX, many, [10.0, 0, 0])
    assert one_vs_many.t.shape == (3,) and one_vs_many.hit.tolist() == [True, True, False]
    single = SWEEPS[kind](BOX, many[0], [10.0, 0, 0])
    assert isinstance(single.hit, bool) and isinstance(single.t, float)
    assert single.normal.shape == (3,)
