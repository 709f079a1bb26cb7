"""Two triangle meshes' crossing triangle pairs without building trees: one sweep over
the triangles' boxes along the axis where the fewest pairs of them meet, then exact
triangle tests: their floating-point filters where they decide, the exact signs where
they do not (SPEC §8's narrow phase without its hierarchy).

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

    Raises
    ------
    ValueError
        Bad shapes, non-finite coordinates, a transform that is not rigid, an unknown
        mode, or two sets that far apart in magnitude (see the notes).

    Notes
    -----
    Touching (a shared point, edge or face) counts. Time: O((N + M) log(N + M) + K),
    K the pairs of triangles whose boxes meet along the sweep's axis (counted on each
    axis first, the least taken): fine for one-off questions, where a tree's build
    and compilation cost more; :meth:`hitbox.mesh.TriangleMesh.intersect` for many.
    Coordinates beyond [2**-100, 2**100] are solved at a power of two (exact) where
    products of three stay in range; two sets whose largest coordinates lie more than
    2**100 apart in magnitude are refused.
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
    sizes = [float(np.abs(arr).max()) if arr.size else 0.0 for arr in (a, moved)]
    for size, name in zip(sizes, ("tris_a", "tris_b placed by transform"), strict=True):
        if 0.0 < size < max(sizes) * 2.0**-v.SQUARES_SAFE_EXP:
            raise ValueError(
                f"{name} lies more than 2**100 times nearer the origin than the other "
                "set's farthest coordinate: products of three coordinates would vanish"
            )
    g = v.pow2_for(max(sizes), v.SQUARES_SAFE_EXP)
    if g != 1.0:  # the same problem at a power of two (exact): every sign the same
        a, moved = a * g, moved * g
    a_box = np.stack([a.min(axis=1), a.max(axis=1)], axis=1)
    b_box = np.stack([moved.min(axis=1), moved.max(axis=1)], axis=1)
    axis = _sweep_axis(a_box, b_box)
    out, n, undecided, m = _kernel.sweep_pairs(
        a, a_box, np.argsort(a_box[:, 0, axis], kind="stable"),
        moved, b_box, np.argsort(b_box[:, 0, axis], kind="stable"),
        axis, mode == "any",
    )  # fmt: skip
    if mode == "any" and n:
        return True
    settled = _exact_meets(a, moved, undecided[:, :m])
    if mode == "any":
        return bool(settled.shape[1])
    pairs = np.concatenate([out[:, :n], settled], axis=1)
    return np.ascontiguousarray(pairs[:, np.lexsort((pairs[1], pairs[0]))])


def _exact_meets(a, b, pairs):
    """The columns of ``pairs`` whose triangles meet, by the exact test; its kernel (and
    the exact expansions it links, several seconds to compile) loads only when some
    pair needs it."""
    if not pairs.shape[1]:
        return pairs
    from hitbox._kernels import triangle as _exact

    hit = np.empty(pairs.shape[1], np.bool_)
    _exact.overlap(a[pairs[0]], b[pairs[1]], hit)
    return pairs[:, hit]


def _sweep_axis(a_box, b_box):
    """The axis on which the fewest (a, b) pairs of boxes have meeting intervals (each
    count exact, by two binary searches a box): a sweep along x over long thin
    triangles lying along x would test nearly every pair."""
    if not len(a_box) or not len(b_box):
        return 0
    best, best_count = 0, None
    for axis in range(3):
        b_lo = np.sort(b_box[:, 0, axis])
        b_hi = np.sort(b_box[:, 1, axis])
        # b meets a on the axis: b.lo <= a.hi and not b.hi < a.lo
        count = int(
            np.searchsorted(b_lo, a_box[:, 1, axis], side="right").sum()
            - np.searchsorted(b_hi, a_box[:, 0, axis], side="left").sum()
        )
        if best_count is None or count < best_count:
            best, best_count = axis, count
    return best
