"""A mesh against convex shapes (TriangleMesh.intersect_shapes): the tree path equals
every face tested, a box mesh against balls in closed form, python-fcl where the answer
is clear of touching."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hitbox import convex as cv
from hitbox import shapes

TORUS = shapes.torus(600)
CUBE = shapes.box((2.0, 2.0, 2.0))  # [-1, 1]^3, 12 faces


def _random_shapes(rng, n, spread=1.6):
    """n shapes of every kind near the origin, random sizes and orientations."""
    made = []
    for k in range(n):
        c = rng.uniform(-spread, spread, 3)
        d = rng.normal(size=3)
        d *= rng.uniform(0.05, 0.8) / np.linalg.norm(d)
        r = rng.uniform(0.0, 0.3)
        kind = k % 7
        if kind == 0:
            made.append(cv.sphere(c, r))
        elif kind == 1:
            made.append(cv.capsule(c - d, c + d, r))
        elif kind == 2:
            q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
            made.append(
                cv.box(c, rng.uniform(0.0, 0.5, 3), q * np.sign(np.linalg.det(q)))
            )
        elif kind == 3:
            made.append(cv.cylinder(c - d, c + d, r))
        elif kind == 4:
            made.append(cv.cone(c - d, c + d, r))
        elif kind == 5:
            made.append(cv.hull(c + 0.4 * rng.normal(size=(rng.integers(1, 12), 3))))
        else:
            made.append(cv.halfspace(rng.normal(size=3), rng.uniform(-1.5, 1.5)))
    return cv.concatenate(made)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 20))
def test_the_tree_finds_what_every_face_finds(seed, n):
    rng = np.random.default_rng(seed)
    s = _random_shapes(rng, n)
    for mesh in (TORUS, CUBE):
        got = mesh.intersect_shapes(s, mode="all")
        want = mesh.intersect_shapes_brute(s, mode="all")
        np.testing.assert_array_equal(got, want)
        touched = np.zeros(n, bool)
        touched[got[0]] = True
        np.testing.assert_array_equal(mesh.intersect_shapes(s), touched)


def test_balls_against_a_cube_s_surface_in_closed_form():
    """A ball touches the surface of [-1, 1]^3 when it reaches the cube and is not
    wholly inside it: dist(c, cube) <= r and (c outside, or r >= 1 - max |c_i|)."""
    rng = np.random.default_rng(3)
    c = rng.uniform(-2.0, 2.0, (2000, 3))
    r = rng.uniform(0.0, 1.0, 2000)
    outside = np.linalg.norm(np.maximum(np.abs(c) - 1.0, 0.0), axis=1)
    to_face = 1.0 - np.abs(c).max(axis=1)  # > 0 inside
    want = np.where(to_face > 0, r >= to_face, outside <= r)
    clear = np.abs(np.where(to_face > 0, r - to_face, outside - r)) > 1e-9
    got = CUBE.intersect_shapes(cv.sphere(c, r))
    np.testing.assert_array_equal(got[clear], want[clear])
    assert want[clear].sum() > 200 and (~want[clear]).sum() > 200


def test_a_transform_moves_the_shapes_into_the_mesh_frame():
    rng = np.random.default_rng(5)
    s = _random_shapes(rng, 14, spread=3.0)
    pose = np.eye(4)
    q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    pose[:3, :3] = q * np.sign(np.linalg.det(q))
    pose[:3, 3] = (0.3, -0.2, 0.1)
    np.testing.assert_array_equal(
        TORUS.intersect_shapes(s, pose, mode="all"),
        TORUS.intersect_shapes(cv.transform(s, pose), mode="all"),
    )


def test_python_fcl_agrees_where_the_answer_is_clear():
    """Capsules, boxes, balls and cylinders against the torus: python-fcl's mesh test,
    wherever the shape is more than 1e-6 from touching (closest face distance, or the
    depth of the deepest face)."""
    fcl = pytest.importorskip("fcl")
    model = fcl.BVHModel()
    model.beginModel(len(TORUS.vertices), len(TORUS.faces))
    model.addSubModel(TORUS.vertices, TORUS.faces)
    model.endModel()
    mesh_obj = fcl.CollisionObject(model, fcl.Transform())
    rng = np.random.default_rng(11)
    checked = 0
    for k in range(300):
        c = rng.uniform(-1.6, 1.6, 3)
        r = rng.uniform(0.05, 0.3)
        q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
        q *= np.sign(np.linalg.det(q))
        half = rng.uniform(0.05, 0.4)
        kind = k % 4
        if kind == 0:
            mine, geom = cv.sphere(c, r), fcl.Sphere(r)
        elif kind == 1:
            p0, p1 = c - half * q[:, 2], c + half * q[:, 2]
            mine, geom = cv.capsule(p0, p1, r), fcl.Capsule(r, 2 * half)
        elif kind == 2:
            h = rng.uniform(0.05, 0.4, 3)
            mine, geom = cv.box(c, h, q), fcl.Box(*(2 * h))
        else:
            p0, p1 = c - half * q[:, 2], c + half * q[:, 2]
            mine, geom = cv.cylinder(p0, p1, r), fcl.Cylinder(r, 2 * half)
        faces = cv.triangles(TORUS.vertices[TORUS.faces])
        gap = cv.distance(faces, mine).distance.min()
        deep = cv.penetration(faces, mine).depth.max()
        if gap <= 1e-6 and deep <= 1e-6:
            continue  # too near touching for a float32-free comparison
        shape_obj = fcl.CollisionObject(geom, fcl.Transform(q, c))
        theirs = fcl.collide(
            mesh_obj, shape_obj, fcl.CollisionRequest(), fcl.CollisionResult()
        )
        assert bool(theirs) == bool(TORUS.intersect_shapes(mine)[0]), (k, gap, deep)
        checked += 1
    assert checked > 250


@pytest.mark.parametrize("size", [2e3, 2e6])
def test_a_small_shape_within_tolerance_of_a_large_face_touches(size):
    """Touching is within TOUCH of the pair's scale, which a large face sets: a small
    shape that near a face 2,000 (or 2 million) wide touches it, as the brute twin and
    convex.intersects say (the tree's boxes were widened by the shape's scale only)."""
    from hitbox.mesh import TriangleMesh
    from hitbox.pipeline import Scene

    h = size / 2
    ground = TriangleMesh([[-h, -h, 0], [h, -h, 0], [h, h, 0], [-h, h, 0]],
                          [[0, 1, 2], [0, 2, 3]])  # fmt: skip
    gap = 0.25 * cv.TOUCH * size  # within the pair's tolerance, far beyond the ball's
    balls = cv.sphere([[3e-3, 4e-3, 1e-3 + gap], [3e-3, 4e-3, 1e-3 + 8 * cv.TOUCH * size]],
                      1e-3)  # fmt: skip
    want = ground.intersect_shapes_brute(balls)
    assert want.tolist() == [True, False]
    assert ground.intersect_shapes(balls).tolist() == want.tolist()
    for k in range(2):
        scene = Scene()
        scene.add(ground, static=True)
        ball = cv.sphere(balls.trans[k], 1e-3)
        scene.add(cv.capsule(ball.trans[0], ball.trans[0], 1e-3))
        assert scene.query().pairs.shape[1] == int(want[k])
        assert scene.query_brute().pairs.shape[1] == int(want[k])


def test_empty_and_bad_input():
    none = cv.concatenate([])
    assert TORUS.intersect_shapes(none).shape == (0,)
    assert TORUS.intersect_shapes(none, mode="all").shape == (2, 0)
    with pytest.raises(TypeError, match="shapes must be a hitbox.convex.Shapes"):
        TORUS.intersect_shapes(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="mode"):
        TORUS.intersect_shapes(cv.sphere([0, 0, 0], 1.0), mode="some")
    with pytest.raises(ValueError, match="rot|rigid|pose"):
        TORUS.intersect_shapes(cv.sphere([0, 0, 0], 1.0), np.full((4, 4), 2.0))
