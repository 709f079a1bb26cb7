"""Hypothesis found: a contact segment end placed at a vertex 0.83 away from one triangle.
The edge crossed the plane steeply, but the clamp meant for nearly parallel edges ran on
a projection where that vertex sat over a vertex of the other triangle."""

import numpy as np

import hitbox as hb
from tests import oracles_triangle as ot

P = np.array([[0.0, -1.20182338e00, -1.0], [1.0, 1e-15, 1.5], [0.0, 0.0, 0.0]])
Q = np.array([[0.75, -3.00455844e-01, 8.75e-01], [0.0, 0.0, 0.0], [0.0, 1e-15, 1.5]])


def test_contact_points_lie_on_both_triangles():
    seg = hb.triangle.intersection_segments(P, Q)
    assert seg.hit
    scale = max(np.abs(P).max(), np.abs(Q).max())
    for point in (seg.p, seg.q):
        assert ot.point_triangle_distance(point, P) <= 1e-9 * scale
        assert ot.point_triangle_distance(point, Q) <= 1e-9 * scale
