"""The first call: the cache check that runs before numba is imported, the notice, and a
command line run from an empty kernel cache."""

import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from hitbox import shapes, warmup
from hitbox._kernels import bvh_sah, closest, collide


@pytest.mark.parametrize(
    "kernel",
    [collide.collide_any, bvh_sah.build_sah_oriented, closest.closest_parallel],
)
def test_the_cache_folder_is_numbas_own(kernel):
    # numba chose this kernel's cache folder when it was decorated; the check that runs
    # before numba is imported must look in the same place
    where = os.path.normpath(kernel._cache._cache_path)
    assert where in [os.path.normpath(d) for d in warmup.cache_dirs()]


def test_every_command_names_kernels_that_exist():
    from importlib import import_module

    for command, kernels in warmup.COMMAND_KERNELS.items():
        assert command in warmup.COMPILE_SECONDS
        for module, name in kernels:
            kernel = getattr(import_module(f"hitbox._kernels.{module}"), name)
            assert kernel._cache is not None, (command, module, name)


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_the_notice_is_printed_only_while_a_kernel_is_missing(monkeypatch, tmp_path):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    out = _Terminal()
    assert warmup.is_cached("collide") is False
    with warmup.notice("collide", out) as said:  # a terminal: said at once
        assert said
    assert "compiling kernels" in out.getvalue() and "hitbox warmup" in out.getvalue()
    # an index file for each entry kernel, where numba would write it
    folder = warmup.cache_dirs()[0]
    os.makedirs(folder)
    tag = f"py{sys.version_info.major}{sys.version_info.minor}"
    kernels = warmup.COMMAND_KERNELS["collide"]
    for module, name in kernels[:-1]:
        open(os.path.join(folder, f"{module}.{name}-10.{tag}.nbi"), "w").close()
    assert warmup.is_cached("collide") is False  # one still missing
    module, name = kernels[-1]
    open(os.path.join(folder, f"{module}.{name}-10.{tag}.nbi"), "w").close()
    assert warmup.is_cached("collide") is True
    quiet = _Terminal()
    with warmup.notice("collide", quiet) as said:
        assert not said
    assert quiet.getvalue() == ""
    assert warmup.is_cached("demo") is None


def test_off_a_terminal_the_notice_waits_for_a_compilation(monkeypatch, tmp_path):
    from numba import njit

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    log = io.StringIO()

    @njit
    def _fresh(x):
        return x + 1

    with warmup.notice("raycast", log) as armed:
        assert armed and log.getvalue() == ""  # nothing compiled yet
        assert _fresh(1) == 2 and _fresh(2.5) == 3.5  # two compilations, one notice
    assert log.getvalue().count("hitbox raycast: compiling kernels") == 1
    # the listener left with the block: a later compilation says nothing
    assert _fresh(True) == 2
    assert log.getvalue().count("compiling kernels") == 1


def test_the_first_collide_from_an_empty_cache_says_so_and_answers(tmp_path):
    trimesh = pytest.importorskip("trimesh")
    a = shapes.box((1.0, 1.0, 1.0))
    b = shapes.sphere(0.4, 6, 8, center=(0.8, 0.0, 0.0))
    for name, mesh in (("a", a), ("b", b)):
        trimesh.Trimesh(mesh.vertices, mesh.faces).export(tmp_path / f"{name}.stl")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "hitbox.cli",
            "collide",
            "a.stl",
            "b.stl",
            "--all",
            "--json",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0].startswith("hitbox collide: compiling kernels")
    out = json.loads(done.stdout)
    expected = a.intersect(b, np.eye(4), mode="all")
    assert out["collide"] is True
    assert out["pairs"] == expected.T.tolist()
    # answered without trees: their kernels were not compiled, the sweep's were
    assert out["node"] is None and out["a"]["tree_depth"] is None
    assert "hitbox warmup" in out["trees"]
    env_check = subprocess.run(
        [
            sys.executable,
            "-c",
            "from hitbox import warmup; print(warmup.is_cached('collide treeless'), "
            "warmup.is_cached('collide --all'))",
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert env_check.stdout.split() == ["True", "False"]


def test_kernel_cache_is_emptied_when_any_kernel_file_changes(tmp_path, monkeypatch):
    """numba keys a cached kernel by its own file only, while kernels inline each
    other: a folder cached under another digest of the kernel files loses its cached
    kernels (and only those) on import; one under the current digest keeps them."""
    import hitbox._kernels as kernels

    folder = tmp_path / "cache"
    folder.mkdir()
    monkeypatch.setattr(kernels, "_cache_folders", lambda here: [folder])
    stale = [folder / "scene.step-290.py311.nbi", folder / "scene.step-290.py311.0.nbc"]
    other = folder / "notes.txt"
    for path in (*stale, other):
        path.write_text("x")
    (folder / kernels.DIGEST_FILE).write_text("an older digest")
    kernels._refresh_cache()
    assert not any(p.exists() for p in stale) and other.exists()
    current = (folder / kernels.DIGEST_FILE).read_text()
    assert len(current) == 40 and current != "an older digest"
    for path in stale:
        path.write_text("x")
    kernels._refresh_cache()  # same digest: the cache stays
    assert all(p.exists() for p in stale)
    assert (folder / kernels.DIGEST_FILE).read_text() == current


def test_groups_start_when_what_they_need_is_compiled():
    # nothing before the trees; the mesh Scene only after the step kernels, once
    assert warmup.ready({"volumes": 1.0}, False, set()) == []
    trees_only = warmup.ready({"trees": 1.0}, True, set())
    assert set(trees_only) == set(warmup.GROUPS) - {"scene"}
    after = warmup.ready({"trees": 1.0, "scene boxes": 2.0}, True, set(trees_only))
    assert after == ["scene"]
    assert (
        warmup.ready({"trees": 1.0, "scene boxes": 2.0}, True, set(warmup.GROUPS)) == []
    )
