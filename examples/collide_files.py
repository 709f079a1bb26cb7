"""Two mesh files: do they touch, which triangles, and a 3D view of the answer.

    python examples/collide_files.py [OUT_DIR]      (default: report/examples)

Writes a torus (STL) and a capsule (OBJ), reads them back with hitbox.io, places the
capsule across the torus's tube, lists the colliding triangle pairs with their contact
segments, and writes view.html: open it in a browser and drag to turn it.
"""

import sys
from pathlib import Path

import numpy as np
import trimesh

from hitbox import io, view


def main(out_dir):
    out_dir.mkdir(parents=True, exist_ok=True)
    trimesh.creation.torus(1.0, 0.3, major_sections=64, minor_sections=16).export(
        out_dir / "torus.stl"
    )
    trimesh.creation.capsule(height=2.0, radius=0.2).export(out_dir / "capsule.obj")

    torus = io.load_mesh(out_dir / "torus.stl")  # an OBB tree, built once
    capsule = io.load_mesh(out_dir / "capsule.obj")
    # The capsule stands through the tube at x = 1, tilted 30 degrees about y.
    pose = io.pose_matrix("1.0 0 0 0 30 0")

    print(f"torus: {torus}\ncapsule: {capsule}")
    print("touch:", torus.intersect(capsule, pose))
    contacts = torus.contacts(capsule, pose)
    print(f"{contacts.faces.shape[1]} triangle pairs cross; the first three:")
    for (i, j), seg in zip(contacts.faces.T[:3], contacts.segments[:3], strict=False):
        print(
            f"  torus face {i} x capsule face {j}: from {np.round(seg[0], 3)} "
            f"to {np.round(seg[1], 3)}"
        )
    moved = pose.copy()
    moved[0, 3] = 3.0
    print("moved to x = 3, touch:", torus.intersect(capsule, moved))

    written = view.write_html(
        out_dir / "view.html",
        [(torus, None, None, "torus.stl"), (capsule, pose, None, "capsule.obj")],
        volumes_depth=3,
        highlight={0: contacts.faces[0], 1: contacts.faces[1]},
        title="torus and capsule",
    )
    print(f"wrote {written.path} ({written.objects} objects)")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "report/examples"))
