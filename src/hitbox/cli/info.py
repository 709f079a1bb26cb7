"""``hitbox info MESH``: a mesh's size, fitted volumes, the chosen kind and tree statistics."""

from hitbox.cli import common


def add(sub):
    """The subcommand's parser, added to ``sub`` (argparse's subparsers)."""
    info = common.command(
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
    return info


def run(args):
    import numpy as np

    from hitbox import mixed
    from hitbox.bvh import BVH, DEFAULT_METHOD, KINDS
    from hitbox.io import read_mesh
    from hitbox.mesh import LEAF_SIZE

    with common.progress(args, 4 + len(KINDS)) as step:
        step(f"reading {args.mesh}")
        vertices, faces = read_mesh(args.mesh)
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
            tree, build_s = common.timed(
                BVH.build, tris, node=kind, leaf_size=LEAF_SIZE[kind]
            )
            trees[kind] = {
                "method": DEFAULT_METHOD[kind],
                "leaf_size": LEAF_SIZE[kind],
                "nodes": tree.n_nodes,
                "depth": tree.depth,
                "leaves": tree.n_leaves,
                "build_s": build_s,
            }
        box = np.stack([vertices.min(axis=0), vertices.max(axis=0)])
        self_pairs = None
        if args.self_intersections:
            from hitbox.mesh import TriangleMesh

            step("self-intersections (faces sharing no vertex)")
            self_pairs = TriangleMesh(vertices, faces).self_intersections()
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
    if self_pairs is not None:
        out["self_intersections"] = {
            "n_pairs": int(self_pairs.shape[1]),
            "pairs": self_pairs.T.tolist(),
        }
    if args.json:
        return common.print_json(out)
    con = common.console()
    common.say(
        con,
        f"[bold]{args.mesh}[/]: {len(vertices):,} vertices, {len(faces):,} triangles, "
        f"{'closed' if out['closed'] else 'open'}, area {area:.4g}",
    )
    common.say(
        con,
        f"bounds: lo {common.vec(box[0])}, hi {common.vec(box[1])}, "
        f"size {common.vec(box[1] - box[0])}",
    )
    common.table(
        con,
        "fitted volumes",
        ["kind", "volume", "x smallest"],
        [
            [k, f"{v['volume']:.4g}", "" if v["ratio"] is None else f"{v['ratio']:.3f}"]
            for k, v in out["volumes"].items()
        ],
    )
    common.say(
        con,
        f"choose picks [bold]{chosen['static']}[/] "
        f"({chosen['rotating']} if the object rotates)",
    )
    common.table(
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
                common.duration(t["build_s"]),
            ]
            for k, t in trees.items()
        ],
    )
    if self_pairs is not None:
        n = self_pairs.shape[1]
        shown = ", ".join(f"{a}-{b}" for a, b in self_pairs.T[:8].tolist())
        common.say(
            con,
            f"self-intersections: [bold]{n:,}[/] face pairs sharing no vertex touch"
            + (f" (faces {shown}{', ...' if n > 8 else ''})" if n else ""),
        )
    return 0


def _closed(faces):
    """Every edge shared by exactly two faces (a closed, manifold-edged surface)."""
    import numpy as np

    edges = np.sort(faces[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2), axis=1)
    keys = edges[:, 0] * (int(faces.max()) + 1) + edges[:, 1]
    _, counts = np.unique(keys, return_counts=True)
    return bool(len(counts)) and bool((counts == 2).all())
