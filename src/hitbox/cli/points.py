"""``hitbox points MESH POINTS``: closest points, signed distances and inside tests."""

import time

from hitbox.cli import common
from hitbox.cli.cluster import _cluster, _cluster_options, _on_cluster


def add(sub):
    """The subcommand's parser, added to ``sub`` (argparse's subparsers)."""
    points = common.command(
        sub,
        "points",
        "closest points, signed distances and inside tests for many points",
        "For each point of a .npy file of shape (N, 3): the closest point on the mesh, "
        "its face, the signed distance (negative inside a closed mesh) and whether the "
        "point is inside (on the surface counts).",
    )
    points.add_argument("mesh", metavar="MESH", help="mesh file")
    points.add_argument(
        "points", metavar="POINTS", help="(N, 3) points: a .npy file or a .zarr store"
    )
    points.add_argument(
        "--out",
        metavar="OUT.npy",
        help="write (N, 6): signed distance, face, xyz, inside",
    )
    common.node_option(points)
    _cluster_options(points)
    return points


def run(args):
    import numpy as np

    from hitbox.io import load_mesh, load_points

    on_cluster = args.scheduler is not None or args.workers is not None
    with common.progress(args, 3) as step:
        step(f"reading {args.mesh}")
        mesh, load_s = common.timed(load_mesh, args.mesh, node=args.node)
        step(f"reading {args.points}")
        points = load_points(args.points)
        if not on_cluster:
            step("closest points and inside tests (compiles on a first run)")
            start = time.perf_counter()
            near = mesh.closest_point(points)
            inside = mesh.contains(points)
            seconds = time.perf_counter() - start
    cluster = None
    if on_cluster:
        near, inside, cluster, seconds = _points_on_cluster(args, mesh, points)
    signed = np.where(inside, -near.distance, near.distance)
    signed[near.distance == 0.0] = 0.0
    out = {
        "mesh": common.mesh_summary(args.mesh, mesh, load_s),
        "points": len(points),
        "inside": int(inside.sum()),
        "seconds": seconds,
    }
    if cluster is not None:
        out["cluster"] = cluster
    if args.out:
        table = np.column_stack([signed, near.face, near.point, inside])
        np.save(args.out, table)
        out["out"] = str(args.out)
    if args.json:
        out["signed_distance"] = signed.tolist()
        out["face"] = near.face.tolist()
        out["closest"] = near.point.tolist()
        return common.print_json(out)
    con = common.console()
    common.say(con, common.mesh_line("mesh", out["mesh"]))
    rate = len(points) / seconds if seconds > 0 else float("inf")
    common.say(con, f"{len(points):,} points: {out['inside']:,} inside; {rate:,.0f} points/s "
              "(closest point and inside test, first call included)")  # fmt: skip
    if len(points):
        common.table(con, "first points", ["point", "signed distance", "face", "closest"],
               [[common.vec(points[k]), f"{signed[k]:.6g}", str(near.face[k]),
                 common.vec(near.point[k])] for k in range(min(5, len(points)))])  # fmt: skip
    if args.out:
        common.say(
            con, f"wrote {out['out']} (N, 6): signed distance, face, closest xyz, inside"
        )
    return 0


def _points_on_cluster(args, mesh, points):
    """Closest points and inside tests on a Dask cluster (--scheduler or --workers)."""
    import numpy as np

    with _cluster(args) as client:
        from hitbox import dask as hd

        start = time.perf_counter()
        near = hd.closest_point(mesh, points, client=client)
        inside = hd.contains(mesh, points, client=client)
        parts = _on_cluster(args, client, [*near, inside], "point queries")
        seconds = time.perf_counter() - start
        about = {
            "scheduler": client.scheduler.address,
            "workers": len(client.scheduler_info()["workers"]),
            "chunks": len(inside.chunks[0]),
        }
    near = type(near)(*parts[:-1])
    return near, np.asarray(parts[-1]), about, seconds
