"""The compiled rotation check against its numpy twin, around the tolerance."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hitbox import _validate as v
from hitbox._kernels.obb import rot_error
from hitbox._kernels.rigid import (
    RIGID_TOL,
    SNAP_TOL,
    first_not_rotation,
    first_not_rotation_py,
    split_transforms,
    split_transforms_py,
    write_poses,
)
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


@st.composite
def transform_stacks(draw):
    """K homogeneous matrices from near_rotations, some with a defect: a NaN or inf
    anywhere, a last row off by a little, a huge translation."""
    rots = draw(near_rotations())
    k = len(rots)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    mats = np.tile(np.eye(4), (k, 1, 1))
    mats[:, :3, :3] = rots
    mats[:, :3, 3] = rng.normal(size=(k, 3))
    for i in range(k):
        how = draw(st.sampled_from(["clean", "nan", "inf", "last row", "huge"]))
        r, c = draw(st.integers(0, 3)), draw(st.integers(0, 3))
        if how == "nan":
            mats[i, r, c] = np.nan
        elif how == "inf":
            mats[i, r, c] = -np.inf
        elif how == "last row":
            mats[i, 3, c] += draw(st.sampled_from([1e-300, 1e-9, 1.0]))
        elif how == "huge":
            mats[i, :3, 3] = 1e300
    return mats


@given(transform_stacks(), st.booleans())
def test_split_transforms_equals_numpy_twin(mats, rigid):
    rots = np.empty((len(mats), 3, 3))
    trans = np.empty((len(mats), 3))
    k = split_transforms(mats, rigid, rots, trans)
    k_py, rots_py, trans_py = split_transforms_py(mats, rigid)
    assert k == k_py
    if k < 0:
        assert np.array_equal(rots, rots_py) and np.array_equal(trans, trans_py)
        # the public check takes the compiled pass and hands the same arrays back
        rot_v, trans_v, single = v.as_transforms(mats, "transforms", rigid=rigid)
        assert np.array_equal(rot_v, rots_py) and np.array_equal(trans_v, trans_py)
        assert not single
    else:
        # the public check names a pose that is bad (the first of the first kind of
        # problem found, which need not be pose k)
        with pytest.raises(ValueError, match=r"transforms\[\d+\]") as err:
            v.as_transforms(mats, "transforms", rigid=rigid)
        j = int(str(err.value).split("[")[1].split("]")[0])
        assert split_transforms_py(mats[j : j + 1], rigid)[0] == 0


def test_split_transforms_takes_views_and_other_dtypes():
    rng = np.random.default_rng(5)
    poses = np.tile(np.eye(4), (6, 1, 1))
    poses[:, :3, :3] = [rotation(rng) for _ in range(6)]
    poses[:, :3, 3] = np.arange(18).reshape(6, 3)
    for given_ in (poses[::2], poses.astype(np.float32), poses.tolist(), poses[0]):
        rot, trans, single = v.as_transforms(given_, "transforms")
        ref = np.asarray(given_, dtype=np.float64).reshape(-1, 4, 4)
        assert np.array_equal(rot, ref[:, :3, :3]) and np.array_equal(
            trans, ref[:, :3, 3]
        )
        assert rot.flags.c_contiguous and trans.flags.c_contiguous
        assert single == (np.ndim(given_) == 2)


@given(transform_stacks(), st.integers(0, 2**32 - 1))
def test_written_poses_equal_the_numpy_twin_or_nothing_is_written(mats, seed):
    """A Scene's set_poses kernel: all poses written (rows idx, version and epoch counted
    up) and the rows to snap listed, or the first bad pose named and no table changed."""
    rng = np.random.default_rng(seed)
    k = len(mats)
    n = k + 3
    idx = rng.permutation(n)[:k].astype(np.intp)
    rots = rng.normal(size=(n, 3, 3))
    trans = rng.normal(size=(n, 3))
    version = rng.integers(0, 9, n)
    epoch = rng.integers(0, 9, n)
    before = [x.copy() for x in (rots, trans, version, epoch)]
    off = np.empty(k, np.intp)
    bad, n_off = write_poses(mats, idx, rots, trans, version, epoch, off)
    bad_py, rots_py, trans_py = split_transforms_py(mats, True)
    assert bad == bad_py
    if bad >= 0:
        for x, y in zip((rots, trans, version, epoch), before, strict=True):
            assert np.array_equal(x, y)
        return
    want_r, want_t = before[0].copy(), before[1].copy()
    want_r[idx], want_t[idx] = rots_py, trans_py
    assert np.array_equal(rots, want_r) and np.array_equal(trans, want_t)
    bumped = np.zeros(n, np.int64)
    bumped[idx] = 1
    assert np.array_equal(version, before[2] + bumped)
    assert np.array_equal(epoch, before[3] + bumped)
    err = np.empty(k)
    rot_error(rots_py, err)
    assert np.array_equal(off[:n_off], np.flatnonzero(err > SNAP_TOL))
