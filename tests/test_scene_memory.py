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
