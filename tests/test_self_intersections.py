"""A mesh against itself: the tree walk finds exactly the face pairs the brute-force
twin finds (touching, sharing no vertex), for every node kind."""

import numpy as np
import pytest
import trimesh
from hypothesis import given, settings
from hypothesis import strategies as st

from hitbox import shapes
from hitbox.mesh import TriangleMesh
from tests.strategies import rotation

KINDS = ("aabb", "sphere", "obb", "kdop18")


def _union(parts):
    """One mesh of several, vertices not shared between the parts."""
    verts, faces, at = [], [], 0
    for v, f in parts:
        verts.append(v)
        faces.append(f + at)
        at += len(v)
    return np.concatenate(verts), np.concatenate(faces)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(KINDS), st.floats(0.0, 2.0))
def test_self_intersections_equal_every_face_pair(seed, node, reach):
    rng = np.random.default_rng(seed)
    a = shapes.torus(200, 0.6, 0.2)
    b = trimesh.creation.icosphere(subdivisions=1, radius=0.5)
    moved = b.vertices @ rotation(rng).T + rng.normal(size=3) * reach / np.sqrt(3)
    mesh = TriangleMesh(*_union([(a.vertices, a.faces), (moved, b.faces)]), node=node)
    got = mesh.self_intersections()
    want = mesh.self_intersections_brute()
    np.testing.assert_array_equal(got, want)
    assert mesh.self_intersections(mode="any") == (want.shape[1] > 0)
    assert np.all(got[0] < got[1])


def test_closed_shapes_do_not_meet_themselves_and_a_fold_does():
    for mesh in (shapes.torus(2_000), shapes.sphere(1.0), shapes.capsule(), shapes.box()):
        assert mesh.self_intersections().shape == (2, 0)
        assert not mesh.self_intersections(mode="any")
    # a strip folded back through itself: its last quad pierces its first
    verts = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0],
                      [0.5, 0.5, -1], [0.5, 0.5, 1.0]], float)  # fmt: skip
    faces = np.array([[0, 1, 2], [1, 3, 2], [4, 5, 1]])
    mesh = TriangleMesh(verts, faces)
    # face 2 shares vertex 1 with faces 0 and 1: neighbours, never reported
    assert mesh.self_intersections().shape == (2, 0)
    faces = np.array([[0, 1, 2], [1, 3, 2], [4, 5, 4]])  # a segment through both
    got = TriangleMesh(verts, faces).self_intersections()
    np.testing.assert_array_equal(
        got, TriangleMesh(verts, faces).self_intersections_brute()
    )
    assert got.shape[1] >= 1


def test_empty_mesh_and_bad_mode():
    empty = TriangleMesh(np.zeros((0, 3)), np.zeros((0, 3), np.intp))
    assert empty.self_intersections().shape == (2, 0)
    with pytest.raises(ValueError, match="mode"):
        shapes.box().self_intersections(mode="first")
