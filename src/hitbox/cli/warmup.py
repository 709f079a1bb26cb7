"""``hitbox warmup``: compile the kernels into numba's on-disk cache, once per install."""

import sys
import time

from hitbox.cli import common


def add(sub):
    """The subcommand's parser, added to ``sub`` (argparse's subparsers)."""
    warm = sub.add_parser(
        "warmup",
        help="compile the kernels ahead of the first query (once per install)",
        description="Compile hitbox's kernels for the common calls (OBB trees; pair, "
        "many-pose, distance, point, ray and Scene queries) into numba's on-disk cache, "
        "in worker processes so every core compiles. Later runs start in about a second.",
    )
    warm.add_argument(
        "--jobs",
        type=common.count1,
        metavar="N",
        help="worker processes (default: the CPUs)",
    )
    return warm


def run(args):
    from hitbox import warmup

    start = time.perf_counter()
    print(
        "hitbox warmup: compiling kernels (once per install)", file=sys.stderr, flush=True
    )

    def progress(name, seconds, done, total):
        print(
            f"  {name:<11} {seconds:6.1f} s  ({done}/{total})",
            file=sys.stderr,
            flush=True,
        )

    warmup.run(args.jobs, progress)
    print(f"hitbox warmup: done in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return 0
