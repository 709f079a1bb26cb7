"""The witness search of a Scene step in mode any (:mod:`hitbox._kernels.witness`):
slot neighbours and tree links against brute-force tables; every pair the search
returns crosses (brute-force triangle test), and the search misses no crossing pair
among those it tries. The walk it hands on to is tested in test_front.py."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from hitbox._kernels.witness import (
    slot_neighbours,
    tree_links,
    witness_search,
)
from hitbox._torus import torus_mesh
from hitbox.mesh import TriangleMesh
from hitbox.triangle import overlap as triangle_overlap

MESH = TriangleMesh(*torus_mesh(800), node="obb")
ORDER = MESH.bvh.prim_order
ADJ = slot_neighbours(MESH.faces, ORDER)
PARENT, LEAF = tree_links(MESH._args[3], MESH._args[4])


def test_slot_neighbours_share_an_edge_and_miss_none():
    faces = MESH.faces
    edges = {}
    for f, tri in enumerate(faces.tolist()):
        for e in range(3):
            key = tuple(sorted((tri[e], tri[(e + 1) % 3])))
            edges.setdefault(key, []).append(f)
    slot_of = np.argsort(ORDER)
    for s in range(len(faces)):
        f = ORDER[s]
        tri = faces[f].tolist()
        for e in range(3):
            key = tuple(sorted((tri[e], tri[(e + 1) % 3])))
            others = [g for g in edges[key] if g != f]
            if others:
                assert ORDER[ADJ[s, e]] in others
            else:
                assert ADJ[s, e] == -1
    assert (slot_of[ORDER] == np.arange(len(ORDER))).all()


def test_an_open_mesh_has_no_neighbour_across_its_border():
    verts = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], float)
    faces = np.array([[0, 1, 2], [1, 3, 2]])
    adj = slot_neighbours(faces, np.array([1, 0]))  # slot 0 holds face 1
    assert sorted(adj[0].tolist()) == [-1, -1, 1]
    assert sorted(adj[1].tolist()) == [-1, -1, 0]
    assert slot_neighbours(np.empty((0, 3), np.int64), np.empty(0, np.int64)).shape == (
        0,
        3,
    )
    del verts


def test_tree_links_are_the_tree():
    first, count = MESH._args[3], MESH._args[4]
    assert PARENT[0] == -1
    for x in np.flatnonzero(count == 0):
        assert PARENT[first[x]] == x and PARENT[first[x] + 1] == x
    for s in range(len(LEAF)):
        x = LEAF[s]
        assert count[x] > 0 and first[x] <= s < first[x] + count[x]


def _pose(rng, spread):
    angle = rng.normal(size=3)
    theta = np.linalg.norm(angle)
    k = angle / theta
    cross = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    rot = np.eye(3) + np.sin(theta) * cross + (1 - np.cos(theta)) * cross @ cross
    return rot, rng.uniform(-spread, spread, 3)


def _crossing_pairs(rng):
    """A random pose of MESH against itself and its crossing face pairs (brute force):
    (rot, trans, set of (face_a, face_b))."""
    rot, trans = _pose(rng, 1.5)
    pose = np.eye(4)
    pose[:3, :3], pose[:3, 3] = rot, trans
    brute = MESH.intersect_brute(MESH, pose)
    return rot, trans, set(zip(brute[0].tolist(), brute[1].tolist(), strict=True))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_what_the_search_returns_crosses(seed):
    rng = np.random.default_rng(seed)
    rot, trans, crossing = _crossing_pairs(rng)
    tris = MESH._args[5]
    slot_of = np.argsort(ORDER)
    near = [  # witnesses next to a crossing pair, as a step after a small motion has
        (int(rng.choice(ADJ[slot_of[a]])), int(slot_of[b])) for a, b in sorted(crossing)
    ]
    far = [tuple(int(x) for x in rng.integers(0, len(tris), 2)) for _ in range(10)]
    for wa, wb in near[:20] + far:
        if wa < 0:
            continue
        sa, sb, ca, cb = witness_search(tris, ADJ, tris, ADJ, rot, trans, wa, wb)
        if sa >= 0:
            assert (ORDER[sa], ORDER[sb]) in crossing
        assert 0 <= ca < len(tris) and 0 <= cb < len(tris)
        tried = [(wa, wb)] + [
            (a, b) for a in [ca, *ADJ[ca]] for b in [cb, *ADJ[cb]] if a >= 0 and b >= 0
        ]
        if any((ORDER[a], ORDER[b]) in crossing for a, b in tried):
            assert sa >= 0
        # the predicted pair first, then the witness
        if (ORDER[ca], ORDER[cb]) in crossing:
            assert (sa, sb) == (ca, cb)
        elif (ORDER[wa], ORDER[wb]) in crossing:
            assert (sa, sb) == (wa, wb)


def test_a_second_round_finds_a_crossing_two_rings_from_the_witness():
    """Witnesses two edge hops from a crossing pair, as after a larger motion: where the
    first round (the predicted pair, the witness, the predicted pair's ring) holds no
    crossing pair, the search predicts again from the pair it reached and tests that
    pair and its ring; whatever it returns crosses, and over these poses the second
    round finds crossings the first could not."""
    from hitbox._kernels.witness import predicted

    tris = MESH._args[5]
    slot_of = np.argsort(ORDER)

    def ring(a, b):
        return [(x, y) for x in [a, *ADJ[a]] for y in [b, *ADJ[b]] if x >= 0 and y >= 0]

    second = 0
    for seed in range(12):
        rng = np.random.default_rng(seed)
        rot, trans, crossing = _crossing_pairs(rng)
        for a, b in sorted(crossing)[::7]:
            one = ADJ[slot_of[a]][ADJ[slot_of[a]] >= 0]
            two = ADJ[int(rng.choice(one))]
            wa, wb = int(rng.choice(two[two >= 0])), int(slot_of[b])
            sa, sb, ca, cb = witness_search(tris, ADJ, tris, ADJ, rot, trans, wa, wb)
            if sa >= 0:
                assert (ORDER[sa], ORDER[sb]) in crossing
            first_a, first_b = predicted(tris, ADJ, tris, ADJ, rot, trans, wa, wb)
            first = [(wa, wb), *ring(first_a, first_b)]
            if any((ORDER[x], ORDER[y]) in crossing for x, y in first):
                assert sa >= 0
            elif sa >= 0:
                second += 1
                assert (ca, cb) == predicted(
                    tris, ADJ, tris, ADJ, rot, trans, first_a, first_b
                )
                assert (sa, sb) in ring(ca, cb)
    assert second > 0


def _grid(n):
    """A flat n x n grid of unit squares, each split into two triangles (z = 0)."""
    xs, ys = np.meshgrid(np.arange(n + 1.0), np.arange(n + 1.0), indexing="ij")
    verts = np.stack([xs.ravel(), ys.ravel(), np.zeros(xs.size)], axis=1)
    idx = np.arange((n + 1) ** 2).reshape(n + 1, n + 1)
    a, b = idx[:-1, :-1].ravel(), idx[1:, :-1].ravel()
    c, d = idx[1:, 1:].ravel(), idx[:-1, 1:].ravel()
    faces = np.concatenate([np.stack([a, b, c], 1), np.stack([a, c, d], 1)])
    return verts[faces], faces


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_the_walk_toward_a_point_reaches_the_triangle_holding_it(seed):
    """On a flat grid, from a triangle to a point inside it (no hop) or inside one of
    its edge neighbours (one hop), and from anywhere: a triangle is returned that is
    the start or a walk's neighbour chain, and it holds the point whenever it says so
    (the brute-force point-in-triangle test)."""
    from hitbox._kernels.witness import toward

    tris, faces = _grid(6)
    adj = slot_neighbours(faces, np.arange(len(faces)))
    rng = np.random.default_rng(seed)
    eye, zero = np.eye(3), np.zeros(3)

    def inside(t, p):
        (x0, y0, _), (x1, y1, _), (x2, y2, _) = tris[t]
        d = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)
        w1 = ((p[0] - x0) * (y2 - y0) - (x2 - x0) * (p[1] - y0)) / d
        w2 = ((x1 - x0) * (p[1] - y0) - (p[0] - x0) * (y1 - y0)) / d
        return min(w1, w2, 1 - w1 - w2) >= 0

    def interior(t):
        w = rng.dirichlet([1, 1, 1]) * 0.9 + 0.1 / 3
        return tuple(float(x) for x in w @ tris[t])

    start = int(rng.integers(len(tris)))
    p = interior(start)
    assert toward(tris, adj, start, p, eye, zero, False) == start
    for nb in adj[start]:
        if nb >= 0:
            p = interior(int(nb))
            assert toward(tris, adj, start, p, eye, zero, False) == nb
    target = int(rng.integers(len(tris)))
    p = interior(target)
    got = toward(tris, adj, start, p, eye, zero, False)
    assert 0 <= got < len(tris)
    if inside(got, p):
        assert got == target  # interior points lie in one triangle only
    # moved: the same walk over the grid turned and shifted, the point moved alike
    q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    shift = rng.normal(size=3)
    moved_p = tuple(float(x) for x in q @ np.array(p) + shift)
    assert toward(tris, adj, start, moved_p, q, shift, True) in (got, target)


def test_the_search_survives_degenerate_and_parallel_witnesses():
    """A witness on a zero-area triangle (no plane), or two coplanar triangles (their
    planes meet in no line): no prediction is made, the search still tries the
    witness's own ring, and every pair it returns crosses."""
    tris, faces = _grid(4)
    adj = slot_neighbours(faces, np.arange(len(faces)))
    flat = tris.copy()
    flat[5] = flat[5, 0]  # triangle 5 collapsed to a point
    eye, zero = np.eye(3), np.zeros(3)
    for wa, wb in ((5, 7), (7, 5), (3, 3), (0, len(faces) - 1)):
        sa, sb, ca, cb = witness_search(flat, adj, flat, adj, eye, zero, wa, wb)
        assert (ca, cb) == (wa, wb)  # no plane or no line: centred on the witness
        if sa >= 0:
            p, q = flat[sa], flat[sb]
            assert triangle_overlap(p[None], q[None])[0]
    # the same grid lifted by 1e-3: parallel planes apart, nothing crosses
    lifted = flat + np.array([0, 0, 1e-3])
    sa, sb, ca, cb = witness_search(flat, adj, lifted, adj, eye, zero, 3, 3)
    assert (sa, sb, ca, cb) == (-1, -1, 3, 3)
