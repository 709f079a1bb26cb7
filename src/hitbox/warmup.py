"""Compile hitbox's kernels ahead of a user's first call, and say so when a call must.

numba compiles each kernel on its first call and caches the machine code on disk
(``cache=True``); a fresh install therefore spends its first queries compiling.
:func:`run` compiles the common signatures (the default OBB tree, the pair, many-pose,
distance, point, ray and Scene queries) in worker processes, one group each, so both
cores compile at once. :func:`is_cached` tells, without importing numba, whether a
command's entry kernels are on disk, so the command line can say "compiling kernels"
before it starts rather than sit silent.

This module imports only the standard library at load time: the command line calls
:func:`is_cached` before numpy and numba are imported.
"""

import contextlib
import glob
import hashlib
import os
import sys
import time

#: The command line's name for ``collide`` answered without trees, while the trees'
#: kernels are not compiled (:func:`hitbox.cli.collide.treeless`).
TREELESS_COLLIDE = "collide treeless"

#: Entry kernels each command line query runs first: (kernel module, function).
COMMAND_KERNELS = {
    "collide": (("bvh_sah", "build_sah_oriented"), ("collide", "collide_any")),
    "collide --all": (("bvh_sah", "build_sah_oriented"), ("collide", "collide")),
    "distance": (("bvh_sah", "build_sah_oriented"), ("distance_calls", "one_posed")),
    "points": (("bvh_sah", "build_sah_oriented"), ("closest", "closest_parallel")),
    "raycast": (("bvh_sah", "build_sah_oriented"), ("bvh_ray", "cast_parallel")),
    "info": (("bvh_sah", "build_sah_oriented"),),
    # the first collide while those are missing: no trees (:mod:`hitbox.treeless`)
    TREELESS_COLLIDE: (("treeless", "sweep_pairs"),),
}

#: Seconds each command's first run compiled, cold, on a 2-core machine (the
#: ``cold_start`` benchmark); the notice quotes them as an estimate.
COMPILE_SECONDS = {
    "collide": 35,
    "collide --all": 35,
    "distance": 60,
    "points": 45,
    "raycast": 30,
    "info": 25,
    TREELESS_COLLIDE: 5,  # ~8 s more when touching faces need the exact test
}

_KERNELS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_kernels")


def cache_dirs():
    """The folders numba would read hitbox's kernel cache from, in its order: the
    ``NUMBA_CACHE_DIR`` tree when that is set, else ``_kernels/__pycache__`` beside the
    sources, then the user-wide cache (numba's ``_CacheLocator`` classes)."""
    subpath = _subpath(_KERNELS_DIR)
    explicit = os.environ.get("NUMBA_CACHE_DIR")
    if explicit:
        return [os.path.join(explicit, subpath)]
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache"
    )
    return [
        os.path.join(_KERNELS_DIR, "__pycache__"),
        os.path.join(home, "numba", subpath),
    ]


def is_cached(command):
    """Whether every entry kernel of ``command`` has compiled code on disk (True), one
    lacks it (False), or the command compiles nothing of note (None)."""
    kernels = COMMAND_KERNELS.get(command)
    if kernels is None:
        return None
    tag = f"py{sys.version_info.major}{sys.version_info.minor}"
    dirs = cache_dirs()
    for module, name in kernels:
        pattern = f"{module}.{name}-*.{tag}.nbi"
        if not any(glob.glob(os.path.join(d, pattern)) for d in dirs):
            return False
    return True


@contextlib.contextmanager
def notice(command, stream=None):
    """While the block runs, say on ``stream`` (stderr) that ``command`` (a key of
    :data:`COMMAND_KERNELS`) compiles its kernels, when one is not cached: at once on a
    terminal, else as numba's first real compilation in the block starts (so a command
    that fails on its input says only that). Yields whether a notice was printed or
    armed; the listener is removed on exit."""
    if is_cached(command) is not False:
        yield False
        return
    stream = stream or sys.stderr
    line = (
        f"hitbox {command.split()[0]}: compiling kernels (once, "
        f"~{COMPILE_SECONDS.get(command, 30)} s on 2 cores; "
        "'hitbox warmup' compiles them all ahead)"
    )
    isatty = getattr(stream, "isatty", None)
    if isatty is not None and isatty():
        print(line, file=stream, flush=True)
        yield True
        return
    with _on_first_compile(lambda: print(line, file=stream, flush=True)):
        yield True


@contextlib.contextmanager
def _on_first_compile(say):
    """Call ``say`` once, when numba next compiles a function inside the block (a cache
    miss: loading cached code raises no compile event)."""
    from numba.core import event

    class _Once(event.Listener):
        fired = False

        def on_start(self, ev):
            if not self.fired:
                self.fired = True
                with contextlib.suppress(Exception):  # a notice must never fail a compile
                    say()

        def on_end(self, ev):
            pass

    listener = _Once()
    event.register("numba:compile", listener)
    try:
        yield
    finally:
        event.unregister("numba:compile", listener)


def _subpath(directory):
    # numba's _CacheLocator.get_suitable_cache_subpath: the folder's name and a hash
    parent = os.path.split(directory)[-1]
    return f"{parent}_{hashlib.sha1(directory.encode()).hexdigest()}"


# -- the groups of work that compile the kernels ----------------------------------------


def _trees():
    from hitbox import shapes

    a = shapes.torus(400)
    b = shapes.torus(400, center=(0.9, 0.1, 0.0))
    box = shapes.box()
    return a, b, box


#: Batch sizes that take the parallel kernels as well as the serial ones.
_SMALL, _LARGE = 64, 4096


def _poses(n):
    import numpy as np

    poses = np.tile(np.eye(4), (n, 1, 1))
    poses[:, 0, 3] = np.linspace(0.0, 3.0, n)
    return poses


def _group_collide(a, b, box):
    from hitbox import treeless

    poses = _poses(8)
    many = _poses(256)
    treeless.intersect(a.triangles, b.triangles, poses[1], mode="all")
    a.intersect(b, poses[1])
    a.intersect(b, poses[1], mode="all")
    a.intersect(box, poses[0], inside=True)
    a.contacts(b, poses[1])
    for batch in (poses, many):
        a.intersect_many(b, batch)
        a.intersect_many(b, batch, mode="all")
    a.self_intersections()


def _group_distance(a, b, box):
    poses = _poses(8)
    a.distance(b, poses[2])
    a.distance_many(b, poses)
    a.distance_many(b, _poses(256))


def _group_points(a, b, box):
    import numpy as np

    from hitbox.mesh import TriangleMesh

    # an open mesh: contains by winding numbers through the tree (a closed one's go
    # through the grid), 7 s of compile a first call would otherwise pay
    cut = TriangleMesh(a.vertices, a.faces[:-8])
    rng = np.random.default_rng(0)
    for n in (_SMALL, _LARGE):
        pts = rng.uniform(-1.5, 1.5, (n, 3))
        a.closest_point(pts)
        a.signed_distance(pts)
        a.contains(pts)
        cut.contains(pts)


def _group_rays(a, b, box):
    import numpy as np

    rng = np.random.default_rng(0)
    for n in (_SMALL, _LARGE):
        origins, directions = rng.uniform(-2, 2, (n, 3)), rng.normal(size=(n, 3))
        for mode in ("closest", "any", "all"):
            a.raycast(origins, directions, mode=mode)


def _group_scene(a, b, box):
    import numpy as np

    from hitbox.pipeline import Scene

    scene = Scene()
    ids = [scene.add(a), scene.add(b), scene.add(box)]
    scene.set_velocities(ids[1:2], np.array([[0.5, 0.0, 0.0]]), np.array([[0, 1.0, 0.3]]))
    for mode in ("any", "all"):
        scene.step(0.05, mode=mode)
        scene.run(0.05, 3, mode=mode)
    scene.step(0.05, continuous=True)


def _group_scene_boxes():
    """The Scene's step kernels, from a scene of two boxes: their compiled code is the
    same for any objects (the scene lives in flat arenas), so this group needs no tree
    and starts at once, beside the trees (it is the longest to compile)."""
    import numpy as np

    from hitbox.pipeline import Scene

    scene = Scene()
    scene.add(np.array([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]))
    moving = scene.add(np.array([[1.5, 0.0, 0.0], [2.5, 1.0, 1.0]]))
    scene.set_velocities([moving], np.array([[-1.0, 0.0, 0.0]]), np.zeros((1, 3)))
    for mode in ("any", "all"):
        scene.step(0.05, mode=mode)
        scene.run(0.05, 3, mode=mode)
    scene.step(0.05, continuous=True)


def _group_volumes():
    import numpy as np

    from hitbox import broadphase

    rng = np.random.default_rng(0)
    lo = rng.uniform(0, 10, (200, 3))
    broadphase.pairs(np.stack([lo, lo + 1.0], axis=1))


GROUPS = {
    "collide": _group_collide,
    "distance": _group_distance,
    "points": _group_points,
    "rays": _group_rays,
    "scene": _group_scene,
}


def _run_group(name, meshes):
    start = time.perf_counter()
    if name == "trees":
        meshes = _trees()
    elif name == "volumes":
        _group_volumes()
    elif name == "scene boxes":
        _group_scene_boxes()
    else:
        GROUPS[name](*meshes)
    return name, time.perf_counter() - start, meshes if name == "trees" else None


def ready(done, have_trees, submitted):
    """The groups of :data:`GROUPS` to start now, given the groups ``done`` and those
    ``submitted`` already: every one needs the trees; the mesh Scene also waits for the
    step kernels ("scene boxes": begun beside them, it would compile them twice)."""
    if not have_trees:
        return []
    return [
        g
        for g in GROUPS
        if g not in submitted and (g != "scene" or "scene boxes" in done)
    ]


def run(jobs=None, progress=None):
    """Compile the common kernels; returns {group: seconds}.

    ``jobs``: worker processes (default: the CPUs this process may use); 1 runs every
    group in this process. ``progress(name, seconds, done, total)`` is called as each
    group ends. The Scene's step kernels (the longest) and the trees start first; the
    groups that need the trees start as the trees are done, the mesh Scene once the
    step kernels are on disk too.
    """
    if jobs is None:
        jobs = (
            len(os.sched_getaffinity(0))
            if hasattr(os, "sched_getaffinity")
            else os.cpu_count()
        )
    jobs = max(1, int(jobs))
    first = ("scene boxes", "trees", "volumes")
    total = len(first) + len(GROUPS)
    times = {}
    submitted = set()

    def done(name, seconds):
        times[name] = seconds
        if progress is not None:
            progress(name, seconds, len(times), total)

    if jobs == 1:
        meshes = None
        for name in ("trees", "volumes", "scene boxes", *GROUPS):
            name, seconds, built = _run_group(name, meshes)
            meshes = built if built is not None else meshes
            done(name, seconds)
        return times
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    # spawn: a forked child would inherit this process's numba and OpenMP state
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        pending = {pool.submit(_run_group, name, None) for name in first}
        meshes = None
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                name, seconds, built = future.result()
                done(name, seconds)
                meshes = built if built is not None else meshes
                for g in ready(times, meshes is not None, submitted):
                    submitted.add(g)
                    pending.add(pool.submit(_run_group, g, meshes))
    return times
