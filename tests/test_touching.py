"""Touching counts: volumes that touch exactly, and rays or sweeps that graze a volume
exactly, must meet it.

Each case is built to touch a volume at one point (a box's corner, edge or face, a
sphere's surface; for rays and sweeps at a time t0 inside the ray or the step), in
random floats, so the rounding of the inputs leaves it touching, overlapping or a hair
apart in exact arithmetic. The oracles here decide on the given floats exactly
(fractions), and every case they call touching must be reported so; a case they call
apart may be reported touching only within rounding (1e-12 of the coordinates' size),
and t must agree to that.
"""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hitbox as hb
from tests import oracles_ray as oracle

TOL = 1e-12


def _q(x):
    return Fraction(float(x))


def segment_box_gap2(box, c, v, t_max=1):
    """Exact least squared distance from the box to c + t v, t in [0, t_max]."""
    lo, hi = [_q(x) for x in box[0]], [_q(x) for x in box[1]]
    c, v = [_q(x) for x in c], [_q(x) for x in v]
    t_max = Fraction(t_max)
    cuts = {Fraction(0), t_max}
    for k in range(len(c)):
        if v[k]:
            cuts.update(t for t in ((lo[k] - c[k]) / v[k], (hi[k] - c[k]) / v[k])
                        if 0 < t < t_max)  # fmt: skip
    cuts = sorted(cuts)
    best = None
    for a, b in zip(cuts, cuts[1:] + [cuts[-1]], strict=True):
        mid = (a + b) / 2
        # on [a, b] each axis is below, inside or above its slab: a quadratic in t
        q2 = q1 = q0 = Fraction(0)
        for k in range(len(c)):
            x = c[k] + mid * v[k]
            edge = lo[k] if x < lo[k] else (hi[k] if x > hi[k] else None)
            if edge is not None:
                q2, q1, q0 = (
                    q2 + v[k] ** 2,
                    q1 + 2 * v[k] * (c[k] - edge),
                    q0 + (c[k] - edge) ** 2,
                )
        ts = [a, b] + ([-q1 / (2 * q2)] if q2 and a < -q1 / (2 * q2) < b else [])
        val = min(q2 * t * t + q1 * t + q0 for t in ts)
        best = val if best is None else min(best, val)
    return best


def ball_gap2(center, c, v, t_max=1):
    """Exact least squared distance from ``center`` to c + t v, t in [0, t_max]."""
    m = [_q(a) - _q(b) for a, b in zip(c, center, strict=True)]
    v = [_q(x) for x in v]
    a = sum(x * x for x in v)
    t = min(max(-sum(x * y for x, y in zip(m, v, strict=True)) / a, Fraction(0)),
            Fraction(t_max))  # fmt: skip
    return sum((x + t * y) ** 2 for x, y in zip(m, v, strict=True))


def _scale(*arrays):
    return 1.0 + max(float(np.abs(a).max()) for a in arrays)


def _assert_touching_hits(hit, gap2, radius, scale):
    """A path whose exact least squared gap to a ball of ``radius`` is <= 0 hits it; one
    that hits is apart by no more than rounding."""
    if gap2 <= 0:
        assert hit
    elif hit:
        assert float(gap2) <= 4 * radius * TOL * scale


coords = st.floats(-4, 4, allow_nan=False, allow_subnormal=False)
sizes = st.floats(0.05, 3, allow_nan=False)
# where along the path the touch lies; 0: the path starts on the surface
times = st.floats(0.05, 0.95) | st.just(0.0)


@st.composite
def box_grazes(draw, dim=3):
    """(box (2, D), start, displacement): start + t0 * displacement lies on a corner,
    an edge or a face of the box (on every axis either a bound or inside)."""
    lo = np.array([draw(coords) for _ in range(dim)])
    box = np.stack([lo, lo + np.array([draw(sizes) for _ in range(dim)])])
    point = np.array([
        box[draw(st.integers(0, 1)), k] if draw(st.booleans())
        else draw(st.floats(box[0, k], box[1, k])) for k in range(dim)
    ])  # fmt: skip
    v = np.array([draw(st.floats(-8, 8, allow_subnormal=False)) for _ in range(dim)])
    if not v.any():
        v[0] = 1.0
    return box, point - draw(times) * v, v


@settings(max_examples=300, deadline=None)
@given(box_grazes(), st.integers(1, 3))
def test_a_ray_grazing_a_box_hits_it(case, dim):
    box, o, d = case
    box, o, d = box[:, :dim], o[:dim], d[:dim]
    if not d.any():
        return
    got = hb.ray.cast_aabb(box, o, d, t_max=1.0)
    hit, t, _, _ = oracle.aabb_cast(box, o, d, 1.0)
    scale = _scale(box, o, d)
    if hit:
        assert got.hit
        assert abs(got.t_enter - float(t)) <= TOL * scale
    elif got.hit:
        assert segment_box_gap2(box, o, d) <= (TOL * scale) ** 2


@settings(max_examples=300, deadline=None)
@given(box_grazes(), sizes)
def test_a_box_sweep_grazing_a_box_hits_it(case, size):
    """The moving box's corner at its high ends follows start + t displacement."""
    still, corner, v = case
    moving = np.stack([corner - size, corner])
    got = hb.sweep.aabb_aabb(moving, still, v)
    t, _ = oracle.aabb_sweep(moving, still, v)
    scale = _scale(still, moving, v)
    if t != oracle.INF:
        assert got.hit
        assert abs(got.t - float(t)) <= TOL * scale
    elif got.hit:  # apart by rounding only: the grown box meets the path
        grown = np.stack([still[0] - TOL * scale, still[1] + TOL * scale])
        assert oracle.aabb_sweep(moving, grown, v)[0] != oracle.INF


@st.composite
def sphere_grazes(draw):
    """(centre, radius, start, displacement): the path touches the sphere at t0, mostly
    tangent to it (a random direction less its component along the normal)."""
    center = np.array([draw(coords) for _ in range(3)])
    radius = draw(sizes)
    n = np.array([draw(st.floats(-1, 1)) for _ in range(3)])
    if np.linalg.norm(n) < 1e-3:
        n = np.array([0.0, 0.0, 1.0])
    n /= np.linalg.norm(n)
    v = np.array([draw(st.floats(-8, 8)) for _ in range(3)])
    if draw(st.booleans()):
        v -= (v @ n) * n  # tangent
    if not v.any():
        v = np.array([n[1] - n[2], n[2] - n[0], n[0] - n[1]]) + [0.0, 0.0, 1e-3]
    return center, radius, center + radius * n - draw(times) * v, v


@settings(max_examples=300, deadline=None)
@given(sphere_grazes())
def test_a_ray_grazing_a_sphere_hits_it(case):
    center, radius, o, d = case
    got = hb.ray.cast_sphere(hb.Spheres(center, radius), o, d, t_max=1.0)
    gap2 = ball_gap2(center, o, d) - _q(radius) ** 2
    _assert_touching_hits(got.hit, gap2, radius, _scale(center, o, d) + radius)


@pytest.mark.parametrize("length", [5e-74, 1e-20, 1e-8, 1.0, 1e8])
def test_a_ray_from_a_sphere_s_surface_touches_it(length):
    """An origin on the sphere (to the rounding of c + r n) touches it at t = 0, whichever
    way the ray goes and however short it is. Hypothesis found a ray 5e-74 long, from
    the surface outward, reported as a miss (so was every ray leaving from an origin
    rounded to just outside), and one 2.2e-16 long going inward, too short to cross the
    rounding."""
    rng = np.random.default_rng(11)
    for _ in range(200):
        center = rng.uniform(-4.0, 4.0, 3)
        radius = rng.uniform(0.05, 3.0)
        n = rng.normal(size=3)
        n /= np.linalg.norm(n)
        tangent = np.cross(n, rng.normal(size=3))
        d = n * rng.uniform(0.01, 1.0) + tangent  # outward, at any angle
        d *= rng.choice([-1.0, 1.0]) * length / np.linalg.norm(d)  # or inward
        o = center + radius * n
        got = hb.ray.cast_sphere(hb.Spheres(center, radius), o, d, t_max=1.0)
        assert got.hit and got.t_enter == 0.0


@settings(max_examples=300, deadline=None)
@given(sphere_grazes(), st.floats(0.0, 1.0))
def test_a_sphere_sweep_grazing_a_sphere_hits_it(case, share):
    """Radii r_a + r_b = the grazed radius, up to the rounding of the split."""
    center, radius, start, v = case
    ra = radius * share
    rb = radius - ra
    got = hb.sweep.sphere_sphere(hb.Spheres(start, ra), hb.Spheres(center, rb), v)
    gap2 = ball_gap2(center, start, v) - (_q(ra) + _q(rb)) ** 2
    _assert_touching_hits(got.hit, gap2, radius, _scale(center, start, v) + radius)


@settings(max_examples=300, deadline=None)
@given(box_grazes(), st.floats(0.0, 2.0), st.data())
def test_a_sphere_sweep_grazing_a_box_hits_it(case, radius, data):
    """The sphere's centre passes at distance ``radius`` from a corner, an edge or a
    face point (pushed out along an outward direction of that feature)."""
    box, start, v = case
    t0 = data.draw(times)
    point = start + t0 * v
    out = np.zeros(3)
    for k in range(3):
        if point[k] == box[0, k]:
            out[k] = -data.draw(st.floats(0.1, 1))
        elif point[k] == box[1, k]:
            out[k] = data.draw(st.floats(0.1, 1))
    if out.any():
        start = start + radius * out / np.linalg.norm(out)
    got = hb.sweep.sphere_aabb(hb.Spheres(start, radius), box, v)
    gap2 = segment_box_gap2(box, start, v) - _q(radius) ** 2
    scale = _scale(box, start, v) + radius
    if gap2 <= 0:
        assert got.hit
    elif got.hit:
        assert float(gap2) <= 4 * (radius + 1) * TOL * scale


# -- seeded batches: one call over thousands of grazes (a lost graze is rare per case) --


def _batch_box_grazes(rng, n):
    lo = rng.uniform(-4, 4, (n, 3))
    box = np.stack([lo, lo + rng.uniform(0.05, 3, (n, 3))], axis=1)
    side = rng.integers(0, 2, (n, 3))
    on_bound = rng.random((n, 3)) < 0.6
    inside = rng.uniform(box[:, 0], box[:, 1])
    point = np.where(on_bound, np.take_along_axis(box, side[:, None], 1)[:, 0], inside)
    v = rng.normal(size=(n, 3)) * rng.uniform(0.5, 8, (n, 1))
    return box, point - rng.uniform(0.05, 0.95, (n, 1)) * v, v


def test_thousands_of_rays_and_box_sweeps_keep_their_grazes():
    rng = np.random.default_rng(7)
    n = 4000
    box, o, d = _batch_box_grazes(rng, n)
    rays = hb.ray.cast_aabb(box, o, d, t_max=1.0)
    moving = np.stack([o - 0.5, o], axis=1)
    sweeps = hb.sweep.aabb_aabb(moving, box, d)
    for i in range(n):
        assert rays.hit[i] or not oracle.aabb_cast(box[i], o[i], d[i], 1.0)[0]
        assert (
            sweeps.hit[i] or oracle.aabb_sweep(moving[i], box[i], d[i])[0] == oracle.INF
        )


def test_thousands_of_rays_and_sphere_sweeps_keep_their_grazes():
    rng = np.random.default_rng(8)
    n = 4000
    center = rng.uniform(-4, 4, (n, 3))
    radius = rng.uniform(0.05, 3, n)
    normal = rng.normal(size=(n, 3))
    normal /= np.linalg.norm(normal, axis=1)[:, None]
    v = rng.normal(size=(n, 3)) * rng.uniform(0.5, 8, (n, 1))
    v -= np.sum(v * normal, axis=1)[:, None] * normal  # tangent paths
    start = center + radius[:, None] * normal - rng.uniform(0.05, 0.95, (n, 1)) * v
    rays = hb.ray.cast_sphere(hb.Spheres(center, radius), start, v, t_max=1.0)
    ra = radius * rng.random(n)
    sweeps = hb.sweep.sphere_sphere(
        hb.Spheres(start, ra), hb.Spheres(center, radius - ra), v
    )
    for i in range(n):
        touching = ball_gap2(center[i], start[i], v[i]) <= _q(radius[i]) ** 2
        assert rays.hit[i] or not touching
        touching = (
            ball_gap2(center[i], start[i], v[i])
            <= (_q(ra[i]) + _q(radius[i] - ra[i])) ** 2
        )
        assert sweeps.hit[i] or not touching


# -- touching volumes (no motion) ---------------------------------------------------------


def _touching_spheres(rng, n):
    ca = rng.uniform(-4, 4, (n, 3))
    normal = rng.normal(size=(n, 3))
    normal /= np.linalg.norm(normal, axis=1)[:, None]
    ra, rb = rng.uniform(0.05, 3, (2, n))
    return ca, ra, ca + (ra + rb)[:, None] * normal, rb


def _touching_box_points(rng, h):
    """Points of the boxes [-h, h] (n, 3) on a corner, an edge or a face, and an outward
    unit direction of that feature."""
    n = len(h)
    side = rng.choice([-1.0, 1.0], (n, 3))
    on_bound = rng.random((n, 3)) < 0.6
    point = np.where(on_bound, side * h, rng.uniform(-h, h))
    out = np.where(on_bound, side * rng.uniform(0.1, 1, (n, 3)), 0.0)
    out[~on_bound.any(axis=1), 0] = 1.0
    point[~on_bound.any(axis=1), 0] = h[~on_bound.any(axis=1), 0]
    return point, out / np.linalg.norm(out, axis=1)[:, None]


def _box_gap2(center, half, rot, p):
    """Exact squared distance from p to the box {c + rot u : |u_k| <= half_k}, with
    rot.T as rot's inverse (the OBB convention of hitbox.obb)."""
    d = [_q(a) - _q(b) for a, b in zip(p, center, strict=True)]
    total = Fraction(0)
    for j in range(3):
        u = sum(d[k] * _q(rot[k, j]) for k in range(3))
        e = abs(u) - _q(half[j])
        total += e * e if e > 0 else 0
    return total


def test_thousands_of_touching_spheres_overlap():
    rng = np.random.default_rng(9)
    ca, ra, cb, rb = _touching_spheres(rng, 4000)
    got = hb.sphere.overlap(hb.Spheres(ca, ra), hb.Spheres(cb, rb))
    for i in np.flatnonzero(~got):
        gap2 = sum((_q(a) - _q(b)) ** 2 for a, b in zip(ca[i], cb[i], strict=True))
        assert gap2 > (_q(ra[i]) + _q(rb[i])) ** 2


def test_thousands_of_spheres_touching_boxes_overlap_them():
    """Axis-aligned boxes (sphere-aabb) and turned ones (sphere-obb)."""
    rng = np.random.default_rng(10)
    n = 3000
    half = rng.uniform(0.05, 3, (n, 3))
    center = rng.uniform(-4, 4, (n, 3))
    point, out = _touching_box_points(rng, half)
    radius = rng.uniform(0.05, 3, n)
    local = point + radius[:, None] * out
    eye = np.broadcast_to(np.eye(3), (n, 3, 3))
    q, _ = np.linalg.qr(rng.normal(size=(n, 3, 3)))
    turned = q * np.sign(np.linalg.det(q))[:, None, None]
    box = np.stack([center - half, center + half], 1)
    for rot in (eye, turned):
        sphere = hb.Spheres(center + np.einsum("nij,nj->ni", rot, local), radius)
        if rot is eye:
            got = hb.mixed.overlap_sphere_aabb(sphere, box)
        else:
            got = hb.mixed.overlap_sphere_obb(sphere, hb.OBBs(center, half, rot))
        for i in np.flatnonzero(~got):
            if rot is eye:  # the box as passed: its bounds are rounded
                gap2 = segment_box_gap2(box[i], sphere.center[i], np.zeros(3))
            else:
                gap2 = _box_gap2(center[i], half[i], rot[i], sphere.center[i])
            assert gap2 > _q(radius[i]) ** 2


def _exact_slab_hit(lo, hi, axes, o, d, t_max=1):
    """Exact: does o + t d, t in [0, t_max], meet {x : lo_k <= axes_k . x <= hi_k}
    (lo, hi Fractions)?"""
    near, far = Fraction(0), Fraction(t_max)
    for k, a in enumerate(axes):
        oo = sum(_q(a[c]) * _q(o[c]) for c in range(3))
        dd = sum(_q(a[c]) * _q(d[c]) for c in range(3))
        if dd == 0:
            if not lo[k] <= oo <= hi[k]:
                return False
            continue
        t1, t2 = sorted(((lo[k] - oo) / dd, (hi[k] - oo) / dd))
        near, far = max(near, t1), min(far, t2)
    return near <= far


def test_thousands_of_rays_grazing_turned_boxes_and_kdops_hit_them():
    """Rays through a corner, an edge or a face point of an OBB (rot.T its inverse), and
    through a k-DOP's extreme point along a diagonal axis, in random directions."""
    rng = np.random.default_rng(12)
    n = 2000
    half = rng.uniform(0.05, 3, (n, 3))
    center = rng.uniform(-4, 4, (n, 3))
    q, _ = np.linalg.qr(rng.normal(size=(n, 3, 3)))
    rot = q * np.sign(np.linalg.det(q))[:, None, None]
    point, _ = _touching_box_points(rng, half)
    target = center + np.einsum("nij,nj->ni", rot, point)
    d = rng.normal(size=(n, 3)) * rng.uniform(0.5, 8, (n, 1))
    o = target - rng.uniform(0.05, 0.95, (n, 1)) * d
    got = hb.ray.cast_obb(hb.OBBs(center, half, rot), o, d, t_max=1.0)
    for i in np.flatnonzero(~got.hit):
        frame = [
            sum(_q(rot[i, c, k]) * _q(center[i, c]) for c in range(3)) for k in range(3)
        ]
        lo = [frame[k] - _q(half[i, k]) for k in range(3)]
        hi = [frame[k] + _q(half[i, k]) for k in range(3)]
        assert not _exact_slab_hit(lo, hi, rot[i].T, o[i], d[i])
    for k_dop in (14, 18, 26):
        axes = hb.kdop.AXES[k_dop]
        cloud = rng.uniform(-3, 3, (n, 10, 3))
        kd = hb.kdop.fit(cloud, k=k_dop)
        row = rng.integers(3, k_dop // 2, n)
        proj = np.einsum("npc,nc->np", cloud, axes[row])
        target = cloud[np.arange(n), proj.argmax(axis=1)]
        d = rng.normal(size=(n, 3)) * rng.uniform(0.5, 8, (n, 1))
        o = target - rng.uniform(0.05, 0.95, (n, 1)) * d
        got = hb.ray.cast_kdop(kd, o, d, t_max=1.0)
        for i in np.flatnonzero(~got.hit):
            lo, hi = [_q(x) for x in kd[i, 0]], [_q(x) for x in kd[i, 1]]
            assert not _exact_slab_hit(lo, hi, axes, o[i], d[i])


def test_an_unbounded_side_does_not_loosen_the_others():
    """Infinite bounds are left out of the graze allowance: a ray that misses a finite
    diagonal slab by 0.7 still misses when another bound is infinite."""
    kd = np.zeros((2, 7))
    kd[0], kd[1] = -3.0, 3.0
    kd[:, :3] = [[-1.0] * 3, [1.0] * 3]
    kd[1, 3] = np.inf  # x + y + z unbounded above
    kd[:, 4] = [-0.1, 0.1]  # |x - y + z| <= 0.1
    hit = hb.ray.cast_kdop(kd, [-5.0, 0.5, 0.0], [1.0, 0.0, 0.0])
    assert hit.hit and hit.t_enter == pytest.approx(5.4)
    assert not hb.ray.cast_kdop(kd, [-5.0, 0.5, -0.9], [1.0, 0.0, 0.0]).hit
    obb = hb.OBBs([0.0, 0.0, 0.0], [np.inf, 1.0, 1.0], np.eye(3))
    assert not hb.ray.cast_obb(obb, [0.0, 1.5, 0.0], [1.0, 0.0, 0.0]).hit
    # a sphere sweep past an unbounded box's finite face
    box = np.array([[-np.inf, -1.0, -1.0], [0.0, 1.0, 1.0]])
    assert not hb.sweep.sphere_aabb(
        hb.Spheres([5.0, -5.0, 0.0], 0.5), box, [0, 10.0, 0]
    ).hit
    assert hb.sweep.sphere_aabb(hb.Spheres([0.4, -5.0, 0.0], 0.5), box, [0, 10.0, 0]).hit
