"""Saved meshes and trees: the suffix rule, and files that are truncated, foreign or
edited by hand refused with a ValueError naming the file, never loaded half-checked."""

import numpy as np
import pytest

from hitbox import shapes
from hitbox.bvh import BVH
from hitbox.mesh import TriangleMesh


@pytest.mark.parametrize("node", ["obb", "aabb", "sphere", "kdop18"])
def test_save_and_load_without_a_suffix(tmp_path, node):
    mesh = shapes.torus(500, node=node)
    mesh.save(tmp_path / "tree")
    assert (tmp_path / "tree.npz").exists()
    back = TriangleMesh.load(tmp_path / "tree")
    np.testing.assert_array_equal(back.faces, mesh.faces)
    assert back.bvh.kind == node
    pose = np.eye(4)
    pose[0, 3] = 1.5
    assert back.intersect(back, pose) == mesh.intersect(mesh, pose)
    assert BVH.load(tmp_path / "tree.npz").n_prims == mesh.n_faces


def test_truncated_and_foreign_files(tmp_path):
    mesh = shapes.box()
    mesh.save(tmp_path / "box.npz")
    raw = (tmp_path / "box.npz").read_bytes()
    (tmp_path / "cut.npz").write_bytes(raw[: len(raw) // 2])
    (tmp_path / "text.npz").write_text("not an archive")
    for name in ("cut.npz", "text.npz"):
        with pytest.raises(ValueError, match=name):
            TriangleMesh.load(tmp_path / name)
        with pytest.raises(ValueError, match=name):
            BVH.load(tmp_path / name)
    with pytest.raises(FileNotFoundError):
        TriangleMesh.load(tmp_path / "missing.npz")
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    with pytest.raises(ValueError, match="holds no mesh"):
        TriangleMesh.load(tmp_path / "other.npz")


def _tampered(tmp_path, edit):
    mesh = shapes.sphere(1.0, 6, 12, node="obb")
    mesh.save(tmp_path / "s.npz")
    with np.load(tmp_path / "s.npz") as f:
        data = {k: f[k].copy() for k in f.files}
    edit(data)
    np.savez(tmp_path / "t.npz", **data)
    return tmp_path / "t.npz"


@pytest.mark.parametrize(
    "edit",
    [
        lambda d: d["mesh_vertices"].__setitem__((0, 0), d["mesh_vertices"][0, 0] + 0.5),
        lambda d: d["node_box"].__setitem__((0, 1, 0), d["node_box"][0, 1, 0] - 0.5),
        lambda d: d["node_box"].__setitem__((1, 0, 2), np.nan),
        lambda d: d["node_half"].__setitem__((0, 0), 0.1),
        lambda d: d["node_first"].__setitem__(0, 0),
    ],
    ids=["vertex moved", "box shrunk", "box NaN", "OBB shrunk", "structure"],
)
def test_files_edited_by_hand_are_refused(tmp_path, edit):
    with pytest.raises(ValueError):
        TriangleMesh.load(_tampered(tmp_path, edit))


def test_numbers_beyond_float64_and_complex_poses_are_refused():
    from hitbox import files
    from hitbox.pipeline import Scene

    scene = Scene()
    with pytest.raises(ValueError, match="dt is beyond the float64 range"):
        scene.step(10**400)
    with pytest.raises(ValueError, match="threshold|beyond"):
        Scene(threshold=10**400)
    for pose in ([1 + 2j, 0, 0, 0, 0, 0], np.ones(6, complex), [10**400, 0, 0, 0, 0, 0]):
        with pytest.raises(ValueError, match="real numbers"):
            files.pose_matrix(pose)


def test_rays_from_an_npz_archive_are_refused(tmp_path):
    from hitbox import array_files, files

    np.savez(tmp_path / "rays.npz", rays=np.zeros((2, 6)))
    with pytest.raises(files.FileError, match="archive"):
        array_files.load_rays(tmp_path / "rays.npz")
