"""Contracts every public function keeps (shapely's BINARY_PREDICATES idea).

For each function: N = 0 gives an empty result of the right kind; NaN in its first array
argument raises ValueError naming it; a string array raises TypeError or ValueError; one
item in gives one item out. A last test fails when a public function has no row here.
"""

import numpy as np
import pytest

import hitbox as hb
from hitbox import OBBs, Spheres


def boxes(n, d=3):
    lo = np.arange(n * d, dtype=float).reshape(n, d) % 5
    return np.stack([lo, lo + 1.5], axis=1)


def points(n, d=3):
    return (np.arange(n * d, dtype=float).reshape(n, d) % 7) / 3


def spheres(n, d=3):
    return Spheres(points(n, d), np.full(n, 0.75))


def obbs(n):
    return OBBs(points(n), np.full((n, 3), 0.5), np.repeat(np.eye(3)[None], n, axis=0))


def kdops(n, k=18):
    return hb.kdop.fit(points(n * 4).reshape(n, 4, 3), k)


def tris(n):
    return points(n * 3).reshape(n, 3, 3) + np.array([0.0, 0.1, 0.3])[:, None]


def groups(n):
    return points(n * 5).reshape(n, 5, 3)


M = np.eye(4)
M[:3, 3] = 1.0
RAY_O = lambda n: points(n) - 5.0  # noqa: E731
RAY_D = lambda n: np.ones((n, 3))  # noqa: E731

# name -> (function, argument factory taking n, expected kind of the single-item result)
# kinds: "scalar" (Python/numpy scalar or bool), "row" (one row array), "pairs" ((2, n)),
# "tuple" (a NamedTuple of scalars or rows), None (no single form to check)
CASES = {
    "aabb.is_empty": (hb.aabb.is_empty, lambda n: (boxes(n),), "scalar"),
    "aabb.from_points": (hb.aabb.from_points, lambda n: (groups(n),), "row"),
    "aabb.from_vertices": (hb.aabb.from_vertices, lambda n: (points(n),), None),
    "aabb.union": (hb.aabb.union, lambda n: (boxes(n), boxes(n)), "row"),
    "aabb.union_points": (hb.aabb.union_points, lambda n: (boxes(n), points(n)), "row"),
    "aabb.union_all": (hb.aabb.union_all, lambda n: (boxes(n),), None),
    "aabb.intersection": (hb.aabb.intersection, lambda n: (boxes(n), boxes(n)), "row"),
    "aabb.center": (hb.aabb.center, lambda n: (boxes(n),), "row"),
    "aabb.size": (hb.aabb.size, lambda n: (boxes(n),), "row"),
    "aabb.radius": (hb.aabb.radius, lambda n: (boxes(n),), "row"),
    "aabb.volume": (hb.aabb.volume, lambda n: (boxes(n),), "scalar"),
    "aabb.corners": (hb.aabb.corners, lambda n: (boxes(n),), "row"),
    "aabb.contains_points": (
        hb.aabb.contains_points,
        lambda n: (boxes(n), points(n)),
        "scalar",
    ),
    "aabb.closest_points": (
        hb.aabb.closest_points,
        lambda n: (boxes(n), points(n)),
        "row",
    ),
    "aabb.overlap": (hb.aabb.overlap, lambda n: (boxes(n), boxes(n)), "scalar"),
    "aabb.overlap_pairs": (hb.aabb.overlap_pairs, lambda n: (boxes(n), boxes(n)), None),
    "aabb.overlap_pairs_brute": (
        hb.aabb.overlap_pairs_brute,
        lambda n: (boxes(n), boxes(n)),
        None,
    ),
    "aabb.transform": (hb.aabb.transform, lambda n: (boxes(n), M), "row"),
    "kdop.fit": (hb.kdop.fit, lambda n: (groups(n),), "row"),
    "kdop.from_boxes": (hb.kdop.from_boxes, lambda n: (boxes(n),), "row"),
    "kdop.to_boxes": (hb.kdop.to_boxes, lambda n: (kdops(n),), "row"),
    "kdop.union": (hb.kdop.union, lambda n: (kdops(n), kdops(n)), "row"),
    "kdop.overlap": (hb.kdop.overlap, lambda n: (kdops(n), kdops(n)), "scalar"),
    "kdop.overlap_pairs": (hb.kdop.overlap_pairs, lambda n: (kdops(n), kdops(n)), None),
    "kdop.overlap_pairs_brute": (
        hb.kdop.overlap_pairs_brute,
        lambda n: (kdops(n), kdops(n)),
        None,
    ),
    "kdop.contains_points": (
        hb.kdop.contains_points,
        lambda n: (kdops(n), points(n)),
        "scalar",
    ),
    "kdop.vertices": (hb.kdop.vertices, lambda n: (kdops(n),), "row"),
    "kdop.transform": (hb.kdop.transform, lambda n: (kdops(n), M), "row"),
    "sphere.fit": (hb.sphere.fit, lambda n: (groups(n),), "tuple"),
    "sphere.from_boxes": (hb.sphere.from_boxes, lambda n: (boxes(n),), "tuple"),
    "sphere.to_boxes": (hb.sphere.to_boxes, lambda n: (spheres(n),), "row"),
    "sphere.cover": (hb.sphere.cover, lambda n: (boxes(n), 3), None),
    "sphere.union": (hb.sphere.union, lambda n: (spheres(n), spheres(n)), "tuple"),
    "sphere.overlap": (hb.sphere.overlap, lambda n: (spheres(n), spheres(n)), "scalar"),
    "sphere.overlap_pairs": (
        hb.sphere.overlap_pairs,
        lambda n: (spheres(n), spheres(n)),
        None,
    ),
    "sphere.overlap_pairs_brute": (
        hb.sphere.overlap_pairs_brute,
        lambda n: (spheres(n), spheres(n)),
        None,
    ),
    "sphere.contains_points": (
        hb.sphere.contains_points,
        lambda n: (spheres(n), points(n)),
        "scalar",
    ),
    "sphere.volume": (hb.sphere.volume, lambda n: (spheres(n),), "scalar"),
    "sphere.transform": (hb.sphere.transform, lambda n: (spheres(n), M), "tuple"),
    "obb.fit": (hb.obb.fit, lambda n: (groups(n),), "tuple"),
    "obb.fit_triangles": (hb.obb.fit_triangles, lambda n: (tris(n),), None),
    "obb.from_boxes": (hb.obb.from_boxes, lambda n: (boxes(n),), "tuple"),
    "obb.to_boxes": (hb.obb.to_boxes, lambda n: (obbs(n),), "row"),
    "obb.is_empty": (hb.obb.is_empty, lambda n: (obbs(n),), "scalar"),
    "obb.volume": (hb.obb.volume, lambda n: (obbs(n),), "scalar"),
    "obb.corners": (hb.obb.corners, lambda n: (obbs(n),), "row"),
    "obb.contains_points": (
        hb.obb.contains_points,
        lambda n: (obbs(n), points(n)),
        "scalar",
    ),
    "obb.closest_points": (hb.obb.closest_points, lambda n: (obbs(n), points(n)), "row"),
    "obb.overlap": (hb.obb.overlap, lambda n: (obbs(n), obbs(n)), "scalar"),
    "obb.overlap_pairs": (hb.obb.overlap_pairs, lambda n: (obbs(n), obbs(n)), None),
    "obb.overlap_pairs_brute": (
        hb.obb.overlap_pairs_brute,
        lambda n: (obbs(n), obbs(n)),
        None,
    ),
    "obb.transform": (hb.obb.transform, lambda n: (obbs(n), M), "tuple"),
    "mixed.overlap": (hb.mixed.overlap, lambda n: (spheres(n), obbs(n)), "scalar"),
    "mixed.overlap_pairs": (
        hb.mixed.overlap_pairs,
        lambda n: (kdops(n), spheres(n)),
        None,
    ),
    "mixed.overlap_sphere_aabb": (
        hb.mixed.overlap_sphere_aabb,
        lambda n: (spheres(n), boxes(n)),
        "scalar",
    ),
    "mixed.overlap_sphere_kdop": (
        hb.mixed.overlap_sphere_kdop,
        lambda n: (spheres(n), kdops(n)),
        "scalar",
    ),
    "mixed.overlap_sphere_obb": (
        hb.mixed.overlap_sphere_obb,
        lambda n: (spheres(n), obbs(n)),
        "scalar",
    ),
    "mixed.overlap_aabb_kdop": (
        hb.mixed.overlap_aabb_kdop,
        lambda n: (boxes(n), kdops(n)),
        "scalar",
    ),
    "mixed.overlap_aabb_obb": (
        hb.mixed.overlap_aabb_obb,
        lambda n: (boxes(n), obbs(n)),
        "scalar",
    ),
    "mixed.overlap_kdop_obb": (
        hb.mixed.overlap_kdop_obb,
        lambda n: (kdops(n), obbs(n)),
        "scalar",
    ),
    "mixed.enclosing_boxes": (hb.mixed.enclosing_boxes, lambda n: (obbs(n),), "row"),
    "mixed.choose": (hb.mixed.choose, lambda n: (points(max(n, 1)),), None),
    "mixed.choose_report": (hb.mixed.choose_report, lambda n: (points(max(n, 1)),), None),
    "ray.segments": (hb.ray.segments, lambda n: (points(n), points(n) + 1), None),
    "ray.cast_aabb": (
        hb.ray.cast_aabb,
        lambda n: (boxes(n), RAY_O(n), RAY_D(n)),
        "tuple",
    ),
    "ray.cast_sphere": (
        hb.ray.cast_sphere,
        lambda n: (spheres(n), RAY_O(n), RAY_D(n)),
        "tuple",
    ),
    "ray.cast_obb": (hb.ray.cast_obb, lambda n: (obbs(n), RAY_O(n), RAY_D(n)), "tuple"),
    "ray.cast_kdop": (
        hb.ray.cast_kdop,
        lambda n: (kdops(n), RAY_O(n), RAY_D(n)),
        "tuple",
    ),
    "sweep.aabb_aabb": (
        hb.sweep.aabb_aabb,
        lambda n: (boxes(n), boxes(n) + 4, points(n)),
        "tuple",
    ),
    "sweep.sphere_sphere": (
        hb.sweep.sphere_sphere,
        lambda n: (spheres(n), spheres(n), points(n)),
        "tuple",
    ),
    "sweep.sphere_aabb": (
        hb.sweep.sphere_aabb,
        lambda n: (spheres(n), boxes(n), points(n)),
        "tuple",
    ),
    "triangle.overlap": (hb.triangle.overlap, lambda n: (tris(n), tris(n)), "scalar"),
    "triangle.overlap_pairs_brute": (
        hb.triangle.overlap_pairs_brute,
        lambda n: (tris(n), tris(n)),
        None,
    ),
    "triangle.intersection_segments": (
        hb.triangle.intersection_segments,
        lambda n: (tris(n), tris(n)),
        None,
    ),
    "triangle.raycast": (
        hb.triangle.raycast,
        lambda n: (tris(n), RAY_O(n), RAY_D(n)),
        None,
    ),
    "broadphase.pairs": (hb.broadphase.pairs, lambda n: (boxes(n),), None),
}

# Functions whose contract is checked in their own test module instead: they take no
# array of items (constructors, factories) or have no N to vary.
# mixed.kind_of only names a layout (tests/test_mixed.py covers it).
ELSEWHERE = {"aabb.empty", "broadphase.incremental", "mixed.kind_of"}


def _first_array(args):
    """Index of the first argument that is an array or a volume tuple, and its value."""
    for k, a in enumerate(args):
        if isinstance(a, np.ndarray | tuple):
            return k, a
    raise AssertionError("no array argument")


def _with_nan(value):
    if isinstance(value, tuple):
        fields = [np.array(f, dtype=float, copy=True) for f in value]
        fields[0].flat[0] = np.nan
        return type(value)(*fields)
    out = np.array(value, dtype=float, copy=True)
    out.flat[0] = np.nan
    return out


def _length(result):
    if isinstance(result, list):
        return len(result)
    if isinstance(result, tuple):
        return _length(result[0])
    if isinstance(result, str):
        return None
    arr = np.asarray(result)
    if arr.ndim == 2 and arr.shape[0] in (2, 3) and arr.dtype == np.intp:
        return arr.shape[1]  # (2, n) index pairs
    return len(arr) if arr.ndim else None


# Where N = 0 has another right answer than an empty result.
EMPTY_SPECIAL = {
    "aabb.from_vertices": lambda r: hb.aabb.is_empty(r),  # no vertices: the empty box
    "aabb.union_all": lambda r: hb.aabb.is_empty(r),  # union of nothing: the empty box
    "obb.fit_triangles": lambda r: hb.obb.is_empty(r),  # one box over no triangles
}
# Where N = 0 has no answer at all: choosing a volume for no points is an error.
EMPTY_RAISES = {"mixed.choose", "mixed.choose_report"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_empty_input_gives_empty_result(name):
    fn, make, _ = CASES[name]
    args = make(0) if name not in EMPTY_RAISES else (points(0),)
    if name in EMPTY_RAISES:
        with pytest.raises(ValueError, match="at least one point"):
            fn(*args)
        return
    result = fn(*args)
    if name in EMPTY_SPECIAL:
        assert EMPTY_SPECIAL[name](result), f"{name}(N=0) -> {result!r}"
    else:
        assert _length(result) == 0, f"{name}(N=0) -> {result!r}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_nan_is_rejected_naming_the_argument(name):
    fn, make, _ = CASES[name]
    args = list(make(3))
    k, value = _first_array(args)
    args[k] = _with_nan(value)
    with pytest.raises(ValueError, match=r"NaN|not finite|nan"):
        fn(*args)


@pytest.mark.parametrize("name", sorted(CASES))
def test_strings_are_rejected(name):
    fn, make, _ = CASES[name]
    args = list(make(2))
    k, value = _first_array(args)
    if isinstance(value, tuple):
        args[k] = type(value)(*(np.full(np.shape(f), "x") for f in value))
    else:
        args[k] = np.full(np.shape(value), "x")
    with pytest.raises((TypeError, ValueError)):
        fn(*args)


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if c[2] is not None))
def test_one_item_in_one_item_out(name):
    fn, make, kind = CASES[name]
    many = fn(*make(2))
    args = []
    for a in make(1):
        if isinstance(a, tuple):
            args.append(type(a)(*(f[0] for f in a)))
        elif isinstance(a, np.ndarray) and a is not M:
            args.append(a[0])
        else:
            args.append(a)
    one = fn(*args)
    if kind == "scalar":
        assert np.ndim(one) == 0, f"{name}: {one!r}"
        assert np.ndim(many) == 1
    elif kind == "row":
        assert np.ndim(one) == np.ndim(many) - 1, (
            f"{name}: {np.shape(one)} vs {np.shape(many)}"
        )
    else:  # a NamedTuple of one item's fields
        assert isinstance(one, tuple)
        for f_one, f_many in zip(one, many, strict=True):
            assert np.ndim(f_one) == np.ndim(f_many) - 1


def test_every_public_function_has_a_contract_row():
    import inspect

    modules = [
        "aabb",
        "kdop",
        "sphere",
        "obb",
        "mixed",
        "ray",
        "sweep",
        "triangle",
        "broadphase",
    ]
    missing = []
    for mod_name in modules:
        module = getattr(hb, mod_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                full = f"{mod_name}.{name}"
                if full not in CASES and full not in ELSEWHERE:
                    missing.append(full)
    assert not missing, f"no contract row for: {missing}"


def test_empty_boxes_hit_nothing():
    e = hb.aabb.empty(3)
    b = boxes(3)
    assert not hb.aabb.overlap(e, b).any()
    assert hb.aabb.overlap_pairs(e, b).shape == (2, 0)
    assert not hb.aabb.contains_points(e, points(3)).any()
    assert hb.broadphase.pairs(np.concatenate([e, e])).shape == (2, 0)
    assert not hb.ray.cast_aabb(e, RAY_O(3), RAY_D(3)).hit.any()
    assert not hb.mixed.overlap(spheres(3), e).any()
    assert not hb.mixed.overlap(e, obbs(3)).any()
    ek = hb.kdop.fit(np.zeros((3, 0, 3)), 18)
    assert not hb.kdop.overlap(ek, kdops(3)).any()
