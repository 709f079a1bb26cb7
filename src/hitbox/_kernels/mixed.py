"""Cross-kind overlap kernels (SPEC §7): sphere, AABB, k-DOP and OBB against each other.

Each pair of kinds has one predicate ``<kind>_<kind>(a, i, b, j[, axes])`` (closed:
touching counts as overlapping). Two kernels run them all, the predicate picked from the
argument types at compile time (as in ``bv``): an elementwise one that broadcasts a
single item against many, and a filter that tests candidate pairs ``cand (2, n)`` from a
box sweep. The predicates live by family: sphere against boxes in ``sphere_box``, sphere
against k-DOP in ``sphere_kdop``, the box-like kinds against each other in ``box_sat``.
"""

from numba import njit, types
from numba.extending import overload

from hitbox._kernels.box_sat import aabb_kdop, aabb_obb, kdop_obb
from hitbox._kernels.bv import _kind_of_type, count, kind_of
from hitbox._kernels.sphere_box import sphere_aabb, sphere_obb
from hitbox._kernels.sphere_kdop import sphere_kdop

# The predicate by the kinds of a and b ("slabs": AABBs, or k-DOPs when axes come along)
# and whether k-DOP directions come along.
_TESTS = {
    ("sphere", "slabs", False): sphere_aabb,
    ("sphere", "slabs", True): sphere_kdop,
    ("sphere", "obb", False): sphere_obb,
    ("slabs", "slabs", True): aabb_kdop,
    ("slabs", "obb", False): aabb_obb,
    ("slabs", "obb", True): kdop_obb,
}


def _is_axes(x):
    """Whether a kernel argument (value or numba type) is a k-DOP's directions (S, 3)."""
    return getattr(x, "ndim", None) == 2


def _split(sets):
    """``(a, b, axes)`` from the kernel arguments that hold the sets, where a k-DOP set
    is followed by its directions; axes is None when neither set is a k-DOP."""
    if len(sets) == 2:
        return sets[0], sets[1], None
    if _is_axes(sets[1]):
        return sets[0], sets[2], sets[1]
    return sets[0], sets[1], sets[2]


@overload(_split)
def _split_typed(sets):
    if len(sets) == 2:
        return lambda sets: (sets[0], sets[1], None)
    if _is_axes(sets[1]):
        return lambda sets: (sets[0], sets[2], sets[1])
    return lambda sets: (sets[0], sets[1], sets[2])


def _test(a, i, b, j, axes):
    """Closed overlap of item i of a and item j of b, by the pair's predicate."""
    test = _TESTS[kind_of(a), kind_of(b), axes is not None]
    return test(a, i, b, j) if axes is None else test(a, i, b, j, axes)


# inline="always", as every predicate is: through a real call, each array argument is
# reference-counted per pair, which cost the sphere-AABB kernel 4x and k-DOP-OBB 20 %
@overload(_test, inline="always")
def _test_typed(a, i, b, j, axes):
    with_axes = not isinstance(axes, types.NoneType)
    test = _TESTS.get((_kind_of_type(a), _kind_of_type(b), with_axes))
    if test is None:
        return None
    if with_axes:
        return lambda a, i, b, j, axes: test(a, i, b, j, axes)
    return lambda a, i, b, j, axes: test(a, i, b, j)


@njit(cache=True, nogil=True)
def overlap_each(*args):
    """``out[n]``: whether item n of a overlaps item n of b; a set of one item is tested
    against all. Arguments: a, b (each k-DOP set followed by its axes), then out."""
    a, b, axes = _split(args[:-1])
    out = args[-1]
    si = 1 if count(a) > 1 else 0
    sj = 1 if count(b) > 1 else 0
    for n in range(len(out)):
        out[n] = _test(a, n * si, b, n * sj, axes)


@njit(cache=True, nogil=True)
def filter_each(*args):
    """``keep[n]``: whether the pair ``cand[:, n]`` overlaps. Arguments: a, b as for
    :func:`overlap_each`, then cand and keep."""
    a, b, axes = _split(args[:-2])
    cand = args[-2]
    keep = args[-1]
    for n in range(cand.shape[1]):
        keep[n] = _test(a, cand[0, n], b, cand[1, n], axes)


# hitbox.mixed looks the kernels up by name, overlap_<a>_<b> and filter_<a>_<b>
overlap_sphere_aabb = overlap_sphere_kdop = overlap_sphere_obb = overlap_each
overlap_aabb_kdop = overlap_aabb_obb = overlap_kdop_obb = overlap_each
filter_sphere_aabb = filter_sphere_kdop = filter_sphere_obb = filter_each
filter_aabb_kdop = filter_aabb_obb = filter_kdop_obb = filter_each
