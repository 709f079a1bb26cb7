"""BVH build time: every method x node kind against Coal's OBB tree, in one run.

Scenes: seeded tori from ``trimesh.creation.torus`` (SPEC §10's shape) with 20,000 and
500,000 triangles (``quick``: 20,000 only). Rows:

- ``coal_obb``: ``coal.BVHModelOBB`` (beginModel, addVertices, addTriangles, endModel),
  the baseline (Coal's strongest variant for OBB builds); ``coal_obbrss``: Coal's
  ``BVHModelOBBRSS`` and ``fcl_obbrss``: python-fcl's ``BVHModel``, the same way;
- ``hitbox``: ``BVH.build(triangles, node=..., method=...)``, validation included, from
  the ``(F, 3, 3)`` triangles (each library gets its own input format, made untimed).

Each time is the min and median of ``REPEATS`` builds after one warm-up build (the warm-up
compiles or loads the kernels from numba's cache). Every row is timed alternately with a
Coal OBB build (``coal_median_s``), so both see the same load on a shared machine;
``ratio_vs_coal`` is that Coal median over the row's median: above 1, faster than Coal.
A ``compile`` row times the first build of every method x kind in a fresh process with an
empty numba cache (``cold_s``), then again in a second process that loads that cache
(``cached_s``). Run alone with ``python -m benchmarks.bench_bvh_build [--quick]``.
"""

import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

import numpy as np

from benchmarks.timing import environment, measure
from hitbox.bvh import BVH, KINDS, METHODS

REPEATS = 3
SIZES = {"20k": (100, 100), "500k": (500, 500)}  # major x minor sections: 2 * a * b faces


def run(quick=False):
    """Time every build; returns one dict per (scene, implementation)."""
    rows = []
    for label, sections in SIZES.items():
        if quick and label != "20k":
            continue
        vertices, faces = torus(*sections)
        triangles = np.ascontiguousarray(vertices[faces])
        coal_build = _coal_builder(vertices, faces, "BVHModelOBB")
        scene = {"bench": "bvh_build", "scene": f"torus_{label}", "triangles": len(faces)}
        base = measure(coal_build, repeats=REPEATS, warmup=1)
        rows.append({**scene, "impl": "coal_obb", **_times(base, base)})
        t, base = _paired(_coal_builder(vertices, faces, "BVHModelOBBRSS"), coal_build)
        rows.append({**scene, "impl": "coal_obbrss", **_times(t, base)})
        fcl_build = _fcl_builder(vertices, faces)
        if fcl_build is not None:
            t, base = _paired(fcl_build, coal_build)
            rows.append({**scene, "impl": "fcl_obbrss", **_times(t, base)})
        for method in METHODS:
            for kind in KINDS:
                t, base = _paired(
                    lambda m=method, k=kind, t=triangles: BVH.build(t, node=k, method=m),
                    coal_build,
                )
                rows.append(
                    {**scene, "impl": f"hitbox_{method}_{kind}", **_times(t, base)}
                )
    rows.append({"bench": "bvh_build", "impl": "compile", **compile_times()})
    return rows


def _paired(fn, base_fn, repeats=REPEATS):
    """(min, median) of ``fn`` and of ``base_fn``, timed alternately after one warm-up
    each, so both see the same machine load (shared machines drift within seconds)."""
    fn()
    base_fn()
    times, base = [], []
    for _ in range(repeats):
        for f, out in ((base_fn, base), (fn, times)):
            start = time.perf_counter()
            f()
            out.append(time.perf_counter() - start)
    return (min(times), statistics.median(times)), (min(base), statistics.median(base))


def torus(major_sections, minor_sections):
    """(vertices (V, 3), faces (F, 3)) of a torus with 2 * major * minor triangles."""
    import trimesh

    mesh = trimesh.creation.torus(
        major_radius=1.0,
        minor_radius=0.3,
        major_sections=major_sections,
        minor_sections=minor_sections,
    )
    return np.asarray(mesh.vertices, np.float64), np.asarray(mesh.faces, np.int64)


def _times(t, base):
    t_min, t_median = t
    return {
        "min_s": t_min,
        "median_s": t_median,
        "coal_median_s": base[1],
        "ratio_vs_coal": base[1] / t_median,
    }


def _coal_builder(vertices, faces, kind):
    import coal

    def build():
        model = getattr(coal, kind)()
        model.beginModel(len(faces), len(vertices))
        model.addVertices(vertices)
        model.addTriangles(faces)
        model.endModel()
        return model

    return build


def _fcl_builder(vertices, faces):
    try:
        import fcl
    except ImportError:
        return None

    def build():
        model = fcl.BVHModel()
        model.beginModel(len(vertices), len(faces))
        model.addSubModel(vertices, faces)
        model.endModel()
        return model

    return build


_FIRST_BUILDS = textwrap.dedent(
    """
    import time
    start = time.perf_counter()
    import numpy as np
    from hitbox.bvh import BVH, KINDS, METHODS
    rng = np.random.default_rng(0)
    tris = rng.random((64, 3, 3))
    box = np.array([[0.2] * 3, [0.6] * 3])
    for method in METHODS:
        for kind in KINDS:
            BVH.build(tris, node=kind, method=method).query(box)
    print(time.perf_counter() - start)
    """
)


def compile_times():
    """Seconds for a fresh process to import hitbox and build and query one small tree of
    every method x kind: with an empty numba cache, then with the cache it left."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        out = {}
        for key in ("cold_s", "cached_s"):
            done = subprocess.run(
                [sys.executable, "-c", _FIRST_BUILDS],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            out[key] = float(done.stdout.strip().splitlines()[-1])
    return out


if __name__ == "__main__":
    from benchmarks.run import print_table

    print("environment:", environment())
    print_table("bvh_build", run(quick="--quick" in sys.argv))
