"""Scene.run: many steps in one compiled call are the same steps as Scene.step, one at a
time: the same pairs, triangles and contact times at every step, the same poses after,
and the brute-force twin's pairs at the end."""

import numpy as np
import pytest

from hitbox._kernels import scene_layout as _kl
from hitbox.pipeline import Scene
from tests.test_pipeline import _random_scene, _same


def _twins(seed, broadphase, n=20):
    a, _ = _random_scene(seed, broadphase, n)
    b, _ = _random_scene(seed, broadphase, n)
    return a, b


@pytest.mark.parametrize(
    "seed, broadphase, mode, continuous",
    [(0, "auto", "any", False), (1, "sap", "all", False), (2, "brute", "any", True),
     (3, "auto", "all", True)],
)  # fmt: skip
def test_run_equals_steps_one_at_a_time(seed, broadphase, mode, continuous):
    one, many = _twins(seed, broadphase)
    dt, steps = 0.05, 40
    run = many.run(dt, steps, mode=mode, continuous=continuous)
    assert len(run) == steps
    for flat in (run.pairs, run.triangles, run.offsets, run.step_offsets):
        assert flat.dtype == np.intp and flat.flags.c_contiguous
    touching = 0
    for k in range(steps):
        want = one.step(dt, mode=mode, continuous=continuous)
        got = run[k]
        _same(got, want)
        if continuous:
            np.testing.assert_array_equal(got.toi, want.toi)
        touching += want.pairs.shape[1] > 0
        assert run.times[k] == one.time
    assert touching > 0, "the scene should touch somewhere along the run"
    np.testing.assert_array_equal(run.touching_steps.size, touching)
    assert many.time == one.time
    for i in one.ids.tolist():
        np.testing.assert_array_equal(many.pose(i), one.pose(i))
    _same(many.query(mode), many.query_brute(mode))


@pytest.mark.parametrize("tri_start", [16, 4_096])
def test_run_grows_its_buffers_and_log_mid_run(monkeypatch, tri_start):
    """Many touching pairs from the first step: the first run outgrows every buffer
    (pairs, triangles from a small start, memory, log) part way, and still equals the
    steps."""
    monkeypatch.setattr("hitbox._scene_buffers._TRI_FIRST", min(tri_start, 64))
    monkeypatch.setattr("hitbox._scene_buffers._TRI_START", tri_start)
    one, many = _twins(7, "sap", n=40)
    for scene in (one, many):
        for i in scene.ids.tolist():
            pose = scene.pose(i)
            pose[:3, 3] *= 0.3  # crowded: many pairs touch
            scene.set_pose(i, pose)
    run = many.run(0.02, 15, mode="all")
    for k in range(15):
        _same(run[k], one.step(0.02, mode="all"))
    assert run.pairs.shape[1] > 64
    if tri_start == 16:  # some step outgrew the triangle buffer: it grew mid-run
        assert max(run[k].triangles.shape[1] for k in range(15)) > tri_start


def test_run_of_quiet_steps_moves_as_steps_do():
    """Steps before the quiet horizon only move the objects, with the same arithmetic."""
    one, many = Scene(), Scene()
    for scene in (one, many):
        scene.add(np.array([[0.0, 0, 0], [1, 1, 1]]), static=True)
        pose = np.eye(4)
        pose[0, 3] = 50.0
        scene.add(np.array([[0.0, 0, 0], [1, 1, 1]]), pose, velocity=(-1.0, 0, 0),
                  angular_velocity=(0.1, 0.2, 0.3))  # fmt: skip
    run = many.run(0.1, 600)
    touching = [k for k in range(600) if one.step(0.1).pairs.shape[1]]
    np.testing.assert_array_equal(many.pose(1), one.pose(1))
    assert len(touching) > 0
    np.testing.assert_array_equal(run.touching_steps, touching)


def test_run_checks_its_arguments():
    scene, _ = _random_scene(0, "auto", 6)
    before = {i: scene.pose(i) for i in scene.ids.tolist()}
    for bad, err in (((-1.0, 3), ValueError), ((0.1, -1), ValueError),
                     ((0.1, 2.5), TypeError), ((np.nan, 3), ValueError),
                     ((0.1, True), TypeError)):  # fmt: skip
        with pytest.raises(err):
            scene.run(*bad)
    with pytest.raises(ValueError, match="mode"):
        scene.run(0.1, 3, mode="first")
    with pytest.raises(TypeError, match="continuous"):
        scene.run(0.1, 3, continuous=1)
    for i, pose in before.items():
        np.testing.assert_array_equal(scene.pose(i), pose)
    empty = scene.run(0.1, 0)
    assert len(empty) == 0 and empty.pairs.shape == (2, 0)
    with pytest.raises(IndexError):
        empty[0]


@pytest.mark.parametrize("which", ["one", "cap-1", "cap", "cap+1", "two caps and more"])
def test_quiet_steps_replayed_by_the_next_kernel_move_as_steps_do(which):
    """Quiet steps queue their dts (up to PENDING_CAP; the queue is replayed in Python
    when full) and the next step's kernel replays them first: the poses are
    bit-identical to a twin whose poses are read after every step (each read replays
    at once), and so are the pairs of the step that ends the quiet stretch."""
    from hitbox._kernels import scene_layout as kl

    cap = kl.PENDING_CAP
    quiet = {"one": 1, "cap-1": cap - 1, "cap": cap, "cap+1": cap + 1,
             "two caps and more": 2 * cap + 22}[which]  # fmt: skip
    twins = [Scene(threshold=1e5), Scene(threshold=1e5)]  # asleep for 3,775 s
    for scene in twins:
        scene.add(np.array([[0.0, 0, 0], [1, 1, 1]]), static=True)
        pose = np.eye(4)
        pose[:3, 3] = (5000.0, 0.5, 0.5)  # its corner ends inside the static box
        scene.add(np.array([[0.0, 0, 0], [1, 1, 1]]), pose, velocity=(-1.0, 0, 0),
                  angular_velocity=(0.1, 0.2, 0.3))  # fmt: skip
        scene.query()
    kernel, read = twins
    for _ in range(quiet):
        for scene in twins:
            scene.step(0.01)
        read.pose(1)
        assert kernel._horizon > kernel.time  # still quiet
    assert kernel._n_pending == (quiet - 1) % kl.PENDING_CAP + 1
    quiet_stats = kernel.step(0.0).stats  # no query runs: nothing is timed
    assert quiet_stats.seconds == 0.0 and quiet_stats.skipped_scheduled == 1
    last = [scene.step(4999.5 - quiet * 0.01, mode="all") for scene in twins]
    assert kernel._n_pending == 0
    assert last[0].stats.seconds > 0.0  # a query ran
    np.testing.assert_array_equal(kernel.pose(1), read.pose(1))
    np.testing.assert_array_equal(last[0].pairs, last[1].pairs)
    assert last[0].pairs.shape[1] == 1  # the last step ends in the box


def test_replayed_quiet_steps_of_unequal_dts_and_many_objects_move_as_steps_do():
    """The replay works each object's turn out once per run of equal dts: runs of
    unequal dts (and a zero turn) across several moving objects still give the poses,
    bit for bit, of a twin that replays after every step."""
    twins = [Scene(threshold=1e5), Scene(threshold=1e5)]
    spins = [(0.1, 0.2, 0.3), (0.0, 0.0, 0.0), (-2.0, 0.5, 1.0)]
    for scene in twins:
        scene.add(np.array([[0.0, 0, 0], [1, 1, 1]]), static=True)
        for k, spin in enumerate(spins):
            pose = np.eye(4)
            pose[:3, 3] = (5000.0 + 10 * k, 0.5, 0.5)
            scene.add(np.array([[0.0, 0, 0], [1, 1, 1]]), pose,
                      velocity=(-1.0, 0.01 * k, 0), angular_velocity=spin,
                      acceleration=(0.0, 0.0, -0.001 * k))  # fmt: skip
        scene.query()
    kernel, read = twins
    dts = [0.01] * 5 + [0.02] * 3 + [0.01, 0.03, 0.03, 0.0, 0.03] + [0.005] * 20
    for dt in dts:
        for scene in twins:
            scene.step(dt)
        for i in read.ids.tolist():
            read.pose(i)
        assert kernel._horizon > kernel.time
    assert kernel._n_pending == len([dt for dt in dts if dt > 0])
    kernel.query()
    for i in kernel.ids.tolist():
        np.testing.assert_array_equal(kernel.pose(i), read.pose(i))
    assert not np.array_equal(kernel.pose(3)[:3, :3], np.eye(3))


def test_a_step_that_outgrows_its_triangle_buffer_runs_again_and_equals_brute_force(
    monkeypatch,
):
    """Steps in mode all from a 16-pair triangle buffer: the steps that outgrow it grow
    it and run again, with the same pairs and triangles as the brute-force twin."""
    monkeypatch.setattr("hitbox._scene_buffers._TRI_FIRST", 16)
    monkeypatch.setattr("hitbox._scene_buffers._TRI_START", 16)
    scene, _ = _random_scene(11, "sap", n=40)
    for i in scene.ids.tolist():
        pose = scene.pose(i)
        pose[:3, 3] *= 0.3  # crowded: many triangle pairs touch
        scene.set_pose(i, pose)
    most = 0
    for _ in range(6):
        got = scene.step(0.02, mode="all")
        _same(got, scene.query_brute("all"))
        most = max(most, got.triangles.shape[1])
    assert most > 16
    assert scene._buf.ctl[_kl.C_TRI_CAP] >= most


@pytest.mark.parametrize("call", ["step", "query", "run"])
def test_room_for_triangle_pairs_is_made_at_the_first_step_in_mode_all(call):
    """A scene stepped in mode any keeps the small triangle buffer; the first step,
    query or run in mode all makes room for _TRI_START pairs at once."""
    from hitbox import _scene_buffers as sb

    scene, _ = _random_scene(5, "sap", n=12)
    scene.step(0.01)
    scene.query()
    assert scene._buf.ctl[_kl.C_TRI_CAP] == sb._TRI_FIRST
    twin, _ = _random_scene(5, "sap", n=12)
    twin.step(0.01)
    if call == "step":
        got = scene.step(0.01, mode="all")
        _same(got, twin.step(0.01, mode="all"))
    elif call == "query":
        _same(scene.query("all"), scene.query_brute("all"))
    else:
        run = scene.run(0.01, 2, mode="all")
        for k in range(2):
            _same(run[k], twin.step(0.01, mode="all"))
    assert scene._buf.ctl[_kl.C_TRI_CAP] >= sb._TRI_START
