"""Hypothesis found: an OBB fitted to the single point (10, 2.2e-312, 0) did not contain
it. The fit runs at a power-of-two unit scale (here 1/8), which is exact for normal
numbers but drops the low bits of a subnormal one; the half extents scaled back came
from the rounded points. They are now measured at the points' own scale."""

import numpy as np
import pytest

import hitbox as hb


@pytest.mark.parametrize("method", hb.obb.METHODS)
@pytest.mark.parametrize(
    "points",
    [
        [[1.0e1, 2.22507386e-312, 0.0]],
        [[3.0, 5e-324, -7e-320], [3.0, -5e-324, 1e-321]],
        [[1e300, 3e-310, 0.0], [-1e300, 0.0, 4.9e-324]],
    ],
)
def test_fit_contains_points_with_subnormal_coordinates(points, method):
    pts = np.array(points)
    box = hb.obb.fit(pts, method=method)
    assert hb.obb.contains_points(box, pts).all()
    assert (box.half >= 0).all()


def test_fit_triangles_contains_subnormal_vertices():
    tri = np.array([[[1.0, 2.2e-312, 0.0], [2.0, 0.0, 3e-320], [1.5, 1.0, 0.0]]])
    box = hb.obb.fit_triangles(tri)
    assert hb.obb.contains_points(box, tri[0]).all()
