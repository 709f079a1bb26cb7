"""Code compiled apart (:mod:`hitbox._kernels.apart`) gives what the same code gives
compiled into its caller: the exact fallbacks of orient2d and orient3d and the tie cases
of the triangle test, on near-degenerate inputs where they decide."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numba import njit

from hitbox._kernels import exact_predicates as kp
from hitbox._kernels import triangle_overlap as ko


@njit
def _o3(a, b, c, d):
    apart = kp._orient3d_apart(
        a[0], a[1], a[2], b[0], b[1], b[2], c[0], c[1], c[2], d[0], d[1], d[2]
    )
    return apart, kp._orient3d_exact(a, b, c, d)


@njit
def _o2(ax, ay, bx, by, cx, cy):
    apart = kp._orient2d_apart(ax, ay, bx, by, cx, cy)
    return apart, kp._orient2d_exact(ax, ay, bx, by, cx, cy)


@njit
def _ties(p0, p1, p2, q0, q1, q2):
    sp = (
        kp.orient3d(q0, q1, q2, p0),
        kp.orient3d(q0, q1, q2, p1),
        kp.orient3d(q0, q1, q2, p2),
    )
    sq = (
        kp.orient3d(p0, p1, p2, q0),
        kp.orient3d(p0, p1, p2, q1),
        kp.orient3d(p0, p1, p2, q2),
    )
    apart = ko._ties_apart(
        p0[0], p0[1], p0[2], p1[0], p1[1], p1[2], p2[0], p2[1], p2[2],
        q0[0], q0[1], q0[2], q1[0], q1[1], q1[2], q2[0], q2[1], q2[2],
        sp[0], sp[1], sp[2], sq[0], sq[1], sq[2],
    )  # fmt: skip
    inline = ko._ties(p0, p1, p2, q0, q1, q2, sp, sq)
    return apart != 0, inline


scales = st.sampled_from([1.0, 1e-300, 2.0**-1000 * 3, 1e150, 7.0])
shifts = st.sampled_from([0.0, 1e8, -3.5e12])


@st.composite
def near_plane(draw):
    """Four points, the last on the plane of the first three up to rounding (or a few
    ulps off it), scaled and shifted."""
    abc = draw(hnp.arrays(np.float64, (3, 3), elements=st.floats(-1e3, 1e3)))
    s, r = draw(st.floats(-2, 2)), draw(st.floats(-2, 2))
    a, b, c = abc * draw(scales) + draw(shifts)
    d = a + s * (b - a) + r * (c - a)
    d[2] += draw(st.integers(-3, 3)) * np.spacing(d[2])
    if draw(st.booleans()):
        d = b.copy()  # a repeated point
    return tuple(map(tuple, (a, b, c, d)))


@settings(max_examples=400, deadline=None)
@given(near_plane())
def test_orient3d_apart_agrees(points):
    apart, inline = _o3(*points)
    assert apart == inline


@settings(max_examples=400, deadline=None)
@given(near_plane())
def test_orient2d_apart_agrees(points):
    (ax, ay, _), (bx, by, _), (cx, cy, _), (dx, dy, _) = points
    for args in ((ax, ay, bx, by, dx, dy), (ax, ay, bx, by, cx, cy)):
        apart, inline = _o2(*args)
        assert apart == inline


@st.composite
def touching_pairs(draw):
    """Triangle pairs on a small integer grid (shared vertices and edges, coplanar
    pairs, zero-area triangles), scaled by a power of two or a decimal and shifted."""
    grid = hnp.arrays(np.int64, (3, 3), elements=st.integers(-2, 2))
    p = draw(grid).astype(float)
    q = draw(grid).astype(float)
    if draw(st.booleans()):
        q[0] = p[draw(st.integers(0, 2))]  # a shared vertex
    if draw(st.booleans()):
        p[:, 2] = q[:, 2] = 0.0  # coplanar
    scale, shift = draw(scales), draw(shifts)
    p, q = p * scale + shift, q * scale + shift
    return tuple(map(tuple, p)) + tuple(map(tuple, q))


@settings(max_examples=400, deadline=None)
@given(touching_pairs())
def test_tri_tri_ties_apart_agrees(tris):
    apart, inline = _ties(*tris)
    assert apart == inline
