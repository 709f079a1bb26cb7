"""Mixed bounding volumes (SPEC §7): overlap between any two kinds, and choosing a kind.

Kinds, in the fixed order used in every name here: ``sphere`` (a
:class:`~hitbox.Spheres`), ``aabb`` (an array ``(N, 2, D)``), ``kdop`` (an array
``(N, 2, K/2)`` along ``kdop.AXES[K]``, K in 14, 18, 26; ``(N, 2, 3)`` is both the AABB
and the 6-DOP) and ``obb`` (an :class:`~hitbox.OBBs`). Every test is closed (touching
overlaps) and an empty volume overlaps nothing.

Which cross-kind tests are exact, and why the others never miss:

============  ===========  ==============================================================
pair          answer       method
============  ===========  ==============================================================
sphere–aabb   exact        closest point of the box (clamp per axis) within r; any D
sphere–obb    exact        the same clamp in the box's frame
sphere–kdop   exact        distance from the centre to the polytope: the seed's slab
                           reject, the k-DOP's box, then the projection onto the polytope
                           by a dual active-set method whose answers carry certificates
                           (a point inside within r, or a dual bound above r), with an
                           exhaustive face/edge/vertex enumeration behind it
                           (``_kernels.sphere_kdop``)
aabb–obb      exact        15-axis SAT with the AABB as an OBB (RTCD §4.4.1)
aabb–kdop     exact for    the AABB's exact k-DOP against the k-DOP, slab by slab: the box
              K = 6, 18;   lies inside its k-DOP, so apart slabs prove the box apart. For
              conservative K = 6 and 18 it is exact: every axis the separating-axis
              for 14, 26   theorem needs (box edge x k-DOP edge = a combination of two
                           directions with one coordinate cancelled) is itself a direction
                           of the table; for 14 and 26 some are not
kdop–obb      conservative the OBB's k-DOP against the k-DOP by slabs, and the k-DOP's box
                           against the OBB by the exact SAT: each substitute holds the
                           volume it replaces, so "apart" for either proves "apart"
============  ===========  ==============================================================

"Exact" means up to rounding, resolved towards "overlap": the tests that rotate or solve
for points widen by a relative 1e-12 of the coordinates' magnitude, so volumes that touch
are never reported apart. The conservative tests never say "disjoint" for overlapping
volumes (SPEC §7); ``benchmarks/bench_mixed.py`` measures how often they say "overlap" for
volumes that are apart.
"""

import math
import numbers

import numpy as np

from hitbox import _validate as v
from hitbox import aabb, kdop, obb, sphere
from hitbox._kernels import mixed as _km
from hitbox._types import OBBs, Spheres

__all__ = [
    "KINDS",
    "COSTS",
    "MISS_COST",
    "kind_of",
    "overlap",
    "overlap_pairs",
    "overlap_sphere_aabb",
    "overlap_sphere_kdop",
    "overlap_sphere_obb",
    "overlap_aabb_kdop",
    "overlap_aabb_obb",
    "overlap_kdop_obb",
    "enclosing_boxes",
    "choose",
    "choose_report",
]

#: The kinds, in the order that names cross-kind tests (``overlap_<first>_<second>``).
KINDS = ("sphere", "aabb", "kdop", "obb")

#: Relative cost of one overlap test of each kind (sphere = 1), measured by
#: ``benchmarks/bench_mixed.py`` ("relative_full"): the compiled predicate on pairs that
#: overlap, so that every axis is tested (the work near contact, where the choice of
#: volume matters; random far pairs mostly leave at the first axis and cost about the same
#: for every kind). Best runs, ns per test: sphere 4.3, AABB 3.4, 14-DOP 7.2, 18-DOP 9.4,
#: 26-DOP 14.9, OBB 42 (x86-64, numba 0.68). Rounded: they drift by machine, not by order.
COSTS = {
    "sphere": 1.0,
    "aabb": 1.0,
    "kdop14": 1.5,
    "kdop18": 2.0,
    "kdop26": 3.5,
    "obb": 10.0,
}

#: Cost, in sphere tests, of the work that one false positive triggers further down (the
#: next level of a hierarchy, or a narrow-phase test), per unit of relative volume: see
#: :func:`choose`.
MISS_COST = 10.0

_KDOP_SLABS = {3: 6, 7: 14, 9: 18, 13: 26}
# Writable, contiguous copies: one numba signature for every call.
_AXES = {k: np.array(kdop.AXES[k]) for k in kdop.AXES}
# Enclosing boxes grow by this much of their magnitude before the sweep, far more than
# the predicates' own 1e-12, so the sweep never drops a pair the predicate accepts.
_BOX_PAD = 1e-9
_EPS = np.finfo(np.float64).eps


# -- kinds -------------------------------------------------------------------------------


def kind_of(volumes, name="volumes"):
    """The kind of a volume set: ``"sphere"``, ``"aabb"``, ``"kdop"`` or ``"obb"``.

    ``Spheres`` and ``OBBs`` are told by their type; arrays by their shape: ``(N, 2, D)``
    with D in 1..3 (or one ``(2, D)``) is an AABB, ``(N, 2, K/2)`` with K/2 in 7, 9, 13 a
    k-DOP. Raises TypeError or ValueError naming ``name`` for anything else.
    """
    if isinstance(volumes, Spheres):
        return "sphere"
    if isinstance(volumes, OBBs):
        return "obb"
    if isinstance(volumes, tuple) and hasattr(volumes, "_fields"):
        raise TypeError(
            f"{name} must be Spheres, OBBs, boxes (N, 2, D) or k-DOPs (N, 2, K/2), "
            f"got {type(volumes).__name__}"
        )
    try:
        shape = np.shape(volumes)
    except ValueError as exc:  # ragged nested lists
        raise ValueError(f"{name} is not a rectangular array: {exc}") from None
    if len(shape) in (2, 3) and shape[-2] == 2:
        if 1 <= shape[-1] <= 3:
            return "aabb"
        if shape[-1] in _KDOP_SLABS:
            return "kdop"
    raise ValueError(
        f"{name} must be Spheres, OBBs, boxes (N, 2, D) with D in 1..3 or k-DOPs "
        f"(N, 2, K/2) with K in 14, 18, 26 (pass Spheres(...) or OBBs(...) for those), "
        f"got an array of shape {shape}"
    )


# -- elementwise, one function per pair of kinds -----------------------------------------


def overlap_sphere_aabb(spheres, boxes):
    """Elementwise closed overlap of spheres and AABBs (exact; 1, 2 or 3 dimensions).

    Parameters
    ----------
    spheres : Spheres with center (N, D), radius (N,); or one sphere
    boxes : (N, 2, D) float, or (2, D)
        One item on either side broadcasts against all of the other.

    Returns
    -------
    (N,) bool, or a bool for two single items.
    """
    return _overlap_elem("sphere", spheres, "spheres", "aabb", boxes, "boxes")


def overlap_sphere_kdop(spheres, kdops):
    """Elementwise closed overlap of 3D spheres and k-DOPs (exact: centre-to-polytope
    distance). ``kdops`` is ``(N, 2, K/2)``; ``(N, 2, 3)`` is read as the 6-DOP."""
    return _overlap_elem("sphere", spheres, "spheres", "kdop", kdops, "kdops")


def overlap_sphere_obb(spheres, obbs):
    """Elementwise closed overlap of 3D spheres and OBBs (exact: clamp in its frame)."""
    return _overlap_elem("sphere", spheres, "spheres", "obb", obbs, "obbs")


def overlap_aabb_kdop(boxes, kdops):
    """Elementwise closed overlap of 3D AABBs and k-DOPs.

    The box's exact k-DOP against the k-DOP, slab by slab. Never False for overlapping
    volumes. Exact for 6- and 18-DOPs: every separating axis a box and such a k-DOP can
    need (face normals, and box edge x k-DOP edge, which is a_p (e.a_q) - a_q (e.a_p) with
    the e-coordinate cancelled) is a direction of the table. For 14- and 26-DOPs it may
    be True for volumes apart along an edge-cross axis outside the table (rate measured
    in ``benchmarks/bench_mixed.py``).
    """
    return _overlap_elem("aabb", boxes, "boxes", "kdop", kdops, "kdops")


def overlap_aabb_obb(boxes, obbs):
    """Elementwise closed overlap of 3D AABBs and OBBs (exact: 15-axis SAT)."""
    return _overlap_elem("aabb", boxes, "boxes", "obb", obbs, "obbs")


def overlap_kdop_obb(kdops, obbs):
    """Elementwise closed overlap of k-DOPs and OBBs.

    Conservative: True only if the OBB's k-DOP meets the k-DOP on every slab and the
    k-DOP's box meets the OBB by the exact SAT. Never False for overlapping volumes.
    """
    return _overlap_elem("kdop", kdops, "kdops", "obb", obbs, "obbs")


# -- dispatch over every pair of kinds ---------------------------------------------------


def overlap(a, b):
    """Elementwise closed overlap of two volume sets of any kinds (16 combinations).

    Same kinds go to their own module (``aabb``, ``kdop``, ``sphere``, ``obb``); different
    kinds to the ``overlap_<kind>_<kind>`` test above, with the arguments swapped into
    the fixed kind order where needed (overlap is symmetric, so the result is unchanged).

    Returns ``(N,) bool``, or a bool for two single items.
    """
    ka, kb = kind_of(a, "a"), kind_of(b, "b")
    if ka == kb:
        return _SAME[ka].overlap(a, b)
    if KINDS.index(ka) > KINDS.index(kb):
        return _overlap_elem(kb, b, "b", ka, a, "a")
    return _overlap_elem(ka, a, "a", kb, b, "b")


def overlap_pairs(a, b):
    """Every overlapping pair between two volume sets of any kinds.

    Returns ``(2, n) intp``: row 0 indexes ``a``, row 1 indexes ``b``, sorted by (i, j).
    Different kinds: the volumes' enclosing boxes are paired by ``aabb.sweep_pairs``, then
    each candidate is tested with the pair's own test, so the result equals
    ``overlap(a[i], b[j])`` over all (i, j). Same kinds go to the kind's own module.
    """
    ka, kb = kind_of(a, "a"), kind_of(b, "b")
    if ka == kb:
        return _SAME[ka].overlap_pairs(a, b)
    if KINDS.index(ka) > KINDS.index(kb):
        pairs = _overlap_pairs(kb, b, "b", ka, a, "a")[::-1]
        return np.ascontiguousarray(pairs[:, np.lexsort((pairs[1], pairs[0]))])
    return _overlap_pairs(ka, a, "a", kb, b, "b")


def enclosing_boxes(volumes):
    """``(N, 2, D)`` boxes that hold each volume of any kind, or ``(2, D)`` for one.

    AABBs: themselves; k-DOPs: their x, y, z slabs; spheres and OBBs: the tightest box,
    widened by a few ulps so that rounding never cuts into the volume. Empty volumes give
    the empty box.
    """
    kind = kind_of(volumes)
    data, single = _validate(kind, volumes, "volumes")
    out = _boxes(kind, data)
    return out[0] if single else out


_SAME = {"sphere": sphere, "aabb": aabb, "kdop": kdop, "obb": obb}


def _validate(kind, value, name, dim=None, k=None):
    """(validated data, single) of one kind; kdop data is (kdops, K)."""
    if kind == "sphere":
        return v.as_spheres(value, name, dim=dim)
    if kind == "aabb":
        return v.as_boxes(value, name, dim=dim)
    if kind == "obb":
        # the OBB module's own check: orthonormal to 1e-6, and rotations off by more than
        # rounding replaced by the nearest rotation with the box grown to hold the given
        # one, so the tests below may take rot.T as the inverse of rot
        return obb._as_obbs(value, name, tidy=True)
    kdops, single, found = v.as_kdops(value, name, k=k)
    return (kdops, found), single


def _validate_pair(ka, a, name_a, kb, b, name_b):
    """Validate two sets of kinds ka < kb; check dimensions and broadcasting."""
    dim = None
    if ka == "sphere" and kb == "aabb":
        b_data, sb = _validate(kb, b, name_b)
        dim = b_data.shape[2]
        a_data, sa = _validate(ka, a, name_a, dim=dim)
    else:  # every other pair is 3D only
        a_data, sa = _validate(ka, a, name_a, dim=3)
        b_data, sb = _validate(kb, b, name_b, dim=3)
    na, nb = _count(ka, a_data), _count(kb, b_data)
    return a_data, sa, na, b_data, sb, nb


def _count(kind, data):
    if kind == "sphere":
        return len(data.radius)
    if kind == "obb":
        return len(data.half)
    if kind == "kdop":
        return len(data[0])
    return len(data)


def _args(kind, data):
    """Kernel arguments of one validated set: k-DOPs travel with their axes."""
    if kind == "kdop":
        kdops, k = data
        return (kdops, _AXES[k])
    return (data,)


# the kernels of each cross-kind pair: overlap_<a>_<b> (elementwise), filter_<a>_<b>
_KIND_PAIRS = (
    ("sphere", "aabb"), ("sphere", "kdop"), ("sphere", "obb"),
    ("aabb", "kdop"), ("aabb", "obb"), ("kdop", "obb"),
)  # fmt: skip
_ELEM = {pair: getattr(_km, "overlap_{}_{}".format(*pair)) for pair in _KIND_PAIRS}
_FILTER = {pair: getattr(_km, "filter_{}_{}".format(*pair)) for pair in _KIND_PAIRS}


def _overlap_elem(ka, a, name_a, kb, b, name_b):
    a_data, sa, na, b_data, sb, nb = _validate_pair(ka, a, name_a, kb, b, name_b)
    if na != nb and na != 1 and nb != 1:
        raise ValueError(
            f"cannot broadcast {na} volumes in {name_a} against {nb} in {name_b}"
        )
    out = np.empty(max(na, nb) if min(na, nb) else 0, dtype=np.bool_)
    if len(out):
        _ELEM[ka, kb](*_args(ka, a_data), *_args(kb, b_data), out)
    return bool(out[0]) if sa and sb else out


def _overlap_pairs(ka, a, name_a, kb, b, name_b):
    a_data, _, na, b_data, _, nb = _validate_pair(ka, a, name_a, kb, b, name_b)
    if na == 0 or nb == 0:
        return np.empty((2, 0), np.intp)
    cand = aabb.sweep_pairs(_padded(_boxes(ka, a_data)), _padded(_boxes(kb, b_data)))
    keep = np.empty(cand.shape[1], dtype=np.bool_)
    if len(keep):
        _FILTER[ka, kb](*_args(ka, a_data), *_args(kb, b_data), cand, keep)
    return np.ascontiguousarray(cand[:, keep])


def _boxes(kind, data):
    """Boxes that hold validated volumes (canonical empty box for empty volumes): the
    tightest ones, widened by an ulp or a few where rounding could cut into a volume."""
    if kind == "aabb":
        return np.array(data)
    if kind == "kdop":
        return v.canonical_empty(np.array(data[0][:, :, :3]))
    if kind == "sphere":
        c, r = data.center, data.radius
        ext = r[:, None]
        empty = r < 0
    else:
        c, h, rot = data.center, data.half, data.rot
        with np.errstate(invalid="ignore"):  # inf half times a zero rotation entry
            ext = np.einsum("nmk,nk->nm", np.abs(rot), h) * (1.0 + 8.0 * _EPS)
        ext = np.where(np.isnan(ext), np.inf, ext)
        empty = np.any(h < 0, axis=1)
    with np.errstate(invalid="ignore"):
        out = np.stack(
            [np.nextafter(c - ext, -np.inf), np.nextafter(c + ext, np.inf)], axis=1
        )
    out[empty] = [[np.inf], [-np.inf]]
    return out


def _padded(boxes):
    """Boxes widened by _BOX_PAD of their largest finite coordinate; empty stays empty."""
    if len(boxes) == 0:
        return boxes
    mag = np.where(np.isfinite(boxes), np.abs(boxes), 0.0).max(axis=(1, 2))
    pad = _BOX_PAD * mag[:, None]
    out = boxes.copy()
    out[:, 0] -= pad
    out[:, 1] += pad
    return out


# -- choosing a volume -------------------------------------------------------------------


def choose(points, *, rotating=False, k=18, miss_cost=MISS_COST, costs=None):
    """The bounding-volume kind to use for an object (SPEC §7), from its points.

    Returns ``"sphere"``, ``"aabb"``, ``"obb"`` or ``f"kdop{k}"``: the kind with the
    lowest score (ties go to the first of sphere, aabb, kdop, obb). See
    :func:`choose_report` for the rule and the measured quantities behind it.
    """
    return choose_report(
        points, rotating=rotating, k=k, miss_cost=miss_cost, costs=costs
    )["kind"]


def choose_report(points, *, rotating=False, k=18, miss_cost=MISS_COST, costs=None):
    """Choose a bounding-volume kind and report the quantities compared.

    The rule: each kind's expected cost per overlap test is

        score = cost + miss_cost * volume / smallest volume

    ``cost`` is the measured relative cost of one test of that kind (:data:`COSTS`, sphere
    = 1). The volume ratio stands for how often the volume lets a pair through: a volume
    twice the tightest one passes about twice the pairs, each of which costs ``miss_cost``
    further down. Volumes are measured on the fitted volumes: the minimal sphere (Welzl),
    the AABB, the OBB (``obb.fit(method="hull")``) and the k-DOP (its polytope's exact
    volume, from its vertices and faces).

    ``rotating=True`` marks an object that turns often. A sphere turns with it unchanged,
    an OBB by rotating its axes (exact, no refit); an AABB or a k-DOP must be refit from
    the points each time it turns, or else hold the object in every orientation. They are
    scored with the latter: the AABB and the k-DOP of the minimal sphere (volume 8 r^3 for
    the box). So a rotating object gets a sphere, unless it is long enough that the OBB's
    smaller volume pays for its dearer test.

    What comes out: near-spherical → sphere (the sphere is the smallest volume and the
    cheapest test); elongated along the axes → AABB (as small as the OBB and k-DOP, and
    cheaper); elongated at an angle → OBB (every axis-bound volume is several times
    larger); a rounded or faceted shape that does not rotate → k-DOP (its cut corners make
    it markedly smaller than the sphere, the box and the OBB).

    Parameters
    ----------
    points : (M, 3) float
        The object's points (vertices), M >= 1.
    rotating : bool
    k : {6, 14, 18, 26}
        The k-DOP to consider.
    miss_cost : float >= 0
        Weight of the volume ratio; 0 picks the cheapest test.
    costs : dict, optional
        Replacements for entries of :data:`COSTS`.

    Returns
    -------
    dict with ``kind`` (the choice), ``volume``, ``ratio``, ``cost`` and ``score`` (dicts
    keyed by kind), and the inputs ``rotating``, ``miss_cost``.
    """
    pts, _ = v.as_points(points, "points", dim=3, finite=True)
    if len(pts) == 0:
        raise ValueError("points must hold at least one point")
    k = v.check_k(k)
    if not isinstance(rotating, bool | np.bool_):
        raise TypeError(f"rotating must be a bool, got {type(rotating).__name__}")
    miss_cost = _nonnegative(miss_cost, "miss_cost")
    kdop_name = f"kdop{k}"
    table = dict(COSTS)
    if k == 6:
        table[kdop_name] = table["aabb"]
    if costs is not None:
        if not isinstance(costs, dict):
            raise TypeError(f"costs must be a dict, got {type(costs).__name__}")
        for key, value in costs.items():
            if key not in table:
                raise ValueError(f"costs has an unknown kind {key!r}")
            table[key] = _nonnegative(value, f"costs[{key!r}]")
    names = ("sphere", "aabb", kdop_name, "obb")
    # the choice compares volumes: made at a power-of-two scale (exact), where cubes of
    # the coordinates neither overflow nor vanish, the volumes mapped back after
    big = float(np.abs(pts).max())
    scale = math.frexp(big)[1] if 0.0 < big < math.inf else 0
    if scale:
        pts = np.ldexp(pts, -scale)

    ball = sphere.fit(pts, method="welzl")
    radius = float(np.asarray(ball.radius).reshape(-1)[0])
    vol = {
        "sphere": float(sphere.volume(ball)),
        "obb": float(obb.volume(obb.fit(pts, method="hull"))),
    }
    if rotating:
        vol["aabb"] = (2.0 * radius) ** 3
        vol[kdop_name] = radius**3 * _kdop_volume(_ball_kdop(np.zeros(3), 1.0, k), k)
    else:
        vol["aabb"] = float(aabb.volume(aabb.from_points(pts)))
        vol[kdop_name] = _kdop_volume(kdop.fit(pts, k), k)
    # A flat or a point-like object: volumes of 0 compare through a floor of 1e-6 of the
    # sphere's volume (rounding leaves the OBB of a flat object a sliver thick).
    floor = max(1e-6 * vol["sphere"], np.finfo(float).tiny)
    smallest = min(vol[n] for n in names) + floor
    ratio = {n: (vol[n] + floor) / smallest for n in names}
    cost = {n: table[n] for n in names}
    score = {n: cost[n] + miss_cost * ratio[n] for n in names}
    kind = min(names, key=lambda n: score[n])  # min keeps the first of equal scores
    with np.errstate(over="ignore", under="ignore"):  # inf / 0 where float64 ends
        volume = {n: float(np.ldexp(vol[n], 3 * scale)) for n in names}
    return {
        "kind": kind,
        "volume": volume,
        "ratio": ratio,
        "cost": cost,
        "score": score,
        "rotating": bool(rotating),
        "miss_cost": miss_cost,
    }


def _nonnegative(value, name):
    """A finite real number >= 0, as a float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    value = float(value)
    if not (math.isfinite(value) and value >= 0.0):
        raise ValueError(f"{name} must be finite and >= 0, got {value}")
    return value


def _ball_kdop(center, radius, k):
    """The k-DOP of a ball: slab a.c +- r |a| along each direction."""
    axes = kdop.AXES[k]
    p = axes @ center
    r = radius * np.sqrt((axes * axes).sum(axis=1))
    return np.stack([p - r, p + r])


def _kdop_volume(kd, k):
    """Volume of one k-DOP polytope ``(2, K/2)``: sum over its faces of area * height / 3
    (the pyramids from the vertex centroid), faces found as the vertices on each plane."""
    verts = kdop.vertices(kd)
    if len(verts) < 4:
        return 0.0
    axes = kdop.AXES[k]
    norms = np.sqrt((axes * axes).sum(axis=1))
    proj = verts @ axes.T
    scale = np.abs(verts).max() + np.ptp(verts, axis=0).max()
    inner = verts.mean(axis=0)
    total = 0.0
    for side in (0, 1):
        for s in range(len(axes)):
            on = np.abs(proj[:, s] - kd[side, s]) <= 1e-9 * scale * norms[s]
            if on.sum() < 3:
                continue
            face = verts[on]
            normal = axes[s] / norms[s]
            mid = face.mean(axis=0)
            u = np.cross(normal, np.eye(3)[np.argmin(np.abs(normal))])
            u /= np.linalg.norm(u)
            w = np.cross(normal, u)
            rel = face - mid
            face = rel[np.argsort(np.arctan2(rel @ w, rel @ u))]
            area = 0.5 * abs(
                np.cross(face, np.roll(face, -1, axis=0)).sum(axis=0) @ normal
            )
            height = abs((inner - verts[on][0]) @ normal)
            total += area * height / 3.0
    return float(total)
