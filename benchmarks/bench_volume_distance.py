"""Batched bounding-volume distances against python-fcl and Coal (issue: distance and
proximity).

    python -m benchmarks.run volume_distance [--quick]

Scenes (seeded): 10^5 OBB-OBB pairs and 10^5 sphere-OBB pairs, boxes and balls about 1
across with centres in a cube of side 4 (about 15 % of the pairs overlap), and 10^5
18-DOP-OBB pairs (k-DOPs fitted to 10 random points). hitbox answers every pair in one
call (:func:`hitbox.volume_distance.distance`); python-fcl (``fcl.distance``, both GJK
solvers timed, the faster reported) and Coal (``coal.distance``) answer one pair per
Python call, over a subset with geometry and transforms built before the clock starts;
their time is scaled per query. Each row: microseconds a query, the ratio to each peer,
and the largest distance difference on the subset. The k-DOP row has Coal only: its
k-DOP is a ``coal.Convex`` of the k-DOP's vertices (scipy's hull).
"""

import numpy as np

from benchmarks.timing import measure
from hitbox import OBBs, Spheres, kdop
from hitbox import volume_distance as vd

REPEATS = 3


def run(quick=False):
    import coal
    import fcl

    rng = np.random.default_rng(0)
    n = 10**4 if quick else 10**5
    subset = 1_000 if quick else 10_000
    a, b = _obbs(rng, n), _obbs(rng, n)
    s = Spheres(rng.uniform(0, 4, (n, 3)), rng.uniform(0.1, 1.0, n))
    pts = rng.normal(size=(n, 10, 3)) * 0.5 + rng.uniform(0, 4, (n, 1, 3))
    kd = kdop.fit(pts, 18)
    rows = []
    box_a = [fcl.Box(*(2 * a.half[m])) for m in range(subset)]
    box_b = [fcl.Box(*(2 * b.half[m])) for m in range(subset)]
    obj_b = [fcl.CollisionObject(box_b[m], fcl.Transform(b.rot[m], b.center[m]))
             for m in range(subset)]  # fmt: skip
    obj_a = [fcl.CollisionObject(box_a[m], fcl.Transform(a.rot[m], a.center[m]))
             for m in range(subset)]  # fmt: skip
    obj_s = [fcl.CollisionObject(fcl.Sphere(s.radius[m]), fcl.Transform(s.center[m]))
             for m in range(subset)]  # fmt: skip
    tf_b = [coal.Transform3s(b.rot[m], b.center[m]) for m in range(subset)]
    cb = [coal.Box(*(2 * b.half[m])) for m in range(subset)]
    ca = [(coal.Box(*(2 * a.half[m])), coal.Transform3s(a.rot[m], a.center[m]))
          for m in range(subset)]  # fmt: skip
    cs = [(coal.Sphere(s.radius[m]), coal.Transform3s(np.eye(3), s.center[m]))
          for m in range(subset)]  # fmt: skip
    rows.append(_row(fcl, coal, "obb-obb", a, b, obj_a, obj_b, ca, cb, tf_b))
    rows.append(_row(fcl, coal, "sphere-obb", s, b, obj_s, obj_b, cs, cb, tf_b))
    sub = min(subset, 2_000)
    ck = [(_convex(coal, v), coal.Transform3s()) for v in kdop.vertices(kd[:sub])]
    rows.append(_row(None, coal, "kdop18-obb", kd, b, None, None, ck, cb[:sub],
                     tf_b[:sub]))  # fmt: skip
    return rows


def _obbs(rng, n):
    q, r = np.linalg.qr(rng.normal(size=(n, 3, 3)))
    q = q * np.sign(np.diagonal(r, axis1=1, axis2=2))[:, None, :]
    q[np.linalg.det(q) < 0, :, 0] *= -1.0
    return OBBs(rng.uniform(0, 4, (n, 3)), rng.uniform(0.1, 1.0, (n, 3)), q)


def _convex(coal, verts):
    from scipy.spatial import ConvexHull

    # only the hull's own vertices: Coal walks the triangles' vertex graph for support
    # points, and a vertex outside every triangle (a k-DOP vertex met by more than three
    # planes is listed more than once) stalls that walk at a wrong answer
    hull = ConvexHull(verts)
    index = np.full(len(verts), -1)
    index[hull.vertices] = np.arange(len(hull.vertices))
    vs, tris = coal.StdVec_Vec3s(), coal.StdVec_Triangle()
    for v in verts[hull.vertices]:
        vs.append(v)
    for f in index[hull.simplices]:
        tris.append(coal.Triangle(int(f[0]), int(f[1]), int(f[2])))
    return coal.Convex(vs, tris)


def _row(fcl, coal, name, a, b, fa, fb, ca, cb, tf_b):
    subset = len(ca)
    n = len(b.center)
    t_ours = measure(lambda: vd.distance(a, b), REPEATS, warmup=1)[0]
    ours = vd.distance(a, b).distance[:subset]
    creq = coal.DistanceRequest()

    def coal_loop():
        return [coal.distance(ca[m][0], ca[m][1], cb[m], tf_b[m], creq,
                              coal.DistanceResult()) for m in range(subset)]  # fmt: skip

    t_coal = measure(coal_loop, 1, warmup=1)[0] / subset
    d_coal = np.maximum(np.array(coal_loop()), 0.0)
    row = {"bench": name, "pairs": n, "peer_subset": subset,
           "overlapping": float((ours == 0).mean()),
           "us_per_query": 1e6 * t_ours / n, "coal_us": 1e6 * t_coal,
           "speedup_vs_coal": t_coal / (t_ours / n),
           "max_diff_vs_coal": float(np.abs(ours - d_coal).max())}  # fmt: skip
    if fcl is None:
        return row
    best, d_fcl = np.inf, None
    for solver in (fcl.GJKSolverType.GST_LIBCCD, fcl.GJKSolverType.GST_INDEP):
        req = fcl.DistanceRequest(gjk_solver_type=solver)

        def fcl_loop(req=req):
            return [fcl.distance(fa[m], fb[m], req, fcl.DistanceResult())
                    for m in range(subset)]  # fmt: skip

        t = measure(fcl_loop, 1, warmup=1)[0] / subset
        if t < best:
            best, d_fcl = t, np.maximum(np.array(fcl_loop()), 0.0)
    row.update({"fcl_us": 1e6 * best, "speedup_vs_fcl": best / (t_ours / n),
                "max_diff_vs_fcl": float(np.abs(ours - d_fcl).max())})  # fmt: skip
    return row
