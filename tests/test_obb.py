"""hitbox.obb against brute-force twins that do not use the separating-axis test.

Tolerances, stated once:
- The oracle's ``slack`` is exact up to about 1e-15 of the coordinates. Where it is above
  ``INSIDE`` (relative to the pair's size) the boxes overlap and hitbox must say so.
- hitbox's test is conservative: it may call boxes overlapping when they are apart by
  less than ``1e-12 * size / |L|`` along a near-degenerate edge axis L; over adversarial
  near-parallel searches that stayed below 3e-7 of the size. Below ``-OUTSIDE`` hitbox
  must say disjoint.
"""

import coal
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import hitbox as hb
from hitbox import OBBs
from hitbox._kernels import obb as kernels
from tests import oracles_obb as oracles
from tests.strategies import grid

INSIDE = 1e-13
OUTSIDE = 1e-5
CUBE = np.array([[-1.0, -1.0, -1.0], [1.0, 1.0, 1.0]])


# -- strategies -----------------------------------------------------------------------


def axis_rotation(axis, angle):
    """Rodrigues' formula: rotation by ``angle`` about ``axis``."""
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * k @ k


def quat_rotation(q):
    w, x, y, z = np.asarray(q, float) / np.linalg.norm(q)
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]
    )


def signed_permutations():
    out = []
    for perm in ([0, 1, 2], [1, 2, 0], [2, 0, 1], [1, 0, 2], [0, 2, 1], [2, 1, 0]):
        for signs in np.ndindex(2, 2, 2):
            m = np.eye(3)[:, perm] * (1 - 2 * np.array(signs))
            if np.linalg.det(m) > 0:
                out.append(m)
    return out


SIGNED_PERMS = signed_permutations()
unit = st.floats(-1, 1, allow_nan=False)
quats = st.tuples(unit, unit, unit, unit).filter(lambda q: np.linalg.norm(q) > 0.1)


@st.composite
def rotations(draw):
    """Proper rotations: random, axis permutations, and tiny turns of those (the
    near-parallel edge cases)."""
    kind = draw(st.sampled_from(["quat", "perm", "tiny", "axis"]))
    if kind == "quat":
        return quat_rotation(draw(quats))
    base = draw(st.sampled_from(SIGNED_PERMS))
    if kind == "perm":
        return base.copy()
    if kind == "axis":
        angle = draw(st.floats(-np.pi, np.pi, allow_nan=False))
        return axis_rotation(np.eye(3)[draw(st.integers(0, 2))], angle) @ base
    angle = draw(st.sampled_from([1e-6, 1e-9, 1e-12, 1e-15]))
    return axis_rotation(quat_rotation(draw(quats))[:, 0], angle) @ base


half_values = st.one_of(st.sampled_from([0.0, 0.5, 1.0, 2.0]), st.floats(0.0, 3.0))


@st.composite
def obb_sets(draw, n=None, min_n=0, max_n=6, allow_empty=True):
    n = draw(st.integers(min_n, max_n)) if n is None else n
    center = draw(hnp.arrays(np.float64, (n, 3), elements=grid))
    half = draw(hnp.arrays(np.float64, (n, 3), elements=half_values))
    if allow_empty and n and draw(st.booleans()):
        half[draw(st.integers(0, n - 1)), draw(st.integers(0, 2))] = -1.0
    rot = np.array([draw(rotations()) for _ in range(n)]).reshape(n, 3, 3)
    return OBBs(center, half, rot)


@st.composite
def point_groups(draw):
    """(P, K, 3) groups: free, coincident, collinear, coplanar or on a grid; at several
    scales and offsets."""
    p, k = draw(st.integers(1, 3)), draw(st.integers(0, 14))
    mode = draw(st.sampled_from(["free", "same", "line", "plane", "grid"]))
    el = st.floats(-1, 1, allow_nan=False)
    coef = draw(hnp.arrays(np.float64, (p, k, 3), elements=el))
    base = draw(hnp.arrays(np.float64, (p, 3, 3), elements=el))
    if mode == "free":
        pts = coef
    elif mode == "same":
        pts = np.broadcast_to(base[:, :1], (p, k, 3)).copy()
    elif mode == "line":
        pts = base[:, None, 0] + coef[..., :1] * base[:, None, 1]
    elif mode == "plane":
        pts = (
            base[:, None, 0]
            + coef[..., :1] * base[:, None, 1]
            + coef[..., 1:2] * base[:, None, 2]
        )
    else:
        pts = np.round(coef * 2)
    scale = 10.0 ** draw(st.integers(-3, 3))
    offset = draw(st.sampled_from([0.0, 1.0, 1e3]))
    return pts * scale + offset


def one(obbs, i):
    return OBBs(*(x[i] for x in obbs))


def rigid(rot, trans):
    m = np.eye(4)
    m[:3, :3], m[:3, 3] = rot, trans
    return m


def as_set(obbs):
    return OBBs(*(np.asarray(x)[None] for x in obbs))


# -- fitting --------------------------------------------------------------------------


@given(point_groups(), st.sampled_from(hb.obb.METHODS))
def test_fit_contains_its_points_and_is_a_rotation(groups, method):
    fitted = hb.obb.fit(groups, method=method)
    p, k = groups.shape[:2]
    assert fitted.center.shape == (p, 3) and fitted.rot.shape == (p, 3, 3)
    np.testing.assert_allclose(np.linalg.det(fitted.rot), 1.0, atol=1e-12)
    np.testing.assert_allclose(
        np.einsum("nji,njk->nik", fitted.rot, fitted.rot),
        np.broadcast_to(np.eye(3), (p, 3, 3)),
        atol=1e-12,
    )
    if k == 0:
        assert hb.obb.is_empty(fitted).all()
        return
    assert (fitted.half >= 0).all()
    each = OBBs(*(np.repeat(x, k, axis=0) for x in fitted))
    assert hb.obb.contains_points(each, groups.reshape(-1, 3)).all()


@given(point_groups())
def test_hull_fit_is_no_larger_than_pca_or_aabb(groups):
    assume(groups.shape[1] > 0)
    hull = hb.obb.volume(hb.obb.fit(groups, method="hull"))
    pca = hb.obb.volume(hb.obb.fit(groups, method="pca"))
    box = hb.aabb.volume(hb.aabb.from_points(groups))
    # 1e-9 relative to the cube of each group's extent covers the ulp-thick boxes of flat
    # sets, whose AABB may be exactly flat
    slack = 1e-9 * (np.ptp(groups, axis=1).max(axis=1) + 1e-300) ** 3
    assert (hull <= pca * (1 + 1e-9) + slack).all()
    assert (hull <= box * (1 + 1e-9) + slack).all()


def test_hull_fit_beats_pca_on_a_skewed_sample():
    """PCA follows the density of the points; the hull method follows their shape."""
    rng = np.random.default_rng(7)
    rot = quat_rotation([0.3, -0.2, 0.9, 0.1])
    half = np.array([3.0, 1.0, 0.5])
    local = (2.0 * oracles.BITS - 1.0) * half  # the 8 corners
    cluster = -half + 0.2 * np.abs(rng.normal(size=(300, 3)))  # dense near one corner
    pts = np.concatenate([local, np.minimum(cluster, half)]) @ rot.T
    hull = hb.obb.fit(pts, method="hull")
    pca = hb.obb.fit(pts, method="pca")
    assert hb.obb.volume(hull) < 0.9 * hb.obb.volume(pca)
    assert hb.obb.volume(hull) < 0.9 * hb.aabb.volume(hb.aabb.from_points(pts))


def test_fit_recovers_a_box_from_its_corners():
    rng = np.random.default_rng(3)
    for _ in range(20):
        rot = quat_rotation(rng.normal(size=4))
        half = np.sort(rng.uniform(0.5, 3.0, 3))[::-1] * [1.5, 1.2, 1.0]
        center = rng.uniform(-5, 5, 3)
        pts = oracles.corners(center[None], half[None], rot[None])[0]
        for method in hb.obb.METHODS:
            got = hb.obb.fit(pts, method=method)
            np.testing.assert_allclose(got.center, center, atol=1e-12)
            # the hull method may list the same axes in another order
            match = np.abs(got.rot.T @ rot)
            np.testing.assert_allclose(match, np.round(match), atol=1e-9)
            np.testing.assert_allclose(got.half @ np.round(match), half, rtol=1e-12)
            if method == "pca":
                np.testing.assert_allclose(match, np.eye(3), atol=1e-9)


@pytest.mark.parametrize("method", hb.obb.METHODS)
def test_fit_degenerate_groups(method):
    fit = hb.obb.fit
    empty = fit(np.zeros((0, 3)), method=method)
    assert empty.center.shape == (3,) and hb.obb.is_empty(empty)
    np.testing.assert_array_equal(empty.half, -np.inf)
    np.testing.assert_array_equal(empty.rot, np.eye(3))
    assert hb.obb.volume(empty) == 0.0 and not hb.obb.overlap(empty, empty)
    same = fit(np.full((5, 3), 2.5), method=method)
    np.testing.assert_array_equal(same.center, 2.5)
    np.testing.assert_array_equal(same.half, 0.0)
    line = fit(np.outer(np.linspace(-1, 3, 7), [1.0, 2.0, 2.0]), method=method)
    np.testing.assert_allclose(np.sort(line.half), [0, 0, 6.0], atol=1e-12)
    plane = np.array([[0, 0, 1], [2, 0, 1], [0, 1, 1], [2, 1, 1.0]])
    flat = fit(plane, method=method)
    np.testing.assert_allclose(np.sort(flat.half), [0, 0.5, 1.0], atol=1e-12)
    np.testing.assert_allclose(flat.center, [1, 0.5, 1], atol=1e-12)
    assert fit(np.zeros((4, 0, 3)), method=method).half.shape == (4, 3)
    assert fit(np.zeros((0, 5, 3)), method=method).center.shape == (0, 3)


def test_fit_triangles_follows_seed_003():
    rng = np.random.default_rng(11)
    for _ in range(10):
        tris = rng.normal(size=(rng.integers(1, 30), 3, 3)) * [4.0, 2.0, 0.5] + 10.0
        mu, _, w, vecs, lo, hi = oracles.fit_triangles_seed(tris)
        got = hb.obb.fit_triangles(tris)
        assume_separated = np.min(np.diff(w[::-1])) > 1e-6 * w[0]
        if assume_separated:  # axes are then unique up to sign
            np.testing.assert_allclose(np.abs(got.rot.T @ vecs), np.eye(3), atol=1e-8)
            np.testing.assert_allclose(
                np.sort(got.half), np.sort((hi - lo) / 2), rtol=1e-9
            )
            np.testing.assert_allclose(
                got.center, mu + vecs @ ((lo + hi) / 2), atol=1e-9 * np.abs(tris).max()
            )
        each = OBBs(*(np.repeat(x[None], 3 * len(tris), 0) for x in got))
        assert hb.obb.contains_points(each, tris.reshape(-1, 3)).all()
        np.testing.assert_allclose(np.linalg.det(got.rot), 1.0, atol=1e-12)
    sets = rng.normal(size=(4, 6, 3, 3))
    batch = hb.obb.fit_triangles(sets)
    for p in range(4):
        single = hb.obb.fit_triangles(sets[p])
        for x, y in zip(batch, single, strict=True):
            np.testing.assert_array_equal(x[p], y)
    none = hb.obb.fit_triangles(np.zeros((0, 3, 3)))
    assert hb.obb.is_empty(none)


def test_fit_triangles_equals_pca_of_the_vertices():
    tris = np.random.default_rng(5).normal(size=(40, 3, 3))
    a = hb.obb.fit_triangles(tris)
    b = hb.obb.fit(tris.reshape(-1, 3), method="pca")
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)


# -- overlap --------------------------------------------------------------------------


@settings(max_examples=300)
@given(obb_sets(n=1), obb_sets(n=1))
def test_overlap_agrees_with_the_edge_clipping_oracle(a, b):
    got = hb.obb.overlap(a, b)
    s = oracles.slack(a, b)[0]
    scale = oracles.size(a, b)[0]
    if s > INSIDE * scale:
        assert got, f"overlapping boxes called disjoint (slack {s:g})"
    if s < -OUTSIDE * scale:
        assert not got, f"boxes {-s:g} apart called overlapping"
    assert got == hb.obb.overlap(b, a)


@given(obb_sets(n=1, allow_empty=False), obb_sets(n=1, allow_empty=False), st.data())
def test_a_point_of_a_inside_b_means_overlap(a, b, data):
    u = data.draw(
        hnp.arrays(np.float64, (16, 3), elements=st.sampled_from([-1.0, 0.0, 1.0]))
    )
    u = np.concatenate([u, data.draw(hnp.arrays(np.float64, (16, 3), elements=unit))])
    pts = a.center + (u * a.half) @ a.rot[0].T
    inside = oracles.contains_points(b.center, b.half, b.rot, pts)
    if inside.any():
        assert hb.obb.overlap(a, b)


@given(obb_sets(min_n=1, max_n=8), obb_sets(n=1), st.data())
def test_overlap_broadcasts_and_is_invariant_under_rigid_motion(many, single, data):
    got = hb.obb.overlap(single, many)
    assert got.dtype == np.bool_ and got.shape == (len(many.center),)
    pairwise = [
        hb.obb.overlap(one(single, 0), one(many, i)) for i in range(len(many.center))
    ]
    np.testing.assert_array_equal(got, pairwise)
    np.testing.assert_array_equal(hb.obb.overlap(many, single), got)
    m = rigid(data.draw(rotations()), data.draw(hnp.arrays(np.float64, 3, elements=grid)))
    moved = hb.obb.overlap(hb.obb.transform(single, m), hb.obb.transform(many, m))
    s = oracles.slack(single, many)
    scale = oracles.size(single, many)
    clear = (s > INSIDE * scale) | (s < -OUTSIDE * scale)  # outside the test's slack
    np.testing.assert_array_equal(moved[clear], got[clear])


def test_identical_and_nearly_parallel_boxes_overlap():
    rng = np.random.default_rng(13)
    for _ in range(200):
        rot = quat_rotation(rng.normal(size=4))
        half = rng.uniform(0.0, 2.0, 3) * (rng.random(3) > 0.3)
        center = rng.uniform(-100, 100, 3)
        a = OBBs(center, half, rot)
        assert hb.obb.overlap(a, a)
        half = np.maximum(half, 0.1)  # solid boxes: a tilted flat one may miss
        a = OBBs(center, half, rot)
        for angle in (1e-6, 1e-9, 1e-12, 1e-16):
            turned = axis_rotation(rng.normal(size=3), angle) @ rot
            perm = SIGNED_PERMS[rng.integers(len(SIGNED_PERMS))]
            b = OBBs(center, half, turned)
            assert hb.obb.overlap(a, b) and hb.obb.overlap(b, a)
            c = OBBs(center, half[np.argsort(perm.T @ [0, 1, 2])], turned @ perm)
            assert hb.obb.overlap(a, c)
            # slid along a face axis so the faces touch, and then a little apart
            k = rng.integers(3)
            step = rot[:, k] * (half[k] + half[k])
            near = hb.obb.overlap(a, OBBs(center + step, half, turned))
            gap = 1e-6 * (1 + np.abs(half).sum())
            far = hb.obb.overlap(
                a, OBBs(center + step + rot[:, k] * 2 * gap, half, turned)
            )
            assert near and not far


def test_parallel_edges_of_segments_and_flat_boxes():
    x = np.eye(3)
    seg = np.array([1.0, 0, 0])
    assert hb.obb.overlap(OBBs([0, 0, 0], seg, x), OBBs([1.5, 0, 0], seg, x))  # overlap
    assert hb.obb.overlap(
        OBBs([0, 0, 0], seg, x), OBBs([2.0, 0, 0], seg, x)
    )  # end to end
    assert not hb.obb.overlap(OBBs([0, 0, 0], seg, x), OBBs([2.0 + 1e-9, 0, 0], seg, x))
    assert not hb.obb.overlap(OBBs([0, 0, 0], seg, x), OBBs([0.5, 1e-9, 0], seg, x))
    crossing = axis_rotation([0, 0, 1], 0.7)
    assert hb.obb.overlap(OBBs([0, 0, 0], seg, x), OBBs([0.2, 0, 0], seg, crossing))
    assert not hb.obb.overlap(
        OBBs([0, 0, 0], seg, x), OBBs([0.2, 0, 1e-9], seg, crossing)
    )
    square = np.array([1.0, 1.0, 0.0])
    tilted = axis_rotation([1, 1, 0], 1e-9)
    assert hb.obb.overlap(OBBs([0, 0, 0], square, x), OBBs([1.9, 1.9, 0], square, tilted))
    point = np.zeros(3)
    assert hb.obb.overlap(OBBs([1, 1, 0], point, x), OBBs([0, 0, 0], square, x))  # corner
    assert not hb.obb.overlap(OBBs([1, 1, 1e-9], point, x), OBBs([0, 0, 0], square, x))
    assert hb.obb.overlap(OBBs([3, 3, 3], point, x), OBBs([3, 3, 3], point, crossing))


def _edge_contact(rng, gap=0.0):
    """Box a and a box b whose edges cross at one point p, b outside a (touching), then
    b moved ``gap`` along the separating normal."""
    ra = quat_rotation(rng.normal(size=4))
    ha = rng.uniform(0.2, 2.0, 3)
    ca = rng.uniform(-3, 3, 3)
    phi = rng.uniform(0.05, np.pi / 2 - 0.05)  # normal inside a's edge normal cone
    n = np.cos(phi) * ra[:, 1] + np.sin(phi) * ra[:, 2]
    p = ca + ra @ (ha * [rng.uniform(-0.9, 0.9), 1, 1])  # on the edge (+y, +z) along x
    side = np.cross(n, ra[:, 0])
    psi = rng.uniform(0.2, np.pi - 0.2)  # b's edge direction, in the plane normal to n
    b0 = np.cos(psi) * ra[:, 0] + np.sin(psi) * side
    beta = rng.uniform(0.05, np.pi / 2 - 0.05)
    w = np.cross(n, b0)  # -n = cos(beta) b1 + sin(beta) b2
    b1 = -np.cos(beta) * n - np.sin(beta) * w
    b2 = -np.sin(beta) * n + np.cos(beta) * w
    rb = np.stack([b0, b1, b2], axis=1)
    if np.linalg.det(rb) < 0:
        rb[:, 0] *= -1
    hb_ = rng.uniform(0.2, 2.0, 3)
    cb = (
        p
        - rb[:, 1] * hb_[1]
        - rb[:, 2] * hb_[2]
        + rb[:, 0] * hb_[0] * rng.uniform(-0.9, 0.9)
    )
    return OBBs(ca, ha, ra), OBBs(cb + gap * n, hb_, rb)


def test_edge_edge_touching_boxes_overlap():
    rng = np.random.default_rng(17)
    for _ in range(300):
        a, b = _edge_contact(rng)
        assert abs(oracles.slack(as_set(a), as_set(b))[0]) < 1e-12  # the oracle agrees
        assert hb.obb.overlap(a, b) and hb.obb.overlap(b, a)
    for _ in range(300):
        a, b = _edge_contact(rng, gap=1e-7)
        assert not hb.obb.overlap(a, b)


def test_vertex_face_touching_boxes_overlap():
    rng = np.random.default_rng(31)
    for _ in range(300):
        ra, rb = quat_rotation(rng.normal(size=4)), quat_rotation(rng.normal(size=4))
        ha, hb_ = rng.uniform(0.2, 2.0, 3), rng.uniform(0.2, 2.0, 3)
        ca = rng.uniform(-3, 3, 3)
        k, side = rng.integers(3), rng.choice([-1.0, 1.0])
        normal = side * ra[:, k]
        local = ha * rng.uniform(-0.9, 0.9, 3)
        local[k] = side * ha[k]
        p = ca + ra @ local  # a point on a's face
        signs = -np.sign(rb.T @ normal)  # b's corner deepest along the normal
        cb = p - rb @ (signs * hb_)
        a, b = OBBs(ca, ha, ra), OBBs(cb, hb_, rb)
        assert abs(oracles.slack(as_set(a), as_set(b))[0]) < 1e-12
        assert hb.obb.overlap(a, b) and hb.obb.overlap(b, a)
        assert not hb.obb.overlap(a, OBBs(cb + 1e-7 * normal, hb_, rb))


def test_empty_boxes_overlap_nothing():
    big = OBBs(np.zeros(3), np.full(3, 1e9), np.eye(3))
    for half in ([-1, 1, 1], [1, 1, -1e-300], [-np.inf] * 3):
        empty = OBBs(np.zeros(3), np.array(half, float), np.eye(3))
        assert not hb.obb.overlap(empty, big) and not hb.obb.overlap(big, empty)
        assert not hb.obb.overlap(empty, empty)
        assert not hb.obb.contains_points(empty, np.zeros(3))
        assert hb.obb.volume(empty) == 0.0
        np.testing.assert_array_equal(hb.obb.to_boxes(empty), hb.aabb.empty())
        assert np.isnan(hb.obb.corners(empty)).all()
        with pytest.raises(ValueError, match="empty"):
            hb.obb.closest_points(empty, np.zeros(3))


def test_slightly_non_orthonormal_rotations_stay_conservative():
    """A rot 1e-8 off orthonormal describes a parallelepiped; overlap holds all of it."""
    rng = np.random.default_rng(19)
    for _ in range(100):
        rot = quat_rotation(rng.normal(size=4)) + rng.normal(size=(3, 3)) * 3e-8
        a = OBBs(rng.uniform(-1, 1, 3), rng.uniform(0.1, 1, 3), rot)
        u = rng.choice([-1.0, 1.0], size=3)
        corner = a.center + rot @ (u * a.half)
        b = OBBs(corner + 1e-9 * rng.normal(size=3), np.zeros(3), np.eye(3))
        # does the point lie in the parallelepiped? solve exactly
        inside = np.all(np.abs(np.linalg.solve(rot, b.center - a.center)) <= a.half)
        if inside:
            assert hb.obb.overlap(a, b)


@pytest.mark.parametrize("seed", [0, 1])
def test_overlap_agrees_with_coal(seed):
    """10,000 random pairs per seed (a fifth of them near-parallel) against Coal's
    box-box collision (GJK tolerance 1e-12). Pairs whose oracle slack is within 1e-9 of
    touching are skipped: there the two libraries may differ by their tolerances."""
    rng = np.random.default_rng(seed)
    n = 10_000
    a, b = random_pairs(rng, n)
    got = hb.obb.overlap(a, b)
    s = oracles.slack(a, b)
    request = coal.CollisionRequest()
    request.gjk_tolerance = 1e-12
    checked = 0
    for i in np.flatnonzero(np.abs(s) > 1e-9):
        shapes = []
        for box in (a, b):
            shapes += [
                coal.Box(2 * box.half[i]),
                coal.Transform3s(box.rot[i], box.center[i]),
            ]
        result = coal.CollisionResult()
        hit = coal.collide(*shapes, request, result) > 0
        assert hit == got[i], f"pair {i}: coal {hit}, hitbox {got[i]}, slack {s[i]:g}"
        checked += 1
    assert checked > 0.99 * n and 0.2 < got.mean() < 0.8


def random_pairs(rng, n):
    ra = np.array([quat_rotation(q) for q in rng.normal(size=(n, 4))])
    rb = np.array([quat_rotation(q) for q in rng.normal(size=(n, 4))])
    near = rng.random(n) < 0.2
    turns = np.array(
        [axis_rotation(x, 10.0 ** rng.uniform(-12, -3)) for x in rng.normal(size=(n, 3))]
    )
    rb[near] = turns[near] @ ra[near]
    a = OBBs(rng.uniform(-1, 1, (n, 3)), rng.uniform(0.05, 1.0, (n, 3)), ra)
    b = OBBs(rng.uniform(-1, 1, (n, 3)), rng.uniform(0.05, 1.0, (n, 3)), rb)
    return a, b


# -- pairs ----------------------------------------------------------------------------


@given(obb_sets(max_n=10), obb_sets(max_n=10))
def test_overlap_pairs_equal_brute_force_and_the_oracle(a, b):
    got = hb.obb.overlap_pairs(a, b)
    brute = hb.obb.overlap_pairs_brute(a, b)
    assert got.dtype == np.intp and got.shape[0] == 2
    np.testing.assert_array_equal(got, brute)
    assert (np.lexsort(got[::-1]) == np.arange(got.shape[1])).all()
    must, may = oracles.overlap_pairs_band(a, b, INSIDE, OUTSIDE)
    hit = np.zeros_like(must)
    hit[got[0], got[1]] = True
    assert (hit | ~must).all() and (may | ~hit).all()


def test_overlap_pairs_on_a_larger_scene():
    rng = np.random.default_rng(23)
    a, b = random_pairs(rng, 600)
    for boxes in (a, b):
        boxes.center[:] *= 8
    got = hb.obb.overlap_pairs(a, b)
    np.testing.assert_array_equal(got, hb.obb.overlap_pairs_brute(a, b))
    assert got.shape[1] > 100
    np.testing.assert_array_equal(
        hb.obb.overlap(OBBs(*(x[got[0]] for x in a)), OBBs(*(x[got[1]] for x in b))), True
    )


# -- transform ------------------------------------------------------------------------


@given(
    obb_sets(min_n=1, allow_empty=False),
    rotations(),
    hnp.arrays(np.float64, 3, elements=grid),
)
def test_rigid_transform_is_exact(obbs, rot, trans):
    m = rigid(rot, trans)
    got = hb.obb.transform(obbs, m)
    np.testing.assert_array_equal(got.half, obbs.half)
    np.testing.assert_allclose(got.rot, rot @ obbs.rot, rtol=0, atol=1e-15)
    np.testing.assert_allclose(
        got.center, obbs.center @ rot.T + trans, rtol=0, atol=1e-13
    )
    np.testing.assert_allclose(
        hb.obb.corners(got), hb.obb.corners(obbs) @ rot.T + trans, rtol=0, atol=1e-12
    )


@given(obb_sets(min_n=1), st.sampled_from([0.5, 2.0, 3.0, -1.0, -2.5]), rotations())
def test_similarity_scales_half_and_keeps_a_proper_rotation(obbs, scale, rot):
    m = rigid(scale * rot, [1.0, -2.0, 0.5])
    got = hb.obb.transform(obbs, m)
    full = ~hb.obb.is_empty(obbs)
    # atol: a subnormal half extent may round up by one step (5e-324), never down
    np.testing.assert_allclose(
        got.half[full], abs(scale) * obbs.half[full], rtol=1e-15, atol=2e-323
    )
    assert (got.half[full] >= abs(scale) * obbs.half[full] * (1 - 1e-15)).all()
    np.testing.assert_allclose(np.linalg.det(got.rot), 1.0, atol=1e-12)
    assert hb.obb.is_empty(got)[~full].all()
    moved = hb.obb.corners(obbs)[full] @ (scale * rot).T + m[:3, 3]
    mine = hb.obb.corners(got)[full]  # same set of corners, maybe in another order
    np.testing.assert_allclose(np.sort(mine, axis=1), np.sort(moved, axis=1), atol=1e-12)


@given(obb_sets(min_n=1), hnp.arrays(np.float64, (3, 3), elements=grid))
def test_affine_transform_encloses_the_image(obbs, linear):
    m = rigid(linear, [0.5, 0.0, -1.0])
    got = hb.obb.transform(obbs, m)
    full = ~hb.obb.is_empty(obbs)
    assert hb.obb.is_empty(got)[~full].all()
    np.testing.assert_allclose(np.linalg.det(got.rot), 1.0, atol=1e-12)
    image = hb.obb.corners(obbs) @ linear.T + m[:3, 3]  # (N, 8, 3)
    for i in np.flatnonzero(full):
        u = (image[i] - got.center[i]) @ got.rot[i]
        scale = 1 + np.abs(image[i]).max()
        assert (np.abs(u) <= got.half[i] + 1e-12 * scale).all()
    # never looser than the enclosing AABB of the image, as a volume
    vol = hb.obb.volume(got)[full]
    box = np.prod(np.ptp(image[full], axis=1), axis=1)
    assert (vol <= box * (1 + 1e-9) + 1e-9).all()


def test_transform_rejects_non_affine_matrices():
    m = np.eye(4)
    m[3, 0] = 0.1
    with pytest.raises(ValueError, match="matrix"):
        hb.obb.transform(OBBs(np.zeros(3), np.ones(3), np.eye(3)), m)
    with pytest.raises(ValueError, match="matrix"):
        hb.obb.transform(OBBs(np.zeros(3), np.ones(3), np.eye(3)), np.eye(3))


# -- boxes, corners, points -----------------------------------------------------------


def test_corners_bit_order_matches_aabb():
    boxes = np.array([CUBE, [[0, 1, 2], [3, 5, 7.0]]])
    obbs = hb.obb.from_boxes(boxes)
    np.testing.assert_array_equal(hb.obb.corners(obbs), hb.aabb.corners(boxes))
    rot = quat_rotation([1, 2, 3, 4])
    c = hb.obb.corners(OBBs(np.ones(3), np.array([1.0, 2, 3]), rot))
    for k in range(3):
        side = (c - 1.0) @ rot[:, k]
        bit = (np.arange(8) >> k) & 1
        assert (np.sign(side) == 2 * bit - 1).all()


@given(obb_sets(min_n=1))
def test_to_boxes_encloses_tightly_and_round_trips(obbs):
    boxes = hb.obb.to_boxes(obbs)
    full = ~hb.obb.is_empty(obbs)
    corners = hb.obb.corners(obbs)[full]
    lo, hi = boxes[full, 0], boxes[full, 1]
    assert (lo[:, None] <= corners).all() and (corners <= hi[:, None]).all()
    scale = 1 + np.abs(corners).max(axis=(1, 2))[:, None]
    assert (corners.min(axis=1) - lo <= 1e-12 * scale).all()
    assert (hi - corners.max(axis=1) <= 1e-12 * scale).all()
    assert hb.aabb.is_empty(boxes[~full]).all()
    back = hb.obb.from_boxes(boxes[full])
    np.testing.assert_allclose(
        hb.obb.to_boxes(back),
        boxes[full],
        atol=1e-12 * np.abs(boxes[full]).max(initial=1),
    )


def test_from_boxes():
    got = hb.obb.from_boxes(np.array([[0.0, 1, 2], [2, 2, 3]]))
    np.testing.assert_array_equal(got.center, [1, 1.5, 2.5])
    np.testing.assert_array_equal(got.half, [1, 0.5, 0.5])
    np.testing.assert_array_equal(got.rot, np.eye(3))
    assert hb.obb.is_empty(hb.obb.from_boxes(hb.aabb.empty()))
    with pytest.raises(ValueError, match=r"boxes\[1\]"):
        hb.obb.from_boxes([CUBE, [[0, 0, -np.inf], [1, 1, 1]]])
    with pytest.raises(ValueError, match="3-dimensional"):
        hb.obb.from_boxes(np.zeros((2, 2)))


@given(obb_sets(min_n=1), st.data())
def test_contains_and_closest_points_match_numpy(obbs, data):
    pts = data.draw(hnp.arrays(np.float64, (len(obbs.center), 3), elements=grid))
    got = hb.obb.contains_points(obbs, pts)
    u = np.einsum("nji,nj->ni", obbs.rot, pts - obbs.center)
    margin = np.min(obbs.half - np.abs(u), axis=1)
    sure = np.abs(margin) > 1e-12 * (1 + np.abs(pts).max())
    np.testing.assert_array_equal(got[sure], (margin >= 0)[sure])
    full = ~hb.obb.is_empty(obbs)
    if not full.all():
        with pytest.raises(ValueError, match="empty"):
            hb.obb.closest_points(obbs, pts)
        obbs = OBBs(*(x[full] for x in obbs))
        pts, got = pts[full], got[full]
    if not len(pts):
        return
    near = hb.obb.closest_points(obbs, pts)
    scale = 1 + np.abs(pts).max() + np.abs(obbs.half).max()
    uu = np.einsum("nji,nj->ni", obbs.rot, near - obbs.center)
    assert (np.abs(uu) <= obbs.half + 1e-12 * scale).all()  # inside
    np.testing.assert_allclose(near[got], pts[got], atol=1e-12 * scale)
    d = np.linalg.norm(near - pts, axis=1)  # no corner is closer
    dc = np.linalg.norm(hb.obb.corners(obbs) - pts[:, None], axis=2).min(axis=1)
    assert (d <= dc + 1e-12 * scale).all()


def test_closed_containment_on_faces_and_corners():
    box = hb.obb.from_boxes(CUBE)
    pts = np.array([[1, 0, 0], [1, 1, 1], [-1, -1, -1], [1 + 1e-15, 0, 0], [0, 0, 0.0]])
    np.testing.assert_array_equal(hb.obb.contains_points(box, pts), [1, 1, 1, 0, 1])
    assert hb.obb.contains_points(box, [0.0, 1.0, 0.0]) is True
    np.testing.assert_array_equal(
        hb.obb.closest_points(box, [3.0, 0.5, -2]), [1, 0.5, -1]
    )


def test_volume_and_single_results():
    box = OBBs(np.zeros(3), np.array([1.0, 2.0, 0.5]), quat_rotation([1, 1, 0, 0]))
    assert hb.obb.volume(box) == 8.0
    assert hb.obb.overlap(box, box) is True
    assert hb.obb.to_boxes(box).shape == (2, 3) and hb.obb.corners(box).shape == (8, 3)
    assert hb.obb.is_empty(box) == False  # noqa: E712 (numpy bool)


# -- contracts and bad input ----------------------------------------------------------


def test_zero_boxes_give_empty_results():
    none = OBBs(np.zeros((0, 3)), np.zeros((0, 3)), np.zeros((0, 3, 3)))
    box = OBBs(np.zeros(3), np.ones(3), np.eye(3))
    assert hb.obb.overlap(none, none).shape == (0,)
    assert hb.obb.overlap(box, none).shape == (0,)
    assert hb.obb.overlap_pairs(none, box).shape == (2, 0)
    assert hb.obb.overlap_pairs_brute(box, none).shape == (2, 0)
    assert hb.obb.corners(none).shape == (0, 8, 3)
    assert hb.obb.to_boxes(none).shape == (0, 2, 3)
    assert hb.obb.volume(none).shape == (0,)
    assert hb.obb.contains_points(none, np.zeros((0, 3))).shape == (0,)
    assert hb.obb.closest_points(none, np.zeros(3)).shape == (0, 3)
    assert hb.obb.transform(none, np.eye(4)).rot.shape == (0, 3, 3)
    assert hb.obb.fit(np.zeros((0, 4, 3))).rot.shape == (0, 3, 3)
    assert hb.obb.fit_triangles(np.zeros((0, 2, 3, 3))).half.shape == (0, 3)
    assert hb.obb.from_boxes(np.zeros((0, 2, 3))).center.shape == (0, 3)


def test_bad_input_is_named():
    box = OBBs(np.zeros(3), np.ones(3), np.eye(3))
    skew = np.eye(3)
    skew[0, 1] = 1e-3
    with pytest.raises(ValueError, match=r"b\.rot\[0\] is not orthonormal"):
        hb.obb.overlap(box, OBBs(np.zeros(3), np.ones(3), skew))
    with pytest.raises(ValueError, match=r"a\.center"):
        hb.obb.overlap(OBBs([np.nan, 0, 0], np.ones(3), np.eye(3)), box)
    with pytest.raises(ValueError, match=r"obbs\.half"):
        hb.obb.volume(OBBs(np.zeros(3), [1, np.nan, 1], np.eye(3)))
    with pytest.raises(ValueError, match=r"obbs\.rot"):
        hb.obb.volume(OBBs(np.zeros(3), np.ones(3), np.eye(2)))
    with pytest.raises(ValueError, match="disagree"):
        hb.obb.volume(
            OBBs(np.zeros((2, 3)), np.ones((3, 3)), np.eye(3)[None].repeat(2, 0))
        )
    with pytest.raises(TypeError, match="OBBs"):
        hb.obb.volume(np.zeros((2, 3)))
    with pytest.raises(TypeError, match="real numbers"):
        hb.obb.volume(OBBs(np.zeros(3, complex), np.ones(3), np.eye(3)))
    with pytest.raises(ValueError, match="cannot broadcast"):
        hb.obb.overlap(
            OBBs(*(np.repeat(x[None], 2, 0) for x in box)),
            OBBs(*(np.repeat(x[None], 3, 0) for x in box)),
        )
    with pytest.raises(ValueError, match="method"):
        hb.obb.fit(np.zeros((4, 3)), method="best")
    with pytest.raises(ValueError, match="points"):
        hb.obb.fit(np.zeros((4, 2)))
    with pytest.raises(ValueError, match=r"points\[0\]"):
        hb.obb.fit(np.array([[0, 0, np.inf]]))
    with pytest.raises(ValueError, match="triangles"):
        hb.obb.fit_triangles(np.zeros((4, 3)))
    with pytest.raises(ValueError, match=r"triangles\[1\]"):
        hb.obb.fit_triangles(np.array([np.zeros((3, 3)), np.full((3, 3), np.nan)]))
    with pytest.raises(ValueError, match="points"):
        hb.obb.contains_points(box, np.zeros((2, 2)))
    with pytest.raises(ValueError, match="points"):
        hb.obb.closest_points(box, [np.nan, 0, 0])


def test_kernel_predicates_take_raw_arrays_and_named_tuples():
    """sat_overlap and obb_overlap are the per-pair entry points for other kernels."""
    from numba import njit

    @njit
    def both(a, i, b, j):
        raw = kernels.sat_overlap(
            a.center[i], a.rot[i], a.half[i], b.center[j], b.rot[j], b.half[j]
        )
        return raw, kernels.obb_overlap(a, i, b, j)

    a, b = random_pairs(np.random.default_rng(29), 50)
    expect = hb.obb.overlap(a, b)
    for i in range(50):
        assert both(a, i, b, i) == (expect[i], expect[i])
