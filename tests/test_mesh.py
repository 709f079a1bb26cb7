import fcl
import numba
import numpy as np
import pytest
import trimesh
from hypothesis import given, settings
from hypothesis import strategies as st

import hitbox as hb
from hitbox import _validate as v
from hitbox._kernels import collide_many as _collide_many
from hitbox._torus import torus_mesh
from hitbox.bvh import METHODS
from hitbox.mesh import TriangleMesh
from tests.strategies import rotation

KINDS = ("aabb", "sphere", "obb", "kdop14", "kdop18", "kdop26")


def torus(n_major=50, n_minor=10, r_major=1.0, r_minor=0.3):
    t = trimesh.creation.torus(
        r_major, r_minor, major_sections=n_major, minor_sections=n_minor
    )
    return np.asarray(t.vertices), np.asarray(t.faces)


def poses(n, seed, reach=3.0):
    """Random rigid placements: random rotation, offset of length 0..reach."""
    rng = np.random.default_rng(seed)
    out = np.repeat(np.eye(4)[None], n, axis=0)
    for k in range(n):
        out[k, :3, :3] = rotation(rng)
        d = rng.normal(size=3)
        out[k, :3, 3] = d / np.linalg.norm(d) * rng.uniform(0, reach)
    return out


@pytest.fixture(scope="module")
def small():
    v, f = torus(16, 6)
    return {kind: TriangleMesh(v, f, node=kind) for kind in KINDS}


@pytest.fixture(scope="module")
def sphere_mesh():
    s = trimesh.creation.icosphere(subdivisions=2)
    return TriangleMesh.from_trimesh(s)


def test_pairs_equal_brute_force_for_every_node_kind(small):
    for T in poses(12, 1, reach=2.5):
        expected = small["obb"].intersect_brute(small["obb"], T)
        for kind, mesh in small.items():
            got = mesh.intersect(mesh, T, mode="all")
            np.testing.assert_array_equal(got, expected, err_msg=kind)
            assert mesh.intersect(mesh, T) == (expected.shape[1] > 0)


def test_every_build_method_gives_the_same_pairs():
    v, f = torus(16, 6)
    meshes = [TriangleMesh(v, f, method=m) for m in METHODS]
    for T in poses(6, 2, reach=2.0):
        results = [m.intersect(m, T, mode="all") for m in meshes]
        for r in results[1:]:
            np.testing.assert_array_equal(r, results[0])


def test_leaf_size_defaults_by_node_kind_and_can_be_set():
    from hitbox.mesh import LEAF_SIZE

    v, f = torus(40, 12)
    for kind in KINDS:
        tree = TriangleMesh(v, f, node=kind).bvh
        # the SAH build fills leaves up to the limit somewhere on 960 triangles
        assert tree.node_count.max() == LEAF_SIZE[kind], kind
        assert TriangleMesh(v, f, node=kind, leaf_size=2).bvh.node_count.max() == 2
    for node in ("bogus", ["obb"]):
        with pytest.raises(ValueError, match="node must be one of"):
            TriangleMesh(v, f, node=node)


def test_slab_trees_hand_turned_queries_their_box_part(small):
    """A k-DOP tree's nodes are tested as boxes under a rotation, so turned queries read
    a contiguous copy of the x, y, z slabs; pure translations keep every slab."""
    from hitbox._kernels.collide import node_parts, posed_bv

    turn = np.eye(4)
    turn[:3, :3] = rotation(np.random.default_rng(3))
    for kind in ("aabb", "kdop14", "kdop18", "kdop26"):
        table = small[kind].bvh.node_bv
        full, box, _ = node_parts(table)
        assert full is table
        np.testing.assert_array_equal(box, table[:, :, :3])
        assert box.flags.c_contiguous and not box.flags.writeable
        assert (box is table) == (kind == "aabb")
        assert posed_bv(full, box, _, np.eye(3)) is full
        assert posed_bv(full, box, _, turn[:3, :3]) is box
        mesh = small[kind]
        np.testing.assert_array_equal(
            mesh.intersect(mesh, turn, mode="all"), mesh.intersect_brute(mesh, turn)
        )


@pytest.mark.parametrize("kind", ("aabb", "kdop18"))
@pytest.mark.parametrize("leaf_size", [1, 2])
def test_turned_box_trees_with_many_small_leaves_equal_brute_force(kind, leaf_size):
    """Hundreds of leaves: the per-query cache of leaf boxes (64 slots) evicts and
    refills, and leaf children pair with whole subtrees at every level; pairs and the
    any answer must not change."""
    v, f = torus(24, 8)
    mesh = TriangleMesh(v, f, node=kind, leaf_size=leaf_size)
    assert mesh.bvh.n_leaves > 2 * 64
    hits = 0
    for T in poses(10, 21, reach=2.2):
        expected = mesh.intersect_brute(mesh, T)
        np.testing.assert_array_equal(mesh.intersect(mesh, T, mode="all"), expected)
        assert mesh.intersect(mesh, T) == (expected.shape[1] > 0)
        hits += expected.shape[1] > 0
    assert 0 < hits < 10


def test_cached_leaf_box_equals_the_box_computed_afresh():
    """Keys that share a slot evict each other; every answer is the fresh box."""
    from hitbox._kernels import collide as kc

    rng = np.random.default_rng(5)
    tris = rng.normal(size=(40, 3, 3))
    rot = rotation(rng)
    trans = rng.normal(size=3)
    inv = kc.inverse3.py_func(rot)
    cache = kc.leaf_box_cache.py_func()
    slots = kc.LEAF_BOX_SLOTS
    # leaves 0 and slots/2 (keys 0, slots) share slot 0; leaf 1 as A (key 2) and as B
    # (key 3) are different boxes in different frames
    for leaf, side in [(0, 0), (slots // 2, 0), (0, 0), (1, 0), (1, 1), (1, 0)] * 2:
        first, count = (leaf * 7) % 35, 1 + leaf % 5
        key = 2 * leaf + side
        got = kc._cached_leaf_box.py_func(cache, key, first, count, tris, inv, rot, trans)
        if side == 0:
            want = kc._a_leaf_box.py_func(first, count, tris, inv, trans)
        else:
            want = kc._b_leaf_box.py_func(first, count, tris, rot, trans)
        assert got == want, (leaf, side)
    # against numpy (leaf 1: slots 7, 8): as B, moved into A's frame; as A, into B's
    b_pts = (tris[7:9] @ rot.T + trans).reshape(-1, 3)
    got = kc._cached_leaf_box.py_func(cache, 3, 7, 2, tris, inv, rot, trans)
    np.testing.assert_allclose(got, [*b_pts.min(axis=0), *b_pts.max(axis=0)], rtol=1e-12)
    a_pts = ((tris[7:9] - trans) @ np.linalg.inv(rot).T).reshape(-1, 3)
    got = np.array(kc._cached_leaf_box.py_func(cache, 2, 7, 2, tris, inv, rot, trans))
    assert np.all(got[:3] <= a_pts.min(axis=0)) and np.all(got[3:] >= a_pts.max(axis=0))
    np.testing.assert_allclose(got, [*a_pts.min(axis=0), *a_pts.max(axis=0)], rtol=1e-9)


@pytest.mark.parametrize("flags", range(16))
def test_leaf_children_cover_every_child_pair_exactly_once(flags):
    """Inner nodes m, k split together under a rotation: whichever children are leaves,
    the pushed pairs cover each (child of m, child of k) pair once, in at most four."""
    from hitbox._kernels import collide as kc

    m, fa, k, fb = 0, 1, 0, 1
    a_count = np.array([0, 0, 0])
    b_count = np.array([0, 0, 0])
    a_count[1:] = [(flags >> 0) & 1, (flags >> 1) & 1]
    b_count[1:] = [(flags >> 2) & 1, (flags >> 3) & 1]
    stack = np.full((8, 2), -1, np.intp)
    top = kc._push_leaf_children.py_func(a_count, fa, m, b_count, fb, k, stack, 2)
    assert 2 < top <= 6
    assert np.all(stack[:2] == -1) and np.all(stack[top:] == -1)
    covered = []
    for x, y in stack[2:top]:
        xs = [fa, fa + 1] if x == m else [x]
        ys = [fb, fb + 1] if y == k else [y]
        covered += [(p, q) for p in xs for q in ys]
        # a node paired whole is split by the walk of a leaf: the other side is a leaf
        if x == m:
            assert b_count[y] > 0
        if y == k:
            assert a_count[x] > 0
    assert sorted(covered) == [(1, 1), (1, 2), (2, 1), (2, 2)]


def test_touching_faces_count_as_contact():
    box = trimesh.creation.box(extents=(1.0, 1.0, 1.0))
    mesh = TriangleMesh.from_trimesh(box)
    T = np.eye(4)
    T[0, 3] = 1.0  # faces flush against each other
    assert mesh.intersect(mesh, T)
    assert mesh.intersect(mesh, T, mode="all").shape[1] > 0
    T[0, 3] = np.nextafter(1.0, 2.0)
    assert not mesh.intersect(mesh, T)


def test_translations_take_the_exact_slab_path_for_every_node_kind(small):
    """Pure translations (slab trees shift every slab, no box bound) against brute force,
    including placements where the tori just touch (found by bisection)."""
    rng = np.random.default_rng(11)
    ref = small["obb"]
    for _ in range(8):
        d = rng.normal(size=3)
        d /= np.linalg.norm(d)
        lo, hi = 0.0, 3.0
        for _ in range(60):  # last touching offset along d, to the last bit
            mid = 0.5 * (lo + hi)
            T = np.eye(4)
            T[:3, 3] = mid * d
            lo, hi = (mid, hi) if ref.intersect_brute(ref, T).shape[1] else (lo, mid)
        for s in (0.5 * lo, lo, hi, 1.01 * hi):
            T = np.eye(4)
            T[:3, 3] = s * d
            expected = ref.intersect_brute(ref, T)
            for kind, mesh in small.items():
                got = mesh.intersect(mesh, T, mode="all")
                np.testing.assert_array_equal(got, expected, err_msg=f"{kind} at {s}")
                assert mesh.intersect(mesh, T) == (expected.shape[1] > 0), kind


@pytest.mark.parametrize("fine_first", [False, True])
def test_rotated_touching_placements_for_every_node_kind(small, fine_first):
    """Rotations, with placements where two tori of different resolution just touch
    (bisection to the last bit), and the same rotations off orthonormal by 5e-7 (legal):
    every node kind equals brute force. Trees of different depths make leaves meet
    inner nodes, so box trees take both leaf walks (a leaf's triangles boxed in the
    other tree's frame, one of them through the inverse map)."""
    v, f = torus(36, 10, r_major=0.9, r_minor=0.35)
    fine = {kind: TriangleMesh(v, f, node=kind) for kind in KINDS}
    a_set, b_set = (fine, small) if fine_first else (small, fine)
    rng = np.random.default_rng(12)
    ref_a, ref_b = a_set["obb"], b_set["obb"]
    for trial in range(6):
        rot = rotation(rng) * (1.0 + (4.9e-7 if trial % 2 else 0.0))
        d = rng.normal(size=3)
        d /= np.linalg.norm(d)

        def pose(s, rot=rot, d=d):
            T = np.eye(4)
            T[:3, :3], T[:3, 3] = rot, s * d
            return T

        lo, hi = 0.0, 3.0
        if not ref_a.intersect_brute(ref_b, pose(lo)).shape[1]:
            continue
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            touching = ref_a.intersect_brute(ref_b, pose(mid)).shape[1]
            lo, hi = (mid, hi) if touching else (lo, mid)
        for s in (0.5 * lo, lo, hi):
            T = pose(s)
            expected = ref_a.intersect_brute(ref_b, T)
            assert (expected.shape[1] > 0) == (s != hi)
            for kind in KINDS:
                a, b = a_set[kind], b_set[kind]
                got = a.intersect(b, T, mode="all")
                np.testing.assert_array_equal(got, expected, err_msg=f"{kind} at {s}")
                assert a.intersect(b, T) == (expected.shape[1] > 0), kind
                assert a.intersect_many(b, T[None])[0] == (expected.shape[1] > 0)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("a_is_triangle", [True, False])
def test_a_triangle_on_the_extreme_vertex_of_a_turned_mesh(small, kind, a_is_triangle):
    """One large triangle in the plane through the moved mesh's extreme vertex, across
    that vertex's axis: the contact sits on the boundary of the mesh's leaf box and of
    the triangle's box mapped into the mesh's frame, where only the leaf walks' slack
    keeps the touch (rounding of the maps decides touching or not; brute force says)."""
    rng = np.random.default_rng(13)
    mesh = small[kind]
    verts = mesh.vertices
    face = np.array([[0, 1, 2]])
    touching = 0
    for _ in range(40):
        rot = rotation(rng)
        T = np.eye(4)
        T[:3, :3], T[:3, 3] = rot, rng.normal(size=3)
        axis = rng.integers(3)
        v = verts[np.argmax(verts[:, axis])]
        e = np.eye(3)[[(axis + 1) % 3, (axis + 2) % 3]]
        plane = v + np.array([3 * e[0], -2 * e[0] + 3 * e[1], -2 * e[0] - 3 * e[1]])
        moved = plane @ rot.T + T[:3, 3]  # the triangle, in A's frame
        tri = TriangleMesh(moved, face, node=kind)
        if a_is_triangle:
            expected = tri.intersect_brute(mesh, T)
            got = tri.intersect(mesh, T, mode="all")
        else:  # the mesh is A: the triangle moves by the inverse placement
            inv = np.linalg.inv(T)
            expected = mesh.intersect_brute(tri, inv)
            got = mesh.intersect(tri, inv, mode="all")
        np.testing.assert_array_equal(got, expected)
        touching += expected.shape[1] > 0
    assert touching >= 10  # most placements touch exactly, so the check has teeth


@pytest.mark.parametrize("kind", KINDS)
def test_far_from_the_origin_touching_boxes_still_touch(kind):
    """Cubes a million units out, a quarter turn apart, faces flush: rounding in the node
    tests scales with the coordinates, and must not separate them."""
    box = trimesh.creation.box(extents=(1.0, 1.0, 1.0))
    offset = np.array([1e6 + 0.125, -3e6 + 0.25, 2e6 + 0.75])  # sums stay exact
    a = TriangleMesh(np.asarray(box.vertices) + offset, box.faces, node=kind)
    b = TriangleMesh(np.asarray(box.vertices), box.faces, node=kind)
    quarter = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    for gap in (0.0, 0.25, 1e-9):
        T = np.eye(4)
        T[:3, :3] = quarter
        T[:3, 3] = offset + np.array([1.0 + gap, 0.375, -0.25])
        expected = a.intersect_brute(b, T)
        np.testing.assert_array_equal(a.intersect(b, T, mode="all"), expected)
        assert a.intersect(b, T) == (expected.shape[1] > 0)
        assert (expected.shape[1] > 0) == (gap == 0.0)


def test_agrees_with_python_fcl_on_tori_over_many_poses():
    """python-fcl matched exact arithmetic on every pose in the issue's survey: our oracle."""
    v, f = torus(50, 20)  # 2,000 triangles keeps 1,000 poses of fcl's all-contacts quick
    ours = TriangleMesh(v, f)
    model = fcl.BVHModel()
    model.beginModel(len(v), len(f))
    model.addSubModel(v, f)
    model.endModel()
    a = fcl.CollisionObject(model, fcl.Transform())
    b = fcl.CollisionObject(model, fcl.Transform())
    request = fcl.CollisionRequest(num_max_contacts=100_000, enable_contact=False)
    placements = poses(1000, 3, reach=2.8)
    ours_any = ours.intersect_many(ours, placements)
    ours_all = ours.intersect_many(ours, placements, mode="all")
    mismatches = 0
    for k, T in enumerate(placements):
        b.setTransform(fcl.Transform(T[:3, :3], T[:3, 3]))
        result = fcl.CollisionResult()
        fcl.collide(a, b, request, result)
        theirs = {(c.b1, c.b2) for c in result.contacts}
        mine = {tuple(p) for p in ours_all[1:, ours_all[0] == k].T.tolist()}
        assert ours_any[k] == bool(mine)
        if mine != theirs:
            mismatches += 1
            # the only tolerated difference is a tie: a pair one side calls touching
            diff = mine ^ theirs
            tris = v[f]
            for fa, fb in diff:
                moved = tris[fb] @ T[:3, :3].T + T[:3, 3]
                gap = _triangle_gap(tris[fa], moved)
                assert gap < 1e-9, f"pose {k}: pair {(fa, fb)} differs with gap {gap}"
    assert ours_any.sum() > 100 and (~ours_any).sum() > 100  # both outcomes exercised
    assert mismatches <= 5


def _triangle_gap(p, q):
    """Distance between two triangles by dense sampling of barycentric grids (small)."""
    w = np.array([(i, j) for i in range(11) for j in range(11 - i)]) / 10.0
    bary = np.column_stack([1 - w.sum(1), w])
    a, b = bary @ p, bary @ q
    return float(np.sqrt(((a[:, None] - b[None]) ** 2).sum(-1)).min())


def test_any_mode_matches_all_mode_and_many_matches_single(small):
    mesh = small["obb"]
    placements = poses(40, 4, reach=2.5)
    many_any = mesh.intersect_many(mesh, placements)
    many_all = mesh.intersect_many(mesh, placements, mode="all")
    for k, T in enumerate(placements):
        single = mesh.intersect(mesh, T, mode="all")
        assert mesh.intersect(mesh, T) == (single.shape[1] > 0) == many_any[k]
        np.testing.assert_array_equal(many_all[1:, many_all[0] == k], single)


@pytest.mark.parametrize("n_poses", [0, 1, 2, 3, 31, 64, 65, 127, 300, 1000])
@pytest.mark.parametrize("first_only", [True, False])
def test_parallel_many_poses_answer_every_pose_once(small, n_poses, first_only):
    """The parallel kernel deals chunks of poses to lanes, one per thread: every pose
    gets its own answer, equal to the serial kernel's, whatever the count of poses and
    threads (counts start at a sentinel, so a pose no lane walks shows); in `all` mode
    the lanes' pairs come back merged in the serial kernel's order."""
    mesh = small["obb"]
    placements = poses(n_poses, 11, reach=2.5)
    rots, transes, _ = v.as_transforms(placements)
    expected = np.full(n_poses, -7, np.intp)
    faces = (mesh.bvh.prim_order, mesh.bvh.prim_order)
    walk = mesh._walk_args()
    serial = _collide_many.collide_many_serial(
        *walk, *walk, rots, transes, first_only, expected, *faces
    )
    assert (expected >= 0).all()
    threads = numba.get_num_threads()
    try:
        for n_threads in sorted({1, 2, threads}):
            if n_threads > threads:
                continue
            numba.set_num_threads(n_threads)
            counts = np.full(n_poses, -7, np.intp)
            flat = _collide_many.collide_many(
                *walk, *walk, rots, transes, first_only, counts, *faces,
                n_threads,
            )  # fmt: skip
            np.testing.assert_array_equal(counts, expected)
            if not first_only:
                np.testing.assert_array_equal(flat, serial)
    finally:
        numba.set_num_threads(threads)
    if n_poses >= 64:
        assert 0 < (expected > 0).sum() < n_poses  # both outcomes among the poses
    if not first_only:  # faces, each pose's sorted: the single-pose answers stacked
        singles = [mesh.intersect(mesh, T, mode="all") for T in placements]
        want = np.concatenate(
            [np.vstack([np.full(s.shape[1], k), s]) for k, s in enumerate(singles)]
            or [np.empty((3, 0), np.intp)],
            axis=1,
        )
        np.testing.assert_array_equal(serial, want)


def test_contacts_lie_on_both_triangles(small):
    mesh = small["obb"]
    T = poses(1, 5, reach=0.5)[0]
    contacts = mesh.contacts(mesh, T)
    assert contacts.faces.shape[1] > 0
    assert contacts.segments.shape == (contacts.faces.shape[1], 2, 3)
    tris = mesh.triangles
    moved = tris @ T[:3, :3].T + T[:3, 3]
    for (fa, fb), seg in zip(contacts.faces.T, contacts.segments, strict=True):
        for point in seg:
            assert _point_triangle_distance(point, tris[fa]) < 1e-9
            assert _point_triangle_distance(point, moved[fb]) < 1e-9


def _point_triangle_distance(p, tri):
    w = np.array([(i, j) for i in range(41) for j in range(41 - i)]) / 40.0
    bary = np.column_stack([1 - w.sum(1), w])
    pts = bary @ tri
    # refine: distance to the plane within the triangle's sampled footprint
    n = np.cross(tri[1] - tri[0], tri[2] - tri[0])
    plane = abs(np.dot(p - tri[0], n)) / max(np.linalg.norm(n), 1e-300)
    sampled = np.sqrt(((pts - p) ** 2).sum(1)).min()
    return plane if sampled < 0.05 else sampled


def test_inside_option_reports_a_mesh_within_a_mesh():
    big = TriangleMesh.from_trimesh(
        trimesh.creation.icosphere(subdivisions=2, radius=2.0)
    )
    little = TriangleMesh.from_trimesh(
        trimesh.creation.icosphere(subdivisions=1, radius=0.5)
    )
    assert not big.intersect(little)  # surfaces never cross
    assert big.intersect(little, inside=True)
    assert little.intersect(big, inside=True)  # and the other way round
    far = np.eye(4)
    far[0, 3] = 5.0
    assert not big.intersect(little, far, inside=True)
    with pytest.raises(ValueError, match="inside=True needs mode='any'"):
        big.intersect(little, mode="all", inside=True)


def test_contains_points(sphere_mesh):
    rng = np.random.default_rng(6)
    d = rng.normal(size=(2000, 3))
    d /= np.linalg.norm(d, axis=1)[:, None]
    inner = d * rng.uniform(0, 0.9, (2000, 1))  # the icosphere holds the 0.9 ball
    outer = d * rng.uniform(1.01, 3, (2000, 1))
    assert sphere_mesh.contains(inner).all()
    assert not sphere_mesh.contains(outer).any()
    assert sphere_mesh.contains(sphere_mesh.vertices).all()  # on the surface counts
    assert sphere_mesh.contains([0.0, 0.0, 0.0]) is True


def test_raycast_matches_brute_force(small):
    rng = np.random.default_rng(8)
    origins = rng.uniform(-2, 2, (3000, 3))
    directions = rng.normal(size=(3000, 3))
    for mesh in small.values():
        expected = hb.triangle.raycast(mesh.triangles, origins, directions)
        got = mesh.raycast(origins, directions)
        np.testing.assert_array_equal(got.hit, expected.hit)
        np.testing.assert_array_equal(got.t, expected.t)
        np.testing.assert_array_equal(got.face, expected.face)
        anyhit = mesh.raycast(origins, directions, mode="any")
        np.testing.assert_array_equal(anyhit.hit, expected.hit)
        everything = mesh.raycast(origins, directions, mode="all")
        brute = hb.triangle.raycast(mesh.triangles, origins, directions, mode="all")
        np.testing.assert_array_equal(everything.ray, brute.ray)
        np.testing.assert_array_equal(everything.face, brute.face)
        np.testing.assert_array_equal(everything.t, brute.t)


def test_raycast_agrees_with_trimesh_embree():
    v, f = torus(200, 60)
    mesh = TriangleMesh(v, f)
    tm = trimesh.Trimesh(v, f, process=False)
    from trimesh.ray.ray_pyembree import RayMeshIntersector

    rng = np.random.default_rng(9)
    n = 100_000
    origins = rng.uniform(-2, 2, (n, 3))
    origins[:, 2] = 3.0
    directions = np.column_stack([rng.normal(0, 0.3, (n, 2)), -np.ones(n)])
    ours = mesh.raycast(origins, directions)
    faces, rays, locations = RayMeshIntersector(tm).intersects_id(
        origins, directions, multiple_hits=False, return_locations=True
    )
    theirs = np.full(n, -1)
    theirs[rays] = faces
    dist = np.full(n, np.inf)
    dist[rays] = np.linalg.norm(locations - origins[rays], axis=1) / np.linalg.norm(
        directions[rays], axis=1
    )
    both = ours.hit & (theirs >= 0)
    # float32 embree may disagree on grazing rays at silhouettes: a handful at most
    assert (ours.hit != (theirs >= 0)).sum() <= n * 1e-4
    np.testing.assert_allclose(ours.t[both], dist[both], rtol=1e-9)


def test_watertight_rays_through_vertices_and_edges(sphere_mesh):
    """Rays through vertices and edge midpoints must hit: from inside (every ray leaves
    through the surface) and from outside where the target faces the origin (silhouette
    grazes may legitimately miss, since a rounded midpoint can lie just outside)."""
    v, f = sphere_mesh.vertices, sphere_mesh.faces
    edges = np.unique(
        np.sort(np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]]), 1), axis=0
    )
    targets = np.concatenate([v, v[edges].mean(axis=1)])
    normals = targets / np.linalg.norm(targets, axis=1)[:, None]  # an icosphere about 0
    for origin in ([0.0, 0.0, 0.0], [0.1, -0.2, 0.05], [5.0, 0.3, 0.2], [-3.0, 4.0, 1.0]):
        directions = targets - np.array(origin)
        facing = np.einsum("ij,ij->i", normals, directions) / np.linalg.norm(
            directions, axis=1
        )
        must = (np.linalg.norm(origin) < 1) | (facing < -0.2)
        hits = sphere_mesh.raycast(np.broadcast_to(origin, targets.shape), directions)
        assert must.sum() > 100
        assert hits.hit[must].all()
        brute = hb.triangle.raycast(
            sphere_mesh.triangles, np.broadcast_to(origin, targets.shape), directions
        )
        np.testing.assert_array_equal(hits.hit, brute.hit)


def test_save_load_round_trip(tmp_path, small):
    mesh = small["obb"]
    path = tmp_path / "torus.npz"
    mesh.save(path)
    loaded = TriangleMesh.load(path)
    np.testing.assert_array_equal(loaded.vertices, mesh.vertices)
    for T in poses(5, 10, reach=2.0):
        np.testing.assert_array_equal(
            loaded.intersect(mesh, T, mode="all"), mesh.intersect(mesh, T, mode="all")
        )


def test_empty_and_degenerate_meshes():
    empty = TriangleMesh(np.zeros((0, 3)), np.zeros((0, 3), int))
    v, f = torus(8, 4)
    mesh = TriangleMesh(v, f)
    assert not empty.intersect(mesh) and not mesh.intersect(empty)
    assert empty.intersect(mesh, mode="all").shape == (2, 0)
    assert mesh.intersect_many(empty, poses(3, 1)).tolist() == [False] * 3
    hits = empty.raycast([[0.0, 0, 5]], [[0.0, 0, -1]])
    assert not hits.hit[0] and hits.face[0] == -1 and hits.t[0] == np.inf
    flat = TriangleMesh([[0.0, 0, 0], [1, 0, 0], [2, 0, 0]], [[0, 1, 2]])  # zero area
    seg = TriangleMesh([[0.5, -1, 0], [0.5, 1, 0], [0.5, 0, 0]], [[0, 1, 2]])
    assert flat.intersect(seg)


def test_bad_input_is_rejected(small):
    mesh = small["obb"]
    with pytest.raises(ValueError, match="rigid"):
        mesh.intersect(mesh, np.diag([2.0, 1, 1, 1]))
    with pytest.raises(ValueError, match="4x4"):
        mesh.intersect(mesh, np.eye(3))
    with pytest.raises(ValueError, match="rigid"):
        mesh.intersect_many(mesh, np.diag([1.0, 1, -1, 1])[None])
    with pytest.raises(ValueError, match="faces"):
        TriangleMesh(np.zeros((3, 3)), [[0, 1, 3]])
    with pytest.raises(TypeError, match="faces must be integers"):
        TriangleMesh(np.zeros((3, 3)), [[0, 1, 1.5]])
    with pytest.raises(ValueError, match="not finite"):
        TriangleMesh([[0, 0, np.nan], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]])
    with pytest.raises(ValueError, match="mode"):
        mesh.intersect(mesh, mode="first")
    with pytest.raises(TypeError, match="TriangleMesh"):
        mesh.intersect("mesh")


@pytest.mark.parametrize("kind_a, kind_b", [("obb", "sphere"), ("aabb", "kdop18")])
def test_meshes_of_different_node_kinds_meet(kind_a, kind_b):
    """A mesh of one node kind against one of another: the other gets a tree of the
    first's kind, built once and kept; answers equal brute force in every mode."""
    rng = np.random.default_rng(2)
    a = TriangleMesh(*torus_mesh(300), node=kind_a)
    b = TriangleMesh(*torus_mesh(200, r_major=0.7, r_minor=0.2), node=kind_b)
    poses = []
    for reach in rng.uniform(0.0, 2.5, 12):
        pose = np.eye(4)
        pose[:3, :3] = rotation(rng)
        pose[:3, 3] = rng.normal(size=3) * reach / np.sqrt(3)
        poses.append(pose)
        want = a.intersect_brute(b, pose)
        np.testing.assert_array_equal(a.intersect(b, pose, mode="all"), want)
        assert a.intersect(b, pose) == (want.shape[1] > 0)
    many = a.intersect_many(b, np.stack(poses))
    assert many.tolist() == [a.intersect(b, p) for p in poses]
    assert b.bvh.kind == kind_b and set(b._kinds) == {kind_a}


def test_deformed_mesh_refits_and_answers_like_a_rebuild(small):
    mesh = small["obb"]
    rng = np.random.default_rng(11)
    moved = mesh.vertices * [1.0, 1.3, 0.8] + rng.normal(0, 0.01, mesh.vertices.shape)
    bent = mesh.deformed(moved)
    bent.bvh.validate(moved[mesh.faces])
    rebuilt = TriangleMesh(moved, mesh.faces)
    for T in poses(8, 12, reach=2.5):
        np.testing.assert_array_equal(
            bent.intersect(rebuilt, T, mode="all"),
            rebuilt.intersect(rebuilt, T, mode="all"),
        )
    with pytest.raises(ValueError, match="keep the mesh"):
        mesh.deformed(np.concatenate([moved, moved[:1]]))  # one vertex too many
    with pytest.raises(ValueError, match="keep the mesh"):
        mesh.deformed(moved[:-1])  # too few: named as such, not as faces past the end
    with pytest.raises(ValueError, match="keep the mesh"):
        mesh.deformed(moved[:-1].tolist())


@pytest.mark.parametrize("kind", ("aabb", "kdop18", "obb", "sphere"))
def test_node_magnitude_bounds_every_node_not_only_the_root(small, kind):
    """The per-query slack of turned node tests rests on this bound, so it is taken over
    every node: a tree passed in need not nest its volumes (here the root is shrunk to a
    point at the origin, and the bound must still cover the largest child)."""
    from hitbox._kernels.collide import node_magnitude

    table = small[kind].bvh.node_bv
    if kind == "sphere":
        assert node_magnitude(table) == 0.0  # the sphere test needs none
        return
    if kind == "obb":
        centre, half = table.center, table.half
    else:
        lo, hi = table[:, 0, :3], table[:, 1, :3]
        centre, half = (lo + hi) / 2, (hi - lo) / 2
    per_node = [np.abs(c).sum() + h.sum() for c, h in zip(centre, half, strict=True)]
    assert node_magnitude(table) == pytest.approx(max(per_node), rel=1e-15)
    if kind == "obb":
        shrunk = table._replace(center=table.center.copy(), half=table.half.copy())
        shrunk.center[0], shrunk.half[0] = 0.0, 0.0
        empty = table._replace(half=table.half.copy())
        empty.half[1] = -1.0  # an empty node: left out
        nonfinite = table._replace(center=table.center.copy())
        nonfinite.center[2, 0] = np.inf
    else:
        shrunk = np.array(table)
        shrunk[0] = 0.0
        empty = np.array(table)
        empty[1, 0], empty[1, 1] = 1e300, -1e300
        nonfinite = np.array(table)
        nonfinite[2, 1, 0] = np.inf
    assert node_magnitude(shrunk) == pytest.approx(max(per_node[1:]), rel=1e-15)
    assert node_magnitude(empty) == pytest.approx(
        max(per_node[:1] + per_node[2:]), rel=1e-15
    )
    assert node_magnitude(nonfinite) == np.inf


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), scale=st.sampled_from([1e-6, 1.0, 1e3, 1e7]))
def test_query_slack_covers_the_per_pair_rounding_bound(seed, scale):
    """One slack per query (query_slack, from both trees' node_magnitude) is at least
    the bound each turned node test summed for itself: boxes (slab trees) and OBBs, off
    the origin, under rotations off orthonormal by up to the accepted 1e-6."""
    from hitbox._kernels.collide import REL_EPS, query_slack

    rng = np.random.default_rng(seed)
    rot = rotation(rng) * (1.0 + rng.uniform(-1e-6, 1e-6, size=(3, 3)))
    trans = rng.normal(size=3) * scale * rng.uniform(0, 10)
    ca, cb = rng.normal(size=(2, 3)) * scale * rng.uniform(0, 10, size=(2, 1))
    ha, hb = rng.uniform(0, 1, size=(2, 3)) * scale
    a_mag, b_mag = np.abs(ca).sum() + ha.sum(), np.abs(cb).sum() + hb.sum()
    slack = query_slack.py_func(trans, a_mag, b_mag)
    d = trans + rot @ cb - ca
    mag = np.abs(trans).sum() + np.abs(cb).sum() + np.abs(ca).sum()
    # the box test summed |d| once, the OBB test twice (d: the offset in a's model frame)
    assert slack >= REL_EPS * (ha.sum() + hb.sum() + np.abs(d).sum() + mag)
    assert slack >= REL_EPS * (ha.sum() + hb.sum() + 2 * np.abs(d).sum() + mag)


@pytest.mark.parametrize("node", ["obb", "aabb", "sphere"])
def test_many_poses_inside_equal_single_poses(node):
    """intersect_many(inside=True) decides containment for every placement as
    intersect(inside=True) does one at a time: nested, crossing and apart, both ways."""
    big = hb.shapes.icosphere(2.0, 2, node=node)
    little = hb.shapes.torus(300, 0.4, 0.15, node="obb")
    rng = np.random.default_rng(4)
    poses = np.tile(np.eye(4), (90, 1, 1))
    poses[:, :3, 3] = rng.normal(size=(90, 3)) * rng.uniform(0.0, 3.0, (90, 1))
    for a, b, placements in ((big, little, poses), (little, big, np.linalg.inv(poses))):
        many = a.intersect_many(b, placements, inside=True)
        single = [a.intersect(b, T, inside=True) for T in placements]
        surface = a.intersect_many(b, placements)
        np.testing.assert_array_equal(many, single)
        assert (many & ~surface).any() and (~many).any() and surface.any()
    with pytest.raises(ValueError, match="inside=True needs mode='any'"):
        big.intersect_many(little, poses, mode="all", inside=True)
    assert not big.intersect_many(little, poses[:0], inside=True).size


@pytest.mark.parametrize("node", ["obb", "aabb", "sphere", "kdop18"])
@pytest.mark.parametrize("scale", [2.5, 0.01, (1.0, 2.0, 0.5)])
def test_scaled_instances_keep_the_topology_and_answer_exactly(node, scale):
    mesh = hb.shapes.torus(600, node=node)
    big = mesh.scaled(scale)
    assert big.bvh.node_first is mesh.bvh.node_first  # the topology is shared
    np.testing.assert_array_equal(big.vertices, mesh.vertices * np.asarray(scale))
    big.bvh.validate(big.triangles)
    fresh = TriangleMesh(big.vertices, big.faces, node=node)
    for T in poses(12, 9, reach=3.0 * np.max(scale)):
        np.testing.assert_array_equal(
            big.intersect(mesh, T, mode="all"), fresh.intersect(mesh, T, mode="all")
        )


@pytest.mark.parametrize(
    "scale, error", [(0.0, ValueError), (-1.0, ValueError), ((1.0, 2.0), ValueError),
                     (np.nan, ValueError), ("big", TypeError)]
)  # fmt: skip
def test_bad_scales_are_refused(scale, error):
    with pytest.raises(error, match="scale"):
        hb.shapes.box().scaled(scale)
