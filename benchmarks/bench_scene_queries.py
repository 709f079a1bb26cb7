"""Batched queries against a whole Scene through its top-level tree (issue 29).

    python -m benchmarks.run scene_queries [--quick]

The scene: 1,000 objects in random poses in a cube of side 40 (about one object per
64 unit cells): 700 instances of five meshes of ``hitbox.shapes`` (torus of 2,000
triangles, icosphere of 1,280, capsule, cylinder, box; sizes about 1 to 3), 150 spheres
and 150 boxes. Rays: origins uniform in the cube, directions uniform on the sphere;
points uniform in the cube; query boxes of side 0 to 4 anywhere in it.

- ``raycast``: :func:`hitbox.scene_queries.raycast` (the top-level tree) against
  ``raycast_brute`` (the old loop over objects, each culling the rays by its bounding
  sphere; run on a tenth of the rays, rates per ray compared), and against one merged
  mesh of every object's triangles in world coordinates cast by the Embree peers:
  embreex's raw scene (Embree 2, float32, one thread) and
  Open3D's ``RaycastingScene.cast_rays`` (Embree 3, float32, every thread). Spheres and
  boxes are tessellated for the merged mesh (icospheres of 320 triangles, 12 triangles
  a box), so the peers see slightly different spheres: ``hits_disagree`` counts rays
  whose object differs from hitbox's. ``vs_fastest_peer`` divides the fastest peer's
  time by hitbox's (above 1: hitbox ahead). The peers' scenes are built once, outside
  the timing; hitbox's top-level tree is built inside every call.
- ``nearest`` and ``overlapping`` against their brute-force twins (run on a 100th of
  the points and a 10th of the boxes; rates per query compared, answers checked
  equal). 10^5 points, 10^4 boxes of side 0 to 4.

Every time is a minimum over interleaved repeats, in one process.
"""

import numpy as np

from benchmarks.bench_ray_peers import embree_peers
from benchmarks.timing import measure
from hitbox import scene_queries as sq
from hitbox import shapes
from hitbox._types import OBBs, Spheres
from hitbox.pipeline import Scene

SIDE = 40.0


def build_scene(n_objects=1000, seed=0):
    """The benchmark's scene and its merged world mesh (vertices, faces, object of each
    face) for the peers."""
    rng = np.random.default_rng(seed)
    meshes = [
        shapes.torus(2000, 1.2, 0.4),
        shapes.icosphere(1.0, 3),
        shapes.capsule(0.5, 1.5),
        shapes.cylinder(0.7, 2.0),
        shapes.box((1.0, 2.0, 3.0)),
    ]
    ball = shapes.icosphere(1.0, 2)
    scene = Scene()
    verts, faces, owner, n_verts = [], [], [], 0
    for k in range(n_objects):
        pose = np.eye(4)
        pose[:3, :3] = _rotation(rng)
        pose[:3, 3] = rng.uniform(-SIDE / 2, SIDE / 2, 3)
        kind = k % 20
        if kind < 14:
            mesh = meshes[k % 5]
            i = scene.add(mesh, pose)
            local_v, local_f = mesh.vertices, mesh.faces
        elif kind < 17:
            r = rng.uniform(0.3, 1.2)
            i = scene.add(Spheres(np.zeros((1, 3)), np.array([r])), pose)
            local_v, local_f = ball.vertices * r, ball.faces
        else:
            half = rng.uniform(0.2, 1.2, 3)
            i = scene.add(OBBs(np.zeros((1, 3)), half[None], np.eye(3)[None]), pose)
            box = shapes.box(2 * half)
            local_v, local_f = box.vertices, box.faces
        verts.append(local_v @ pose[:3, :3].T + pose[:3, 3])
        faces.append(local_f + n_verts)
        owner.append(np.full(len(local_f), i))
        n_verts += len(local_v)
    return scene, np.concatenate(verts), np.concatenate(faces), np.concatenate(owner)


def _rotation(rng):
    q = rng.normal(size=4)
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])  # fmt: skip


def random_rays(n, seed=1):
    rng = np.random.default_rng(seed)
    origins = rng.uniform(-SIDE / 2, SIDE / 2, (n, 3))
    directions = rng.normal(size=(n, 3))
    return origins, directions / np.linalg.norm(directions, axis=1)[:, None]


def _best(fns, repeats):
    """{name: min time} with the callables interleaved, each warmed once."""
    best = {}
    for fn in fns.values():
        fn()
    for _ in range(repeats):
        for name, fn in fns.items():
            t, _ = measure(fn, repeats=1, warmup=0)
            best[name] = min(best.get(name, np.inf), t)
    return best


def _raycast_rows(scene, verts, faces, owner, n_rays, repeats, brute):
    origins, directions = random_rays(n_rays)
    fns = {"hitbox": lambda: sq.raycast(scene, origins, directions)}
    few = n_rays // 10  # the twin casts a tenth of the rays
    if brute:
        fns["brute"] = lambda: sq.raycast_brute(scene, origins[:few], directions[:few])
    peers = embree_peers(verts, faces, origins, directions)
    fns.update(peers)
    best = _best(fns, repeats)
    ours = sq.raycast(scene, origins, directions)
    row = {"query": "raycast", "objects": len(scene), "queries": n_rays,
           "merged_faces": len(faces)}  # fmt: skip
    for name, t in best.items():
        row[f"{name}_per_s"] = (few if name == "brute" else n_rays) / t
    if brute:
        same = sq.raycast_brute(scene, origins[:few], directions[:few])
        row["vs_brute"] = row["hitbox_per_s"] / row["brute_per_s"]
        row["brute_disagree"] = int(np.count_nonzero(same.object != ours.object[:few]))
    for name, fn in peers.items():
        face = fn()
        hit_obj = np.where(face >= 0, owner[np.maximum(face, 0)], -1)
        row[f"{name}_hits_disagree"] = int(np.count_nonzero(hit_obj != ours.object))
    if peers:
        row["vs_fastest_peer"] = min(best[p] for p in peers) / best["hitbox"]
    row["hit_fraction"] = float(np.mean(ours.object >= 0))
    return row


def _twin_row(scene, name, fast, brute, n, n_brute, repeats):
    """Rates of a query and its twin, the twin run on the first ``n_brute`` queries."""
    best = _best({"hitbox": fast, "brute": brute}, repeats)
    row = {"query": name, "objects": len(scene), "queries": n,
           "hitbox_per_s": n / best["hitbox"], "brute_per_s": n_brute / best["brute"]}  # fmt: skip
    row["vs_brute"] = row["hitbox_per_s"] / row["brute_per_s"]
    return row


def run(quick=False):
    repeats = 2 if quick else 5
    scene, verts, faces, owner = build_scene()
    n_rays = 10_000 if quick else 100_000
    rows = [_raycast_rows(scene, verts, faces, owner, n_rays, repeats, brute=True)]
    if not quick:
        rows.append(_raycast_rows(scene, verts, faces, owner, 1_000_000, 3, brute=False))
    rng = np.random.default_rng(2)
    n = 10_000 if quick else 100_000
    pts = rng.uniform(-SIDE / 2, SIDE / 2, (n, 3))
    few = pts[: n // 100]  # the twin: every object's distance to a 100th of the points
    rows.append(_twin_row(scene, "nearest", lambda: sq.nearest(scene, pts),
                          lambda: sq.nearest_brute(scene, few), n, len(few), repeats))  # fmt: skip
    assert np.array_equal(
        sq.nearest(scene, few).object, sq.nearest_brute(scene, few).object
    )
    n = 1_000 if quick else 10_000
    lo = rng.uniform(-SIDE / 2, SIDE / 2, (n, 3))
    boxes = np.stack([lo, lo + rng.uniform(0.0, 4.0, (n, 3))], axis=1)
    few = boxes[: n // 10]  # the twin: every object against a 10th of the boxes
    rows.append(_twin_row(scene, "overlapping", lambda: sq.overlapping(scene, boxes),
                          lambda: sq.overlapping_brute(scene, few), n, len(few),
                          repeats))  # fmt: skip
    assert np.array_equal(sq.overlapping(scene, few), sq.overlapping_brute(scene, few))
    return rows


if __name__ == "__main__":
    import sys

    from benchmarks.run import print_table

    print_table("scene_queries", run(quick="--quick" in sys.argv))
