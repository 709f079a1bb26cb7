"""Winding numbers through the tree (node boundaries closed by fans) against the sum over
every face, on closed, holed and soup meshes; and contains on open meshes, which takes
that path, against the winding rule summed face by face."""

import numpy as np
import pytest
import trimesh
from hypothesis import given, settings
from hypothesis import strategies as st

from hitbox import _mesh_probe as probe
from hitbox._kernels import winding_tree as wt
from hitbox._torus import torus_mesh
from hitbox.mesh import TriangleMesh

TORUS = torus_mesh(800)


def _with_fans(mesh):
    """The mesh with its node boundaries built (a large enough call builds them), so
    that every later call takes the tree."""
    probe.winding(mesh, np.full((probe.FANS_MIN_POINTS, 3), 7.0))
    assert mesh._fans is not None
    return mesh


def _mesh(kind, seed, keep):
    rng = np.random.default_rng(seed)
    if kind == "closed":
        return TriangleMesh(*TORUS)
    if kind == "holed":  # a torus with faces dropped at random: many boundary loops
        verts, faces = TORUS
        return TriangleMesh(verts, faces[rng.random(len(faces)) < keep])
    if kind == "soup":  # unrelated triangles, no shared edges
        return TriangleMesh(rng.normal(size=(60, 3)), rng.permutation(60).reshape(20, 3))
    box = trimesh.creation.box(extents=(2.0, 1.0, 3.0))  # a box without its first face
    return TriangleMesh(box.vertices, box.faces[1:])


@settings(max_examples=40)
@given(
    st.sampled_from(["closed", "holed", "soup", "open box"]),
    st.integers(0, 2**16),
    st.floats(0.05, 0.95),
    st.lists(st.tuples(*[st.floats(-2.0, 2.0)] * 3), min_size=1, max_size=40),
)
def test_tree_equals_every_face(kind, seed, keep, pts):
    mesh = _with_fans(_mesh(kind, seed, keep))
    pts = np.array(pts)
    tree = probe.winding(mesh, pts)
    brute = probe.winding_brute(mesh, pts)
    # points on the surface make single solid angles undefined: compared off it
    off = mesh.closest_point(pts).distance > 1e-9
    np.testing.assert_allclose(tree[off], brute[off], rtol=0, atol=1e-9)


def test_far_and_near_points_of_a_holed_mesh():
    mesh = _mesh("holed", 3, 0.6)
    rng = np.random.default_rng(0)
    pts = np.concatenate([rng.uniform(-1.6, 1.6, (3000, 3)), rng.normal(0, 40, (200, 3))])
    np.testing.assert_allclose(
        mesh.winding_number(pts), probe.winding_brute(mesh, pts), rtol=0, atol=1e-10
    )


def test_node_boundaries():
    closed = _with_fans(TriangleMesh(*TORUS))
    start, edges, under = closed._fans
    assert start[1] == start[0]  # a closed mesh's root has no boundary
    assert under[0] == closed.n_faces
    # the box without face 0: the root's boundary is that face's three edges, once each
    box = trimesh.creation.box()
    mesh = _with_fans(TriangleMesh(box.vertices, box.faces[1:]))
    start, edges, _ = mesh._fans
    root = {tuple(e) for e in edges[start[0] : start[1]]}
    a, b, c = box.faces[0]
    assert root == {(b, a), (c, b), (a, c)}
    # a face and its flip cancel: no boundary at all
    verts = np.eye(3)
    pair = _with_fans(TriangleMesh(verts, np.array([[0, 1, 2], [0, 2, 1]])))
    start, _, _ = pair._fans
    assert start[1] == start[0]


@pytest.mark.parametrize("seed", [1, 2])
def test_open_mesh_contains_follows_the_winding_rule(seed):
    mesh = _mesh("holed", seed, 0.8)
    assert not mesh.contains(np.zeros((0, 3))).size
    pts = np.random.default_rng(seed).uniform(-1.5, 1.5, (4000, 3))
    w = probe.winding_brute(mesh, pts)
    sure = np.abs(np.abs(w) - 0.5) > 1e-9  # the rule's own tie left either way
    want = (np.abs(w) >= 0.5) | probe.on_surface(mesh, pts)
    got = mesh.contains(pts)
    assert mesh._closed is False
    np.testing.assert_array_equal(got[sure], want[sure])
    assert 0 < got.sum() < len(got)


def test_few_points_are_summed_without_building_the_boundaries():
    mesh = _mesh("holed", 4, 0.7)
    pts = np.random.default_rng(4).uniform(-1.5, 1.5, (probe.FANS_MIN_POINTS - 1, 3))
    few = probe.winding(mesh, pts)
    assert mesh._fans is None
    np.testing.assert_allclose(few, probe.winding(_with_fans(mesh), pts), atol=1e-10)


def test_cancel_keeps_the_net_direction():
    cand = np.array([[1, 2], [2, 1], [2, 1], [3, 4], [5, 6], [6, 5]])
    kept = {tuple(e) for e in wt._cancel(cand)}
    assert kept == {(2, 1), (3, 4)}
    assert len(wt._cancel(np.zeros((0, 2), np.intp))) == 0
