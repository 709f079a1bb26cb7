"""Deforming meshes in a Scene (Scene.set_vertices): trees refitted in place, every step
still equal to the brute-force twin, instances deforming apart, bad input changing
nothing."""

import numpy as np
import pytest

import hitbox as hb
from hitbox._kernels import scene_layout as kl


def _same(result, twin):
    np.testing.assert_array_equal(result.pairs, twin.pairs)
    np.testing.assert_array_equal(result.offsets, twin.offsets)
    np.testing.assert_array_equal(result.triangles, twin.triangles)


def _pose(x, y=0.0, z=0.0):
    pose = np.eye(4)
    pose[:3, 3] = (x, y, z)
    return pose


def _breathing(base, step, k):
    """The base vertices scaled about their centre, and rippled, as a step goes on."""
    centre = base.mean(axis=0)
    scale = 1.0 + 0.25 * np.sin(0.7 * step + k)
    ripple = 0.05 * np.sin(3.0 * base[:, [1, 2, 0]] + step)
    return centre + (base - centre) * scale + ripple


@pytest.mark.parametrize("mode", ["any", "all"])
def test_deforming_meshes_match_the_brute_twin_at_every_step(mode):
    torus = hb.shapes.torus(600, 1.0, 0.35)
    ball = hb.shapes.icosphere(0.6, 2)
    scene = hb.Scene()
    a = scene.add(torus, static=True)
    b = scene.add(
        torus, _pose(-2.6, 0.3), velocity=(0.6, 0, 0), angular_velocity=(0, 1, 0)
    )
    c = scene.add(ball, _pose(2.4, 0.0, 0.2), velocity=(-0.5, 0, 0))
    scene.add(hb.Spheres(np.zeros((1, 3)), np.array([0.3])), _pose(0.0, 1.5))
    touching = 0
    for step in range(60):
        scene.set_vertices(a, _breathing(torus.vertices, step, 0.0))
        if step % 3 == 0:
            scene.set_vertices(c, _breathing(ball.vertices, step, 1.0))
        result = scene.step(0.1, mode=mode)
        _same(result, scene.query_brute(mode=mode))
        touching += result.pairs.shape[1]
    assert touching > 20  # the run did touch, often
    assert b in scene.ids.tolist()
    # the mesh given to add() is untouched: its other instance keeps its own shape
    np.testing.assert_array_equal(
        torus.vertices, hb.shapes.torus(600, 1.0, 0.35).vertices
    )


def test_instances_deform_apart_and_the_original_mesh_keeps_its_tree():
    torus = hb.shapes.torus(400, 1.0, 0.3)
    scene = hb.Scene()
    a = scene.add(torus, static=True)
    b = scene.add(torus, _pose(3.0))
    assert scene.query().pairs.shape[1] == 0
    scene.set_vertices(a, torus.vertices * 1.5)  # a now reaches b; b is unchanged
    result = scene.query(mode="all")
    _same(result, scene.query_brute(mode="all"))
    assert result.pairs.tolist() == [[a], [b]]
    c = scene.add(torus, _pose(0.0, 4.0))  # the original mesh, added again: undeformed
    _same(scene.query(mode="all"), scene.query_brute(mode="all"))
    scene.set_vertices(a, torus.vertices)  # back to the original shape: apart again
    assert scene.query().pairs.shape[1] == 0
    assert scene.query_brute().pairs.shape[1] == 0
    assert c in scene.ids.tolist()


@pytest.mark.parametrize("mode", ["any", "all"])
def test_a_deformation_drops_the_fronts_whose_clearances_it_voids(mode):
    """B's ring through A's hole, 0.4 clear (their volumes meet, the meshes do not):
    the walk that proves them apart leaves a front (mode all) whose clearances would
    let the next walk skip its node pairs, as nothing moves. A widened until its rim
    reaches B must be found touching: a deformation drops the fronts."""
    torus = hb.shapes.torus(400, 1.0, 0.3)
    scene = hb.Scene(threshold=0.0)
    a = scene.add(torus, static=True)
    pose = _pose(1.0)
    pose[:3, :3] = [[1, 0, 0], [0, 0, -1], [0, 1, 0]]  # B's ring upright, in xz
    b = scene.add(torus, pose)
    for _ in range(2):
        result = scene.query(mode=mode)
        assert result.pairs.shape[1] == 0
        _same(result, scene.query_brute(mode=mode))
    buf = scene._buf
    rows = buf.mem_i[int(buf.ctl[kl.C_CUR]), : int(buf.ctl[kl.C_MEM_N])]
    if mode == "all":
        assert len(rows) == 1 and rows[0, 7] > 0  # 7: the pair's front length
    else:  # a pair apart keeps no front in mode any (it walks from the root)
        assert not (rows[:, 7] > 0).any()
    scene.set_vertices(a, torus.vertices * [1.6, 1.6, 1.0])  # A's rim out to 2.08
    result = scene.query(mode=mode)
    _same(result, scene.query_brute(mode=mode))
    assert result.pairs.tolist() == [[a], [b]]


def test_deforming_every_step_keeps_one_tree_per_object():
    torus = hb.shapes.torus(300, 1.0, 0.3)
    scene = hb.Scene()
    a = scene.add(torus, static=True)
    scene.add(torus, _pose(1.0, 0.5), velocity=(0.1, 0, 0))
    for step in range(30):
        scene.set_vertices(a, _breathing(torus.vertices, step, 0.0))
        scene.step(0.05)
    assert len(scene._buf._trees) == 2  # a's own (split once from the shared), b's


@pytest.mark.parametrize(
    "bad, error, match",
    [
        (np.zeros((5, 3)), ValueError, "vertices"),
        ("nan", ValueError, "finite|NaN|nan"),
        (np.zeros((4, 2)), ValueError, "shape|D = 3|3"),
    ],
)
def test_bad_vertices_change_nothing(bad, error, match):
    torus = hb.shapes.torus(200, 1.0, 0.3)
    scene = hb.Scene()
    a = scene.add(torus, static=True)
    scene.add(torus, _pose(0.5), velocity=(0.2, 0, 0))
    before = scene.query(mode="all")
    if isinstance(bad, str):
        bad = torus.vertices.copy()
        bad[3, 1] = np.nan
    with pytest.raises(error, match=match):
        scene.set_vertices(a, bad)
    _same(scene.query(mode="all"), before)


def test_only_meshes_deform():
    scene = hb.Scene()
    s = scene.add(hb.Spheres(np.zeros((1, 3)), np.array([1.0])))
    with pytest.raises(ValueError, match="not a mesh"):
        scene.set_vertices(s, np.zeros((3, 3)))
    with pytest.raises(ValueError, match="unknown object id"):
        scene.set_vertices(7, np.zeros((3, 3)))
