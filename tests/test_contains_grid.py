"""``contains`` through the grid of known winding numbers (hitbox._kernels.inside_grid).

The grid must give the ray kernel's answer on every point it decides, and leave the
rest to it: on random points, points on vertices, edges and faces, points on the grid's
own cell planes and reference points, nested and reversed surfaces, and meshes far from
the origin. Each case is checked against the ray kernel alone and against the
generalised winding number (the slow twin) away from the surface.
"""

import numpy as np
import pytest
import trimesh
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from hitbox import _containment
from hitbox._kernels import inside as _inside
from hitbox._kernels import inside_grid as _grid
from hitbox._torus import torus_mesh
from hitbox.mesh import TriangleMesh


def _meshes():
    yield "box", trimesh.creation.box(extents=(2.0, 3.0, 1.0))
    yield "icosphere", trimesh.creation.icosphere(subdivisions=3, radius=1.5)
    yield "cylinder", trimesh.creation.cylinder(radius=0.7, height=2.0, sections=24)
    v, f = torus_mesh(3000, 1.0, 0.3)
    yield "torus", trimesh.Trimesh(v, f, process=False)
    # two overlapping tori: winding number 2 where they overlap
    yield "two tori", trimesh.Trimesh(np.concatenate([v, v + [0.5, 0.2, 0.1]]),
                                      np.concatenate([f, f + len(v)]), process=False)  # fmt: skip
    yield "reversed torus", trimesh.Trimesh(v, f[:, ::-1], process=False)
    yield "far box", trimesh.Trimesh(
        trimesh.creation.box(extents=(1e-3, 2e-3, 3e-3)).vertices + [1e6, -2e6, 5e5],
        trimesh.creation.box().faces, process=False)  # fmt: skip


MESHES = dict(_meshes())


def _with_grid(tm):
    """A mesh whose first contains call builds its grid, and the same without one."""
    mesh = TriangleMesh(np.asarray(tm.vertices), np.asarray(tm.faces))
    mesh._grid.seen = 10**9
    plain = TriangleMesh(np.asarray(tm.vertices), np.asarray(tm.faces), bvh=mesh.bvh)
    plain._grid.tried = True
    return mesh, plain


def _ray_codes(mesh, pts):
    out = np.empty(len(pts), np.intp)
    tree = mesh.bvh
    _inside.inside(tree.node_box, tree.node_first, tree.node_count, mesh._slot_tris,
                   tree.depth, pts, out)  # fmt: skip
    return out


def _grid_codes(mesh, pts):
    g = mesh._grid.grid
    out = np.empty(len(pts), np.intp)
    _grid.query(g.box, g.origin, g.size, g.dims, g.margin, g.code, g.winding, g.first,
                g.slots, g.qbox, mesh._slot_tris, pts, out, 2)  # fmt: skip
    return out


def _surface_points(mesh):
    tris = mesh.triangles
    return np.concatenate([mesh.vertices, tris.mean(axis=1), (tris[:, 0] + tris[:, 1]) / 2,
                           (tris[:, 1] + tris[:, 2]) / 2])  # fmt: skip


def _cell_points(g, rng, n):
    """Points on the grid's cell planes and at its cells' eighths' reference points."""
    idx = np.stack([rng.integers(0, d + 1, n) for d in g.dims], axis=1)
    planes = g.origin + idx * g.size
    bits = rng.integers(0, 2, (n, 3))  # an eighth of the cell: its reference point
    shifted = g.origin + (np.minimum(idx, g.dims - 1) + 0.25 + 0.5 * bits
                          + 0.5 * np.array(_grid._SHIFT)) * g.size  # fmt: skip
    mixed = np.where(rng.random((n, 3)) < 0.5, planes, shifted)
    return np.concatenate([planes, shifted, mixed])


def _check(mesh, plain, pts):
    pts = np.ascontiguousarray(pts, dtype=np.float64)
    got = mesh.contains(pts)
    assert mesh._grid.grid is not None
    np.testing.assert_array_equal(got, plain.contains(pts))
    grid_codes, ray_codes = _grid_codes(mesh, pts), _ray_codes(mesh, pts)
    decided = (grid_codes != _inside.UNDECIDED) & (ray_codes != _inside.UNDECIDED)
    np.testing.assert_array_equal(grid_codes[decided], ray_codes[decided])
    return got, grid_codes


@pytest.mark.parametrize("name", sorted(MESHES))
def test_grid_equals_ray_kernel(name):
    mesh, plain = _with_grid(MESHES[name])
    rng = np.random.default_rng(11)
    lo, hi = mesh.vertices.min(axis=0), mesh.vertices.max(axis=0)
    pad = 0.2 * (hi - lo)
    pts = rng.uniform(lo - pad, hi + pad, (4000, 3))
    got, codes = _check(mesh, plain, pts)
    assert 0 < got.sum() < len(got)
    assert (codes == _inside.UNDECIDED).mean() < 0.01  # the grid decides almost all
    size = np.ptp(mesh.vertices, axis=0).max()
    sure = mesh.closest_point(pts).distance > 1e-12 * size
    np.testing.assert_array_equal(got[sure], mesh._contains_slow(pts)[sure])
    assert mesh.contains(mesh.vertices).all()  # on the surface: inside
    _check(mesh, plain, _surface_points(mesh))  # on, or within rounding of, the surface
    _check(mesh, plain, _cell_points(mesh._grid.grid, rng, 3000))


def test_nested_and_reversed_windings():
    mesh, _ = _with_grid(MESHES["two tori"])
    # inside both tori at once (winding 2), in one only, in neither
    assert mesh.contains(np.array([[1.25, 0.1, 0.05], [-1.0, 0, 0], [0.0, 0, 0]])).tolist() == [
        True, True, False]  # fmt: skip
    rev, _ = _with_grid(MESHES["reversed torus"])
    assert rev.contains(np.array([[1.0, 0, 0], [0.0, 0, 0]])).tolist() == [True, False]


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(sorted(MESHES)),
    st.floats(1e-3, 1e3),
    st.tuples(*[st.floats(-1e4, 1e4)] * 3),
    st.integers(0, 2**32 - 1),
)
def test_grid_under_scale_and_offset(name, scale, offset, seed):
    tm = MESHES[name]
    verts = (np.asarray(tm.vertices) - tm.vertices.mean(axis=0)) * scale + offset
    mesh, plain = _with_grid(trimesh.Trimesh(verts, tm.faces, process=False))
    rng = np.random.default_rng(seed)
    lo, hi = verts.min(axis=0), verts.max(axis=0)
    pts = np.concatenate([rng.uniform(lo - 0.1 * (hi - lo), hi + 0.1 * (hi - lo), (300, 3)),
                          _surface_points(mesh)[rng.integers(0, len(verts), 50)]])  # fmt: skip
    _check(mesh, plain, pts)
    if mesh._grid.grid is not None:
        _check(mesh, plain, _cell_points(mesh._grid.grid, rng, 100))


def test_grid_is_built_once_queries_add_up(monkeypatch):
    monkeypatch.setattr(_containment, "GRID_MIN", 100)
    mesh = TriangleMesh(*torus_mesh(200))
    pts = np.random.default_rng(3).uniform(-1.4, 1.4, (60, 3))
    mesh.contains(pts)
    assert mesh._grid.grid is None  # 60 points asked: rays are cheaper
    mesh.contains(pts)
    grid = mesh._grid.grid
    assert grid is not None  # 120 >= 100 and >= 200 / 4 faces
    mesh.contains(pts)
    assert mesh._grid.grid is grid


def test_no_grid_where_cells_would_drown_in_rounding():
    assert (
        _grid.grid_geometry(np.array([1e15, 0, 0]), np.array([1e15 + 1, 1, 1]), 10)
        is None
    )
    assert _grid.grid_geometry(np.zeros(3), np.zeros(3), 10) is None
    origin, size, dims, margin = _grid.grid_geometry(
        np.zeros(3), np.array([4.0, 2, 1e-9]), 10**6
    )
    assert np.prod(dims) <= _grid.MAX_CELLS and (size * dims >= [4.0, 2, 1e-9]).all()


def test_points_on_faces_go_to_the_ray_kernel():
    mesh, plain = _with_grid(MESHES["box"])
    on = _surface_points(mesh)
    got, codes = _check(mesh, plain, on)
    assert got.all()
    assert (
        codes == _inside.UNDECIDED
    ).any()  # on a face's plane: the grid does not guess


def test_points_on_edges_and_vertices_are_decided_exactly():
    """Edge midpoints and vertices of a dyadic mesh lie exactly on its surface: inside,
    decided by the exact ray kernel itself (never the winding-number fallback), with or
    without the grid."""
    verts = np.asarray(MESHES["box"].vertices) * 4.0  # dyadic: midpoints are exact
    mesh, plain = _with_grid(trimesh.Trimesh(verts, MESHES["box"].faces, process=False))
    tris = mesh.triangles
    on = np.concatenate([verts, (tris[:, 0] + tris[:, 1]) / 2, (tris[:, 1] + tris[:, 2]) / 2,
                         (tris[:, 0] + tris[:, 2]) / 2])  # fmt: skip
    assert (_ray_codes(mesh, on) == _inside.INSIDE).all()
    assert mesh.contains(on).all() and plain.contains(on).all()
    off = on * (1 + 2.0**-40)  # just outside the box about the origin
    assert not mesh.contains(off).any()


@njit(cache=True)
def _both_crossings(tris, segs):
    out = np.empty((len(tris), 2), np.int64)
    for s in range(len(tris)):
        r, p = segs[s, 0], segs[s, 1]
        out[s, 0] = _grid._crossing(tris, s, r[0], r[1], r[2], p[0], p[1], p[2])
        out[s, 1] = _grid._crossing_fast(tris, s, r[0], r[1], r[2], p[0], p[1], p[2])
    return out


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1.0, 1e-9, 1e7]),
       st.sampled_from([0.0, 1e-15, 1e-9]))  # fmt: skip
def test_fast_crossing_is_the_exact_crossing(seed, scale, jitter):
    """The filtered crossing test answers as the exact one: on small integer grids
    (segments through vertices and edges, points on faces' planes: many exact zeros),
    nudged by a few ulps or more, at several scales."""
    rng = np.random.default_rng(seed)
    pts = rng.integers(-2, 3, (4000, 5, 3)).astype(np.float64)
    pts *= 1.0 + jitter * rng.standard_normal(pts.shape) * (rng.random(pts.shape) < 0.3)
    pts = pts * scale + 0.25 * scale
    tris, segs = np.ascontiguousarray(pts[:, :3]), np.ascontiguousarray(pts[:, 3:])
    both = _both_crossings(tris, segs)
    np.testing.assert_array_equal(both[:, 0], both[:, 1])
    assert (both[:, 0] == 2).any() and (both[:, 0] != 0).any()
