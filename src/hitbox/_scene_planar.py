"""Contacts of plain objects in a 2D scene, in the plane: a disc or rectangle lifted
into 3D is flat (its cut by z = 0 is the object), and a flat pair parts soonest along z.
Extruded along z by more than any depth in the plane, the pair parts soonest within it,
and :mod:`hitbox.convex`'s closed forms and manifolds give the plane's answers."""

import numpy as np

from hitbox import convex
from hitbox._scene_objects import SPHERE, lift_pose2, world_convex


def pose4(scene, i):
    """The object's (4, 4) pose: a 2D scene's lifted into 3D, turning about z."""
    pose = scene.pose(i)
    return pose if scene.dim == 3 else lift_pose2(pose)


def plain_pair(scene, i, j):
    """Two plain objects as :mod:`hitbox.convex` shapes for their depth and contacts:
    as they are in a 3D scene; in a 2D scene extruded along z (:func:`extruded`) by
    twice their bounding radii together, more than any depth in the plane (moving B
    by the radii's sum along the centres' line parts them), so the pair parts soonest
    within the plane."""
    if scene.dim == 3:
        return (
            world_convex(scene._objects[i], pose4(scene, i)),
            world_convex(scene._objects[j], pose4(scene, j)),
        )
    height = 2.0 * (scene._objects[i].radius + scene._objects[j].radius)
    return extruded(scene, i, height), extruded(scene, j, height)


def extruded(scene, i, height):
    """A 2D scene's disc or rectangle as the 3D shape that spans it ``height`` up and
    down z: a vertical capsule or a tall box, whose cut by z = 0 it is (its pair depths
    and normals closed forms, as :func:`hitbox.convex.penetration` says)."""
    obj, pose = scene._objects[i], pose4(scene, i)
    centre = pose[:3, :3] @ obj.center + pose[:3, 3]
    if obj.kind == SPHERE:
        up = np.array([0.0, 0.0, height])
        return convex.capsule(centre - up, centre + up, obj.radius)
    half = np.array([obj.half[0], obj.half[1], height])
    return convex.box(centre, half, pose[:3, :3] @ obj.rot)


def in_plane(found):
    """2D manifolds from those of extruded shapes: each point dropped to z = 0 and the
    points then equal in the plane (a vertical contact edge's two ends, to rounding of
    the pair's size) kept once, the deepest, in their order."""
    count = found.count.copy()
    depth, point_a, point_b = (
        found.depth.copy(),
        found.point_a.copy(),
        found.point_b.copy(),
    )
    point_a[..., 2] = point_b[..., 2] = 0.0
    for k in range(len(count)):
        pts = point_a[k, : count[k], :2]
        scale = np.abs(pts).max(initial=0.0) + np.abs(depth[k, : count[k]]).max(
            initial=0.0
        )
        keep = []
        for p in np.argsort(-depth[k, : count[k]], kind="stable"):
            if all(np.abs(pts[p] - pts[q]).max() > 1e-9 * scale for q in keep):
                keep.append(p)
        keep.sort()
        n = len(keep)
        depth[k, :n], point_a[k, :n], point_b[k, :n] = (
            depth[k, keep],
            point_a[k, keep],
            point_b[k, keep],
        )
        depth[k, n:], point_a[k, n:], point_b[k, n:] = np.nan, np.nan, np.nan
        count[k] = n
    normal = found.normal.copy()
    normal[:, 2] = 0.0
    return convex.Manifolds(count, normal, depth, point_a, point_b)
