"""A fuzzer over the public API (issue: exact at the edges): meshes, poses and rays aimed
at vertices and edges, scales 2^-500 .. 2^500, translations to 1e15.

Two properties, checked by Hypothesis (a small budget in ``make test``, a long one in
``make fuzz``):

- a problem scaled by a power of two gets the same answer (faces, hits, inside), scaled:
  every float step of the problem is then exact at both scales or mapped back exactly;
- far from the origin, every reported triangle pair of a mesh pair overlaps and every
  other nearby pair does not, decided in exact rational arithmetic on the moved vertices
  as rounded once (``oracles_triangle.tri_tri_overlap``).
"""

import os

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from hitbox import shapes
from hitbox.mesh import TriangleMesh
from tests.oracles_triangle import tri_tri_overlap

#: Examples per property: a few in ``make test``, many in ``make fuzz``.
BUDGET = 2000 if os.environ.get("HYPOTHESIS_PROFILE") == "fuzz" else 15
CUBE = shapes.box((1.0, 1.0, 1.0))
TORUS = shapes.torus(60, 1.0, 0.4)


def _turn(a, b, c):
    """A rotation from three quarter-turn counts and a small tilt (dyadic entries)."""
    quarter = np.array([[0.0, -1, 0], [1, 0, 0], [0, 0, 1]])
    r = np.linalg.matrix_power(quarter, a)
    swap = np.array([[1.0, 0, 0], [0, 0, -1], [0, 1, 0]])
    return r @ np.linalg.matrix_power(swap, b) @ np.linalg.matrix_power(quarter, c)


poses = st.builds(
    lambda a, b, c, x, y, z: np.block([[_turn(a, b, c), np.array([[x], [y], [z]])],
                                       [np.zeros((1, 3)), np.ones((1, 1))]]),  # fmt: skip
    st.integers(0, 3), st.integers(0, 3), st.integers(0, 3),
    *[st.integers(-8, 8).map(lambda k: k / 8.0)] * 3,
)  # fmt: skip


@settings(max_examples=BUDGET)
@given(st.sampled_from(["cube", "torus"]), poses, st.integers(-500, 500),
       st.integers(0, 2**32 - 1))  # fmt: skip
def test_answers_are_scale_invariant(which, pose, e, seed):
    base = CUBE if which == "cube" else TORUS
    s = 2.0**e
    mesh = TriangleMesh(base.vertices * s, base.faces)
    moved = pose.copy()
    moved[:3, 3] *= s
    np.testing.assert_array_equal(mesh.intersect(mesh, moved, mode="all"),
                                  base.intersect(base, pose, mode="all"))  # fmt: skip
    # rays from random dyadic points at vertices and edge midpoints
    rng = np.random.default_rng(seed)
    tris = base.triangles
    targets = np.concatenate([tris[:, 0], (tris[:, 0] + tris[:, 1]) / 2])
    origins = rng.integers(-16, 17, (len(targets), 3)) / 8.0
    dirs = targets - origins
    keep = np.linalg.norm(dirs, axis=1) > 0
    origins, dirs = origins[keep], dirs[keep]
    want, got = base.raycast(origins, dirs), mesh.raycast(origins * s, dirs)
    np.testing.assert_array_equal(got.face, want.face)
    np.testing.assert_array_equal(mesh.contains(origins * s), base.contains(origins))
    np.testing.assert_array_equal(mesh.closest_point(origins * s).face,
                                  base.closest_point(origins).face)  # fmt: skip


@settings(max_examples=BUDGET)
@given(poses, st.floats(1e3, 1e15), st.integers(-40, 4))
def test_far_from_the_origin_pairs_match_exact_arithmetic(pose, offset, gap_exp):
    a = TriangleMesh(CUBE.vertices + [offset, 0.0, 0.0], CUBE.faces)
    moved = pose.copy()
    moved[0, 3] += offset + 1.0 + 2.0**gap_exp * np.sign(pose[0, 3] + 0.5)
    got = a.intersect(CUBE, moved, mode="all")
    assert a.intersect(CUBE, moved) == (got.shape[1] > 0)
    world = CUBE.triangles @ moved[:3, :3].T + moved[:3, 3]  # rounded once, as the walk
    reported = set(map(tuple, got.T.tolist()))
    for i, ta in enumerate(a.triangles):
        for j, tb in enumerate(world):
            if (ta.min(axis=0) > tb.max(axis=0)).any() or (
                tb.min(axis=0) > ta.max(axis=0)
            ).any():
                assert (i, j) not in reported  # boxes apart: the triangles are apart
            else:
                assert tri_tri_overlap(ta, tb) == ((i, j) in reported)


def test_found_by_the_fuzzer_rays_at_the_vertices_of_a_cube_at_two_to_minus_341():
    """Seeded regression: the exact edge test multiplies three coordinates, which
    vanished at 2^-341 (five of 24 rays took the wrong face)."""
    s = 2.0**-341
    mesh = TriangleMesh(CUBE.vertices * s, CUBE.faces)
    rng = np.random.default_rng(0)
    tris = CUBE.triangles
    targets = np.concatenate([tris[:, 0], (tris[:, 0] + tris[:, 1]) / 2])
    origins = rng.integers(-16, 17, (len(targets), 3)) / 8.0
    dirs = targets - origins
    want, got = CUBE.raycast(origins, dirs), mesh.raycast(origins * s, dirs)
    np.testing.assert_array_equal(got.face, want.face)
    np.testing.assert_array_equal(mesh.contains(origins * s), CUBE.contains(origins))
