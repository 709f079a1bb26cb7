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
Beside each hitbox row, the tree's quality (:func:`_quality`): a fixed query workload's
time per pose and, for OBB trees, the sums of node volumes and areas, each also as a
ratio against the default method's tree of that kind. Coal's Python API does not expose
its nodes, so its trees have no such columns. A ``compile`` row times the first build of
every method x kind in a fresh process with an empty numba cache (``cold_s``), then
again in a second process that loads that cache (``cached_s``). Run alone with
``python -m benchmarks.bench_bvh_build [--quick]``.
"""

import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

import numba
import numpy as np

from benchmarks.timing import environment, measure
from hitbox.bvh import BVH, KINDS, METHODS

REPEATS = 5
QUERY_POSES, QUERY_REPEATS = 300, 7
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
        trees, built = {}, []
        for method in METHODS:
            for kind in KINDS:
                t, base = _paired(
                    lambda m=method, k=kind, t=triangles: BVH.build(t, node=k, method=m),
                    coal_build,
                )
                trees[method, kind] = BVH.build(triangles, node=kind, method=method)
                row = {**scene, "impl": f"hitbox_{method}_{kind}", **_times(t, base)}
                built.append(row)
                rows.append(row)
        quality = _quality(vertices, faces, trees)
        for row, key in zip(built, trees, strict=True):
            row.update(quality[key])
    rows.append({"bench": "bvh_build", "impl": "compile", **compile_times()})
    return rows


def _quality(vertices, faces, trees):
    """Tree quality beside the build time (a faster build that answers slower does not
    count), for each (method, kind) of ``trees``: the query time of a fixed workload,
    ``A.intersect_many(A, poses)`` on one thread over ``QUERY_POSES`` poses of the torus
    against itself (a third touching, a third near misses, a third apart:
    :func:`benchmarks.bench_mesh.make_poses`), least of ``QUERY_REPEATS`` rounds over
    every tree in turn (so all see the same load); for OBB trees the sums of node
    volumes and surface areas. ``*_vs_default``: the default method's tree of the same
    kind over this one's (above 1: this tree answers faster, or is tighter)."""
    from benchmarks.bench_mesh import make_poses
    from hitbox.bvh import DEFAULT_METHOD
    from hitbox.mesh import TriangleMesh

    probe = TriangleMesh(vertices, faces, node="obb")
    poses, _ = make_poses(probe, probe, QUERY_POSES, seed=0)
    meshes = {key: TriangleMesh(vertices, faces, bvh=tree) for key, tree in trees.items()}
    best = dict.fromkeys(trees, np.inf)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        for mesh in meshes.values():
            mesh.intersect_many(mesh, poses)
        for _ in range(QUERY_REPEATS):
            for key, mesh in meshes.items():
                seconds = _seconds(lambda m=mesh: m.intersect_many(m, poses))
                best[key] = min(best[key], seconds)
    finally:
        numba.set_num_threads(threads)
    out = {}
    for (method, kind), tree in trees.items():
        row = {"query_us": 1e6 * best[method, kind] / len(poses)}
        if kind == "obb":
            half = np.asarray(tree.node_bv.half)
            row["obb_volume"] = float((8.0 * half.prod(axis=1)).sum())
            faces_area = half[:, 0] * half[:, 1] + half[:, 1] * half[:, 2]
            row["obb_area"] = float((8.0 * (faces_area + half[:, 2] * half[:, 0])).sum())
        out[method, kind] = row
    for (_, kind), row in out.items():
        ref = out[DEFAULT_METHOD[kind], kind]
        for key in ("query_us", "obb_volume", "obb_area"):
            if key in row:
                row[f"{key}_vs_default"] = ref[key] / row[key]
    return out


def _seconds(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


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
