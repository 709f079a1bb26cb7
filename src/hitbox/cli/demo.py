"""``hitbox demo``: the tour of hitbox on the seeds' own examples (``make demo``)."""

from hitbox.cli import common


def add(sub):
    """The subcommand's parser, added to ``sub`` (argparse's subparsers)."""
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
    return demo


def run(args):
    from hitbox import demo

    console = common.console()
    sections = None if not args.sections else args.sections.split(",")
    unknown = set(sections or ()) - set(demo.SECTIONS)
    if unknown:
        raise SystemExit(f"hitbox demo: unknown section(s): {', '.join(sorted(unknown))}")
    demo.tour(console, sections, out_dir=args.out, quick=args.quick)
    return 0
