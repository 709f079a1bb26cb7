"""The boundary: the only code that raises on user input (STYLE §6).

Every public function passes its arguments through one of these, then trusts them. Each
returns C-contiguous float64 (or intp) arrays and, where a single item is legal, a flag that
says the caller gave one item so the result can be squeezed back.
"""

import math
import numbers

import numpy as np

from hitbox._kernels.ray_checks import FINE, ray_problems
from hitbox._kernels.rigid import first_not_rotation, split_transforms
from hitbox._types import OBBs, Rays, Spheres

KDOP_SIZES = (6, 14, 18, 26)


class OutOfRange(ValueError):
    """A number beyond the float64 range (a Python int): a ValueError whatever the
    caller turns its other errors into."""


def _real_array(value, name):
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        raise TypeError(f"{name} must be an array, got {type(value).__name__}")
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError) as exc:  # ragged nested lists
        raise ValueError(f"{name} is not a rectangular array: {exc}") from None
    if arr.dtype.kind == "O" and arr.size:
        arr = _object_reals(arr, name)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    return arr


def _object_reals(arr, name):
    """An object array of real numbers (Python ints beyond int64 among them) as
    float64: ValueError for one beyond the float64 range; anything else is returned
    as it is, for the caller's TypeError."""
    items = arr.ravel().tolist()
    if not all(
        isinstance(x, numbers.Real) and not isinstance(x, bool | np.bool_) for x in items
    ):
        return arr
    try:
        return np.array(items, dtype=np.float64).reshape(arr.shape)
    except OverflowError:
        raise OutOfRange(f"{name} holds a number beyond the float64 range") from None


def _first_bad(mask):
    return int(np.argwhere(mask)[0, 0])


def _sum(arr):
    with np.errstate(over="ignore", invalid="ignore"):
        return arr.sum()


def _no_nan(arr, name):
    # NaN poisons a sum: one cheap reduction in the common, clean case
    if not arr.size or not np.isnan(_sum(arr)) or not np.isnan(arr).any():
        return
    bad = np.isnan(arr.reshape(len(arr), -1)).any(axis=1)
    raise ValueError(f"{name}[{_first_bad(bad)}] contains NaN")


def _finite(arr, name):
    if not arr.size or np.isfinite(_sum(arr)) or np.isfinite(arr).all():
        return
    bad = ~np.isfinite(arr.reshape(len(arr), -1)).all(axis=1)
    raise ValueError(f"{name}[{_first_bad(bad)}] is not finite (NaN or inf)")


def check_real(value, name):
    """One real number (not a bool) as a float; NaN rejected."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    try:
        value = float(value)
    except OverflowError:  # a Python int beyond float64
        raise ValueError(f"{name} is beyond the float64 range") from None
    if math.isnan(value):
        raise ValueError(f"{name} must not be NaN")
    return value


def as_float(value, name, finite=False):
    """Any real array as float64 (C order), NaN rejected; ``finite`` rejects inf too."""
    arr = np.asarray(_real_array(value, name), dtype=np.float64)
    if arr.ndim == 0:
        arr = arr.reshape(1)
        ok = np.isfinite(arr) if finite else ~np.isnan(arr)
        if not ok.all():
            raise ValueError(
                f"{name} must be {'finite' if finite else 'a number'}, got {value}"
            )
        return arr.reshape(())
    arr = _writable(np.ascontiguousarray(arr))
    (_finite if finite else _no_nan)(arr.reshape(len(arr), -1) if arr.size else arr, name)
    return arr


def as_points(points, name="points", dim=None, finite=False):
    """Return ((N, D) float64, was_single) for points; a single ``(D,)`` point is legal."""
    arr, single = _stacked(points, name, 2, "(N, D) or (D,)", dim)
    (_finite if finite else _no_nan)(arr, name)
    return arr, single


def as_point_groups(groups, name="points", dim=None):
    """Return ((P, K, D) float64, was_single) for groups of points (triangles are (F, 3, 3)).

    A single group ``(K, D)`` is legal. K = 0 is legal: every group is then empty.
    """
    arr, single = _stacked(groups, name, 3, "(P, K, D) or (K, D)", dim)
    _finite(arr, name)
    return arr, single


def _stacked(value, name, ndim, shapes, dim):
    """(C-contiguous float64 array of ``ndim`` dimensions, was_single): one item of
    ``ndim - 1`` dimensions is legal; the last axis is D in 1..3 (= ``dim`` if given)."""
    arr = _real_array(value, name)
    single = arr.ndim == ndim - 1
    arr = arr[None] if single else arr
    if arr.ndim != ndim or not 1 <= arr.shape[-1] <= 3:
        raise ValueError(
            f"{name} must have shape {shapes} with D in 1..3, got {np.shape(value)}"
        )
    if dim is not None and arr.shape[-1] != dim:
        raise ValueError(f"{name} must have D = {dim}, got shape {np.shape(value)}")
    return _writable(np.ascontiguousarray(arr, dtype=np.float64)), single


def _writable(arr):
    """``arr``, or a copy when it is read-only (a broadcast, a frozen tree array): the
    kernels compile once per array type, and read-only arrays are a type of their own."""
    return arr if arr.flags.writeable else arr.copy()


def canonical_empty(arr):
    """Make every slab set with lo > hi on some axis the one empty box (+inf, -inf)."""
    if arr.size == 0:
        return arr
    flipped = arr[:, 0] > arr[:, 1]
    if not flipped.any():  # the common case: one reduction, no per-row work
        return arr
    empty = flipped.any(axis=1)
    if empty.any():
        arr = arr.copy()
        arr[empty, 0], arr[empty, 1] = np.inf, -np.inf
    return arr


def as_boxes(boxes, name="boxes", dim=None, scan=True):
    """Return (C-contiguous float64 (N, 2, D), was_single); raise on bad input.

    lo > hi on some axis is the empty box, made canonical (+inf lo, -inf hi everywhere).
    ``scan=False`` checks only type and shape: for kernels that find NaN themselves in
    their one pass over the data and need no canonical empty box (the elementwise overlap,
    whose speed is bound by memory bandwidth, would otherwise read everything twice).
    """
    arr = _real_array(boxes, name)
    single = arr.ndim == 2
    arr = arr[None] if single else arr
    if arr.ndim != 3 or arr.shape[1] != 2 or not 1 <= arr.shape[2] <= 3:
        raise ValueError(
            f"{name} must have shape (N, 2, D) or (2, D) with D in 1..3, got {np.shape(boxes)}"
        )
    if dim is not None and arr.shape[2] != dim:
        raise ValueError(f"{name} must be {dim}-dimensional, got shape {np.shape(boxes)}")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if not scan:
        return arr, single
    _no_nan(arr, name)
    return canonical_empty(arr), single


def raise_nan(bad, names):
    """Raise for a kernel's NaN report: ``bad`` is (which argument, item) or (-1, -1)."""
    which, item = bad
    if which >= 0:
        raise ValueError(f"{names[which]}[{item}] contains NaN")


def check_k(k, name="k"):
    """A k-DOP size: one of 6, 14, 18, 26."""
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k not in KDOP_SIZES:
        raise ValueError(f"{name} must be one of {KDOP_SIZES}, got {k!r}")
    return int(k)


def as_kdops(kdops, name="kdops", k=None):
    """Return ((N, 2, K/2) float64, was_single, K) for k-DOPs along ``kdop.AXES[K]``."""
    arr = _real_array(kdops, name)
    single = arr.ndim == 2
    arr = arr[None] if single else arr
    sizes = {kk // 2: kk for kk in KDOP_SIZES}
    if arr.ndim != 3 or arr.shape[1] != 2 or arr.shape[2] not in sizes:
        raise ValueError(
            f"{name} must have shape (N, 2, K/2) or (2, K/2) with K in {KDOP_SIZES}, "
            f"got {np.shape(kdops)}"
        )
    found = sizes[arr.shape[2]]
    if k is not None and found != k:
        raise ValueError(f"{name} must be {k}-DOPs, got {found}-DOPs")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    _no_nan(arr, name)
    return canonical_empty(arr), single, found


def as_spheres(spheres, name="spheres", dim=None):
    """Return (Spheres with center (N, D) and radius (N,), was_single).

    Accepts a ``Spheres`` or a ``(center, radius)`` pair. A negative radius is the empty
    sphere and is legal; centres must be finite, radii not NaN.
    """
    if not isinstance(spheres, tuple) or len(spheres) != 2:
        raise TypeError(
            f"{name} must be a Spheres(center, radius) or a (center, radius) pair, "
            f"got {type(spheres).__name__}"
        )
    center, radius = spheres
    center, single = as_points(center, f"{name}.center", dim=dim, finite=True)
    radius = _real_array(radius, f"{name}.radius")
    if radius.ndim != (0 if single else 1):
        radius = radius.reshape(-1) if radius.size == len(center) else radius
    radius = np.ascontiguousarray(np.reshape(radius, -1), dtype=np.float64)
    if len(radius) != len(center):
        raise ValueError(
            f"{name}.radius must have one value per centre ({len(center)}), got {len(radius)}"
        )
    _no_nan(radius, f"{name}.radius")
    return Spheres(center, radius), single


def as_obbs(obbs, name="obbs", check_rotation=True):
    """Return (OBBs with center (N, 3), half (N, 3), rot (N, 3, 3), was_single).

    ``rot`` must be orthonormal (to 1e-6): its columns are the box axes. Negative half
    extents are legal and mean the empty box.
    """
    if not isinstance(obbs, tuple) or len(obbs) != 3:
        raise TypeError(
            f"{name} must be an OBBs(center, half, rot) or a 3-tuple, got {type(obbs).__name__}"
        )
    center, half, rot = obbs
    center, single = as_points(center, f"{name}.center", dim=3, finite=True)
    n = len(center)
    half = (
        as_float(half, f"{name}.half").reshape(-1, 3)
        if np.size(half)
        else np.zeros((0, 3))
    )
    rot_arr = as_float(rot, f"{name}.rot", finite=True)
    if rot_arr.size == 0:
        rot_arr = np.zeros((0, 3, 3))
    if rot_arr.shape[-2:] != (3, 3):
        raise ValueError(f"{name}.rot must have shape (N, 3, 3), got {np.shape(rot)}")
    rot_arr = np.ascontiguousarray(rot_arr.reshape(-1, 3, 3))
    if len(half) != n or len(rot_arr) != n:
        raise ValueError(
            f"{name} parts disagree in length: center {n}, half {len(half)}, rot {len(rot_arr)}"
        )
    if check_rotation and n:
        err = np.abs(np.einsum("nji,njk->nik", rot_arr, rot_arr) - np.eye(3)).max(
            axis=(1, 2)
        )
        if (err > 1e-6).any():
            raise ValueError(f"{name}.rot[{_first_bad(err > 1e-6)}] is not orthonormal")
    return OBBs(center, np.ascontiguousarray(half), rot_arr), single


def as_transform(matrix, name="transform", dim=3, rigid=False):
    """Return (linear (D, D), translation (D,)) from a homogeneous (D+1, D+1) matrix.

    The last row must be (0, ..., 0, 1). ``rigid`` requires a rotation (orthonormal, det +1).
    """
    arr = _real_array(matrix, name)
    if arr.shape != (dim + 1, dim + 1):
        raise ValueError(
            f"{name} must be a {dim + 1}x{dim + 1} matrix, got shape {arr.shape}"
        )
    arr = np.asarray(arr, dtype=np.float64)
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite")
    bottom = np.zeros(dim + 1)
    bottom[-1] = 1.0
    if not np.array_equal(arr[dim], bottom):
        raise ValueError(f"{name} is not affine: its last row must be {bottom.tolist()}")
    linear = np.ascontiguousarray(arr[:dim, :dim])
    trans = np.ascontiguousarray(arr[:dim, dim])
    if rigid and not is_rotation(linear):
        raise ValueError(f"{name} must be rigid (a rotation and a translation)")
    return linear, trans


def as_transforms(matrices, name="transforms", rigid=True):
    """Return (rot (K, 3, 3), trans (K, 3), was_single) from one or K 4x4 matrices."""
    arr = _real_array(matrices, name)
    single = arr.ndim == 2
    arr = arr[None] if single else arr
    if arr.dtype == np.float64 and arr.ndim == 3 and arr.shape[1:] == (4, 4):
        # every check and both copies in one compiled pass; on a failure the checks
        # below run again to name the problem
        rot = np.empty((len(arr), 3, 3))
        trans = np.empty((len(arr), 3))
        if split_transforms(arr, rigid, rot, trans) < 0:
            return rot, trans, single
    if arr.ndim != 3 or arr.shape[1:] != (4, 4):
        raise ValueError(
            f"{name} must have shape (K, 4, 4) or (4, 4), got {np.shape(matrices)}"
        )
    arr = np.asarray(arr, dtype=np.float64)
    _finite(arr, name)
    bad = ~np.all(arr[:, 3] == np.array([0.0, 0.0, 0.0, 1.0]), axis=1)
    if bad.any():
        raise ValueError(
            f"{name}[{_first_bad(bad)}] is not affine: last row must be 0 0 0 1"
        )
    rot = np.ascontiguousarray(arr[:, :3, :3])
    if rigid and len(rot):
        # orthonormal columns to 1e-6 and a positive determinant, compiled: in numpy
        # this check cost a third of a many-pose query
        k = first_not_rotation(rot)
        if k >= 0:
            raise ValueError(f"{name}[{k}] must be rigid (a rotation and a translation)")
    return rot, np.ascontiguousarray(arr[:, :3, 3]), single


def is_rotation(linear, tol=1e-6):
    d = len(linear)
    return bool(
        np.abs(linear.T @ linear - np.eye(d)).max() <= tol and np.linalg.det(linear) > 0
    )


def as_rays(origins, directions=None, t_max=None, dim=None):
    """Return (Rays, was_single). Origins and directions finite, directions non-zero.

    ``origins`` may be a :class:`Rays` (then ``directions`` and ``t_max`` stay None);
    ``t_max`` defaults to inf (rays) and a scalar serves every ray.
    """
    if isinstance(origins, Rays):
        if directions is not None or t_max is not None:
            raise TypeError("pass either a Rays or origins and directions (with t_max)")
        origins, directions, t_max = origins
    elif directions is None:
        raise TypeError("directions is required unless origins is a Rays")
    if t_max is None:
        t_max = np.inf
    origin, single_o = as_points(origins, "origins", dim=dim, finite=True)
    direction, single_d = as_points(
        directions, "directions", dim=origin.shape[1], finite=True
    )
    if len(origin) != len(direction):
        if len(origin) == 1:
            origin = np.ascontiguousarray(np.broadcast_to(origin, direction.shape))
        elif len(direction) == 1:
            direction = np.ascontiguousarray(np.broadcast_to(direction, origin.shape))
        else:
            raise ValueError(
                f"origins ({len(origin)}) and directions ({len(direction)}) differ in length"
            )
    if not direction.all():  # some zero component: now look for an all-zero row
        zero = ~np.any(direction != 0.0, axis=1)
        if zero.any():
            raise ValueError(f"directions[{_first_bad(zero)}] is all zero")
    tm = as_float(t_max, "t_max")
    tm = np.full(len(origin), float(tm)) if tm.ndim == 0 else tm
    if tm.shape != (len(origin),):
        raise ValueError(
            f"t_max must be a scalar or have shape ({len(origin)},), got {tm.shape}"
        )
    if (tm < 0).any():
        raise ValueError(f"t_max[{_first_bad(tm < 0)}] is negative")
    origin, direction = _writable(origin), _writable(direction)  # broadcasts
    return Rays(origin, direction, tm), single_o and single_d


def as_rays_fast(origins, directions, t_max):
    """:func:`as_rays` of 3D rays in the common case, in one compiled pass: (Rays,
    was_single, largest |origin coordinate|, largest |direction coordinate|), or None
    when the slow path must decide (other types or shapes, or a problem to name)."""
    if type(origins) is not np.ndarray or type(directions) is not np.ndarray:
        return None
    shape = origins.shape
    if (
        origins.dtype != np.float64
        or directions.dtype != np.float64
        or directions.shape != shape
        or shape[-1:] != (3,)
        or len(shape) > 2
        or not (origins.flags.c_contiguous and directions.flags.c_contiguous)
    ):
        return None
    single = len(shape) == 1
    if single:
        origins, directions = origins.reshape(1, 3), directions.reshape(1, 3)
    if type(t_max) is float:
        tm = np.full(len(origins), t_max)
    elif (
        type(t_max) is np.ndarray
        and t_max.dtype == np.float64
        and t_max.shape == (len(origins),)
    ):
        tm = np.ascontiguousarray(t_max)
    else:
        return None
    problem, big_o, big_d = ray_problems(origins, directions, tm)
    if problem != FINE:
        return None
    return Rays(origins, directions, tm), single, big_o, big_d


def as_mesh(vertices, faces, name="mesh"):
    """Return (vertices (V, 3) float64, faces (F, 3) intp) with faces checked against V."""
    verts, _ = (
        as_points(vertices, f"{name} vertices", dim=3, finite=True)
        if np.size(vertices)
        else (np.zeros((0, 3)), False)
    )
    f = np.asarray(faces)
    if f.size == 0:
        return verts, np.zeros((0, 3), np.intp)
    # whole floats are legal; they compare exactly, and the cast follows the range check
    whole = f.dtype.kind == "f" and np.isfinite(f).all() and (f == np.round(f)).all()
    if f.dtype.kind not in "iu" and not whole:
        raise TypeError(f"{name} faces must be integers, got dtype {f.dtype}")
    if f.ndim != 2 or f.shape[1] != 3:
        raise ValueError(f"{name} faces must have shape (F, 3), got {f.shape}")
    # checked before the cast, which would wrap huge unsigned or float indices
    negative = (f < 0).any(axis=1)
    bad = negative | (f >= len(verts)).any(axis=1)
    if bad.any():
        i = _first_bad(bad)
        what = "has a negative index" if negative[i] else "indexes past the"
        what += "" if negative[i] else f" {len(verts)} vertices"
        raise ValueError(f"{name} faces[{i}] {f[i].tolist()} {what}")
    return verts, np.ascontiguousarray(f, dtype=np.intp)


def check_choice(value, name, choices):
    """A mode or method string that must be one of ``choices``."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(
            f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}"
        )
    return value


def check_count(value, name, minimum=1):
    """A positive integer count."""
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Integral)
        or value < minimum
    ):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def broadcast_len(na, nb, items_a, items_b):
    """Length of an elementwise query of ``na`` items against ``nb``: equal lengths, or a
    set of one against all; 0 when either is empty. ``items_a``, ``items_b`` name the
    items in the error ("triangles", "rays elementwise")."""
    if na != nb and na != 1 and nb != 1:
        raise ValueError(f"cannot broadcast {na} {items_a} against {nb} {items_b}")
    return max(na, nb) if na and nb else 0


def pair_indices(na, nb, pairs, noun):
    """The index arrays ``(ia, ib)`` of the pairs a query of ``a`` (``na`` items) against
    ``b`` (``nb``) visits: elementwise, a set of one against all, or the given ``(2, n)``
    integer ``pairs``, each checked to be in range (``noun`` names the items: "shapes")."""
    if pairs is None:
        if na != nb and 1 not in (na, nb):
            raise ValueError(
                f"cannot broadcast {na} {noun} in a against {nb} in b: give equal "
                "lengths, a set of one, or pairs"
            )
        n = max(na, nb) if na and nb else 0
        ia = np.zeros(n, np.intp) if na == 1 else np.arange(n, dtype=np.intp)
        ib = np.zeros(n, np.intp) if nb == 1 else np.arange(n, dtype=np.intp)
        return ia, ib
    arr = np.asarray(pairs)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"pairs must hold integers, got dtype {arr.dtype}")
    if arr.ndim != 2 or arr.shape[0] != 2:
        raise ValueError(f"pairs must have shape (2, n), got {arr.shape}")
    for row, size, name in ((0, na, "a"), (1, nb, "b")):
        bad = (arr[row] < 0) | (arr[row] >= size)
        if bad.any():
            k = int(np.argmax(bad))
            raise ValueError(
                f"pairs[{row}, {k}] = {arr[row, k]} is out of range for {size} "
                f"{noun} in {name}"
            )
    return (np.ascontiguousarray(arr[0], dtype=np.intp),
            np.ascontiguousarray(arr[1], dtype=np.intp))  # fmt: skip


#: Magnitudes inside [2**-SAFE_EXP, 2**SAFE_EXP] square and multiply in float64 without
#: overflow or underflow to zero; outside it, :func:`pow2_factor` rescales.
SAFE_EXP = 400
#: Point and distance queries multiply squared lengths: beyond 2**+-SQUARES_SAFE_EXP
#: they are solved scaled by a power of two (exact).
SQUARES_SAFE_EXP = 100


def lengths(x, axis=-1):
    """Euclidean lengths of ``x`` along ``axis``: ``np.linalg.norm``, but by ``hypot``
    (no squares) for vectors whose squares would overflow or vanish (beyond 2**+-500),
    so that a capsule 2**-600 long keeps its length and its direction."""
    with np.errstate(over="ignore", under="ignore"):  # such lengths are redone below
        out = np.asarray(np.linalg.norm(x, axis=axis), dtype=float)
    odd = ~((out > 2.0**-500) & (out < 2.0**500))
    if odd.any():
        rows = np.moveaxis(np.asarray(x, dtype=float), axis, -1)
        if not out.ndim:
            return np.hypot.reduce(rows, axis=-1)
        out[odd] = np.hypot.reduce(rows[odd], axis=-1)
    return out


def pow2_factor(*arrays, safe_exp=None):
    """A power of two g that brings the largest finite magnitude of ``arrays`` into
    [0.5, 1) when it lies outside [2**-safe_exp, 2**safe_exp] (default SAFE_EXP), else
    1.0. Multiplying by g is exact (barring subnormals), so a problem solved at the scale
    g and mapped back is the same problem: squares of coordinates near 2**600 or 2**-540
    neither overflow nor vanish (fourth powers need a safe_exp near 2**200)."""
    if safe_exp is None:
        safe_exp = SAFE_EXP
    big = 0.0
    for arr in arrays:
        a = np.asarray(arr, dtype=float)
        if not a.size:
            continue
        # two passes without temporaries when every value is finite (the usual case:
        # most callers checked), the finite values picked out only when not
        top = max(abs(float(a.max())), abs(float(a.min())))
        if not math.isfinite(top):
            finite = np.abs(a[np.isfinite(a)])
            top = float(finite.max()) if finite.size else 0.0
        big = max(big, top)
    return pow2_for(big, safe_exp)


def pow2_each(big, safe_exp=None):
    """:func:`pow2_for` of each magnitude of the array ``big``."""
    if safe_exp is None:
        safe_exp = SAFE_EXP
    fine = (big == 0.0) | ((big >= 2.0**-safe_exp) & (big <= 2.0**safe_exp))
    return np.where(fine, 1.0, np.ldexp(1.0, np.minimum(-np.frexp(big)[1], 1023)))


def pow2_for(big, safe_exp=None):
    """:func:`pow2_factor` of arrays whose largest finite magnitude is ``big``."""
    if safe_exp is None:
        safe_exp = SAFE_EXP
    if big == 0.0 or 2.0**-safe_exp <= big <= 2.0**safe_exp:
        return 1.0
    # 2**1023 at most: a subnormal big (down to 2**-1074) then lands near 2**-51, safe
    return math.ldexp(1.0, min(-math.frexp(big)[1], 1023))
