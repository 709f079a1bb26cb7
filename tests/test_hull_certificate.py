"""The convex hulls' distance certificate (hitbox._kernels.hull_certificate) against the
brute-force twin: what it certifies is the least triangle-pair distance, it certifies
convex meshes apart, and it refuses where the hulls are nearest off the meshes."""

import numpy as np
import trimesh
from hypothesis import given, settings
from hypothesis import strategies as st

from hitbox import distance as hd
from hitbox._kernels.hull_certificate import NOT_CERTIFIED, certify
from hitbox._mesh_hull import hull_parts
from hitbox._torus import torus_mesh
from hitbox.mesh import TriangleMesh
from tests.strategies import rotation
from tests.test_distance import SHAPES, _point_on_face


def _certify(a, b, pose, upper=np.inf, rtol=0.0, atol=0.0):
    walk_a, hull_a, walk_b, hull_b = hd._args(a, b)
    out_f = np.empty(6)
    out_i = np.full(3, -7, np.intp)
    rot = np.ascontiguousarray(pose[:3, :3])
    trans = np.ascontiguousarray(pose[:3, 3])
    depth = a.bvh.depth + b.bvh.depth + 4
    d = certify(hull_a, hull_b, *walk_a[3:6], *walk_b[3:6], rot, trans, depth, upper,
                rtol, atol, out_f, out_i)  # fmt: skip
    return d, out_f, out_i


def _pose(rng, reach, direction=None):
    pose = np.eye(4)
    pose[:3, :3] = rotation(rng)
    u = rng.normal(size=3) if direction is None else np.asarray(direction, float)
    pose[:3, 3] = u / np.linalg.norm(u) * reach
    return pose


def _case(seed, ia, ib, reach, node_b):
    """Shapes ia and ib (B's tree of kind node_b) at a random pose, and the
    certificate's answer there."""
    rng = np.random.default_rng(seed)
    a = TriangleMesh(*SHAPES[ia])
    b = TriangleMesh(*SHAPES[ib], node=node_b)
    pose = _pose(rng, reach)
    return a, b, pose, _certify(a, b, pose)


def _faces_realise(a, b, pose, d, out_i, out_f):
    """The certified answer's slots, faces and points realise d."""
    fa = int(a.bvh.prim_order[out_i[0]])
    fb = int(b.bvh.prim_order[out_i[1]])
    pair = hd.distance_brute(
        TriangleMesh(a.vertices, a.faces[[fa]]), TriangleMesh(b.vertices, b.faces[[fb]]),
        pose,
    )  # fmt: skip
    assert pair[0] == d
    assert abs(np.linalg.norm(out_f[:3] - out_f[3:]) - d) <= 1e-12 * (1 + d)
    scale = 1 + np.abs(pose[:3, 3]).sum()
    assert _point_on_face(a, fa, out_f[:3]) <= 1e-12 * scale
    assert _point_on_face(b, fb, out_f[3:], pose) <= 1e-12 * scale


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 2), st.integers(0, 2),
       st.floats(0.0, 4.0))  # fmt: skip
def test_a_certified_distance_is_the_least_triangle_pair_distance(seed, ia, ib, reach):
    a, b, pose, (d, out_f, out_i) = _case(seed, ia, ib, reach, "aabb")
    want = hd.distance_brute(a, b, pose)[0]
    if d == NOT_CERTIFIED:
        assert hd.distance(a, b, pose).distance == want  # the walk answers
        return
    assert d == want > 0.0
    _faces_realise(a, b, pose, d, out_i, out_f)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 1), st.integers(0, 1),
       st.floats(1.5, 30.0))  # fmt: skip
def test_convex_meshes_apart_are_certified(seed, ia, ib, reach):
    # the icosphere and the box are their own hulls: nothing is left to the walk
    a, b, pose, (d, out_f, out_i) = _case(seed, ia, ib, reach, "obb")
    assert d != NOT_CERTIFIED
    assert d == hd.distance_brute(a, b, pose)[0]
    _faces_realise(a, b, pose, d, out_i, out_f)


def test_refused_where_the_hulls_are_nearest_off_the_mesh():
    rng = np.random.default_rng(3)
    torus = TriangleMesh(*torus_mesh(800, r_major=1.0, r_minor=0.25))
    ball = TriangleMesh(*SHAPES[0])
    ball = TriangleMesh(ball.vertices * 0.2, ball.faces)
    # in the hole: inside the torus's hull; above the hole: nearest the flat cap
    for centre in ((0.0, 0.0, 0.0), (0.0, 0.0, 0.6)):
        pose = _pose(rng, 1.0)
        pose[:3, 3] = centre
        d, _, _ = _certify(torus, ball, pose)
        assert d == NOT_CERTIFIED
        assert hd.distance(torus, ball, pose).distance == hd.distance_brute(
            torus, ball, pose
        )[0]  # fmt: skip


def test_flat_and_unwelded_meshes():
    rng = np.random.default_rng(5)
    square = TriangleMesh(
        np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], float),
        np.array([[0, 1, 2], [0, 2, 3]]),
    )  # fmt: skip
    assert len(hull_parts(square)[0]) == 0  # no hull of volume: the walk answers
    box = trimesh.creation.box(extents=(1.0, 0.5, 0.3))
    loose = box.copy()
    loose.unmerge_vertices()  # each face its own three vertices
    a = TriangleMesh(loose.vertices, loose.faces)
    b = TriangleMesh(box.vertices, box.faces)
    for reach in (0.0, 0.9, 3.0):
        pose = _pose(rng, reach)
        want = hd.distance_brute(square, b, pose)[0]
        assert _certify(square, b, pose)[0] == NOT_CERTIFIED
        assert hd.distance(square, b, pose).distance == want
    pose = _pose(rng, 3.0)
    d, out_f, out_i = _certify(a, b, pose)
    assert d == hd.distance_brute(a, b, pose)[0] > 0.0
    _faces_realise(a, b, pose, d, out_i, out_f)


def test_limits_and_tolerances():
    rng = np.random.default_rng(9)
    a = TriangleMesh(*SHAPES[0])
    b = TriangleMesh(*SHAPES[1])
    for _ in range(10):
        pose = _pose(rng, float(rng.uniform(2.0, 5.0)))
        exact = hd.distance_brute(a, b, pose)[0]
        d, _, out_i = _certify(a, b, pose, upper=0.5 * exact)
        assert d == np.inf and out_i[0] == out_i[1] == -1
        d, _, _ = _certify(a, b, pose, rtol=0.1, atol=1e-3)
        assert exact <= d <= exact * 1.1 + 1e-3
        capped = hd.distance(a, b, pose, max_distance=2.0 * exact)
        assert capped.distance == exact


def test_parallel_faces_tie_within_rounding():
    # every vertex of the facing faces ties at the top of the projection; a certified
    # answer is a real pair's distance within 1e-12 relative of the least
    box = trimesh.creation.box(extents=(1.0, 0.5, 0.3))
    a = TriangleMesh(box.vertices, box.faces)
    for gap in (0.25, 1e-3, 3.0):
        pose = np.eye(4)
        pose[0, 3] = 1.0 + gap
        want = hd.distance_brute(a, a, pose)[0]
        d, out_f, out_i = _certify(a, a, pose)
        assert d != NOT_CERTIFIED
        assert abs(d - want) <= 1e-12 * want
        assert abs(d - gap) <= 1e-12
        assert abs(hd.distance(a, a, pose).distance - want) <= 1e-12 * want


def test_too_many_tied_vertices_leave_it_to_the_walk():
    # a cylinder's cap: its rim vertices lie on one plane, facing the other cylinder;
    # 64 of them tie and are certified, 400 are more than the certificate follows
    pose = np.eye(4)
    pose[2, 3] = 0.5
    for sections, certified in ((64, True), (400, False)):
        cyl = trimesh.creation.cylinder(radius=0.5, height=0.4, sections=sections)
        a = TriangleMesh(cyl.vertices, cyl.faces)
        d, _, _ = _certify(a, a, pose)
        want = hd.distance_brute(a, a, pose)[0]
        assert (d != NOT_CERTIFIED) == certified
        if certified:
            assert abs(d - want) <= 1e-12 * want
        assert abs(hd.distance(a, a, pose).distance - want) <= 1e-12 * want
        assert abs(want - 0.1) <= 1e-12


def test_the_cube_map_finds_each_directions_cell_and_its_extreme_vertex():
    # the climbs start from the extreme hull vertex of the direction's cell: each cell
    # centre maps to its own cell, any direction to the cell whose cone holds it, and
    # the map's vertex is the extreme one along the cell's centre
    from numba import njit

    from hitbox._kernels.hull_certificate import map_cell
    from hitbox._mesh_hull import MAP_SIDE, cube_directions

    cell_of = njit(lambda d: map_cell(MAP_SIDE, d[0], d[1], d[2]))
    centres = cube_directions(MAP_SIDE)
    assert len(centres) == 6 * MAP_SIDE**2
    assert [cell_of(d) for d in centres] == list(range(len(centres)))
    for bad in ([0.0, 0.0, 0.0], [np.nan, 0.0, 1.0], [0.0, np.inf, 1.0]):
        assert cell_of(np.array(bad)) == -1
    rng = np.random.default_rng(7)
    for d in rng.normal(size=(2000, 3)) * rng.uniform(1e-3, 1e3, (2000, 1)):
        c = cell_of(d)
        u = d / np.abs(d).max()
        face_centre = centres[c] / np.abs(centres[c]).max()
        # same face of the cube, within half a cell of the centre on both other axes
        assert np.argmax(np.abs(d)) == np.argmax(np.abs(centres[c]))
        assert np.abs(u - face_centre).max() <= 1.0 / MAP_SIDE + 1e-12
    mesh = TriangleMesh(*torus_mesh(2_000))
    pts, _, _, starts = hull_parts(mesh)[:4]
    np.testing.assert_array_equal(starts, np.argmax(pts @ centres.T, axis=0))
