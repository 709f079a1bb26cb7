"""The `hitbox` command: one module per subcommand, each with ``add(sub)`` (its parser)
and ``run(args)`` (its work). Subcommands import what they need when they run (fast --help).

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
import sys

from hitbox.cli import (
    bench,
    collide,
    common,
    demo,
    distance,
    info,
    points,
    raycast,
    warmup,
)

# in the order of `hitbox --help`
SUBCOMMANDS = (demo, collide, distance, points, raycast, info, bench, warmup)


def program():
    """The `hitbox` executable and ``python -m hitbox.cli``: :func:`main` on the
    process's arguments, then every live object frozen out of the garbage collector
    (:func:`gc.freeze`), so that the interpreter's collections at shutdown do not walk
    all that numba's import made (benchmarks/README.md). Finalizers and atexit
    handlers run as before. Returns main's exit status."""
    import gc

    status = main()
    gc.freeze()
    return status


def main(argv=None):
    """Run the command line; returns the exit status (0 ok, 1 failure, 2 usage)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    from hitbox import warmup as compiled

    all_pairs = getattr(args, "all", False) or getattr(args, "view", None)
    command = "collide --all" if args.command == "collide" and all_pairs else args.command
    if args.command == "collide":
        args.treeless = collide.treeless(args, compiled.is_cached(command))
        command = compiled.TREELESS_COLLIDE if args.treeless else command
    try:
        with compiled.notice(command):
            return args.run(args)
    except (_file_error(), common.Failure) as exc:
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


def _file_error():
    """hitbox.io's FileError, imported when an exception is matched: importing hitbox.io
    loads numba (0.3-0.5 s), which must not come before the compile notice."""
    from hitbox.io import FileError

    return FileError


def build_parser():
    """The argument parser of every subcommand."""
    from hitbox import __version__

    parser = argparse.ArgumentParser(
        prog="hitbox",
        description="Collision detection with bounding volumes.",
        epilog="Run 'hitbox COMMAND --help' for a command's options.",
    )
    parser.add_argument("--version", action="version", version=f"hitbox {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in SUBCOMMANDS:
        command.add(sub).set_defaults(run=command.run)
    return parser
