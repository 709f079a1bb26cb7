import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import hitbox as hb
from hitbox._validate import canonical_empty
from hitbox.ray import BoxHits, PairHits
from tests import oracles_ray as oracle
from tests.strategies import boxes, grid, rotation

UNIT = np.array([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]])
INF = math.inf

# Small dyadic numbers: every difference and quotient the kernels form is the correctly
# rounded exact value, and distinct exact values stay far apart in float.
dyadic = st.builds(lambda n, e: n / 2**e, st.integers(-64, 64), st.integers(0, 3))
slope = st.builds(lambda n, e: n / 2**e, st.integers(-8, 8), st.integers(0, 2))


@st.composite
def rays(draw, n, dim, elements=grid):
    """(origins, directions, t_max) with no all-zero direction; zeros as +0 and -0."""
    o = draw(hnp.arrays(np.float64, (n, dim), elements=elements))
    d = draw(hnp.arrays(np.float64, (n, dim), elements=st.one_of(slope, st.just(-0.0))))
    zero = ~np.any(d != 0, axis=1)
    d[zero, 0] = 1.0
    t_max = draw(
        hnp.arrays(np.float64, (n,), elements=st.sampled_from([INF, 0.0, 0.5, 1.0, 3.0]))
    )
    return o, d, t_max


def _check_exact(got, want, i):
    hit, t0, t1, axis = want
    assert got.hit[i] == hit
    if hit:
        assert got.t_enter[i] == float(t0)
        assert got.t_exit[i] == float(t1)
        assert got.axis[i] == axis
    else:
        assert got.t_enter[i] == INF and got.t_exit[i] == INF and got.axis[i] == -1
        assert not got.normal[i].any()


# -- seed 001 and the edge table ---------------------------------------------------------


def test_seed_001_slab_method():
    # 2D picture of seed 001: a ray from the lower right going up-left crosses the y slab
    # before the x slab, so it enters through x = hi at max(t1, t2) and t2 > t1.
    box = np.array([[0.0, 0.0], [1.0, 1.0]])
    r = hb.ray.cast_aabb(box, [2.0, -0.5], [-1.0, 1.0])
    assert r.hit and r.t_enter == 1.0 and r.t_exit == 1.5 and r.axis == 0
    np.testing.assert_array_equal(r.normal, [1.0, 0.0])
    # the seed's question: does a segment cross the cube?
    seg = hb.ray.segments(
        [[-1, 0.5, 0.5], [-1, 0.5, 0.5], [2, 2, 2]],
        [[2, 0.5, 0.5], [-0.5, 0.5, 0.5], [3, 3, 3]],
    )
    np.testing.assert_array_equal(hb.ray.cast_aabb(UNIT, seg).hit, [True, False, False])
    # seed 001 calls |d| < 1e-6 parallel; a tiny slope that leaves the x slab is a miss
    r = hb.ray.cast_aabb(UNIT, [1 - 1e-8, -1.0, 0.5], [1e-7, 1.0, 0.0])
    assert not r.hit
    r = hb.ray.cast_aabb(UNIT, [0.5, -1.0, 0.5], [1e-7, 1.0, 0.0])
    assert r.hit and r.t_enter == 1.0 and r.axis == 1


EDGES = [
    # name, origin, direction, t_max, (hit, t_enter, t_exit, axis)
    ("ray along a face", [-1, 0, 0.5], [1, 0, 0], INF, (True, 1, 2, 0)),
    ("ray along an edge", [-1, 0, 0], [1, 0, 0], INF, (True, 1, 2, 0)),
    ("through an edge", [-1, -1, 0.5], [1, 1, 0], INF, (True, 1, 2, 0)),
    ("touches an edge only", [2, 1, 0.5], [-1, -1, 0], INF, (True, 1, 1, 0)),
    ("touches a corner only", [2, 2, 0], [-1, -1, 1], INF, (True, 1, 1, 0)),
    ("through a corner", [-1, -1, -1], [1, 1, 1], INF, (True, 1, 2, 0)),
    ("starts on a face, going in", [0, 0.5, 0.5], [1, 0, 0], INF, (True, 0, 1, -1)),
    ("starts on a face, going out", [0, 0.5, 0.5], [-1, 0, 0], INF, (True, 0, 0, -1)),
    ("starts inside", [0.5, 0.5, 0.5], [0, 0, -2], INF, (True, 0, 0.25, -1)),
    ("starts on a corner", [1, 1, 1], [1, 1, 1], INF, (True, 0, 0, -1)),
    ("+0 components inside", [-1, 0.5, 0.5], [1, 0.0, 0.0], INF, (True, 1, 2, 0)),
    ("-0 components inside", [-1, 0.5, 0.5], [1, -0.0, -0.0], INF, (True, 1, 2, 0)),
    ("-0 on the hi plane", [-1, 1, 0.5], [1, -0.0, 0], INF, (True, 1, 2, 0)),
    ("+0 on the lo plane", [-1, 0, 0.5], [1, 0.0, 0], INF, (True, 1, 2, 0)),
    ("-0 on an edge line", [-1, 0, 1], [1, -0.0, -0.0], INF, (True, 1, 2, 0)),
    ("+0 outside", [-1, 1.5, 0.5], [1, 0.0, 0], INF, (False,)),
    ("-0 outside", [-1, -0.5, 0.5], [1, -0.0, 0], INF, (False,)),
    ("all but one zero, backwards", [0.5, 0.5, 2], [-0.0, 0.0, -1], INF, (True, 1, 2, 2)),
    ("pointing away", [2, 0.5, 0.5], [1, 0, 0], INF, (False,)),
    (
        "tiny direction",
        [-1, 0.5, 0.5],
        [1e-300, 0, 0],
        INF,
        (True, 1 / 1e-300, 2 / 1e-300, 0),
    ),
    ("subnormal direction", [-1, 0.5, 0.5], [2**-1070, 0, 0], INF, (False,)),
    (
        "subnormal, starts inside",
        [0.5, 0.5, 0.5],
        [2**-1070, 0, 0],
        INF,
        (True, 0, INF, -1),
    ),
    (
        "huge direction",
        [-1, -1, 0.5],
        [1e300, 1e300, 0],
        INF,
        (True, 1 / 1e300, 2 / 1e300, 0),
    ),
    ("far outside", [1e12, 0.5, 0.5], [-1, 0, 0], INF, (True, 1e12 - 1, 1e12, 0)),
    (
        "far outside, diagonal",
        [1e12, 1e12, 0.5],
        [-1, -1, 0],
        INF,
        (True, 1e12 - 1, 1e12, 0),
    ),
    ("far outside, parallel miss", [1e12, 1e12 + 2, 0.5], [-1, -1, 0], INF, (False,)),
    ("segment ends on a face", [-1, 0.5, 0.5], [1, 0, 0], 1.0, (True, 1, 1, 0)),
    ("segment ends before", [-1, 0.5, 0.5], [1 - 2**-30, 0, 0], 1.0, (False,)),
    ("segment ends inside", [-1, 0.5, 0.5], [1.5, 0, 0], 1.0, (True, 2 / 3, 1, 0)),
    ("zero-length t range on a face", [0, 0.5, 0.5], [1, 0, 0], 0.0, (True, 0, 0, -1)),
    ("zero-length t range outside", [-1, 0.5, 0.5], [1, 0, 0], 0.0, (False,)),
]


@pytest.mark.parametrize("name, o, d, t_max, want", EDGES, ids=[e[0] for e in EDGES])
def test_edge_table(name, o, d, t_max, want):
    r = hb.ray.cast_aabb(UNIT, o, d, t_max=t_max)
    assert isinstance(r.hit, bool)
    assert r.hit == want[0]
    if not r.hit:
        assert (r.t_enter, r.t_exit, r.axis) == (INF, INF, -1)
        assert not r.normal.any()
        return
    assert (r.t_enter, r.t_exit, r.axis) == (float(want[1]), float(want[2]), want[3])
    expected_normal = np.zeros(3)
    if r.axis >= 0:
        expected_normal[r.axis] = -math.copysign(1.0, d[r.axis])
    np.testing.assert_array_equal(r.normal, expected_normal)
    assert not np.signbit(r.t_enter) and not np.signbit(r.t_exit)
    k = hb.ray.cast_kdop(UNIT, o, d, t_max=t_max)
    assert (k.hit, k.t_enter, k.t_exit, k.axis) == (r.hit, r.t_enter, r.t_exit, r.axis)


def test_empty_and_infinite_boxes():
    empty = hb.aabb.empty(dim=3)
    for d in ([1, 0, 0], [0.0, -0.0, 1.0], [-1, -1, -1]):
        assert not hb.ray.cast_aabb(empty, [0.5, 0.5, 0.5], d).hit
        assert not hb.ray.cast_aabb(empty, [0.0, 0.0, 0.0], d).hit
    everything = np.array([[-INF] * 3, [INF] * 3])
    r = hb.ray.cast_aabb(everything, [0, 0, 0], [0.0, 1, -0.0])
    assert r.hit and r.t_enter == 0 and r.t_exit == INF and r.axis == -1
    half = np.array([[1.0, -INF, -INF], [INF, INF, INF]])
    r = hb.ray.cast_aabb(half, [0, 0, 0], [2, 0.0, 0.0])
    assert r.hit and r.t_enter == 0.5 and r.t_exit == INF and r.axis == 0


def test_dimensions_1_and_2():
    r = hb.ray.cast_aabb([[0.0], [1.0]], [[-2.0], [3.0], [0.5]], [[1.0], [1.0], [-1.0]])
    np.testing.assert_array_equal(r.hit, [True, False, True])
    np.testing.assert_array_equal(r.t_enter, [2.0, INF, 0.0])
    np.testing.assert_array_equal(r.normal, [[-1.0], [0.0], [0.0]])
    r = hb.ray.cast_aabb([[0.0, 0.0], [1.0, 1.0]], [-1.0, 1.0], [1.0, -0.0])
    assert r.hit and r.t_enter == 1.0 and r.normal.shape == (2,)


def test_broadcasting_shapes():
    many = np.tile(UNIT, (4, 1, 1))
    one_ray = hb.ray.cast_aabb(many, [-1, 0.5, 0.5], [1, 0, 0])
    assert one_ray.hit.shape == (4,) and one_ray.normal.shape == (4, 3)
    many_rays = hb.ray.cast_aabb(UNIT, np.zeros((5, 3)) - 1, [1, 1, 1])
    assert many_rays.t_enter.shape == (5,) and many_rays.hit.all()
    both = hb.ray.cast_aabb(many, np.full((4, 3), -1.0), np.ones((4, 3)))
    assert both.axis.dtype == np.intp and both.hit.dtype == np.bool_
    r = hb.ray.cast_aabb(UNIT, hb.Rays([-1, 0.5, 0.5], [1, 0, 0], 0.5))
    assert not r.hit


def test_unrolled_3d_kernel_equals_the_general_one():
    from hitbox._kernels import ray as kernels

    rng = np.random.default_rng(0)
    n = 5000
    lo = rng.integers(-4, 4, (n, 3)) / 2.0
    b = np.stack([lo, lo + rng.integers(0, 4, (n, 3)) / 2.0], axis=1)
    o = rng.integers(-8, 8, (n, 3)) / 2.0
    d = lo + rng.integers(-1, 3, (n, 3)) / 2.0 - o  # aimed near the box
    d[rng.random((n, 3)) < 0.2] = 0.0
    d[(d == 0) & (rng.random((n, 3)) < 0.5)] = -0.0  # +0 and -0 both
    d[~np.any(d != 0, axis=1)] = [0.0, -0.0, 1.0]
    t_max = np.where(rng.random(n) < 0.5, INF, 1.0)
    outs = []

    def general(boxes, *rest):
        kernels.cast_each(kernels.AABBs(boxes), *rest)

    for kernel in (general, kernels.cast_aabb_3d):
        out = BoxHits(
            np.empty(n, bool),
            np.empty(n),
            np.empty(n),
            np.empty(n, np.intp),
            np.empty((n, 3)),
        )
        kernel(b, o, d, t_max, *out)
        outs.append(out)
    for x, y in zip(*outs, strict=True):
        np.testing.assert_array_equal(x, y)
    assert 0.1 < outs[0].hit.mean() < 0.9


# -- hypothesis against the exact oracle -------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.data(), st.integers(1, 3), st.sampled_from([grid, dyadic]))
def test_cast_aabb_matches_exact_oracle(data, dim, elements):
    n = data.draw(st.integers(1, 8))
    b = data.draw(boxes(n=n, dim=dim, elements=elements))
    o, d, t_max = data.draw(rays(n, dim, elements))
    got = hb.ray.cast_aabb(b, o, d, t_max=t_max)
    for i in range(n):
        _check_exact(got, oracle.aabb_cast(b[i], o[i], d[i], t_max[i]), i)
    # the vectorised numpy twin (the benchmark's baseline) agrees bit for bit
    canon = canonical_empty(b)  # as validated
    for x, y in zip(got, oracle.numpy_cast_aabb(canon, o, d, t_max), strict=True):
        np.testing.assert_array_equal(x, y)


@settings(max_examples=100, deadline=None)
@given(st.data(), st.integers(1, 3))
def test_all_pairs_equal_elementwise_over_the_product(data, dim):
    b = data.draw(boxes(dim=dim, max_n=6))
    n = data.draw(st.integers(0, 6))
    o, d, t_max = data.draw(rays(n, dim))
    got = hb.ray.cast_aabb(b, o, d, t_max=t_max, pairing="all")
    assert isinstance(got, PairHits)
    i, j = np.meshgrid(np.arange(len(b)), np.arange(n), indexing="ij")
    i, j = i.ravel(), j.ravel()
    if len(i) == 0:
        assert got.pairs.shape == (2, 0) and got.normal.shape == (0, dim)
        return
    full = hb.ray.cast_aabb(b[i], o[j], d[j], t_max=t_max[j])
    keep = full.hit
    np.testing.assert_array_equal(got.pairs, np.stack([i[keep], j[keep]]))
    for name in ("t_enter", "t_exit", "axis", "normal"):
        np.testing.assert_array_equal(getattr(got, name), getattr(full, name)[keep])


@settings(max_examples=100, deadline=None)
@given(st.data(), st.integers(1, 3))
def test_invariant_under_translation_and_reversal(data, dim):
    n = data.draw(st.integers(1, 6))
    b = data.draw(boxes(n=n, dim=dim, allow_empty=False))
    o, d, _ = data.draw(rays(n, dim))
    shift = data.draw(hnp.arrays(np.float64, (dim,), elements=grid))
    a = hb.ray.cast_aabb(b, o, d)
    s = hb.ray.cast_aabb(b + shift, o + shift, d)
    for x, y in zip(a, s, strict=True):
        np.testing.assert_array_equal(x, y)
    # a segment hits iff the reversed segment does
    seg = hb.ray.segments(o, o + d)
    back = hb.ray.segments(o + d, o)
    np.testing.assert_array_equal(
        hb.ray.cast_aabb(b, seg).hit, hb.ray.cast_aabb(b, back).hit
    )


# -- k-DOPs ------------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_kdop_6_equals_aabb_bit_for_bit(data):
    n = data.draw(st.integers(1, 8))
    b = data.draw(boxes(n=n, dim=3, elements=st.one_of(grid, dyadic)))
    o, d, t_max = data.draw(rays(n, 3))
    a = hb.ray.cast_aabb(b, o, d, t_max=t_max)
    k = hb.ray.cast_kdop(b, o, d, t_max=t_max)
    for x, y in zip(a, k, strict=True):
        np.testing.assert_array_equal(x, y)


@settings(max_examples=150, deadline=None)
@given(st.data(), st.sampled_from([14, 18, 26]))
def test_kdop_matches_exact_oracle(data, k):
    axes = hb.kdop.AXES[k]
    n = data.draw(st.integers(1, 6))
    pts = data.draw(hnp.arrays(np.float64, (n, 4, 3), elements=grid))
    kd = hb.kdop.fit(pts, k)
    o, d, t_max = data.draw(rays(n, 3))
    got = hb.ray.cast_kdop(kd, o, d, t_max=t_max)
    for i in range(n):
        want = oracle.slab_cast(kd[i, 0], kd[i, 1], axes, o[i], d[i], t_max[i])
        _check_exact(got, want, i)
        if got.hit[i] and got.axis[i] >= 0:
            a = axes[got.axis[i]]
            np.testing.assert_allclose(
                got.normal[i], -np.sign(a @ d[i]) * a / np.linalg.norm(a)
            )


def test_kdop_hit_points_lie_on_the_boundary():
    rng = np.random.default_rng(7)
    for k in (14, 18, 26):
        axes = hb.kdop.AXES[k]
        pts = rng.normal(size=(500, 12, 3))
        kd = hb.kdop.fit(pts, k)
        o = rng.normal(size=(500, 3)) * 3
        d = pts.mean(axis=1) + rng.normal(size=(500, 3)) - o  # aimed near the volume
        r = hb.ray.cast_kdop(kd, o, d, axes=axes)
        outside = ~np.all((kd[:, 0] <= o @ axes.T) & (o @ axes.T <= kd[:, 1]), axis=1)
        entered = r.hit & outside
        assert entered.sum() > 100
        p = o[entered] + r.t_enter[entered, None] * d[entered]
        proj = p @ axes.T
        lo, hi = kd[entered, 0], kd[entered, 1]
        assert np.all(proj >= lo - 1e-9) and np.all(proj <= hi + 1e-9)
        on = np.minimum(np.abs(proj - lo), np.abs(proj - hi)).min(axis=1)
        assert np.all(on <= 1e-9)
        before = p - 1e-6 * d[entered]
        pb = before @ axes.T
        assert np.all(np.any((pb < lo) | (pb > hi), axis=1))
        # the entry normal is the unit axis opposing the ray
        assert np.all(np.einsum("ij,ij->i", r.normal[entered], d[entered]) < 0)


# -- OBBs --------------------------------------------------------------------------------


def _random_obbs(rng, n):
    center = rng.normal(size=(n, 3))
    half = rng.uniform(0.1, 1.5, size=(n, 3))
    rot = np.stack([rotation(rng) for _ in range(n)])
    return hb.OBBs(center, half, rot)


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_axis_aligned_obb_equals_aabb(data):
    n = data.draw(st.integers(1, 6))
    b = data.draw(boxes(n=n, dim=3, allow_empty=False))
    o, d, t_max = data.draw(rays(n, 3))
    center, half = (b[:, 0] + b[:, 1]) / 2, (b[:, 1] - b[:, 0]) / 2  # exact on the grid
    perm = data.draw(st.permutations([0, 1, 2]))
    signs = data.draw(hnp.arrays(np.float64, (3,), elements=st.sampled_from([1.0, -1.0])))
    rot = (
        np.eye(3)[:, perm] * signs
    )  # a signed permutation: local axis k is world perm[k]
    obbs = hb.OBBs(center, half[:, perm], np.broadcast_to(rot, (n, 3, 3)))
    a = hb.ray.cast_aabb(b, o, d, t_max=t_max)
    r = hb.ray.cast_obb(obbs, o, d, t_max=t_max)
    np.testing.assert_array_equal(r.hit, a.hit)
    np.testing.assert_array_equal(r.t_enter, a.t_enter)
    np.testing.assert_array_equal(r.t_exit, a.t_exit)
    world_axis = np.where(r.axis >= 0, np.array(perm)[r.axis], -1)
    same = world_axis == a.axis
    np.testing.assert_array_equal(r.normal[same], a.normal[same])
    # a tie between slabs (a hit on an edge) may pick another axis entered at the same t
    for i in np.flatnonzero(~same):
        k = world_axis[i]
        assert r.hit[i] and a.axis[i] >= 0 and k >= 0
        side = b[i, 0, k] if d[i, k] > 0 else b[i, 1, k]
        assert (side - o[i, k]) / d[i, k] == a.t_enter[i]


def test_rotated_obb_matches_the_local_frame_oracle():
    rng = np.random.default_rng(3)
    n = 2000
    obbs = _random_obbs(rng, n)
    o = rng.normal(size=(n, 3)) * 3
    d = obbs.center + rng.normal(size=(n, 3)) - o  # aimed near the box
    r = hb.ray.cast_obb(obbs, o, d)
    lo_local = np.einsum("nji,nj->ni", obbs.rot, o - obbs.center)
    d_local = np.einsum("nji,nj->ni", obbs.rot, d)
    local = hb.ray.cast_aabb(np.stack([-obbs.half, obbs.half], axis=1), lo_local, d_local)
    np.testing.assert_array_equal(r.hit, local.hit)
    np.testing.assert_allclose(
        r.t_enter[r.hit], local.t_enter[r.hit], rtol=1e-12, atol=1e-12
    )
    assert 500 < r.hit.sum() < n - 100
    # hit points lie on the box's surface, points just before lie outside
    h = r.hit & (r.axis >= 0)
    p = o[h] + r.t_enter[h, None] * d[h]
    u = np.einsum("nji,nj->ni", obbs.rot[h], p - obbs.center[h])
    assert np.all(np.abs(u) <= obbs.half[h] + 1e-9)
    assert np.all(np.min(obbs.half[h] - np.abs(u), axis=1) <= 1e-9)
    ub = np.einsum("nji,nj->ni", obbs.rot[h], p - 1e-6 * d[h] - obbs.center[h])
    assert np.all(np.any(np.abs(ub) > obbs.half[h], axis=1))
    # the normal is the world-frame face normal, unit length, opposing the ray
    np.testing.assert_allclose(np.linalg.norm(r.normal[h], axis=1), 1.0)
    axis_world = obbs.rot[h][np.arange(h.sum()), :, r.axis[h]]
    np.testing.assert_allclose(
        np.abs(np.einsum("ij,ij->i", r.normal[h], axis_world)), 1.0
    )
    assert np.all(np.einsum("ij,ij->i", r.normal[h], d[h]) < 0)


def test_empty_obb_is_never_hit():
    obb = hb.OBBs([0, 0, 0], [-1, 1, 1], np.eye(3))
    assert not hb.ray.cast_obb(obb, [-2, 0, 0], [1, 0, 0]).hit
    assert not hb.ray.cast_obb(obb, [0, 0, 0], [0, 0, 1]).hit


# -- spheres -----------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.data(), st.integers(1, 3))
def test_cast_sphere_matches_decimal_oracle(data, dim):
    n = data.draw(st.integers(1, 6))
    c = data.draw(hnp.arrays(np.float64, (n, dim), elements=grid))
    r = data.draw(
        hnp.arrays(np.float64, (n,), elements=st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.5]))
    )
    o, d, t_max = data.draw(rays(n, dim))
    got = hb.ray.cast_sphere(hb.Spheres(c, r), o, d, t_max=t_max)
    assert np.all(got.axis == -1)
    for i in range(n):
        disc, r0, r1 = oracle.ball_roots(c[i], r[i], o[i], d[i])
        if disc is None or disc < -1e-9:
            assert not got.hit[i]
            continue
        if abs(disc) <= 1e-9 or min(abs(r0), abs(r1), abs(r0 - t_max[i])) <= 1e-9:
            continue  # tangent, or touching at an end of [0, t_max]: rounding decides
        hit = r1 >= 0 and r0 <= t_max[i]
        assert got.hit[i] == hit
        if hit:
            assert got.t_enter[i] == pytest.approx(max(r0, 0.0), rel=1e-12, abs=1e-12)
            assert got.t_exit[i] == pytest.approx(min(r1, t_max[i]), rel=1e-12, abs=1e-12)


def test_sphere_edge_cases():
    unit = hb.Spheres([0.0, 0.0, 0.0], 1.0)
    r = hb.ray.cast_sphere(unit, [-2, 1, 0], [1, 0, 0])  # tangent, exact on this input
    assert r.hit and r.t_enter == 2.0 and r.t_exit == 2.0
    np.testing.assert_array_equal(r.normal, [0, 1, 0])
    r = hb.ray.cast_sphere(unit, [-2, 0, 0], [1, -0.0, 0.0])
    assert r.hit and r.t_enter == 1.0 and r.t_exit == 3.0
    np.testing.assert_array_equal(r.normal, [-1, 0, 0])
    r = hb.ray.cast_sphere(unit, [0.5, 0, 0], [0, 0, 1])  # inside
    assert r.hit and r.t_enter == 0 and not r.normal.any() and r.axis == -1
    assert not hb.ray.cast_sphere(unit, [2, 0, 0], [1, 0, 0]).hit  # pointing away
    assert not hb.ray.cast_sphere(unit, [-3, 0, 0], [1, 0, 0], t_max=1.5).hit
    r = hb.ray.cast_sphere(unit, [-2, 0, 0], [1e-300, 0, 0])
    assert r.hit and r.t_enter == pytest.approx(1e300, rel=1e-15)
    r = hb.ray.cast_sphere(unit, [-2, 0, 0], [1e300, 1e-300, 0])
    assert r.hit and r.t_enter == pytest.approx(1e-300, rel=1e-15)
    r = hb.ray.cast_sphere(hb.Spheres([1.0, 0, 0], 0.0), [0, 0, 0], [2, 0, 0])
    assert r.hit and r.t_enter == 0.5
    np.testing.assert_array_equal(r.normal, [-1, 0, 0])
    assert not hb.ray.cast_sphere(hb.Spheres([0, 0, 0], -1.0), [-2, 0, 0], [1, 0, 0]).hit
    r = hb.ray.cast_sphere(hb.Spheres([[3.0]], [1.0]), [[0.0]], [[1.0]])
    assert r.t_enter[0] == 2.0 and r.normal.shape == (1, 1)


def test_sphere_hit_points_lie_on_the_sphere():
    rng = np.random.default_rng(5)
    n = 3000
    c, rad = rng.normal(size=(n, 3)), rng.uniform(0.1, 2, n)
    o = rng.normal(size=(n, 3)) * 4
    d = (c + rng.normal(size=(n, 3)) - o) * 10.0 ** rng.integers(-5, 6, (n, 1))  # aimed
    r = hb.ray.cast_sphere(hb.Spheres(c, rad), o, d)
    out = np.linalg.norm(o - c, axis=1) > rad
    h = r.hit & out
    assert h.sum() > 1000
    p = o[h] + r.t_enter[h, None] * d[h]
    np.testing.assert_allclose(np.linalg.norm(p - c[h], axis=1), rad[h], rtol=1e-9)
    np.testing.assert_allclose(r.normal[h], (p - c[h]) / rad[h, None], atol=1e-9)
    pairs = hb.ray.cast_sphere(
        hb.Spheres(c[:50], rad[:50]), o[:40], d[:40], pairing="all"
    )
    i, j = pairs.pairs
    full = hb.ray.cast_sphere(hb.Spheres(c[i], rad[i]), o[j], d[j])
    assert full.hit.all()
    np.testing.assert_array_equal(pairs.t_enter, full.t_enter)


def test_all_pairs_for_every_kind():
    rng = np.random.default_rng(11)
    o, d = rng.normal(size=(30, 3)) * 3, rng.normal(size=(30, 3))
    obbs = _random_obbs(rng, 20)
    got = hb.ray.cast_obb(obbs, o, d, pairing="all")
    i, j = got.pairs
    full = hb.ray.cast_obb(hb.OBBs(obbs.center[i], obbs.half[i], obbs.rot[i]), o[j], d[j])
    assert full.hit.all() and len(i) > 10
    np.testing.assert_array_equal(got.normal, full.normal)
    kd = hb.kdop.fit(rng.normal(size=(20, 8, 3)), 26)
    got = hb.ray.cast_kdop(kd, o, d, pairing="all")
    i, j = got.pairs
    full = hb.ray.cast_kdop(kd[i], o[j], d[j])
    assert full.hit.all() and len(i) > 10
    np.testing.assert_array_equal(got.t_exit, full.t_exit)
    assert np.all(np.diff(i * 100 + j) > 0)  # sorted by (volume, ray)


# -- bad input and empty batches ---------------------------------------------------------

CASTS = {
    "aabb": lambda o, d, **kw: hb.ray.cast_aabb(UNIT, o, d, **kw),
    "kdop": lambda o, d, **kw: hb.ray.cast_kdop(UNIT, o, d, **kw),
    "obb": lambda o, d, **kw: hb.ray.cast_obb(
        hb.OBBs([0, 0, 0], [1, 1, 1], np.eye(3)), o, d, **kw
    ),
    "sphere": lambda o, d, **kw: hb.ray.cast_sphere(
        hb.Spheres([0, 0, 0], 1.0), o, d, **kw
    ),
}


@pytest.mark.parametrize("kind", CASTS)
@pytest.mark.parametrize(
    "o, d, kw, name",
    [
        ([np.nan, 0, 0], [1, 0, 0], {}, "origins"),
        ([np.inf, 0, 0], [1, 0, 0], {}, "origins"),
        ([0, 0, 0], [1, np.nan, 0], {}, "directions"),
        ([0, 0, 0], [1, -np.inf, 0], {}, "directions"),
        ([0, 0, 0], [0.0, -0.0, 0.0], {}, "directions"),
        ([0, 0, 0], [1, 0, 0], {"t_max": -1.0}, "t_max"),
        ([0, 0, 0], [1, 0, 0], {"t_max": np.nan}, "t_max"),
        (np.zeros((3, 3)), np.ones((2, 3)), {}, "origins"),
        (np.zeros((2, 3)), np.ones((2, 3)), {"t_max": [1.0, 2.0, 3.0]}, "t_max"),
        ([0, 0, 0], [1, 0, 0], {"pairing": "some"}, "pairing"),
    ],
)
def test_bad_input_names_the_argument(kind, o, d, kw, name):
    with pytest.raises(ValueError, match=name):
        CASTS[kind](o, d, **kw)


@pytest.mark.parametrize("kind", CASTS)
def test_empty_batches_give_empty_results(kind):
    r = CASTS[kind](np.zeros((0, 3)), np.zeros((0, 3)))
    assert isinstance(r, BoxHits)
    assert r.hit.shape == (0,) and r.hit.dtype == np.bool_
    assert (
        r.t_enter.shape == (0,) and r.axis.dtype == np.intp and r.normal.shape == (0, 3)
    )
    p = CASTS[kind](np.zeros((0, 3)), np.zeros((0, 3)), pairing="all")
    assert (
        p.pairs.shape == (2, 0) and p.pairs.dtype == np.intp and p.normal.shape == (0, 3)
    )


def test_mismatched_batches_and_other_bad_input():
    with pytest.raises(ValueError, match="boxes"):
        hb.ray.cast_aabb(np.tile(UNIT, (3, 1, 1)), np.zeros((2, 3)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="boxes"):
        hb.ray.cast_aabb(UNIT[:, :2], [0, 0, 0], [1, 0, 0])
    with pytest.raises(ValueError, match="boxes"):
        hb.ray.cast_aabb(np.tile(UNIT, (3, 1, 1)), np.zeros((0, 3)), np.ones((0, 3)))
    assert hb.ray.cast_aabb(np.zeros((0, 2, 3)), [0, 0, 0], [1, 0, 0]).hit.shape == (0,)
    with pytest.raises(ValueError, match="axes"):
        hb.ray.cast_kdop(UNIT, [0, 0, 0], [1, 0, 0], axes=np.eye(4)[:3])
    with pytest.raises(ValueError, match="axes"):
        hb.ray.cast_kdop(UNIT, [0, 0, 0], [1, 0, 0], axes=np.zeros((3, 3)))
    with pytest.raises(ValueError, match="kdops"):
        hb.ray.cast_kdop(np.zeros((2, 5)), [0, 0, 0], [1, 0, 0])
    with pytest.raises(ValueError, match="ends"):
        hb.ray.segments([[0, 0, 0], [1, 1, 1]], [[1, 0, 0], [1, 1, 1]])
    with pytest.raises(ValueError, match="starts"):
        hb.ray.segments(np.zeros((3, 3)), np.ones((2, 3)))
    with pytest.raises(TypeError):
        hb.ray.cast_aabb(UNIT, hb.ray.segments([0, 0, 0], [1, 1, 1]), [1, 0, 0])
    with pytest.raises(TypeError):
        hb.ray.cast_aabb(UNIT, [0, 0, 0])
    with pytest.raises(ValueError, match="spheres"):
        hb.ray.cast_sphere(hb.Spheres([[0, 0, 0]], [1.0, 2.0]), [0, 0, 0], [1, 0, 0])


def test_segments():
    s = hb.ray.segments([0, 0, 0], [1, 2, 3])
    np.testing.assert_array_equal(s.direction, [1, 2, 3])
    assert s.t_max == 1.0
    s = hb.ray.segments(np.zeros((4, 2)), [1.0, 1.0])
    assert s.origin.shape == (4, 2) and np.all(s.t_max == 1.0)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, 3),
    st.sampled_from([0.0, -0.0, 1.0, -2.5, np.inf, -np.inf, np.nan, 1e300, 5e-324]),
    st.integers(0, 2**32 - 1),
)
def test_fast_ray_checks_agree_with_the_slow_ones(n, special, seed):
    """The compiled one-pass checks accept exactly what as_rays accepts, with the same
    arrays and the largest magnitudes; anything else goes to as_rays to be named."""
    from hitbox import _validate as val

    rng = np.random.default_rng(seed)
    o, d = rng.normal(size=(n, 3)), rng.normal(size=(n, 3))
    t_max = float(rng.choice([np.inf, 2.0]))
    if n:
        which, row, col = rng.integers(3), rng.integers(n), rng.integers(3)
        if which == 0:
            o[row, col] = special
        elif which == 1:
            d[row] = special if rng.integers(2) else d[row]
            d[row, col] = special
        else:
            t_max = special
    fast = val.as_rays_fast(o, d, t_max)
    try:
        slow, single = val.as_rays(o, d, t_max, dim=3)
    except ValueError:
        assert fast is None
        return
    rays, fast_single, big_o, big_d = fast
    assert fast_single == single
    for got, want in zip(rays, slow, strict=True):
        np.testing.assert_array_equal(got, want)
    assert big_o == np.abs(o).max(initial=0.0) and big_d == np.abs(d).max(initial=0.0)
