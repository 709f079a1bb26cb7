"""Batched primitive and convex pairs against a Python loop over Coal (issue 29).

    python -m benchmarks.run convex [--quick]

Scenes (seeded): 10^6 capsule-capsule pairs and 10^5 pairs of 32-vertex hulls (100
shapes, each pair at its own random pose), about half of them overlapping. hitbox
answers every pair in one call (:func:`hitbox.convex.distance`, ``intersects``); Coal
answers one pair per Python call (``coal.distance`` and ``coal.collide``, which pick its
closed form for capsules and GJK for ``coal.Convex``, with ``gjk_tolerance`` 1e-12), over
a subset of the pairs with its geometry and transforms built before the clock starts;
its time is scaled per query. Each row: microseconds a query, the ratio, and the largest
distance difference on the subset (and disagreements on overlap).

Mesh against shapes: 10^4 capsules (random poses over a 5,000-triangle torus, about a
tenth touching) in one call (``TriangleMesh.intersect_shapes``) against a Python loop of
``coal.collide`` of the mesh (the faster of ``BVHModelOBBRSS`` and ``BVHModelOBB``) and
each capsule; disagreements reported.

Penetration: 10^4 overlapping box pairs and 2,000 overlapping hull pairs; depth and
normal against the exact value (the least of h_A(u) + h_B(-u) over every face normal and
edge-pair cross product, ``tests/oracles_convex.polytope_depth``) on a subset, beside
Coal's EPA (``enable_contact``, ``epa_tolerance`` 1e-12) on the same subset.
"""

import time

import numpy as np

from benchmarks.timing import measure
from hitbox import convex as cx

REPEATS = 3


def run(quick=False):
    import coal

    rng = np.random.default_rng(0)
    rows = []
    n_caps, n_hull = (10**5, 10**4) if quick else (10**6, 10**5)
    subset = 2_000 if quick else 20_000
    rows += _capsules(coal, rng, n_caps, subset)
    rows += _hulls(coal, rng, n_hull, subset)
    rows += _penetration(coal, rng, quick)
    rows += _mesh_shapes(coal, rng, 2_000 if quick else 10_000)
    return rows


def _best_of(fn, repeats=REPEATS):
    """Least seconds of ``repeats`` calls (timing.measure, 1 untimed first)."""
    return measure(fn, repeats, warmup=1)[0]


def _rotations(rng, n):
    q = rng.normal(size=(n, 4))
    from hitbox import poses

    return poses.from_quaternions(np.zeros((n, 3)), q)[:, :3, :3]


def _capsules(coal, rng, n, subset):
    rot_a, rot_b = _rotations(rng, n), _rotations(rng, n)
    ca, cb = rng.uniform(-2, 2, (n, 3)), rng.uniform(-2, 2, (n, 3))
    ha, hb = rng.uniform(0.1, 1, n), rng.uniform(0.1, 1, n)
    ra, rb = rng.uniform(0.1, 0.6, n), rng.uniform(0.1, 0.6, n)
    a = cx.capsule(
        ca - ha[:, None] * rot_a[:, :, 2], ca + ha[:, None] * rot_a[:, :, 2], ra
    )
    b = cx.capsule(
        cb - hb[:, None] * rot_b[:, :, 2], cb + hb[:, None] * rot_b[:, :, 2], rb
    )
    # Coal's capsules lie along their local z: the frames of our shapes place them alike
    geoms_a = [coal.Capsule(ra[k], 2 * ha[k]) for k in range(subset)]
    geoms_b = [coal.Capsule(rb[k], 2 * hb[k]) for k in range(subset)]
    tf_a = [coal.Transform3s(a.rot[k], a.trans[k]) for k in range(subset)]
    tf_b = [coal.Transform3s(b.rot[k], b.trans[k]) for k in range(subset)]
    return _compare(coal, "capsule-capsule", n, a, b, geoms_a, tf_a, geoms_b, tf_b)


def _hull_points(rng, count=32):
    """32 points on a random ellipsoid: every one a vertex of their hull."""
    u = rng.normal(size=(count, 3))
    u /= np.linalg.norm(u, axis=1)[:, None]
    return u * rng.uniform(0.4, 1.0, 3)


def _take(shapes, idx):
    return cx.Shapes(
        *(np.ascontiguousarray(f[idx]) for f in shapes[:-1]), shapes.vertices
    )


def _convex(coal, verts):
    from scipy.spatial import ConvexHull

    vs, tris = coal.StdVec_Vec3s(), coal.StdVec_Triangle()
    for v in verts:
        vs.append(v)
    for f in ConvexHull(verts).simplices:
        tris.append(coal.Triangle(int(f[0]), int(f[1]), int(f[2])))
    return coal.Convex(vs, tris)


def _hull_scene(rng, n, n_base=100, spread=1.5):
    points = [_hull_points(rng) for _ in range(n_base)]
    base = cx.hull(points)
    assert (base.count == 32).all()
    ia, ib = rng.integers(0, n_base, n), rng.integers(0, n_base, n)
    pose_a = np.zeros((n, 4, 4))
    pose_b = np.zeros((n, 4, 4))
    for pose in (pose_a, pose_b):
        pose[:, :3, :3] = _rotations(rng, n)
        pose[:, :3, 3] = rng.uniform(-spread, spread, (n, 3))
        pose[:, 3, 3] = 1.0
    a = cx.transform(_take(base, ia), pose_a)
    b = cx.transform(_take(base, ib), pose_b)
    return points, base, ia, ib, a, b


def _hulls(coal, rng, n, subset):
    points, base, ia, ib, a, b = _hull_scene(rng, n)
    # Coal's convex in the same local frame as ours: vertices about the hull's centre
    local = [
        base.vertices[base.first[m] : base.first[m] + 32] for m in range(len(points))
    ]
    geoms = [_convex(coal, v) for v in local]
    tf_a = [coal.Transform3s(a.rot[k], a.trans[k]) for k in range(subset)]
    tf_b = [coal.Transform3s(b.rot[k], b.trans[k]) for k in range(subset)]
    ga = [geoms[ia[k]] for k in range(subset)]
    gb = [geoms[ib[k]] for k in range(subset)]
    return _compare(coal, "convex-convex (32-vertex hulls)", n, a, b, ga, tf_a, gb, tf_b)


def _compare(coal, name, n, a, b, ga, tf_a, gb, tf_b):
    subset = len(ga)
    req = coal.DistanceRequest()
    req.gjk_tolerance = 1e-12
    creq = coal.CollisionRequest()
    creq.gjk_tolerance = 1e-12

    def coal_distance():
        return [coal.distance(ga[k], tf_a[k], gb[k], tf_b[k], req, coal.DistanceResult())
                for k in range(subset)]  # fmt: skip

    def coal_collide():
        return [coal.collide(ga[k], tf_a[k], gb[k], tf_b[k], creq, coal.CollisionResult())
                for k in range(subset)]  # fmt: skip

    t_dist = _best_of(lambda: cx.distance(a, b))
    t_hit = _best_of(lambda: cx.intersects(a, b))
    t_coal_dist = _best_of(coal_distance, 1) / subset
    t_coal_hit = _best_of(coal_collide, 1) / subset
    ours = cx.distance(a, b).distance[:subset]
    theirs = np.maximum(np.array(coal_distance()), 0.0)
    sep = (ours > 0) & (theirs > 0)
    diff = float(np.abs(ours[sep] - theirs[sep]).max())
    hit = cx.intersects(a, b)
    coal_hit = np.array(coal_collide()) > 0
    both = {"pairs": n, "coal_subset": subset, "overlapping": float(hit.mean())}
    return [
        {"bench": name, "query": "distance", **both,
         "us_per_query": 1e6 * t_dist / n, "coal_us_per_query": 1e6 * t_coal_dist,
         "speedup_vs_coal": t_coal_dist / (t_dist / n), "max_abs_diff_vs_coal": diff},
        {"bench": name, "query": "intersects", **both,
         "us_per_query": 1e6 * t_hit / n, "coal_us_per_query": 1e6 * t_coal_hit,
         "speedup_vs_coal": t_coal_hit / (t_hit / n),
         "overlap_disagreements_vs_coal": int((hit[:subset] != coal_hit).sum())},
    ]  # fmt: skip


def _penetration(coal, rng, quick):
    from tests import oracles_convex as oc

    rows = []
    n_box, n_hull = (2_000, 500) if quick else (10_000, 2_000)
    check = 100 if quick else 300
    # boxes: centres within reach so that most pairs overlap
    half_a, half_b = rng.uniform(0.2, 1, (n_box, 3)), rng.uniform(0.2, 1, (n_box, 3))
    rot_a, rot_b = _rotations(rng, n_box), _rotations(rng, n_box)
    ca, cb = rng.uniform(-0.5, 0.5, (n_box, 3)), rng.uniform(-0.5, 0.5, (n_box, 3))
    a, b = cx.box(ca, half_a, rot_a), cx.box(cb, half_b, rot_b)
    exact = [oc.polytope_depth(oc.box_vertices(ca[k], half_a[k], rot_a[k]),
                               oc.box_vertices(cb[k], half_b[k], rot_b[k]))
             for k in range(check)]  # fmt: skip
    geoms = [(coal.Box(*(2 * half_a[k])), coal.Transform3s(rot_a[k], ca[k]),
              coal.Box(*(2 * half_b[k])), coal.Transform3s(rot_b[k], cb[k]))
             for k in range(check)]  # fmt: skip
    rows.append(_pen_row(coal, "box-box", a, b, exact, geoms))
    points, base, ia, ib, a, b = _hull_scene(rng, n_hull, spread=0.4)
    verts_a = [
        base.vertices[base.first[m] : base.first[m] + 32] for m in range(len(points))
    ]
    geoms_base = [_convex(coal, v) for v in verts_a]
    exact, geoms = [], []
    for k in range(check):
        wa = verts_a[ia[k]] @ a.rot[k].T + a.trans[k]
        wb = verts_a[ib[k]] @ b.rot[k].T + b.trans[k]
        exact.append(oc.polytope_depth(wa, wb))
        geoms.append((geoms_base[ia[k]], coal.Transform3s(a.rot[k], a.trans[k]),
                      geoms_base[ib[k]], coal.Transform3s(b.rot[k], b.trans[k])))  # fmt: skip
    rows.append(_pen_row(coal, "convex-convex (32-vertex hulls)", a, b, exact, geoms))
    return rows


def _pen_row(coal, name, a, b, exact, geoms):
    n, check = len(a.kind), len(exact)
    t = _best_of(lambda: cx.penetration(a, b))
    pen = cx.penetration(a, b)
    depth = np.array([e[0] for e in exact])
    normal = np.array([e[1] for e in exact])
    over = depth > 1e-9
    creq = coal.CollisionRequest()
    creq.enable_contact = True
    creq.gjk_tolerance = 1e-12
    creq.epa_tolerance = 1e-12
    coal_depth = np.full(check, np.nan)
    coal_normal = np.full((check, 3), np.nan)
    t0 = time.perf_counter()
    for k, (g1, t1, g2, t2) in enumerate(geoms):
        res = coal.CollisionResult()
        if coal.collide(g1, t1, g2, t2, creq, res):
            c = res.getContact(0)
            coal_depth[k] = -c.penetration_depth
            coal_normal[k] = c.normal
    t_coal = (time.perf_counter() - t0) / check
    ok = over & np.isfinite(coal_depth)
    return {
        "bench": name, "query": "penetration", "pairs": n, "exact_subset": check,
        "overlapping": float(pen.hit.mean()) if hasattr(pen, "hit") else float(
            (pen.depth >= 0).mean()),
        "us_per_query": 1e6 * t / n, "coal_us_per_query": 1e6 * t_coal,
        "speedup_vs_coal": t_coal / (t / n),
        "max_depth_err": float(np.abs(pen.depth[:check][over] - depth[over]).max()),
        "max_normal_err": float(np.abs(pen.normal[:check][over] - normal[over]).max()),
        "coal_max_depth_err": float(np.abs(coal_depth[ok] - depth[ok]).max()),
        "coal_max_normal_err": float(np.abs(coal_normal[ok] - normal[ok]).max()),
        "coal_missed_overlaps": int((over & ~np.isfinite(coal_depth)).sum()),
    }  # fmt: skip


def _coal_mesh(coal, mesh, kind):
    model = getattr(coal, kind)()
    model.beginModel(len(mesh.faces), len(mesh.vertices))
    model.addVertices(np.asarray(mesh.vertices, float))
    model.addTriangles(np.asarray(mesh.faces, np.int64))
    model.endModel()
    return model


def _mesh_shapes(coal, rng, n):
    from hitbox import shapes

    torus = shapes.torus(5_000)
    centre = rng.uniform(-1.6, 1.6, (n, 3))
    rot = _rotations(rng, n)
    half, radius = rng.uniform(0.05, 0.2, n), rng.uniform(0.02, 0.1, n)
    axis = rot[:, :, 2] * half[:, None]
    caps = cx.capsule(centre - axis, centre + axis, radius)
    t_ours = _best_of(lambda: torus.intersect_shapes(caps))
    ours = torus.intersect_shapes(caps)
    geoms = [coal.Capsule(radius[k], 2 * half[k]) for k in range(n)]
    tfs = [coal.Transform3s(rot[k], centre[k]) for k in range(n)]
    best, theirs = np.inf, None
    for kind in ("BVHModelOBBRSS", "BVHModelOBB"):
        model, ident = _coal_mesh(coal, torus, kind), coal.Transform3s()
        req = coal.CollisionRequest()

        def loop(model=model, ident=ident, req=req):
            return [coal.collide(model, ident, geoms[k], tfs[k], req,
                                 coal.CollisionResult()) > 0 for k in range(n)]  # fmt: skip

        t = _best_of(loop, 1)
        if t < best:
            best, theirs = t, np.array(loop())
    return [
        {"bench": "torus 5k vs capsules", "query": "intersect_shapes", "pairs": n,
         "coal_subset": n, "overlapping": float(ours.mean()),
         "us_per_query": 1e6 * t_ours / n, "coal_us_per_query": 1e6 * best / n,
         "speedup_vs_coal": best / t_ours,
         "overlap_disagreements_vs_coal": int((ours != theirs).sum())},
    ]  # fmt: skip
