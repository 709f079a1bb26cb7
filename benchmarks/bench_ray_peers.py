"""Closest-hit rays against the Embree peers (issue: ahead of each peer at its own best).

    python -m benchmarks.run ray_peers [--quick]

Inputs not picked to flatter hitbox: origins uniform in the mesh's bounding box grown
by 10 %, directions uniform on the sphere (rays start inside and outside, in every
direction). The seed's torus of 500,000 triangles with 300,000 rays, and the peers'
own meshes in ``benchmarks/data/`` (FCL's env.obj, trimesh's bunny, fandisk and torus)
with 100,000 rays each.

- ``hitbox``: a ``TriangleMesh`` as a user makes it (default OBB tree); its first call
  walks that tree, and once the mesh has cast 4x its face count in rays it walks an
  AABB tree built for rays (``first_call_rays_per_s`` is the former, ``rays_per_s`` the
  steady state, both on both threads);
- ``embreex``: Embree 2 through embreex's raw scene, float32, one thread;
- ``open3d``: Open3D's ``RaycastingScene.cast_rays``, Embree 3 on every thread, float32.

``vs_fastest_peer`` divides the fastest peer's time by hitbox's. ``misses_disagree``:
rays where a peer's hit/miss differs from hitbox's exact answer (float32 grazing rays).
Every time is a minimum over repeats, peers interleaved, one process.
"""

from pathlib import Path

import numpy as np

from benchmarks.timing import measure, torus_arrays
from hitbox import shapes
from hitbox._mesh_probe import query_mesh
from hitbox.mesh import TriangleMesh

DATA = Path(__file__).parent / "data"
REAL = ("env.obj", "bunny.ply", "fandisk.obj", "torus.STL")


def random_rays(vertices, n, seed=0):
    """n rays: origins uniform in the box grown by 10 %, directions uniform."""
    rng = np.random.default_rng(seed)
    lo, hi = vertices.min(axis=0), vertices.max(axis=0)
    centre, half = (lo + hi) / 2, (hi - lo) / 2 * 1.1
    origins = centre + rng.uniform(-1.0, 1.0, (n, 3)) * half
    directions = rng.normal(size=(n, 3))
    directions /= np.linalg.norm(directions, axis=1)[:, None]
    return origins, directions


def embree_peers(vertices, faces, origins, directions):
    """{name: callable giving the face each ray hits first (-1 for none)} of the Embree
    peers installed: embreex's raw scene and Open3D's cast_rays, float32 both."""
    peers = {}
    o32, d32 = origins.astype(np.float32), directions.astype(np.float32)
    try:
        from embreex import rtcore_scene
        from embreex.mesh_construction import TriangleMesh as EmbreeMesh

        scene = rtcore_scene.EmbreeScene()
        EmbreeMesh(scene, vertices[faces].astype(np.float32))
        peers["embreex"] = lambda: scene.run(o32, d32)
    except ImportError:
        pass
    try:
        import open3d as o3d

        cast = o3d.t.geometry.RaycastingScene()
        cast.add_triangles(
            o3d.core.Tensor(vertices.astype(np.float32)),
            o3d.core.Tensor(faces.astype(np.uint32)),
        )
        rays = o3d.core.Tensor(np.hstack([o32, d32]))
        invalid = o3d.t.geometry.RaycastingScene.INVALID_ID

        def cast_rays():
            ids = cast.cast_rays(rays)["primitive_ids"].numpy().astype(np.int64)
            return np.where(ids == invalid, -1, ids)

        peers["open3d"] = cast_rays
    except ImportError:
        pass
    return peers


def _row(name, vertices, faces, n_rays, repeats):
    origins, directions = random_rays(vertices, n_rays)
    shapes.torus(200).raycast(origins[:5000], directions[:5000])  # compiled
    mesh = TriangleMesh(vertices, faces)
    first, _ = measure(lambda: mesh.raycast(origins, directions), repeats=1, warmup=0)
    while query_mesh(mesh, 0, "rays") is mesh:  # the steady state: the ray tree built
        mesh.raycast(origins, directions)
    hits = mesh.raycast(origins, directions).hit
    row = {"mesh": name, "faces": len(faces), "rays": n_rays}
    best = {"hitbox": np.inf}
    peers = embree_peers(vertices, faces, origins, directions)
    for _ in range(repeats):  # interleaved: each repeat times every method once
        t, _ = measure(lambda: mesh.raycast(origins, directions), repeats=1, warmup=0)
        best["hitbox"] = min(best["hitbox"], t)
        for peer, fn in peers.items():
            t, _ = measure(fn, repeats=1, warmup=int(peer not in best))
            best[peer] = min(best.get(peer, np.inf), t)
    row["first_call_rays_per_s"] = n_rays / first
    for method, t in best.items():
        row[f"{method}_rays_per_s"] = n_rays / t
    for peer, fn in peers.items():
        row[f"{peer}_misses_disagree"] = int(np.count_nonzero((fn() >= 0) != hits))
    if peers:
        row["vs_fastest_peer"] = min(best[p] for p in peers) / best["hitbox"]
    return row


def run(quick=False):
    repeats = 2 if quick else 5
    v, f = torus_arrays(20_000 if quick else 500_000)
    rows = [_row("seed torus", v, f, 30_000 if quick else 300_000, repeats)]
    import trimesh

    for name in REAL:
        mesh = trimesh.load(DATA / name, force="mesh")
        verts = np.asarray(mesh.vertices, np.float64)
        faces = np.asarray(mesh.faces, np.int64)
        rows.append(_row(name, verts, faces, 10_000 if quick else 100_000, repeats))
    return rows


if __name__ == "__main__":
    import sys

    from benchmarks.run import print_table

    print_table("ray_peers", run(quick="--quick" in sys.argv))
