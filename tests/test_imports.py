"""Imports only go down (STYLE §1): parse every module's imports and check the layer."""

import ast
from pathlib import Path

SRC = Path(__file__).parent.parent / "src" / "hitbox"

# Lower number = lower layer. A module may import its own layer or any lower one.
LAYERS = {
    "_types": 0,
    "_affine": 0,
    "_torus": 0,
    "_kernels": 1,
    "_direct_call": 1,  # a compiled kernel called without numba's dispatch
    "_validate": 1,
    "_scale_groups": 1,
    "io.common": 1,  # io's FileError and checks, under io.saved
    "io.saved": 1,  # saved trees' .npz format, read and written under bvh
    "aabb": 2,
    "poses": 2,
    "convex": 5,
    "kdop": 3,
    "sphere": 3,
    "obb": 3,
    "mixed": 4,
    "triangle": 4,
    "treeless": 4,  # two meshes without trees: the triangle test over a sweep
    "ray": 4,
    "sweep": 4,
    "bvh": 5,
    "_bvh_check": 5,
    "broadphase": 5,
    "mesh": 6,
    "_mesh_probe": 6,
    "_mesh_collide": 6,
    "_mesh_shapes": 6,
    "_containment": 6,
    "_scene_objects": 6,
    "_scene_buffers": 6,
    "_scene_results": 6,
    "_scene_brute": 6,
    "_scene_editing": 6,
    "_scene_tlas": 6,
    "_scene_convex_queries": 6,
    "_scene_planar": 6,
    "distance": 5,
    "_mesh_hull": 5,
    "volume_distance": 5,
    "pipeline": 7,
    "scene_queries": 7,
    "shapes": 7,
    "experiment": 8,
    "demo": 9,
    "report": 8,
    "io": 8,
    "dask": 8,
    "view": 8,
    "warmup": 8,
    "cli": 10,
    "__init__": 10,
}


def _key(parts):
    """The LAYERS key of module hitbox.<parts>: its own ("io.saved") where it has one,
    else its top package's or its own name ("io", "cli", "bvh")."""
    dotted = ".".join(parts[:2])
    return dotted if dotted in LAYERS else parts[0]


def _layer(path):
    rel = path.relative_to(SRC).with_suffix("")
    return _key(rel.parts)


def _imported(tree):
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.startswith("hitbox")
        ):
            parts = node.module.split(".")
            if len(parts) > 1:
                yield from (_key([*parts[1:], alias.name]) for alias in node.names)
            else:
                yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "hitbox" and len(parts) > 1:
                    yield _key(parts[1:])


def test_every_module_has_a_layer():
    names = {_layer(p) for p in SRC.rglob("*.py")}
    assert names <= set(LAYERS), f"modules without a layer: {names - set(LAYERS)}"


def test_imports_only_go_down():
    upward = []
    for path in SRC.rglob("*.py"):
        here = _layer(path)
        for target in _imported(ast.parse(path.read_text())):
            if target in LAYERS and LAYERS[target] > LAYERS[here]:
                upward.append(f"{path.relative_to(SRC)} imports {target}")
    assert not upward, upward


def test_kernels_import_nothing_of_ours_but_kernels():
    for path in (SRC / "_kernels").glob("*.py"):
        for target in _imported(ast.parse(path.read_text())):
            assert target == "_kernels", f"{path.name} imports hitbox.{target}"
