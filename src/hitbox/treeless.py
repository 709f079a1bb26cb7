"""Two triangle meshes' crossing triangle pairs without building trees: one sweep along
x over the triangles' boxes, then exact triangle tests (SPEC §8's narrow phase without
its hierarchy).

For one-off questions where building two trees and compiling their walk would cost more
than the answer: the command line's first ``hitbox collide`` on an empty kernel cache
answers with it in a few seconds of compilation instead of half a minute. Answers equal
:meth:`hitbox.mesh.TriangleMesh.intersect`'s bit for bit: the second mesh's vertices are
moved and rounded as it moves them, and every decision after is exact.
"""

import numpy as np

from hitbox import _affine
from hitbox import _validate as v
from hitbox._kernels import treeless as _kernel

#: Modes of :func:`intersect`, as :meth:`hitbox.mesh.TriangleMesh.intersect` takes them.
MODES = ("any", "all")


def intersect(tris_a, tris_b, transform=None, *, mode="any"):
    """Does ``tris_b``, placed by ``transform``, touch ``tris_a``? Which triangles?

    Parameters
    ----------
    tris_a, tris_b : (N, 3, 3), (M, 3, 3) float
        Triangles (corners in rows); N or M may be 0.
    transform : (4, 4) float, optional
        Rigid map from ``tris_b``'s frame into ``tris_a``'s (identity if omitted).
    mode : {"any", "all"}
        ``"any"``: a bool. ``"all"``: every crossing pair, ``(2, n) intp``, row 0
        indexing ``tris_a`` and row 1 ``tris_b``, sorted by (row 0, row 1).

    Touching (a shared point, edge or face) counts. Coordinates beyond
    [2**-100, 2**100] are refused (products of three of them would overflow or vanish);
    :meth:`hitbox.mesh.TriangleMesh.intersect` rescales those.

    Raises
    ------
    ValueError
        Bad shapes, non-finite coordinates, a transform that is not rigid, an unknown
        mode, or coordinates out of that range.
    """
    v.check_choice(mode, "mode", MODES)
    a, _ = v.as_point_groups(tris_a, "tris_a", dim=3)
    b, _ = v.as_point_groups(tris_b, "tris_b", dim=3)
    for arr, name in ((a, "tris_a"), (b, "tris_b")):
        if arr.shape[1] != 3:
            raise ValueError(f"{name} must have shape (N, 3, 3), got {arr.shape}")
    rot, trans = v.as_transform(
        np.eye(4) if transform is None else transform, "transform", rigid=True
    )
    moved = _affine.apply(rot, trans, b)  # rounded as TriangleMesh.intersect moves them
    for arr, name in ((a, "tris_a"), (moved, "tris_b placed by transform")):
        size = float(np.abs(arr).max()) if arr.size else 0.0
        if (
            size != 0.0
            and not 2.0**-v.SQUARES_SAFE_EXP <= size <= 2.0**v.SQUARES_SAFE_EXP
        ):
            raise ValueError(f"{name} has coordinates beyond [2**-100, 2**100]")
    a_box = np.stack([a.min(axis=1), a.max(axis=1)], axis=1)
    b_box = np.stack([moved.min(axis=1), moved.max(axis=1)], axis=1)
    out, n = _kernel.sweep_pairs(
        a, a_box, np.argsort(a_box[:, 0, 0], kind="stable"),
        moved, b_box, np.argsort(b_box[:, 0, 0], kind="stable"),
        mode == "any",
    )  # fmt: skip
    if mode == "any":
        return bool(n > 0)
    pairs = out[:, :n]
    return np.ascontiguousarray(pairs[:, np.lexsort((pairs[1], pairs[0]))])
