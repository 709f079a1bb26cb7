"""The main job (`make demo`, `hitbox demo`): a tour of hitbox on the seeds' own examples.

Each section computes something and prints it; nothing here is a fixed string of results.
"""

import time

import numpy as np

__all__ = ["tour", "SECTIONS"]


def _out(console, text):
    if console is None:
        print(text)
    else:
        console.print(text)


def _v(arr):
    return np.array2string(
        np.asarray(arr), separator=", ", precision=4, suppress_small=True
    )


def _cube_examples(say):
    from hitbox import aabb, sweep

    cube = np.array([[-1.0, -1, -1], [1, 1, 1]])
    c, s = np.cos(np.pi / 2), np.sin(np.pi / 2)
    m1 = np.array([[c, 0, s, 1.0], [0, 1, 0, 0], [-s, 0, c, 0], [0, 0, 0, 1]]) @ np.diag(
        [0.5, 0.5, 0.5, 1]
    )
    m2 = np.array([[0.5, 0, 0, -0.5], [0, 0.5, 0, 0], [0, 0, 0.5, 0], [0, 0, 0, 1]])
    box1, box2 = aabb.transform(cube, m1), aabb.transform(cube, m2)
    say("[bold]Seed 000: the cube of half-size 1, placed twice[/bold]")
    say(
        f"  box1 = translate(1,0,0) rotY(90) scale(0.5) -> lo {_v(box1[0])}, hi {_v(box1[1])}"
    )
    say(
        f"  box2 = translate(-0.5,0,0) scale(0.5)      -> lo {_v(box2[0])}, hi {_v(box2[1])}"
    )
    say(f"  overlap: {aabb.overlap(box1, box2)}   gap on x: {box1[0, 0] - box2[1, 0]}")
    hit = sweep.aabb_aabb(box2, box1, [3.0, 0, 0])
    say(
        f"  box2 moving by (3,0,0) first touches box1 at t = {hit.t:.5f} (1/6 = {1 / 6:.5f})"
    )
    return {"gap": float(box1[0, 0] - box2[1, 0]), "t": float(hit.t)}


def _torus_points(n_major=60, n_minor=20, r_major=1.0, r_minor=0.3):
    u, w = np.meshgrid(
        np.linspace(0, 2 * np.pi, n_major, endpoint=False),
        np.linspace(0, 2 * np.pi, n_minor, endpoint=False),
    )
    x = (r_major + r_minor * np.cos(w)) * np.cos(u)
    y = (r_major + r_minor * np.cos(w)) * np.sin(u)
    z = r_minor * np.sin(w)
    return np.column_stack([x.ravel(), y.ravel(), z.ravel()])


def _volumes(say):
    from hitbox import aabb, kdop, mixed, obb, sphere

    pts = _torus_points()
    tilt = np.eye(4)
    a = np.pi / 5
    tilt[:3, :3] = [[1, 0, 0], [0, np.cos(a), -np.sin(a)], [0, np.sin(a), np.cos(a)]]
    pts = pts @ tilt[:3, :3].T
    say("[bold]Bounding volumes of a tilted torus (1,200 points)[/bold]")
    rows = {
        "AABB": aabb.volume(aabb.from_points(pts)),
        "sphere (centroid)": sphere.volume(sphere.fit(pts, method="centroid")),
        "sphere (ritter)": sphere.volume(sphere.fit(pts, method="ritter")),
        "sphere (welzl, minimal)": sphere.volume(sphere.fit(pts, method="welzl")),
        "OBB (pca)": obb.volume(obb.fit(pts, method="pca")),
        "OBB (hull)": obb.volume(obb.fit(pts, method="hull")),
    }
    for name, vol in rows.items():
        say(f"  {name:<24} volume {vol:8.4f}")
    d = kdop.fit(pts, 18)
    say(f"  18-DOP slabs along {len(kdop.AXES[18])} directions: {d.shape}")
    say(
        f"  choose() picks: {mixed.choose(pts)!r} (still), "
        f"{mixed.choose(pts, rotating=True)!r} (rotating)"
    )
    long_box = np.array([[0.0, 0, 0], [8, 1, 1]])
    one = sphere.volume(sphere.from_boxes(long_box))
    four = sphere.volume(sphere.cover(long_box, 4)).sum()
    say(
        f"  a 8x1x1 box: one sphere wastes {one - 8:.1f}, four spheres waste {four - 8:.1f}"
    )
    return rows


def _cross_kind(say):
    from hitbox import Spheres, aabb, mixed, obb

    rng = np.random.default_rng(0)
    n = 100_000
    centres = rng.uniform(-10, 10, (n, 3))
    spheres = Spheres(centres, rng.uniform(0.2, 1.0, n))
    lo = rng.uniform(-10, 10, (n, 3))
    boxes = np.stack([lo, lo + rng.uniform(0.2, 2.0, (n, 3))], axis=1)
    obbs = obb.from_boxes(boxes[::-1].copy())
    mixed.overlap(Spheres(centres[:2], spheres.radius[:2]), boxes[:2])  # compile first
    mixed.overlap(boxes[:2], obb.from_boxes(boxes[:2]))
    start = time.perf_counter()
    sb = mixed.overlap(spheres, boxes)
    bo = mixed.overlap(boxes, obbs)
    elapsed = time.perf_counter() - start
    pairs = aabb.overlap_pairs(boxes, boxes[:1000])
    say("[bold]Cross-kind tests, batched[/bold]")
    say(
        f"  {n:,} sphere-AABB and {n:,} AABB-OBB tests: {sb.sum():,} and {bo.sum():,} "
        f"overlap ({elapsed * 1e3:.0f} ms)"
    )
    say(f"  all pairs between {n:,} and 1,000 boxes: {pairs.shape[1]:,} pairs")


def _rays(say):
    from hitbox import ray

    boxes = np.array([[[0.0, 0, 0], [1, 1, 1]], [[2.0, 0, 0], [3, 1, 1]]])
    hits = ray.cast_aabb(boxes, [[-1.0, 0.5, 0.5]], [[1.0, 0.0, 0.0]])
    say("[bold]Seed 001: a ray along x through two unit cubes (slab method)[/bold]")
    for i in range(2):
        say(
            f"  box {i}: hit {bool(hits.hit[i])}, enters at t = {hits.t_enter[i]:.3f} "
            f"through face normal {_v(hits.normal[i])}"
        )
    seg = ray.segments([[-1.0, 0.5, 0.5]], [[0.5, 0.5, 0.5]])
    crosses = ray.cast_aabb(boxes, seg.origin, seg.direction, t_max=seg.t_max)
    say(f"  the segment (-1,.5,.5)-(.5,.5,.5) crosses: {crosses.hit.tolist()}")


def _meshes(say):
    from hitbox import _torus
    from hitbox.mesh import TriangleMesh

    v, f = _torus.torus_mesh(5000)
    mesh = TriangleMesh(v, f)
    say(
        f"[bold]Mesh vs mesh: two tori of {len(f):,} triangles ({mesh.bvh.kind} tree, depth "
        f"{mesh.bvh.depth})[/bold]"
    )
    poses = (("chain links, not touching", 1.0), ("tubes crossing", 1.5), ("apart", 3.0))
    for label, x in poses:
        T = np.eye(4)
        T[:3, :3] = [[1, 0, 0], [0, 0, -1], [0, 1, 0]]
        T[0, 3] = x
        start = time.perf_counter()
        hit = mesh.intersect(mesh, T)
        pairs = mesh.intersect(mesh, T, mode="all")
        say(
            f"  {label:<26} collide: {hit}, {pairs.shape[1]} triangle pairs "
            f"({(time.perf_counter() - start) * 1e3:.1f} ms)"
        )
    rng = np.random.default_rng(1)
    origins = rng.uniform(-2, 2, (100_000, 3))
    origins[:, 2] = 2.0
    directions = np.tile([0.0, 0.0, -1.0], (100_000, 1))
    mesh.raycast(origins[:5000], directions[:5000])  # compile outside the timing
    start = time.perf_counter()
    hits = mesh.raycast(origins, directions)
    rate = len(origins) / (time.perf_counter() - start)
    say(f"  100,000 rays: {hits.hit.sum():,} hit the torus ({rate / 1e6:.2f} M rays/s)")


def _experiment(say, *, out_dir, quick, console=None):
    """Seed 003's experiment on its two scenes: table, CSV and the time-per-step plot."""
    from hitbox import experiment

    say("[bold]Seed 003's experiment: two tori interlocking like chain links[/bold]")
    say(
        f"  {'60' if quick else experiment.STEPS} steps per scene and mode; every method's "
        "contacts are checked identical at every step"
    )
    result = experiment.run(quick=quick, out_dir=out_dir, repeats=2 if quick else 3)
    if console is not None:
        experiment._print(result["summary"], result["trees"], console)
    else:
        for row in result["summary"]:
            say(
                f"  {row['scene']:<20} {row['mode']:<4} {row['method']:<38} "
                f"{row['mean_us']:9.1f} us/step  x{row['speedup_vs_obb_only']:.2f}"
            )
    for key in ("summary_csv", "csv", "png"):
        say(f"  wrote {result[key]}")
    return result


def _view(say, *, out_dir):
    """The 3D view of the tori in contact: meshes, tree volumes, colliding triangles."""
    from hitbox import view
    from hitbox._torus import torus_mesh
    from hitbox.mesh import TriangleMesh

    mesh = TriangleMesh(*torus_mesh(5000))
    pose = np.eye(4)
    pose[:3, :3] = [[1, 0, 0], [0, 0, -1], [0, 1, 0]]
    pose[0, 3] = 1.5
    pairs = mesh.intersect(mesh, pose, mode="all")
    page = view.write_html(
        f"{out_dir}/view.html",
        [(mesh, None, None, "torus A"), (mesh, pose, None, "torus B")],
        volumes_depth=4,
        highlight={0: np.unique(pairs[0]), 1: np.unique(pairs[1])},
        title="hitbox: two tori in contact",
    )
    say(
        f"[bold]3D view[/bold]: {page.path} ({pairs.shape[1]} colliding triangle pairs "
        f"highlighted, OBB tree volumes at depth 4; open it in a browser)"
    )


SECTIONS = {
    "worked examples": _cube_examples,
    "volumes": _volumes,
    "cross-kind": _cross_kind,
    "rays": _rays,
    "meshes": _meshes,
    "experiment": _experiment,
    "view": _view,
}


def tour(console=None, sections=None, *, out_dir="report", quick=False):
    """Run the tour's sections in order, printing as it goes; files go to ``out_dir``."""
    names = list(SECTIONS) if sections is None else sections
    say = lambda text: _out(console, text)  # noqa: E731
    for name in names:
        if name == "experiment":
            _experiment(say, out_dir=out_dir, quick=quick, console=console)
        elif name == "view":
            _view(say, out_dir=out_dir)
        else:
            SECTIONS[name](say)
        _out(console, "")
