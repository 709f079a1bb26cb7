"""Point queries on a triangle mesh: closest point and contains, against their peers.

Meshes: the seed's torus (R = 1, r = 0.3) of 500,000 triangles, a bumpy sphere (a
trimesh icosphere of 81,920 triangles, displaced radially by a smooth pattern), and two
real meshes from ``benchmarks/data``: fandisk (5,750 triangles, closed) and the bunny
(16,301 triangles, open: its contains is the winding-number rule, where ray parity, as
the peers use it, is undefined). Point sets of 200,000, seeded:

``uniform``
    uniform in the mesh's bounding box enlarged by 10 %.
``near``
    on random triangles (uniform barycentrics), moved along the face normal by
    N(0, 1e-3 x the box diagonal).

Peers, each if importable: trimesh (``nearest.on_surface`` on a 2,000-point subset, as
it is slow; ``Trimesh.contains`` through embreex), Open3D's ``RaycastingScene``
(``compute_closest_points``, ``compute_occupancy``; float32), fcpw (float32) and libigl
(``signed_distance`` unsigned, ``fast_winding_number`` >= 1/2). Structures are built
before timing. Every implementation runs once to warm up (and compile), then
``repeats`` times in turn, so a load change hits them alike; rows give min and median
seconds, the first call's seconds (``first_call_s``: it builds what each builds lazily,
hitbox's contains grid and Open3D's Embree scene among them), points per second from
the min, ``vs_hitbox`` (this row's points/s over
hitbox's), ``max_err`` (closest: the largest |distance - hitbox's float64 distance|;
contains: the fraction of points whose answer differs from hitbox's), and on hitbox's
rows ``vs_fastest_peer`` (hitbox's points/s over the fastest peer's).

Run alone: ``python -m benchmarks.bench_points [--quick]``.
"""

import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.timing import environment, torus_arrays

TRIMESH_SUBSET = 2_000


def run(quick=False):
    """Both meshes, both point sets, both queries; one dict per (mesh, points, query, impl)."""
    import trimesh

    repeats = 2 if quick else 3
    n_points = 10_000 if quick else 200_000
    meshes = {
        "torus": torus_arrays(20_000 if quick else 500_000, 1.0, 0.3),
        "bumpy_sphere": _bumpy_sphere(trimesh, 4 if quick else 6),
        **{name: _real(trimesh, file) for name, file in REAL_MESHES.items()},
    }
    rows = []
    for name, (verts, faces) in meshes.items():
        rows += _bench_mesh(name, verts, faces, n_points, repeats)
    info = environment()
    for row in rows:
        row.update(info)
    return rows


REAL_MESHES = {"fandisk": "fandisk.obj", "bunny": "bunny.ply"}


def _real(trimesh, file):
    path = Path(__file__).parent / "data" / file
    mesh = trimesh.load(path, force="mesh", process=False)
    return np.asarray(mesh.vertices, np.float64), np.asarray(mesh.faces, np.int64)


def _bumpy_sphere(trimesh, subdivisions):
    sphere = trimesh.creation.icosphere(subdivisions=subdivisions)
    v = np.asarray(sphere.vertices)
    bump = 1 + 0.1 * np.sin(5 * v[:, 0]) * np.sin(4 * v[:, 1]) * np.sin(3 * v[:, 2] + 1)
    return v * bump[:, None], np.asarray(sphere.faces)


def point_sets(verts, faces, n, seed=0):
    """(uniform, near) point sets of n points each."""
    rng = np.random.default_rng(seed)
    lo, hi = verts.min(axis=0), verts.max(axis=0)
    pad = 0.05 * (hi - lo)
    uniform = rng.uniform(lo - pad, hi + pad, (n, 3))
    tris = verts[faces[rng.integers(0, len(faces), n)]]
    w = rng.dirichlet(np.ones(3), n)
    base = np.einsum("pk,pkd->pd", w, tris)
    normal = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
    normal /= np.linalg.norm(normal, axis=1)[:, None]
    sigma = 1e-3 * np.linalg.norm(hi - lo)
    near = base + normal * rng.normal(0, sigma, (n, 1))
    return {"uniform": uniform, "near": near}


# -- peers: each returns {query: (fn(points) -> answer, n_points_cap)} or {} -----------


def _trimesh_peer(verts, faces):
    import trimesh

    tm = trimesh.Trimesh(verts, faces, process=False)
    out = {"contains": (tm.contains, None)}
    try:
        import rtree  # noqa: F401  (trimesh's nearest needs it)

        out["closest"] = (lambda p: tm.nearest.on_surface(p)[1], TRIMESH_SUBSET)
    except ImportError:
        pass
    return out


def _open3d_peer(verts, faces):
    import open3d as o3d

    scene = o3d.t.geometry.RaycastingScene()
    scene.add_triangles(
        o3d.core.Tensor(verts.astype(np.float32)),
        o3d.core.Tensor(faces.astype(np.uint32)),
    )

    def closest(p):
        q = o3d.core.Tensor(p.astype(np.float32))
        c = scene.compute_closest_points(q)["points"].numpy()
        return np.linalg.norm(c.astype(np.float64) - p, axis=1)

    def contains(p):
        q = o3d.core.Tensor(p.astype(np.float32))
        return scene.compute_occupancy(q).numpy() > 0.5

    return {"closest": (closest, None), "contains": (contains, None)}


def _fcpw_peer(verts, faces):
    import fcpw

    scene = fcpw.scene_3D()
    scene.set_object_count(1)
    scene.set_object_vertices(np.asfortranarray(verts, np.float32), 0)
    scene.set_object_triangles(np.asfortranarray(faces, np.int32), 0)
    scene.build(fcpw.aggregate_type.bvh_surface_area, True)

    def closest(p):
        found = fcpw.interaction_3D_list()
        q = np.asfortranarray(p, np.float32)
        scene.find_closest_points(q, np.full(len(p), np.inf, np.float32), found)
        return found

    def contains(p):
        result = np.empty(len(p), np.int32)
        scene.contains(np.asfortranarray(p, np.float32), result)
        return result > 0

    return {"closest": (closest, None), "contains": (contains, None)}


def _fcpw_distances(found, points):
    return np.array([found[i].d for i in range(len(points))])


def _igl_peer(verts, faces):
    import igl

    v = np.ascontiguousarray(verts, np.float64)
    f = np.ascontiguousarray(faces, np.int64)
    unsigned = igl.SignedDistanceType.SIGNED_DISTANCE_TYPE_UNSIGNED

    def closest(p):
        return np.abs(igl.signed_distance(p, v, f, sign_type=unsigned)[0])

    def contains(p):
        return np.abs(igl.fast_winding_number(v, f, p)) >= 0.5

    return {"closest": (closest, None), "contains": (contains, None)}


PEERS = {
    "trimesh": _trimesh_peer,
    "open3d": _open3d_peer,
    "fcpw": _fcpw_peer,
    "libigl": _igl_peer,
}


def _bench_mesh(name, verts, faces, n_points, repeats):
    from hitbox.mesh import TriangleMesh

    mesh = TriangleMesh(verts, faces)
    impls = {
        "hitbox": {
            "closest": (lambda p: mesh.closest_point(p).distance, None),
            "contains": (mesh.contains, None),
        }
    }
    for peer, make in PEERS.items():
        try:
            impls[peer] = make(verts, faces)
        except ImportError:
            print(f"  {peer}: not importable, skipped", file=sys.stderr)
    rows = []
    for set_name, points in point_sets(verts, faces, n_points).items():
        for query in ("closest", "contains"):
            rows += _bench_query(name, set_name, query, impls, points, repeats)
    return rows


def _bench_query(mesh_name, set_name, query, impls, points, repeats):
    runs = {}
    for impl, queries in impls.items():
        if query in queries:
            fn, cap = queries[query]
            pts = np.ascontiguousarray(points[:cap] if cap else points)
            start = time.perf_counter()
            answer = fn(pts)  # warm-up: compile, first touch, lazy structures
            runs[impl] = (fn, pts, answer, [], time.perf_counter() - start)
    for _ in range(repeats):
        for fn, pts, _, times, _ in runs.values():
            start = time.perf_counter()
            fn(pts)
            times.append(time.perf_counter() - start)
    reference = runs["hitbox"][2]
    rows = []
    for impl, (_, pts, answer, times, first) in runs.items():
        if impl == "fcpw" and query == "closest":
            answer = _fcpw_distances(answer, pts)
        ref = reference[: len(pts)]
        if query == "closest":
            err = float(np.max(np.abs(answer - ref)))
        else:
            err = float(np.mean(answer != ref))
        best = min(times)
        rows.append(
            {
                "bench": f"points_{query}",
                "mesh": mesh_name,
                "points": set_name,
                "impl": impl,
                "n": len(pts),
                "min_s": best,
                "first_call_s": first,
                "median_s": float(np.median(times)),
                "points_per_s": len(pts) / best,
                "max_err": err,
            }
        )
    ours = rows[0]["points_per_s"]
    for row in rows:
        row["vs_hitbox"] = row["points_per_s"] / ours
    peers = [row["points_per_s"] for row in rows[1:]]
    if peers:
        rows[0]["vs_fastest_peer"] = ours / max(peers)
    return rows


if __name__ == "__main__":
    for row in run(quick="--quick" in sys.argv):
        print(
            f"{row['bench']:16s} {row['mesh']:12s} {row['points']:8s} {row['impl']:8s}"
            f" {row['points_per_s']:12.4g} pts/s  x{row['vs_hitbox']:.3g}"
            f"  err {row['max_err']:.3g}"
        )
