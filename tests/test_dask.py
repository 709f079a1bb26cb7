"""hitbox.dask: batched queries on a Dask cluster equal the in-process calls exactly.

One LocalCluster of two worker processes serves the module; the threaded scheduler is
tested too. Meshes pickle as their arrays (no tree is built on a worker), travel once per
worker, and a worker that dies mid-computation costs a retry, not a wrong answer.
"""

import contextlib
import functools
import json
import os
import pickle
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

distributed = pytest.importorskip("dask.distributed")
import dask  # noqa: E402
import dask.array as da  # noqa: E402

import hitbox.dask as hd  # noqa: E402
from hitbox import cli, shapes  # noqa: E402
from hitbox.bvh import BVH  # noqa: E402
from hitbox.mesh import TriangleMesh  # noqa: E402

# uneven chunks with an empty one
POSE_CHUNKS = (70, 0, 113, 17)
POINT_CHUNKS = (300, 0, 41, 159)


def _poses(n, seed=0):
    """n rigid poses: random rotations, translations uniform in a box of +-1.6."""
    rng = np.random.default_rng(seed)
    q, r = np.linalg.qr(rng.normal(size=(n, 3, 3)))
    q = q * np.sign(np.diagonal(r, axis1=1, axis2=2))[:, None, :]
    q[np.linalg.det(q) < 0, :, 0] *= -1
    out = np.tile(np.eye(4), (n, 1, 1))
    out[:, :3, :3] = q
    out[:, :3, 3] = rng.uniform(-1.6, 1.6, (n, 3))
    return out


A = shapes.torus(400)
B = shapes.torus(300, 0.8, 0.25, node="aabb")  # another kind: paired before shipping
POSES = _poses(sum(POSE_CHUNKS))
RNG = np.random.default_rng(1)
POINTS = RNG.uniform(-1.5, 1.5, (sum(POINT_CHUNKS), 3))
DIRECTIONS = RNG.normal(size=POINTS.shape)
T_MAX = RNG.uniform(0.0, 2.0, len(POINTS))


@functools.cache
def _expected():
    """The in-process answers, computed once per test process, on first use (not at
    import: every xdist worker imports every module, and would compile these kernels
    at once before any test ran)."""
    return {
        "any": A.intersect_many(B, POSES),
        "all": A.intersect_many(B, POSES, mode="all"),
        "distance": A.distance_many(B, POSES),
        "rays": A.raycast(POINTS, DIRECTIONS, t_max=T_MAX),
        "rays_any": A.raycast(POINTS, DIRECTIONS, mode="any"),
        "contains": A.contains(POINTS),
        "closest": A.closest_point(POINTS),
    }


def _lazy(client):
    poses = da.from_array(POSES, chunks=(POSE_CHUNKS, 4, 4))
    points = da.from_array(POINTS, chunks=(POINT_CHUNKS, 3))
    dirs = da.from_array(DIRECTIONS, chunks=(POINT_CHUNKS, 3))
    return {
        "any": hd.intersect_many(A, B, poses, client=client),
        "all": hd.intersect_many(A, B, poses, mode="all", client=client),
        "distance": hd.distance_many(A, B, poses, client=client),
        "rays": hd.raycast(
            A, points, dirs, t_max=da.from_array(T_MAX, chunks=97), client=client
        ),  # fmt: skip
        "rays_any": hd.raycast(
            A, POINTS, DIRECTIONS, mode="any", chunks=150, client=client
        ),  # fmt: skip
        "contains": hd.contains(A, points, client=client),
        "closest": hd.closest_point(A, points, client=client),
    }


def _check_equal(got, expected):
    for name, want in expected.items():
        have = got[name]
        if isinstance(want, tuple):
            assert type(have) is type(want), name
            for field, x, y in zip(want._fields, have, want, strict=True):
                assert x.dtype == y.dtype and x.shape == y.shape, (name, field)
                assert np.array_equal(x, y, equal_nan=True), (name, field)
        else:
            assert have.dtype == want.dtype and have.shape == want.shape, name
            assert np.array_equal(have, want), name


def _compute(lazy, scheduler):
    flat = {k: (tuple(x) if isinstance(x, tuple) else (x,)) for k, x in lazy.items()}
    done = dict(zip(flat, dask.compute(*flat.values(), scheduler=scheduler), strict=True))
    return {
        k: type(lazy[k])(*done[k]) if isinstance(lazy[k], tuple) else done[k][0]
        for k in lazy
    }


@pytest.fixture(scope="module")
def client():
    _expected()  # compiled here first: the cluster's workers load it from disk
    cluster = distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
    )
    with cluster, distributed.Client(cluster, set_as_default=False) as c:
        yield c


# -- results -----------------------------------------------------------------------------


def test_the_threaded_scheduler_gives_the_in_process_results():
    lazy = _lazy(None)
    assert lazy["any"].chunks == (POSE_CHUNKS,)
    assert lazy["closest"].point.chunks == (POINT_CHUNKS, (3,))
    assert lazy["all"].shape[0] == 3 and np.isnan(lazy["all"].shape[1])
    _check_equal(_compute(lazy, "threads"), _expected())
    _check_equal(_compute(lazy, "sync"), _expected())


def test_the_cluster_gives_the_in_process_results(client):
    lazy = _lazy(client)
    assert lazy["rays"].hit.chunks == (POINT_CHUNKS,)
    _check_equal(_compute(lazy, client), _expected())


def test_numpy_inputs_are_chunked_by_size(client):
    lazy = hd.intersect_many(A, B, POSES, chunks=64, client=client)
    assert lazy.chunks == ((64, 64, 64, 8),)
    assert np.array_equal(lazy.compute(scheduler=client), _expected()["any"])


def test_meshes_are_sent_once_and_no_tree_is_built_on_workers(client):
    def watch():
        import hitbox.bvh
        import hitbox.mesh

        counts = {"build": 0, "made": 0}
        build, init = hitbox.bvh.BVH.build.__func__, hitbox.mesh.TriangleMesh.__init__

        def counted_build(cls, *args, **kwargs):
            counts["build"] += 1
            return build(cls, *args, **kwargs)

        def counted_init(self, *args, **kwargs):  # unpickling makes a mesh this way
            counts["made"] += 1
            init(self, *args, **kwargs)

        hitbox.bvh.BVH.build = classmethod(counted_build)
        hitbox.mesh.TriangleMesh.__init__ = counted_init
        hitbox._test_counts = counts

    def counts():
        import hitbox

        return dict(hitbox._test_counts)

    client.run(watch)
    a, b = shapes.torus(360), shapes.torus(240, node="kdop18")  # new to the workers
    poses = _poses(600, seed=5)
    # here first: the workers then load its kernels from the cache, not compile them
    expected = a.intersect_many(b, poses)
    for _ in range(2):  # a second call reuses the held copies
        got = hd.intersect_many(a, b, poses, chunks=50, client=client)
        assert np.array_equal(got.compute(scheduler=client), expected)
    seen = client.run(counts)
    assert len(seen) == 2
    # two meshes (b with a tree of a's kind) reach each worker once per cluster, not
    # once per chunk (24 chunks, 2 calls); Dask may move one more copy between the
    # workers under load, never a copy per chunk, and no worker builds a tree
    assert all(c["build"] == 0 and 2 <= c["made"] <= 4 for c in seen.values()), seen


def _die_once(block, marker):
    """Kill this worker process the first time any chunk gets here."""
    if not len(block):
        return block  # the empty chunk, or meta
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return block
    os.close(fd)
    os._exit(1)


@pytest.fixture
def own_client():
    """A cluster of its own: a worker is killed on it."""
    cluster = distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
    )
    with cluster, distributed.Client(cluster, set_as_default=False) as c:
        yield c


def test_a_worker_dying_mid_computation_costs_retries_only(own_client, tmp_path):
    client = own_client
    marker = str(tmp_path / "died")
    poses = da.from_array(POSES, chunks=(POSE_CHUNKS, 4, 4))
    dying = poses.map_blocks(_die_once, marker, meta=np.empty((0, 4, 4)))
    lazy = {
        "any": hd.intersect_many(A, B, dying, client=client),
        "all": hd.intersect_many(A, B, dying, mode="all", client=client),
        "distance": hd.distance_many(A, B, dying, client=client),
    }
    got = _compute(lazy, client)
    assert Path(marker).exists()  # a worker did die
    _check_equal(got, {k: _expected()[k] for k in lazy})


def _wait_for_fresh_workers(client, n, gone, timeout=120.0):
    """Wait until the scheduler lists n workers, none of them in gone.

    Asks the scheduler itself: Client.wait_for_workers would ask the LocalCluster,
    which then replaces its copy of the worker list, and a "remove" message still in
    flight for a killed worker then fails the cluster's close with a KeyError.
    """

    def addresses(dask_scheduler):
        return list(dask_scheduler.workers)

    deadline = time.monotonic() + timeout
    while True:
        now = set(client.run_on_scheduler(addresses))
        if len(now) >= n and now.isdisjoint(gone):
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"workers {sorted(now)} after {timeout} s, want {n} new")
        time.sleep(0.1)


def test_the_meshes_outlive_the_worker_that_holds_them(own_client):
    """Scattered data dies with its last copy; the meshes' task is computed again."""
    client = own_client
    lazy = hd.intersect_many(A, B, POSES, chunks=50, client=client)
    assert np.array_equal(lazy.compute(scheduler=client), _expected()["any"])
    (held,) = [k for k in client.who_has() if str(k).startswith("hitbox-meshes-")]
    holders = client.who_has()[held]
    assert holders
    with contextlib.suppress(Exception):  # the connection drops as the workers exit
        client.run(os._exit, 1, workers=list(holders))
    _wait_for_fresh_workers(client, 2, gone=holders)
    again = hd.intersect_many(A, B, POSES, chunks=50, client=client)
    assert np.array_equal(again.compute(scheduler=client), _expected()["any"])
    assert set(client.who_has()[held]).isdisjoint(holders)


def test_the_meshes_are_sent_again_after_a_restart(own_client):
    """client.restart() cancels every future, the meshes' too: the next call sends
    them again instead of depending on a cancelled key."""
    client = own_client
    lazy = hd.intersect_many(A, B, POSES, chunks=50, client=client)
    assert np.array_equal(lazy.compute(scheduler=client), _expected()["any"])
    client.restart()
    again = hd.intersect_many(A, B, POSES, chunks=50, client=client)
    assert np.array_equal(again.compute(scheduler=client), _expected()["any"])


# -- pickling ----------------------------------------------------------------------------


@pytest.mark.parametrize("node", ["obb", "aabb", "sphere", "kdop14"])
def test_a_mesh_pickles_as_its_arrays_without_a_build(node, monkeypatch):
    mesh = shapes.torus(200, node=node)
    mesh.contains(np.zeros((1, 3)))  # sets the closed flag, which travels too
    data = pickle.dumps(mesh)

    def refuse(*args, **kwargs):
        raise AssertionError("a tree was built while unpickling")

    monkeypatch.setattr(BVH, "build", refuse)
    back = pickle.loads(data)
    assert isinstance(back, TriangleMesh) and back._closed is True
    for x, y in zip(
        (back.vertices, back.faces, *_tree_arrays(back.bvh)),
        (mesh.vertices, mesh.faces, *_tree_arrays(mesh.bvh)),
        strict=True,
    ):
        assert x.dtype == y.dtype and np.array_equal(x, y)
        assert not x.flags.writeable
    assert (back.bvh.kind, back.bvh.depth) == (mesh.bvh.kind, mesh.bvh.depth)
    back.bvh.validate(back.triangles)
    assert np.array_equal(back._slot_tris, mesh._slot_tris)
    assert back.intersect(mesh, _poses(1)[0]) == mesh.intersect(mesh, _poses(1)[0])
    assert pickle.loads(pickle.dumps(mesh.bvh)).n_nodes == mesh.bvh.n_nodes


def _tree_arrays(tree):
    bv = tree.node_bv if isinstance(tree.node_bv, tuple) else (tree.node_bv,)
    return (*bv, tree.node_box, tree.node_first, tree.node_count, tree.prim_order,
            tree.slot_box)  # fmt: skip


# -- inputs ------------------------------------------------------------------------------


def test_bad_inputs_are_named():
    with pytest.raises(TypeError, match="b must be a TriangleMesh"):
        hd.intersect_many(A, "torus", POSES)
    with pytest.raises(ValueError, match="mode"):
        hd.intersect_many(A, B, POSES, mode="first")
    with pytest.raises(ValueError, match=r"transforms must have shape \(N, 4, 4\)"):
        hd.intersect_many(A, B, da.zeros((5, 3, 4)))
    with pytest.raises(ValueError, match="transforms"):
        hd.intersect_many(A, B, POSES[:, :3])
    with pytest.raises(TypeError, match="transforms must hold real numbers"):
        hd.distance_many(A, B, POSES.astype(str))
    not_rigid = POSES.copy()
    not_rigid[3, 0, 0] = 2.0
    with pytest.raises(ValueError, match=r"transforms\[3\] must be rigid"):
        hd.intersect_many(A, B, not_rigid)
    with pytest.raises(ValueError, match="max_distance"):
        hd.distance_many(A, B, POSES, max_distance=-1)
    with pytest.raises(ValueError, match="points"):
        hd.contains(A, POINTS[:, :2])
    with pytest.raises(ValueError, match="directions must have as many rows"):
        hd.raycast(A, da.from_array(POINTS), da.from_array(DIRECTIONS[:5]))
    with pytest.raises(ValueError, match="t_max"):
        hd.raycast(A, POINTS, DIRECTIONS, t_max=-1.0)
    with pytest.raises(ValueError, match="chunks"):
        hd.closest_point(A, POINTS, chunks=0)


def test_a_dask_input_is_checked_when_computed():
    not_rigid = POSES.copy()
    not_rigid[3, 0, 0] = 2.0
    lazy = hd.intersect_many(A, B, da.from_array(not_rigid, chunks=50))
    with pytest.raises(ValueError, match="must be rigid"):
        lazy.compute(scheduler="sync")


def test_without_dask_the_import_names_the_extra():
    code = (
        "import sys; sys.modules['dask'] = None\n"
        "import hitbox, hitbox.mesh\n"
        "try:\n    import hitbox.dask\nexcept ImportError as e:\n    print(e)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "pip install hitbox[dask]" in done.stdout


def test_import_hitbox_does_not_import_dask():
    code = "import sys, hitbox, hitbox.cli; print('dask' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert done.stdout.strip() == "False", done.stderr


# -- command line ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def torus_file(tmp_path_factory):
    trimesh = pytest.importorskip("trimesh")
    path = tmp_path_factory.mktemp("mesh") / "torus.stl"
    trimesh.creation.torus(1.0, 0.3, major_sections=24, minor_sections=8).export(path)
    return path


def _cli_json(capsys, *argv):
    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert status == 0, err
    return json.loads(out)


def test_cli_raycast_on_a_scheduler_matches_the_local_run(capsys, client, torus_file):
    here = _cli_json(capsys, "raycast", torus_file, "--rays", 3000, "--json")
    there = _cli_json(capsys, "raycast", torus_file, "--rays", 3000, "--json",
                      "--scheduler", client.scheduler.address)  # fmt: skip
    assert there["cluster"]["workers"] == 2
    for key in ("hits", "mean_t", "rays"):
        assert there[key] == here[key], key


def test_cli_raycast_on_local_workers(capsys, torus_file):
    status = cli.main(["raycast", str(torus_file), "--rays", "2000", "--workers", "1"])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "cluster: 1 workers" in out and "hits:" in out


def test_cli_cluster_options_exclude_each_other(capsys, torus_file):
    with pytest.raises(SystemExit) as exc:
        cli.main(["raycast", str(torus_file), "--workers", "2", "--scheduler", "x:1"])
    assert exc.value.code == 2
    assert "not allowed with" in capsys.readouterr().err


def test_cli_unreachable_scheduler_is_one_line(capsys, torus_file):
    status = cli.main(["raycast", str(torus_file), "--rays", "10", "--scheduler",
                       "tcp://127.0.0.1:9"])  # fmt: skip
    err = capsys.readouterr().err
    assert status == 1 and "cannot reach a Dask scheduler" in err
    assert len(err.strip().splitlines()) == 1


# -- local_cluster ---------------------------------------------------------------------

_SCRIPT = """
import numba  # a user's script imports numba; each worker re-imports it at its start

from hitbox import dask as hd


def _total(n):
    s = 0
    for i in numba.prange(n):
        s += i
    return s


def task(n):
    with hd._task_threads():
        threads = numba.get_num_threads()  # launches the worker's pool, as queries do
        pool = numba.config.NUMBA_NUM_THREADS
        # a kernel compiled after the pool started: numba rereads its environment
        return threads, pool, numba.njit(parallel=True)(_total)(n)


if __name__ == "__main__":
    with hd.local_cluster(2) as client:
        print(*client.submit(task, 100).result())
"""


def test_local_cluster_workers_compile_and_split_the_cores(tmp_path):
    """A worker of local_cluster compiles a parallel kernel after its numba pool
    started (a cold cache) even when the user's script imported numba before the
    worker set its environment, and each task uses its share of the cores."""
    script = tmp_path / "cluster_script.py"
    script.write_text(_SCRIPT)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_NUM_THREADS"}
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    threads, pool, total = map(int, done.stdout.split())
    assert total == sum(range(100))
    assert threads == min(pool, max(1, (os.cpu_count() or 1) // 2))
