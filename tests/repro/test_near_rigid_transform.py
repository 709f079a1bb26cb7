"""Found while reworking the node tests: a transform accepted as rigid (orthonormal to
1e-6, as float32 matrices are) scaled B's triangles by up to 1 + 5e-7, but the moved
OBB nodes were tested as if their axes were unit and orthogonal, so an OBB tree missed
about one touching contact in ten where the contact sat on a box face of B. Node tests
now grow B's extents by a bound on the transform's distance from orthonormal."""

import numpy as np
import pytest

from hitbox.bvh import KINDS
from hitbox.mesh import TriangleMesh
from tests.strategies import rotation


def _touching_cases(n, seed):
    """B one triangle under a nearly rigid map; A a large triangle through one of B's
    moved vertices, its plane across the direction from B's centre to that vertex."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        vb = rng.normal(size=(3, 3))
        matrix = np.eye(4)
        matrix[:3, :3] = (1.0 + rng.choice([4.9e-7, -4.9e-7])) * rotation(rng)
        matrix[:3, 3] = rng.normal(size=3)
        moved = vb @ matrix[:3, :3].T + matrix[:3, 3]
        k = rng.integers(3)
        u = moved[k] - moved.mean(axis=0)
        u /= np.linalg.norm(u)
        e1 = np.cross(u, rng.normal(size=3))
        e1 /= np.linalg.norm(e1)
        e2 = np.cross(u, e1)
        p = moved[k]
        va = np.array([p + 5 * e1, p - 3 * e1 + 4 * e2, p - 3 * e1 - 4 * e2])
        yield va, vb, matrix


@pytest.mark.parametrize("kind", KINDS)
def test_nearly_rigid_transforms_keep_touching_contacts(kind):
    face = np.array([[0, 1, 2]])
    touching = 0
    for va, vb, matrix in _touching_cases(120, seed=2):
        a, b = TriangleMesh(va, face, node=kind), TriangleMesh(vb, face, node=kind)
        truth = len(a.intersect_brute(b, matrix)[0]) > 0
        touching += truth
        assert a.intersect(b, matrix) == truth
        assert a.intersect_many(b, matrix[None])[0] == truth
    assert touching > 60  # the cases really touch (exact test), so the check has teeth
