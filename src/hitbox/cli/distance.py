"""``hitbox distance A B``: how far apart two placed mesh files are, and where."""

from hitbox.cli import common


def add(sub):
    """The subcommand's parser, added to ``sub`` (argparse's subparsers)."""
    distance = common.command(
        sub,
        "distance",
        "how far apart are two mesh files, and where?",
        "Place two meshes in the world: their distance (0 when they touch), the closest "
        "point on each (world coordinates) and their faces, and the time of one query.",
        "Poses as for 'hitbox collide'.",
    )
    distance.add_argument("a", metavar="A", help="first mesh file")
    distance.add_argument("b", metavar="B", help="second mesh file")
    distance.add_argument("--pose-a", type=common.pose, metavar="POSE", help="A's pose")
    distance.add_argument("--pose-b", type=common.pose, metavar="POSE", help="B's pose")
    distance.add_argument(
        "--max-distance",
        type=common.positive,
        metavar="D",
        help="stop once they are known to be at least D apart",
    )
    common.node_option(distance)
    return distance


def run(args):
    import numpy as np

    with common.progress(args, 4) as step:
        a, b, a_s, b_s, pose_a, pose_b, relative = common.two_meshes(args, step)
        limit = np.inf if args.max_distance is None else args.max_distance
        step("first query (compiles on a first run)")
        result, first_s = common.timed(a.distance, b, relative, max_distance=limit)
        step("timing warm queries")
        best_s, repeats = common.best_time(
            lambda: a.distance(b, relative, max_distance=limit)
        )
    # the closest points back in world coordinates (A's pose on A's frame)
    world = [pose_a[:3, :3] @ x + pose_a[:3, 3] for x in (result.point_a, result.point_b)]
    out = {
        "a": common.mesh_summary(args.a, a, a_s),
        "b": common.mesh_summary(args.b, b, b_s),
        "pose_a": pose_a.tolist(),
        "pose_b": pose_b.tolist(),
        "distance": result.distance,
        "touching": result.distance == 0.0,
        "point_a": world[0].tolist(),
        "point_b": world[1].tolist(),
        "face_a": result.face_a,
        "face_b": result.face_b,
        "max_distance": limit,
        "time": {"first_call_s": first_s, "query_s": best_s, "repeats": repeats},
    }
    if args.json:
        return common.print_json(out)
    con = common.console()
    common.say(con, common.mesh_line("A", out["a"]))
    common.say(con, common.mesh_line("B", out["b"]))
    if result.face_a < 0:
        common.say(con, f"distance: at least {limit:.6g} (--max-distance)")
    else:
        touching = "  (touching)" if out["touching"] else ""
        common.say(con, f"distance: [bold]{result.distance:.9g}[/]{touching}")
        common.say(
            con,
            f"closest points (world): A {common.vec(world[0])} on face {result.face_a}, "
            f"B {common.vec(world[1])} on face {result.face_b}",
        )
    common.say(
        con,
        f"query: {common.duration(best_s)} (best of {repeats} warm runs; "
        f"first call {common.duration(first_s)})",
    )
    return 0
