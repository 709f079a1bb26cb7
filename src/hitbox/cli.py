"""The `hitbox` command. Subcommands import what they need when they run (fast --help)."""

import argparse
import sys


def _console():
    try:
        from rich.console import Console
    except ImportError:  # rich is optional: plain text then
        return None
    return Console(highlight=False, soft_wrap=True)


def _demo(args):
    from hitbox import demo

    console = _console()
    sections = None if not args.sections else args.sections.split(",")
    unknown = set(sections or ()) - set(demo.SECTIONS)
    if unknown:
        raise SystemExit(f"hitbox demo: unknown section(s): {', '.join(sorted(unknown))}")
    demo.tour(console, sections)
    return 0


def build_parser():
    from hitbox import __version__

    parser = argparse.ArgumentParser(
        prog="hitbox", description="Collision detection with bounding volumes."
    )
    parser.add_argument("--version", action="version", version=f"hitbox {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="the main job: a tour on the seeds' own examples")
    demo.add_argument("--sections", help="comma-separated subset of the tour's sections")
    demo.set_defaults(run=_demo)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
