"""Seed 003's experiment (SPEC §10), shipped: two tori along a trajectory.

    hitbox demo                             # runs it, with the report folder
    python -m benchmarks.paper [--quick] [--out DIR]

Scene 1: two tori of 5,000 triangles; scene 2: 5,000 and 20,000 (the paper's two scenes).
Torus A rests at the origin (static). Torus B, turned 90° about x like the next link of a
chain, starts 4.5 away on the x axis and moves with constant acceleration: it runs into A,
passes through A's tube (contact), threads A's hole and comes to rest interlocked with it
like a chain link, then goes back the way it came, through contact, and away. It also
turns slowly about a fixed axis. Its poses are those :meth:`hitbox.pipeline.Scene.step`
integrates (recorded once), so every method sees bit-identical poses.

Methods, each asked for the contacts at every step:

- ``OBB only`` (the paper's baseline): OBB trees, tree against tree at every step.
- ``sphere cull, then OBB`` (the paper's method): the two bounding spheres first; the OBB
  tree query only if they overlap.
- ``hitbox Scene``: hitbox's method, a :class:`~hitbox.pipeline.Scene` stepped in one
  compiled call per step (pretreatment and scheduling, mixed per-object volumes, the
  narrow phase with its witness pairs), on trees of the node kind measured fastest here.
- ``hitbox Scene.run, steps in one call``: the same Scene, every step in one compiled
  call (:meth:`~hitbox.pipeline.Scene.run`), the same motion and pairs; its time is the
  whole call's, spread evenly over the steps.
- ``hitbox, whole trajectory in one call``: the trajectory is known, as a motion planner's
  is: one vectorised sphere cull over all steps, then every surviving pose in one
  :meth:`~hitbox.mesh.TriangleMesh.intersect_many` call.

Contacts are compared at every step and must be identical: with ``mode="all"`` the
colliding triangle pairs, with ``mode="any"`` whether the tori touch. Each method runs
the whole trajectory once to compile and warm up, then ``repeats`` more times; a step's
time is its minimum over the repeats. The Scene's time includes its own integration of
the motion, which the other two are handed for free; like the trees, the Scene is built
before the timer (its first query, at time 0, packs its tables: about 0.5 ms).
"""

import argparse
import os
import platform
import time
from pathlib import Path

import numpy as np

from hitbox import sphere
from hitbox._torus import torus_mesh
from hitbox.bvh import KINDS
from hitbox.mesh import TriangleMesh
from hitbox.pipeline import Scene
from hitbox.report import write_rows


def environment():
    import numba

    return {
        "cpu": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "numba_threads": numba.get_num_threads(),
        "numba": numba.__version__,
        "numpy": np.__version__,
    }


#: The paper's two scenes: triangles of torus A and torus B.
SCENES = {"scene 1 (5k + 5k)": (5_000, 5_000), "scene 2 (5k + 20k)": (5_000, 20_000)}
METHODS = (
    "OBB only",
    "sphere cull, then OBB",
    "hitbox Scene",
    "hitbox Scene.run, steps in one call",
    "hitbox, whole trajectory in one call",
)
MODES = ("all", "any")
STEPS = 200
#: The trajectory lasts this many seconds, whatever the number of steps.
DURATION = 10.0
#: B's start (x), velocity and acceleration along x: turns round at x = 1.0, t = 5 s.
START_X, VELOCITY_X, ACCEL_X = 4.5, -1.4, 0.28
#: B's angular velocity (rad/s, world axes): a slow turn about y (its own axis) and x.
OMEGA = (0.05, 0.3, 0.0)
#: B's centre sits this far off A's plane, so contacts are not mirror-symmetric.
OFFSET_Z = 0.05
CHAIN_LINK = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])


def run(quick=False, out_dir=None, repeats=None, steps=None):
    """Run both scenes in both modes; write CSVs and the plot; return everything.

    Returns a dict: ``rows`` (one per scene, mode and step: contacts, each method's
    seconds and the Scene's stage counts), ``summary`` (one per scene, mode and method:
    mean and total time per step, speedup over OBB only), ``trees`` (seconds per node
    kind), ``csv``, ``summary_csv``, ``png`` (paths), ``environment``.
    """
    steps = steps or (60 if quick else STEPS)
    repeats = repeats or (2 if quick else 3)
    kinds = ("obb", "aabb", "sphere") if quick else KINDS
    out = Path(out_dir or Path.cwd() / "report")
    out.mkdir(parents=True, exist_ok=True)
    rows, summary, trees = [], [], []
    for scene_name, (n_a, n_b) in SCENES.items():
        verts_a, faces_a = torus_mesh(n_a)
        verts_b, faces_b = torus_mesh(n_b)
        meshes = {
            kind: (TriangleMesh(verts_a, faces_a, node=kind),
                   TriangleMesh(verts_b, faces_b, node=kind))
            for kind in kinds
        }  # fmt: skip
        poses = _trajectory(*meshes["obb"], steps)
        for mode in MODES:
            best, timing = _fastest_tree(meshes, poses, mode)
            trees += [
                {"scene": scene_name, "mode": mode, "node": kind, "seconds": t,
                 "chosen": kind == best}
                for kind, t in timing.items()
            ]  # fmt: skip
            scene_rows = _compare(meshes["obb"], meshes[best], poses, mode, repeats)
            for r in scene_rows:
                r.update(scene=scene_name, mode=mode, node=best)
            rows += scene_rows
            summary += _summarise(scene_name, mode, best, scene_rows)
    paths = {
        "csv": write_rows(out / "paper.csv", rows),
        "summary_csv": write_rows(out / "paper_summary.csv", summary),
        "trees_csv": write_rows(out / "paper_trees.csv", trees),
    }
    paths["png"] = _plot(rows, out / "paper.png")
    return {
        "rows": rows,
        "summary": summary,
        "trees": trees,
        **paths,
        "environment": environment(),
    }


# -- the trajectory -------------------------------------------------------------------


def _torus_scene(mesh_a, mesh_b):
    """A Scene with A at rest and B starting its run: the trajectory's one definition."""
    scene = Scene()
    a = scene.add(mesh_a, static=True, name="A")
    pose = np.eye(4)
    pose[:3, :3] = CHAIN_LINK
    pose[:3, 3] = (START_X, 0.0, OFFSET_Z)
    b = scene.add(
        mesh_b,
        pose,
        velocity=(VELOCITY_X, 0.0, 0.0),
        acceleration=(ACCEL_X, 0.0, 0.0),
        angular_velocity=OMEGA,
        name="B",
    )
    return scene, a, b


def _trajectory(mesh_a, mesh_b, steps):
    """B's pose (in A's frame, A being at the identity) after each of ``steps`` steps."""
    scene, _, b = _torus_scene(mesh_a, mesh_b)
    poses = np.empty((steps, 4, 4))
    for k in range(steps):
        scene.step(DURATION / steps)
        poses[k] = scene.pose(b)
    return poses


# -- the three methods ------------------------------------------------------------------


def _obb_only(mesh_a, mesh_b, poses, mode, times, contacts):
    for k, pose in enumerate(poses):
        start = time.perf_counter()
        found = mesh_a.intersect(mesh_b, pose, mode=mode)
        times[k] = time.perf_counter() - start
        contacts[k] = found


def _sphere_cull(mesh_a, mesh_b, poses, mode, times, contacts, balls):
    (ca, ra), (cb, rb) = balls
    reach2 = (ra + rb) ** 2 * (1.0 + 1e-9)  # rounding must never cull a touch
    cb_h = np.append(cb, 1.0)  # B's centre in homogeneous coordinates
    for k, pose in enumerate(poses):
        start = time.perf_counter()
        d = (pose @ cb_h)[:3] - ca
        if d @ d > reach2:
            found = False if mode == "any" else _NONE
        else:
            found = mesh_a.intersect(mesh_b, pose, mode=mode)
        times[k] = time.perf_counter() - start
        contacts[k] = found


def _hitbox(mesh_a, mesh_b, steps, mode, times, contacts, stats):
    scene, _, _ = _torus_scene(mesh_a, mesh_b)
    scene.query()  # the scene is built before the timer: its first query packs its tables
    dt = DURATION / steps
    for k in range(steps):
        start = time.perf_counter()
        result = scene.step(dt, mode=mode)
        times[k] = time.perf_counter() - start
        if mode == "any":
            contacts[k] = result.pairs.shape[1] > 0
        else:
            contacts[k] = (
                result.triangles[:, result.offsets[0] : result.offsets[1]]
                if (result.pairs.shape[1])
                else _NONE
            )
        stats[k] = result.stats


_NONE = np.empty((2, 0), np.intp)


def _hitbox_run(mesh_a, mesh_b, steps, mode, times, contacts):
    scene, _, _ = _torus_scene(mesh_a, mesh_b)
    scene.query()  # as in _hitbox
    start = time.perf_counter()
    run = scene.run(DURATION / steps, steps, mode=mode)
    times[:] = (time.perf_counter() - start) / steps
    for k in range(steps):
        result = run[k]
        if mode == "any":
            contacts[k] = result.pairs.shape[1] > 0
        else:
            contacts[k] = (
                result.triangles[:, result.offsets[0] : result.offsets[1]]
                if result.pairs.shape[1]
                else _NONE
            )


def _batched(mesh_a, mesh_b, poses, mode, times, contacts, balls):
    """A known trajectory checked at once, as a motion planner would: one vectorised
    sphere cull over all steps, then the surviving poses in one parallel call. The time
    is the whole call's, spread evenly over the steps."""
    (ca, ra), (cb, rb) = balls
    start = time.perf_counter()
    centres = poses[:, :3, :3] @ cb + poses[:, :3, 3]
    gap2 = ((centres - ca) ** 2).sum(axis=1)
    near = np.flatnonzero(gap2 <= (ra + rb) ** 2 * (1.0 + 1e-9))
    result = mesh_a.intersect_many(mesh_b, poses[near], mode=mode)
    elapsed = time.perf_counter() - start
    times[:] = elapsed / len(poses)
    if mode == "any":
        hit = np.zeros(len(poses), bool)
        hit[near] = result
        contacts[:] = [bool(h) for h in hit]
        return
    split = np.searchsorted(result[0], np.arange(len(near) + 1))
    per_step = [_NONE] * len(poses)
    for q, k in enumerate(near):
        per_step[k] = np.ascontiguousarray(result[1:, split[q] : split[q + 1]])
    contacts[:] = per_step


def _compare(obb_meshes, best_meshes, poses, mode, repeats):
    """Per-step rows: every method's min time over the repeats; contacts checked equal."""
    steps = len(poses)
    obb_a, obb_b = obb_meshes
    best_a, best_b = best_meshes
    verts_a, verts_b = obb_a.vertices, obb_b.vertices
    balls = [_ball(verts_a), _ball(verts_b)]
    times = {m: np.full((repeats + 1, steps), np.inf) for m in METHODS}
    found = {m: [None] * steps for m in METHODS}
    stats = [None] * steps
    for r in range(repeats + 1):  # round 0 compiles and warms up
        _obb_only(obb_a, obb_b, poses, mode, times["OBB only"][r], found["OBB only"])
        _sphere_cull(
            obb_a,
            obb_b,
            poses,
            mode,
            times["sphere cull, then OBB"][r],
            found["sphere cull, then OBB"],
            balls,
        )
        _hitbox(
            best_a,
            best_b,
            steps,
            mode,
            times["hitbox Scene"][r],
            found["hitbox Scene"],
            stats,
        )
        _hitbox_run(
            best_a,
            best_b,
            steps,
            mode,
            times["hitbox Scene.run, steps in one call"][r],
            found["hitbox Scene.run, steps in one call"],
        )
        _batched(
            best_a,
            best_b,
            poses,
            mode,
            times["hitbox, whole trajectory in one call"][r],
            found["hitbox, whole trajectory in one call"],
            balls,
        )
        for k in range(steps):
            ref = found["OBB only"][k]
            for m in METHODS[1:]:
                if not np.array_equal(found[m][k], ref):
                    raise AssertionError(
                        f"{m} disagrees with OBB only at step {k} ({mode})"
                    )
    best = {m: t[1:].min(axis=0) for m, t in times.items()}
    rows = []
    for k in range(steps):
        ref = found["OBB only"][k]
        s = stats[k]
        rows.append(
            {
                "step": k + 1,
                "t": round((k + 1) * DURATION / steps, 10),
                "x": float(poses[k, 0, 3]),
                "colliding": bool(ref) if mode == "any" else bool(ref.shape[1]),
                "triangle_pairs": "" if mode == "any" else int(ref.shape[1]),
                **{f"seconds {m}": float(best[m][k]) for m in METHODS},
                "scheduled": s.skipped_scheduled,
                "far": s.skipped_far,
                "volumes_rejected": s.rejected_by_volumes,
                "narrow_tested": s.narrow_tested,
            }
        )
    return rows


def _ball(verts):
    b = sphere.fit(verts, method="welzl")
    return np.asarray(b.center, dtype=np.float64), float(b.radius)


def _fastest_tree(meshes, poses, mode):
    """Seconds of the tree-vs-tree query over every 4th pose, per node kind (min of 3);
    and the fastest kind."""
    sample = poses[::4]
    timing = {}
    for kind, (a, b) in meshes.items():
        a.intersect(b, sample[0], mode=mode)
        best = np.inf
        for _ in range(3):
            start = time.perf_counter()
            for pose in sample:
                a.intersect(b, pose, mode=mode)
            best = min(best, time.perf_counter() - start)
        timing[kind] = best
    return min(timing, key=timing.get), timing


# -- output ----------------------------------------------------------------------------


def _summarise(scene_name, mode, node, rows):
    base = np.mean([r["seconds OBB only"] for r in rows])
    out = []
    for m in METHODS:
        t = np.array([r[f"seconds {m}"] for r in rows])
        out.append(
            {
                "scene": scene_name,
                "mode": mode,
                "method": m,
                "node": node if m.startswith("hitbox Scene") else "obb",
                "mean_us": 1e6 * float(t.mean()),
                "total_ms": 1e3 * float(t.sum()),
                "speedup_vs_obb_only": float(base / t.mean()),
                "time_saved_pct": 100.0 * float(1.0 - t.mean() / base),
                "steps": len(rows),
                "colliding_steps": sum(r["colliding"] for r in rows),
            }
        )
    return out


def _plot(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scenes = list(dict.fromkeys(r["scene"] for r in rows))
    fig, axes = plt.subplots(
        len(MODES),
        len(scenes),
        figsize=(6.5 * len(scenes), 7),
        sharex=True,
        squeeze=False,
    )
    for col, scene_name in enumerate(scenes):
        for row, mode in enumerate(MODES):
            ax = axes[row, col]
            sel = [r for r in rows if r["scene"] == scene_name and r["mode"] == mode]
            t = np.array([r["t"] for r in sel])
            hit = np.array([r["colliding"] for r in sel])
            for m, style in zip(METHODS, ("-", "--", "-", "-.", ":"), strict=True):
                ax.plot(t, [1e6 * r[f"seconds {m}"] for r in sel], style, label=m, lw=1.2)
            ax.set_yscale("log")
            lo, hi = ax.get_ylim()
            ax.fill_between(
                t, lo, hi, where=hit, color="0.9", step="mid", label="touching"
            )
            ax.set_ylim(lo, hi)
            ax.set_title(f"{scene_name}, mode={mode!r}")
            ax.set_ylabel("µs per step")
            if row == len(MODES) - 1:
                ax.set_xlabel("time along the trajectory (s)")
    axes[0, 0].legend(loc="upper left", fontsize=8)
    fig.suptitle("Seed 003's experiment: two tori interlocking like chain links")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _print(summary, trees, console=None):
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        for r in summary:
            print(r)
        return
    table = Table(title="Seed 003: time per step, two tori (min over repeats)")
    for col in (
        "scene",
        "mode",
        "method",
        "node",
        "µs / step",
        "total ms",
        "speedup vs OBB only",
        "time saved",
    ):
        table.add_column(col)
    for r in summary:
        table.add_row(
            r["scene"],
            r["mode"],
            r["method"],
            r["node"],
            f"{r['mean_us']:.1f}",
            f"{r['total_ms']:.2f}",
            f"{r['speedup_vs_obb_only']:.2f}x",
            f"{r['time_saved_pct']:+.1f} %",
        )
    console = console or Console()
    console.print(table)
    kinds = Table(title="Tree-vs-tree seconds over every 4th pose, by node kind")
    for col in ("scene", "mode", "node", "seconds", "chosen"):
        kinds.add_column(col)
    for r in trees:
        kinds.add_row(
            r["scene"],
            r["mode"],
            r["node"],
            f"{r['seconds']:.5f}",
            "yes" if r["chosen"] else "",
        )
    console.print(kinds)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="60 steps over the same trajectory, 2 repeats, 3 node kinds",
    )
    parser.add_argument("--out", help="folder for the CSV files and the plot")
    args = parser.parse_args(argv)
    print("environment:", environment())
    result = run(quick=args.quick, out_dir=args.out)
    _print(result["summary"], result["trees"])
    for key in ("csv", "summary_csv", "trees_csv", "png"):
        print("wrote", result[key])


if __name__ == "__main__":
    main()
