"""``hitbox collide A B``: do two placed mesh files touch, and which triangles?"""

from hitbox.cli import common


def add(sub):
    """The subcommand's parser, added to ``sub`` (argparse's subparsers)."""
    collide = common.command(
        sub,
        "collide",
        "do two mesh files touch, and which triangles?",
        "Place two meshes in the world and test them with their trees: whether they "
        "touch (touching counts), the colliding triangle pairs with --all, and the "
        "time of one warm query. While the trees' kernels are not compiled (before "
        "'hitbox warmup'), it answers without trees, the triangles' boxes swept along "
        "one axis, and says so: the same answer, compiled in seconds, not half a minute.",
        "A pose is 6 numbers 'x y z rx ry rz' (rotations in degrees about the fixed x, "
        "then y, then z axes) or 16 numbers of a 4x4 matrix, row by row; quote it, or "
        "write --pose-b=-1,0,0,0,0,0 when it starts with a minus.",
    )
    collide.add_argument(
        "a", metavar="A", help="first mesh file (STL, OBJ, PLY, GLB, OFF)"
    )
    collide.add_argument("b", metavar="B", help="second mesh file")
    collide.add_argument(
        "--pose-a", type=common.pose, metavar="POSE", help="A's pose (identity)"
    )
    collide.add_argument(
        "--pose-b", type=common.pose, metavar="POSE", help="B's pose (identity)"
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
    common.node_option(collide)
    collide.add_argument(
        "--view",
        metavar="OUT.html",
        help="write a 3D view of the meshes with the colliding triangles",
    )
    collide.add_argument(
        "--depth",
        type=common.count0,
        default=3,
        metavar="D",
        help="tree depth of the volumes drawn in --view (default 3)",
    )
    return collide


def treeless(args, trees_cached):
    """Whether to answer without trees (:mod:`hitbox.treeless`): when the trees'
    kernels are not compiled (``trees_cached`` False: a first run on an empty cache,
    where compiling them would take half a minute) and nothing asked needs a tree
    (--view, --inside, --contacts, a --node kind other than the default). The answer is
    the same; no tree query is timed."""
    needs_trees = (
        args.view
        or getattr(args, "inside", False)
        or args.contacts
        or args.node != common.NODE
    )
    return trees_cached is False and not needs_trees


def run(args):
    if getattr(args, "contacts", False):
        args.all = True  # contact segments are per crossing triangle pair
    if args.all and getattr(args, "inside", False):
        raise common.Failure(
            "--inside needs the any mode: containment has no triangle pairs"
        )
    if getattr(args, "treeless", False):
        return _run_treeless(args)
    with common.progress(args, 4) as step:
        a, b, a_s, b_s, pose_a, pose_b, relative = common.two_meshes(args, step)
        mode = "all" if args.all else "any"
        inside = bool(getattr(args, "inside", False)) and not args.all
        step("first query (compiles on a first run)")
        result, first_s = common.timed(a.intersect, b, relative, mode=mode, inside=inside)
        step("timing warm queries")
        best_s, repeats = common.best_time(
            lambda: a.intersect(b, relative, mode=mode, inside=inside)
        )
        pairs = result if args.all else None
        if args.view and pairs is None:
            pairs = a.intersect(b, relative, mode="all")
    collides = bool(result) if not args.all else bool(result.shape[1])
    out = {
        "a": common.mesh_summary(args.a, a, a_s),
        "b": common.mesh_summary(args.b, b, b_s),
        "node": args.node,
        "pose_a": pose_a.tolist(),
        "pose_b": pose_b.tolist(),
        "collide": collides,
        "mode": mode,
        "inside": inside,
        "time": {"first_call_s": first_s, "query_s": best_s, "repeats": repeats},
    }
    if args.all:
        out["n_pairs"] = int(pairs.shape[1])
        out["pairs"] = pairs.T.tolist()
    if getattr(args, "contacts", False):
        # where each crossing triangle pair meets, how deep and which way, moved from
        # A's frame to the world
        found = a.contacts(b, relative)
        out["segments"] = (found.segments @ pose_a[:3, :3].T + pose_a[:3, 3]).tolist()
        out["normals"] = (found.normals @ pose_a[:3, :3].T).tolist()
        out["depths"] = found.depths.tolist()
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
        return common.print_json(out)
    con = common.console()
    common.say(con, common.mesh_line("A", out["a"]))
    common.say(con, common.mesh_line("B", out["b"]))
    _say_verdict(con, out, f"{args.node} trees")
    shown = zip(out.get("segments", []), out.get("pairs", []), out.get("depths", []),
                strict=False)  # fmt: skip
    for (p, q), (i, j), depth in list(shown)[:3]:
        ends = " to ".join("(" + ", ".join(f"{x:.6g}" for x in e) + ")" for e in (p, q))
        common.say(con, f"  ({i}, {j}) meet from {ends}, depth {depth:.6g}")
    common.say(
        con,
        f"query: {common.duration(best_s)} (best of {repeats} warm runs; "
        f"first call {common.duration(first_s)})",
    )
    if args.view:
        common.say(con, f"wrote {out['view']}")
    return 0


def _run_treeless(args):
    """:func:`run` without trees: the meshes read, the triangles' boxes swept along one
    axis, the exact triangle test where they meet (:func:`hitbox.treeless.intersect`)."""
    import numpy as np

    from hitbox import treeless
    from hitbox.io import read_mesh

    mode = "all" if args.all else "any"
    pose_a = np.eye(4) if args.pose_a is None else args.pose_a
    pose_b = np.eye(4) if args.pose_b is None else args.pose_b
    with common.progress(args, 4) as step:
        step(f"reading {args.a}")
        (va, fa), a_s = common.timed(read_mesh, args.a)
        step(f"reading {args.b}")
        (vb, fb), b_s = common.timed(read_mesh, args.b)
        tris_a, tris_b = va[fa], vb[fb]
        relative = np.linalg.inv(pose_a) @ pose_b

        def query():
            return treeless.intersect(tris_a, tris_b, relative, mode=mode)

        step("first query (compiles on a first run)")
        try:
            result, first_s = common.timed(query)
        except ValueError as exc:  # sets far apart in magnitude: the trees answer them
            if "2**100 times nearer" not in str(exc):
                raise
            args.treeless = False
            return run(args)
        step("timing warm queries")
        best_s, repeats = common.best_time(query)
    collides = bool(result) if not args.all else bool(result.shape[1])
    out = {
        "a": _summary(args.a, va, fa, a_s),
        "b": _summary(args.b, vb, fb, b_s),
        "node": None,
        "pose_a": pose_a.tolist(),
        "pose_b": pose_b.tolist(),
        "collide": collides,
        "mode": mode,
        "inside": False,
        "time": {"first_call_s": first_s, "query_s": best_s, "repeats": repeats},
        "trees": "none: their kernels are not compiled yet ('hitbox warmup'); the "
        "triangles' boxes swept along one axis answered",
    }
    if args.all:
        out["n_pairs"] = int(result.shape[1])
        out["pairs"] = result.T.tolist()
    if args.json:
        return common.print_json(out)
    con = common.console()
    for label in ("a", "b"):
        s = out[label]
        common.say(
            con,
            f"{label.upper()}: {s['file']}  {s['faces']:,} triangles "
            f"(read in {common.duration(s['load_s'])})",
        )
    _say_verdict(con, out, "no trees")
    common.say(
        con,
        f"query: {common.duration(best_s)} without trees (best of {repeats} warm runs; "
        f"first call {common.duration(first_s)}); 'hitbox warmup' compiles the trees' "
        "kernels, which later runs use",
    )
    return 0


def _summary(path, vertices, faces, seconds):
    return {
        "file": str(path),
        "vertices": len(vertices),
        "faces": len(faces),
        "tree_depth": None,
        "load_s": seconds,
    }


def _say_verdict(con, out, how):
    """The verdict line, and the first colliding pairs with --all."""
    verdict = "[bold red]yes[/]" if out["collide"] else "[bold green]no[/]"
    count = f", {out['n_pairs']} triangle pairs" if "n_pairs" in out else ""
    common.say(con, f"collide: {verdict}{count}   ({how}, mode {out['mode']!r})")
    if out.get("n_pairs"):
        shown = out["pairs"][:10]
        more = out["n_pairs"] - len(shown)
        text = ", ".join(f"({i}, {j})" for i, j in shown)
        common.say(
            con,
            f"pairs (A face, B face): {text}" + (f", ... {more} more" if more else ""),
        )
