"""Hypothesis found: the hull fit of two points near 1e-159 gave det(rot) = 0.9999996
(squares of such coordinates are subnormal). Fits now run at unit scale."""

import numpy as np

import hitbox as hb


def test_tiny_collinear_points_give_a_proper_rotation():
    groups = np.array([[[1.42859756e-159] * 3, [2.85719513e-159] * 3]])
    for method in hb.obb.METHODS:
        fitted = hb.obb.fit(groups, method=method)
        np.testing.assert_allclose(np.linalg.det(fitted.rot), 1.0, atol=1e-12)
        np.testing.assert_allclose(fitted.rot[0].T @ fitted.rot[0], np.eye(3), atol=1e-12)
        assert hb.obb.contains_points(fitted, groups[0]).all()


def test_huge_points_fit_too():
    rng = np.random.default_rng(3)
    groups = rng.normal(size=(4, 20, 3)) * 1e160
    fitted = hb.obb.fit(groups)
    assert np.all(np.abs(np.linalg.det(fitted.rot) - 1.0) < 1e-12)
    for i in range(4):
        assert hb.obb.contains_points(
            hb.OBBs(fitted.center[i], fitted.half[i], fitted.rot[i]), groups[i]
        ).all()
