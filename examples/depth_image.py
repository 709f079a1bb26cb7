"""A depth image by ray casting: one ray per pixel from a pinhole camera.

    python examples/depth_image.py [OUT_DIR]      (default: report/examples)

Casts 240 x 320 rays at a torus (a mesh of about 10,000 triangles) and saves the
distance to the first hit of each as depth.png (white: no hit).
"""

import sys
import time
from pathlib import Path

import numpy as np
import trimesh
from matplotlib.figure import Figure

from hitbox import TriangleMesh


def camera_rays(eye, target, height, width, fov_degrees=40.0):
    """Origins and unit directions (height * width, 3) of a pinhole camera."""
    forward = (target - eye) / np.linalg.norm(target - eye)
    right = np.cross(forward, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    up = np.cross(right, forward)
    half = np.tan(np.radians(fov_degrees) / 2)
    v, u = np.meshgrid(
        np.linspace(half, -half, height),
        np.linspace(-half * width / height, half * width / height, width),
        indexing="ij",
    )
    directions = forward + u[..., None] * right + v[..., None] * up
    directions /= np.linalg.norm(directions, axis=-1, keepdims=True)
    origins = np.broadcast_to(eye, directions.shape)
    return origins.reshape(-1, 3), directions.reshape(-1, 3)


def main(out_dir):
    out_dir.mkdir(parents=True, exist_ok=True)
    torus = trimesh.creation.torus(1.0, 0.35, major_sections=128, minor_sections=40)
    mesh = TriangleMesh.from_trimesh(torus)
    height, width = 240, 320
    origins, directions = camera_rays(
        np.array([3.0, -3.0, 2.5]), np.zeros(3), height, width
    )
    mesh.raycast(origins[:8192], directions[:8192])  # compile (or load) the kernels
    start = time.perf_counter()
    hits = mesh.raycast(origins, directions)  # RayHits(hit, t, face, u, v)
    seconds = time.perf_counter() - start
    print(
        f"{mesh}\n{len(origins):,} rays in {seconds * 1e3:.1f} ms "
        f"({len(origins) / seconds:,.0f} rays/s), {hits.hit.mean():.0%} hit"
    )

    depth = np.where(hits.hit, hits.t, np.nan).reshape(height, width)
    fig = Figure(figsize=(6.4, 4.8), layout="constrained")
    ax = fig.add_subplot()
    image = ax.imshow(depth, cmap="viridis_r")
    ax.set_axis_off()
    ax.set_title("distance to the first hit")
    fig.colorbar(image, ax=ax, shrink=0.8)
    fig.savefig(out_dir / "depth.png", dpi=100)
    print(f"wrote {out_dir / 'depth.png'}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "report/examples"))
