"""First contact times of moving spheres and boxes (the Scene's continuous mode)
against hitbox.sweep's closed forms and against dense sampling."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import hitbox as hb
from hitbox._kernels.contact_time import first_contact

coord = st.floats(-4, 4, allow_nan=False)
size = st.floats(0.05, 1.5, allow_nan=False)
speed = st.floats(-20, 20, allow_nan=False)
vec = st.tuples(coord, coord, coord)
vel = st.tuples(speed, speed, speed)


def _state(center, v, radius=None, half=None, spin=(0.0, 0.0, 0.0), rot=None):
    s = np.zeros((12, 3))
    s[0:3] = np.eye(3)
    s[3] = center
    s[4] = v
    s[5] = spin
    if radius is not None:
        s[8, 0] = radius
        return 0, s
    s[8] = half
    s[9:12] = np.eye(3) if rot is None else rot
    return 1, s


@settings(max_examples=300, deadline=None)
@given(vec, vec, size, size, vel, vel)
def test_spheres_meet_when_the_sweep_says(ca, cb, ra, rb, va, vb):
    ca, cb, va, vb = map(np.array, (ca, cb, va, vb))
    t = first_contact(*_state(ca, va, radius=ra), *_state(cb, vb, radius=rb), 1.0)
    ref = hb.sweep.sphere_sphere(hb.Spheres(cb, rb), hb.Spheres(ca, ra), vb - va)
    if ref.hit:
        assert abs(t - ref.t) <= 1e-9 * (1 + np.abs(np.r_[ca, cb, va, vb]).max())
    else:
        assert (
            t == np.inf or abs(np.linalg.norm(cb + vb * t - ca - va * t) - ra - rb) < 1e-9
        )


@settings(max_examples=300, deadline=None)
@given(vec, vec, st.tuples(size, size, size), st.tuples(size, size, size), vel, vel)
def test_boxes_meet_when_the_sweep_says(ca, cb, ha, hb_, va, vb):
    ca, cb, ha, hb_, va, vb = map(np.array, (ca, cb, ha, hb_, va, vb))
    t = first_contact(*_state(ca, va, half=ha), *_state(cb, vb, half=hb_), 1.0)
    ref = hb.sweep.aabb_aabb(
        np.stack([cb - hb_, cb + hb_]), np.stack([ca - ha, ca + ha]), vb - va
    )
    if ref.hit:
        assert abs(t - ref.t) <= 1e-9 * (1 + np.abs(np.r_[ca, cb, va, vb]).max())
    else:
        assert t == np.inf


@settings(max_examples=150, deadline=None)
@given(vec, vec, size, st.tuples(size, size, size), vel, vel)
def test_sphere_and_box_meet_when_the_sweep_says(ca, cb, r, h, va, vb):
    ca, cb, h, va, vb = map(np.array, (ca, cb, h, va, vb))
    t = first_contact(*_state(ca, va, half=h), *_state(cb, vb, radius=r), 1.0)
    ref = hb.sweep.sphere_aabb(hb.Spheres(cb, r), np.stack([ca - h, ca + h]), vb - va)
    if ref.hit:
        assert abs(t - ref.t) <= 1e-9 * (1 + np.abs(np.r_[ca, cb, va, vb]).max())
    else:
        assert t == np.inf


def _box_gap(c, axes, half, p):
    local = axes.T @ (p - c)
    return np.linalg.norm(np.maximum(np.abs(local) - half, 0.0))


@settings(max_examples=60, deadline=None)
@given(vec, vec, size, st.tuples(size, size, size), vel, vec)
def test_spinning_box_is_never_passed_through(ca, cb, r, h, vb, spin):
    """A box spinning about its origin and a moving sphere: no sampled time at which
    they touch comes before the reported first contact (conservative advancement)."""
    ca, cb, h, vb, spin = map(np.array, (ca, cb, h, vb, spin))
    spin = spin * 3
    t = first_contact(*_state(ca, np.zeros(3), half=h, spin=spin),
                      *_state(cb, vb, radius=r), 1.0)  # fmt: skip
    for s in np.linspace(0.0, 1.0, 401):
        angle = np.linalg.norm(spin) * s
        axis = spin / (np.linalg.norm(spin) or 1.0)
        k = np.array(
            [[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]]
        )
        rot = np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * k @ k
        if _box_gap(ca, rot, h, cb + vb * s) < r - 1e-9:
            assert t <= s + 1e-9
            break
