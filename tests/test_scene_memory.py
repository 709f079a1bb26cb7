"""A long Scene run holds its memory: after the first 1,000 steps, 10^6 more (quiet and
touching steps alike) grow the resident set by under 1 MB (issue: exact at the edges)."""

import gc
import sys
from pathlib import Path

import numpy as np
import pytest

from hitbox import shapes
from hitbox.pipeline import Scene
from hitbox.sphere import Spheres

STATM = Path("/proc/self/statm")


def _rss_bytes():
    gc.collect()  # garbage awaiting the cycle collector is not held memory
    return int(STATM.read_text().split()[1]) * 4096


@pytest.mark.skipif(not STATM.exists() or sys.platform != "linux", reason="Linux /proc")
def test_a_million_steps_hold_their_memory():
    scene = Scene()
    torus = shapes.torus(300)
    scene.add(torus, velocity=[0.1, 0, 0], angular_velocity=[0, 0.3, 0.1])
    pose = np.eye(4)
    pose[0, 3] = 1.5
    scene.add(torus, pose, angular_velocity=[0.2, 0, 0])
    scene.add(Spheres(np.zeros((1, 3)), np.array([0.3])), velocity=[0, 0.05, 0])
    touching = 0
    for _ in range(1000):
        touching += scene.step(0.001).pairs.shape[1]
    before = _rss_bytes()
    for _ in range(10**6):
        scene.step(0.001)
    touching += scene.query().pairs.shape[1]
    assert touching > 0  # the run has touching steps, not only quiet ones
    assert _rss_bytes() - before < 1_000_000


def _spinning_pair():
    """A static torus, a torus passing through it while it turns, and a box meeting
    the second torus on the way: the touching pairs change along the run."""
    scene = Scene()
    mesh = shapes.torus(400)
    start = np.eye(4)
    start[:3, 3] = (-2.6, 0.2, 0.1)
    scene.add(mesh, static=True)
    scene.add(mesh, start, velocity=(1.0, 0, 0), angular_velocity=(0, 1, 0.3))
    box = np.array([[4.0, -0.5, -0.5], [5, 0.5, 0.5]])
    scene.add(box, velocity=(-0.8, 0, 0))
    return scene


def test_step_results_are_snapshots_and_shared_pairs_are_read_only():
    """A step's pairs are read-only, shared with the last step's result only when
    equal; each result's stats are its own step's, however many steps later they are
    read (the record is copied, not viewed)."""
    scene, twin = _spinning_pair(), _spinning_pair()
    kept, eager = [], []
    for _ in range(90):
        result = scene.step(0.05)
        kept.append(result)
        eager.append(twin.step(0.05).stats)  # read at once
        brute = scene.query_brute()
        np.testing.assert_array_equal(result.pairs, brute.pairs)
        if result.pairs.size:
            assert not result.pairs.flags.writeable
            with pytest.raises(ValueError):
                result.pairs[0, 0] = 7
    untimed = [s._replace(seconds=0.0) for s in eager]
    assert [r.stats._replace(seconds=0.0) for r in kept] == untimed
    for before, after in zip(kept, kept[1:], strict=False):
        if after.pairs is before.pairs:
            assert after.pairs.size
        elif before.pairs.shape == after.pairs.shape and before.pairs.size:
            assert not np.array_equal(before.pairs, after.pairs)
    counts = [r.pairs.shape[1] for r in kept]
    assert max(counts) >= 2 and 1 in counts  # the pair set changed along the run


def test_a_scene_refuses_pickling_and_copying_with_a_clear_error():
    """An unpickled scene's buffers would be copies of one another (numpy pickles views
    apart) and miss pairs: it says so instead."""
    import copy
    import pickle

    scene = _spinning_pair()
    scene.step(0.05)
    for attempt in (pickle.dumps, copy.copy, copy.deepcopy):
        with pytest.raises(TypeError, match="cannot be pickled"):
            attempt(scene)
    assert scene.step(0.05).pairs.shape[0] == 2  # the scene itself still steps
