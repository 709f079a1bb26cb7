"""The disk bounds that the wide closest-point walk prunes nodes and triangles by.

A point far from the surface bounds each lane of the four-wide tree and each triangle
of a leaf by its disk (centre, unit normal, radius, thickness:
``_kernels.point_tree``) before it opens the node or tests the triangle. A disk must
hold everything below it, its bound must never pass a triangle's exact distance by
more than the slack the walk allows it, and the walk must answer as every face does,
bit for bit, wherever the triangles lie and however they are shaped.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from hitbox._kernels import closest as _closest
from hitbox._kernels import point_tree as _point_tree
from hitbox._torus import torus_mesh
from hitbox.mesh import TriangleMesh
from tests import oracles_triangle as ot
from tests.test_points import assert_twin_on_threads


def _triangle(rng):
    """A random triangle: well shaped, a sliver, a needle or a point, anywhere."""
    a = rng.normal(size=3)
    kind = rng.integers(4)
    if kind == 0:
        b, c = a + rng.normal(size=3), a + rng.normal(size=3)
    elif kind == 1:  # a sliver: c nearly on the line ab
        b = a + rng.normal(size=3)
        c = a + rng.uniform(-0.5, 1.5) * (b - a) + rng.normal(size=3) * 1e-9
    elif kind == 2:  # a needle: b and c nearly coincide
        b = a + rng.normal(size=3)
        c = b + rng.normal(size=3) * 1e-10
    else:
        b = c = a
    tri = np.stack([a, b, c]) * 10.0 ** rng.uniform(-3, 3)
    return tri + rng.normal(size=3) * 10.0 ** rng.integers(0, 7)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_the_disk_bound_stays_below_the_exact_distance(seed):
    """Against the exact rational distance, within the walk's slack: DISK_SLACK times
    the coordinates' size times (the distance plus the radius), plus times |p - c|^2."""
    rng = np.random.default_rng(seed)
    tri = _triangle(rng)
    size = np.abs(tri).max()
    # points near the plane, far along the normal, and anywhere around
    p = tri.mean(axis=0) + rng.normal(size=3) * np.ptp(tri, axis=0).max() * 10.0 ** (
        rng.uniform(-6, 2)
    )
    disk = _point_tree.slot_disks(tri[None])[0]
    cx, cy, cz, nx, ny, nz, r, h = disk
    lb, qq = _point_tree.disk_d2(p[0] - cx, p[1] - cy, p[2] - cz, nx, ny, nz, r, h)
    exact = float(ot.point_triangle_distance2(p, tri))
    reach = _point_tree.DISK_SLACK * max(size, np.abs(p).max())
    slack = reach * (np.sqrt(exact) + r) + _point_tree.DISK_SLACK * qq
    assert lb <= exact + slack
    # the disk holds the triangle: its radius and thickness bound every vertex
    n = np.array([nx, ny, nz])
    for v in tri:
        assert np.linalg.norm(v - disk[:3]) <= r * (1 + 1e-9)
        assert abs(n @ (v - disk[:3])) <= h + 1e-9 * r


def _holds(disk, pts):
    """Whether the disk holds the points: within r of its centre, h of its plane."""
    c, n, r, h = disk[:3], disk[3:6], disk[6], disk[7]
    off = pts - c
    inside = np.linalg.norm(off, axis=1) <= r * (1 + 1e-12)
    return bool((inside & (np.abs(off @ n) <= h + 1e-12 * r)).all())


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.0, 1e3, 1e6]))
def test_every_node_disk_holds_its_triangles(seed, offset):
    """Each node's disk (fitted at the leaves, bounded from the children's above them)
    holds every vertex of every triangle below it, and each slot's disk its triangle,
    flat to the rounding of its coordinates where the triangle has an area."""
    rng = np.random.default_rng(seed)
    for mesh in (_far_soup(rng, 60, offset), TriangleMesh(*torus_mesh(600))):
        tree, tris = mesh.bvh, mesh._slot_tris
        disks = _point_tree.node_disks(tree.node_first, tree.node_count, tris)
        for m in range(len(tree.node_count)):
            lo, hi = _span(tree, m)
            assert _holds(disks[m], tris[lo:hi].reshape(-1, 3)), m
        slots = _point_tree.slot_disks(tris)
        for s, disk in enumerate(slots):
            assert _holds(disk, tris[s])
        area = np.linalg.norm(
            np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]), axis=1
        )
        wide = area > 1e-6 * slots[:, 6] ** 2
        flat = 1e-9 * slots[wide, 6] + 1e-14 * np.abs(tris).max()  # rounding of c
        assert (slots[wide, 7] <= flat).all()


def _span(tree, m):
    """The slots below node m, [lo, hi): contiguous in every tree hitbox builds."""
    f, c = tree.node_first[m], tree.node_count[m]
    if c:
        return f, f + c
    (a, b), (d, e) = _span(tree, f), _span(tree, f + 1)
    assert b == d or e == a  # the two children's slots meet
    return min(a, d), max(b, e)


def _far_soup(rng, n, offset):
    """n random triangles (slivers, needles, segments and points among them) near a
    point ``offset`` from the origin, tilted every way so that boxes and disks differ."""
    tris = []
    for _ in range(n):
        a = rng.uniform(-1, 1, 3)
        u, w = rng.normal(size=3) * 0.1, rng.normal(size=3) * 0.1
        kind = rng.integers(7)
        if kind == 3:
            w = u * rng.uniform(-1, 2) + rng.normal(size=3) * 1e-9
        elif kind == 4:
            w = u + rng.normal(size=3) * 1e-10
        elif kind == 5:  # no area at all: a segment (its disk a ball)
            w = 2.0 * u
        elif kind == 6:  # a point
            u = w = np.zeros(3)
        tris.append([a, a + u, a + w])
    tris = np.array(tris) + offset
    return TriangleMesh(tris.reshape(-1, 3), np.arange(3 * n).reshape(n, 3))


@settings(max_examples=12, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.sampled_from([0.0, 1e3, 1e6]),
    st.sampled_from([1, 2]),
)
def test_the_wide_walk_on_far_and_tilted_triangles_matches_the_twin(
    seed, offset, threads
):
    """From WIDE_MIN points on, far points prune by disks: the answers of every face,
    bit for bit, ties included (points on vertices, edges and centres, a grid), with
    the triangles near the origin or 10^3 or 10^6 from it."""
    rng = np.random.default_rng(seed)
    mesh = _far_soup(rng, 150, offset)
    tris = mesh.triangles
    pts = np.concatenate([
        mesh.vertices, tris.mean(axis=1), tris[:, :2].mean(axis=1),
        rng.integers(-6, 7, (600, 3)) / 2 + offset,
        rng.uniform(-4, 4, (_closest.WIDE_MIN, 3)) + offset,
        rng.uniform(-1.2, 1.2, (1000, 3)) + offset,
    ])  # fmt: skip
    assert_twin_on_threads(mesh, pts, threads)
