"""hitbox: collision detection with bounding volumes, batched over numpy arrays.

Submodules load on first use (``hitbox.aabb``, ``hitbox.bvh`` ...), so ``import hitbox``
is cheap and the command line starts fast.
"""

import importlib
import os

# numba's OpenMP layer spins its idle threads by default: on a shared machine a parallel
# kernel then runs far slower than its serial twin (benchmarks/README.md). Passive
# waiting keeps the parallel paths fast; a user's own setting wins.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from hitbox._types import OBBs, Rays, Spheres

__version__ = "0.1.0"

_SUBMODULES = (
    "aabb",
    "kdop",
    "sphere",
    "obb",
    "mixed",
    "ray",
    "sweep",
    "triangle",
    "bvh",
    "mesh",
    "treeless",
    "distance",
    "volume_distance",
    "shapes",
    "convex",
    "poses",
    "broadphase",
    "pipeline",
    "io",
    "view",
    "report",
)
_LAZY_NAMES = {"BVH": "bvh", "TriangleMesh": "mesh", "Scene": "pipeline"}

__all__ = ["OBBs", "Rays", "Spheres", "__version__", *_SUBMODULES, *_LAZY_NAMES]


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f"hitbox.{name}")
    if name in _LAZY_NAMES:
        return getattr(importlib.import_module(f"hitbox.{_LAZY_NAMES[name]}"), name)
    raise AttributeError(f"module 'hitbox' has no attribute {name!r}")


def __dir__():
    return sorted(__all__)
