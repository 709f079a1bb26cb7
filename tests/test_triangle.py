"""Triangle primitives: exact overlap, contact segments, watertight ray casts."""

import itertools

import fcl
import numpy as np
import pytest
import trimesh
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numba import njit

import hitbox as hb
from hitbox import _affine
from hitbox._kernels import exact_predicates as kp
from hitbox._kernels import orient_filter as of
from hitbox._kernels import ray_distance as rd
from hitbox._kernels import ray_triangle as kr
from hitbox._kernels import triangle_overlap as ko
from tests import oracles_triangle as ot
from tests.strategies import rotation

PERMS = list(itertools.permutations(range(3)))
UNIT = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0]])

# -- strategies --------------------------------------------------------------------------

# A 5x5x5 grid: shared vertices, touching, coplanar and collinear triples are all common.
tiny = st.integers(-2, 2).map(float)


def _in_range(x):
    """Exactness holds while one pair's coordinates span less than ~1e170 (module doc)."""
    return x if abs(x) > 1e-100 else 0.0


def reals(lo, hi):
    return st.floats(lo, hi, width=64).map(_in_range)


@st.composite
def grid_pairs(draw):
    """Two triangles on a small integer grid; q reuses p's vertices half of the time.

    Sometimes every point is put in the plane z = 0 (coplanar pairs) or on the x axis
    (collinear, zero-area triangles).
    """
    pool = draw(hnp.arrays(np.float64, (6, 3), elements=tiny))
    flat = draw(st.sampled_from(["none", "none", "plane", "line"]))
    if flat == "plane":
        pool[:, 2] = 0.0
    elif flat == "line":
        pool[:, 1:] = 0.0
    jq = draw(st.lists(st.integers(0, 5), min_size=3, max_size=3))
    return pool[:3].copy(), pool[jq].copy()


@st.composite
def grid_pairs_far(draw):
    """grid_pairs moved far from the origin by an integer: exact, and the float filter
    must hand nearly every tie to the exact expansion."""
    p, q = draw(grid_pairs())
    shift = np.array(
        draw(st.sampled_from([(1e9, -3e8, 7e7), (2.0**40, 3.0, -(2.0**35))]))
    )
    return p + shift, q + shift


@st.composite
def near_ties(draw):
    """Float triangles where q touches p to within rounding: a vertex of q on an edge or
    in the face of p, computed in floating point (so a rounding off either side)."""
    p = draw(hnp.arrays(np.float64, (3, 3), elements=reals(-4, 4)))
    s = draw(st.floats(0, 1))
    r = draw(st.floats(0, 1))
    if draw(st.booleans()):
        x = p[0] + s * (p[1] - p[0])  # on an edge
    else:
        x = p[0] + s * (p[1] - p[0]) + r * (1 - s) * (p[2] - p[0])  # in the face
    rest = draw(hnp.arrays(np.float64, (2, 3), elements=reals(-4, 4)))
    return p, np.array([x, rest[0], rest[1]])


def _all_orders(p, q):
    """(72, 3, 3) pairs: every vertex order of p and of q, and both argument orders."""
    a, b = [], []
    for ip in PERMS:
        for iq in PERMS:
            a += [p[list(ip)], q[list(iq)]]
            b += [q[list(iq)], p[list(ip)]]
    return np.array(a), np.array(b)


# -- predicates --------------------------------------------------------------------------

coord = reals(-1e3, 1e3)


@settings(max_examples=300)
@given(
    hnp.arrays(np.float64, (3, 3), elements=coord),
    st.floats(-2, 2),
    st.floats(-2, 2),
    st.integers(-3, 3),
    st.sampled_from([0.0, 1e8, -3.5e12]),
)
def test_orient3d_sign_is_exact_near_the_plane(abc, s, r, ulps, shift):
    a, b, c = abc + shift
    d = a + s * (b - a) + r * (c - a)  # on the plane up to rounding
    d[2] = d[2] + ulps * np.spacing(abs(d[2]) + 1e-6)  # no subnormals (see module doc)
    got = kp.orient3d(tuple(a), tuple(b), tuple(c), tuple(d))
    assert got == ot.orient3d(a, b, c, d)
    # Alternating: an odd permutation flips the sign, an even one keeps it.
    assert kp.orient3d(tuple(b), tuple(a), tuple(c), tuple(d)) == -got
    assert kp.orient3d(tuple(d), tuple(a), tuple(c), tuple(b)) == got


@settings(max_examples=300)
@given(
    hnp.arrays(np.float64, (2, 2), elements=coord),
    st.floats(-3, 3),
    st.integers(-3, 3),
    st.sampled_from([0.0, 1e9, -7e15]),
)
def test_orient2d_sign_is_exact_near_the_line(ab, s, ulps, shift):
    a, b = ab + shift
    c = a + s * (b - a)
    c[1] = c[1] + ulps * np.spacing(abs(c[1]) + 1e-6)
    got = kp.orient2d(a[0], a[1], b[0], b[1], c[0], c[1])
    assert got == ot.orient2d(a, b, c)
    assert kp.orient2d(b[0], b[1], a[0], a[1], c[0], c[1]) == -got


def test_orient_exact_zero_and_tiny_signs():
    a, b, c = (0.1, 0.2, 0.3), (0.4, 0.5, 0.6), (0.7, 0.8, 1.0)
    assert kp.orient3d(a, b, c, a) == 0  # a repeated point
    # The float determinant of these collinear-looking points is rounding noise.
    p = (0.1, 0.1)
    q = (0.3, 0.3)
    r = (0.7, 0.7)
    assert kp.orient2d(*p, *q, *r) == ot.orient2d(p, q, r)
    r2 = (0.7, np.nextafter(0.7, 1.0))
    assert kp.orient2d(*p, *q, *r2) == ot.orient2d(p, q, r2) == 1


# -- triangle-triangle overlap -----------------------------------------------------------


@settings(max_examples=500)
@given(grid_pairs())
def test_overlap_matches_exact_oracle_on_grid(pq):
    p, q = pq
    assert hb.triangle.overlap(p, q) == ot.tri_tri_overlap(p, q)


@settings(max_examples=150)
@given(grid_pairs_far())
def test_overlap_matches_exact_oracle_far_from_origin(pq):
    p, q = pq
    assert hb.triangle.overlap(p, q) == ot.tri_tri_overlap(p, q)


@settings(max_examples=100)
@given(grid_pairs(), st.sampled_from([2.0**-1070, 2.0**-700, 2.0**600, 2.0**1000]))
def test_overlap_is_exact_at_any_scale(pq, scale):
    """Scaling by a power of two is exact; subnormal and near-overflow inputs included."""
    p, q = pq
    assert hb.triangle.overlap(p * scale, q * scale) == ot.tri_tri_overlap(p, q)


@settings(max_examples=150)
@given(near_ties())
def test_overlap_matches_exact_oracle_on_float_near_ties(pq):
    p, q = pq
    assert hb.triangle.overlap(p, q) == ot.tri_tri_overlap(p, q)


@settings(max_examples=150)
@given(st.one_of(grid_pairs(), grid_pairs_far(), near_ties()))
def test_overlap_ignores_vertex_and_argument_order(pq):
    a, b = _all_orders(*pq)
    got = hb.triangle.overlap(a, b)
    assert got.all() or not got.any()


def _filtered(p, q):
    return of.tri_tri_filtered(*(tuple(map(float, v)) for v in (*p, *q)))


@settings(max_examples=400)
@given(st.one_of(grid_pairs(), grid_pairs_far(), near_ties()))
def test_filtered_overlap_is_exact_or_undecided(pq):
    """The filters alone (the sweep without trees) answer only where they are exact;
    every tie is undecided, whatever the vertex order."""
    p, q = pq
    want = ot.tri_tri_overlap(p, q)
    a, b = _all_orders(p, q)
    for x, y in zip(a, b, strict=True):
        got = _filtered(x, y)
        assert got == of.UNDECIDED or got == (of.MEET if want else of.APART)
    on_plane = [  # a vertex exactly on the other triangle's plane: exact signs needed
        ot.orient3d(*x.tolist(), y[k].tolist()) == 0
        for x, y in ((p, q), (q, p))
        for k in range(3)
    ]
    if want and any(on_plane):
        assert _filtered(p, q) == of.UNDECIDED


def test_filtered_overlap_decides_pairs_in_general_position():
    """Random float triangles whose boxes meet: the filters settle all of them (an
    undecided pair costs the exact test, so this is the sweep's speed)."""
    rng = np.random.default_rng(5)
    verdicts = [
        _filtered(rng.uniform(-1, 1, (3, 3)), rng.uniform(-1, 1, (3, 3)))
        for _ in range(3000)
    ]
    assert of.UNDECIDED not in verdicts
    assert verdicts.count(of.MEET) > 100 and verdicts.count(of.APART) > 1000


@settings(max_examples=100)
@given(st.one_of(grid_pairs(), near_ties()), st.integers(0, 2**32 - 1))
def test_overlap_xf_kernel_moves_b_into_a_frame(pq, seed):
    p, q = pq
    rng = np.random.default_rng(seed)
    rot = rotation(rng)
    trans = rng.normal(size=3)
    q_local = _affine.apply(rot.T, -(rot.T @ trans), q)  # the kernel maps it back
    expect = hb.triangle.overlap(p, _affine.apply(rot, trans, q_local))
    assert _overlap_xf(p[None], q_local[None], rot, trans) == expect


@njit
def _overlap_xf(a, b, rot, trans):
    return ko.tri_tri_overlap_xf(a, 0, b, 0, rot, trans)


DEGENERATE_CASES = [
    # (p, q, expected, what)
    (
        UNIT,
        [[0.2, 0.2, -1], [0.2, 0.2, 1], [0.2, 0.2, 1]],
        True,
        "segment through the face",
    ),
    (
        UNIT,
        [[0.5, 0.5, -1], [0.5, 0.5, 1], [0.5, 0.5, 0]],
        True,
        "segment through an edge",
    ),
    (
        UNIT,
        [[0.6, 0.6, -1], [0.6, 0.6, 1], [0.6, 0.6, 0]],
        False,
        "segment past the edge",
    ),
    (UNIT, [[0.0, 0, 1], [0, 0, 1], [0, 0, 2]], False, "segment above a vertex"),
    (UNIT, [[0.0, 0, 0], [0, 0, 1], [0, 0, 2]], True, "segment ending on a vertex"),
    (UNIT, [[-1.0, 0.5, 0], [2, 0.5, 0], [0.5, 0.5, 0]], True, "coplanar segment across"),
    (UNIT, [[-1.0, 2, 0], [2, 2, 0], [0.5, 2, 0]], False, "coplanar segment beside"),
    (UNIT, [[0.25, 0.25, 0]] * 3, True, "point in the face"),
    (UNIT, [[0.5, 0.5, 0]] * 3, True, "point on the hypotenuse"),
    (UNIT, [[0.5, 0.5, 1e-300]] * 3, False, "point just above"),
    (UNIT, [[0.6, 0.6, 0]] * 3, False, "coplanar point outside"),
    (
        [[0.0, 0, 0], [2, 0, 0], [1, 0, 0]],
        [[1.0, -1, 0], [1, 1, 0], [1, 0, 0]],
        True,
        "segments cross",
    ),
    (
        [[0.0, 0, 0], [2, 0, 0], [1, 0, 0]],
        [[1.0, -1, 1], [1, 1, 1], [1, 0, 1]],
        False,
        "skew segments",
    ),
    (
        [[0.0, 0, 0], [2, 0, 0], [1, 0, 0]],
        [[2.0, 0, 0], [3, 0, 0], [4, 0, 0]],
        True,
        "collinear, touching",
    ),
    (
        [[0.0, 0, 0], [2, 0, 0], [1, 0, 0]],
        [[2.5, 0, 0], [3, 0, 0], [4, 0, 0]],
        False,
        "collinear, apart",
    ),
    ([[1.0, 2, 3]] * 3, [[1.0, 2, 3]] * 3, True, "one point twice"),
    ([[1.0, 2, 3]] * 3, [[1.0, 2, 3.5]] * 3, False, "two points"),
    (
        [[0.0, 0, 0], [2, 2, 2], [1, 1, 1]],
        [[1.0, 1, 1]] * 3,
        True,
        "point on a 3D segment",
    ),
]


@pytest.mark.parametrize(
    "p, q, expected",
    [c[:3] for c in DEGENERATE_CASES],
    ids=[c[3] for c in DEGENERATE_CASES],
)
def test_degenerate_triangles(p, q, expected):
    p, q = np.asarray(p, float), np.asarray(q, float)
    a, b = _all_orders(p, q)
    assert (hb.triangle.overlap(a, b) == expected).all()
    assert ot.tri_tri_overlap(p, q) == expected
    seg = hb.triangle.intersection_segments(a, b)
    assert (seg.hit == expected).all()


TOUCHING_CASES = [
    (UNIT, UNIT[[1, 0, 2]], True, "same triangle"),
    (UNIT, [[1.0, 0, 0], [0, 1, 0], [1, 1, 0]], True, "shared edge, coplanar"),
    (UNIT, [[1.0, 0, 0], [0, 1, 0], [1, 1, 1]], True, "shared edge, folded"),
    (UNIT, [[1.0, 0, 0], [2, 0, 0], [1, -1, 0]], True, "shared vertex, coplanar"),
    (UNIT, [[1.0, 0, 0], [2, 1, 1], [2, -1, 1]], True, "shared vertex, folded"),
    (UNIT, [[0.5, 0.5, 0], [1, 1, 1], [1, 1, -1]], True, "vertex on the hypotenuse"),
    (UNIT, [[0.5, 0.5, 1], [1, 1, 1], [1, 1, -1]], False, "above the hypotenuse"),
    (UNIT, [[0.5, -1, 0], [0.5, 1, 0], [0.5, 0, 1]], True, "edge across the face"),
    (UNIT, [[0.5, -1, 1], [0.5, 1, 1], [0.5, 0, 2]], False, "parallel plane above"),
    (UNIT, [[0.1, 0.1, 0], [0.2, 0.1, 0], [0.1, 0.2, 0]], True, "coplanar, inside"),
    (UNIT, [[-1.0, -1, 0], [3, -1, 0], [-1, 3, 0]], True, "coplanar, containing"),
    (UNIT, [[0.0, 1, 0], [-1, 0, 0], [-1, 1, 0]], True, "coplanar, vertex to edge"),
    (UNIT, [[1.0, 1, 0], [2, 1, 0], [1, 2, 0]], False, "coplanar, apart"),
    (UNIT, [[0.25, -1, -1], [0.25, 2, -1], [0.25, 0.5, 2]], True, "planes cross inside"),
]


@pytest.mark.parametrize(
    "p, q, expected", [c[:3] for c in TOUCHING_CASES], ids=[c[3] for c in TOUCHING_CASES]
)
def test_touching_and_coplanar_table(p, q, expected):
    p, q = np.asarray(p, float), np.asarray(q, float)
    a, b = _all_orders(p, q)
    assert (hb.triangle.overlap(a, b) == expected).all()
    assert ot.tri_tri_overlap(p, q) == expected


@pytest.mark.parametrize("make", ["icosphere", "box", "cylinder"])
def test_closed_mesh_faces_meet_exactly_their_neighbours(make):
    """On a convex closed mesh, faces touch iff they share a vertex (float input)."""
    mesh = {
        "icosphere": lambda: trimesh.creation.icosphere(subdivisions=2),
        "box": lambda: trimesh.creation.box(extents=(1.0, 2.0, 3.0)),
        "cylinder": lambda: trimesh.creation.cylinder(
            radius=1.0, height=2.0, sections=12
        ),
    }[make]()
    tris = mesh.triangles
    got = hb.triangle.overlap_pairs_brute(tris, tris)
    share = (mesh.faces[:, None, :, None] == mesh.faces[None, :, None, :]).any(
        axis=(2, 3)
    )
    np.testing.assert_array_equal(got, np.array(np.nonzero(share), dtype=np.intp))


def _fcl_model(tri):
    m = fcl.BVHModel()
    m.beginModel(3, 1)
    m.addSubModel(np.asarray(tri, float), np.array([[0, 1, 2]]))
    m.endModel()
    return m


def test_overlap_agrees_with_fcl_on_random_pairs():
    """python-fcl's BVH leaf test on 3,000 generic pairs (no ties at random)."""
    rng = np.random.default_rng(20240611)
    n = 3000
    centres = rng.uniform(0, 0.25, (n, 2, 1, 3))
    tris = centres + rng.normal(0, 0.4, (n, 2, 3, 3))
    a, b = tris[:, 0], tris[:, 1]
    got = hb.triangle.overlap(a, b)
    req = fcl.CollisionRequest()
    expect = np.array(
        [
            fcl.collide(
                fcl.CollisionObject(_fcl_model(p)),
                fcl.CollisionObject(_fcl_model(q)),
                req,
                fcl.CollisionResult(),
            )
            > 0
            for p, q in zip(a, b, strict=True)
        ]
    )
    assert 0.15 < expect.mean() < 0.85  # both answers well represented
    np.testing.assert_array_equal(got, expect)


def test_overlap_pairs_brute_matches_elementwise():
    rng = np.random.default_rng(7)
    a = rng.integers(-2, 3, (9, 3, 3)).astype(float)
    b = rng.integers(-2, 3, (7, 3, 3)).astype(float)
    pairs = hb.triangle.overlap_pairs_brute(a, b)
    i, j = np.meshgrid(np.arange(9), np.arange(7), indexing="ij")
    hit = hb.triangle.overlap(a[i.ravel()], b[j.ravel()])
    expect = np.array([i.ravel()[hit], j.ravel()[hit]], dtype=np.intp)
    np.testing.assert_array_equal(pairs, expect)
    assert pairs.dtype == np.intp
    swapped = hb.triangle.overlap_pairs_brute(b, a)
    np.testing.assert_array_equal(swapped, pairs[::-1][:, np.lexsort(pairs)])


# -- intersection segments ---------------------------------------------------------------


def _assert_on_both(seg, a, b, tol=1e-9):
    for k in np.flatnonzero(seg.hit):
        scale = max(1.0, np.abs(a[k]).max(), np.abs(b[k]).max())
        for x in (seg.p[k], seg.q[k]):
            assert ot.point_triangle_distance(x, a[k]) <= tol * scale
            assert ot.point_triangle_distance(x, b[k]) <= tol * scale


@settings(max_examples=200)
@given(st.one_of(grid_pairs(), near_ties()))
def test_segments_hit_is_overlap_and_endpoints_lie_on_both(pq):
    a, b = _all_orders(*pq)
    seg = hb.triangle.intersection_segments(a, b)
    np.testing.assert_array_equal(seg.hit, hb.triangle.overlap(a, b))
    assert np.isnan(seg.p[~seg.hit]).all() and np.isnan(seg.q[~seg.hit]).all()
    assert not np.isnan(seg.p[seg.hit]).any()
    _assert_on_both(seg, a, b)


# Slivers with a vertex 3e-56 off an edge of the other triangle: their planes are barely
# defined, and the crossing of an edge with them came out 0.3-0.7 off both (hypothesis).
SLIVER_PAIRS = [
    (
        [[-1.0931144953809784, 1.5, 1.0], [0.0, 0.0, 0.0], [-1.0, 0.0, -1.0]],
        [
            [-0.95647518345835603, 1.3125, 0.875],
            [-1.0931144953809784, 1.5, 1.0],
            [-2.8947851369915497e-56, 0.0, -2.8947851369915497e-56],
        ],
    ),
    (
        [[1.0, 1.0, 3.0], [0.0, 0.0, 0.0], [-1.0, 0.0, -1.0]],
        [
            [0.99999990000000005, 0.99999990000000005, 2.9999997],
            [1.0, 1.0, 3.0],
            [-2.8947851369915497e-56, 0.0, -2.8947851369915497e-56],
        ],
    ),
]


@pytest.mark.parametrize("p, q", SLIVER_PAIRS)
def test_segments_of_sliver_pairs_lie_on_both(p, q):
    a, b = _all_orders(np.array(p), np.array(q))
    seg = hb.triangle.intersection_segments(a, b)
    np.testing.assert_array_equal(seg.hit, hb.triangle.overlap(a, b))
    assert seg.hit.all()
    _assert_on_both(seg, a, b)


@settings(max_examples=200)
@given(grid_pairs())
def test_segments_ignore_vertex_and_argument_order(pq):
    """A chord of the same length in every order. (On the grid: near-parallel float
    cases are ill-conditioned and only promise points on both triangles. Equal-length
    diameters of an overlap polygon may be picked differently, hence lengths.)"""
    a, b = _all_orders(*pq)
    seg = hb.triangle.intersection_segments(a, b)
    length = np.linalg.norm(seg.p - seg.q, axis=1)
    if seg.hit.any():
        np.testing.assert_allclose(length, length[0], atol=1e-12)


def test_segments_match_clipping_on_random_crossing_pairs():
    """Generic pairs: the chord is p's cut by q's plane, clipped to q (another route)."""
    rng = np.random.default_rng(11)
    tris = rng.uniform(0, 1, (2000, 2, 3, 3))
    a, b = tris[:, 0], tris[:, 1]
    seg = hb.triangle.intersection_segments(a, b)
    _assert_on_both(seg, a, b)
    hits = np.flatnonzero(seg.hit)
    assert len(hits) > 500
    for k in hits:
        expect = ot.crossing_segment(a[k], b[k])
        assert expect is not None
        got = sorted([tuple(seg.p[k]), tuple(seg.q[k])])
        np.testing.assert_allclose(got, sorted(tuple(x) for x in expect), atol=1e-9)
    for k in np.flatnonzero(~seg.hit):
        assert ot.crossing_segment(a[k], b[k]) is None


def test_segments_coplanar_representative_is_overlap_diameter():
    # Coplanar, p inside q: the overlap polygon is p, its diameter p's hypotenuse.
    p = np.array([[0.0, 0, 2], [1, 0, 2], [0, 1, 2]])
    q = np.array([[-1.0, -1, 2], [3, -1, 2], [-1, 3, 2]])
    seg = hb.triangle.intersection_segments(p, q)
    assert seg.hit
    got = sorted([tuple(seg.p), tuple(seg.q)])
    assert got == [(0.0, 1.0, 2.0), (1.0, 0.0, 2.0)]
    # Touching at one vertex: p == q.
    r = np.array([[1.0, 0, 2], [2, 0, 2], [2, -1, 5]])
    seg = hb.triangle.intersection_segments(p, r)
    assert seg.hit and tuple(seg.p) == tuple(seg.q) == (1.0, 0.0, 2.0)
    # Shared edge, folded: the edge itself.
    s = np.array([[1.0, 0, 2], [0, 1, 2], [1, 1, 3]])
    seg = hb.triangle.intersection_segments(p, s)
    assert sorted([tuple(seg.p), tuple(seg.q)]) == [(0.0, 1.0, 2.0), (1.0, 0.0, 2.0)]


# -- ray–triangle ------------------------------------------------------------------------


@st.composite
def grid_rays(draw):
    """Integer rays whose largest direction component is 1, 2 or 4: the watertight shear
    is then exact, so the test must agree with exact arithmetic, ties included."""
    d = draw(hnp.arrays(np.float64, (3,), elements=st.integers(-4, 4).map(float)))
    big = np.abs(d).max()
    if big not in (1.0, 2.0, 4.0):
        d = np.array([0.0, 0.0, draw(st.sampled_from([-1.0, 1.0]))])
    o = draw(hnp.arrays(np.float64, (3,), elements=st.integers(-3, 3).map(float)))
    t_max = draw(st.sampled_from([np.inf, 0.0, 0.5, 1.0, 2.0]))
    return o, d, t_max


@settings(max_examples=500)
@given(grid_rays(), hnp.arrays(np.float64, (3, 3), elements=tiny))
def test_ray_triangle_matches_exact_oracle_on_grid(ray, tri):
    o, d, t_max = ray
    hit = hb.triangle.raycast(tri, o, d, t_max=t_max)
    h, t, u, v = ot.ray_triangle(o, d, tri, t_max)
    assert hit.hit == h
    if h:
        # Exact sheared arithmetic, one correctly rounded division each.
        assert (hit.t, hit.u, hit.v) == (float(t), float(u), float(v))
        assert hit.face == 0
    else:
        assert (hit.t, hit.face, hit.u, hit.v) == (np.inf, -1, 0.0, 0.0)


@settings(max_examples=100)
@given(
    st.lists(grid_rays(), min_size=1, max_size=6),
    hnp.arrays(np.float64, (6, 3, 3), elements=tiny),
)
def test_raycast_modes_match_exact_oracle(rays, tris):
    o = np.array([r[0] for r in rays])
    d = np.array([r[1] for r in rays])
    tm = np.array([r[2] for r in rays])
    exact = [
        [(f, ot.ray_triangle(o[r], d[r], tris[f], tm[r])) for f in range(len(tris))]
        for r in range(len(o))
    ]
    hits = [[(float(x[1]), f) for f, x in row if x[0]] for row in exact]
    closest = hb.triangle.raycast(tris, o, d, t_max=tm)
    for r, row in enumerate(hits):
        if row:
            t, f = min(row)
            assert closest.hit[r] and closest.t[r] == t and closest.face[r] == f
        else:
            assert not closest.hit[r] and closest.face[r] == -1 and closest.t[r] == np.inf
    anyhit = hb.triangle.raycast(tris, o, d, t_max=tm, mode="any")
    np.testing.assert_array_equal(anyhit.hit, closest.hit)
    for r, row in enumerate(hits):
        if row:
            assert anyhit.face[r] == min(f for _, f in row)
    every = hb.triangle.raycast(tris, o, d, t_max=tm, mode="all")
    expect = sorted((r, t, f) for r, row in enumerate(hits) for t, f in row)
    assert list(
        zip(every.ray.tolist(), every.t.tolist(), every.face.tolist(), strict=True)
    ) == [(r, t, f) for r, t, f in expect]
    assert every.ray.dtype == np.intp and every.face.dtype == np.intp


def test_raycast_agrees_with_trimesh_on_random_meshes():
    rng = np.random.default_rng(5)
    for trial in range(3):
        verts = rng.uniform(-1, 1, (60, 3))
        faces = np.array([rng.choice(60, 3, replace=False) for _ in range(80)])
        mesh = trimesh.Trimesh(verts, faces, process=False)
        tris = mesh.triangles
        n = 400
        target_face = rng.integers(0, len(faces), n)
        bary = rng.dirichlet([1, 1, 1], n)
        targets = np.einsum("nk,nkd->nd", bary, tris[target_face])
        origins = rng.uniform(-3, 3, (n, 3))
        dirs = (targets - origins) * rng.uniform(0.2, 3.0, (n, 1))
        dirs[: n // 4] = rng.normal(size=(n // 4, 3))  # some rays aimed anywhere
        ours = hb.triangle.raycast(tris, origins, dirs)
        i_tri, i_ray, locs = trimesh.ray.ray_triangle.ray_triangle_id(
            tris, origins, dirs, mesh.face_normals, tree=_EveryTriangle(tris)
        )
        t_theirs = np.full(n, np.inf)
        f_theirs = np.full(n, -1)
        t_all = np.einsum("nd,nd->n", locs - origins[i_ray], dirs[i_ray]) / np.einsum(
            "nd,nd->n", dirs[i_ray], dirs[i_ray]
        )
        for t, r, f in zip(t_all, i_ray, i_tri, strict=True):
            if t < t_theirs[r]:
                t_theirs[r], f_theirs[r] = t, f
        # Skip grazing rays and hits within 1e-6 of an edge, where a tolerance decides.
        normals = mesh.face_normals
        clean = np.ones(n, bool)
        for r in range(n):
            for f in {ours.face[r], f_theirs[r]} - {-1}:
                cos = abs(normals[f] @ dirs[r]) / np.linalg.norm(dirs[r])
                b = trimesh.triangles.points_to_barycentric(
                    tris[f][None],
                    (origins[r] + ours.t[r] * dirs[r])[None]
                    if ours.face[r] == f
                    else (origins[r] + t_theirs[r] * dirs[r])[None],
                )[0]
                if cos < 1e-3 or b.min() < 1e-6:
                    clean[r] = False
        assert clean.sum() > 0.8 * n, trial
        np.testing.assert_array_equal(ours.hit[clean], np.isfinite(t_theirs[clean]))
        both = clean & ours.hit
        np.testing.assert_allclose(ours.t[both], t_theirs[both], rtol=1e-9)
        np.testing.assert_array_equal(ours.face[both], f_theirs[both])
        # u, v give the hit point.
        f = ours.face[ours.hit]
        w = np.stack([1 - ours.u - ours.v, ours.u, ours.v], axis=1)[ours.hit]
        points = np.einsum("nk,nkd->nd", w, tris[f])
        expect = origins[ours.hit] + ours.t[ours.hit, None] * dirs[ours.hit]
        np.testing.assert_allclose(points, expect, atol=1e-9)


class _EveryTriangle:
    """Stands in for trimesh's rtree index (rtree is not a test dependency): every
    triangle is a candidate, so trimesh's own plane and barycentric tests decide."""

    def __init__(self, tris):
        self.n = len(tris)
        self.bounds = np.concatenate([tris.min(axis=(0, 1)), tris.max(axis=(0, 1))])

    def intersection(self, bounds):
        return range(self.n)


def _watertight_rays(mesh, rng):
    """Rays from outside aimed exactly at every vertex and every edge midpoint.

    Each comes in from the outer side of a supporting plane there (normal: the vertex
    normal, or the mean of the two faces' normals at an edge), tilted a little at random
    but always pointing into the solid, so it must hit at t = 1 whatever the rounding.
    """
    adj_faces, adj_edges = mesh.face_adjacency, mesh.face_adjacency_edges
    targets = np.concatenate([mesh.vertices, mesh.vertices[adj_edges].mean(axis=1)])
    normals = np.concatenate(
        [mesh.vertex_normals, mesh.face_normals[adj_faces].sum(axis=1)]
    )
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    tilt = rng.normal(0, 0.1, targets.shape)
    tilt -= np.einsum("nd,nd->n", tilt, normals)[:, None] * normals
    origins = targets + 3.0 * (normals + tilt)
    return origins, targets - origins


@pytest.mark.parametrize(
    "mesh",
    [
        trimesh.creation.icosphere(subdivisions=3),
        trimesh.creation.box(extents=(1.0, 2.0, 0.5)),
        trimesh.creation.cylinder(radius=0.7, height=1.3, sections=17),
    ],
    ids=["icosphere", "box", "cylinder"],
)
def test_raycast_is_watertight_at_vertices_and_edges(mesh):
    rng = np.random.default_rng(3)
    tris = mesh.triangles
    for _ in range(4):
        origins, dirs = _watertight_rays(mesh, rng)
        hits = hb.triangle.raycast(tris, origins, dirs, t_max=2.0)
        assert hits.hit.all(), np.flatnonzero(~hits.hit)
        np.testing.assert_allclose(hits.t, 1.0, atol=1e-9)
    # Axis-aligned rays straight through the box's edges and corners, and through the
    # diagonals that split its faces: exact ties everywhere.
    if len(tris) == 12:
        lo, hi = mesh.bounds
        pts = np.stack(np.meshgrid(*zip(lo, (lo + hi) / 2, hi, strict=True)), -1).reshape(
            -1, 3
        )
        for axis in range(3):
            for sign in (-1.0, 1.0):
                d = np.zeros(3)
                d[axis] = sign
                o = pts.copy()
                o[:, axis] = (hi[axis] + 1) if sign < 0 else (lo[axis] - 1)
                hits = hb.triangle.raycast(tris, o, d)
                assert hits.hit.all()
                np.testing.assert_array_equal(hits.t, 1.0)


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_ray_edge_function_has_the_exact_sign_outside_its_tolerance(seed):
    """The property behind watertightness: the leaf test acts on an edge function's float
    sign only beyond ``_edge_tolerance``, so that sign must be the exact ray's. Rays from
    up to 10^4 times the triangle's size away, aimed within 10^-16..10^-9 of an edge."""
    rng = np.random.default_rng(seed)
    scale = 10.0 ** rng.integers(-3, 4)
    tri = rng.uniform(-1, 1, (3, 3)) * scale
    target = tri[1] + rng.uniform(0, 1) * (tri[2] - tri[1])  # on edge bc, rounded
    target = target + rng.normal(size=3) * scale * 10.0 ** rng.uniform(-16, -9)
    origin = target + rng.normal(size=3) * scale * 10.0 ** rng.uniform(0, 4)
    d = target - origin
    kx, ky, kz, sx, sy, _, _ = kr.ray_shear((d[0], d[1], d[2]))
    rel = tri - origin  # as the kernel forms a - o
    fma = rd.fma
    (ax, ay, az), (bx, by, bz), (cx, cy, cz) = (
        (fma(-sx, p[kz], p[kx]), fma(-sy, p[kz], p[ky]), p[kz]) for p in rel
    )
    u = kr._edge(bx, by, cx, cy)
    tol = kr._edge_tolerance(ax, ay, bx, by, cx, cy, az, bz, cz, sx, sy)
    exact = kp.ray_edge_sign(tuple(d), tuple(tri[2]), tuple(tri[1]), tuple(origin))
    if abs(u) > tol:
        assert np.sign(u) == exact
    assert tol < 1e-9 * scale * scale * 10.0**4  # eps times distance times size


def test_ray_in_triangle_plane_and_zero_area_miss():
    o = np.array([-1.0, 0.25, 0.0])
    assert not hb.triangle.raycast(UNIT, o, [1.0, 0, 0]).hit  # edge-on
    seg = np.array([[0.0, 0, 0], [1, 1, 0], [2, 2, 0]])
    assert not hb.triangle.raycast(seg, [0.5, 0.5, 1], [0, 0, -1]).hit
    # Backfaces count, and an origin on the triangle hits at t = 0.
    assert hb.triangle.raycast(UNIT, [0.2, 0.2, -1], [0, 0, 1]).t == 1.0
    assert hb.triangle.raycast(UNIT, [0.2, 0.2, 0], [0, 0, 1]).t == 0.0
    # t_max is inclusive.
    assert hb.triangle.raycast(UNIT, [0.2, 0.2, 1], [0, 0, -2], t_max=0.5).hit
    assert not hb.triangle.raycast(UNIT, [0.2, 0.2, 1], [0, 0, -2], t_max=0.4999).hit


def test_raycast_accepts_rays():
    rays = hb.Rays(np.array([[0.2, 0.2, 1.0]]), np.array([[0.0, 0, -1]]), np.array([0.5]))
    assert not hb.triangle.raycast(UNIT, rays).hit[0]
    with pytest.raises(TypeError):
        hb.triangle.raycast(UNIT, rays, [0.0, 0, 1])


# -- contracts ---------------------------------------------------------------------------


def test_empty_inputs_give_empty_results():
    none = np.zeros((0, 3, 3))
    assert hb.triangle.overlap(none, none).shape == (0,)
    assert hb.triangle.overlap(UNIT, none).dtype == np.bool_
    assert hb.triangle.overlap_pairs_brute(none, UNIT[None]).shape == (2, 0)
    assert hb.triangle.overlap_pairs_brute(none, UNIT[None]).dtype == np.intp
    seg = hb.triangle.intersection_segments(none, UNIT)
    assert seg.hit.shape == (0,) and seg.p.shape == (0, 3) and seg.q.shape == (0, 3)
    hits = hb.triangle.raycast(none, np.zeros((2, 3)), [0, 0, 1.0])
    assert not hits.hit.any() and (hits.face == -1).all() and np.isinf(hits.t).all()
    hits = hb.triangle.raycast(UNIT, np.zeros((0, 3)), np.zeros((0, 3)))
    assert hits.hit.shape == hits.t.shape == hits.face.shape == (0,)
    assert hits.face.dtype == np.intp
    every = hb.triangle.raycast(UNIT, np.zeros((0, 3)), np.zeros((0, 3)), mode="all")
    assert all(x.shape == (0,) for x in every)


def test_single_in_single_out():
    assert hb.triangle.overlap(UNIT, UNIT) is True
    seg = hb.triangle.intersection_segments(UNIT, UNIT + [0, 0, 1])
    assert seg.hit is False and seg.p.shape == (3,) and np.isnan(seg.p).all()
    hit = hb.triangle.raycast(UNIT, [0.2, 0.2, 1.0], [0, 0, -1.0])
    assert hit.hit is True and isinstance(hit.t, float) and isinstance(hit.face, int)
    assert hb.triangle.overlap(UNIT, np.stack([UNIT, UNIT + 5])).tolist() == [True, False]


@pytest.mark.parametrize(
    "call",
    [
        lambda bad: hb.triangle.overlap(bad, UNIT),
        lambda bad: hb.triangle.overlap(UNIT, bad),
        lambda bad: hb.triangle.overlap_pairs_brute(bad, UNIT[None]),
        lambda bad: hb.triangle.intersection_segments(bad, UNIT),
        lambda bad: hb.triangle.raycast(bad, [0, 0, 1.0], [0, 0, -1.0]),
    ],
)
def test_bad_triangles_raise(call):
    nan = UNIT.copy()
    nan[1, 2] = np.nan
    with pytest.raises(ValueError, match="NaN|finite"):
        call(nan)
    with pytest.raises(ValueError, match="shape"):
        call(np.zeros((2, 4, 3)))
    with pytest.raises(ValueError, match="3"):
        call(np.zeros((2, 3, 2)))
    with pytest.raises(TypeError):
        call(np.array([["a"] * 3] * 3))


def test_bad_rays_and_modes_raise():
    with pytest.raises(ValueError, match="mode"):
        hb.triangle.raycast(UNIT, [0, 0, 1.0], [0, 0, -1.0], mode="nearest")
    with pytest.raises(ValueError, match="zero"):
        hb.triangle.raycast(UNIT, [0, 0, 1.0], [0, 0, 0.0])
    with pytest.raises(ValueError):
        hb.triangle.raycast(UNIT, [0, 0, 1.0], [0, 0, -1.0], t_max=-1.0)
    with pytest.raises(ValueError):
        hb.triangle.raycast(UNIT, [0, 0], [0, -1.0])
    with pytest.raises(ValueError, match="broadcast"):
        hb.triangle.overlap(np.stack([UNIT] * 2), np.stack([UNIT] * 3))


def _aimed_ray(seed, where):
    """A triangle and a ray from a random origin aimed at one of its vertices or at a
    float point on one of its edges (so the exact ray passes within rounding of it)."""
    rng = np.random.default_rng(seed)
    scale = 10.0 ** rng.integers(-3, 4)
    tri = rng.uniform(-1, 1, (3, 3)) * scale
    k = rng.integers(3)
    target = tri[k]
    if where == "edge":
        s = rng.uniform(0, 1)
        target = tri[k] + s * (tri[(k + 1) % 3] - tri[k])
    origin = rng.uniform(-3, 3, 3) * scale
    return tri, origin, target - origin


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["vertex", "edge"]))
def test_rays_through_edges_and_vertices_decide_as_the_exact_ray(seed, where):
    """Within rounding of an edge or a vertex the float edge functions cannot decide; the
    kernel then takes the exact sign (hit/miss equal to rational arithmetic on the float
    inputs, both for the brute-force cast and the tree's)."""
    tri, o, d = _aimed_ray(seed, where)
    exact = ot.ray_triangle(o, d, tri)[0]
    assert hb.triangle.raycast(tri, o, d).hit == exact
    mesh = hb.TriangleMesh(tri, np.array([[0, 1, 2]]))
    assert bool(mesh.raycast(o[None], d[None]).hit[0]) == exact


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_a_ray_through_a_shared_edge_hits_both_closed_faces(seed):
    """Two triangles sharing an edge, a ray aimed at a float point of it: each face is hit
    exactly when the exact ray hits it, so at least one is (watertight)."""
    rng = np.random.default_rng(seed)
    p, q, r, s = rng.uniform(-5, 5, (4, 3))
    tris = np.array([[p, q, r], [q, p, s]])
    target = p + rng.uniform(0, 1) * (q - p)
    o = rng.uniform(-10, 10, 3)
    d = target - o
    hits = hb.triangle.raycast(tris, o, d, mode="all")
    expected = [f for f in range(2) if ot.ray_triangle(o, d, tris[f])[0]]
    assert sorted(hits.face.tolist()) == expected
    if expected:
        assert len(hits.face) >= 1


def test_segment_of_nearly_coplanar_triangles_found_by_hypothesis():
    """b shares a vertex with a and has another on a's edge, its third 2e-17 off a's
    plane: in some vertex orders the crossing's clip interval came out inverted by one
    rounding, and the crossing point fell 0.25 away from b. Every order must give points
    on both triangles."""
    a = np.array([[1.25, 0.0, 1.0], [0.0, -1.5, 0.0], [0.0, 1.0, 0.0]])
    b = np.array([[1.2499999999970868e-05, 0.99999, 9.99999999995449e-06],
                  [1.25, 0.0, 1.0], [0.0, 0.0, 0.0]])  # fmt: skip
    pa, pb = _all_orders(a, b)
    seg = hb.triangle.intersection_segments(pa, pb)
    assert seg.hit.all()
    _assert_on_both(seg, pa, pb)
