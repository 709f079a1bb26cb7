"""The public shape makers: closed, outward facing, the size asked for, bad input
refused."""

import numpy as np
import pytest

from hitbox import shapes


def _closed_and_outward(mesh):
    faces = mesh.faces
    edges = np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]])
    directed = {tuple(e) for e in edges.tolist()}
    assert len(directed) == len(edges), "an edge used twice in one direction"
    assert all((b, a) in directed for a, b in directed), "an edge with one face"
    tri = mesh.triangles
    return np.einsum("ij,ij->i", tri[:, 0], np.cross(tri[:, 1], tri[:, 2])).sum() / 6.0


@pytest.mark.parametrize(
    "make, volume, extent, hollow",
    [
        (lambda: shapes.box((1.0, 2.0, 3.0)), 6.0, (1.0, 2.0, 3.0), False),
        (lambda: shapes.torus(5_000, 1.0, 0.3), 2 * np.pi**2 * 0.09, (2.6, 2.6, 0.6), True),
        (lambda: shapes.sphere(0.7, 24, 48), 4 / 3 * np.pi * 0.7**3, (1.4, 1.4, 1.4), False),
        (lambda: shapes.cylinder(0.5, 2.0, 64), np.pi * 0.25 * 2.0, (1.0, 1.0, 2.0), False),
        (lambda: shapes.capsule(0.5, 1.0, 12, 64),
         np.pi * 0.25 + 4 / 3 * np.pi * 0.125, (1.0, 1.0, 2.0), False),
        (lambda: shapes.icosphere(0.7, 4), 4 / 3 * np.pi * 0.7**3, (1.4, 1.4, 1.4), False),
    ],
)  # fmt: skip
def test_shapes_are_closed_outward_and_sized(make, volume, extent, hollow):
    mesh = make()
    signed = _closed_and_outward(mesh)
    assert signed > 0  # outward: positive signed volume
    assert signed == pytest.approx(volume, rel=0.03)  # a faceted surface, a bit inside
    np.testing.assert_allclose(np.ptp(mesh.vertices, axis=0), extent, rtol=0.02)
    assert mesh.contains(np.zeros(3)) != hollow  # the torus's hole holds the origin


def test_centre_and_tree_options():
    mesh = shapes.sphere(1.0, center=(5.0, 0, 0), node="aabb")
    assert mesh.bvh.kind == "aabb"
    np.testing.assert_allclose(mesh.vertices.mean(axis=0), [5.0, 0, 0], atol=1e-12)
    assert mesh.contains(np.array([5.0, 0, 0])) and not mesh.contains(np.zeros(3))


@pytest.mark.parametrize(
    "call, err",
    [
        (lambda: shapes.box((1.0, -1.0, 1.0)), ValueError),
        (lambda: shapes.box("big"), ValueError),
        (lambda: shapes.sphere(0.0), ValueError),
        (lambda: shapes.sphere(1.0, n_rings=1), ValueError),
        (lambda: shapes.sphere(1.0, n_sections=2.5), TypeError),
        (lambda: shapes.torus(5_000, 0.3, 1.0), ValueError),
        (lambda: shapes.cylinder(np.nan), ValueError),
        (lambda: shapes.capsule(True), TypeError),
        (lambda: shapes.box(center=(0, 0)), ValueError),
        (lambda: shapes.icosphere(1.0, 2.0), TypeError),
        (lambda: shapes.icosphere(1.0, -1), ValueError),
        (lambda: shapes.icosphere(-1.0), ValueError),
    ],
)
def test_bad_sizes_are_refused(call, err):
    with pytest.raises(err):
        call()


def test_icosphere_triangles_are_even_and_on_the_sphere():
    mesh = shapes.icosphere(2.0, 3)
    assert mesh.n_faces == 20 * 4**3
    np.testing.assert_allclose(np.linalg.norm(mesh.vertices, axis=1), 2.0, rtol=1e-12)
    tri = mesh.triangles
    area = 0.5 * np.linalg.norm(
        np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1
    )
    assert area.max() / area.min() < 2.0  # no poles: no slivers
