"""Reading files, one module per kind, with one clear error per bad file
(:class:`FileError`, one line naming the file and, where known, the line):

- :mod:`hitbox.io.meshes`: mesh files (STL, OBJ, PLY, GLB/glTF, OFF), checked against
  their format by :mod:`hitbox.io.mesh_formats` before and after trimesh reads them;
- :mod:`hitbox.io.scenes`: scene files (JSON or TOML: meshes, poses, velocities) and
  poses (6 numbers ``x y z rx ry rz`` or a rigid 4x4 matrix);
- :mod:`hitbox.io.arrays`: point and ray arrays (``.npy`` files and zarr stores);
- :mod:`hitbox.io.saved`: saved trees and meshes (checked ``.npz`` archives), which
  :meth:`hitbox.bvh.BVH.save` and :meth:`hitbox.mesh.TriangleMesh.save` write.

The functions below are the public ones of those modules.
"""

from hitbox.io.arrays import load_points, load_rays
from hitbox.io.common import FileError
from hitbox.io.meshes import MESH_SUFFIXES, load_mesh, read_mesh
from hitbox.io.scenes import SceneObject, load_scene, pose_matrix, scene_from_file

__all__ = [
    "FileError",
    "MESH_SUFFIXES",
    "SceneObject",
    "load_mesh",
    "read_mesh",
    "load_scene",
    "scene_from_file",
    "pose_matrix",
    "load_points",
    "load_rays",
]
