"""The ``hitbox`` subcommands on mesh files: collide, distance, points, raycast and
info. Each imports what it needs when it runs."""

import time

from hitbox._cli_common import (
    _best_time,
    _console,
    _count1,
    _duration,
    _Failure,
    _mesh_line,
    _mesh_summary,
    _print_json,
    _progress,
    _say,
    _table,
    _timed,
    _vec,
)


def _two_meshes(args, step):
    """Meshes A and B read, their poses, and B's frame into A's (the relative placement
    the trees are tested at): (a, b, a_s, b_s, pose_a, pose_b, relative)."""
    import numpy as np

    from hitbox import files

    pose_a = np.eye(4) if args.pose_a is None else args.pose_a
    pose_b = np.eye(4) if args.pose_b is None else args.pose_b
    step(f"reading {args.a}")
    a, a_s = _timed(files.load_mesh, args.a, node=args.node)
    step(f"reading {args.b}")
    b, b_s = _timed(files.load_mesh, args.b, node=args.node)
    return a, b, a_s, b_s, pose_a, pose_b, np.linalg.inv(pose_a) @ pose_b


def _collide(args):
    if getattr(args, "contacts", False):
        args.all = True  # contact segments are per crossing triangle pair
    if args.all and getattr(args, "inside", False):
        raise _Failure("--inside needs the any mode: containment has no triangle pairs")
    with _progress(args, 4) as step:
        a, b, a_s, b_s, pose_a, pose_b, relative = _two_meshes(args, step)
        mode = "all" if args.all else "any"
        inside = bool(getattr(args, "inside", False)) and not args.all
        step("first query (compiles on a first run)")
        result, first_s = _timed(a.intersect, b, relative, mode=mode, inside=inside)
        step("timing warm queries")
        best_s, repeats = _best_time(
            lambda: a.intersect(b, relative, mode=mode, inside=inside)
        )
        pairs = result if args.all else None
        if args.view and pairs is None:
            pairs = a.intersect(b, relative, mode="all")
    collides = bool(result) if not args.all else bool(result.shape[1])
    out = {
        "a": _mesh_summary(args.a, a, a_s),
        "b": _mesh_summary(args.b, b, b_s),
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
        # where each crossing triangle pair meets, moved from A's frame to the world
        seg = a.contacts(b, relative).segments @ pose_a[:3, :3].T + pose_a[:3, 3]
        out["segments"] = seg.tolist()
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
        return _print_json(out)
    con = _console()
    _say(con, _mesh_line("A", out["a"]))
    _say(con, _mesh_line("B", out["b"]))
    verdict = "[bold red]yes[/]" if collides else "[bold green]no[/]"
    count = f", {out['n_pairs']} triangle pairs" if args.all else ""
    _say(con, f"collide: {verdict}{count}   ({args.node} trees, mode {mode!r})")
    if args.all and out["n_pairs"]:
        shown = out["pairs"][:10]
        more = out["n_pairs"] - len(shown)
        text = ", ".join(f"({i}, {j})" for i, j in shown)
        _say(
            con,
            f"pairs (A face, B face): {text}" + (f", ... {more} more" if more else ""),
        )
    shown = zip(out.get("segments", []), out.get("pairs", []), strict=False)
    for (p, q), (i, j) in list(shown)[:3]:
        ends = " to ".join("(" + ", ".join(f"{x:.6g}" for x in e) + ")" for e in (p, q))
        _say(con, f"  ({i}, {j}) meet from {ends}")
    _say(
        con,
        f"query: {_duration(best_s)} (best of {repeats} warm runs; "
        f"first call {_duration(first_s)})",
    )
    if args.view:
        _say(con, f"wrote {out['view']}")
    return 0


def _raycast(args):
    import numpy as np

    from hitbox import array_files, files

    on_cluster = args.scheduler is not None or args.workers is not None
    with _progress(args, 2 if on_cluster else 4) as step:
        step(f"reading {args.mesh}")
        mesh, load_s = _timed(files.load_mesh, args.mesh, node=args.node)
        step("making rays")
        if args.from_npy:
            origins, directions = array_files.load_rays(args.from_npy)
            source = str(args.from_npy)
        else:
            n = 100_000 if args.rays is None else args.rays
            origins, directions = _random_rays(mesh.vertices, n, args.seed)
            source = f"random, seed {args.seed}"
    if on_cluster:
        hits, cluster, best_s = _raycast_on_cluster(args, mesh, origins, directions)
        first_s, repeats = best_s, 1
    else:
        cluster = None
        hits, first_s, best_s, repeats = _raycast_here(args, mesh, origins, directions)
    n_hits = int(np.count_nonzero(hits.hit))
    n = len(origins)
    out = {
        "mesh": _mesh_summary(args.mesh, mesh, load_s),
        "node": args.node,
        "rays": n,
        "source": source,
        "mode": args.mode,
        "hits": n_hits,
        "hit_fraction": n_hits / n,
        "mean_t": float(hits.t[hits.hit].mean()) if n_hits else None,
        "time": {"first_call_s": first_s, "cast_s": best_s, "repeats": repeats},
        "rays_per_s": n / best_s if best_s > 0 else None,
    }
    if cluster is not None:
        out["cluster"] = cluster
    if args.json:
        return _print_json(out)
    con = _console()
    _say(con, _mesh_line("mesh", out["mesh"]))
    _say(con, f"rays: {n:,} ({source}), mode {args.mode!r}, {args.node} tree")
    if cluster is not None:
        _say(con, f"cluster: {cluster['workers']} workers at {cluster['scheduler']}, "
                  f"{cluster['chunks']} chunks")  # fmt: skip
    _say(con, f"hits: {n_hits:,} ({100 * n_hits / n:.1f} %)")
    rate = f"{out['rays_per_s']:,.0f} rays/s" if out["rays_per_s"] else "too fast to time"
    how = "one run on the cluster" if cluster is not None else f"best of {repeats}"
    _say(
        con,
        f"time: {_duration(best_s)} per cast of all rays, [bold]{rate}[/] "
        f"({how}; first call {_duration(first_s)})",
    )
    return 0


def _raycast_here(args, mesh, origins, directions):
    with _progress(args, 2) as step:
        step("first cast (compiles on a first run)")
        warm = min(
            len(origins), 8192
        )  # the same kernel (serial or parallel) as the full cast
        _, first_s = _timed(
            mesh.raycast, origins[:warm], directions[:warm], mode=args.mode
        )
        step(f"casting {len(origins):,} rays")
        hits = mesh.raycast(origins, directions, mode=args.mode)
        best_s, repeats = _best_time(
            lambda: mesh.raycast(origins, directions, mode=args.mode), budget=0.5
        )
    return hits, first_s, best_s, repeats


def _raycast_on_cluster(args, mesh, origins, directions):
    """The cast on a Dask cluster (--scheduler or --workers), with its progress."""
    with _cluster(args) as client:
        from hitbox import dask as hd

        start = time.perf_counter()
        lazy = hd.raycast(mesh, origins, directions, mode=args.mode, client=client)
        hits = type(lazy)(*_on_cluster(args, client, lazy, "casting rays"))
        seconds = time.perf_counter() - start
        about = {
            "scheduler": client.scheduler.address,
            "workers": len(client.scheduler_info()["workers"]),
            "chunks": len(lazy.hit.chunks[0]),
        }
    return hits, about, seconds


def _cluster_options(parser):
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run on the Dask cluster at ADDRESS (e.g. tcp://host:8786); needs "
        "pip install hitbox[dask]",
    )
    group.add_argument(
        "--workers",
        type=_count1,
        metavar="N",
        help="run on a local Dask cluster of N worker processes",
    )


def _cluster(args):
    """A distributed Client for --scheduler or --workers; Dask is imported only here."""
    try:
        from distributed import Client

        from hitbox import dask as hd
    except ImportError as exc:
        raise _Failure(f"{exc}") from None
    if args.workers is not None:
        return hd.local_cluster(args.workers)
    try:
        return Client(args.scheduler, timeout="10s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise _Failure(
            f"cannot reach a Dask scheduler at {args.scheduler}: {exc}"
        ) from None


def _on_cluster(args, client, arrays, label):
    """Compute dask arrays on ``client``, a bar of the chunks done on stderr."""
    import dask
    from distributed import as_completed, futures_of

    persisted = client.persist(list(arrays))
    futures = futures_of(persisted)
    with _progress(args, len(futures) + 1) as step:
        step(f"{label} on the cluster: {len(futures)} tasks")
        for done, _ in enumerate(as_completed(futures), 1):
            step(f"{label} on the cluster: {done}/{len(futures)} tasks")
        return dask.compute(*persisted, scheduler=client)


def _info(args):
    import numpy as np

    from hitbox import files, mixed
    from hitbox.bvh import BVH, DEFAULT_METHOD, KINDS
    from hitbox.mesh import LEAF_SIZE

    with _progress(args, 4 + len(KINDS)) as step:
        step(f"reading {args.mesh}")
        vertices, faces = files.read_mesh(args.mesh)
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
            tree, build_s = _timed(BVH.build, tris, node=kind, leaf_size=LEAF_SIZE[kind])
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
        return _print_json(out)
    con = _console()
    _say(
        con,
        f"[bold]{args.mesh}[/]: {len(vertices):,} vertices, {len(faces):,} triangles, "
        f"{'closed' if out['closed'] else 'open'}, area {area:.4g}",
    )
    _say(
        con, f"bounds: lo {_vec(box[0])}, hi {_vec(box[1])}, size {_vec(box[1] - box[0])}"
    )
    _table(
        con,
        "fitted volumes",
        ["kind", "volume", "x smallest"],
        [
            [k, f"{v['volume']:.4g}", "" if v["ratio"] is None else f"{v['ratio']:.3f}"]
            for k, v in out["volumes"].items()
        ],
    )
    _say(
        con,
        f"choose picks [bold]{chosen['static']}[/] "
        f"({chosen['rotating']} if the object rotates)",
    )
    _table(
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
                _duration(t["build_s"]),
            ]
            for k, t in trees.items()
        ],
    )
    if self_pairs is not None:
        n = self_pairs.shape[1]
        shown = ", ".join(f"{a}-{b}" for a, b in self_pairs.T[:8].tolist())
        _say(
            con,
            f"self-intersections: [bold]{n:,}[/] face pairs sharing no vertex touch"
            + (f" (faces {shown}{', ...' if n > 8 else ''})" if n else ""),
        )
    return 0


def _random_rays(vertices, n, seed):
    """Rays from a sphere around the mesh, aimed at points of its bounding box."""
    import numpy as np

    rng = np.random.default_rng(seed)
    lo, hi = vertices.min(axis=0), vertices.max(axis=0)
    centre = 0.5 * (lo + hi)
    radius = max(float(np.linalg.norm(hi - lo)), 1e-9)
    start = rng.normal(size=(n, 3))
    start /= np.linalg.norm(start, axis=1, keepdims=True)
    origins = centre + 2.0 * radius * start
    targets = rng.uniform(lo, hi, size=(n, 3))
    directions = targets - origins
    return origins, directions


def _closed(faces):
    """Every edge shared by exactly two faces (a closed, manifold-edged surface)."""
    import numpy as np

    edges = np.sort(faces[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2), axis=1)
    keys = edges[:, 0] * (int(faces.max()) + 1) + edges[:, 1]
    _, counts = np.unique(keys, return_counts=True)
    return bool(len(counts)) and bool((counts == 2).all())


def _distance(args):
    import numpy as np

    with _progress(args, 4) as step:
        a, b, a_s, b_s, pose_a, pose_b, relative = _two_meshes(args, step)
        limit = np.inf if args.max_distance is None else args.max_distance
        step("first query (compiles on a first run)")
        result, first_s = _timed(a.distance, b, relative, max_distance=limit)
        step("timing warm queries")
        best_s, repeats = _best_time(lambda: a.distance(b, relative, max_distance=limit))
    # the closest points back in world coordinates (A's pose on A's frame)
    world = [pose_a[:3, :3] @ x + pose_a[:3, 3] for x in (result.point_a, result.point_b)]
    out = {
        "a": _mesh_summary(args.a, a, a_s),
        "b": _mesh_summary(args.b, b, b_s),
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
        return _print_json(out)
    con = _console()
    _say(con, _mesh_line("A", out["a"]))
    _say(con, _mesh_line("B", out["b"]))
    if result.face_a < 0:
        _say(con, f"distance: at least {limit:.6g} (--max-distance)")
    else:
        _say(con, f"distance: [bold]{result.distance:.9g}[/]"
                  + ("  (touching)" if out["touching"] else ""))  # fmt: skip
        _say(con, f"closest points (world): A {_vec(world[0])} on face {result.face_a}, "
                  f"B {_vec(world[1])} on face {result.face_b}")  # fmt: skip
    _say(con, f"query: {_duration(best_s)} (best of {repeats} warm runs; "
              f"first call {_duration(first_s)})")  # fmt: skip
    return 0


def _points(args):
    import numpy as np

    from hitbox import array_files, files

    on_cluster = args.scheduler is not None or args.workers is not None
    with _progress(args, 3) as step:
        step(f"reading {args.mesh}")
        mesh, load_s = _timed(files.load_mesh, args.mesh, node=args.node)
        step(f"reading {args.points}")
        points = array_files.load_points(args.points)
        if not on_cluster:
            step("closest points and inside tests (compiles on a first run)")
            start = time.perf_counter()
            near = mesh.closest_point(points)
            inside = mesh.contains(points)
            seconds = time.perf_counter() - start
    cluster = None
    if on_cluster:
        near, inside, cluster, seconds = _points_on_cluster(args, mesh, points)
    signed = np.where(inside, -near.distance, near.distance)
    signed[near.distance == 0.0] = 0.0
    out = {
        "mesh": _mesh_summary(args.mesh, mesh, load_s),
        "points": len(points),
        "inside": int(inside.sum()),
        "seconds": seconds,
    }
    if cluster is not None:
        out["cluster"] = cluster
    if args.out:
        table = np.column_stack([signed, near.face, near.point, inside])
        np.save(args.out, table)
        out["out"] = str(args.out)
    if args.json:
        out["signed_distance"] = signed.tolist()
        out["face"] = near.face.tolist()
        out["closest"] = near.point.tolist()
        return _print_json(out)
    con = _console()
    _say(con, _mesh_line("mesh", out["mesh"]))
    rate = len(points) / seconds if seconds > 0 else float("inf")
    _say(con, f"{len(points):,} points: {out['inside']:,} inside; {rate:,.0f} points/s "
              "(closest point and inside test, first call included)")  # fmt: skip
    if len(points):
        _table(con, "first points", ["point", "signed distance", "face", "closest"],
               [[_vec(points[k]), f"{signed[k]:.6g}", str(near.face[k]),
                 _vec(near.point[k])] for k in range(min(5, len(points)))])  # fmt: skip
    if args.out:
        _say(
            con, f"wrote {out['out']} (N, 6): signed distance, face, closest xyz, inside"
        )
    return 0


def _points_on_cluster(args, mesh, points):
    """Closest points and inside tests on a Dask cluster (--scheduler or --workers)."""
    import numpy as np

    with _cluster(args) as client:
        from hitbox import dask as hd

        start = time.perf_counter()
        near = hd.closest_point(mesh, points, client=client)
        inside = hd.contains(mesh, points, client=client)
        parts = _on_cluster(args, client, [*near, inside], "point queries")
        seconds = time.perf_counter() - start
        about = {
            "scheduler": client.scheduler.address,
            "workers": len(client.scheduler_info()["workers"]),
            "chunks": len(inside.chunks[0]),
        }
    near = type(near)(*parts[:-1])
    return near, np.asarray(parts[-1]), about, seconds
