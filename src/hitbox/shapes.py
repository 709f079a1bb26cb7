"""Closed triangle meshes of the shapes examples and tests need: torus, box, UV sphere,
icosphere, cylinder and capsule, outward facing, as :class:`~hitbox.mesh.TriangleMesh` objects.

Each takes the tree options of :class:`~hitbox.mesh.TriangleMesh` (``node``, ...), and
``center``: the shape's centre in its model frame. Sizes must be finite and > 0;
section counts are ints >= 3 (>= 2 for the sphere's and capsule's rings).
"""

import numbers

import numpy as np

from hitbox._torus import torus_mesh
from hitbox.mesh import TriangleMesh


def torus(n_triangles=5_000, r_major=1.0, r_minor=0.3, *, center=(0, 0, 0), **tree):
    """A torus about the z axis (seed 003's test object: 5,000 or 20,000 triangles use
    the paper's sections)."""
    _size(r_major, "r_major")
    _size(r_minor, "r_minor")
    if not r_minor < r_major:
        raise ValueError(f"r_minor must be < r_major, got {r_minor} >= {r_major}")
    _count(n_triangles, "n_triangles", 18)
    verts, faces = torus_mesh(int(n_triangles), float(r_major), float(r_minor))
    return _mesh(verts, faces, center, tree)


def box(extents=(1.0, 1.0, 1.0), *, center=(0, 0, 0), **tree):
    """An axis-aligned box of the given full extents (12 triangles)."""
    half = 0.5 * _sizes(extents, "extents")
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)])
    faces = np.array([
        [0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5],  # x = -1, x = +1
        [0, 4, 5], [0, 5, 1], [2, 3, 7], [2, 7, 6],  # y = -1, y = +1
        [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3],  # z = -1, z = +1
    ])  # fmt: skip
    return _mesh(corners * half, faces, center, tree)


def sphere(radius=1.0, n_rings=16, n_sections=32, *, center=(0, 0, 0), **tree):
    """A UV sphere: ``n_rings`` bands from pole to pole, ``n_sections`` around."""
    _size(radius, "radius")
    _count(n_rings, "n_rings", 2)
    _count(n_sections, "n_sections", 3)
    z = np.cos(np.linspace(0.0, np.pi, n_rings + 1))[1:-1]
    rings = [np.column_stack([np.sqrt(1 - z * z), z])]
    verts, faces = _revolve(np.concatenate(rings), 1.0, -1.0, n_sections)
    return _mesh(verts * radius, faces, center, tree)


def icosphere(radius=1.0, subdivisions=2, *, center=(0, 0, 0), **tree):
    """A geodesic sphere: an icosahedron whose triangles are split in four
    ``subdivisions`` times (20·4^s triangles), vertices pushed onto the sphere; even
    triangles everywhere, no poles (Loop-style midpoint subdivision)."""
    _size(radius, "radius")
    if isinstance(subdivisions, bool) or not isinstance(subdivisions, numbers.Integral):
        raise TypeError(f"subdivisions must be an int, got {type(subdivisions).__name__}")
    if not 0 <= subdivisions <= 8:
        raise ValueError(f"subdivisions must be in [0, 8], got {subdivisions}")
    t = (1.0 + 5.0**0.5) / 2.0
    verts = np.array([
        [-1, t, 0], [1, t, 0], [-1, -t, 0], [1, -t, 0], [0, -1, t], [0, 1, t],
        [0, -1, -t], [0, 1, -t], [t, 0, -1], [t, 0, 1], [-t, 0, -1], [-t, 0, 1],
    ], float)  # fmt: skip
    faces = np.array([
        [0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11], [1, 5, 9],
        [5, 11, 4], [11, 10, 2], [10, 7, 6], [7, 1, 8], [3, 9, 4], [3, 4, 2],
        [3, 2, 6], [3, 6, 8], [3, 8, 9], [4, 9, 5], [2, 4, 11], [6, 2, 10],
        [8, 6, 7], [9, 8, 1],
    ])  # fmt: skip
    for _ in range(int(subdivisions)):
        edges = np.sort(faces[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2), axis=1)
        unique, index = np.unique(edges, axis=0, return_inverse=True)
        mids = len(verts) + index.reshape(-1, 3)  # midpoints of edges 01, 12, 20
        verts = np.vstack([verts, 0.5 * (verts[unique[:, 0]] + verts[unique[:, 1]])])
        a, b, c = faces.T
        ab, bc, ca = mids.T
        faces = np.concatenate([
            np.column_stack([a, ab, ca]), np.column_stack([ab, b, bc]),
            np.column_stack([ca, bc, c]), np.column_stack([ab, bc, ca]),
        ])  # fmt: skip
    verts = verts / np.linalg.norm(verts, axis=1, keepdims=True)
    return _mesh(verts * radius, faces, center, tree)


def cylinder(radius=0.5, height=1.0, n_sections=32, *, center=(0, 0, 0), **tree):
    """A cylinder along z, capped, of the given radius and full height."""
    _size(radius, "radius")
    _size(height, "height")
    _count(n_sections, "n_sections", 3)
    h = 0.5 * height
    profile = np.array([[radius, h], [radius, -h]])
    verts, faces = _revolve(profile, h, -h, n_sections)
    return _mesh(verts, faces, center, tree)


def capsule(radius=0.5, height=1.0, n_rings=8, n_sections=32, *, center=(0, 0, 0),
            **tree):  # fmt: skip
    """A capsule along z: a cylinder of full ``height`` between two hemispheres of
    ``radius`` (``n_rings`` bands each)."""
    _size(radius, "radius")
    _size(height, "height")
    _count(n_rings, "n_rings", 2)
    _count(n_sections, "n_sections", 3)
    h = 0.5 * height
    angle = np.linspace(0.0, 0.5 * np.pi, n_rings + 1)[1:]
    top = np.column_stack([radius * np.sin(angle), h + radius * np.cos(angle)])
    bottom = np.column_stack([top[::-1, 0], -top[::-1, 1]])
    verts, faces = _revolve(np.vstack([top, bottom]), h + radius, -h - radius, n_sections)
    return _mesh(verts, faces, center, tree)


def _revolve(profile, z_top, z_bottom, n):
    """A closed surface of revolution about z: rings of (radius, z) from top to bottom
    between two poles, outward facing."""
    theta = np.linspace(0.0, 2 * np.pi, n, endpoint=False)
    r, z = profile[:, 0], profile[:, 1]
    ring = np.stack([np.outer(r, np.cos(theta)), np.outer(r, np.sin(theta)),
                     np.repeat(z[:, None], n, axis=1)], axis=-1).reshape(-1, 3)  # fmt: skip
    top, bottom = len(ring), len(ring) + 1
    verts = np.vstack([ring, [[0.0, 0.0, z_top]], [[0.0, 0.0, z_bottom]]])
    k = np.arange(n)
    nxt = (k + 1) % n
    faces = [np.column_stack([np.full(n, top), k, nxt])]
    for row in range(len(profile) - 1):
        a, b = row * n + k, row * n + nxt
        c, d = (row + 1) * n + nxt, (row + 1) * n + k
        faces += [np.column_stack([a, d, c]), np.column_stack([a, c, b])]
    last = (len(profile) - 1) * n
    faces.append(np.column_stack([np.full(n, bottom), last + nxt, last + k]))
    return verts, np.vstack(faces)


def _mesh(verts, faces, center, tree):
    c = np.asarray(center, dtype=np.float64)
    if c.shape != (3,) or not np.isfinite(c).all():
        raise ValueError(f"center must be 3 finite numbers, got {center!r}")
    return TriangleMesh(verts + c, np.asarray(faces, np.intp), **tree)


def _size(x, name):
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(x).__name__}")
    if not (0.0 < x < np.inf):
        raise ValueError(f"{name} must be finite and > 0, got {x}")


def _sizes(xs, name):
    arr = np.asarray(xs, dtype=np.float64) if not isinstance(xs, str) else None
    if arr is None or arr.shape != (3,) or not (np.isfinite(arr) & (arr > 0)).all():
        raise ValueError(f"{name} must be 3 finite sizes > 0, got {xs!r}")
    return arr


def _count(n, name, minimum):
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {type(n).__name__}")
    if n < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {n}")
