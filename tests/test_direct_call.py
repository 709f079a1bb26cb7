"""The step kernel called through its entry point answers as through numba's dispatch."""

import numpy as np
from numba import njit

from hitbox import pipeline
from hitbox._direct_call import direct_entry, resolving_slot
from hitbox._kernels import scene as _ks


@njit(cache=True)
def _scaled_sum(x, k):
    return x.sum() * k


def test_entry_point_answers_as_the_dispatcher():
    x = np.arange(5.0)
    assert _scaled_sum(x, 3) == 30.0  # numba has the overload now
    call = direct_entry(_scaled_sum, (x, 3))
    assert call is not _scaled_sum
    assert call(x, 3) == 30.0
    assert call(np.ones(4), 2) == 8.0


def test_no_overload_falls_back_to_the_dispatcher():
    # no (float32 array, float) overload was ever compiled
    assert direct_entry(_scaled_sum, (np.ones(3, np.float32), 1.5)) is _scaled_sum
    assert direct_entry(len, ([],)) is len  # not a numba dispatcher at all


def test_scene_steps_equal_through_the_dispatcher(monkeypatch):
    """Two scenes on one trajectory, one stepping through the resolved entry point,
    the other through numba's dispatcher: the same pairs at every step."""
    from hitbox import shapes

    def run(slot):
        monkeypatch.setattr(pipeline, "_STEP", slot)
        scene = pipeline.Scene()
        mesh = shapes.torus(400)
        scene.add(mesh, static=True)
        pose = np.eye(4)
        pose[:3, 3] = (-3.0, 0.2, 0.1)
        scene.add(mesh, pose, velocity=(1.0, 0, 0), angular_velocity=(0, 1, 0.3))
        scene.add(np.array([[4.0, -0.5, -0.5], [5, 0.5, 0.5]]), velocity=(-0.5, 0, 0))
        out = [scene.step(0.05).pairs.tolist() for _ in range(120)]
        return out, pipeline._STEP[0]

    slot = resolving_slot(_ks.step)
    first = slot[0]
    direct, resolved = run(slot)
    assert resolved is not first  # the first step resolved the entry
    assert resolved is not _ks.step
    dispatched, _ = run([lambda *a: _ks.step(*a)])  # never resolved: a lambda
    assert direct == dispatched
    touching = [len(pairs[0]) > 0 for pairs in direct]
    assert any(touching) and not all(touching)  # touching and apart steps both seen
