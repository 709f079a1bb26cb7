"""Time per step of one torus sliding through another, for three kinds of tree.

    python examples/time_per_step.py [OUT_DIR]      (default: report/examples)

Moves a torus across another in 120 steps and times the query "do they touch?" at each
step with OBB, sphere and AABB trees; hitbox.report.plot_steps draws the times as
steps.png. Where the tori are apart the root volumes settle it at once; near contact
the trees descend, and their kinds differ.
"""

import sys
import time
from pathlib import Path

import numpy as np
import trimesh

from hitbox import TriangleMesh, report


def best_time(fn, repeats=5):
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main(out_dir):
    out_dir.mkdir(parents=True, exist_ok=True)
    torus = trimesh.creation.torus(1.0, 0.3, major_sections=100, minor_sections=25)
    vertices, faces = np.asarray(torus.vertices), np.asarray(torus.faces)
    path = np.linspace(-3.5, 3.5, 120)  # x of the moving torus, turned 90 degrees about x
    poses = np.repeat(np.eye(4)[None], len(path), axis=0)
    poses[:, :3, :3] = [[1, 0, 0], [0, 0, -1], [0, 1, 0]]
    poses[:, 0, 3] = path
    times = {}
    for node in ("obb", "sphere", "aabb"):
        mesh = TriangleMesh(vertices, faces, node=node)
        mesh.intersect(mesh, poses[0])  # compile (or load) the kernels first
        steps = [
            best_time(lambda pose=pose, m=mesh: m.intersect(m, pose)) for pose in poses
        ]
        times[f"{node} tree"] = np.array(steps)
        touching = sum(mesh.intersect(mesh, pose) for pose in poses)
        print(
            f"{node:6s} tree: {sum(steps) * 1e3:7.2f} ms over {len(poses)} steps, "
            f"touching in {touching}"
        )
    png = report.plot_steps(
        times,
        out_dir / "steps.png",
        steps=path,
        title="two 5,000-triangle tori: is there contact?",
        xlabel="x of the moving torus",
    )
    print(f"wrote {png}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "report/examples"))
