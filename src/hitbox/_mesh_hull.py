"""A triangle mesh's convex hull as the distance certificate reads it
(:mod:`hitbox._kernels.hull_certificate`), made once per mesh with qhull
(``scipy.spatial.ConvexHull``, Barber et al. 1996).

Without scipy, or for a flat or nearly flat mesh (:data:`FLAT`), the parts are empty and
every distance query walks the trees.
"""

import numpy as np

#: Least ratio of the corners' smallest to largest spread (singular values) for which
#: the mesh gets a hull: thinner ones are flat to qhull's precision, give or take.
FLAT = 1e-9
_NONE = np.zeros(0, np.intp)
_ONE = np.zeros(1, np.intp)
_NO_POINTS = np.zeros((0, 3))
_EMPTY = (_NO_POINTS, _ONE, _NONE, _NONE, _NO_POINTS, np.zeros((0, 2, 3)), 0.0)


def cube_directions(side):
    """The centres of a cube map's cells as unit directions: (6 side^2, 3), face f the
    axis f // 2 (positive for even f), cell (i, j) spanning the other two axes in cyclic
    order (:func:`hitbox._kernels.hull_certificate.map_cell` finds a direction's cell)."""
    c = -1.0 + (2.0 * np.arange(side) + 1.0) / side
    u, v = np.meshgrid(c, c, indexing="ij")
    out = []
    for f in range(6):
        a = f // 2
        d = np.empty((side, side, 3))
        d[..., a] = 1.0 if f % 2 == 0 else -1.0
        d[..., (a + 1) % 3] = u
        d[..., (a + 2) % 3] = v
        out.append(d.reshape(-1, 3))
    d = np.concatenate(out)
    return d / np.linalg.norm(d, axis=1)[:, None]


#: Cells a side of the cube map of directions whose extreme hull vertices start the
#: climbs (6 x 8 x 8 = 384 cells).
MAP_SIDE = 8
_DIRECTIONS = cube_directions(MAP_SIDE)


def hull_parts(mesh):
    """(hull points (H, 3), their edge graph as CSR first (H + 1,) and neighbours (E,),
    the extreme point of each cell of a cube map of directions (6 MAP_SIDE^2,), the
    other points qhull found coplanar with a facet (K, 3), the tree's exact node boxes
    (M, 2, 3) (to find the triangles at a point), the largest L1 norm of a corner); kept
    on the mesh."""
    if mesh._hull is None:
        mesh._hull = _build(mesh)
    return mesh._hull


def _build(mesh):
    if mesh.n_faces == 0:
        return _EMPTY
    try:
        from scipy.spatial import ConvexHull, QhullError
    except ImportError:
        return _EMPTY
    pos = np.unique(mesh.vertices[mesh.faces].reshape(-1, 3), axis=0)  # corners only
    if len(pos) < 4:
        return _EMPTY
    # qhull merges the facets of a nearly flat set and can drop its corners (found on
    # sets up to 1e-12.7 of their size thick): a hull that misses a corner would bound
    # distances from below wrongly, so such a mesh has no certificate
    spread = np.linalg.svd(pos - pos.mean(axis=0), compute_uv=False)
    if not spread[-1] > FLAT * spread[0]:
        return _EMPTY
    try:
        hull = ConvexHull(pos)  # scipy's default options keep coplanar points (Qc)
    except QhullError:  # flat or degenerate: no certificate, the walk answers
        return _EMPTY
    verts = hull.vertices
    local = np.full(len(pos), -1, np.intp)
    local[verts] = np.arange(len(verts))
    # the polytope's edges, each both ways: the triangulated facets' edges but those
    # between two pieces of one facet (Qt gives them the same plane), which the climb
    # does not need and which make the vertices of a large flat facet hubs
    simp = local[hull.simplices]
    plane = hull.equations
    edges = []
    for k in range(3):  # the edge opposite corner k, if its neighbour is another facet
        other = hull.neighbors[:, k]
        kept = ~(plane == plane[other]).all(axis=1)
        edges.append(simp[kept][:, [(k + 1) % 3, (k + 2) % 3]])
    edges = np.concatenate(edges)
    alone = np.setdiff1d(np.arange(len(verts)), edges)
    if len(alone):  # a vertex inside a flat facet keeps its triangulation's edges
        every = np.concatenate([simp[:, [0, 1]], simp[:, [1, 2]], simp[:, [2, 0]]])
        edges = np.concatenate([edges, every[np.isin(every, alone).any(axis=1)]])
    edges = np.unique(np.concatenate([edges, edges[:, ::-1]]), axis=0)
    graph_first = _csr_first(edges[:, 0], len(verts))
    # where to start a climb: the extreme vertex of each cell of a cube map of
    # directions, one or two steps from the extreme vertex of any direction in the cell
    along = pos[verts] @ _DIRECTIONS.T
    starts = np.ascontiguousarray(np.argmax(along, axis=0).astype(np.intp))
    extra = np.setdiff1d(hull.coplanar[:, 0], verts) if len(hull.coplanar) else _NONE
    extra = np.ascontiguousarray(pos[extra].reshape(-1, 3))
    parts = (
        np.ascontiguousarray(pos[verts]), graph_first,
        np.ascontiguousarray(edges[:, 1]), starts, extra, mesh.bvh.node_box,
        float(np.abs(pos).sum(axis=1).max()),
    )  # fmt: skip
    for arr in parts[:5]:
        arr.flags.writeable = False
    return parts


def _csr_first(rows, n):
    """CSR row starts (n + 1,) of sorted row ids."""
    first = np.zeros(n + 1, np.intp)
    np.cumsum(np.bincount(rows, minlength=n), out=first[1:])
    return first
