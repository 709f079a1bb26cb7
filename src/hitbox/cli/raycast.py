"""``hitbox raycast MESH``: random or given rays at a mesh; hits and rays per second."""

import time

from hitbox.cli import common
from hitbox.cli.cluster import _cluster, _cluster_options, _on_cluster


def add(sub):
    """The subcommand's parser, added to ``sub`` (argparse's subparsers)."""
    raycast = common.command(
        sub,
        "raycast",
        "cast rays at a mesh: hits and rays per second",
        "Cast rays at a mesh: random rays aimed at its bounding box from a sphere around "
        "it, or rays read from a .npy file of shape (N, 6) (origin xyz, direction xyz).",
    )
    raycast.add_argument(
        "mesh", metavar="MESH", help="mesh file (STL, OBJ, PLY, GLB, OFF)"
    )
    rays = raycast.add_mutually_exclusive_group()
    rays.add_argument(
        "--rays",
        type=common.count1,
        metavar="N",
        help="number of random rays (default 100000)",
    )
    rays.add_argument(
        "--from-npy",
        metavar="RAYS",
        help="rays from a (N, 6) .npy file or .zarr store",
    )
    raycast.add_argument(
        "--mode",
        choices=("closest", "any"),
        default="closest",
        help="nearest hit per ray, or any hit (faster); default closest",
    )
    raycast.add_argument("--seed", type=int, default=0, help="seed of the random rays")
    common.node_option(raycast)
    _cluster_options(raycast)
    return raycast


def run(args):
    import numpy as np

    from hitbox.io import load_mesh, load_rays

    on_cluster = args.scheduler is not None or args.workers is not None
    with common.progress(args, 2 if on_cluster else 4) as step:
        step(f"reading {args.mesh}")
        mesh, load_s = common.timed(load_mesh, args.mesh, node=args.node)
        step("making rays")
        if args.from_npy:
            origins, directions = load_rays(args.from_npy)
            source = str(args.from_npy)
        else:
            n = 100_000 if args.rays is None else args.rays
            origins, directions = _random_rays(mesh.vertices, n, args.seed)
            source = f"random, seed {args.seed}"
    if on_cluster:
        hits, cluster, best_s = _raycast_on_cluster(args, mesh, origins, directions)
        first_s, repeats = best_s, 1
    else:
        cluster = None
        hits, first_s, best_s, repeats = _raycast_here(args, mesh, origins, directions)
    n_hits = int(np.count_nonzero(hits.hit))
    n = len(origins)
    out = {
        "mesh": common.mesh_summary(args.mesh, mesh, load_s),
        "node": args.node,
        "rays": n,
        "source": source,
        "mode": args.mode,
        "hits": n_hits,
        "hit_fraction": n_hits / n,
        "mean_t": float(hits.t[hits.hit].mean()) if n_hits else None,
        "time": {"first_call_s": first_s, "cast_s": best_s, "repeats": repeats},
        "rays_per_s": n / best_s if best_s > 0 else None,
    }
    if cluster is not None:
        out["cluster"] = cluster
    if args.json:
        return common.print_json(out)
    con = common.console()
    common.say(con, common.mesh_line("mesh", out["mesh"]))
    common.say(con, f"rays: {n:,} ({source}), mode {args.mode!r}, {args.node} tree")
    if cluster is not None:
        common.say(con, f"cluster: {cluster['workers']} workers at {cluster['scheduler']}, "
                  f"{cluster['chunks']} chunks")  # fmt: skip
    common.say(con, f"hits: {n_hits:,} ({100 * n_hits / n:.1f} %)")
    rate = f"{out['rays_per_s']:,.0f} rays/s" if out["rays_per_s"] else "too fast to time"
    how = "one run on the cluster" if cluster is not None else f"best of {repeats}"
    common.say(
        con,
        f"time: {common.duration(best_s)} per cast of all rays, [bold]{rate}[/] "
        f"({how}; first call {common.duration(first_s)})",
    )
    return 0


def _raycast_here(args, mesh, origins, directions):
    with common.progress(args, 2) as step:
        step("first cast (compiles on a first run)")
        warm = min(
            len(origins), 8192
        )  # the same kernel (serial or parallel) as the full cast
        _, first_s = common.timed(
            mesh.raycast, origins[:warm], directions[:warm], mode=args.mode
        )
        step(f"casting {len(origins):,} rays")
        hits = mesh.raycast(origins, directions, mode=args.mode)
        best_s, repeats = common.best_time(
            lambda: mesh.raycast(origins, directions, mode=args.mode), budget=0.5
        )
    return hits, first_s, best_s, repeats


def _raycast_on_cluster(args, mesh, origins, directions):
    """The cast on a Dask cluster (--scheduler or --workers), with its progress."""
    with _cluster(args) as client:
        from hitbox import dask as hd

        start = time.perf_counter()
        lazy = hd.raycast(mesh, origins, directions, mode=args.mode, client=client)
        hits = type(lazy)(*_on_cluster(args, client, lazy, "casting rays"))
        seconds = time.perf_counter() - start
        about = {
            "scheduler": client.scheduler.address,
            "workers": len(client.scheduler_info()["workers"]),
            "chunks": len(lazy.hit.chunks[0]),
        }
    return hits, about, seconds


def _random_rays(vertices, n, seed):
    """Rays from a sphere around the mesh, aimed at points of its bounding box."""
    import numpy as np

    rng = np.random.default_rng(seed)
    lo, hi = vertices.min(axis=0), vertices.max(axis=0)
    centre = 0.5 * (lo + hi)
    radius = max(float(np.linalg.norm(hi - lo)), 1e-9)
    start = rng.normal(size=(n, 3))
    start /= np.linalg.norm(start, axis=1, keepdims=True)
    origins = centre + 2.0 * radius * start
    targets = rng.uniform(lo, hi, size=(n, 3))
    directions = targets - origins
    return origins, directions
