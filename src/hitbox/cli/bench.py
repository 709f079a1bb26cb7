"""``hitbox bench``: the benchmark suite of the source tree's benchmarks/ folder, its
ratios table, CSV files and plot."""

import argparse
import contextlib
import sys

from hitbox.cli import common

_PEERS = {"coal": "coal", "fcl": "fcl", "trimesh": "trimesh", "pybullet": "pybullet"}
_PIP = {"fcl": "python-fcl"}


def add(sub):
    """The subcommand's parser, added to ``sub`` (argparse's subparsers)."""
    bench = common.command(
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
    return bench


def run(args):
    from pathlib import Path

    from hitbox import report

    run = _benchmarks_module()
    available = run.available()
    names = args.names or available
    unknown = sorted(set(names) - set(available))
    if unknown:
        raise common.Failure(
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

    with common.progress(args, len(names)) as step:
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
        common.print_json(out)
        return 1 if failed else 0
    con = common.console()
    common.table(
        con,
        "hitbox speedup (above 1: hitbox is faster)",
        ["bench", "case", "vs", "ratio"],
        [[r["bench"], r["case"], r["peer"], f"{r['ratio']:.3g}x"] for r in ratios],
    )
    if missing:
        common.say(
            con,
            f"not installed, so not compared: {', '.join(missing)} "
            f"(pip install {' '.join(_PIP.get(p, p) for p in missing)})",
        )
    for path in csvs.values():
        common.say(con, f"wrote {path}")
    common.say(con, f"wrote {plot}" if plot else "no ratios to plot")
    for name, why in failed.items():
        print(f"hitbox bench: benchmark {name} failed: {why}", file=sys.stderr)
    return 1 if failed else 0


def _peer_list(text):
    names = [p.strip().lower() for p in text.split(",") if p.strip()]
    unknown = [p for p in names if p not in _PEERS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"peers are {', '.join(_PEERS)}; got {text!r}")
    return names


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
    raise common.Failure(
        "no benchmarks/ folder found: the benchmarks ship with hitbox's source "
        "repository, not the installed package; run 'hitbox bench' inside a clone of it"
    )


def _installed(module):
    import importlib.util

    return importlib.util.find_spec(module) is not None
