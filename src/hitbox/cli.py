"""The `hitbox` command. Subcommands import what they need when they run (fast --help).

    hitbox demo                         the tour (``make demo``)
    hitbox collide A.stl B.stl          do two meshes touch? which triangles? how fast?
    hitbox raycast MESH --rays N        random (or given) rays at a mesh: hits, rays/s
    hitbox info MESH                    sizes, fitted volumes, the chosen kind, tree stats
    hitbox bench                        the benchmark suite: table of ratios, CSV, plot

Every subcommand but ``demo`` takes ``--json`` for scripts. A bad input file gives one
line on stderr and exit status 1; a bad option, argparse's usage message and status 2.
"""

import argparse
import contextlib
import json
import sys
import time

# Seconds of repeated warm calls when timing one query (the best is reported).
_TIME_BUDGET = 0.25
_PEERS = {"coal": "coal", "fcl": "fcl", "trimesh": "trimesh", "pybullet": "pybullet"}
_PIP = {"fcl": "python-fcl"}
# hitbox.bvh.KINDS and hitbox.mesh.NODE, written out so that --help imports no numba
# (tests/test_cli.py checks they agree).
NODE_KINDS = ("aabb", "sphere", "obb", "kdop14", "kdop18", "kdop26")
NODE = "obb"


class _Failure(Exception):
    """A one-line error for the user (no traceback)."""


def main(argv=None):
    """Run the command line; returns the exit status (0 ok, 1 failure, 2 usage)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    from hitbox.files import FileError

    try:
        return args.run(args)
    except (FileError, _Failure) as exc:
        print(f"hitbox {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"hitbox {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `hitbox ... | head`: the reader left; say nothing more
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as exc:  # writing an output: a folder not writable, a full disk
        print(f"hitbox {args.command}: error: {exc}", file=sys.stderr)
        return 1


def build_parser():
    from hitbox import __version__

    parser = argparse.ArgumentParser(
        prog="hitbox",
        description="Collision detection with bounding volumes.",
        epilog="Run 'hitbox COMMAND --help' for a command's options.",
    )
    parser.add_argument("--version", action="version", version=f"hitbox {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = sub.add_parser(
        "demo",
        help="the main job: a tour on the seeds' own examples",
        description="A tour of hitbox on the seeds' own examples.",
    )
    demo.add_argument("--sections", help="comma-separated subset of the tour's sections")
    demo.add_argument(
        "--out",
        default="report",
        help="report folder: the experiment's CSV and plot, the 3D view",
    )
    demo.add_argument(
        "--quick",
        action="store_true",
        help="a shorter experiment (60 steps, 2 repeats, 3 node kinds)",
    )
    demo.set_defaults(run=_demo)

    collide = _command(
        sub,
        "collide",
        "do two mesh files touch, and which triangles?",
        "Place two meshes in the world and test them with their trees: whether they "
        "touch (touching counts), the colliding triangle pairs with --all, and the "
        "time of one warm query.",
        "A pose is 6 numbers 'x y z rx ry rz' (rotations in degrees about the fixed x, "
        "then y, then z axes) or 16 numbers of a 4x4 matrix, row by row; quote it, or "
        "write --pose-b=-1,0,0,0,0,0 when it starts with a minus.",
    )
    collide.add_argument(
        "a", metavar="A", help="first mesh file (STL, OBJ, PLY, GLB, OFF)"
    )
    collide.add_argument("b", metavar="B", help="second mesh file")
    collide.add_argument(
        "--pose-a", type=_pose, metavar="POSE", help="A's pose (identity)"
    )
    collide.add_argument(
        "--pose-b", type=_pose, metavar="POSE", help="B's pose (identity)"
    )
    collide.add_argument(
        "--all",
        action="store_true",
        help="find every colliding triangle pair, not just whether any",
    )
    _node_option(collide)
    collide.add_argument(
        "--view",
        metavar="OUT.html",
        help="write a 3D view of the meshes with the colliding triangles",
    )
    collide.add_argument(
        "--depth",
        type=_count0,
        default=3,
        metavar="D",
        help="tree depth of the volumes drawn in --view (default 3)",
    )
    collide.set_defaults(run=_collide)

    raycast = _command(
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
        "--rays", type=_count1, metavar="N", help="number of random rays (default 100000)"
    )
    rays.add_argument(
        "--from-npy", metavar="RAYS.npy", help="rays from a (N, 6) .npy file"
    )
    raycast.add_argument(
        "--mode",
        choices=("closest", "any"),
        default="closest",
        help="nearest hit per ray, or any hit (faster); default closest",
    )
    raycast.add_argument("--seed", type=int, default=0, help="seed of the random rays")
    _node_option(raycast)
    _cluster_options(raycast)
    raycast.set_defaults(run=_raycast)

    info = _command(
        sub,
        "info",
        "a mesh's size, fitted volumes and tree statistics",
        "A mesh's size; its fitted bounding volumes (AABB, minimal sphere, OBB, 14-, 18- "
        "and 26-DOPs) with their volumes and the kind hitbox.mixed.choose picks; and "
        "for each tree node kind, the tree's nodes, depth, leaves and build time.",
    )
    info.add_argument("mesh", metavar="MESH", help="mesh file (STL, OBJ, PLY, GLB, OFF)")
    info.set_defaults(run=_info)

    bench = _command(
        sub,
        "bench",
        "run the benchmark suite: ratios table, CSV and plot",
        "Run the benchmarks of the source tree's benchmarks/ folder (not part of the "
        "installed package: run this from a clone). Every benchmark times its baselines "
        "(numpy, and python-fcl, Coal, trimesh, pybullet where installed) in the same "
        "run. Writes one CSV per benchmark and ratios.png.",
    )
    bench.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help="benchmarks to run (default: all); e.g. aabb obb ray",
    )
    bench.add_argument(
        "--against",
        type=_peer_list,
        metavar="PEERS",
        help="baselines to table and plot, comma-separated from "
        f"{','.join(_PEERS)} (default: every baseline, numpy too)",
    )
    bench.add_argument(
        "--quick", action="store_true", help="small sizes, for a smoke run"
    )
    bench.add_argument(
        "--out",
        metavar="DIR",
        help="folder for the CSV files and the plot (default: "
        "benchmarks/results/<machine>, or <machine>-quick with --quick)",
    )
    bench.set_defaults(run=_bench)
    return parser


# -- subcommands -------------------------------------------------------------------------


def _demo(args):
    from hitbox import demo

    console = _console()
    sections = None if not args.sections else args.sections.split(",")
    unknown = set(sections or ()) - set(demo.SECTIONS)
    if unknown:
        raise SystemExit(f"hitbox demo: unknown section(s): {', '.join(sorted(unknown))}")
    demo.tour(console, sections, out_dir=args.out, quick=args.quick)
    return 0


def _collide(args):
    import numpy as np

    from hitbox import files

    pose_a = np.eye(4) if args.pose_a is None else args.pose_a
    pose_b = np.eye(4) if args.pose_b is None else args.pose_b
    with _progress(args, 4) as step:
        step(f"reading {args.a}")
        a, a_s = _timed(files.load_mesh, args.a, node=args.node)
        step(f"reading {args.b}")
        b, b_s = _timed(files.load_mesh, args.b, node=args.node)
        # B's frame into A's: the relative placement the trees are tested at.
        relative = np.linalg.inv(pose_a) @ pose_b
        mode = "all" if args.all else "any"
        step("first query (compiles on a first run)")
        result, first_s = _timed(a.intersect, b, relative, mode=mode)
        step("timing warm queries")
        best_s, repeats = _best_time(lambda: a.intersect(b, relative, mode=mode))
        pairs = result if args.all else None
        if args.view and pairs is None:
            pairs = a.intersect(b, relative, mode="all")
    collides = bool(result) if not args.all else bool(result.shape[1])
    out = {
        "a": _mesh_summary(args.a, a, a_s),
        "b": _mesh_summary(args.b, b, b_s),
        "node": args.node,
        "pose_a": pose_a.tolist(),
        "pose_b": pose_b.tolist(),
        "collide": collides,
        "mode": mode,
        "time": {"first_call_s": first_s, "query_s": best_s, "repeats": repeats},
    }
    if args.all:
        out["n_pairs"] = int(pairs.shape[1])
        out["pairs"] = pairs.T.tolist()
    if args.view:
        from hitbox import view

        written = view.write_html(
            args.view,
            [(a, pose_a, None, args.a), (b, pose_b, None, args.b)],
            volumes_depth=args.depth,
            highlight={0: pairs[0], 1: pairs[1]},
            title=f"hitbox collide: {'touching' if collides else 'apart'}",
        )
        out["view"] = str(written.path)
    if args.json:
        return _print_json(out)
    con = _console()
    _say(con, _mesh_line("A", out["a"]))
    _say(con, _mesh_line("B", out["b"]))
    verdict = "[bold red]yes[/]" if collides else "[bold green]no[/]"
    count = f", {out['n_pairs']} triangle pairs" if args.all else ""
    _say(con, f"collide: {verdict}{count}   ({args.node} trees, mode {mode!r})")
    if args.all and out["n_pairs"]:
        shown = out["pairs"][:10]
        more = out["n_pairs"] - len(shown)
        text = ", ".join(f"({i}, {j})" for i, j in shown)
        _say(
            con,
            f"pairs (A face, B face): {text}" + (f", ... {more} more" if more else ""),
        )
    _say(
        con,
        f"query: {_duration(best_s)} (best of {repeats} warm runs; "
        f"first call {_duration(first_s)})",
    )
    if args.view:
        _say(con, f"wrote {out['view']}")
    return 0


def _raycast(args):
    import numpy as np

    from hitbox import files

    on_cluster = args.scheduler is not None or args.workers is not None
    with _progress(args, 2 if on_cluster else 4) as step:
        step(f"reading {args.mesh}")
        mesh, load_s = _timed(files.load_mesh, args.mesh, node=args.node)
        step("making rays")
        if args.from_npy:
            origins, directions = files.load_rays(args.from_npy)
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
        "mesh": _mesh_summary(args.mesh, mesh, load_s),
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
        return _print_json(out)
    con = _console()
    _say(con, _mesh_line("mesh", out["mesh"]))
    _say(con, f"rays: {n:,} ({source}), mode {args.mode!r}, {args.node} tree")
    if cluster is not None:
        _say(con, f"cluster: {cluster['workers']} workers at {cluster['scheduler']}, "
                  f"{cluster['chunks']} chunks")  # fmt: skip
    _say(con, f"hits: {n_hits:,} ({100 * n_hits / n:.1f} %)")
    rate = f"{out['rays_per_s']:,.0f} rays/s" if out["rays_per_s"] else "too fast to time"
    how = "one run on the cluster" if cluster is not None else f"best of {repeats}"
    _say(
        con,
        f"time: {_duration(best_s)} per cast of all rays, [bold]{rate}[/] "
        f"({how}; first call {_duration(first_s)})",
    )
    return 0


def _raycast_here(args, mesh, origins, directions):
    with _progress(args, 2) as step:
        step("first cast (compiles on a first run)")
        warm = min(
            len(origins), 8192
        )  # the same kernel (serial or parallel) as the full cast
        _, first_s = _timed(
            mesh.raycast, origins[:warm], directions[:warm], mode=args.mode
        )
        step(f"casting {len(origins):,} rays")
        hits = mesh.raycast(origins, directions, mode=args.mode)
        best_s, repeats = _best_time(
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


def _cluster_options(parser):
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run on the Dask cluster at ADDRESS (e.g. tcp://host:8786); needs "
        "pip install hitbox[dask]",
    )
    group.add_argument(
        "--workers",
        type=_count1,
        metavar="N",
        help="run on a local Dask cluster of N worker processes",
    )


def _cluster(args):
    """A distributed Client for --scheduler or --workers; Dask is imported only here."""
    try:
        from distributed import Client

        from hitbox import dask as hd
    except ImportError as exc:
        raise _Failure(f"{exc}") from None
    if args.workers is not None:
        return hd.local_cluster(args.workers)
    try:
        return Client(args.scheduler, timeout="10s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise _Failure(
            f"cannot reach a Dask scheduler at {args.scheduler}: {exc}"
        ) from None


def _on_cluster(args, client, arrays, label):
    """Compute dask arrays on ``client``, a bar of the chunks done on stderr."""
    import dask
    from distributed import as_completed, futures_of

    persisted = client.persist(list(arrays))
    futures = futures_of(persisted)
    with _progress(args, len(futures) + 1) as step:
        step(f"{label} on the cluster: {len(futures)} tasks")
        for done, _ in enumerate(as_completed(futures), 1):
            step(f"{label} on the cluster: {done}/{len(futures)} tasks")
        return dask.compute(*persisted, scheduler=client)


def _info(args):
    import numpy as np

    from hitbox import files, mixed
    from hitbox.bvh import BVH, DEFAULT_METHOD, KINDS
    from hitbox.mesh import LEAF_SIZE

    with _progress(args, 3 + len(KINDS)) as step:
        step(f"reading {args.mesh}")
        vertices, faces = files.read_mesh(args.mesh)
        tris = np.ascontiguousarray(vertices[faces])
        step("fitting volumes and choosing a kind")
        # choose_report fits the minimal sphere, the AABB, the OBB and the k-DOP it
        # compares, and measures their volumes: the same numbers choose decides on.
        report = mixed.choose_report(vertices)
        volumes = {k: report["volume"][k] for k in ("aabb", "sphere", "obb")}
        for k in (14, 18, 26):
            kind = f"kdop{k}"
            volumes[kind] = (report if k == 18 else mixed.choose_report(vertices, k=k))[
                "volume"
            ][kind]
        step("choosing a kind for a rotating object")
        chosen = {
            "static": report["kind"],
            "rotating": mixed.choose(vertices, rotating=True),
        }
        trees = {}
        for kind in KINDS:
            step(f"building the {kind} tree")
            BVH.build(
                tris[:2], node=kind
            )  # compile (or load from cache) outside the timing
            # the leaves a TriangleMesh of this kind gets
            tree, build_s = _timed(BVH.build, tris, node=kind, leaf_size=LEAF_SIZE[kind])
            trees[kind] = {
                "method": DEFAULT_METHOD[kind],
                "leaf_size": LEAF_SIZE[kind],
                "nodes": tree.n_nodes,
                "depth": tree.depth,
                "leaves": tree.n_leaves,
                "build_s": build_s,
            }
        box = np.stack([vertices.min(axis=0), vertices.max(axis=0)])
    smallest = min(volumes.values())
    area = (
        0.5
        * np.linalg.norm(
            np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]), axis=1
        ).sum()
    )
    out = {
        "file": str(args.mesh),
        "vertices": len(vertices),
        "faces": len(faces),
        "bounds": box.tolist(),
        "size": (box[1] - box[0]).tolist(),
        "area": float(area),
        "closed": _closed(faces),
        "volumes": {
            kind: {"volume": vol, "ratio": vol / smallest if smallest > 0 else None}
            for kind, vol in volumes.items()
        },
        "choose": chosen,
        "trees": trees,
    }
    if args.json:
        return _print_json(out)
    con = _console()
    _say(
        con,
        f"[bold]{args.mesh}[/]: {len(vertices):,} vertices, {len(faces):,} triangles, "
        f"{'closed' if out['closed'] else 'open'}, area {area:.4g}",
    )
    _say(
        con, f"bounds: lo {_vec(box[0])}, hi {_vec(box[1])}, size {_vec(box[1] - box[0])}"
    )
    _table(
        con,
        "fitted volumes",
        ["kind", "volume", "x smallest"],
        [
            [k, f"{v['volume']:.4g}", "" if v["ratio"] is None else f"{v['ratio']:.3f}"]
            for k, v in out["volumes"].items()
        ],
    )
    _say(
        con,
        f"choose picks [bold]{chosen['static']}[/] "
        f"({chosen['rotating']} if the object rotates)",
    )
    _table(
        con,
        "trees, as a TriangleMesh of each kind builds them",
        ["node kind", "method", "leaf size", "nodes", "depth", "leaves", "build"],
        [
            [
                k,
                t["method"],
                str(t["leaf_size"]),
                f"{t['nodes']:,}",
                str(t["depth"]),
                f"{t['leaves']:,}",
                _duration(t["build_s"]),
            ]
            for k, t in trees.items()
        ],
    )
    return 0


def _bench(args):
    from pathlib import Path

    from hitbox import report

    run = _benchmarks_module()
    available = run.available()
    names = args.names or available
    unknown = sorted(set(names) - set(available))
    if unknown:
        raise _Failure(
            f"unknown benchmark(s) {', '.join(unknown)}; there are {', '.join(available)}"
        )
    from benchmarks.timing import environment, machine

    if args.out:
        out_dir = Path(args.out)
    else:
        out_dir = run.HERE / "results" / (machine() + ("-quick" if args.quick else ""))
    out_dir.mkdir(parents=True, exist_ok=True)
    peers = args.against
    missing = [p for p in (peers or _PEERS) if not _installed(_PEERS[p])]
    results, csvs, failed = {}, {}, {}
    import importlib

    with _progress(args, len(names)) as step:
        for name in names:
            step(f"benchmark {name}{' (quick)' if args.quick else ''}")
            try:
                module = importlib.import_module(f"benchmarks.bench_{name}")
                with contextlib.redirect_stdout(
                    sys.stderr
                ):  # keep stdout for the results
                    rows = module.run(quick=args.quick)
            except Exception as exc:  # one broken benchmark must not lose the others
                failed[name] = f"{type(exc).__name__}: {exc}"
                continue
            results[name] = rows
            csvs[name] = str(run.write_csv(name, rows, out_dir))
    ratios = report.ratio_rows(results, peers)
    plot = report.plot_ratios(results, out_dir / "ratios.png", peers=peers)
    out = {
        "environment": environment(),
        "quick": args.quick,
        "out": str(out_dir),
        "csv": csvs,
        "plot": None if plot is None else str(plot),
        "ratios": ratios,
        "missing_peers": missing,
        "failed": failed,
        "rows": results,
    }
    if args.json:
        _print_json(out)
        return 1 if failed else 0
    con = _console()
    _table(
        con,
        "hitbox speedup (above 1: hitbox is faster)",
        ["bench", "case", "vs", "ratio"],
        [[r["bench"], r["case"], r["peer"], f"{r['ratio']:.3g}x"] for r in ratios],
    )
    if missing:
        _say(
            con,
            f"not installed, so not compared: {', '.join(missing)} "
            f"(pip install {' '.join(_PIP.get(p, p) for p in missing)})",
        )
    for path in csvs.values():
        _say(con, f"wrote {path}")
    _say(con, f"wrote {plot}" if plot else "no ratios to plot")
    for name, why in failed.items():
        print(f"hitbox bench: benchmark {name} failed: {why}", file=sys.stderr)
    return 1 if failed else 0


# -- argument types ----------------------------------------------------------------------


def _command(sub, name, help_text, description, epilog=None):
    parser = sub.add_parser(name, help=help_text, description=description, epilog=epilog)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def _node_option(parser):
    parser.add_argument(
        "--node",
        choices=NODE_KINDS,
        default=NODE,
        help=f"node kind of the trees (default {NODE})",
    )


def _pose(text):
    from hitbox.files import pose_matrix

    try:
        return pose_matrix(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _count(text, minimum):
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
    return value


def _count0(text):
    return _count(text, 0)


def _count1(text):
    return _count(text, 1)


def _peer_list(text):
    names = [p.strip().lower() for p in text.split(",") if p.strip()]
    unknown = [p for p in names if p not in _PEERS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"peers are {', '.join(_PEERS)}; got {text!r}")
    return names


# -- helpers -----------------------------------------------------------------------------


def _timed(fn, *args, **kwargs):
    """(fn's result, seconds it took)."""
    start = time.perf_counter()
    value = fn(*args, **kwargs)
    return value, time.perf_counter() - start


def _best_time(fn, budget=_TIME_BUDGET, max_repeats=10_000):
    """Best time of repeated warm calls within about ``budget`` seconds (at least one)."""
    best, repeats, start = float("inf"), 0, time.perf_counter()
    while repeats < max_repeats:
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
        repeats += 1
        if time.perf_counter() - start > budget:
            break
    return best, repeats


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


def _closed(faces):
    """Every edge shared by exactly two faces (a closed, manifold-edged surface)."""
    import numpy as np

    edges = np.sort(faces[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2), axis=1)
    keys = edges[:, 0] * (int(faces.max()) + 1) + edges[:, 1]
    _, counts = np.unique(keys, return_counts=True)
    return bool(len(counts)) and bool((counts == 2).all())


def _mesh_summary(path, mesh, seconds):
    return {
        "file": str(path),
        "vertices": len(mesh.vertices),
        "faces": mesh.n_faces,
        "tree_depth": mesh.bvh.depth,
        "load_s": seconds,
    }


def _mesh_line(label, summary):
    return (
        f"{label}: {summary['file']}  {summary['faces']:,} triangles, tree depth "
        f"{summary['tree_depth']} (read and built in {_duration(summary['load_s'])})"
    )


def _benchmarks_module():
    """``benchmarks.run`` of the source tree: from the current folder or beside src/."""
    import importlib
    from pathlib import Path

    import hitbox

    candidates = [Path.cwd(), Path(hitbox.__file__).resolve().parents[2]]
    for root in candidates:
        if (root / "benchmarks" / "run.py").is_file():
            if str(root) not in sys.path:
                sys.path.insert(0, str(root))
            return importlib.import_module("benchmarks.run")
    raise _Failure(
        "no benchmarks/ folder found: the benchmarks ship with hitbox's source "
        "repository, not the installed package; run 'hitbox bench' inside a clone of it"
    )


def _installed(module):
    import importlib.util

    return importlib.util.find_spec(module) is not None


def _plain(value):
    """Strict-JSON data: numpy scalars and arrays as Python ones, NaN and inf as null."""
    import math

    import numpy as np

    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | np.ndarray):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def _print_json(out):
    print(json.dumps(_plain(out), allow_nan=False))
    return 0


def _console():
    try:
        from rich.console import Console
    except ImportError:  # rich is optional: plain text then
        return None
    console = Console(highlight=False, soft_wrap=True)
    if not console.is_terminal:  # piped or logged (make demo): rich would wrap at 80
        console = Console(highlight=False, soft_wrap=True, width=140)
    return console


def _say(console, text):
    if console is None:
        import re

        print(re.sub(r"\[/?[a-z ]*\]", "", text))
    else:
        console.print(text)


def _table(console, title, columns, rows):
    if console is None:
        print(title)
        print("  ".join(columns))
        for row in rows:
            print("  ".join(row))
        return
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for i, col in enumerate(columns):
        table.add_column(col, justify="left" if i == 0 else "right")
    for row in rows:
        table.add_row(*row)
    console.print(table)


def _vec(values):
    return "(" + ", ".join(f"{v:.4g}" for v in values) + ")"


def _duration(seconds):
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds * 1e6:.3g} µs"


@contextlib.contextmanager
def _progress(args, total):
    """A transient rich progress bar on stderr, off for --json or a non-terminal.

    Yields ``step(text)``: marks the previous step done and names the next.
    """
    try:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )
    except ImportError:
        yield lambda text: None
        return
    console = Console(stderr=True)
    enabled = console.is_terminal and not getattr(args, "json", False)
    columns = (
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=True, disable=not enabled) as bar:
        task = bar.add_task("", total=total)
        started = [False]

        def step(text):
            bar.update(task, advance=1 if started[0] else 0, description=text)
            started[0] = True

        yield step
        bar.update(task, completed=total)


if __name__ == "__main__":
    sys.exit(main())
