"""Every script in examples/ runs as a user would run it, and writes what it promises."""

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).parent.parent / "examples").glob("*.py"))

#: Files each example writes into the folder it is given.
WRITES = {
    "collide_files.py": ["torus.stl", "capsule.obj", "view.html"],
    "scene_file.py": ["scene.toml", "torus.stl", "capsule.obj", "ball.ply"],
    "depth_image.py": ["depth.png"],
    "time_per_step.py": ["steps.png"],
    "dask_poses.py": ["colliding.npy"],
}
#: Extra arguments that keep an example small in the tests.
ARGS = {"dask_poses.py": ["--poses", "20000"]}


def test_every_example_is_listed():
    assert sorted(p.name for p in EXAMPLES) == sorted(WRITES)


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs(script, tmp_path):
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, str(script), str(out), *ARGS.get(script.name, [])],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip(), "an example says what it did"
    for name in WRITES[script.name]:
        assert (out / name).stat().st_size > 0, name
