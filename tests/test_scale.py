"""Scale: a problem and the same problem scaled by a power of two have the same answer
(sweeps and sphere casts, whose squares would overflow near 2**600 or vanish near
2**-540 without the rescaling of hitbox._validate.pow2_factor; mesh pairs on every
node kind, whose sphere trees fit and compare radii at a safe scale)."""

import math

import numpy as np
import pytest

import hitbox as hb
from hitbox import _validate as v
from hitbox import convex as cx
from hitbox import shapes
from hitbox._torus import torus_mesh
from hitbox.mesh import TriangleMesh
from hitbox.pipeline import Scene

EXPONENTS = [-1000, -540, -300, 0, 300, 511, 600, 1000]


def _sphere_problem(seed, n=300):
    rng = np.random.default_rng(seed)
    ca = rng.uniform(-4, 4, (n, 3))
    cb = rng.uniform(-4, 4, (n, 3))
    ra = rng.uniform(0.1, 1.0, n)
    rb = rng.uniform(0.1, 1.0, n)
    disp = rng.uniform(-6, 6, (n, 3))
    return ca, ra, cb, rb, disp


@pytest.mark.parametrize("k", EXPONENTS)
def test_sphere_sweeps_are_scale_invariant(k):
    ca, ra, cb, rb, disp = _sphere_problem(1)
    base = hb.sweep.sphere_sphere((ca, ra), (cb, rb), disp)
    s = np.ldexp(1.0, k)
    got = hb.sweep.sphere_sphere((ca * s, ra * s), (cb * s, rb * s), disp * s)
    assert 0 < base.hit.sum() < len(ca)
    np.testing.assert_array_equal(got.hit, base.hit)
    np.testing.assert_array_equal(got.t, base.t)
    np.testing.assert_array_equal(got.normal, base.normal)


@pytest.mark.parametrize("k", EXPONENTS)
def test_sphere_box_sweeps_are_scale_invariant(k):
    ca, ra, cb, rb, disp = _sphere_problem(2)
    boxes = np.stack([cb - rb[:, None], cb + 2 * rb[:, None]], axis=1)
    base = hb.sweep.sphere_aabb((ca, ra), boxes, disp)
    s = np.ldexp(1.0, k)
    got = hb.sweep.sphere_aabb((ca * s, ra * s), boxes * s, disp * s)
    assert 0 < base.hit.sum() < len(ca)
    np.testing.assert_array_equal(got.hit, base.hit)
    np.testing.assert_array_equal(got.t, base.t)
    np.testing.assert_array_equal(got.normal, base.normal)


@pytest.mark.parametrize("k", EXPONENTS)
@pytest.mark.parametrize("pairing", ["elementwise", "all"])
def test_sphere_casts_are_scale_invariant(k, pairing):
    ca, ra, cb, _, disp = _sphere_problem(3, 120)
    base = hb.ray.cast_sphere((cb, ra), ca, disp, pairing=pairing)
    s = np.ldexp(1.0, k)
    got = hb.ray.cast_sphere((cb * s, ra * s), ca * s, disp * s, pairing=pairing)
    n_hits = base.hit.sum() if pairing == "elementwise" else base.pairs.shape[1]
    n_all = len(ca) if pairing == "elementwise" else len(ca) * len(cb)
    assert 0 < n_hits < n_all
    for name in base._fields:
        np.testing.assert_array_equal(getattr(got, name), getattr(base, name))


def test_pow2_factor_leaves_ordinary_scales_alone():
    assert v.pow2_factor(np.array([1e-100, 1e100])) == 1.0
    assert v.pow2_factor(np.array([np.inf, -np.inf, 0.0])) == 1.0
    g = v.pow2_factor(np.array([3.0 * 2.0**600]), np.array([-1.0]))
    assert g == 2.0**-602 and 0.5 <= 3.0 * 2.0**600 * g < 1.0
    assert v.pow2_factor(np.array([2.0**-700])) == 2.0**699


@pytest.mark.parametrize("seed", range(40))
def test_pow2_factor_reads_the_largest_finite_magnitude(seed):
    """Against the largest finite |x| taken plainly: NaN and infinities (anywhere,
    at either sign) are skipped, whichever array holds them and in whatever order."""
    rng = np.random.default_rng(seed)
    arrays = []
    for _ in range(rng.integers(1, 4)):
        a = rng.normal(size=rng.integers(0, 6)) * 2.0 ** float(rng.choice([-900, 0, 700]))
        for bad in rng.choice([np.nan, np.inf, -np.inf], size=rng.integers(0, 3)):
            if a.size:
                a[rng.integers(0, a.size)] = bad
        arrays.append(a)
    values = np.abs(np.concatenate(arrays))
    big = float(values[np.isfinite(values)].max(initial=0.0))
    assert v.pow2_factor(*arrays) == v.pow2_for(big)


@pytest.mark.parametrize("node", ["obb", "sphere", "aabb", "kdop18"])
def test_mesh_pairs_are_scale_invariant(node):
    verts, faces = torus_mesh(120, 1.0, 0.3)
    pose = np.eye(4)
    pose[:3, :3] = np.array([[0.0, -1, 0], [1, 0, 0], [0, 0, 1]])  # exact quarter turn
    pose[:3, 3] = [0.5, 0.25, 0.0]
    base = TriangleMesh(verts, faces, node=node)
    want = base.intersect(base, pose, mode="all")
    assert want.shape[1] > 0
    for e in (-600, -300, 300, 600, 1000):
        s = 2.0**e
        mesh = TriangleMesh(verts * s, faces, node=node)
        moved = pose.copy()
        moved[:3, 3] *= s
        np.testing.assert_array_equal(mesh.intersect(mesh, moved, mode="all"), want)
        assert mesh.intersect(mesh, moved)
        far = moved.copy()
        far[0, 3] += 5 * s
        assert not mesh.intersect(mesh, far)


@pytest.mark.parametrize("e", [-600, -270, 260, 400, 1000])
def test_contact_geometry_is_scale_invariant(e):
    """contacts, contacts_many and triangle.intersection_segments scaled by 2**e give
    the same segments and depths scaled by 2**e and the same normals (from 2**+-260
    the normals read NaN and the depths 0; from 2**350 the segments collapsed)."""
    verts, faces = torus_mesh(120, 1.0, 0.3)
    pose = np.eye(4)
    pose[:3, :3] = np.array([[0.0, -1, 0], [1, 0, 0], [0, 0, 1]])
    pose[:3, 3] = [0.5, 0.25, 0.0]
    base = TriangleMesh(verts, faces)
    want = base.contacts(base, pose)
    assert want.faces.shape[1] > 0 and np.isfinite(want.normals).all()
    s = 2.0**e
    mesh = TriangleMesh(verts * s, faces)
    moved = pose.copy()
    moved[:3, 3] *= s
    for got in (mesh.contacts(mesh, moved), mesh.contacts_many(mesh, moved[None])):
        np.testing.assert_array_equal(got.segments, want.segments * s)
        np.testing.assert_array_equal(got.normals, want.normals)
        np.testing.assert_array_equal(got.depths, want.depths * s)
    a = np.array([[-1.0, -1, 0], [1, -1, 0], [0, 1, 0]])
    b = np.array([[0.0, 0, -1], [0, 0, 1], [0, 2, 1]])
    one = hb.triangle.intersection_segments(a, b)
    mixed = hb.triangle.intersection_segments(np.stack([a, a * s]), np.stack([b, b * s]))
    np.testing.assert_array_equal(mixed.p, [one.p, one.p * s])
    np.testing.assert_array_equal(mixed.q, [one.q, one.q * s])


@pytest.mark.parametrize("e", [-600, -300, 300, 600, 1000])
def test_scene_contact_times_are_scale_invariant(e):
    """Continuous mode: a spinning ball and box closing on each other reach contact at
    the same time in the step whatever the unit (a ZeroDivisionError at 1e200 before)."""
    from hitbox.sphere import Spheres

    def contact(s):
        scene = Scene()
        scene.add(Spheres(np.zeros((1, 3)), np.array([1.0 * s])),
                  velocity=[8.0 * s, 0, 0], angular_velocity=[0, 0, 1.0])  # fmt: skip
        scene.add(np.array([[2.0, -0.5, -0.5], [3.0, 0.5, 0.5]]) * s,
                  velocity=[-1.0 * s, 0, 0], angular_velocity=[0.3, 0, 0])  # fmt: skip
        result = scene.step(0.25, continuous=True)
        return result.pairs.tolist(), result.toi.tolist()

    want = contact(1.0)
    assert want[0] == [[0], [1]] and 0.0 < want[1][0] < 0.25
    got = contact(2.0**e)
    assert got[0] == want[0]
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12)


@pytest.mark.parametrize("node", ["obb", "aabb", "sphere"])
def test_raycast_is_scale_invariant(node):
    verts, faces = torus_mesh(300, 1.0, 0.3)
    rng = np.random.default_rng(5)
    origins = rng.uniform(-2, 2, (300, 3))
    dirs = rng.normal(size=(300, 3))
    base = TriangleMesh(verts, faces, node=node)
    want, want_all = base.raycast(origins, dirs), base.raycast(origins, dirs, mode="all")
    assert want.hit.any() and not want.hit.all()
    for e in (-1000, -600, 600, 1000):
        s = 2.0**e
        mesh = TriangleMesh(verts * s, faces, node=node)
        got = mesh.raycast(origins * s, dirs)
        np.testing.assert_array_equal(got.face, want.face)
        np.testing.assert_allclose(got.t / s, want.t, rtol=1e-12)
        got = mesh.raycast(origins * s, dirs * s, t_max=1.5)  # directions scaled too
        np.testing.assert_array_equal(got.face, np.where(want.t <= 1.5, want.face, -1))
        every = mesh.raycast(origins * s, dirs, mode="all")
        np.testing.assert_array_equal(every.face, want_all.face)
        np.testing.assert_allclose(every.t / s, want_all.t, rtol=1e-12)


@pytest.mark.parametrize("e", [-1000, -600, -300, 300, 600, 1000])
def test_point_queries_and_distance_are_scale_invariant(e):
    """Closest points, contains and mesh distance multiply squared lengths: at any scale
    they answer as at scale 1 (the points and distances scaled, the faces the same),
    and so do winding numbers and the brute-force twins of closest points and distance."""
    verts, faces = torus_mesh(300, 1.0, 0.3)
    pts = np.random.default_rng(6).uniform(-1.5, 1.5, (300, 3))
    pose = np.eye(4)
    pose[:3, 3] = [2.9, 0.3, 0.1]
    base = TriangleMesh(verts, faces)
    want_c, want_in = base.closest_point(pts), base.contains(pts)
    want_d = base.distance(base, pose)
    s = 2.0**e
    mesh = TriangleMesh(verts * s, faces)
    moved = pose.copy()
    moved[:3, 3] *= s
    got = mesh.closest_point(pts * s)
    np.testing.assert_array_equal(got.face, want_c.face)
    np.testing.assert_array_equal(got.distance / s, want_c.distance)
    # exact but where a coordinate falls below the normal range (2**-1022) at the scale
    np.testing.assert_allclose(got.point / s, want_c.point, rtol=0, atol=2.0**-1070 / s)
    np.testing.assert_array_equal(mesh.contains(pts * s), want_in)
    # a sum of solid angles: the same to rounding (the scaled twin's tree may differ)
    wind = mesh.winding_number(pts * s)
    np.testing.assert_allclose(wind, base.winding_number(pts), rtol=0, atol=1e-12)
    got_d = mesh.distance(mesh, moved)
    assert got_d.distance / s == want_d.distance > 0
    assert np.linalg.norm((got_d.point_a - got_d.point_b) / s) == pytest.approx(
        want_d.distance
    )
    many = mesh.distance_many(mesh, np.stack([moved, np.eye(4)]))
    np.testing.assert_array_equal(many.distance / s, [want_d.distance, 0.0])
    brute, want_brute = mesh.distance_brute(mesh, moved), base.distance_brute(base, pose)
    assert brute[0] / s == want_brute[0] == want_d.distance
    assert brute[1:] == want_brute[1:]
    # enough points for the wide walk's disks; the brute-force twin rescales too
    lots = np.random.default_rng(7).uniform(-3.0, 3.0, (4500, 3))
    want = base.closest_point(lots)
    for got in (mesh.closest_point(lots * s), mesh.closest_point_brute(lots * s)):
        np.testing.assert_array_equal(got.face, want.face)
        np.testing.assert_array_equal(got.distance / s, want.distance)


def _convex_sets(s):
    """Hulls, boxes, capsules, cylinders and spheres, touching, overlapping and apart
    (two of each kind a pair), every length times s."""
    rng = np.random.default_rng(8)
    pose = np.eye(4)
    parts_a, parts_b = [], []
    for shift in (0.3, 1.0, 2.5):  # overlapping, near, apart
        pose[:3, 3] = [shift * s, 0.2 * s, 0.0]
        pts = rng.normal(size=(2, 16, 3)) * s
        parts_a += [cx.hull(pts[0]), cx.box([0, 0, 0], [0.5 * s] * 3)]
        parts_b += [
            cx.hull(pts[1], pose=pose),
            cx.capsule([0, 0, -s], [0, 0, s], 0.2 * s, pose=pose),
        ]
        parts_a += [cx.cylinder([0, 0, -0.5 * s], [0, 0, 0.5 * s], 0.4 * s)]
        parts_b += [cx.sphere([shift * s, 0.1 * s, 0.0], 0.5 * s)]
    return cx.concatenate(parts_a), cx.concatenate(parts_b)


@pytest.mark.parametrize("e", [-1000, -600, 600, 1000])
def test_convex_pairs_and_mesh_shapes_are_scale_invariant(e):
    """Convex pair queries and a mesh against shapes multiply coordinates: at any scale
    they answer as at scale 1 (lengths scaled, normals and faces the same)."""
    s = 2.0**e
    a1, b1 = _convex_sets(1.0)
    a, b = _convex_sets(s)
    want, got = cx.distance(a1, b1), cx.distance(a, b)
    np.testing.assert_allclose(got.distance / s, want.distance, rtol=1e-12, atol=0)
    # closest points need not be unique (parallel faces, overlaps): they realise it
    gap = np.linalg.norm((got.point_b - got.point_a) / s, axis=1)
    np.testing.assert_allclose(gap, want.distance, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(cx.intersects(a, b), cx.intersects(a1, b1))
    pen, pen1 = cx.penetration(a, b), cx.penetration(a1, b1)
    np.testing.assert_allclose(pen.depth / s, pen1.depth, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(pen.normal, pen1.normal, rtol=0, atol=1e-12)
    # pairs of both scales in one call: each solved at its own
    mixed = cx.distance(cx.concatenate([a1, a]), cx.concatenate([b1, b]))
    np.testing.assert_array_equal(mixed.distance[: len(a1.kind)], want.distance)
    np.testing.assert_array_equal(mixed.distance[len(a1.kind) :], got.distance)
    man, man1 = cx.manifold(a, b), cx.manifold(a1, b1)
    np.testing.assert_array_equal(man.count, man1.count)
    np.testing.assert_allclose(man.depth / s, man1.depth, rtol=0, atol=1e-12)
    verts, faces = torus_mesh(300)
    caps = cx.capsule([[0, 0, 0.2], [0, 0, 3.0]], [[1.2, 0, 0.2], [1, 0, 3.0]], 0.05)
    base = TriangleMesh(verts, faces)
    mesh = TriangleMesh(verts * s, faces)
    for mode in ("any", "all"):
        want_faces = base.intersect_shapes(caps, mode=mode)
        assert want_faces.any() if mode == "any" else want_faces.shape[1] > 0
        for fn in (mesh.intersect_shapes, mesh.intersect_shapes_brute):
            np.testing.assert_array_equal(fn(cx.scaled(caps, s), mode=mode), want_faces)


def test_far_from_the_origin_the_moved_vertices_are_rounded_once_then_exact():
    """Two unit cubes at 1e12: a gap of 2**-20 is below the rounding of coordinates
    there (about 1.2e-4), so once B's vertices are moved and rounded the cubes touch,
    exactly as testing every triangle pair of the moved vertices says; a gap of 0.25
    stays a gap. At 1e15 the same holds with the rounding there."""
    cube = shapes.box((1.0, 1.0, 1.0))
    for offset in (1e12, 1e15):
        a = TriangleMesh(cube.vertices + [offset, 0, 0], cube.faces)
        for gap, apart in ((2.0**-20, False), (0.25, True)):
            pose = np.eye(4)
            pose[0, 3] = offset + 1.0 + gap
            brute = a.intersect_brute(cube, pose)
            assert a.intersect(cube, pose) == (brute.shape[1] > 0) == (not apart)
            np.testing.assert_array_equal(a.intersect(cube, pose, mode="all"), brute)


@pytest.mark.parametrize("volume", ["aabb", "kdop14", "kdop18", "kdop26"])
def test_scene_volumes_far_along_a_diagonal_hold_the_moved_meshes(volume):
    """A Scene's per-object volumes are refitted in the model frame; far from the origin
    along a diagonal, where a k-DOP axis sums coordinates that cancel, two touching
    cubes (face to face, and turned) still pass the volume test: the Scene says what
    testing every triangle pair of the moved meshes says."""
    cube = shapes.box((1.0, 1.0, 1.0))
    turn = np.linalg.qr(np.random.default_rng(7).normal(size=(3, 3)))[0]
    turn *= np.sign(np.linalg.det(turn))
    for offset in (1e6, 1e12):
        for rot in (np.eye(3), turn):
            pa = np.eye(4)
            pa[:3, :3] = rot
            pa[:3, 3] = (offset, -offset, 0.5 * offset)
            pb = pa.copy()
            pb[:3, 3] = pa[:3, 3] + rot[:, 0]
            scene = Scene()
            scene.add(cube, pa, volume=volume)
            scene.add(cube, pb, volume=volume)
            got = scene.query(mode="all")
            want = scene.query_brute(mode="all")
            np.testing.assert_array_equal(got.pairs, want.pairs)
            np.testing.assert_array_equal(got.triangles, want.triangles)
            if rot is not turn:
                assert got.pairs.shape[1] == 1


@pytest.mark.parametrize("big", [5e-324, 2.0**-1060, 2.0**-600, 1.0, 2.0**600, 1.7e308])
def test_power_of_two_scales_are_finite_down_to_the_least_subnormal(big):
    """pow2_for brings any finite magnitude into the safe range with a representable
    power of two (a subnormal one needs 2**1074, past float64: 2**1023 does)."""
    from hitbox import _validate as val

    g = val.pow2_for(big, val.SQUARES_SAFE_EXP)
    assert math.isfinite(g) and g > 0.0 and math.frexp(g)[0] == 0.5
    scaled = big * g
    assert 2.0**-val.SQUARES_SAFE_EXP <= scaled <= 2.0**val.SQUARES_SAFE_EXP


@pytest.mark.parametrize("e", [-600, -300, 300, 600])
def test_scene_fronts_and_their_clearances_are_scale_invariant(e):
    """Two linked tori slid until they touch, in small steps, so that the fronts of the
    steps apart carry node pairs over on their clearances: every step touches exactly
    when it does at unit scale and when the brute-force twin says so (at 2^-600 the
    squares of the motion and of the mesh's reach would vanish, if taken plainly; at
    2^600 the cubes of the volume choice overflowed)."""
    from hitbox._torus import torus_mesh

    def touching(s):
        tv, tf = torus_mesh(300, r_major=1.0, r_minor=0.3)
        mesh = TriangleMesh(tv * s, tf)
        scene = Scene(threshold=0.0)
        scene.add(mesh, static=True)
        pose = np.eye(4)
        pose[:3, :3] = [[1, 0, 0], [0, 0, -1], [0, 1, 0]]
        pose[:3, 3] = (1.0 * s, 0.0, 0.0)  # B's tube through A's hole, 0.4 clear
        scene.add(mesh, pose, velocity=(0.5 * s, 0.0, 0.0),
                  angular_velocity=(0.0, 0.0, 0.3))  # fmt: skip
        out = []
        for _ in range(40):
            hit = scene.step(0.03).pairs.shape[1] > 0
            assert hit == (scene.query_brute().pairs.shape[1] > 0)
            out.append(hit)
        return out

    want = touching(1.0)
    assert 0 < sum(want) < len(want)
    assert touching(2.0**e) == want


@pytest.mark.parametrize("rotating", [False, True])
def test_volume_choice_is_scale_invariant(rotating):
    """mixed.choose_report at every power-of-two scale: the same kind, ratios and
    scores, and each volume the unit-scale one scaled by the cube (inf or 0 where
    float64 ends; an OverflowError at 2^600 before)."""
    from hitbox import mixed
    from hitbox._torus import torus_mesh

    tv, _ = torus_mesh(300, r_major=1.0, r_minor=0.3)
    want = mixed.choose_report(tv, rotating=rotating)
    for e in EXPONENTS:
        got = mixed.choose_report(tv * 2.0**e, rotating=rotating)
        assert got["kind"] == want["kind"]
        assert got["ratio"] == want["ratio"] and got["score"] == want["score"]
        with np.errstate(over="ignore", under="ignore"):
            scaled = {n: float(np.ldexp(x, 3 * e)) for n, x in want["volume"].items()}
        assert got["volume"] == scaled


@pytest.mark.parametrize("k", [10, 100, 150, 154, 158, 161, 162, 200, 300, 320])
def test_tiny_gaps_between_meshes_read_as_documented(k):
    # two unit triangles stacked 10**-k apart along z, where every coordinate is exact:
    # relative accuracy while the gap's square is a normal float; below 2.2e-162 the
    # squares vanish and the gap reads 2.2e-162, never 0 (hitbox.distance's docstring)
    tri = TriangleMesh([[0.0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]])
    gap = 10.0**-k
    pose = np.eye(4)
    pose[2, 3] = gap
    assert not tri.intersect(tri, pose)
    got = [
        tri.distance(tri, pose).distance,
        tri.distance_many(tri, pose[None]).distance[0],
    ]
    got.append(hb.distance.distance_brute(tri, tri, pose)[0])
    floor = math.sqrt(5e-324)
    for d in got:
        if gap >= 1.5e-154:
            assert abs(d - gap) <= 1e-12 * gap
        elif gap < floor:
            assert d == floor
        else:  # a subnormal square: rounded to half the least subnormal at most
            assert abs(d - gap) <= 0.3 * gap


@pytest.mark.parametrize("k", [12, 16, 20, 100])
def test_a_point_just_above_a_face_reads_to_the_coordinates_accuracy(k):
    # the closest point is summed from the corners: its distance is right to a few ulps
    # of the coordinates, not relatively (TriangleMesh.closest_point's docstring)
    tri = TriangleMesh([[0.0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]])
    p = np.array([[0.2, 0.2, 10.0**-k], [0.3, 0.1, 10.0**-k]])
    for got in (tri.closest_point(p), tri.closest_point_brute(p)):
        assert np.all(got.face == 0)
        assert np.all(np.abs(got.distance - 10.0**-k) <= 4 * np.spacing(1.0))


# -- batches mixing magnitudes too far apart for one power of two ------------------------
# A far value (a sentinel at 1e300, say) among ordinary ones must not scale the others'
# problem down until their squares vanish: each group is solved at its own scale, and
# every answer equals the one its element gets alone.

FAR = [1e40, 1e200, -1e300]


def _alone_and_mixed(far):
    rng = np.random.default_rng(5)
    near = rng.uniform(-0.7, 0.7, (40, 3)) * [1.0, 1.5, 0.5]
    far_pts = np.array([[far, 0.0, 0.0], [0.3, far, -0.2]])
    mixed = np.concatenate([near[:20], far_pts, near[20:]])
    return near, far_pts, mixed


@pytest.mark.parametrize("far", FAR)
def test_point_queries_of_a_batch_with_far_points(far):
    box = hb.shapes.box((1.0, 2.0, 0.5))
    near, far_pts, mixed = _alone_and_mixed(far)
    for query in ("contains", "signed_distance", "winding_number"):
        got = getattr(box, query)(mixed)
        want = getattr(box, query)(near)
        np.testing.assert_array_equal(np.delete(got, [20, 21]), want)
        np.testing.assert_array_equal(got[[20, 21]], getattr(box, query)(far_pts))
    for query in ("closest_point", "closest_point_brute"):
        got, want = getattr(box, query)(mixed), getattr(box, query)(near)
        for name in got._fields:
            np.testing.assert_array_equal(
                np.delete(getattr(got, name), [20, 21], axis=0), getattr(want, name)
            )
    assert box.contains(mixed)[:20].any()  # the batch holds inside points


@pytest.mark.parametrize("far", FAR)
def test_distance_many_with_a_far_pose(far):
    a, b = hb.shapes.torus(300), hb.shapes.torus(300)
    poses = np.tile(np.eye(4), (4, 1, 1))
    poses[1, 0, 3], poses[2, 0, 3], poses[3, 1, 3] = 5.0, far, 2.9
    got = a.distance_many(b, poses)
    for k, pose in enumerate(poses):
        one = a.distance(b, pose)
        assert got.distance[k] == one.distance
        if k != 2:  # the far pose's points are its scale's rounding
            np.testing.assert_array_equal(got.point_a[k], one.point_a)
    assert got.distance[1] > 2.0 and got.distance[0] == 0.0


@pytest.mark.parametrize("far", FAR)
def test_sweeps_and_sphere_casts_of_a_batch_with_far_pairs(far):
    centre = np.array([[0.0, 0, 0], [far, 0, 0], [0, 1, 0]])
    r = np.array([1.0, 1.0, 0.5])
    other = np.array([[3.0, 0.2, 0], [far, 5, 0], [0, 4, 0]])
    disp = np.array([[-2.0, 0, 0], [0, 1.0, 0], [0, -2.5, 0]])  # 0 and 2 meet
    boxes = np.stack([other - 0.5, other + 0.5], axis=1)
    cases = [
        lambda i: hb.sweep.sphere_sphere((other[i], r[i]), (centre[i], r[i]), disp[i]),
        lambda i: hb.sweep.sphere_aabb((other[i], r[i]), boxes[i], disp[i]),
        lambda i: hb.ray.cast_sphere(hb.Spheres(centre[i], r[i]), other[i], disp[i]),
    ]
    for case in cases:
        got, ones = case(slice(None)), [case(slice(k, k + 1)) for k in range(3)]
        for k in (0, 2):  # the far pair's entry point is its scale's rounding
            for name in got._fields:
                np.testing.assert_array_equal(
                    getattr(got, name)[k], getattr(ones[k], name)[0]
                )
        assert got.hit[0] and got.hit[2]
    every = hb.ray.cast_sphere(hb.Spheres(centre, r), other, disp, pairing="all")
    for k in (0, 2):
        one = hb.ray.cast_sphere(hb.Spheres(centre, r), other[k : k + 1], disp[k : k + 1],
                                 pairing="all")  # fmt: skip
        mine = every.pairs[1] == k
        np.testing.assert_array_equal(every.pairs[0, mine], one.pairs[0])
        np.testing.assert_array_equal(every.t_enter[mine], one.t_enter)
    order = np.lexsort((every.pairs[1], every.pairs[0]))
    np.testing.assert_array_equal(order, np.arange(every.pairs.shape[1]))


@pytest.mark.parametrize("far", FAR)
def test_volume_distances_of_a_batch_with_a_far_pair(far):
    from hitbox import kdop
    from hitbox import volume_distance as vd
    from hitbox.obb import OBBs

    pts = np.array([[3.0, 0, 0], [4, 1, 1], [3, 1, 0], [4, 0, 1.0]])
    k = np.concatenate([kdop.fit(pts[None], 14), kdop.fit((pts + [far, 0, 0])[None], 14)])
    eye = np.stack([np.eye(3)] * 2)
    boxes = OBBs(np.zeros((2, 3)), np.ones((2, 3)), eye)
    got = vd.distance(boxes, k)
    alone = vd.distance(OBBs(np.zeros((1, 3)), np.ones((1, 3)), eye[:1]), k[:1])
    assert got.distance[0] == alone.distance[0] == 2.0
    np.testing.assert_array_equal(got.point_a[0], alone.point_a[0])


@pytest.mark.parametrize("far", FAR)
def test_a_mesh_against_shapes_with_a_far_one(far):
    torus = hb.shapes.torus(500)
    near = [cx.sphere([1.35, 0, 0], 0.1), cx.capsule([0, 0, -1], [1.0, 0, 1], 0.3),
            cx.box([0, 0, 3], [0.2, 0.2, 0.2])]  # fmt: skip
    mixed = cx.concatenate([near[0], cx.sphere([far, 0, 0], 1.0), *near[1:]])
    alone = cx.concatenate(near)
    assert torus.intersect_shapes(mixed).tolist() == [True, False, True, False]
    for test in (torus.intersect_shapes, torus.intersect_shapes_brute):
        np.testing.assert_array_equal(test(mixed)[[0, 2, 3]], test(alone))
        got, want = test(mixed, mode="all"), test(alone, mode="all")
        np.testing.assert_array_equal(got[1], want[1])
        np.testing.assert_array_equal(got[0], np.array([0, 2, 3])[want[0]])


@pytest.mark.parametrize("far", FAR)
def test_contact_manifolds_of_a_batch_with_a_far_pair(far):
    near_a = [cx.box([0, 0, 0], [1, 1, 1]), cx.capsule([0, 0, 0], [0, 0, 2], 0.5)]
    near_b = [cx.box([1.9, 0.2, 0], [1, 1, 1]), cx.sphere([0.9, 0, 1], 0.5)]
    a = cx.concatenate([near_a[0], cx.box([far, 0, 0], [1, 1, 1]), near_a[1]])
    b = cx.concatenate([near_b[0], cx.box([far, 0, 1.9], [1, 1, 1]), near_b[1]])
    got = cx.manifold(a, b)
    want = cx.manifold(cx.concatenate(near_a), cx.concatenate(near_b))
    assert want.count.tolist() == [4, 1]
    for name in got._fields:
        np.testing.assert_array_equal(getattr(got, name)[[0, 2]], getattr(want, name))


@pytest.mark.parametrize("far", FAR)
@pytest.mark.parametrize("mode", ["closest", "any", "all"])
def test_raycasts_of_a_batch_with_a_far_ray(far, mode):
    torus = hb.shapes.torus(500)
    rng = np.random.default_rng(8)
    origins, directions = rng.uniform(-2, 2, (60, 3)), rng.normal(size=(60, 3))
    o = np.concatenate([origins[:30], [[far, 0.0, 0.1]], origins[30:]])
    d = np.concatenate([directions[:30], [[-1.0, 0.0, 0.0]], directions[30:]])
    d[10] *= 1e-200  # and a ray whose direction is tiny (its own power of two)
    directions[10] *= 1e-200
    got, want = (
        torus.raycast(o, d, mode=mode),
        torus.raycast(origins, directions, mode=mode),
    )
    if mode == "all":
        near = got.ray != 30
        np.testing.assert_array_equal(got.ray[near] - (got.ray[near] > 30), want.ray)
        for name in ("face", "t", "u", "v"):
            np.testing.assert_array_equal(getattr(got, name)[near], getattr(want, name))
        return
    assert want.hit.sum() > 5
    for name in got._fields:
        np.testing.assert_array_equal(
            np.delete(getattr(got, name), 30), getattr(want, name)
        )


@pytest.mark.parametrize("e", [-990, -300, 300, 1000])
def test_sphere_casts_with_huge_or_tiny_directions(e):
    # the kernel scales a direction by its own largest component: the positions' power
    # of two must not take the direction with it (a direction of 2**1000 and an origin
    # of 5 made the origin vanish, and t read 0)
    s = 2.0**e
    ball = hb.Spheres(np.zeros((1, 3)), np.ones(1))
    got = hb.ray.cast_sphere(
        ball, np.array([[-5.0, 0.0, 0.0]]), np.array([[s, 0.0, 0.0]])
    )
    assert got.hit[0]
    assert got.t_enter[0] * s == 4.0 and got.t_exit[0] * s == 6.0
    scene = Scene()
    scene.add(hb.Spheres(np.zeros((1, 3)), np.ones(1)))
    hit = scene.raycast(np.array([[-5.0, 0.0, 0.0]]), np.array([[s, 0.0, 0.0]]))
    assert hit.object[0] == 0 and hit.t[0] * s == 4.0


def test_scene_nearest_to_far_points_is_finite():
    scene = Scene()
    scene.add(hb.Spheres(np.zeros((1, 3)), np.ones(1)))
    scene.add(np.array([[3.0, 0, 0], [4, 1, 1]]))
    got = scene.nearest(np.array([[1e300, 0, 0], [0, 0, 2.0], [-1e300, 0, 0]]))
    np.testing.assert_array_equal(got.distance, [1e300, 1.0, 1e300])
    np.testing.assert_array_equal(got.point[[0, 2]], [[1.0, 0, 0], [-1.0, 0, 0]])
