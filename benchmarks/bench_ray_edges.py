"""Rays aimed at the vertices and edges of the peers' own meshes, decided exactly (issue 27).

For each mesh (FCL's ``env.obj``; trimesh's bunny, fandisk and torus, copies under
``benchmarks/data/``), seeded: random origins outside the mesh's bounding sphere, aimed at
a vertex, at a point ``a + s (b - a)`` of an edge (rounded to float64, so within rounding
of the edge), or at a random point of the bounding box (generic rays). Every ray is then
decided in exact rational arithmetic on its float64 inputs (``tests/oracles_ray.py``): the
least t at which the exact ray touches the mesh and every face it touches there.

Counted for hitbox's ``TriangleMesh.raycast`` and for Embree (through trimesh, when
embreex is installed): wrong hit/miss, and wrong faces (a reported face the exact ray
does not touch at its least t; at a shared edge or vertex any face touched there is
right). For hitbox also the largest distance of ``t`` from the exactly rounded t, in
units in the last place. The last rows time generic rays (closest hit): hitbox against
Embree, and ``rays_per_s`` to compare with the same row of an earlier commit.

Run alone: ``python benchmarks/bench_ray_edges.py [--quick]``.
"""

import sys
from pathlib import Path

import numpy as np

from benchmarks.timing import environment, measure

DATA = Path(__file__).parent / "data"
MESHES = {
    "fcl env.obj": "env.obj",
    "trimesh bunny": "bunny.ply",
    "trimesh fandisk": "fandisk.obj",
    "trimesh torus": "torus.STL",
}
KINDS = ("vertex", "edge", "generic")


def run(quick=False):
    """Exact counts per mesh and kind of ray, then generic-ray timings."""
    import hitbox as hb

    per_kind = 60 if quick else 500
    rows, timed = [], []
    for name, file in MESHES.items():
        path = DATA / file
        if not path.exists():
            print(f"bench_ray_edges: {path} not found, {name} skipped", file=sys.stderr)
            continue
        vertices, faces = hb.io.read_mesh(path)
        mesh = hb.TriangleMesh(vertices, faces)
        for kind in KINDS:
            origins, directions = aimed_rays(vertices, faces, kind, per_kind, seed=27)
            rows.append(
                {"mesh": name, "faces": len(faces), "rays": kind, "n": per_kind}
                | score(mesh, origins, directions)
            )
        timed.append(time_generic(name, mesh, 20_000 if quick else 200_000))
    env = environment()
    return [row | env for row in rows + timed]


def aimed_rays(vertices, faces, kind, n, seed=0):
    """``n`` rays from random origins outside the bounding sphere, aimed at vertices,
    at rounded points of edges, or at random points of the bounding box."""
    rng = np.random.default_rng([seed, KINDS.index(kind)])
    lo, hi = vertices[faces].min(axis=(0, 1)), vertices[faces].max(axis=(0, 1))
    center, radius = (lo + hi) / 2, np.linalg.norm(hi - lo) / 2
    away = rng.normal(size=(n, 3))
    away /= np.linalg.norm(away, axis=1)[:, None]
    origins = center + away * radius * rng.uniform(1.2, 3.0, (n, 1))
    if kind == "vertex":
        targets = vertices[
            faces[rng.integers(len(faces), size=n), rng.integers(3, size=n)]
        ]
    elif kind == "edge":
        f = faces[rng.integers(len(faces), size=n)]
        k = rng.integers(3, size=n)
        a, b = vertices[f[np.arange(n), k]], vertices[f[np.arange(n), (k + 1) % 3]]
        targets = a + rng.uniform(0, 1, (n, 1)) * (b - a)  # rounded: within 1 ulp of ab
    else:
        targets = rng.uniform(lo, hi, (n, 3))
    return origins, targets - origins


def score(mesh, origins, directions):
    """Wrong hit/miss and faces of hitbox and Embree against the exact first hits."""
    from tests import oracles_ray as oracle

    tris = mesh.triangles
    exact = [
        oracle.mesh_first_hit(tris, o, d)
        for o, d in zip(origins, directions, strict=True)
    ]
    hit = np.array([t is not None for t, _ in exact])
    ours = mesh.raycast(origins, directions)
    wrong_face = [
        f not in faces
        for f, (t, faces) in zip(ours.face, exact, strict=True)
        if f >= 0 and t is not None
    ]
    ulps = [
        oracle.ulps_apart(got, float(t))
        for got, (t, _) in zip(ours.t, exact, strict=True)
        if t is not None and np.isfinite(got)
    ]
    row = {
        "exact_hits": int(hit.sum()),
        "hitbox_wrong_hit": int((ours.hit != hit).sum()),
        "hitbox_wrong_face": int(sum(wrong_face)),
        "hitbox_max_t_ulps": max(ulps, default=0),
    }
    embree = embree_first(mesh, origins, directions)
    if embree is not None:
        row["embree_wrong_hit"] = int(((embree >= 0) != hit).sum())
        row["embree_wrong_face"] = int(
            sum(
                f not in faces
                for f, (t, faces) in zip(embree, exact, strict=True)
                if f >= 0 and t is not None
            )
        )
    return row


def embree_first(mesh, origins, directions):
    """Embree's first face per ray (-1 on a miss) through trimesh, or None."""
    try:
        import embreex  # noqa: F401
        import trimesh
        from trimesh.ray.ray_pyembree import RayMeshIntersector
    except ImportError:
        return None
    tm = trimesh.Trimesh(mesh.vertices, mesh.faces, process=False)
    return RayMeshIntersector(tm).intersects_first(origins, directions)


def time_generic(name, mesh, n):
    """Closest-hit time of ``n`` generic rays: the public call (parallel over rays), the
    serial kernel alone (ns per ray, steadier on a shared machine), and Embree through
    trimesh."""
    from hitbox._kernels import bvh_ray

    origins, directions = aimed_rays(mesh.vertices, mesh.faces, "generic", n, seed=5)
    best, median = measure(lambda: mesh.raycast(origins, directions), repeats=5)
    tree = mesh.bvh
    walk = (tree.node_box, tree.node_first, tree.node_count, mesh._slot_tris)
    walk += (tree.prim_order, tree.depth)
    rays = (origins, directions, np.full(n, np.inf))
    out = (np.empty(n), np.empty(n, np.intp), np.empty(n), np.empty(n))
    serial, _ = measure(lambda: bvh_ray.cast(walk, rays, False, out, 0, n), repeats=5)
    row = {
        "mesh": name,
        "faces": mesh.n_faces,
        "rays": "generic, timed",
        "n": n,
        "hitbox_s": best,
        "hitbox_median_s": median,
        "rays_per_s": n / best,
        "serial_ns_per_ray": serial / n * 1e9,
    }
    if embree_first(mesh, origins[:10], directions[:10]) is not None:
        import trimesh
        from trimesh.ray.ray_pyembree import RayMeshIntersector

        tm = trimesh.Trimesh(mesh.vertices, mesh.faces, process=False)
        inter = RayMeshIntersector(tm)
        inter.intersects_first(origins[:10], directions[:10])
        t, _ = measure(lambda: inter.intersects_first(origins, directions), repeats=3)
        row["embree_trimesh_s"] = t
    return row


if __name__ == "__main__":
    from benchmarks.run import print_table

    print_table("ray_edges", run(quick="--quick" in sys.argv))
