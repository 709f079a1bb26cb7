"""Rays and sweeps against their bounds and baselines (issue 3).

Two scenes, seeded:

``ray_aabb``
    10^7 elementwise ray-box tests (ray i against box i, 3D, about half of them hits),
    every result field computed (hit, t_enter, t_exit, axis, normal). Beside the kernel:
    the memory-bandwidth bound, timed as a numpy copy of the same input bytes (boxes,
    origins, directions, t_max), and a vectorised numpy slab test with the same contract.
``sweep_aabb``
    10^6 moving-box sweeps (seed 000's time of first contact), against a vectorised numpy
    version of the same per-axis formula.

Every implementation runs once to warm up (and compile), then ``repeats`` times in turn,
so a load change on the machine hits them alike. Rows report min and median seconds and
``ratio = min_s / (min_s of the hitbox kernel in the same bench)``. So the copy row's
ratio is the kernel's fraction of the bandwidth bound (goal >= 0.5) and the numpy row's
ratio is the kernel's speedup over numpy (goal >= 5). The public-call rows include input
validation and output allocation.

Run alone: ``python benchmarks/bench_ray.py [--quick]``.
"""

import os
import platform
import statistics
import sys
import time

import numpy as np

INF = np.inf


def run(quick=False):
    """Both scenes; returns one dict per (bench, impl)."""
    import hitbox  # noqa: F401  (imported here so --help stays instant)

    repeats = 5 if quick else 7
    rows = _ray_aabb(10**5 if quick else 10**7, repeats)
    rows += _sweep_aabb(10**4 if quick else 10**6, repeats)
    info = machine()
    for row in rows:
        row.update(info)
    return rows


def machine():
    """CPU, thread count and numba's threading layer, recorded with every row."""
    import numba

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(
                line.split(":", 1)[1].strip() for line in f if "model name" in line
            )
    except (OSError, StopIteration):
        pass
    try:
        layer = numba.threading_layer()
    except ValueError:  # no parallel kernel has run: none chosen yet
        layer = "none (serial kernels)"
    return {
        "cpu": cpu,
        "cpus": os.cpu_count(),
        "numba_threads": numba.get_num_threads(),
        "threading_layer": layer,
    }


# -- scenes ------------------------------------------------------------------------------


def ray_scene(n, seed=0):
    """n boxes and n rays aimed near them: about half hit."""
    rng = np.random.default_rng(seed)
    lo = rng.uniform(-10, 10, (n, 3))
    boxes = np.empty((n, 2, 3))
    boxes[:, 0] = lo
    boxes[:, 1] = lo + rng.uniform(0.5, 2, (n, 3))
    origins = rng.uniform(-10, 10, (n, 3))
    directions = lo + rng.uniform(-1, 3, (n, 3)) - origins
    t_max = np.full(n, INF)
    return boxes, origins, directions, t_max


def sweep_scene(n, seed=1):
    """n moving boxes and n still ones, displaced roughly toward each other."""
    rng = np.random.default_rng(seed)
    size = rng.uniform(0.5, 2, (n, 2, 3))
    lo = rng.uniform(-10, 10, (n, 2, 3))
    moving = np.stack([lo[:, 0], lo[:, 0] + size[:, 0]], axis=1)
    still = np.stack([lo[:, 1], lo[:, 1] + size[:, 1]], axis=1)
    disp = (lo[:, 1] - lo[:, 0] + rng.normal(size=(n, 3))) * rng.uniform(0.2, 1.5, (n, 1))
    return moving, still, disp


# -- numpy baselines: the same contracts, vectorised -------------------------------------


def numpy_cast_aabb(boxes, origins, directions, t_max):
    """Slab test in numpy: (hit, t_enter, t_exit, axis, normal), ray i against box i."""
    with np.errstate(divide="ignore", invalid="ignore"):
        a = (boxes[:, 0] - origins) / directions
        b = (boxes[:, 1] - origins) / directions
    positive = ~np.signbit(directions)
    near = np.where(positive, a, b)
    far = np.where(positive, b, a)
    near[np.isnan(near)] = -INF  # 0/0: origin on the plane of a parallel slab
    far[np.isnan(far)] = INF
    axis = np.argmax(near, axis=1)
    t_near = np.take_along_axis(near, axis[:, None], axis=1)[:, 0]
    t_far = np.minimum(far.min(axis=1), t_max)
    inside = t_near <= 0
    t_enter = np.where(inside, 0.0, t_near)
    hit = (t_enter <= t_far) & (t_enter < INF)
    axis = np.where(hit & ~inside, axis, -1)
    normal = np.zeros_like(origins)
    rows = np.flatnonzero(axis >= 0)
    normal[rows, axis[rows]] = np.where(directions[rows, axis[rows]] < 0, 1.0, -1.0)
    return hit, np.where(hit, t_enter, INF), np.where(hit, t_far, INF), axis, normal


def numpy_sweep_aabb(moving, still, disp):
    """Seed 000's per-axis sweep in numpy: (hit, t, normal) for box i against box i."""
    with np.errstate(divide="ignore", invalid="ignore"):
        a = (still[:, 0] - moving[:, 1]) / disp
        b = (still[:, 1] - moving[:, 0]) / disp
    positive = ~np.signbit(disp)
    enter = np.where(positive, a, b)
    leave = np.where(positive, b, a)
    enter[np.isnan(enter)] = -INF
    leave[np.isnan(leave)] = INF
    axis = np.argmax(enter, axis=1)
    t_near = np.take_along_axis(enter, axis[:, None], axis=1)[:, 0]
    t_far = np.minimum(leave.min(axis=1), 1.0)
    inside = t_near <= 0
    t = np.where(inside, 0.0, t_near)
    hit = (t <= t_far) & (t < INF)
    axis = np.where(hit & ~inside, axis, -1)
    normal = np.zeros_like(disp)
    rows = np.flatnonzero(axis >= 0)
    normal[rows, axis[rows]] = np.where(disp[rows, axis[rows]] < 0, 1.0, -1.0)
    return hit, np.where(hit, t, INF), normal


# -- benches -----------------------------------------------------------------------------


def _ray_aabb(n, repeats):
    from hitbox import ray
    from hitbox._kernels import ray as kernels

    boxes, origins, directions, t_max = ray_scene(n)
    in_bytes = boxes.nbytes + origins.nbytes + directions.nbytes + t_max.nbytes
    src = np.concatenate([boxes.ravel(), origins.ravel(), directions.ravel(), t_max])
    dst = np.empty_like(src)
    out = ray.BoxHits(
        np.empty(n, np.bool_),
        np.empty(n),
        np.empty(n),
        np.empty(n, np.intp),
        np.empty((n, 3)),
    )
    impls = {
        "hitbox kernel": lambda: kernels.cast_aabb_3d(
            boxes, origins, directions, t_max, *out
        ),
        "copy of the input (bandwidth bound)": lambda: np.copyto(dst, src),
        "hitbox.ray.cast_aabb (public call)": lambda: ray.cast_aabb(
            boxes, origins, directions
        ),
        "numpy slab test": lambda: numpy_cast_aabb(boxes, origins, directions, t_max),
    }
    rows = _time("ray_aabb", n, impls, repeats, in_bytes)
    want = numpy_cast_aabb(boxes, origins, directions, t_max)
    for got, ref in zip(out, want, strict=True):  # the baseline computes the same thing
        np.testing.assert_array_equal(got, ref)
    rows[0]["hit_fraction"] = float(out.hit.mean())
    return rows


def _sweep_aabb(n, repeats):
    from hitbox import sweep
    from hitbox._kernels import sweep as kernels

    moving, still, disp = sweep_scene(n)
    in_bytes = moving.nbytes + still.nbytes + disp.nbytes
    out = sweep.SweepHits(np.empty(n, np.bool_), np.empty(n), np.empty((n, 3)))
    impls = {
        "hitbox kernel": lambda: kernels.aabb_aabb(moving, still, disp, *out),
        "hitbox.sweep.aabb_aabb (public call)": lambda: sweep.aabb_aabb(
            moving, still, disp
        ),
        "numpy per-axis sweep": lambda: numpy_sweep_aabb(moving, still, disp),
    }
    rows = _time("sweep_aabb", n, impls, repeats, in_bytes)
    want = numpy_sweep_aabb(moving, still, disp)
    for got, ref in zip(out, want, strict=True):
        np.testing.assert_array_equal(got, ref)
    rows[0]["hit_fraction"] = float(out.hit.mean())
    return rows


def _time(bench, n, impls, repeats, in_bytes):
    for fn in impls.values():  # warm-up: compile, fault the output pages in
        fn()
    times = {name: [] for name in impls}
    for _ in range(repeats):
        for name, fn in impls.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    base = min(times["hitbox kernel"])
    return [
        {
            "bench": bench,
            "n": n,
            "impl": name,
            "min_s": min(ts),
            "median_s": statistics.median(ts),
            "ratio": min(ts) / base,
            "input_gb_per_s": in_bytes / min(ts) / 1e9,
        }
        for name, ts in times.items()
    ]


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    rows = run(quick="--quick" in argv)
    first = rows[0]
    print(f"{first['cpu']}, {first['cpus']} CPUs, numba threads {first['numba_threads']}")
    print(
        f"{'bench':<11} {'n':>9} {'impl':<38} {'min_s':>9} {'median_s':>9} {'ratio':>7}"
    )
    for r in rows:
        print(
            f"{r['bench']:<11} {r['n']:>9} {r['impl']:<38} {r['min_s']:>9.4f} "
            f"{r['median_s']:>9.4f} {r['ratio']:>7.2f}"
        )
    print(
        "ratio = min_s / min_s of the hitbox kernel. Copy row: the kernel's fraction of"
    )
    print("the bandwidth bound (goal >= 0.5). Numpy rows: its speedup (goal >= 5).")
    return rows


if __name__ == "__main__":
    main()
