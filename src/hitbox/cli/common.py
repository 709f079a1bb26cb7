"""What every ``hitbox`` subcommand shares: option types, timing, reading two placed
meshes, and the output (rich tables and progress on a terminal, ``--json`` for scripts).
Imports only the standard library at load time, so ``hitbox --help`` stays fast."""

import argparse
import contextlib
import time

# Seconds of repeated warm calls when timing one query (the best is reported).
_TIME_BUDGET = 0.02
# hitbox.bvh.KINDS and hitbox.mesh.NODE, written out so that --help imports no numba
# (tests/test_cli.py checks they agree).
NODE_KINDS = ("aabb", "sphere", "obb", "kdop14", "kdop18", "kdop26")
NODE = "obb"


class Failure(Exception):
    """A one-line error for the user (no traceback)."""


def command(sub, name, help_text, description, epilog=None):
    parser = sub.add_parser(name, help=help_text, description=description, epilog=epilog)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def node_option(parser):
    parser.add_argument(
        "--node",
        choices=NODE_KINDS,
        default=NODE,
        help=f"node kind of the trees (default {NODE})",
    )


def pose(text):
    from hitbox.io import pose_matrix

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


def positive(text):
    """A finite float > 0, for argparse."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not (0.0 < value < float("inf")):
        raise argparse.ArgumentTypeError(f"must be finite and > 0, got {text}")
    return value


def count0(text):
    return _count(text, 0)


def count1(text):
    return _count(text, 1)


def timed(fn, *args, **kwargs):
    """(fn's result, seconds it took)."""
    start = time.perf_counter()
    value = fn(*args, **kwargs)
    return value, time.perf_counter() - start


def best_time(fn, budget=_TIME_BUDGET, max_repeats=1_000):
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


def two_meshes(args, step):
    """Meshes A and B read, their poses, and B's frame into A's (the relative placement
    the trees are tested at): (a, b, a_s, b_s, pose_a, pose_b, relative)."""
    import numpy as np

    from hitbox.io import load_mesh

    pose_a = np.eye(4) if args.pose_a is None else args.pose_a
    pose_b = np.eye(4) if args.pose_b is None else args.pose_b
    step(f"reading {args.a}")
    a, a_s = timed(load_mesh, args.a, node=args.node)
    step(f"reading {args.b}")
    b, b_s = timed(load_mesh, args.b, node=args.node)
    return a, b, a_s, b_s, pose_a, pose_b, np.linalg.inv(pose_a) @ pose_b


def mesh_summary(path, mesh, seconds):
    return {
        "file": str(path),
        "vertices": len(mesh.vertices),
        "faces": mesh.n_faces,
        "tree_depth": mesh.bvh.depth,
        "load_s": seconds,
    }


def mesh_line(label, summary):
    return (
        f"{label}: {summary['file']}  {summary['faces']:,} triangles, tree depth "
        f"{summary['tree_depth']} (read and built in {duration(summary['load_s'])})"
    )


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


def print_json(out):
    import json

    print(json.dumps(_plain(out), allow_nan=False))
    return 0


def console():
    try:
        from rich.console import Console
    except ImportError:  # rich is optional: plain text then
        return None
    console = Console(highlight=False, soft_wrap=True)
    if not console.is_terminal:  # piped or logged (make demo): rich would wrap at 80
        console = Console(highlight=False, soft_wrap=True, width=140)
    return console


def say(console, text):
    if console is None:
        import re

        print(re.sub(r"\[/?[a-z ]*\]", "", text))
    else:
        console.print(text)


def table(console, title, columns, rows):
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


def vec(values):
    return "(" + ", ".join(f"{v:.4g}" for v in values) + ")"


def duration(seconds):
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds * 1e6:.3g} µs"


@contextlib.contextmanager
def progress(args, total):
    """A transient rich progress bar on stderr, off for --json or a non-terminal.

    Yields ``step(text)``: marks the previous step done and names the next.
    """
    try:
        from rich.console import Console
    except ImportError:
        yield lambda text: None
        return
    console = Console(stderr=True)
    if not console.is_terminal or getattr(args, "json", False):
        yield lambda text: None  # no bar to draw: rich.progress left unimported
        return
    from rich.progress import (
        BarColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    columns = (
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("", total=total)
        started = [False]

        def step(text):
            bar.update(task, advance=1 if started[0] else 0, description=text)
            started[0] = True

        yield step
        bar.update(task, completed=total)
