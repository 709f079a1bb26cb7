"""Batched queries on a Dask cluster: the many-pose, many-ray and many-point calls of
:class:`~hitbox.mesh.TriangleMesh` over chunked arrays (``pip install hitbox[dask]``).

Every function takes numpy or dask arrays and returns dask arrays chunked like the input
along its first axis, so results can be reduced or written (zarr, parquet) without
collecting them on one machine. Each chunk runs the single-process method on its rows,
so results equal the in-process call's exactly. Nothing runs until ``.compute()``;
errors found only by the kernels (a transform that is not rigid, a non-finite point in
a dask array) raise then. Numpy inputs are checked when the call is made.

Meshes travel once per cluster, not once per chunk: with a ``distributed.Client`` (the
``client`` argument, else the default client when one is active) the meshes become one
task of the cluster, under a key made from their content, computed once, held for the
life of the client, and the chunks' tasks depend on it. It is a task, not scattered
data, because the scheduler can compute a task again when the worker holding it dies;
scattered data is lost with its last copy (and Dask's memory manager keeps one copy of
a broadcast). With the local threaded or synchronous scheduler the tasks close over the
meshes. Meshes pickle as their arrays
(:meth:`TriangleMesh.__reduce__`): no worker builds a tree.

Two levels of parallelism: Dask's (worker processes, threads per worker) and numba's
own threads inside one kernel call (``numba.set_num_threads``: how many of its pool
the calling thread uses). A chunk's task uses one numba thread when its worker runs
several threads (or it runs in a pool thread of the local threaded scheduler), and the
worker's share of the cores when the worker runs one: :func:`local_cluster` tells its
workers their share (:data:`TASK_THREADS`), so the two levels never oversubscribe the
machine.
"""

import contextlib
import hashlib
import os
import threading

try:
    import dask.array as da
    from dask import delayed
    from dask.base import tokenize
except ImportError as exc:  # the core needs numpy and numba only
    raise ImportError(
        "hitbox.dask needs Dask: pip install hitbox[dask] "
        "(dask[array,distributed] >= 2024.1)"
    ) from exc
import numba
import numpy as np

from hitbox import _validate as v
from hitbox import distance as _distance
from hitbox.distance import MeshDistances
from hitbox.mesh import MODES, ClosestPoints, TriangleMesh
from hitbox.triangle import RayHits

__all__ = [
    "intersect_many",
    "distance_many",
    "raycast",
    "contains",
    "closest_point",
    "local_cluster",
    "POSE_CHUNK",
    "POINT_CHUNK",
]

#: Rows per chunk of a numpy input of poses (intersect_many, distance_many).
POSE_CHUNK = 200_000
#: Rows per chunk of a numpy input of rays or points.
POINT_CHUNK = 250_000

_HELD = {}  # (client id, mesh digests) -> Future of the meshes' task
_LOCK = threading.Lock()


# -- public functions ----------------------------------------------------------------------


def intersect_many(a, b, transforms, *, mode="any", chunks=None, client=None):
    """:meth:`TriangleMesh.intersect_many` over a chunked (K, 4, 4) array of poses.

    Parameters
    ----------
    a, b : TriangleMesh
        ``b`` is placed by each transform (rigid, b's frame into a's).
    transforms : (K, 4, 4) numpy or dask array of reals
    mode : {"any", "all"}
    chunks : int, optional
        Poses per chunk of a numpy input (default :data:`POSE_CHUNK`); a dask input
        keeps its own chunks along K.
    client : distributed.Client, optional
        Where the meshes are held; by default the active client, if any.

    Returns
    -------
    ``"any"``: (K,) bool dask array, chunked like ``transforms``. ``"all"``: a (3, n)
    intp dask array of rows (pose, a's face, b's face), sorted, with one block of
    unknown width per chunk of poses (``compute_chunk_sizes()`` before writing it to
    zarr); it computes to exactly the in-process ``(3, n)`` array.
    """
    mode = v.check_choice(mode, "mode", MODES)
    a, b = _mesh(a, "a"), _mesh(b, "b")
    _, b = a._pair(b)  # another node kind's tree is built here, once, not on workers
    poses = _as_dask(
        transforms, "transforms", (4, 4), POSE_CHUNK if chunks is None else chunks, _poses
    )
    meshes = _ship((a, b), client)
    name = f"hitbox-intersect-{mode}-" + tokenize(poses.name, _digests((a, b)))
    if mode == "any":
        return poses.map_blocks(
            _intersect_any, meshes, drop_axis=(1, 2), dtype=bool,
            meta=np.empty(0, bool), name=name,
        )  # fmt: skip
    rows = poses.map_blocks(
        _intersect_all, meshes, drop_axis=2,
        chunks=((np.nan,) * poses.numblocks[0], (3,)), dtype=np.intp,
        meta=np.empty((0, 3), np.intp), name=name,
    )  # fmt: skip
    return rows.T


def distance_many(a, b, transforms, *, max_distance=np.inf, rtol=0.0, atol=0.0,
                  chunks=None, client=None):  # fmt: skip
    """:meth:`TriangleMesh.distance_many` over a chunked (K, 4, 4) array of poses: a
    :class:`hitbox.distance.MeshDistances` of dask arrays ((K,), (K, 3), (K, 3), (K,),
    (K,), (K,)), chunked like ``transforms``. ``chunks`` and ``client`` as in
    :func:`intersect_many`; the options as in :func:`hitbox.distance.distance`."""
    a, b = _mesh(a, "a"), _mesh(b, "b")
    options = _distance._options(max_distance, rtol, atol)
    poses = _as_dask(
        transforms, "transforms", (4, 4), POSE_CHUNK if chunks is None else chunks, _poses
    )
    meshes = _ship((a, b), client)
    name = "hitbox-distance-" + tokenize(poses.name, _digests((a, b)), options)
    packed = poses.map_blocks(
        _distance_chunk, meshes, options, drop_axis=(1, 2), dtype=object,
        meta=np.empty(0, object), name=name,
    )  # fmt: skip
    cols = (1, 3, 3, 1, 1, 1)
    types = (np.float64, np.float64, np.float64, np.intp, np.intp, np.float64)
    return MeshDistances(*_fields(packed, cols, types))


def raycast(mesh, origins, directions, *, t_max=np.inf, mode="closest", chunks=None,
            client=None):  # fmt: skip
    """:meth:`TriangleMesh.raycast` over chunked rays: a :class:`hitbox.triangle.RayHits`
    of (R,) dask arrays (hit, t, face, u, v), chunked like ``origins``.

    ``origins``, ``directions``: (R, 3) numpy or dask arrays; ``t_max`` a float or an (R,)
    array; ``mode`` ``"closest"`` or ``"any"``. ``chunks``: rays per chunk of a numpy
    input (default :data:`POINT_CHUNK`); ``client`` as in :func:`intersect_many`.
    """
    mesh = _mesh(mesh, "mesh")
    mode = v.check_choice(mode, "mode", ("closest", "any"))
    size = POINT_CHUNK if chunks is None else chunks
    orig = _as_dask(origins, "origins", (3,), size, _no_check)
    dirs = _as_dask(directions, "directions", (3,), size, _no_check)
    if dirs.shape[0] != orig.shape[0]:
        raise ValueError(
            f"directions must have as many rows as origins ({orig.shape[0]}), "
            f"got {dirs.shape[0]}"
        )
    dirs = dirs.rechunk({0: orig.chunks[0]})
    args = [orig, dirs]
    if np.ndim(t_max) == 0 and not isinstance(t_max, da.Array):
        limit = float(v.as_float(t_max, "t_max"))
        if not limit >= 0:
            raise ValueError(f"t_max must be >= 0, got {limit}")
    else:
        limit = None
        ends = _as_dask(t_max, "t_max", (), size, _no_check)
        if ends.shape[0] != orig.shape[0]:
            raise ValueError(
                f"t_max must be a float or have one value per ray ({orig.shape[0]}), "
                f"got shape {ends.shape}"
            )
        args.append(ends.rechunk({0: orig.chunks[0]})[:, None])
    if not any(isinstance(x, da.Array) for x in (origins, directions, t_max)):
        v.as_rays(origins, directions, t_max, dim=3)  # numpy rays: checked now
    meshes = _ship((mesh,), client)
    name = "hitbox-raycast-" + tokenize([x.name for x in args], _digests((mesh,)),
                                        limit, mode)  # fmt: skip
    packed = da.map_blocks(
        _raycast_chunk, meshes, limit, mode, *args, drop_axis=1, dtype=object,
        meta=np.empty(0, object), name=name,
    )  # fmt: skip
    types = (bool, np.float64, np.intp, np.float64, np.float64)
    return RayHits(*_fields(packed, (1,) * 5, types))


def contains(mesh, points, *, chunks=None, client=None):
    """:meth:`TriangleMesh.contains` over chunked (P, 3) points: a (P,) bool dask array
    chunked like ``points`` (``chunks``, ``client`` as in :func:`raycast`)."""
    mesh = _mesh(mesh, "mesh")
    pts = _as_dask(
        points, "points", (3,), POINT_CHUNK if chunks is None else chunks, _points
    )
    meshes = _ship((mesh,), client)
    name = "hitbox-contains-" + tokenize(pts.name, _digests((mesh,)))
    return pts.map_blocks(
        _contains_chunk, meshes, drop_axis=1, dtype=bool, meta=np.empty(0, bool),
        name=name,
    )  # fmt: skip


def closest_point(mesh, points, *, chunks=None, client=None):
    """:meth:`TriangleMesh.closest_point` over chunked (P, 3) points: a
    :class:`hitbox.mesh.ClosestPoints` of dask arrays (point (P, 3), distance (P,),
    face (P,), barycentric (P, 3)) chunked like ``points``."""
    mesh = _mesh(mesh, "mesh")
    pts = _as_dask(
        points, "points", (3,), POINT_CHUNK if chunks is None else chunks, _points
    )
    meshes = _ship((mesh,), client)
    name = "hitbox-closest-" + tokenize(pts.name, _digests((mesh,)))
    packed = pts.map_blocks(
        _closest_chunk, meshes, drop_axis=1, dtype=object, meta=np.empty(0, object),
        name=name,
    )  # fmt: skip
    types = (np.float64, np.float64, np.intp, np.float64)
    return ClosestPoints(*_fields(packed, (3, 1, 1, 3), types))


#: The environment variable through which :func:`local_cluster` gives each worker its
#: numba threads per task. Not ``NUMBA_NUM_THREADS``: a worker sets its environment
#: after it starts, and a user's script re-imported there has already imported numba,
#: which then refuses to compile ("Cannot set NUMBA_NUM_THREADS to a different value
#: once the threads have been launched") whenever a kernel is not yet cached.
TASK_THREADS = "HITBOX_TASK_THREADS"


@contextlib.contextmanager
def local_cluster(n_workers=2, threads_per_worker=1, **options):
    """A ``distributed.Client`` on a ``LocalCluster`` of ``n_workers`` processes, closed
    on exit. A task on a worker uses ``cpu_count // (n_workers * threads_per_worker)``
    numba threads (at least 1, at most the worker's pool; ``NUMBA_NUM_THREADS`` in the
    environment wins). ``options`` go to ``LocalCluster``."""
    from distributed import Client, LocalCluster

    n_workers = v.check_count(n_workers, "n_workers")
    threads_per_worker = v.check_count(threads_per_worker, "threads_per_worker")
    share = max(1, (os.cpu_count() or 1) // (n_workers * threads_per_worker))
    env = {TASK_THREADS: os.environ.get("NUMBA_NUM_THREADS", str(share))}
    env.update(options.pop("env", {}))
    options.setdefault("dashboard_address", None)
    with (
        LocalCluster(
            n_workers=n_workers,
            threads_per_worker=threads_per_worker,
            processes=True,
            env=env,
            **options,
        ) as cluster,  # fmt: skip
        Client(cluster) as client,
    ):
        yield client


# -- chunk tasks (run on the workers) ------------------------------------------------------


def _intersect_any(poses, meshes):
    a, b = meshes
    with _task_threads():
        return a.intersect_many(b, poses, mode="any")


def _intersect_all(poses, meshes, block_info=None):
    a, b = meshes
    with _task_threads():
        rows = a.intersect_many(b, poses, mode="all")
    start = block_info[0]["array-location"][0][0] if block_info else 0
    rows[0] += start
    return np.ascontiguousarray(rows.T)


def _distance_chunk(poses, meshes, options):
    a, b = meshes
    upper, rtol, atol = options
    with _task_threads():
        out = a.distance_many(b, poses, max_distance=upper, rtol=rtol, atol=atol)
    return _pack(out)


def _raycast_chunk(meshes, limit, mode, origins, directions, ends=None):
    (mesh,) = meshes
    t_max = limit if ends is None else ends[:, 0]
    with _task_threads():
        return _pack(mesh.raycast(origins, directions, t_max=t_max, mode=mode))


def _contains_chunk(points, meshes):
    (mesh,) = meshes
    with _task_threads():
        return mesh.contains(points)


def _closest_chunk(points, meshes):
    (mesh,) = meshes
    with _task_threads():
        return _pack(mesh.closest_point(points))


def _pack(fields):
    """A chunk's several outputs as one 1-element object array (one task per chunk;
    each field is then taken out by :func:`_field`)."""
    out = np.empty(1, object)
    out[0] = tuple(fields)
    return out


def _field(packed, i):
    return packed[0][i]


@contextlib.contextmanager
def _task_threads():
    """Numba threads for this task: 1 when Dask runs several tasks side by side here,
    else the share :func:`local_cluster` gave this worker (:data:`TASK_THREADS`), if
    any."""
    try:
        from distributed import get_worker

        several = get_worker().state.nthreads > 1
    except (ImportError, ValueError, AttributeError):  # not in a distributed worker
        several = threading.current_thread() is not threading.main_thread()
    share = os.environ.get(TASK_THREADS, "")
    if several:
        use = 1
    elif share.isdigit() and int(share) > 0:
        use = min(int(share), numba.config.NUMBA_NUM_THREADS)
    else:
        yield
        return
    before = numba.get_num_threads()
    numba.set_num_threads(use)  # numba's setting is per calling thread
    try:
        yield
    finally:
        numba.set_num_threads(before)


# -- helpers -------------------------------------------------------------------------------


def _mesh(mesh, name):
    if not isinstance(mesh, TriangleMesh):
        raise TypeError(f"{name} must be a TriangleMesh, got {type(mesh).__name__}")
    return mesh


def _poses(arr, name):
    v.as_transforms(arr, name, rigid=True)


def _points(arr, name):
    v.as_points(arr, name, dim=3, finite=True)


def _no_check(arr, name):
    pass


def _as_dask(x, name, trailing, size, check):
    """``x`` as a dask array of shape (N, *trailing), one chunk along the trailing axes;
    a numpy input is checked by ``check`` and cut into chunks of ``size`` rows."""
    if isinstance(x, da.Array):
        if x.ndim != 1 + len(trailing) or tuple(x.shape[1:]) != trailing:
            raise ValueError(
                f"{name} must have shape (N, {', '.join(map(str, trailing))}), "
                f"got {x.shape}".replace(", )", ")")
            )
        if x.dtype.kind not in "biuf":
            raise TypeError(f"{name} must hold real numbers, got dtype {x.dtype}")
        return x.rechunk({i: -1 for i in range(1, x.ndim)}) if trailing else x
    arr = np.asarray(x)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    if arr.ndim != 1 + len(trailing) or tuple(arr.shape[1:]) != trailing:
        raise ValueError(
            f"{name} must have shape (N, {', '.join(map(str, trailing))}), "
            f"got {arr.shape}".replace(", )", ")")
        )
    check(arr, name)
    size = v.check_count(size, "chunks")
    return da.from_array(arr, chunks=(size, *trailing))


def _fields(packed, cols, types):
    """Dask arrays of each field of a packed chunk result: (N,) or (N, c)."""
    out = []
    for i, (c, dtype) in enumerate(zip(cols, types, strict=True)):
        kw = {} if c == 1 else {"new_axis": 1, "chunks": (packed.chunks[0], (c,))}
        meta = np.empty((0,) if c == 1 else (0, c), dtype)
        out.append(packed.map_blocks(_field, i, dtype=dtype, meta=meta, **kw))
    return out


def _digest(mesh):
    """A content hash of a mesh and its tree: equal meshes share one held copy."""
    h = hashlib.blake2b(digest_size=16)
    tree = mesh.bvh
    bv = tree.node_bv if isinstance(tree.node_bv, tuple) else (tree.node_bv,)
    h.update(f"{tree.kind}:{tree.depth}".encode())
    for arr in (mesh.vertices, mesh.faces, tree.node_box, tree.node_first,
                tree.node_count, tree.prim_order, tree.slot_box, *bv):  # fmt: skip
        h.update(str(arr.shape).encode())
        h.update(np.ascontiguousarray(arr).data)
    return h.hexdigest()


def _digests(meshes):
    return tuple(_digest(m) for m in meshes)


def _ship(meshes, client):
    """The meshes as the chunks' tasks receive them: a tuple (threads) or the Future of
    one task that returns it (distributed), computed again if its worker dies."""
    client = _client(client)
    if client is None:
        return tuple(meshes)
    key = ("hitbox-meshes", *_digests(meshes))
    with _LOCK:
        for k in [k for k in _HELD if _HELD[k].client.status == "closed"]:
            del _HELD[k]
        future = _HELD.get((client.id, key))
        if future is None or future.status in ("cancelled", "error"):
            name = "hitbox-meshes-" + tokenize(key)
            future = client.compute(delayed(tuple(meshes), name=name, traverse=False))
            _HELD[(client.id, key)] = future
    return future


def _client(client):
    if client is not None:
        return client
    try:
        from distributed import default_client

        return default_client()
    except (ImportError, ValueError):
        return None
