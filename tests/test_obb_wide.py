"""The four-lane OBB node tests (hitbox._kernels.obb_wide) against the scalar test and
against the clipping oracle of tests/oracles_obb.py, and the wide table's layout."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from hitbox import OBBs
from hitbox._kernels import obb_wide as kw
from hitbox._kernels.node_tests import (
    MAY_MEET,
    as_bv,
    obb_gap,
    overlap_xf,
    query_slack,
    skew_widening,
)
from hitbox._torus import torus_mesh
from hitbox.mesh import TriangleMesh
from tests import oracles_obb as oracles
from tests.strategies import rotation

#: A tree of seven nodes: 0 -> (1, 2), 1 -> (3, 4), 2 -> (5, 6); its wide row 0 holds
#: 3, 4, 5, 6. The second shape makes node 2 a leaf: row 0 holds 3, 4, 2.
FULL = (np.array([1, 3, 5, 0, 1, 2, 3]), np.array([0, 0, 0, 1, 1, 1, 1]))
LEAF_CHILD = (np.array([1, 3, 7, 0, 1]), np.array([0, 0, 1, 1, 1]))
#: Oracle slack (relative to the pair's size) inside which the two tests may differ:
#: both are widened by 1e-12 of the coordinates, grouped differently.
BAND = 1e-9
INSIDE = 1e-13


@njit
def _lane_bits(a_parts, b_parts, wide_a, wide_b, m, k, rot, trans, slack):
    """(codes of m against k's wide children, of m's wide children against k), clearances
    in units of 1e-3."""
    a = as_bv(*a_parts)
    b = as_bv(*b_parts)
    widen = skew_widening(rot)
    return (
        kw.b_lanes(a, m, wide_b, k, rot, trans, widen, slack, 1e3, False),
        kw.a_lanes(wide_a, m, b, k, rot, trans, widen, slack, 1e3, False),
    )


@njit
def _gap(a_parts, i, b_parts, j, rot, trans, slack):
    a = as_bv(*a_parts)
    b = as_bv(*b_parts)
    return obb_gap(a, i, b, j, rot, trans, skew_widening(rot), slack)


@njit
def _scalar(a_parts, i, b_parts, j, rot, trans, slack):
    a = as_bv(*a_parts)
    b = as_bv(*b_parts)
    return overlap_xf(a, i, b, j, rot, trans, True, skew_widening(rot), slack)


def _boxes(rng, n, touching_of=None):
    """n random OBBs; with ``touching_of`` (centre, half, rot of one box), every other box
    is moved to touch it face to face (the hard case for rounding)."""
    center = rng.normal(scale=1.5, size=(n, 3))
    half = rng.uniform(0.05, 1.0, size=(n, 3))
    rot = np.stack([rotation(rng) for _ in range(n)])
    if touching_of is not None:
        c, h, r = touching_of
        for x in range(0, n, 2):
            axis = rng.integers(3)
            side = rng.choice([-1.0, 1.0])
            rot[x] = r
            center[x] = c + side * r[:, axis] * (h[axis] + half[x, axis])
    return center, half, rot


def _magnitude(center, half):
    return float(np.abs(center).sum(axis=1).max() + np.abs(half).sum(axis=1).max())


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans(), st.booleans())
def test_lanes_match_the_scalar_test_and_never_miss_an_overlap(seed, leaf_child, touch):
    rng = np.random.default_rng(seed)
    first, count = LEAF_CHILD if leaf_child else FULL
    n = len(first)
    a_parts = _boxes(rng, n)
    rot, trans = rotation(rng), rng.normal(size=3)
    # B's boxes touching A's node 0 once moved (or random)
    m = 0
    target = None
    if touch:
        ca, ha, ra = (x[m] for x in a_parts)
        # a box touching A's node 0, expressed in B's model frame
        target = (rot.T @ (ca - trans), ha, rot.T @ ra)
    b_parts = _boxes(rng, n, target)
    wide_a = kw.wide_table(*a_parts, first, count)
    wide_b = kw.wide_table(*b_parts, first, count)
    slack = query_slack(trans, _magnitude(*a_parts[:2]), _magnitude(*b_parts[:2]))
    bits_b, bits_a = _lane_bits(a_parts, b_parts, wide_a, wide_b, 0, 0, rot, trans, slack)
    moved_b = (b_parts[0] @ rot.T + trans, b_parts[1], rot @ b_parts[2])
    for lane in range(kw.LANES):
        for bits, wide, fixed in ((bits_b, wide_b, "a"), (bits_a, wide_a, "b")):
            x = kw.lane_node(wide, 0, lane)
            if lane >= (3 if leaf_child else 4):
                assert x == -1
                continue
            i, j = (0, x) if fixed == "a" else (x, 0)
            code = kw.lane_code(bits, lane)
            lane_says = code == 0
            scalar = _scalar(a_parts, i, b_parts, j, rot, trans, slack)
            gap = _gap(a_parts, i, b_parts, j, rot, trans, slack)
            assert (gap == MAY_MEET) == scalar
            if not lane_says and gap >= 0.0:  # its clearance: the gap, rounded down
                held = kw.clearance(code, 1e3)
                assert held <= gap * (1 + 1e-9) + 1e-12
                assert held >= min(gap, 65.0) - 1e-3 - 1e-9
            box_a = OBBs(*(p[i : i + 1] for p in a_parts))
            box_b = OBBs(*(p[j : j + 1] for p in moved_b))
            rel = oracles.slack(box_a, box_b)[0] / oracles.size(box_a, box_b)[0]
            if rel > INSIDE:
                assert lane_says, (lane, rel)
            if abs(rel) > BAND:
                assert lane_says == scalar, (lane, rel)


def test_an_empty_lane_node_meets_nothing():
    rng = np.random.default_rng(3)
    first, count = FULL
    a_parts = _boxes(rng, 7)
    center, half, rot_b = _boxes(rng, 7)
    center[:] = 0.0
    half[4] = -1.0  # an empty node (negative half extents), right on top of A's root
    wide_b = kw.wide_table(center, half, rot_b, first, count)
    wide_a = kw.wide_table(*a_parts, first, count)
    a_parts[0][0] = 0.0
    a_parts[1][0] = 5.0
    bits, _ = _lane_bits(
        a_parts, (center, half, rot_b), wide_a, wide_b, 0, 0, np.eye(3), np.zeros(3),
        1e-12,
    )  # fmt: skip
    meets = [kw.lane_code(bits, lane) == 0 for lane in range(kw.LANES)]
    assert meets == [True, False, True, True]  # nodes 3, 5, 6 meet A's big root, 4 not


def test_wide_rows_hold_grandchildren_or_leaf_children():
    v, f = torus_mesh(2000)
    mesh = TriangleMesh(v, f, leaf_size=3)
    first, count = mesh.bvh.node_first, mesh.bvh.node_count
    assert mesh._wide is None  # built by the first collision query, not before
    mesh.intersect(mesh, np.eye(4))
    wide = mesh._walk_args()[-1]
    inner = np.flatnonzero(count == 0)
    assert wide.shape == (len(inner), kw.FIELDS, kw.LANES)
    rows = [kw.wide_row(first, p) for p in inner]
    assert sorted(rows) == list(range(len(inner)))  # one row per inner node, none spare
    seen = np.zeros(len(first), int)
    for p, row in zip(inner, rows, strict=True):
        expect = []
        for child in (first[p], first[p] + 1):
            expect += [child] if count[child] else [first[child], first[child] + 1]
        got = [kw.lane_node(wide, row, lane) for lane in range(kw.LANES)]
        assert got == expect + [-1] * (kw.LANES - len(expect))
        for lane, x in enumerate(expect):
            np.testing.assert_array_equal(wide[row, 0:3, lane], mesh._args[0][x])
            np.testing.assert_array_equal(wide[row, 3:6, lane], mesh._args[1][x])
            np.testing.assert_array_equal(wide[row, 6:15, lane], mesh._args[2][x].ravel())
            seen[x] += 1
    # every node but the root and its inner children is some row's lane (a leaf whose
    # parent is not the root, twice: its grandparent's and its parent's)
    parent = np.full(len(first), -1)
    for p in np.flatnonzero(count == 0):
        parent[first[p]] = parent[first[p] + 1] = p
    for x in range(1, len(first)):
        inner_root_child = parent[x] == 0 and count[x] == 0
        expect = 0 if inner_root_child else 1 + (count[x] > 0 and parent[x] != 0)
        assert seen[x] == expect, x


def test_other_node_kinds_carry_no_wide_table():
    v, f = torus_mesh(200)
    assert TriangleMesh(v, f, node="aabb")._walk_args()[-1].shape[0] == 0
    assert TriangleMesh(v, f, node="sphere")._walk_args()[-1].shape[0] == 0
