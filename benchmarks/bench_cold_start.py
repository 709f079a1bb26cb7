"""The first call: a fresh process running ``hitbox collide A.stl B.stl`` (issue: ahead
of each peer at its own best, "the first call").

    python -m benchmarks.run cold_start [--quick]

Every row is a fresh Python process, timed from its start to its exit:

- ``import floor``: ``import numpy, numba, trimesh`` alone, what any numba tool that reads
  mesh files pays before its first line of work;
- ``numba floor``: the import floor and one call of a cached one-line ``@njit`` kernel,
  what any numba tool pays before its first compiled answer (numba loads its typing and
  lowering registries, and scipy's BLAS, at the first kernel a process compiles or loads);
- ``warm``: ``hitbox collide`` on two tori of 5,000 triangles with every kernel in the
  cache (after ``hitbox warmup``);
- ``cold``: the same with an empty kernel cache (``NUMBA_CACHE_DIR`` a new folder),
  which answers without trees (:mod:`hitbox.treeless`), and the time until its
  first output on stderr: on a terminal (a pseudo-terminal here: the progress bar and
  the "compiling kernels" notice, at once) and piped (the notice, printed as the first
  compilation starts); then a second run on that cache (the trees still not compiled),
  and ``--node aabb`` from an empty cache, which builds and walks trees (what the first
  call compiled before);
- ``hitbox warmup``: compiling the common kernels from an empty cache, on every core
  (left out with ``--quick``).

Ratios are against the import floor measured in the same run; warm and floor runs are
interleaved, best of several.
"""

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def run(quick=False):
    from hitbox import shapes

    folder = Path(tempfile.mkdtemp(prefix="hitbox-cold-"))
    try:
        import trimesh

        for name, center in (("a", (0, 0, 0)), ("b", (0.9, 0.1, 0))):
            mesh = shapes.torus(5_000, center=center)
            trimesh.Trimesh(mesh.vertices, mesh.faces).export(folder / f"{name}.stl")
        collide = [sys.executable, "-m", "hitbox.cli", "collide", "a.stl", "b.stl"]
        warm_cache = folder / "warm-cache"
        rows = []
        if not quick:
            seconds, _ = _timed(
                [sys.executable, "-m", "hitbox.cli", "warmup"], warm_cache
            )
            rows.append(_row("hitbox warmup (every core, empty cache)", seconds))
        else:
            _timed(collide, warm_cache, cwd=folder)  # only the collide kernels
        one_kernel = folder / "one_kernel.py"
        one_kernel.write_text(_ONE_KERNEL)
        _timed([sys.executable, str(one_kernel)], warm_cache)  # its kernel cached
        floor, numba_floor, warm = [], [], []
        for _ in range(3 if quick else 7):
            floor.append(
                _timed([sys.executable, "-c", "import numpy, numba, trimesh"])[0]
            )
            numba_floor.append(_timed([sys.executable, str(one_kernel)], warm_cache)[0])
            warm.append(_timed(collide, warm_cache, cwd=folder)[0])
        cold_cache = folder / f"cold-{time.time_ns()}"
        cold, first_line = _timed(collide, cold_cache, cwd=folder)
        # the same cache again: the sweep's kernels on disk, the trees' still not
        second = min(_timed(collide, cold_cache, cwd=folder)[0] for _ in range(3))
        # the trees from an empty cache (a --node kind other than the default takes
        # them): what the first call cost before it answered without trees
        trees_cold, _ = _timed(
            [*collide, "--node", "aabb"], folder / f"cold-{time.time_ns()}", cwd=folder
        )
        _, first_tty = _timed(
            collide, folder / f"cold-{time.time_ns()}", cwd=folder, terminal=True
        )
        base = min(floor)
        rows += [
            _row("import floor: import numpy, numba, trimesh", base, base),
            _row(
                "numba floor: the imports and one cached @njit kernel",
                min(numba_floor),
                base,
            ),  # fmt: skip
            _row("hitbox collide, warm cache", min(warm), base),
            _row("hitbox collide, empty cache (answered without trees)", cold, base),
            _row("hitbox collide, second run (the trees not yet compiled)", second, base),
            _row("hitbox collide --node aabb, empty cache (trees)", trees_cold, base),
            _row("empty cache, first output on a terminal's stderr", first_tty, base),
            _row(
                "empty cache, first line on a piped stderr (the notice)", first_line, base
            ),
        ]
        return rows
    finally:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)


_ONE_KERNEL = """import numpy, numba, trimesh


@numba.njit(cache=True)
def total(x):
    return x.sum()


total(numpy.ones(3))
"""


def _row(method, seconds, base=None):
    row = {"bench": "first call, tori 5k/5k", "method": method, "seconds": seconds}
    if base is not None:
        row["ratio_to_import_floor"] = seconds / base
        row["over_import_floor_s"] = seconds - base
    return row


def _timed(command, cache=None, cwd=None, terminal=False):
    """(seconds to exit, seconds to the first output on stderr) of a fresh process;
    ``terminal``: stderr is a pseudo-terminal, as a user's shell gives it (the progress
    bar and the compile notice show at once), else a pipe (the notice waits for the
    first compilation)."""
    env = dict(os.environ)
    # as a user's Python runs: writing bytecode (a host that turns it off recompiles
    # every module of the source tree in each run)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
    start = time.perf_counter()
    if terminal:
        import pty

        master, slave = pty.openpty()
        proc = subprocess.Popen(
            command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=slave
        )
        os.close(slave)
        first = _read_some(master)
        first_s = time.perf_counter() - start if first else np.nan
        while _read_some(master):
            pass
        os.close(master)
    else:
        proc = subprocess.Popen(
            command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        first = proc.stderr.readline()
        first_s = time.perf_counter() - start if first else np.nan
        proc.stderr.read()
    if proc.wait() != 0:
        raise RuntimeError(f"{' '.join(command)} failed")
    return time.perf_counter() - start, first_s


def _read_some(fd):
    try:
        return os.read(fd, 4096)
    except OSError:  # the child closed the terminal
        return b""
