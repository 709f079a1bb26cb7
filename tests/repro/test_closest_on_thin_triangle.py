"""Found while checking closest points against exact rational distances: a triangle whose
third vertex lies on the line of an edge (to 1e-12) put a point 1.5e-5 from it 1.07
away. Rounding gave all three of Ericson's face region values a positive sign, and the
face weights that followed were noise."""

import math

import numpy as np

from hitbox._kernels.triangle_closest import closest_point_on
from tests import oracles_triangle as ot

A = np.array([-1.2500531413613933, -2.7607921360354686, 0.9674108269488422])
B = np.array([0.04597499979446666, 0.7328271975408134, -2.359849388445137])
C = np.array([-2.2280812025131507, -5.397199197516116, 3.478277492627184])
P = np.array([-0.3710466608717979, -0.3912714042145843, -1.2892670796852357])


def test_a_point_near_a_collinear_triangle():
    d2, *point = closest_point_on(*P, *A, *B, *C)[:4]
    exact = math.sqrt(float(ot.point_triangle_distance2(P, np.stack([A, B, C]))))
    assert abs(math.sqrt(d2) - exact) <= 1e-12
    assert np.linalg.norm(P - np.array(point)) == math.sqrt(d2)
