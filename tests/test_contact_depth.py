"""Penetration depth and normal of touching triangle pairs, and of a triangle against a
box or a ball (hitbox._kernels.triangle_depth; TriangleMesh.contacts' normals and depths;
the Scene's contacts mode) against plainly correct
oracles: no direction parts the pair with a shorter move (every unit direction's move,
sampled densely, is at least the depth), the move along the normal parts it exactly
(the exact overlap test says apart just beyond the depth, touching or crossing just
short of it), swapping the pair flips the normal, rigid motions carry both along."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hitbox import convex as cx
from hitbox import shapes
from hitbox._kernels.triangle_depth import tri_ball_depth, tri_box_depth, tri_pair_depth
from hitbox._kernels.triangle_overlap import tri_tri_overlap
from hitbox._types import Spheres
from hitbox.obb import OBBs
from hitbox.pipeline import Scene

SEEDS = st.integers(0, 2**32 - 1)
DIRECTIONS = np.random.default_rng(7).normal(size=(20_000, 3))
DIRECTIONS /= np.linalg.norm(DIRECTIONS, axis=1, keepdims=True)


def _crossing_pair(seed):
    """Two random triangles of size about 1 that cross (rejection sampled)."""
    rng = np.random.default_rng(seed)
    while True:
        p = rng.normal(size=(3, 3))
        q = rng.normal(size=(3, 3)) * rng.uniform(0.3, 1.5) + rng.normal(size=3) * 0.3
        if tri_tri_overlap(*map(tuple, p), *map(tuple, q)):
            return p, q


def _moves(p, q, u):
    """Per direction: the move of q along u that parts it from p (max u.p - min u.q)."""
    return (p @ u.T).max(axis=0) - (q @ u.T).min(axis=0)


def _depth(p, q):
    d, *n = tri_pair_depth(*map(tuple, p), *map(tuple, q))
    return d, np.array(n)


@settings(max_examples=80, deadline=None)
@given(seed=SEEDS)
def test_depth_is_the_least_parting_move(seed):
    p, q = _crossing_pair(seed)
    d, n = _depth(p, q)
    assert d >= 0.0 and np.isclose(np.linalg.norm(n), 1.0, atol=1e-12)
    # no sampled direction parts them with a shorter move
    assert _moves(p, q, DIRECTIONS).min() >= d - 1e-9
    # along the normal, the move is the depth: a little more parts them, less does not
    assert np.isclose(_moves(p, q, n[None])[0], d, atol=1e-9)
    tol = 1e-7 * (1.0 + d)
    beyond, short = q + (d + tol) * n, q + max(d - tol, 0.0) * n
    assert not tri_tri_overlap(*map(tuple, p), *map(tuple, beyond))
    if d > tol:
        assert tri_tri_overlap(*map(tuple, p), *map(tuple, short))


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS)
def test_swapping_flips_and_motion_carries(seed):
    p, q = _crossing_pair(seed)
    d, n = _depth(p, q)
    d2, n2 = _depth(q, p)
    assert np.isclose(d, d2, atol=1e-12)
    # a tie between axes may pick another normal of the same depth: check the move
    assert np.isclose(_moves(q, p, n2[None])[0], d, atol=1e-9)
    rng = np.random.default_rng(seed)
    rot, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    rot *= np.sign(np.linalg.det(rot))
    shift = rng.normal(size=3) * 10
    d3, n3 = _depth(p @ rot.T + shift, q @ rot.T + shift)
    assert np.isclose(d3, d, atol=1e-9)
    assert np.isclose(_moves(p @ rot.T, q @ rot.T, n3[None])[0], d, atol=1e-9)


def test_touching_coplanar_and_degenerate_pairs():
    p = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0]])
    # q stands on p's face, touching along a segment: depth 0
    q = np.array([[0.2, 0.2, 0.0], [0.4, 0.2, 0.0], [0.3, 0.2, 1.0]])
    assert _depth(p, q)[0] == 0.0
    # coplanar overlap: parts along the common normal at once
    d, n = _depth(p, p + [0.1, 0.1, 0.0])
    assert d == 0.0 and np.isclose(abs(n[2]), 1.0)
    # q's tip pierces p's inside by 0.05; any sideways way out is at least 0.2 long
    q = np.array([[0.2, 0.2, -0.05], [0.25, 0.2, 1.0], [0.2, 0.25, 1.0]])
    d, n = _depth(p, q)
    assert np.isclose(d, 0.05, atol=1e-15) and np.allclose(n, [0, 0, 1], atol=1e-15)
    # both collapsed to points: no axis
    d, n = _depth(np.zeros((3, 3)), np.zeros((3, 3)))
    assert d == 0.0 and np.isnan(n).all()


@pytest.mark.parametrize("node", ["obb", "aabb"])
def test_mesh_contacts_carry_each_pairs_depth(node):
    a, b = shapes.torus(600, node=node), shapes.icosphere(0.5, 2, node=node)
    pose = np.eye(4)
    pose[:3, 3] = (1.0, 0.1, 0.05)
    found = a.contacts(b, pose)
    assert found.faces.shape[1] > 0
    moved = b.triangles @ pose[:3, :3].T + pose[:3, 3]
    for k, (fa, fb) in enumerate(found.faces.T):
        d, n = _depth(a.triangles[fa], moved[fb])
        assert found.depths[k] == d
        np.testing.assert_array_equal(found.normals[k], n)
    many = a.contacts_many(b, np.stack([pose, np.eye(4), pose]))
    np.testing.assert_array_equal(many.depths[many.pairs[0] == 2], found.depths)
    # the Scene's contacts mode: the same pairs, normals turned into the world frame
    scene = Scene()
    turn = np.eye(4)
    turn[:3, :3] = [[0, -1, 0], [1, 0, 0], [0, 0, 1]]
    ia = scene.add(a, turn)
    scene.add(b, turn @ pose)
    step = scene.query(mode="contacts")
    cols = slice(step.offsets[0], step.offsets[1])
    assert step.pairs[:, 0].tolist() == [ia, ia + 1]
    np.testing.assert_array_equal(step.depths[cols], found.depths)
    np.testing.assert_allclose(step.normals[cols], found.normals @ turn[:3, :3].T,
                               atol=1e-15)  # fmt: skip


def test_scene_contacts_of_plain_volumes():
    rng = np.random.default_rng(3)
    for _ in range(20):
        scene = Scene()
        ra, rb = rng.uniform(0.3, 1.0, 2)
        u = rng.normal(size=3)
        ca = rng.normal(size=3)
        cb = ca + u / np.linalg.norm(u) * rng.uniform(0.1, 0.9) * (ra + rb)
        scene.add(Spheres(ca, ra))
        scene.add(Spheres(cb, rb))
        step = scene.query(mode="contacts")
        gap = np.linalg.norm(cb - ca)
        assert step.pairs.shape[1] == 1 and np.isclose(step.depths[0], ra + rb - gap)
        np.testing.assert_allclose(step.normals[0], (cb - ca) / gap, atol=1e-12)
        assert np.isnan(step.segments).all()
    # a ball resting 0.1 deep in a box's top face
    scene = Scene()
    scene.add(np.array([[-1.0, -1, -1], [1, 1, 0]]))
    scene.add(Spheres(np.array([0.3, 0.2, 0.4]), 0.5))
    step = scene.query(mode="contacts")
    assert np.isclose(step.depths[0], 0.1) and np.allclose(step.normals[0], [0, 0, 1])
    # in a 2D scene: in the plane
    flat = Scene(dim=2)
    flat.add(Spheres(np.zeros(2), 1.0))
    flat.add(Spheres(np.array([1.5, 0.0]), 1.0))
    step = flat.query(mode="contacts")
    assert np.isclose(step.depths[0], 0.5) and np.allclose(step.normals[0], [1, 0, 0])


def _shape_2d(rng, kind):
    """(object to add to a 2D scene, support function of unit 2D directions (K, 2),
    corners (4, 2) or None)."""
    centre = rng.uniform(-1.0, 1.0, 2)
    if kind == "disc":
        r = rng.uniform(0.2, 1.0)
        return Spheres(centre, r), lambda u: u @ centre + r, None
    half = rng.uniform(0.1, 1.0, 2)
    turn = rng.uniform(0, np.pi) if kind == "rectangle" else 0.0
    rot = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    corners = centre + (np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * half) @ rot.T
    if kind == "box":
        shape = np.stack([centre - half, centre + half])
    else:
        shape = OBBs(centre[None], half[None], rot[None])
    return shape, lambda u: (u @ corners.T).max(axis=-1), corners


def _depth_2d(sa, sb, ca, cb, centres):
    """The least overlap of two convex plane shapes over every direction (the distance
    from the origin to the boundary of A - B), exact: the minimum lies on an edge
    normal, a direction from a disc's centre to a corner, or the centres' line."""
    cand = [centres[1] - centres[0]]
    for corners in (ca, cb):
        if corners is not None:
            edges = np.roll(corners, -1, axis=0) - corners
            cand += list(edges @ np.array([[0, -1], [1, 0]]))
    for corners, centre in ((ca, centres[1]), (cb, centres[0])):
        if corners is not None:
            cand += list(centre - corners)
    u = np.array([c / np.linalg.norm(c) for c in cand if np.linalg.norm(c) > 0])
    u = np.concatenate([u, -u])
    return (sa(u) + sb(-u)).min()


@settings(max_examples=80, deadline=None)
@given(
    seed=SEEDS,
    kinds=st.sampled_from(
        [
            ("disc", "disc"),
            ("disc", "rectangle"),
            ("rectangle", "disc"),
            ("box", "rectangle"),
            ("rectangle", "rectangle"),
            ("box", "box"),
        ]
    ),
)
def test_2d_scene_contacts_are_the_least_parting_moves_in_the_plane(seed, kinds):
    rng = np.random.default_rng(seed)
    (shape_a, sa, ca), (shape_b, sb, cb) = (_shape_2d(rng, k) for k in kinds)
    scene = Scene(dim=2)
    scene.add(shape_a)
    scene.add(shape_b)
    step = scene.query(mode="contacts")
    if step.pairs.shape[1] == 0:
        return
    centres = [np.asarray(shape.center) if c is None else c.mean(axis=0)
               for shape, c in ((shape_a, ca), (shape_b, cb))]  # fmt: skip
    want = _depth_2d(sa, sb, ca, cb, centres)
    normal = step.normals[0]
    assert normal[2] == 0.0 and abs(np.linalg.norm(normal) - 1.0) < 1e-12
    assert abs(step.depths[0] - max(want, 0.0)) <= 1e-9
    # the normal achieves it: A and B overlap by exactly the depth along it
    n2 = normal[:2]
    assert abs(sa(n2) + sb(-n2) - step.depths[0]) <= 1e-9
    m = step.manifolds
    assert 1 <= m.count[0] <= 2
    k = m.count[0]
    assert (m.point_a[0, :k, 2] == 0.0).all() and (m.point_b[0, :k, 2] == 0.0).all()
    np.testing.assert_allclose(
        m.point_a[0, :k] - m.point_b[0, :k], m.depth[0, :k, None] * normal, atol=1e-9
    )


def _random_rotation(rng):
    rot, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    return rot * np.sign(np.linalg.det(rot))


@settings(max_examples=60, deadline=None)
@given(seed=SEEDS)
def test_triangle_box_and_ball_depths_are_the_least_parting_moves(seed):
    rng = np.random.default_rng(seed)
    tri = rng.normal(size=(3, 3))
    centre = tri.mean(axis=0) + rng.normal(size=3) * 0.3
    half, rot = rng.uniform(0.2, 0.8, 3), _random_rotation(rng)
    d, *n = tri_box_depth(*map(tuple, tri), centre, half, rot)
    n = np.array(n)
    corners = centre + (np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1)
                                  for z in (-1, 1)]) * half) @ rot.T  # fmt: skip
    moves = (tri @ DIRECTIONS.T).max(axis=0) - (corners @ DIRECTIONS.T).min(axis=0)
    assert max(moves.min(), 0.0) >= d - 1e-9  # no direction parts them by less
    hull = cx.hull(tri)

    def meets(shift):
        return bool(cx.intersects(hull, cx.box(centre + shift, half, rot))[0])

    if meets(np.zeros(3)):
        tol = 1e-7 * (1.0 + d)
        assert not meets((d + tol) * n)
        if d > tol:
            assert meets((d - tol) * n)
    r = rng.uniform(0.2, 1.0)
    d, *n = tri_ball_depth(*map(tuple, tri), centre, r)
    gap = float(cx.distance(hull, cx.sphere(centre, 0.0)).distance[0])
    assert np.isclose(d, max(r - gap, 0.0), atol=1e-9)
    if gap > 1e-9:
        assert np.isclose(float(cx.distance(hull, cx.sphere(centre + d * np.array(n), 0.0))
                                .distance[0]), max(gap, r), atol=1e-9)  # fmt: skip


@pytest.mark.parametrize("mesh_first", [True, False])
def test_scene_contacts_of_a_mesh_against_plain_volumes(mesh_first):
    scene = Scene()
    ball = Spheres(np.array([0.0, 0.0, 1.3]), 0.5)  # 0.2 into the cube's top face
    box = np.array([[-0.3, -0.3, -1.25], [0.3, 0.3, -0.9]])  # 0.1 into its bottom
    if mesh_first:
        scene.add(shapes.box((2, 2, 2)))
        scene.add(ball)
        scene.add(box)
    else:
        scene.add(ball)
        scene.add(box)
        scene.add(shapes.box((2, 2, 2)))
    step = scene.query(mode="contacts")
    want = {"ball": (0.2, [0, 0, 1]), "box": (0.1, [0, 0, -1])}
    for k, (i, j) in enumerate(step.pairs.T.tolist()):
        lo, hi = step.offsets[k], step.offsets[k + 1]
        mesh = 0 if mesh_first else 2
        other = j if i == mesh else i
        depth, normal = want["ball" if other == (1 if mesh_first else 0) else "box"]
        sign = 1.0 if j == other else -1.0  # the normal moves object j
        np.testing.assert_allclose(step.depths[lo:hi], depth, atol=1e-12)
        np.testing.assert_allclose(step.normals[lo:hi], sign * np.array([normal] * (hi - lo)),
                                   atol=1e-12)  # fmt: skip
