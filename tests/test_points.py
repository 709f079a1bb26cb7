"""Point queries on a triangle mesh: closest point, signed distance, contains.

The BVH walks are checked against their brute-force twins (every point against every
face) and against independent oracles: trimesh's closest points, distances to sampled
surface points, and the generalised winding number (``_contains_slow``).
"""

import numba
import numpy as np
import pytest
import trimesh
from hypothesis import given, settings
from hypothesis import strategies as st

from hitbox._kernels import closest as _closest
from hitbox._kernels import inside as _inside
from hitbox._kernels.triangle_closest import closest_point_on
from hitbox._torus import torus_mesh
from hitbox.mesh import ClosestPoints, TriangleMesh
from tests import oracles_triangle as ot


@pytest.fixture(scope="module")
def torus():
    return TriangleMesh(*torus_mesh(2000))


def _primitives():
    yield "box", trimesh.creation.box(extents=(2.0, 3.0, 1.0))
    yield "icosphere", trimesh.creation.icosphere(subdivisions=2, radius=1.5)
    yield "cylinder", trimesh.creation.cylinder(radius=0.7, height=2.0, sections=24)


PRIMITIVES = dict(_primitives())


def _check_on_face(mesh, pts, res):
    """Each answer lies on its face, realises its distance, and nothing is closer."""
    tris = mesh.triangles[res.face]
    w = res.barycentric
    assert (w >= 0).all() and (w <= 1).all()
    np.testing.assert_allclose(w.sum(axis=1), 1.0, atol=1e-12)
    scale = max(1.0, np.abs(mesh.vertices).max())
    on = np.einsum("pk,pkd->pd", w, tris)
    np.testing.assert_allclose(res.point, on, atol=1e-12 * scale, rtol=0)
    np.testing.assert_allclose(
        np.linalg.norm(pts - res.point, axis=1), res.distance, rtol=1e-12, atol=1e-300
    )
    # sampled surface points (vertices, centres, edge midpoints) are never closer
    samples = np.concatenate(
        [mesh.vertices, mesh.triangles.mean(axis=1), mesh.triangles[:, :2].mean(axis=1)]
    )
    nearest = np.linalg.norm(pts[:, None] - samples[None], axis=2).min(axis=1)
    assert (res.distance <= nearest * (1 + 1e-12) + 1e-15).all()


def _check_twin(mesh, pts):
    res = mesh.closest_point(pts)
    twin = mesh.closest_point_brute(pts)
    rel = np.abs(res.distance - twin.distance) <= 1e-12 * twin.distance
    assert ((res.distance == twin.distance) | rel).all()
    np.testing.assert_array_equal(res.face, twin.face)  # ties: lowest face on both
    _check_on_face(mesh, pts, res)
    return res


# -- closest point -----------------------------------------------------------------------

coord = st.one_of(
    st.integers(-4, 4).map(lambda x: x / 2),  # grid: coincident and collinear vertices
    st.floats(-3, 3, allow_nan=False, allow_infinity=False),
)


@st.composite
def soups(draw):
    n = draw(st.integers(1, 12))
    verts = np.array(draw(st.lists(coord, min_size=9 * n, max_size=9 * n))).reshape(-1, 3)
    return TriangleMesh(verts, np.arange(3 * n).reshape(n, 3), node="aabb", leaf_size=2)


@given(
    soups(),
    st.lists(st.tuples(coord, coord, coord), min_size=0, max_size=20),
)
def test_closest_matches_twin_on_soups(mesh, pts):
    pts = np.array(pts, float).reshape(-1, 3)
    _check_twin(mesh, pts)


def test_closest_torus_uniform_sorted_and_near(torus):
    rng = np.random.default_rng(1)
    uniform = rng.uniform(-1.5, 1.5, (1500, 3))
    _check_twin(torus, uniform)
    # near the surface and sorted along it: the warm start from the previous answer
    tris = torus.triangles
    f = np.sort(rng.integers(0, len(tris), 1500))
    w = rng.dirichlet(np.ones(3), len(f))
    base = np.einsum("pk,pkd->pd", w, tris[f])
    normal = np.cross(tris[f, 1] - tris[f, 0], tris[f, 2] - tris[f, 0])
    normal /= np.linalg.norm(normal, axis=1)[:, None]
    near = base + normal * rng.normal(0, 1e-3, (len(f), 1))
    res = _check_twin(torus, near)
    assert res.distance.max() < 0.01


def test_closest_parallel_matches_twin(torus):
    rng = np.random.default_rng(2)
    pts = rng.uniform(-1.5, 1.5, (5000, 3))  # above the parallel threshold
    _check_twin(torus, pts)


@settings(max_examples=15, deadline=None)
@given(soups(), st.integers(0, 2**32 - 1), st.sampled_from([1, 2]))
def test_closest_wide_walk_matches_twin(mesh, seed, threads):
    """From WIDE_MIN points on, the walk goes over a four-wide view of the tree (serial
    on one thread, parallel on two): exactly the answers of every face, on the faces'
    vertices, edge midpoints and centres, grid points (ties) and random points."""
    rng = np.random.default_rng(seed)
    tris = mesh.triangles
    lo, hi = mesh.vertices.min(axis=0) - 1, mesh.vertices.max(axis=0) + 1
    pts = np.concatenate([
        mesh.vertices, tris.mean(axis=1), tris[:, :2].mean(axis=1),
        rng.integers(-8, 9, (1500, 3)) / 2, rng.uniform(lo, hi, (_closest.WIDE_MIN, 3)),
    ])  # fmt: skip
    assert_twin_on_threads(mesh, pts, threads)


def assert_twin_on_threads(mesh, pts, threads):
    """The mesh's closest points on ``threads`` threads equal every face's, bit for bit."""
    before = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        res = mesh.closest_point(pts)
    finally:
        numba.set_num_threads(before)
    twin = mesh.closest_point_brute(pts)
    for field in ("face", "distance", "point", "barycentric"):
        np.testing.assert_array_equal(getattr(res, field), getattr(twin, field))


@pytest.mark.parametrize("name", sorted(PRIMITIVES))
def test_closest_on_the_tree_built_for_points_matches_the_twin(name, monkeypatch):
    """A mesh asked about POINT_TREE_AFTER times its face count in points walks an
    AABB tree built for them: the same answers as its own OBB tree and as every face,
    bit for bit, ties (vertices, edge midpoints, grid points) included."""
    from hitbox import _mesh_probe

    prim = PRIMITIVES[name]
    mesh = TriangleMesh(prim.vertices, prim.faces)
    rng = np.random.default_rng(len(name))
    tris = mesh.triangles
    pts = np.concatenate([
        mesh.vertices, tris.mean(axis=1), tris[:, :2].mean(axis=1),
        rng.integers(-6, 7, (500, 3)) / 2, rng.uniform(-3, 3, (_closest.WIDE_MIN, 3)),
    ])  # fmt: skip
    monkeypatch.setattr(_mesh_probe, "POINT_TREE_AFTER", 10**9)
    own = mesh.closest_point(pts)
    assert "aabb" not in mesh._kinds
    monkeypatch.setattr(_mesh_probe, "POINT_TREE_AFTER", 0)
    switched = mesh.closest_point(pts)
    assert mesh._kinds["aabb"].bvh.kind == "aabb"
    twin = mesh.closest_point_brute(pts)
    for got in (own, switched):
        for field in ("point", "distance", "face", "barycentric"):
            np.testing.assert_array_equal(getattr(got, field), getattr(twin, field))


def test_closest_on_zero_length_edges():
    """A face with two equal vertices is the segment it spans (no division by its
    zero-length edge)."""
    mesh = TriangleMesh(
        np.array([[0.0, 0, 0], [0, 0, 0], [1, 0, 0]]), np.array([[0, 1, 2]])
    )
    res = mesh.closest_point(np.array([[0.5, 1, 0], [-1, 0, 0], [2, 0, 1]]))
    np.testing.assert_allclose(res.distance, [1.0, 1.0, np.sqrt(2)])
    np.testing.assert_allclose(res.point, [[0.5, 0, 0], [0, 0, 0], [1, 0, 0]])


def _thin_case(rng):
    """(triangle, point): a needle, sliver or collinear triangle (its third vertex near
    a vertex, or near the line of an edge, off by 10^-17..10^-4) and a point near an
    edge's line, at 10^-12..1."""
    a, b = rng.normal(size=3), rng.normal(size=3)
    along = rng.choice([0.0, 1.0, rng.uniform(-2, 3)])
    c = a + along * (b - a) + rng.normal(size=3) * 10.0 ** rng.uniform(-17, -4)
    p = (
        a
        + rng.uniform(-0.5, 1.5) * (b - a)
        + rng.normal(size=3) * 10.0 ** rng.uniform(-12, 0)
    )
    return np.stack([a, b, c]), p


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_closest_on_thin_triangles_is_near_exact(seed):
    """Against the exact rational distance: on thin triangles (rounding decides
    Ericson's regions there) within 1e-8 of the coordinates' scale, the point answered
    a point of the triangle at the distance answered."""
    tri, p = _thin_case(np.random.default_rng(seed))
    d2, qx, qy, qz, wa, wb, wc = closest_point_on(*p, *tri.ravel())
    exact = float(ot.point_triangle_distance2(p, tri))
    scale = max(1.0, np.abs(tri).max(), np.abs(p).max())
    assert abs(np.sqrt(d2) - np.sqrt(exact)) <= 1e-8 * scale
    assert min(wa, wb, wc) >= 0.0 and abs(wa + wb + wc - 1.0) <= 1e-12
    on = wa * tri[0] + wb * tri[1] + wc * tri[2]
    np.testing.assert_allclose([qx, qy, qz], on, atol=1e-12 * scale)


def test_closest_matches_trimesh():
    tm = PRIMITIVES["icosphere"]
    mesh = TriangleMesh.from_trimesh(tm)
    pts = np.random.default_rng(3).normal(0, 1.5, (300, 3))
    res = mesh.closest_point(pts)
    tris = mesh.triangles  # trimesh's per-pair closest point, every pair
    pairs = trimesh.triangles.closest_point(
        np.tile(tris, (len(pts), 1, 1)), np.repeat(pts, len(tris), axis=0)
    )
    dist = np.linalg.norm(pairs - np.repeat(pts, len(tris), axis=0), axis=1)
    dist = dist.reshape(len(pts), len(tris)).min(axis=1)
    np.testing.assert_allclose(res.distance, dist, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", sorted(PRIMITIVES))
def test_closest_on_surface_points_is_zero(name):
    mesh = TriangleMesh.from_trimesh(PRIMITIVES[name])
    tris = mesh.triangles
    pts = np.concatenate(
        [mesh.vertices, tris.mean(axis=1), (tris[:, 0] + tris[:, 1]) / 2]
    )
    res = _check_twin(mesh, pts)
    assert (res.distance < 1e-15).all()
    sd = mesh.signed_distance(pts)  # centres may round off the plane, to either side
    np.testing.assert_array_equal(np.abs(sd), res.distance)
    assert (sd[: len(mesh.vertices)] == 0).all()


def test_closest_far_points_and_single(torus):
    pts = np.array([[1e6, 0, 0], [0, -1e6, 3e5], [0, 0, 1e8]])
    res = _check_twin(torus, pts)
    np.testing.assert_allclose(res.distance, np.linalg.norm(pts, axis=1), rtol=1e-5)
    one = torus.closest_point(pts[1])
    assert isinstance(one.distance, float) and isinstance(one.face, int)
    assert one.point.shape == (3,) and one.barycentric.shape == (3,)
    assert one.distance == res.distance[1] and one.face == res.face[1]


# -- contains and signed distance ----------------------------------------------------------


def _check_contains(mesh, pts):
    """The fast path equals the slow one away from the surface; within a hair of it
    (1e-12 of the mesh size, where the slow path's solid angles are not exact and a
    squared distance may underflow) either answer may stand: the documented rule.
    Points on the surface are checked on their own (vertices, edges, faces)."""
    got = mesh.contains(pts)
    gap = mesh.closest_point(pts).distance if len(pts) else np.zeros(0)
    size = np.ptp(mesh.vertices, axis=0).max()
    sure = gap > 1e-12 * size
    np.testing.assert_array_equal(got[sure], mesh._contains_slow(pts)[sure])
    return got


@pytest.mark.parametrize("name", sorted(PRIMITIVES))
def test_contains_primitives(name):
    mesh = TriangleMesh.from_trimesh(PRIMITIVES[name])
    rng = np.random.default_rng(4)
    lo, hi = mesh.vertices.min(axis=0), mesh.vertices.max(axis=0)
    pts = rng.uniform(lo - 0.3, hi + 0.3, (400, 3))
    grid = np.stack(np.meshgrid(*[np.linspace(-1.5, 1.5, 7)] * 3), -1).reshape(-1, 3)
    got = _check_contains(mesh, np.concatenate([pts, grid]))
    assert 0 < got.sum() < len(got)
    assert mesh._closed
    assert mesh.contains(mesh.vertices).all()  # on the surface: inside
    tris = mesh.triangles
    centres = np.concatenate([tris.mean(axis=1), (tris[:, 1] + tris[:, 2]) / 2])
    if name == "box":  # every centre lies exactly on its face's plane
        assert mesh.contains(centres).all()
    normal = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
    normal = np.tile(normal / np.linalg.norm(normal, axis=1)[:, None], (2, 1))
    assert mesh.contains(centres - 1e-9 * normal).all()
    assert not mesh.contains(centres + 1e-9 * normal).any()
    assert not mesh.contains(np.array([[50.0, 0, 0], [0, -1e9, 0]])).any()


def test_contains_torus_and_parallel(torus):
    rng = np.random.default_rng(5)
    pts = rng.uniform(-1.4, 1.4, (5000, 3))
    pts[:, 2] *= 0.3
    got = _check_contains(torus, pts)
    assert 0 < got.sum() < len(got)
    assert not torus.contains([0.0, 0.0, 0.0])  # the hole
    assert torus.contains([1.0, 0.0, 0.0]) is True


@given(
    st.integers(0, 2),
    st.floats(0.1, 10),
    st.lists(st.tuples(coord, coord, coord), min_size=1, max_size=30),
)
def test_contains_matches_winding(which, scale, pts):
    tm = PRIMITIVES[sorted(PRIMITIVES)[which]]
    mesh = TriangleMesh(tm.vertices * scale, tm.faces)
    _check_contains(mesh, np.array(pts) * scale)


def test_signed_distance_sign_and_size(torus):
    pts = np.random.default_rng(6).uniform(-1.4, 1.4, (600, 3))
    sd = torus.signed_distance(pts)
    inside = torus.contains(pts)
    assert (np.sign(sd) == np.where(inside, -1, 1)).all()
    np.testing.assert_array_equal(np.abs(sd), torus.closest_point(pts).distance)
    assert torus.signed_distance(torus.vertices[0]) == 0.0


def test_open_mesh_takes_the_winding_path():
    tm = trimesh.creation.box(extents=(2.0, 2.0, 2.0))
    mesh = TriangleMesh(tm.vertices, tm.faces[1:])
    pts = np.random.default_rng(7).uniform(-1.3, 1.3, (300, 3))
    _check_contains(mesh, pts)
    assert mesh._closed is False
    assert not _inside.is_closed(mesh.faces)
    assert _inside.is_closed(tm.faces)


def test_degenerate_faces():
    tm = trimesh.creation.box(extents=(2.0, 2.0, 2.0))
    verts, faces = np.asarray(tm.vertices), np.asarray(tm.faces)
    # split face 0 at the middle of its edge ab; a zero-area face (b, m, a) closes it
    a, b, c = faces[0]
    m = len(verts)
    verts = np.concatenate([verts, (verts[a] + verts[b])[None] / 2])
    faces = np.concatenate([[[a, m, c], [m, b, c], [b, m, a]], faces[1:]])
    mesh = TriangleMesh(verts, faces)
    assert _inside.is_closed(faces)
    rng = np.random.default_rng(8)
    pts = np.concatenate(
        [rng.uniform(-1.3, 1.3, (300, 3)), verts, verts[[a, b, m]] * 0.5]
    )
    _check_contains(mesh, pts)
    assert mesh.contains(verts).all()
    _check_twin(mesh, pts)
    # a point face and a segment face in a soup
    soup = TriangleMesh(
        np.array([[0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 1], [0, 0, 2], [0, 0, 3.0]]),
        np.array([[0, 1, 2], [3, 4, 5]]),
    )
    res = _check_twin(soup, np.array([[1.0, 0, 0], [0, 2.0, 2.5], [0, 0, -1]]))
    np.testing.assert_allclose(res.distance, [1.0, 2.0, 1.0])


# -- empty and bad input ----------------------------------------------------------------


def test_empty_points_and_empty_mesh(torus):
    none = np.zeros((0, 3))
    res = torus.closest_point(none)
    assert isinstance(res, ClosestPoints)
    assert [x.shape for x in res] == [(0, 3), (0,), (0,), (0, 3)]
    assert torus.contains(none).shape == (0,) and torus.contains(none).dtype == bool
    assert torus.signed_distance(none).shape == (0,)
    empty = TriangleMesh(np.zeros((0, 3)), np.zeros((0, 3), int))
    res = empty.closest_point([[0.0, 0, 0]])
    assert res.distance[0] == np.inf and res.face[0] == -1
    assert not empty.contains([[0.0, 0, 0]]).any()


@pytest.mark.parametrize(
    "bad, error",
    [
        (np.zeros((4, 2)), ValueError),
        (np.zeros((2, 3, 1)), ValueError),
        ([[0.0, np.nan, 0.0]], ValueError),
        ([[0.0, np.inf, 0.0]], ValueError),
        ([["a", "b", "c"]], TypeError),
    ],
)
@pytest.mark.parametrize("method", ["closest_point", "contains", "signed_distance"])
def test_bad_points(torus, bad, error, method):
    with pytest.raises(error, match="points"):
        getattr(torus, method)(bad)
