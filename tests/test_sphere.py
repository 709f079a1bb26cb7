"""hitbox.sphere against brute-force and exact-arithmetic oracles (oracles_sphere.py)."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numba import njit

import hitbox as hb
from hitbox import sphere
from hitbox._kernels import sphere_overlap as ks
from hitbox._types import Spheres
from tests import oracles_sphere as oracle

# conftest's profile sets deadline=None and the example count (100; more under a stress
# profile); this only quiets the too_slow check for the exact-arithmetic oracles.
FAST = settings(suppress_health_check=[HealthCheck.too_slow])

# Integer vectors with integer length, for spheres that touch exactly: (vector, length).
PYTHAGOREAN = {
    1: [((1,), 1)],
    2: [((3, 4), 5), ((5, 12), 13), ((0, 1), 1), ((8, 15), 17)],
    3: [((1, 2, 2), 3), ((2, 3, 6), 7), ((2, 6, 9), 11), ((0, 0, 1), 1), ((0, 3, 4), 5)],
}


# -- strategies --------------------------------------------------------------------------


@st.composite
def sphere_sets(draw, dim=None, min_n=0, max_n=10, infinite=True):
    """Integer centres, radii from small integers, halves, 0, empty (-1, -inf) and +inf:
    every float step of the overlap test is exact on them."""
    dim = dim or draw(st.integers(1, 3))
    n = draw(st.integers(min_n, max_n))
    centers = draw(arrays(np.float64, (n, dim), elements=st.integers(-12, 12).map(float)))
    specials = [0.0, 0.5, 1.5, -1.0, -np.inf] + ([np.inf] if infinite else [])
    radius = st.one_of(st.integers(0, 8).map(float), st.sampled_from(specials))
    radii = draw(arrays(np.float64, (n,), elements=radius))
    return Spheres(centers, radii)


@st.composite
def touching_pair(draw):
    """Two spheres touching exactly at one point: |cb - ca| = ra + rb in integers."""
    dim = draw(st.integers(1, 3))
    vec, length = draw(st.sampled_from(PYTHAGOREAN[dim]))
    vec = np.array(draw(st.permutations(vec)), float)
    vec *= np.array(
        draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=dim, max_size=dim))
    )
    m = draw(st.integers(1, 50))
    ca = np.array(
        draw(st.lists(st.integers(-100, 100), min_size=dim, max_size=dim)), float
    )
    cb = ca + m * vec
    ra = float(draw(st.integers(0, m * length)))
    return ca, ra, cb, float(m * length) - ra


@st.composite
def point_group(draw, max_k=8, dim=None):
    """One group (K, D): integer grids (duplicates, collinear, cospherical ones arise),
    exact cospherical sets, all-equal points, and free floats; scaled by a power of two
    (exact) and offset."""
    dim = dim or draw(st.integers(1, 3))
    kind = draw(st.sampled_from(["grid", "collinear", "same", "cospherical", "float"]))
    k = draw(st.integers(1, max_k))
    if kind == "grid":
        pts = draw(arrays(np.float64, (k, dim), elements=st.integers(-6, 6).map(float)))
    elif kind == "collinear":
        direction = np.array(
            draw(st.lists(st.integers(-3, 3), min_size=dim, max_size=dim))
        )
        t = np.array(draw(st.lists(st.integers(-9, 9), min_size=k, max_size=k)), float)
        pts = t[:, None] * direction[None, :]
    elif kind == "same":
        p = draw(arrays(np.float64, (dim,), elements=st.integers(-9, 9).map(float)))
        pts = np.repeat(p[None], k, axis=0)
    elif kind == "cospherical":
        vec, length = draw(st.sampled_from(PYTHAGOREAN[dim]))
        rows = []
        for _ in range(k):
            v = np.array(draw(st.permutations(vec)), float)
            v *= np.array(
                draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=dim, max_size=dim))
            )
            rows.append(v)
        pts = np.array(rows)
    else:
        pts = draw(
            arrays(
                np.float64,
                (k, dim),
                elements=st.floats(-100, 100, allow_nan=False, allow_subnormal=False),
            )
        )
    scale = draw(st.sampled_from([1.0, 2.0**-600, 2.0**600, 2.0**-20]))
    offset = draw(st.sampled_from([0.0, 7.0, -1000.5]))
    return (pts + offset) * scale, scale


def _exactly_inside(s, points):
    return all(oracle.inside_exact(s.center, s.radius, p) for p in points)


# -- overlap -----------------------------------------------------------------------------


@FAST
@given(st.data())
def test_overlap_matches_exact_arithmetic(data):
    a = data.draw(sphere_sets(min_n=1))
    b = data.draw(sphere_sets(dim=a.center.shape[1], min_n=1))
    n = min(len(a.radius), len(b.radius))
    a, b = Spheres(a.center[:n], a.radius[:n]), Spheres(b.center[:n], b.radius[:n])
    got = sphere.overlap(a, b)
    want = [
        oracle.overlap_exact(a.center[i], a.radius[i], b.center[i], b.radius[i])
        for i in range(n)
    ]
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(
        got, oracle.overlap(a.center, a.radius, b.center, b.radius)
    )
    np.testing.assert_array_equal(sphere.overlap(b, a), got)  # symmetric


@FAST
@given(touching_pair(), st.sampled_from([0, -1060, -1000, -600, 600, 1010]))
def test_touching_overlaps_and_a_hair_apart_does_not(pair, e):
    """Touching counts at every scale (huge, tiny, subnormal: the test rescales by powers
    of two, exactly); a gap of 2**-30 of the distance does not."""
    ca, ra, cb, rb = (np.ldexp(x, e) for x in pair)
    assert oracle.overlap_exact(ca, ra, cb, rb) is True
    assert sphere.overlap(Spheres(ca, ra), Spheres(cb, rb)) is True
    assert sphere.overlap(Spheres(cb, rb), Spheres(ca, ra)) is True
    if e >= -1000:  # below, 2**-30 of the distance is lost in subnormals
        shrunk = rb - np.ldexp(pair[1] + pair[3], e - 30)
        assert oracle.overlap_exact(ca, ra, cb, shrunk) is False
        assert sphere.overlap(Spheres(ca, ra), Spheres(cb, shrunk)) is False
        moved = cb + np.ldexp(np.sign(pair[2] - pair[0]) * (pair[1] + pair[3]), e - 30)
        assert sphere.overlap(Spheres(ca, ra), Spheres(moved, rb)) is False


@FAST
@given(
    sphere_sets(min_n=1), sphere_sets(min_n=1), st.sampled_from([-1060, -1000, 600, 1015])
)
def test_overlap_does_not_depend_on_scale(a, b, e):
    dim = min(a.center.shape[1], b.center.shape[1])
    a = Spheres(a.center[:, :dim], a.radius)
    b = Spheres(b.center[:1, :dim], b.radius[:1])
    scaled = [Spheres(np.ldexp(s.center, e), np.ldexp(s.radius, e)) for s in (a, b)]
    np.testing.assert_array_equal(sphere.overlap(*scaled), sphere.overlap(a, b))


@FAST
@given(
    arrays(np.float64, (40, 3), elements=st.floats(-1e3, 1e3, allow_nan=False)),
    arrays(np.float64, (40, 2), elements=st.floats(0, 1e3, allow_nan=False)),
    st.sampled_from([1.0, 1e-200, 1e200, 1e300]),
)
def test_overlap_free_floats_vs_exact_away_from_ties(centers, radii, scale):
    """Arbitrary floats, huge and tiny: the rounded test agrees with exact arithmetic
    wherever the pair is not within 1e-12 of touching."""
    ca, cb = centers[:20] * scale, centers[20:] * scale
    ra, rb = radii[:20, 0] * scale, radii[20:, 1] * scale
    got = sphere.overlap(Spheres(ca, ra), Spheres(cb, rb))
    for i in range(20):
        if oracle.tie_margin(ca[i], ra[i], cb[i], rb[i]) > 1e-12:
            assert got[i] == oracle.overlap_exact(ca[i], ra[i], cb[i], rb[i])


@FAST
@given(sphere_sets(min_n=1))
def test_overlap_broadcasts_one_against_many(s):
    one = Spheres(s.center[0], s.radius[0])
    many = sphere.overlap(one, s)
    np.testing.assert_array_equal(
        many, [sphere.overlap(one, Spheres(c, r)) for c, r in zip(*s, strict=True)]
    )
    np.testing.assert_array_equal(sphere.overlap(s, one), many)
    assert isinstance(sphere.overlap(one, one), bool)
    assert sphere.overlap(one, one) == (
        s.radius[0] >= 0
    )  # a sphere meets itself unless empty


def test_overlap_worked_examples():
    unit = Spheres(np.zeros(2), 1.0)
    assert sphere.overlap(unit, Spheres(np.array([2.0, 0.0]), 1.0))  # touching
    assert not sphere.overlap(unit, Spheres(np.array([2.0 + 2**-40, 0.0]), 1.0))
    assert sphere.overlap(unit, Spheres(np.array([3.0, 4.0]), 4.0))  # 3-4-5, touching
    assert not sphere.overlap(unit, Spheres(np.array([3.0, 4.0]), 3.9999999))
    assert sphere.overlap(
        Spheres(np.zeros(3), 0.0), Spheres(np.zeros(3), 0.0)
    )  # two points
    assert not sphere.overlap(
        Spheres(np.zeros(3), -1.0), Spheres(np.zeros(3), 5.0)
    )  # empty
    assert not sphere.overlap(Spheres(np.zeros(3), -np.inf), Spheres(np.zeros(3), np.inf))
    assert (
        sphere.overlap(
            Spheres(np.array([1e308, 0, 0]), 1e308), Spheres(-np.ones(3) * 1e308, 1e308)
        )
        is False
    )
    assert sphere.overlap(
        Spheres(np.array([1e308]), 1e308), Spheres(np.array([-1e308]), 1e308)
    )
    # 1D: intervals [0, 2] and [2, 3]
    assert sphere.overlap(Spheres(np.array([1.0]), 1.0), Spheres(np.array([2.5]), 0.5))


def test_overlap_agrees_with_coal():
    coal = pytest.importorskip("coal")
    rng = np.random.default_rng(20240611)
    n = 10_000
    ca, cb = rng.uniform(-2, 2, (n, 3)), rng.uniform(-2, 2, (n, 3))
    ra, rb = rng.uniform(0.01, 1.5, n), rng.uniform(0.01, 1.5, n)
    got = sphere.overlap(Spheres(ca, ra), Spheres(cb, rb))
    s1, s2 = coal.Sphere(1.0), coal.Sphere(1.0)
    t1, t2 = coal.Transform3s(), coal.Transform3s()
    request = coal.CollisionRequest()
    compared = agree = 0
    for i in range(n):
        d = np.linalg.norm(ca[i] - cb[i])
        if abs(d - (ra[i] + rb[i])) < 1e-9 * (d + ra[i] + rb[i]):
            continue  # a touching tie: Coal's own tolerance decides it
        s1.radius, s2.radius = ra[i], rb[i]
        t1.setTranslation(ca[i])
        t2.setTranslation(cb[i])
        result = coal.CollisionResult()
        coal.collide(s1, t1, s2, t2, request, result)
        compared += 1
        agree += result.isCollision() == got[i]
    assert compared > 9_900
    assert 1000 < got.sum() < 9000  # both outcomes are well represented
    assert agree == compared


# -- pairs -------------------------------------------------------------------------------


@FAST
@given(st.data())
def test_overlap_pairs_matches_brute_force(data):
    a = data.draw(sphere_sets(max_n=25))
    b = data.draw(sphere_sets(dim=a.center.shape[1], max_n=25))
    got = sphere.overlap_pairs(a, b)
    assert got.dtype == np.intp and got.shape[0] == 2
    np.testing.assert_array_equal(got, oracle.overlap_pairs(a, b))
    np.testing.assert_array_equal(got, sphere.overlap_pairs_brute(a, b))
    np.testing.assert_array_equal(
        sphere.overlap_pairs(b, a), got[::-1][:, np.lexsort(got)]
    )


@FAST
@given(
    arrays(np.float64, (60, 3), elements=st.floats(-50, 50, allow_nan=False)),
    arrays(np.float64, (60,), elements=st.floats(0, 8, allow_nan=False)),
    st.sampled_from([1.0, 1e-250, 1e250]),
)
def test_overlap_pairs_free_floats_any_scale(centers, radii, scale):
    """The widened sweep intervals lose no pair the test passes, at any scale."""
    a = Spheres(centers[:30] * scale, radii[:30] * scale)
    b = Spheres(centers[30:] * scale, radii[30:] * scale)
    np.testing.assert_array_equal(
        sphere.overlap_pairs(a, b), sphere.overlap_pairs_brute(a, b)
    )


def test_overlap_pairs_random_scene_matches_brute_force():
    rng = np.random.default_rng(7)
    a = Spheres(rng.uniform(0, 60, (3000, 3)), rng.uniform(0, 1.5, 3000))
    b = Spheres(rng.uniform(0, 60, (2500, 3)), rng.uniform(0, 1.5, 2500))
    got = sphere.overlap_pairs(a, b)
    assert got.shape[1] > 500
    np.testing.assert_array_equal(got, sphere.overlap_pairs_brute(a, b))
    np.testing.assert_array_equal(got, oracle.overlap_pairs(a, b))


def test_overlap_pairs_100k_lattice_of_touching_spheres():
    """1e5 unit-diameter spheres on an integer lattice: each touches its axis neighbours
    (exact ties) and no diagonal one, so the pair count is known in closed form."""
    nx, ny, nz = 1000, 10, 10
    grid = np.stack(
        np.meshgrid(np.arange(nx), np.arange(ny), np.arange(nz), indexing="ij"), -1
    )
    centers = grid.reshape(-1, 3).astype(float)
    s = Spheres(centers, np.full(len(centers), 0.5))
    pairs = sphere.overlap_pairs(s, s)
    neighbours = (nx - 1) * ny * nz + nx * (ny - 1) * nz + nx * ny * (nz - 1)
    assert pairs.shape == (2, len(centers) + 2 * neighbours)
    gap = np.abs(centers[pairs[0]] - centers[pairs[1]]).sum(axis=1)
    assert set(np.unique(gap)) == {0.0, 1.0}
    assert np.all(np.diff(pairs[0]) >= 0)  # sorted


# -- containment, volume, boxes ----------------------------------------------------------


@FAST
@given(sphere_sets(min_n=1), st.data())
def test_contains_points_matches_exact(s, data):
    dim = s.center.shape[1]
    pts = data.draw(
        arrays(np.float64, (len(s.radius), dim), elements=st.integers(-20, 20).map(float))
    )
    got = sphere.contains_points(s, pts)
    want = [
        oracle.inside_exact(s.center[i], s.radius[i], pts[i]) for i in range(len(pts))
    ]
    np.testing.assert_array_equal(got, want)
    one = Spheres(s.center[0], s.radius[0])
    np.testing.assert_array_equal(
        sphere.contains_points(one, pts),
        [oracle.inside_exact(one.center, one.radius, p) for p in pts],
    )
    assert sphere.contains_points(one, pts[0]) is bool(want[0])
    # the centre is inside unless the sphere is empty
    np.testing.assert_array_equal(sphere.contains_points(s, s.center), s.radius >= 0)


def test_contains_points_boundary_counts():
    s = Spheres(np.array([1.0, 2.0, 3.0]), 3.0)
    assert sphere.contains_points(
        s, np.array([2.0, 4.0, 5.0])
    )  # (1, 2, 2): on the surface
    assert not sphere.contains_points(s, np.array([2.0, 4.0, 5.0 + 2**-40]))


@FAST
@given(sphere_sets(infinite=False))
def test_volume_closed_form(s):
    dim = s.center.shape[1]
    r = s.radius
    want = [
        2 * x if dim == 1 else math.pi * x**2 if dim == 2 else 4 / 3 * math.pi * x**3
        for x in r
    ]
    want = np.where(r < 0, 0.0, want)
    np.testing.assert_allclose(sphere.volume(s), want, rtol=1e-15)


def test_volume_single_and_infinite():
    assert sphere.volume(Spheres(np.zeros(3), 1.0)) == pytest.approx(4 / 3 * math.pi)
    assert isinstance(sphere.volume(Spheres(np.zeros(2), 2.0)), float)
    assert sphere.volume(Spheres(np.zeros(1), np.inf)) == np.inf
    assert sphere.volume(Spheres(np.zeros(1), -3.0)) == 0.0


@FAST
@given(
    arrays(np.float64, (6, 3), elements=st.floats(-1e6, 1e6, allow_nan=False)),
    arrays(np.float64, (6,), elements=st.floats(0, 1e6, allow_nan=False)),
    st.integers(1, 3),
)
def test_to_boxes_is_the_tightest_float_box(centers, radii, dim):
    s = Spheres(centers[:, :dim], radii)
    boxes = sphere.to_boxes(s)
    assert boxes.shape == (6, 2, dim)
    for i in range(6):
        for k in range(dim):
            lo_exact = oracle.F(s.center[i, k]) - oracle.F(s.radius[i])
            hi_exact = oracle.F(s.center[i, k]) + oracle.F(s.radius[i])
            lo, hi = boxes[i, 0, k], boxes[i, 1, k]
            assert oracle.F(lo) <= lo_exact < oracle.F(np.nextafter(lo, np.inf))
            assert oracle.F(np.nextafter(hi, -np.inf)) < hi_exact <= oracle.F(hi)


def test_to_boxes_empty_infinite_single():
    s = Spheres(
        np.array([[1.0, 2.0], [0.0, 0.0], [3.0, 4.0]]), np.array([-1.0, np.inf, 0.0])
    )
    boxes = sphere.to_boxes(s)
    np.testing.assert_array_equal(boxes[0], [[np.inf, np.inf], [-np.inf, -np.inf]])
    np.testing.assert_array_equal(boxes[1], [[-np.inf, -np.inf], [np.inf, np.inf]])
    np.testing.assert_array_equal(boxes[2], [[3.0, 4.0], [3.0, 4.0]])
    np.testing.assert_array_equal(
        sphere.to_boxes(Spheres(np.array([1.0]), 2.0)), [[-1.0], [3.0]]
    )
    assert hb.aabb.is_empty(boxes[0])


@FAST
@given(
    arrays(np.float64, (5, 2, 3), elements=st.floats(-1e4, 1e4, allow_nan=False)),
    st.integers(1, 3),
)
def test_from_boxes_circumscribes(raw, dim):
    boxes = np.sort(raw[..., :dim], axis=1)  # lo <= hi
    s = sphere.from_boxes(boxes)
    lo, hi = boxes[:, 0], boxes[:, 1]
    np.testing.assert_allclose(s.center, (lo + hi) / 2, rtol=1e-15, atol=1e-300)
    half_diag = np.linalg.norm(hi - lo, axis=1) / 2
    np.testing.assert_allclose(s.radius, half_diag, rtol=1e-13, atol=1e-12)
    corners = hb.aabb.corners(boxes)
    for i in range(len(boxes)):
        assert all(oracle.inside_exact(s.center[i], s.radius[i], c) for c in corners[i])


def test_from_boxes_edge_cases():
    s = sphere.from_boxes(np.array([[0.0, 0.0], [2.0, 2.0]]))
    assert s.center.shape == (2,) and np.ndim(s.radius) == 0
    np.testing.assert_array_equal(s.center, [1.0, 1.0])
    assert s.radius == pytest.approx(math.sqrt(2), rel=1e-13)
    boxes = np.array(
        [
            [[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]],  # empty
            [[0.0, -np.inf, 5.0], [1.0, 2.0, np.inf]],  # infinite
            [[3.0, 3.0, 3.0], [3.0, 3.0, 3.0]],  # a point
        ]
    )
    s = sphere.from_boxes(boxes)
    np.testing.assert_array_equal(s.radius[:2], [-np.inf, np.inf])
    assert np.isfinite(s.center).all()
    np.testing.assert_array_equal(s.center[2], [3.0, 3.0, 3.0])
    assert s.radius[2] == 0.0


# -- fitting -----------------------------------------------------------------------------


@FAST
@given(point_group(), st.sampled_from(sphere.METHODS))
def test_fit_holds_every_point_exactly(group, method):
    pts, _ = group
    s = sphere.fit(pts, method=method)
    assert s.center.shape == (pts.shape[1],) and np.ndim(s.radius) == 0
    assert _exactly_inside(s, pts)
    assert sphere.contains_points(s, pts).all()


@FAST
@given(point_group(max_k=7))
def test_welzl_is_the_brute_force_minimal_ball(group):
    pts, scale = group
    s = sphere.fit(pts, method="welzl")
    c, r = oracle.min_ball(pts / scale)  # dividing by a power of two is exact
    np.testing.assert_allclose(
        s.radius / scale, r, rtol=1e-9, atol=1e-12 * np.abs(pts / scale).max()
    )
    np.testing.assert_allclose(
        s.center / scale, c, atol=1e-6 * max(r, 1e-3) + 1e-9 * np.abs(pts / scale).max()
    )


@FAST
@given(point_group(max_k=12))
def test_fit_order_welzl_ritter_centroid(group):
    pts, _ = group
    r = {m: sphere.fit(pts, method=m).radius for m in sphere.METHODS}
    assert r["welzl"] <= r["ritter"] * (1 + 1e-9)
    assert r["ritter"] <= r["centroid"] * (1 + 1e-9)


@FAST
@given(point_group(max_k=12))
def test_centroid_and_ritter_match_reference(group):
    pts, scale = group
    unit = pts / scale  # exact; keeps the numpy references in range
    c, r = oracle.centroid_ball(unit)
    # subnormal inputs carry few bits: allow a few of the smallest steps, in unit terms,
    # and the closing pass's documented margin for subnormal radii (2**-1070)
    floor = (8 * 5e-324 + 2.0**-1070) / scale
    spread = np.abs(unit).max() * 1e-12 + floor
    got = sphere.fit(pts, method="centroid")
    np.testing.assert_allclose(got.center / scale, c, rtol=1e-12, atol=spread)
    np.testing.assert_allclose(got.radius / scale, r, rtol=1e-12, atol=spread)
    rc, rr, gap = oracle.ritter_ball(unit)
    assume(gap > 1e-9)  # two equal-looking diameters: rounding may pick either
    got = sphere.fit(pts, method="ritter")
    np.testing.assert_allclose(got.radius / scale, min(rr, r), rtol=1e-9, atol=spread)


def test_fit_worked_examples():
    tri = np.array([[1.0, 0.0], [-0.5, math.sqrt(3) / 2], [-0.5, -math.sqrt(3) / 2]])
    # Ritter's own ball is 1.183 here; the centroid ball (radius 1) is returned instead
    _, r_pure, _ = oracle.ritter_ball(tri)
    assert r_pure == pytest.approx(1.1830127, rel=1e-6)
    for method in sphere.METHODS:
        s = sphere.fit(tri, method=method)
        np.testing.assert_allclose(s.center, [0.0, 0.0], atol=1e-15)
        assert s.radius == pytest.approx(1.0, rel=1e-13)
    # seed 003's max-corner radius misses a vertex; fit(centroid) does not
    pts = np.array([[-10.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    mean = pts.mean(axis=0)
    seed_radius = np.linalg.norm(pts.max(axis=0) - mean)  # 3.42
    assert (
        np.linalg.norm(pts[0] - mean) > 2 * seed_radius
    )  # 7.76: outside the seed's ball
    s = sphere.fit(pts, method="centroid")
    np.testing.assert_allclose(s.center, mean, rtol=1e-15)
    assert s.radius == pytest.approx(np.linalg.norm(pts[0] - mean), rel=1e-13)
    # a diameter and a point inside: Ritter and Welzl give the diametral ball
    pts = np.array([[-1.0, 0.0], [1.0, 0.0], [0.0, 0.5]])
    for method in ("ritter", "welzl"):
        s = sphere.fit(pts, method=method)
        np.testing.assert_allclose(s.center, [0.0, 0.0], atol=1e-15)
        assert s.radius == pytest.approx(1.0, rel=1e-13)


@pytest.mark.parametrize("method", sphere.METHODS)
def test_fit_degenerate_sets(method):
    # cube corners (cospherical, 3D), one repeated point, collinear points in 3D
    cube = np.array(
        [[x, y, z] for x in (-1.0, 1.0) for y in (-1.0, 1.0) for z in (-1.0, 1.0)]
    )
    s = sphere.fit(cube, method=method)
    np.testing.assert_allclose(s.center, 0.0, atol=1e-15)
    assert s.radius == pytest.approx(math.sqrt(3), rel=1e-13)
    s = sphere.fit(np.tile([[2.0, -3.0, 5.0]], (9, 1)), method=method)
    np.testing.assert_array_equal(s.center, [2.0, -3.0, 5.0])
    assert s.radius == 0.0
    line = np.outer([0.0, 3.0, 1.0, 10.0, 7.0], [1.0, 2.0, 2.0]) + 1.0
    s = sphere.fit(line, method=method)
    if method != "centroid":
        np.testing.assert_allclose(s.center, [6.0, 11.0, 11.0], rtol=1e-14)
        assert s.radius == pytest.approx(15.0, rel=1e-13)
    assert _exactly_inside(s, line)


def test_welzl_many_cospherical_points():
    """2000 points on a tilted circle in 3D and 1000 on a sphere: exact answers known."""
    t = np.linspace(0, 2 * np.pi, 2000, endpoint=False)
    u, w = np.array([1.0, 1.0, 0.0]) / math.sqrt(2), np.array([0.0, 0.0, 1.0])
    circle = 3.0 + 5.0 * (np.cos(t)[:, None] * u + np.sin(t)[:, None] * w)
    s = sphere.fit(circle, method="welzl")
    np.testing.assert_allclose(s.center, 3.0, atol=1e-13)
    assert s.radius == pytest.approx(5.0, rel=1e-12)
    rng = np.random.default_rng(3)
    v = rng.normal(size=(1000, 3))
    ball = v / np.linalg.norm(v, axis=1, keepdims=True)
    s = sphere.fit(ball, method="welzl")
    assert s.radius == pytest.approx(1.0, rel=1e-12)
    assert _exactly_inside(s, ball)


def test_fit_batches_and_empty_groups():
    rng = np.random.default_rng(11)
    groups = rng.normal(size=(6, 30, 2))
    s = sphere.fit(groups, method="welzl")
    assert s.center.shape == (6, 2) and s.radius.shape == (6,)
    for g in range(6):
        one = sphere.fit(groups[g], method="welzl")
        assert one.radius == s.radius[g]
        np.testing.assert_array_equal(one.center, s.center[g])
    for method in sphere.METHODS:
        s = sphere.fit(np.zeros((3, 0, 3)), method=method)
        np.testing.assert_array_equal(s.radius, [-np.inf] * 3)
        np.testing.assert_array_equal(s.center, np.zeros((3, 3)))
    s = sphere.fit(np.zeros((0, 3)))
    assert s.radius == -np.inf and s.center.shape == (3,)
    assert not sphere.overlap(s, Spheres(np.zeros(3), np.inf))
    assert sphere.fit(np.array([[4.0]])).radius == 0.0  # one point in 1D


# -- transform, union, cover -------------------------------------------------------------


def _unit_direction(v):
    """A rational vector along v with |u| <= 1 and |u| > 1 - 1e-15, exactly."""
    u = [oracle.F(x) for x in v]
    n2 = sum(x * x for x in u)
    bound = oracle.F(math.sqrt(float(n2))) * (1 + oracle.F(2.0**-50))
    assert bound * bound >= n2
    return [x / bound for x in u]


@FAST
@given(
    arrays(np.float64, (3, 3), elements=st.floats(-4, 4, allow_nan=False)),
    arrays(np.float64, (4,), elements=st.floats(-1e3, 1e3, allow_nan=False)),
    st.floats(0, 100, allow_nan=False),
    arrays(np.float64, (3,), elements=st.floats(-1e3, 1e3, allow_nan=False)),
    st.integers(1, 3),
)
def test_transform_holds_the_exact_image(linear, c, r, trans, dim):
    """Checked in exact arithmetic at the centre ± r along each axis and along the top
    right-singular vector, where the image reaches farthest."""
    m = np.eye(dim + 1)
    m[:dim, :dim], m[:dim, dim] = linear[:dim, :dim], trans[:dim]
    s = sphere.transform(Spheres(c[:dim], r), m)
    sigma = np.linalg.svd(m[:dim, :dim], compute_uv=False)[0]
    np.testing.assert_allclose(
        s.center, m[:dim, :dim] @ c[:dim] + trans[:dim], rtol=1e-12, atol=1e-9
    )
    np.testing.assert_allclose(s.radius, sigma * r, rtol=1e-12, atol=1e-10)
    directions = [np.eye(dim)[k] for k in range(dim)] + [
        np.linalg.svd(m[:dim, :dim])[2][0]
    ]
    mf = [[oracle.F(x) for x in row] for row in m]
    for v in directions:
        for sign in (1, -1):
            u = _unit_direction(sign * v)
            p = [
                oracle.F(c[k]) + oracle.F(r) * u[k] for k in range(dim)
            ]  # exactly on the sphere
            image = [
                sum(mf[i][k] * p[k] for k in range(dim)) + mf[i][dim] for i in range(dim)
            ]
            d2 = sum((image[i] - oracle.F(s.center[i])) ** 2 for i in range(dim))
            assert d2 <= oracle.F(s.radius) ** 2


def test_transform_rotation_keeps_radius_and_scale_takes_the_largest():
    rng = np.random.default_rng(5)
    q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    q *= np.sign(np.linalg.det(q))
    m = np.eye(4)
    m[:3, :3], m[:3, 3] = q, [1.0, -2.0, 3.0]
    s = Spheres(rng.normal(size=(50, 3)), rng.uniform(0, 2, 50))
    out = sphere.transform(s, m)
    # the radius also takes in the rounding of the moved centre: 8 eps |t| + |c|, 1e-14
    np.testing.assert_allclose(out.radius, s.radius, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(
        out.center, s.center @ q.T + m[:3, 3], rtol=1e-13, atol=1e-14
    )
    scaled = sphere.transform(s, np.diag([0.5, 3.0, 2.0, 1.0]))
    np.testing.assert_allclose(scaled.radius, 3.0 * s.radius, rtol=1e-13, atol=1e-13)
    flat = sphere.transform(
        Spheres(np.array([1.0, 2.0]), np.inf), np.diag([0.0, 0.0, 1.0])
    )
    assert 0.0 < flat.radius < 1e-320  # all maps to one point: only the rounding slack
    np.testing.assert_array_equal(flat.center, [0.0, 0.0])
    empty = sphere.transform(
        Spheres(np.zeros((1, 2)), np.array([-2.0])), np.diag([2.0, 2.0, 1.0])
    )
    assert empty.radius[0] == -np.inf


@FAST
@given(st.data())
def test_union_holds_both_exactly_and_is_smallest(data):
    dim = data.draw(st.integers(1, 3))
    coord = st.floats(-1e4, 1e4, allow_nan=False, allow_subnormal=False)
    radius = st.one_of(
        st.floats(0, 1e4, allow_subnormal=False), st.sampled_from([0.0, -1.0, 3.0])
    )
    ca, cb = (data.draw(arrays(np.float64, (dim,), elements=coord)) for _ in range(2))
    ra, rb = (data.draw(radius) for _ in range(2))
    if data.draw(st.booleans()):
        cb = ca.copy()  # concentric
    u = sphere.union(Spheres(ca, ra), Spheres(cb, rb))
    assert oracle.holds_ball_exact(u.center, u.radius, ca, ra)
    assert oracle.holds_ball_exact(u.center, u.radius, cb, rb)
    d = math.hypot(*(cb - ca))  # np.linalg.norm underflows at 1e-200
    if ra < 0 and rb < 0:
        assert u.radius == -np.inf
    elif ra < 0 or rb < 0:
        keep = (cb, rb) if ra < 0 else (ca, ra)
        np.testing.assert_array_equal(u.center, keep[0])
        assert u.radius == keep[1]
    else:
        want = max(ra, rb, (d + ra + rb) / 2)
        assert u.radius == pytest.approx(
            want, rel=1e-12, abs=1e-12 * (np.abs(ca).max() + np.abs(cb).max())
        )
    assert np.array_equal(sphere.union(Spheres(ca, ra), Spheres(ca, -1.0)).center, ca)


def test_union_examples_and_broadcast():
    a = Spheres(np.zeros(3), 1.0)
    u = sphere.union(a, Spheres(np.array([3.0, 0.0, 0.0]), 1.0))
    np.testing.assert_allclose(u.center, [1.5, 0.0, 0.0], rtol=1e-14)
    assert u.radius == pytest.approx(2.5, rel=1e-13)
    inner = Spheres(np.array([0.5, 0.0, 0.0]), 0.25)
    for u in (sphere.union(a, inner), sphere.union(inner, a)):  # the bigger one, exactly
        assert u.radius == 1.0 and np.array_equal(u.center, a.center)
    # centres 3.4e308 apart: the radius is finite (~1.7e308), computed in halves
    far = sphere.union(
        Spheres(np.array([1.7e308, 0.0]), 1e300),
        Spheres(np.array([-1.7e308, 0.0]), 1e300),
    )
    assert far.radius == pytest.approx(1.7e308 + 1e300, rel=1e-12)
    assert np.isfinite(far.center).all()
    huge = sphere.union(
        Spheres(np.array([1.7e308]), 1e308), Spheres(np.array([-1.7e308]), 0)
    )
    assert huge.radius == np.inf and np.isfinite(huge.center).all()
    many = Spheres(np.arange(12.0).reshape(4, 3), np.ones(4))
    out = sphere.union(a, many)
    assert out.center.shape == (4, 3)
    for i in range(4):
        one = sphere.union(a, Spheres(many.center[i], many.radius[i]))
        assert one.radius == out.radius[i]


def _sample_box(rng, box, n):
    dim = box.shape[1]
    inner = np.clip(
        box[0] + rng.uniform(0, 1, (n, dim)) * (box[1] - box[0]), box[0], box[1]
    )
    bits = (np.arange(2**dim)[:, None] >> np.arange(dim)) & 1
    corners = box[bits, np.arange(dim)]
    return np.concatenate([inner, corners, [0.5 * (box[0] + box[1])]])


@FAST
@given(
    arrays(np.float64, (3, 2, 3), elements=st.floats(-1e3, 1e3, allow_nan=False)),
    st.integers(1, 3),
    st.integers(1, 9),
)
def test_cover_covers_the_box(raw, dim, count):
    boxes = np.sort(raw[..., :dim], axis=1)
    s = sphere.cover(boxes, count)
    assert s.center.shape == (3 * count, dim) and s.radius.shape == (3 * count,)
    rng = np.random.default_rng(count)
    for n in range(3):
        mine = Spheres(
            s.center[n * count : (n + 1) * count], s.radius[n * count : (n + 1) * count]
        )
        for p in _sample_box(rng, boxes[n], 40):
            assert any(oracle.inside_exact(c, r, p) for c, r in zip(*mine, strict=True))
    if count == 1:
        one = sphere.from_boxes(boxes)
        np.testing.assert_array_equal(s.radius, one.radius)


def test_cover_wastes_less_than_one_sphere():
    boxes = np.array(
        [
            [[0.0, 0.0, 0.0], [10.0, 1.0, 1.0]],  # a rod along x
            [[0.0, 0.0, 0.0], [2.0, 12.0, 3.0]],  # a plank, longest along y
            [[-5.0, -1.0, 0.0], [5.0, 1.0, 0.0]],  # a flat rectangle
        ]
    )
    single = sphere.volume(sphere.from_boxes(boxes))
    for count in (2, 4, 8):
        total = sphere.volume(sphere.cover(boxes, count)).reshape(3, count).sum(axis=1)
        assert np.all(total < 0.5 * single), (count, total, single)
    # the spheres of the rod are spread along x, in order
    rod = sphere.cover(boxes[0], 5)
    np.testing.assert_allclose(rod.center[:, 0], [1.0, 3.0, 5.0, 7.0, 9.0], rtol=1e-15)
    np.testing.assert_allclose(rod.radius, np.linalg.norm([1.0, 0.5, 0.5]), rtol=1e-13)
    # 2D as in seed 004: a 10 x 1 rectangle by 5 circles, area 19.6 against 79.3
    rect = np.array([[0.0, 0.0], [10.0, 1.0]])
    circles = sphere.volume(sphere.cover(rect, 5)).sum()
    assert circles == pytest.approx(5 * math.pi * 5 / 4, rel=1e-12)
    assert sphere.volume(sphere.from_boxes(rect)) == pytest.approx(
        math.pi * 101 / 4, rel=1e-12
    )


def test_cover_empty_and_infinite_boxes():
    boxes = np.array([[[1.0, 1.0], [0.0, 0.0]], [[0.0, 0.0], [np.inf, 1.0]]])
    s = sphere.cover(boxes, 3)
    np.testing.assert_array_equal(s.radius, [-np.inf] * 3 + [np.inf] * 3)
    assert np.isfinite(s.center).all()


# -- the kernel-level predicate ----------------------------------------------------------


@njit
def _count_overlaps(a, b):
    n = 0
    for i in range(len(a.radius)):
        for j in range(len(b.radius)):
            if ks.sphere_overlap(a, i, b, j):
                n += 1
    return n


@FAST
@given(st.data())
def test_kernel_predicate_takes_spheres_namedtuples(data):
    a = data.draw(sphere_sets(max_n=8))
    b = data.draw(sphere_sets(dim=a.center.shape[1], max_n=8))
    a = Spheres(np.ascontiguousarray(a.center), np.where(a.radius < 0, -np.inf, a.radius))
    b = Spheres(np.ascontiguousarray(b.center), np.where(b.radius < 0, -np.inf, b.radius))
    assert _count_overlaps(a, b) == oracle.overlap_pairs(a, b).shape[1]


# -- contracts and bad input -------------------------------------------------------------

EMPTY3 = Spheres(np.zeros((0, 3)), np.zeros(0))


def test_zero_items_give_empty_results():
    assert sphere.fit(np.zeros((0, 4, 3))).center.shape == (0, 3)
    assert sphere.fit(np.zeros((0, 4, 3)), method="welzl").radius.shape == (0,)
    assert sphere.from_boxes(np.zeros((0, 2, 2))).center.shape == (0, 2)
    assert sphere.to_boxes(EMPTY3).shape == (0, 2, 3)
    assert sphere.cover(np.zeros((0, 2, 3)), 4).center.shape == (0, 3)
    assert sphere.union(EMPTY3, EMPTY3).radius.shape == (0,)
    for out in (
        sphere.overlap(EMPTY3, EMPTY3),
        sphere.overlap(Spheres(np.zeros(3), 1.0), EMPTY3),
    ):
        assert out.shape == (0,) and out.dtype == np.bool_
    for pairs in (
        sphere.overlap_pairs(EMPTY3, EMPTY3),
        sphere.overlap_pairs_brute(EMPTY3, EMPTY3),
    ):
        assert pairs.shape == (2, 0) and pairs.dtype == np.intp
    assert sphere.contains_points(EMPTY3, np.zeros((0, 3))).shape == (0,)
    assert sphere.volume(EMPTY3).shape == (0,)
    assert sphere.transform(EMPTY3, np.eye(4)).center.shape == (0, 3)


def test_one_item_in_one_out():
    s = Spheres(np.array([1.0, 2.0]), 3.0)
    assert isinstance(sphere.overlap(s, s), bool)
    assert isinstance(sphere.contains_points(s, np.zeros(2)), bool)
    assert isinstance(sphere.volume(s), float)
    assert sphere.to_boxes(s).shape == (2, 2)
    for out in (
        sphere.union(s, s),
        sphere.transform(s, np.eye(3)),
        sphere.from_boxes(np.eye(2)),
    ):
        assert out.center.shape == (2,) and np.ndim(out.radius) == 0
    f = sphere.fit(np.eye(2))
    assert isinstance(f, Spheres) and isinstance(f.radius, float)
    assert hb.sphere is sphere


GOOD = Spheres(np.zeros((2, 3)), np.ones(2))
PTS = np.zeros((2, 4, 3))
BAD_INPUT = [
    (lambda: sphere.fit(np.zeros((2, 3, 4))), ValueError, "points"),
    (lambda: sphere.fit(np.zeros(3)), ValueError, "points"),
    (lambda: sphere.fit(np.array([[["a", "b", "c"]]])), TypeError, "points"),
    (lambda: sphere.fit(np.array([[0.0, np.nan, 0.0]])), ValueError, "points"),
    (lambda: sphere.fit(np.array([[0.0, np.inf, 0.0]])), ValueError, "points"),
    (lambda: sphere.fit(PTS, method="bogus"), ValueError, "method"),
    (lambda: sphere.fit(PTS, method=None), ValueError, "method"),
    (
        lambda: sphere.overlap(Spheres(np.zeros((2, 3)), np.ones(3)), GOOD),
        ValueError,
        "radius",
    ),
    (
        lambda: sphere.overlap(GOOD, Spheres(np.zeros((2, 2)), np.ones(2))),
        ValueError,
        "b",
    ),
    (
        lambda: sphere.overlap(GOOD, Spheres(np.zeros((3, 3)), np.ones(3))),
        ValueError,
        "broadcast",
    ),
    (lambda: sphere.overlap(np.zeros((2, 3)), GOOD), TypeError, "a"),
    (
        lambda: sphere.overlap(Spheres(np.full((1, 3), np.nan), np.ones(1)), GOOD),
        ValueError,
        "a.center",
    ),
    (
        lambda: sphere.overlap(GOOD, Spheres(np.zeros((1, 3)), [np.nan])),
        ValueError,
        "b.radius",
    ),
    (
        lambda: sphere.overlap(Spheres(np.zeros((1, 3)), ["x"]), GOOD),
        TypeError,
        "a.radius",
    ),
    (
        lambda: sphere.overlap_pairs(GOOD, Spheres(np.zeros((2, 1)), np.ones(2))),
        ValueError,
        "b",
    ),
    (lambda: sphere.overlap_pairs_brute(GOOD, "ab"), TypeError, "b"),
    (lambda: sphere.contains_points(GOOD, np.zeros((2, 4))), ValueError, "points"),
    (lambda: sphere.contains_points(GOOD, np.zeros((3, 3))), ValueError, "broadcast"),
    (lambda: sphere.contains_points(GOOD, np.full((2, 3), np.nan)), ValueError, "points"),
    (lambda: sphere.volume(np.zeros(3)), TypeError, "spheres"),
    (
        lambda: sphere.to_boxes(Spheres(np.zeros((1, 5)), np.ones(1))),
        ValueError,
        "spheres",
    ),
    (lambda: sphere.transform(GOOD, np.eye(3)), ValueError, "matrix"),
    (lambda: sphere.transform(GOOD, np.ones((4, 4))), ValueError, "matrix"),
    (lambda: sphere.transform(GOOD, np.full((4, 4), np.nan)), ValueError, "matrix"),
    (
        lambda: sphere.union(GOOD, Spheres(np.zeros((3, 3)), np.ones(3))),
        ValueError,
        "broadcast",
    ),
    (lambda: sphere.cover(np.zeros((1, 2, 3)), 0), ValueError, "count"),
    (lambda: sphere.cover(np.zeros((1, 2, 3)), 2.5), ValueError, "count"),
    (lambda: sphere.cover(np.zeros((1, 3, 3)), 2), ValueError, "boxes"),
    (lambda: sphere.from_boxes(np.zeros((2, 3, 3))), ValueError, "boxes"),
    (lambda: sphere.from_boxes(np.array([[[np.nan], [1.0]]])), ValueError, "boxes"),
]


@pytest.mark.parametrize("call, error, name", BAD_INPUT)
def test_bad_input_raises_naming_the_argument(call, error, name):
    with pytest.raises(error, match=name):
        call()


def test_transform_overflow_is_reported():
    far = Spheres(np.array([[1e300, 0.0, 0.0]]), np.ones(1))
    with pytest.raises(ValueError, match="matrix"):
        sphere.transform(far, np.diag([1e10, 1.0, 1.0, 1.0]))
