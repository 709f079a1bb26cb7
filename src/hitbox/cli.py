"""The `hitbox` command. Subcommands import what they need when they run (fast --help).

    hitbox demo                         the tour (``make demo``)
    hitbox collide A.stl B.stl          do two meshes touch? which triangles? how fast?
    hitbox distance A.stl B.stl         how far apart, the closest points and faces
    hitbox points MESH POINTS           closest points, signed distances, inside tests
    hitbox raycast MESH --rays N        random (or given) rays at a mesh: hits, rays/s
    hitbox info MESH                    sizes, fitted volumes, the chosen kind, tree stats
    hitbox bench                        the benchmark suite: table of ratios, CSV, plot
    hitbox warmup                       compile the kernels once, ahead of first use

Every subcommand but ``demo`` takes ``--json`` for scripts. A bad input file gives one
line on stderr and exit status 1; a bad option, argparse's usage message and status 2.
"""

import argparse
import contextlib
import sys
import time

from hitbox._cli_common import (  # noqa: F401 (NODE, NODE_KINDS: read by the tests)
    NODE,
    NODE_KINDS,
    _command,
    _console,
    _count0,
    _count1,
    _Failure,
    _node_option,
    _pose,
    _positive,
    _print_json,
    _progress,
    _say,
    _table,
)
from hitbox._cli_mesh import (  # noqa: F401 (_random_rays, _closed: tested here)
    _closed,
    _cluster_options,
    _collide,
    _distance,
    _info,
    _points,
    _random_rays,
    _raycast,
)

_PEERS = {"coal": "coal", "fcl": "fcl", "trimesh": "trimesh", "pybullet": "pybullet"}
_PIP = {"fcl": "python-fcl"}


def main(argv=None):
    """Run the command line; returns the exit status (0 ok, 1 failure, 2 usage)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    from hitbox import warmup

    all_pairs = getattr(args, "all", False) or getattr(args, "view", None)
    command = "collide --all" if args.command == "collide" and all_pairs else args.command
    from hitbox.files import FileError

    try:
        with warmup.notice(command):
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
    collide.add_argument(
        "--contacts",
        action="store_true",
        help="also give where each crossing triangle pair meets (two end points, world "
        "coordinates; implies --all)",
    )
    collide.add_argument(
        "--inside",
        action="store_true",
        help="also say yes when one closed mesh lies wholly inside the other "
        "(not with --all: containment has no triangle pairs)",
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

    distance = _command(
        sub,
        "distance",
        "how far apart are two mesh files, and where?",
        "Place two meshes in the world: their distance (0 when they touch), the closest "
        "point on each (world coordinates) and their faces, and the time of one query.",
        "Poses as for 'hitbox collide'.",
    )
    distance.add_argument("a", metavar="A", help="first mesh file")
    distance.add_argument("b", metavar="B", help="second mesh file")
    distance.add_argument("--pose-a", type=_pose, metavar="POSE", help="A's pose")
    distance.add_argument("--pose-b", type=_pose, metavar="POSE", help="B's pose")
    distance.add_argument(
        "--max-distance",
        type=_positive,
        metavar="D",
        help="stop once they are known to be at least D apart",
    )
    _node_option(distance)
    distance.set_defaults(run=_distance)

    points = _command(
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
    _node_option(points)
    _cluster_options(points)
    points.set_defaults(run=_points)

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
    info.add_argument(
        "--self-intersections",
        action="store_true",
        help="also list the face pairs that touch though they share no vertex",
    )
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

    warm = sub.add_parser(
        "warmup",
        help="compile the kernels ahead of the first query (once per install)",
        description="Compile hitbox's kernels for the common calls (OBB trees; pair, "
        "many-pose, distance, point, ray and Scene queries) into numba's on-disk cache, "
        "in worker processes so every core compiles. Later runs start in about a second.",
    )
    warm.add_argument(
        "--jobs", type=_count1, metavar="N", help="worker processes (default: the CPUs)"
    )
    warm.set_defaults(run=_warmup)
    return parser


# -- subcommands -------------------------------------------------------------------------


def _warmup(args):
    from hitbox import warmup

    start = time.perf_counter()
    print(
        "hitbox warmup: compiling kernels (once per install)", file=sys.stderr, flush=True
    )

    def progress(name, seconds, done, total):
        print(
            f"  {name:<9} {seconds:6.1f} s  ({done}/{total})", file=sys.stderr, flush=True
        )

    warmup.run(args.jobs, progress)
    print(f"hitbox warmup: done in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return 0


def _demo(args):
    from hitbox import demo

    console = _console()
    sections = None if not args.sections else args.sections.split(",")
    unknown = set(sections or ()) - set(demo.SECTIONS)
    if unknown:
        raise SystemExit(f"hitbox demo: unknown section(s): {', '.join(sorted(unknown))}")
    demo.tour(console, sections, out_dir=args.out, quick=args.quick)
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


def _peer_list(text):
    names = [p.strip().lower() for p in text.split(",") if p.strip()]
    unknown = [p for p in names if p not in _PEERS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"peers are {', '.join(_PEERS)}; got {text!r}")
    return names


# -- helpers -----------------------------------------------------------------------------


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


if __name__ == "__main__":
    sys.exit(main())
