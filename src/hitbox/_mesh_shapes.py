"""A triangle mesh against convex shapes (:mod:`hitbox.convex`), behind
:meth:`~hitbox.mesh.TriangleMesh.intersect_shapes`: the mesh's tree finds the faces whose
boxes meet each shape's box, then GJK decides each face against the shape exactly as
:func:`hitbox.convex.intersects` does for any two convex shapes (a face is the convex
hull of its corners; touching, within :data:`hitbox.convex.TOUCH` of the pair's scale,
counts)."""

import numpy as np

from hitbox import _scale_groups as _sg
from hitbox import _validate as v
from hitbox import convex
from hitbox._kernels import mesh_shapes as _k

#: Modes of :meth:`~hitbox.mesh.TriangleMesh.intersect_shapes`.
MODES = ("any", "all")


def intersect_shapes(mesh, shapes, transform, mode):
    """(N,) bool (``mode="any"``) or sorted (2, n) intp (shape, face) pairs."""
    shapes, mode = _checked(shapes, transform, mode)
    g = convex.safe_scale(shapes, size=mesh._size())
    if g != 1.0:  # the same faces and shapes where products of coordinates stay in range
        big = np.maximum(_sg.magnitudes(len(shapes.kind), shapes.trans, shapes.bound),
                         mesh._size())  # fmt: skip
        groups = _sg.scale_groups(big, v.SQUARES_SAFE_EXP)
        if groups is not None:  # shapes too far apart in scale for one: each at its own
            return _by_scale(mesh, shapes, mode, groups)
        return intersect_shapes(mesh._twin(g), convex.scaled(shapes, g), None, mode)
    if mesh._convex is None:  # the slot triangles as flat hulls, made once
        mesh._convex = convex.triangles(mesh._slot_tris)
    t = mesh.bvh
    args = (t.node_box, t.node_first, t.node_count, t.slot_box, t.depth, mesh._convex,
            shapes, _face_reach(shapes, mesh))  # fmt: skip
    found = _k.touching_slots(*args, mode == "any")
    if mode == "any":
        out = np.zeros(len(shapes.kind), bool)
        out[found[0]] = True
        return out
    found[1] = t.prim_order[found[1]]
    return np.ascontiguousarray(found[:, np.lexsort((found[1], found[0]))])


def _face_reach(shapes, mesh):
    """The shapes' boxes, widened by the touching tolerance of the largest pair a face
    can make with each: TOUCH times the larger of the shape's scale and the face's (a
    face's corner mean and radius are within 4 times the mesh's largest coordinate).
    Widened by the shape's scale alone, a large face within tolerance of a small shape
    was culled before the pair test (a ball 5e-10 above a face 2,000 wide)."""
    boxes = convex.bounding_boxes(shapes)
    pad = 4.0 * convex.TOUCH * 4.0 * mesh._size()
    boxes[:, 0] -= pad
    boxes[:, 1] += pad
    return boxes


def _by_scale(mesh, shapes, mode, groups):
    """:func:`intersect_shapes` group by group of shapes sharing a power of two (a far
    shape would shrink the others' problem until their squares vanish)."""
    parts = []
    for g, rows in groups:
        got = intersect_shapes(mesh._twin(g), convex.scaled(convex.take(shapes, rows), g),
                               None, mode)  # fmt: skip
        parts.append((rows, got))
    if mode == "any":
        out = np.zeros(len(shapes.kind), bool)
        for rows, got in parts:
            out[rows] = got
        return out
    found = np.concatenate([np.stack([rows[got[0]], got[1]]) for rows, got in parts],
                           axis=1).astype(np.intp)  # fmt: skip
    return np.ascontiguousarray(found[:, np.lexsort((found[1], found[0]))])


def intersect_shapes_brute(mesh, shapes, transform, mode):
    """Slow twin of :func:`intersect_shapes`: every face against every shape, no tree."""
    shapes, mode = _checked(shapes, transform, mode)
    n_shapes, n_faces = len(shapes.kind), len(mesh.faces)
    cand = np.stack(
        [np.repeat(np.arange(n_shapes), n_faces), np.tile(np.arange(n_faces), n_shapes)]
    ).astype(np.intp)
    return _decide(mesh, shapes, cand, mode)


def _checked(shapes, transform, mode):
    if not isinstance(shapes, convex.Shapes):
        raise TypeError(
            f"shapes must be a hitbox.convex.Shapes (from convex.sphere(), box(), ...), "
            f"got {type(shapes).__name__}"
        )
    mode = v.check_choice(mode, "mode", MODES)
    if transform is not None:
        shapes = convex.transform(shapes, transform)
    return shapes, mode


def _decide(mesh, shapes, cand, mode):
    """The candidate (shape, face) pairs that touch, as ``mode`` returns them."""
    faces = convex.triangles(mesh.vertices[mesh.faces[cand[1]]])
    pairs = np.stack([np.arange(cand.shape[1]), cand[0]]).astype(np.intp)
    hit = convex.intersects(faces, shapes, pairs=pairs)
    found = cand[:, hit]
    if mode == "any":
        out = np.zeros(len(shapes.kind), bool)
        out[found[0]] = True
        return out
    return np.ascontiguousarray(found[:, np.lexsort((found[1], found[0]))])
