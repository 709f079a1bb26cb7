"""Numbers at the edges of float64 at the API: Python ints of any size, complex values,
shapes near the top of the range, deeply nested scene files. Each is an answer or a
one-line ValueError/TypeError, never an OverflowError, RecursionError or numpy warning."""

import numpy as np
import pytest

from hitbox import io, shapes, sweep
from hitbox._types import OBBs, Spheres
from hitbox.pipeline import Scene

HUGE = 10**400


def _pose(x):
    return [[1, 0, 0, x], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.add(shapes.box(), _pose(HUGE)),
        lambda s: s.add(shapes.box(), velocity=[HUGE, 0, 0]),
        lambda s: s.add(shapes.box(), angular_velocity=[0, HUGE, 0]),
        lambda s: s.add(shapes.box(), acceleration=[0, 0, HUGE]),
        lambda s: s.add([[0, 0, 0], [HUGE, 1, 1]]),
        lambda s: s.set_pose(s.add(shapes.box()), _pose(HUGE)),
        lambda s: s.set_poses([s.add(shapes.box())], [_pose(HUGE)]),
        lambda s: s.set_velocity(s.add(shapes.box()), velocity=[0, HUGE, 0]),
        lambda s: s.step(HUGE),
        lambda s: Scene(threshold=HUGE),
    ],
    ids=[
        "pose",
        "velocity",
        "spin",
        "acceleration",
        "box",
        "set_pose",
        "set_poses",
        "set_velocity",
        "dt",
        "threshold",
    ],  # fmt: skip
)
def test_an_int_beyond_float64_is_a_value_error(call):
    with pytest.raises(ValueError, match="beyond the float64 range"):
        call(Scene())


def test_ints_beyond_int64_within_float64_are_numbers():
    scene = Scene()
    scene.add(shapes.box(), _pose(2**70), velocity=[2**64, 0, 0])
    scene.step(0.5)
    assert io.pose_matrix([2**70, 0, 0, 0, 0, 0])[0, 3] == 2.0**70


@pytest.mark.parametrize(
    "call",
    [
        lambda: sweep.aabb_aabb(
            [[0, 0, 0], [1, 1, 1]], [[2, 0, 0], [3, 1, 1]], [HUGE, 0, 0]
        ),
        lambda: sweep.sphere_sphere(
            Spheres(np.zeros(3), 1.0), Spheres([3, 0, 0], HUGE), [1, 0, 0]
        ),  # fmt: skip
        lambda: sweep.sphere_aabb(
            Spheres(np.zeros(3), 1.0),
            [[2, 0, 0], [3, 1, 1]],
            [1, 0, 0],
            displacement_b=[0, HUGE, 0],
        ),  # fmt: skip
    ],
    ids=["aabb_aabb", "sphere_sphere", "sphere_aabb"],
)
def test_sweeps_refuse_ints_beyond_float64(call):
    with pytest.raises(ValueError, match="beyond the float64 range"):
        call()


@pytest.mark.parametrize(
    "pose",
    [
        [1 + 2j, 0, 0, 0, 0, 0],
        np.ones(6, complex),
        [0, 0, 0, 0, 0, np.complex128(1)],
        ["1", 0, 0, 0, 0, 0],
        [HUGE, 0, 0, 0, 0, 0],
        [HUGE] + [0] * 15,
    ],  # fmt: skip
    ids=["complex", "complex array", "numpy complex", "string", "huge 6", "huge 16"],
)
def test_pose_matrix_refuses_complex_and_huge_numbers(pose):
    with pytest.raises(ValueError, match="real numbers|beyond the float64 range") as info:
        io.pose_matrix(pose)
    assert len(str(info.value)) < 200


@pytest.mark.parametrize("suffix", [".json", ".toml"])
def test_a_deeply_nested_scene_file_is_one_line(tmp_path, suffix):
    depth = 100_000
    if suffix == ".json":
        text = '{"objects": ' + "[" * depth + "]" * depth + "}"
    else:
        text = "objects = " + "[" * depth + "]" * depth + "\n"
    path = tmp_path / f"deep{suffix}"
    path.write_text(text)
    with pytest.raises(io.FileError) as info:
        io.load_scene(path)
    assert "\n" not in str(info.value) and str(path) in str(info.value)


BIG = 1e300


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize(
    "shape",
    [
        [[BIG, BIG, BIG], [BIG, BIG, BIG]],
        [[0, 0, 0], [BIG, BIG, BIG]],
        [[-BIG, -BIG, -BIG], [BIG, BIG, BIG]],
        Spheres(np.zeros(3), BIG),
        OBBs(np.full(3, BIG), np.ones(3), np.eye(3)),
        OBBs(np.zeros(3), np.full(3, BIG), np.eye(3)),
    ],
    ids=[
        "box at 1e300",
        "box to 1e300",
        "box across 2e300",
        "sphere",
        "OBB at",
        "OBB of",
    ],
)
@pytest.mark.parametrize("static", [True, False])
def test_a_shape_at_1e300_works_without_numpy_warnings(shape, static):
    scene = Scene()
    motion = {} if static else {"velocity": [1, 0, 0]}
    scene.add(shape, static=static, **motion)
    scene.add([[0, 0, 0], [1, 1, 1]])
    scene.step(0.1)


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize(
    "shape",
    [
        [[-1.7e308] * 3, [1.7e308] * 3],
        Spheres(np.full(3, 1.7e308), 1e308),
        OBBs(np.zeros(3), np.full(3, 1.7e308), np.eye(3)),
    ],
    ids=["box", "sphere", "OBB"],
)
def test_a_shape_beyond_the_range_is_a_value_error(shape):
    with pytest.raises(ValueError, match="beyond the float64 range"):
        Scene().add(shape)


def test_rays_from_an_npz_archive_are_a_file_error(tmp_path):
    np.savez(tmp_path / "rays.npz", rays=np.zeros((2, 6)))
    with pytest.raises(io.FileError, match="archive"):
        io.load_rays(tmp_path / "rays.npz")
