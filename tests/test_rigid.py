"""The compiled rotation check against its numpy twin, around the tolerance."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hitbox._kernels.rigid import RIGID_TOL, first_not_rotation, first_not_rotation_py
from hitbox.mesh import TriangleMesh
from tests.strategies import rotation


@st.composite
def near_rotations(draw):
    """K rotations, some nudged by about the tolerance, some reflected or scaled."""
    k = draw(st.integers(0, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    rots = np.array([rotation(rng) for _ in range(k)]).reshape(k, 3, 3)
    for i in range(k):
        how = draw(st.sampled_from(["clean", "nudge", "scale", "reflect", "shear"]))
        size = draw(st.sampled_from([0.1, 0.4, 0.6, 1.0, 3.0])) * RIGID_TOL
        if how == "nudge":
            rots[i] += size * rng.normal(size=(3, 3))
        elif how == "scale":
            rots[i] *= 1.0 + size
        elif how == "reflect":
            rots[i, :, 0] *= -1.0
        elif how == "shear":
            rots[i, 0, 1] += size
    return rots


@given(near_rotations())
def test_kernel_check_equals_numpy_twin(rots):
    assert first_not_rotation(rots) == first_not_rotation_py(rots)


def test_known_cases():
    eye = np.eye(3)[None]
    assert first_not_rotation(np.zeros((0, 3, 3))) == -1
    assert first_not_rotation(np.concatenate([eye, eye])) == -1
    assert first_not_rotation(np.concatenate([eye, -eye])) == 1  # det -1
    assert first_not_rotation(np.concatenate([eye, eye * (1 + 1e-5)])) == 1
    assert first_not_rotation(np.concatenate([eye * (1 + 4e-7), eye])) == -1
    assert first_not_rotation(np.full((1, 3, 3), np.nan)) == 0


def test_many_poses_name_the_first_non_rigid_pose():
    verts = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0]])
    mesh = TriangleMesh(verts, np.array([[0, 1, 2]]))
    poses = np.tile(np.eye(4), (4, 1, 1))
    poses[2, :3, :3] *= 1.001
    with pytest.raises(ValueError, match=r"transforms\[2\] must be rigid"):
        mesh.intersect_many(mesh, poses)
