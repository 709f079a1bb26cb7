"""Shared timing helpers: warm up, repeat, report min and median (STYLE §8)."""

import os
import platform
import statistics
import time

import numpy as np


def measure(fn, repeats=5, warmup=1):
    """Call ``fn`` ``warmup`` times untimed, then ``repeats`` times; return (min, median) s."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def copy_bandwidth(nbytes, repeats=5):
    """Bytes per second moved (read + write) by a large numpy copy: the bandwidth bound."""
    src = np.ones(max(nbytes // 8, 1))
    dst = np.empty_like(src)
    best, _ = measure(lambda: np.copyto(dst, src), repeats=repeats)
    return 2 * src.nbytes / best


def machine():
    """A short, path-free name for this kind of machine, for results/<machine>/."""
    return f"{platform.machine()}-{os.cpu_count()}cpu"


def environment():
    """CPU, thread count and numba's threading layer, recorded beside every result."""
    import numba

    try:
        layer = numba.threading_layer()
    except ValueError:  # no parallel kernel has run yet
        layer = "not initialised"
    return {
        "cpu": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "numba_threads": numba.get_num_threads(),
        "threading_layer": layer,
        "numba": numba.__version__,
        "numpy": np.__version__,
    }


def torus_arrays(n_triangles, r_major=1.0, r_minor=0.3):
    """Vertices (V, 3) and faces (F, 3) of ``hitbox.shapes.torus``, writable copies for
    the peers (the mesh keeps its own read-only)."""
    from hitbox import shapes

    mesh = shapes.torus(n_triangles, r_major, r_minor, node="aabb", method="median")
    return np.array(mesh.vertices), np.array(mesh.faces)
