"""Oriented bounding boxes in 3D (SPEC §5).

A set of N boxes is ``OBBs(center (N, 3), half (N, 3), rot (N, 3, 3))``: column k of
``rot[i]`` is box i's unit axis k, and a point of box i is ``center[i] + rot[i] @ u`` with
``|u[k]| <= half[i, k]``. One box is an ``OBBs`` of shapes ``(3,), (3,), (3, 3)``; one box
in gives one result out. Boxes are closed: touching boxes overlap and boundary points are
inside. A box with any half extent below zero is empty (it contains and overlaps nothing);
the empty box this module makes is ``center 0, half -inf, rot I``.

``rot`` must be orthonormal to 1e-6 (a reflection, det -1, is accepted and describes the
same box). Where it is off by more than rounding, :func:`overlap` and
:func:`overlap_pairs` replace it by the nearest rotation and enlarge the box to hold the
parallelepiped the given matrix describes; the other functions use ``rot.T`` as the
inverse of ``rot``.
"""

import numpy as np

from hitbox import _affine, aabb
from hitbox import _validate as v
from hitbox._kernels import obb as kernels
from hitbox._types import OBBs

# The verbs every volume kind has, named as in aabb, sphere and kdop (STYLE §3).
__all__ = [
    "METHODS",
    "fit",
    "fit_triangles",
    "from_boxes",
    "to_boxes",
    "is_empty",
    *aabb.BOX_QUERIES,
]

METHODS = ("hull", "pca")

# Boxes fed to the sweep in overlap_pairs grow by this fraction of their summed half
# extents, so that every pair the (conservative) separating-axis test calls overlapping
# is also a candidate, and overlap_pairs equals overlap_pairs_brute.
PAIR_PAD = 1e-5

_ROT_TOL = 1e-6  # the validator's orthonormality tolerance
_EPS = np.finfo(np.float64).eps


def fit(points, *, method="hull"):
    """One oriented box around each group of points.

    Parameters
    ----------
    points : (P, K, 3) float, or (K, 3) for one group
        All groups have K points; K = 0 gives empty boxes.
    method : {"hull", "pca"}
        ``"pca"``: the axes are the eigenvectors of the points' covariance (largest
        spread first), extents from the min/max projections. ``"hull"`` (default,
        tighter): starts from the PCA axes and the AABB axes; around each of their axes
        it turns the other two to the minimum-area rectangle of the points projected
        across it (rotating-calipers over the projected convex hull, Freeman & Shapira
        1975), repeats around the best box's axes while that helps, and keeps the box of
        smallest volume (flat sets: smallest surface). Its volume is never above the
        ``"pca"`` box's or the AABB's.

    Returns
    -------
    OBBs
        ``center (P, 3)``, ``half (P, 3)``, ``rot (P, 3, 3)`` (one box for one group);
        ``rot`` is a proper rotation (det +1), orthonormal to rounding. Every input point
        tests inside its box with :func:`contains_points`, bit for bit. Coincident,
        collinear and coplanar points give boxes with zero half extents.
    """
    groups, single = v.as_point_groups(points, "points", dim=3)
    method = v.check_choice(method, "method", METHODS)
    return _squeeze_obbs(_fit(groups, method == "hull"), single)


def fit_triangles(triangles):
    """One box over a whole triangle set by seed 003's formula (PCA of the vertices).

    ``mu = 1/(3n) sum(p_i + q_i + r_i)``; ``C_jk = 1/(3n) sum(p'_j p'_k + q'_j q'_k +
    r'_j r'_k)`` with ``p' = p - mu``; the eigenvectors of C are the axes and the extents
    come from the min/max projections of the vertices.

    Parameters
    ----------
    triangles : (F, 3, 3) float, or (P, F, 3, 3) for P sets
        Vertex k of triangle f is ``triangles[f, k]``. F = 0 gives the empty box.
        (Compare :func:`fit`, which reads ``(F, 3, 3)`` as F groups and fits F boxes.)

    Returns
    -------
    OBBs
        One box (shapes (3,), (3,), (3, 3)) for ``(F, 3, 3)``; P boxes for
        ``(P, F, 3, 3)``.
    """
    arr = v.as_float(triangles, "triangles", finite=True)
    if arr.ndim not in (3, 4) or arr.shape[-2:] != (3, 3):
        raise ValueError(
            "triangles must have shape (F, 3, 3) or (P, F, 3, 3), "
            f"got {np.shape(triangles)}"
        )
    single = arr.ndim == 3
    sets = arr[None] if single else arr
    groups = np.ascontiguousarray(sets.reshape(len(sets), 3 * sets.shape[1], 3))
    return _squeeze_obbs(_fit(groups, False), single)


def from_boxes(boxes):
    """The AABBs ``(N, 2, 3)`` (or one ``(2, 3)``) as OBBs with identity rotations.

    The empty box becomes the empty OBB. Boxes with an infinite side raise ValueError.
    """
    boxes, single = v.as_boxes(boxes, "boxes", dim=3)
    empty = np.isposinf(boxes[:, 0, 0])
    bad = ~empty & ~np.isfinite(boxes).all(axis=(1, 2))
    if bad.any():
        raise ValueError(
            f"boxes[{int(np.argmax(bad))}] is infinite: an OBB needs finite sides"
        )
    lo, hi = boxes[:, 0], boxes[:, 1]
    with np.errstate(invalid="ignore"):
        center = 0.5 * (lo + hi)
        half = np.maximum(hi - center, center - lo)
    center[empty], half[empty] = 0.0, -np.inf
    rot = np.ascontiguousarray(np.broadcast_to(np.eye(3), (len(boxes), 3, 3)))
    return _squeeze_obbs(OBBs(center, half, rot), single)


def to_boxes(obbs):
    """Enclosing AABBs ``(N, 2, 3)``: ``center -+ |rot| @ half``, rounded outward.

    The extents grow by 4 ulp and each side moves one float outward, so the box holds
    the exact (real) box, not just its rounded corners. Empty OBBs give the empty box.
    """
    obbs, single = _as_obbs(obbs)
    return _squeeze(_to_boxes(obbs), single)


def is_empty(obbs):
    """``(N,) bool``: True where some half extent is below zero (bool for one box)."""
    obbs, single = _as_obbs(obbs)
    return _squeeze(_empty_mask(obbs), single)


def volume(obbs):
    """``(N,)`` volumes ``prod(2 * half)``; 0 for empty boxes."""
    obbs, single = _as_obbs(obbs)
    return _squeeze(np.prod(2.0 * np.maximum(obbs.half, 0.0), axis=1), single)


def corners(obbs):
    """``(N, 8, 3)`` corners ``center + rot @ (s * half)``.

    In corner c, bit k of c picks the sign s[k] on axis k (0: -half, 1: +half), as in
    :func:`hitbox.aabb.corners`. An empty box has no corners: its rows are NaN.
    """
    obbs, single = _as_obbs(obbs)
    bits = (np.arange(8)[:, None] >> np.arange(3)) & 1  # (8, 3)
    local = (2.0 * bits - 1.0)[None] * obbs.half[:, None, :]
    out = obbs.center[:, None, :] + np.einsum("nij,ncj->nci", obbs.rot, local)
    out[_empty_mask(obbs)] = np.nan
    return _squeeze(out, single)


def contains_points(obbs, points):
    """Elementwise closed containment, broadcasting one box or one point against many.

    The test is exact in the box frame: ``|rot.T @ (p - center)| <= half`` per axis as
    computed in floating point, with no tolerance, so a point within rounding of a face
    may fall either side (except the points a box was fitted to, which are inside).
    Returns ``(N,) bool``, or a bool for one box and one point.
    """
    obbs, sb = _as_obbs(obbs)
    pts, sp = v.as_points(points, "points", dim=3)
    n = _broadcast_len(len(obbs.center), len(pts), "obbs", "points")
    out = np.empty(n, np.bool_)
    if n:
        kernels.contains_points(obbs, pts, out)
    return bool(out[0]) if sb and sp else out


def closest_points(obbs, points):
    """Elementwise closest point of the box to each point: clamp in the box frame.

    Returns ``(N, 3)`` (``(3,)`` for one box and one point). Raises ValueError for an
    empty box, which has no points.
    """
    obbs, sb = _as_obbs(obbs)
    pts, sp = v.as_points(points, "points", dim=3)
    n = _broadcast_len(len(obbs.center), len(pts), "obbs", "points")
    empty = _empty_mask(obbs)
    if empty.any():
        raise ValueError(
            f"obbs[{int(np.argmax(empty))}] is empty: it has no closest point"
        )
    center, half, rot = (np.broadcast_to(x, (n,) + x.shape[1:]) for x in obbs)
    pts = np.broadcast_to(pts, (n, 3))
    u = np.einsum("nji,nj->ni", rot, pts - center)
    u = np.minimum(np.maximum(u, -half), half)
    out = center + np.einsum("nij,nj->ni", rot, u)
    return out[0] if sb and sp else out


def overlap(a, b):
    """Elementwise overlap of two box sets (one box against many broadcasts).

    The separating-axis test over 15 axes: the 3 face normals of each box and the 9
    cross products of an edge of each (Gottschalk 1996; Ericson, RTCD §4.4.1). It is
    closed and conservative: touching or overlapping boxes always overlap, whatever
    their edges do. The rule: an axis L (edge axes left unnormalised, ``|L| = sin`` of
    the edges' angle) separates only if the projections' gap exceeds
    ``1e-12 * (|t|_1 + sum(half_a) + sum(half_b))``, t the centre offset, which bounds
    the rounding. Parallel edges make ``L = 0``, which can then never separate; the
    other axes decide. So boxes a gap of about ``1e-12 * size / |L|`` apart may be
    called overlapping: with nearly parallel edges that band reached 3e-7 of the boxes'
    size in adversarial searches, and it is 1e-12 of it elsewhere. Empty boxes overlap
    nothing.

    Returns ``(N,) bool``, or a bool for two single boxes.
    """
    a, sa = _as_obbs(a, "a", tidy=True)
    b, sb = _as_obbs(b, "b", tidy=True)
    n = _broadcast_len(len(a.center), len(b.center), "a", "b")
    out = np.empty(n, np.bool_)
    if n:
        kernels.overlap(a, b, out)
    return bool(out[0]) if sa and sb else out


def overlap_pairs(a, b):
    """Every overlapping pair between two box sets, without an N x M matrix.

    Returns ``(2, n) intp``: row 0 indexes ``a``, row 1 indexes ``b``, sorted by (i, j);
    the same pairs as :func:`overlap_pairs_brute`. The enclosing AABBs (grown by
    ``PAIR_PAD`` of their size to cover the test's slack) go through the sort-and-sweep
    of :mod:`hitbox.aabb`; the separating-axis test then runs on those candidates.
    """
    a, _ = _as_obbs(a, "a", tidy=True)
    b, _ = _as_obbs(b, "b", tidy=True)
    if len(a.center) == 0 or len(b.center) == 0:
        return np.empty((2, 0), np.intp)
    candidates = aabb.sweep_pairs(_pair_boxes(a), _pair_boxes(b))
    return kernels.overlap_pairs(a, b, candidates)


def overlap_pairs_brute(a, b):
    """Slow twin of :func:`overlap_pairs`: the separating-axis test on every pair."""
    a, _ = _as_obbs(a, "a", tidy=True)
    b, _ = _as_obbs(b, "b", tidy=True)
    return kernels.overlap_pairs_brute(a, b)


def transform(obbs, matrix):
    """The boxes moved by a homogeneous ``(4, 4)`` affine map.

    - Rigid (rotation and translation, orthonormal to 1e-12): exact,
      ``rot' = R @ rot``, ``center' = R @ center + t``, same half extents.
    - Similarity ``s * R`` (uniform scale, possibly a reflection): ``half' = |s| half``;
      a reflection flips the last axis so that ``rot'`` stays a proper rotation (the box
      is symmetric, so it is the same set).
    - Any other affine map: the image of a box is the parallelepiped
      ``center' + M @ diag(half) @ [-1, 1]^3`` with ``M = linear @ rot``. Its enclosing
      box is taken in three frames, the principal axes of ``M @ diag(half)`` (SVD), the
      Gram-Schmidt frame of its columns, longest first, and the world axes, and the
      smallest kept (so it is never larger than the image's AABB); its half extents
      ``|Q.T @ M| @ half`` are rounded up by 4 ulp. It always holds the image; a
      singular map gives flat boxes.

    Empty boxes stay empty. A last row other than (0, 0, 0, 1) raises ValueError.
    """
    obbs, single = _as_obbs(obbs)
    linear, trans = v.as_transform(matrix, "matrix", dim=3)
    center = _affine.apply(linear, trans, obbs.center)
    gram = linear.T @ linear
    s2 = np.trace(gram) / 3.0
    if s2 > 0.0 and np.abs(gram - s2 * np.eye(3)).max() <= 1e-12 * s2:
        scale = np.sqrt(s2)
        if abs(scale - 1.0) <= 1e-12:  # rigid: keep every bit of R
            unit, scale = linear, 1.0
        else:
            unit = linear / scale
        rot = np.einsum("ij,njk->nik", unit, obbs.rot)
        if np.linalg.det(linear) < 0.0:
            rot[:, :, 2] *= -1.0
        half = scale * obbs.half
    else:
        rot, half = _enclose(np.einsum("ij,njk->nik", linear, obbs.rot), obbs.half)
    empty = _empty_mask(obbs)
    rot[empty], half[empty] = np.eye(3), -np.inf
    return _squeeze_obbs(OBBs(center, half, rot), single)


# -- helpers --------------------------------------------------------------------------


def _fit(groups, hull):
    p = len(groups)
    center, half, rot = np.empty((p, 3)), np.empty((p, 3)), np.empty((p, 3, 3))
    if p:
        # Fit at unit scale: squares of coordinates near 1e-160 (or 1e+160) leave the
        # normal float range and the axes lose their orthonormality. A power-of-two
        # scale is exact both ways for normal numbers, not for subnormal ones, so the
        # half extents are measured again at the points' own scale.
        with np.errstate(divide="ignore"):
            big = np.abs(groups).max(axis=(1, 2), initial=0.0)
            exponent = np.where(
                big > 0, np.floor(np.log2(np.where(big > 0, big, 1.0))), 0
            )
        scale = np.ldexp(1.0, exponent.astype(int))
        kernels.fit(groups / scale[:, None, None], hull, center, half, rot)
        center *= scale[:, None]
        kernels.frame_halves(groups, center, rot, half)
    return OBBs(center, half, rot)


def _as_obbs(obbs, name="obbs", tidy=False):
    """Validate like ``_validate.as_obbs``, with the orthonormality check in a kernel.

    ``_validate.as_obbs`` checks rotations with an einsum that costs about five times
    the separating-axis test itself on 10**6 boxes; the kernel computes the same error.
    With ``tidy``, rotations off by more than ``ORTHO_TOL`` are replaced by their
    nearest rotation and the boxes enlarged to hold what the given matrices describe,
    which keeps the overlap test's rounding bound valid.
    """
    obbs, single = v.as_obbs(obbs, name, check_rotation=False)
    err = np.empty(len(obbs.rot))
    kernels.rot_error(obbs.rot, err)
    bad = err > _ROT_TOL
    if bad.any():
        raise ValueError(f"{name}.rot[{int(np.argmax(bad))}] is not orthonormal")
    sloppy = err > kernels.ORTHO_TOL
    if tidy and sloppy.any():
        obbs = _tidy(obbs, sloppy)
    return obbs, single


def _tidy(obbs, sloppy):
    """Nearest rotation (polar factor ``U @ Vt``) for the flagged boxes, with half
    extents ``|Q.T @ rot| @ half`` so the box holds the parallelepiped of ``rot``."""
    center, half, rot = obbs.center, obbs.half.copy(), obbs.rot.copy()
    sub = rot[sloppy]
    u, _, vt = np.linalg.svd(sub)
    q = u @ vt
    grown = np.einsum(
        "nij,nj->ni", np.abs(np.einsum("nki,nkj->nij", q, sub)), half[sloppy]
    )
    keep_empty = (half[sloppy] < 0.0).any(axis=1)
    half[sloppy] = np.where(keep_empty[:, None], half[sloppy], grown * (1.0 + 4.0 * _EPS))
    rot[sloppy] = q
    return OBBs(center, half, rot)


def _empty_mask(obbs):
    return (obbs.half < 0.0).any(axis=1)


def _to_boxes(obbs):
    empty = _empty_mask(obbs)
    with np.errstate(invalid="ignore"):
        ext = np.einsum("nij,nj->ni", np.abs(obbs.rot), np.maximum(obbs.half, 0.0))
    ext = np.nan_to_num(ext, nan=np.inf) * (1.0 + 4.0 * _EPS)  # 0 * inf: enclose all
    out = np.empty((len(ext), 2, 3))
    out[:, 0] = np.nextafter(obbs.center - ext, -np.inf)
    out[:, 1] = np.nextafter(obbs.center + ext, np.inf)
    out[empty, 0], out[empty, 1] = np.inf, -np.inf
    return out


def _pair_boxes(obbs):
    """Enclosing boxes grown by PAIR_PAD of the summed half extents (the sweep input)."""
    boxes = _to_boxes(obbs)
    pad = PAIR_PAD * np.maximum(obbs.half, 0.0).sum(axis=1)
    with np.errstate(invalid="ignore"):  # inf - inf on empty boxes stays empty below
        boxes[:, 0] -= pad[:, None]
        boxes[:, 1] += pad[:, None]
    boxes[_empty_mask(obbs)] = aabb.empty(dim=3)
    return boxes


def _enclose(m, half):
    """Smallest of three boxes holding the parallelepipeds ``M @ diag(half) [-1, 1]^3``
    (``m (N, 3, 3)``), in the SVD frame, the Gram-Schmidt frame and the world frame;
    returns (rot, half) with rot proper rotations."""
    edges = m * np.maximum(half, 0.0)[:, None, :]  # columns: half-edge vectors
    u, _, _ = np.linalg.svd(edges)
    u[np.linalg.det(u) < 0.0, :, 2] *= -1.0
    eye = np.broadcast_to(np.eye(3), u.shape)  # the image's AABB: never worse than that
    frames = np.stack([u, _gram_schmidt(edges), eye])  # (3, N, 3, 3)
    halves = np.abs(np.einsum("fnki,nkj->fnij", frames, edges)).sum(axis=3)
    halves *= 1.0 + 4.0 * _EPS
    pick = np.argmin(np.prod(halves, axis=2), axis=0)  # volume; ties go to the SVD frame
    rows = np.arange(len(m))
    return np.ascontiguousarray(frames[pick, rows]), np.ascontiguousarray(
        halves[pick, rows]
    )


def _gram_schmidt(edges):
    """Right-handed orthonormal frames from the columns of ``edges (N, 3, 3)``, longest
    column first; zero or dependent columns are completed with any perpendicular."""
    order = np.argsort(-np.linalg.norm(edges, axis=1), axis=1, kind="stable")
    cols = np.take_along_axis(edges, order[:, None, :], axis=2)
    q0 = _unit_or(cols[:, :, 0], np.array([1.0, 0.0, 0.0]))
    x1 = cols[:, :, 1] - np.sum(cols[:, :, 1] * q0, axis=1, keepdims=True) * q0
    small = np.linalg.norm(x1, axis=1) <= 1e-12 * np.linalg.norm(cols[:, :, 0], axis=1)
    x1[small] = _any_perpendicular(q0[small])
    q1 = _unit_or(x1, np.array([0.0, 1.0, 0.0]))
    q1 = q1 - np.sum(q1 * q0, axis=1, keepdims=True) * q0  # second pass for orthogonality
    q1 /= np.linalg.norm(q1, axis=1, keepdims=True)
    q2 = np.cross(q0, q1)
    return np.stack([q0, q1, q2], axis=2)


def _unit_or(x, fallback):
    norm = np.linalg.norm(x, axis=1, keepdims=True)
    zero = norm[:, 0] == 0.0
    out = np.where(zero[:, None], fallback, x / np.where(zero, 1.0, norm[:, 0])[:, None])
    return out


def _any_perpendicular(q):
    """A unit vector perpendicular to each unit row of q (cross with its least axis)."""
    least = np.argmin(np.abs(q), axis=1)
    e = np.eye(3)[least]
    x = np.cross(q, e)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _squeeze(result, single):
    return result[0] if single else result


def _squeeze_obbs(obbs, single):
    return OBBs(*(x[0] for x in obbs)) if single else obbs


def _broadcast_len(na, nb, name_a, name_b):
    if na != nb and na != 1 and nb != 1:
        raise ValueError(f"cannot broadcast {na} {name_a} against {nb} {name_b}")
    return max(na, nb) if min(na, nb) else 0
