"""The `hitbox` command end to end, and the file readers under it (hitbox.io).

Meshes are generated with trimesh.creation and written to a temporary folder; every
subcommand runs in-process through ``main([...])``; one test runs the installed entry
point. Bad inputs must give one line on stderr, a non-zero status and no traceback.
"""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import trimesh

import hitbox
from hitbox import cli, io
from hitbox.bvh import KINDS
from hitbox.cli import common, info, raycast
from hitbox.mesh import NODE, TriangleMesh

# -- fixtures ----------------------------------------------------------------------------

GOOD = {
    "torus.stl": lambda: trimesh.creation.torus(
        1.0, 0.3, major_sections=40, minor_sections=12
    ),
    "box.obj": lambda: trimesh.creation.box((1.0, 1.0, 1.0)),
    "ball.ply": lambda: trimesh.creation.icosphere(2),
    "capsule.glb": lambda: trimesh.creation.capsule(1.0, 0.3),
    "cylinder.off": lambda: trimesh.creation.cylinder(0.5, 1.0),
}

OBJ_HEAD = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\n"
BAD = {
    "corrupt.stl": bytes(80) + (1000).to_bytes(4, "little") + bytes(100),  # truncated
    "garbled.stl": b"solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0\nendloop\n",
    "empty.stl": b"",
    "nan.obj": b"v 0 0 0\nv 1 0 0\nv nan 1 0\nf 1 2 3\n",
    "segment.obj": (OBJ_HEAD + "f 1 2 3\nf 3 4\n").encode(),
    "lines.obj": (OBJ_HEAD + "l 1 2\nl 2 3\n").encode(),
    "segment.off": b"OFF\n4 2 0\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n3 0 1 2\n2 2 3\n",
    "past.obj": (OBJ_HEAD + "f 1 2 9\n").encode(),
    "flat.obj": b"v 0 0\nv 1 0\nv 0 1\nf 1 2 3\n",
    "mesh.xyz": b"0 0 0\n",
}
BAD_REASON = {
    "missing.stl": "no such file",
    "corrupt.stl": "corrupt binary STL",
    "garbled.stl": "no triangles",
    "empty.stl": "empty",
    "nan.obj": "NaN",
    "segment.obj": "face of 2 vertices",
    "lines.obj": "no triangles",
    "segment.off": "face of 2 vertices",
    "past.obj": "indexes past the 4 vertices",
    "flat.obj": "3 coordinates",
    "mesh.xyz": "unknown mesh type",
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("meshes")
    for name, make in GOOD.items():
        make().export(root / name)
    for name, data in BAD.items():
        (root / name).write_bytes(data)
    return root


def run(capsys, *argv):
    """main(argv) in-process: (status, stdout, stderr)."""
    try:
        status = cli.main([str(a) for a in argv])
    except SystemExit as exc:  # argparse: --help (0) and usage errors (2)
        status = exc.code
    out, err = capsys.readouterr()
    return status, out, err


def run_json(capsys, *argv):
    status, out, err = run(capsys, *argv, "--json")
    assert status == 0, err
    return json.loads(out)


def shift(x, y=0.0, z=0.0):
    pose = np.eye(4)
    pose[:3, 3] = x, y, z
    return pose


# -- the parser --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command", [[], ["demo"], ["collide"], ["raycast"], ["info"], ["bench"]]
)
def test_every_subcommand_has_help(capsys, command):
    status, out, _ = run(capsys, *command, "--help")
    assert status == 0
    assert out.startswith("usage: hitbox")
    if command and command != ["demo"]:
        assert "--json" in out


def test_version(capsys):
    status, out, _ = run(capsys, "--version")
    assert status == 0 and out.strip() == f"hitbox {hitbox.__version__}"


def test_the_program_returns_mains_status_and_freezes_what_is_alive(
    capsys, monkeypatch, folder
):
    """`hitbox` (the console script and ``python -m hitbox.cli``) runs program(): main's
    status, every object then alive frozen out of the collector for a quick exit."""
    import gc
    import tomllib

    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert project["project"]["scripts"]["hitbox"] == "hitbox.cli:program"
    main_module = Path(cli.__file__).with_name("__main__.py").read_text()
    assert "sys.exit(program())" in main_module
    box, missing = str(folder / "box.obj"), str(folder / "no-such.obj")
    for argv, want in ((["hitbox", "info", box], 0), (["hitbox", "info", missing], 1)):
        monkeypatch.setattr(sys, "argv", argv)
        assert gc.get_freeze_count() == 0
        try:
            assert cli.program() == want
            assert gc.get_freeze_count() > 0
        finally:
            gc.unfreeze()  # this test process goes on: let the collector see them again
    capsys.readouterr()


def test_node_kinds_written_in_the_cli_match_the_library():
    assert common.NODE_KINDS == KINDS
    assert common.NODE == NODE


def test_help_imports_no_kernels():
    code = "import sys; from hitbox.cli import build_parser; build_parser(); " + (
        "print(sorted(m for m in sys.modules if m.startswith(('numba', 'hitbox.bvh'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


def test_demo_rejects_an_unknown_section(capsys):
    with pytest.raises(SystemExit, match="unknown section"):
        cli.main(["demo", "--sections", "no-such-section"])


@pytest.mark.parametrize(
    "pose", ["1 2", "1 2 3 4 5 x", "nan 0 0 0 0 0", " ".join(["1"] * 16), "1 " * 15 + "2"]
)
def test_a_bad_pose_is_a_usage_error(capsys, folder, pose):
    status, _, err = run(
        capsys, "collide", folder / "box.obj", folder / "box.obj", f"--pose-b={pose}"
    )
    assert status == 2
    assert "--pose-b" in err and "Traceback" not in err


# -- collide -----------------------------------------------------------------------------


def test_collide_finds_the_pairs_the_library_finds(capsys, folder):
    a = io.load_mesh(folder / "torus.stl")
    got = run_json(
        capsys,
        "collide",
        folder / "torus.stl",
        folder / "torus.stl",
        "--pose-b",
        "1.5 0 0 90 0 0",
        "--all",
    )
    want = a.intersect(a, io.pose_matrix("1.5 0 0 90 0 0"), mode="all")
    assert got["collide"] is True
    assert got["n_pairs"] == want.shape[1] > 0
    assert got["pairs"] == want.T.tolist()
    assert got["a"]["faces"] == got["b"]["faces"] == a.n_faces
    assert got["time"]["query_s"] > 0 and got["time"]["repeats"] >= 1


@pytest.mark.parametrize("mode", [[], ["--all"]])
def test_collide_without_compiled_trees_answers_treeless(capsys, folder, monkeypatch,
                                                            mode):  # fmt: skip
    """While the trees' kernels are not on disk, collide answers without trees (the
    same answer); a --node kind or --view still takes the trees."""
    from hitbox import warmup

    monkeypatch.setattr(
        warmup, "is_cached", lambda command: command == warmup.TREELESS_COLLIDE
    )
    argv = [
        "collide",
        folder / "torus.stl",
        folder / "torus.stl",
        "--pose-b",
        "1.5 0 0 90 0 0",
    ]
    swept = run_json(capsys, *argv, *mode)
    a = io.load_mesh(folder / "torus.stl")
    want = a.intersect(a, io.pose_matrix("1.5 0 0 90 0 0"), mode="all")
    assert swept["collide"] is True and swept["node"] is None
    assert swept["a"]["tree_depth"] is None and "hitbox warmup" in swept["trees"]
    if mode:
        assert swept["pairs"] == want.T.tolist()
    trees = run_json(capsys, *argv, *mode, "--node", "aabb")
    assert trees["node"] == "aabb" and trees["a"]["tree_depth"] > 0
    assert trees["collide"] is True and trees.get("pairs") == swept.get("pairs")
    status, text, _ = run(capsys, *argv, *mode)
    assert status == 0 and "collide: yes" in text and "no trees" in text


def test_collide_without_compiled_trees_at_extreme_scales(capsys, tmp_path, monkeypatch):
    """Coordinates beyond 2**100 (where products of three overflow): the treeless
    sweep solves them at a power of two; two meshes more than 2**100 apart in size it
    hands to the trees, which answer."""
    import trimesh

    from hitbox import warmup

    monkeypatch.setattr(
        warmup, "is_cached", lambda command: command == warmup.TREELESS_COLLIDE
    )
    for name, scale in (("huge", 2.0**110), ("unit", 1.0)):
        box = trimesh.creation.box()
        box.apply_scale(scale)
        box.export(tmp_path / f"{name}.obj")
    huge = tmp_path / "huge.obj"
    got = run_json(capsys, "collide", huge, huge, "--all")
    assert got["collide"] is True and got["node"] is None and got["n_pairs"] > 0
    monkeypatch.setattr(warmup, "is_cached", lambda command: True)
    trees = run_json(capsys, "collide", huge, huge, "--all")
    assert trees["node"] == "obb" and trees["pairs"] == got["pairs"]
    monkeypatch.setattr(
        warmup, "is_cached", lambda command: command == warmup.TREELESS_COLLIDE
    )
    apart = run_json(capsys, "collide", tmp_path / "unit.obj", huge, "--all")
    assert apart["collide"] is False and apart["node"] == "obb"


def test_collide_uses_the_relative_pose(capsys, folder):
    """Moving both meshes by the same pose changes nothing (away from exact touching,
    where rounding in the composed poses may decide)."""
    both = "3 -1 2 10 20 30"
    offset = "0.37 0.11 -0.05 7 3 11"
    moved = io.pose_matrix(both) @ io.pose_matrix(offset)
    sixteen = " ".join(map(str, moved.ravel()))
    placed = run_json(
        capsys,
        "collide",
        folder / "box.obj",
        folder / "ball.ply",
        "--pose-a",
        both,
        "--pose-b",
        sixteen,
        "--all",
    )
    same = run_json(
        capsys,
        "collide",
        folder / "box.obj",
        folder / "ball.ply",
        "--pose-b",
        offset,
        "--all",
    )
    assert placed["collide"] is True
    assert placed["pairs"] == same["pairs"]


def test_collide_apart_and_any_mode(capsys, folder):
    got = run_json(
        capsys,
        "collide",
        folder / "ball.ply",
        folder / "capsule.glb",
        "--pose-b=5,0,0,0,0,0",
        "--node",
        "sphere",
    )
    assert got["collide"] is False
    assert got["mode"] == "any" and got["node"] == "sphere"
    assert "pairs" not in got


def test_collide_prints_a_summary_and_writes_a_view(capsys, folder, tmp_path):
    out = tmp_path / "view.html"
    status, text, _ = run(
        capsys,
        "collide",
        folder / "torus.stl",
        folder / "cylinder.off",
        "--pose-b",
        "1 0 0 0 0 0",
        "--view",
        out,
        "--depth",
        "2",
    )
    assert status == 0
    assert "collide: yes" in text and f"wrote {out}" in text
    page = out.read_text()
    assert "hitbox-data" in page and "cylinder.off" in page


# -- raycast -----------------------------------------------------------------------------


def test_raycast_counts_the_hits_of_known_rays(capsys, folder, tmp_path):
    """Five rays straight down onto the unit box hit it, five beside it miss."""
    xy = np.column_stack([np.linspace(-0.4, 0.4, 5), np.zeros(5)])
    hit = np.column_stack([xy, np.full(5, 3.0), np.tile([0.0, 0, -1], (5, 1))])
    miss = hit + [2.0, 0, 0, 0, 0, 0]
    path = tmp_path / "rays.npy"
    np.save(path, np.concatenate([hit, miss]))
    got = run_json(capsys, "raycast", folder / "box.obj", "--from-npy", path)
    assert (got["rays"], got["hits"]) == (10, 5)
    assert got["mean_t"] == pytest.approx(2.5)
    assert got["rays_per_s"] > 0


def test_random_rays_match_the_library(capsys, folder):
    got = run_json(
        capsys,
        "raycast",
        folder / "torus.stl",
        "--rays",
        "5000",
        "--seed",
        "3",
        "--mode",
        "any",
        "--node",
        "aabb",
    )
    mesh = io.load_mesh(folder / "torus.stl", node="aabb")
    origins, directions = raycast._random_rays(mesh.vertices, 5000, 3)
    assert got["hits"] == int(mesh.raycast(origins, directions).hit.sum()) > 0
    status, text, _ = run(capsys, "raycast", folder / "torus.stl", "--rays", "1_000")
    assert status == 0 and "rays/s" in text and "1,000" in text


def test_collide_inside_says_yes_for_nested_meshes(capsys, tmp_path):
    for name, mesh in (
        ("big", hitbox.shapes.icosphere(2.0, 2)),
        ("small", hitbox.shapes.box()),
    ):
        trimesh.Trimesh(mesh.vertices, mesh.faces).export(tmp_path / f"{name}.stl")
    big, small = tmp_path / "big.stl", tmp_path / "small.stl"
    assert run_json(capsys, "collide", big, small)["collide"] is False
    got = run_json(capsys, "collide", big, small, "--inside")
    assert got["collide"] is True and got["inside"] is True
    status, _, err = run(capsys, "collide", big, small, "--inside", "--all")
    assert status == 1 and "--inside needs the any mode" in err


@pytest.mark.parametrize(
    "rays, reason",
    [
        (np.zeros((4, 5)), "shape (N, 6)"),
        (np.array([[0, 0, 0, np.nan, 0, 1.0]]), "NaN"),
        (
            np.array([[0, 0, 5, 0, 0, -1.0], [0, 0, 5, 0, 0, 0]]),
            "ray 1 has a zero direction",
        ),
        (np.array([["a"] * 6]), "real-valued"),
    ],
)
def test_bad_ray_files(capsys, folder, tmp_path, rays, reason):
    path = tmp_path / "rays.npy"
    np.save(path, rays)
    status, out, err = run(capsys, "raycast", folder / "box.obj", "--from-npy", path)
    assert status == 1 and not out
    assert reason in err and err.count("\n") == 1


def test_rays_options_exclude_each_other(capsys, folder):
    status, _, err = run(
        capsys, "raycast", folder / "box.obj", "--rays", "5", "--from-npy", "x.npy"
    )
    assert status == 2 and "not allowed" in err


# -- info --------------------------------------------------------------------------------


def test_info_reports_volumes_choice_and_trees(capsys, folder):
    got = run_json(capsys, "info", folder / "ball.ply")
    mesh = io.load_mesh(folder / "ball.ply")
    assert (got["vertices"], got["faces"]) == (len(mesh.vertices), mesh.n_faces)
    assert got["closed"] is True
    assert set(got["volumes"]) == {"aabb", "sphere", "obb", "kdop14", "kdop18", "kdop26"}
    ratios = [v["ratio"] for v in got["volumes"].values()]
    assert min(ratios) == 1.0
    assert got["volumes"]["aabb"]["volume"] == pytest.approx(np.prod(got["size"]))
    assert got["choose"]["static"] == hitbox.mixed.choose(mesh.vertices)
    assert got["choose"]["rotating"] == hitbox.mixed.choose(mesh.vertices, rotating=True)
    assert list(got["trees"]) == list(KINDS)
    for kind, tree in got["trees"].items():
        built = mesh.with_tree(node=kind).bvh
        assert (tree["nodes"], tree["depth"], tree["leaves"]) == (
            built.n_nodes,
            built.depth,
            built.n_leaves,
        )
        assert tree["nodes"] == 2 * tree["leaves"] - 1
        # the method and leaf size it reports are the ones that tree was built with
        rebuilt = hitbox.bvh.BVH.build(
            mesh.triangles, node=kind, method=tree["method"], leaf_size=tree["leaf_size"]
        )
        np.testing.assert_array_equal(rebuilt.prim_order, built.prim_order)
        assert int(np.max(built.node_count)) <= tree["leaf_size"]


def test_info_lists_self_intersections(capsys, tmp_path):
    a = hitbox.shapes.box((1.0, 1.0, 1.0))
    b = hitbox.shapes.box((1.0, 1.0, 1.0), center=(0.5, 0.3, 0.2))
    both = trimesh.Trimesh(
        np.vstack([a.vertices, b.vertices]), np.vstack([a.faces, b.faces + 8])
    )
    both.export(tmp_path / "two.stl")
    got = run_json(capsys, "info", tmp_path / "two.stl", "--self-intersections")
    expected = io.load_mesh(tmp_path / "two.stl").self_intersections_brute()
    assert got["self_intersections"]["n_pairs"] == expected.shape[1] > 0
    assert sorted(map(tuple, got["self_intersections"]["pairs"])) == sorted(
        map(tuple, expected.T.tolist())
    )
    status, out, _ = run(capsys, "info", tmp_path / "two.stl", "--self-intersections")
    assert status == 0 and f"{expected.shape[1]:,} face pairs" in out
    ball = hitbox.shapes.sphere(1.0, 6, 8)
    trimesh.Trimesh(ball.vertices, ball.faces).export(tmp_path / "ball.stl")
    assert "self_intersections" not in run_json(capsys, "info", tmp_path / "ball.stl")
    got = run_json(capsys, "info", tmp_path / "ball.stl", "--self-intersections")
    assert got["self_intersections"] == {"n_pairs": 0, "pairs": []}


def test_info_reads_every_format(capsys, folder):
    for name, make in GOOD.items():
        status, text, err = run(capsys, "info", folder / name)
        assert status == 0, err
        assert f"{len(make().faces):,} triangles" in text
        assert "choose picks" in text


def test_stl_corners_are_shared(folder):
    """STL repeats each triangle's corners; the reader merges equal ones."""
    vertices, faces = io.read_mesh(folder / "torus.stl")
    assert len(vertices) == 40 * 12
    assert info._closed(faces)


# -- bad files ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(BAD_REASON))
@pytest.mark.parametrize("command", ["collide", "raycast", "info"])
def test_a_bad_file_is_one_line_of_error(capsys, folder, command, name):
    bad = folder / name
    argv = [command, bad] if command != "collide" else [command, folder / "box.obj", bad]
    if command == "raycast":
        argv += ["--rays", "10"]
    status, out, err = run(capsys, *argv)
    assert status == 1
    assert not out
    assert err.count("\n") == 1, err
    assert err.startswith(f"hitbox {command}: error: {bad}")
    assert BAD_REASON[name] in err


@pytest.mark.parametrize("name", list(BAD_REASON))
def test_load_mesh_raises_file_error(folder, name):
    with pytest.raises(io.FileError, match=BAD_REASON[name]):
        io.load_mesh(folder / name)


def test_a_folder_is_not_a_mesh(capsys, folder):
    status, _, err = run(capsys, "info", folder)
    assert status == 1 and "is a folder" in err


def test_polygons_are_split_into_triangles(tmp_path):
    path = tmp_path / "quad.obj"
    path.write_text(OBJ_HEAD + "f 1 2 4 3\n")
    mesh = io.load_mesh(path)
    assert mesh.n_faces == 2


# -- bench -------------------------------------------------------------------------------


def test_bench_writes_csv_ratios_and_a_plot(capsys, tmp_path):
    got = run_json(capsys, "bench", "obb", "--quick", "--out", tmp_path)
    assert got["failed"] == {}
    csv = Path(got["csv"]["obb"])
    assert csv.parent == tmp_path and csv.read_text().startswith("bench,")
    assert got["ratios"] and all(r["ratio"] > 0 for r in got["ratios"])
    assert {r["peer"] for r in got["ratios"]} == {"numpy"}
    assert Path(got["plot"]).stat().st_size > 1000
    assert set(got["missing_peers"]) <= {"coal", "fcl", "trimesh", "pybullet"}


def test_bench_against_filters_the_baselines(capsys, tmp_path):
    got = run_json(
        capsys, "bench", "obb", "--quick", "--out", tmp_path, "--against", "coal"
    )
    assert got["ratios"] == [] and got["plot"] is None
    status, _, err = run(capsys, "bench", "--against", "numpy,bogus")
    assert status == 2 and "peers are" in err


def test_bench_rejects_an_unknown_benchmark(capsys):
    status, _, err = run(capsys, "bench", "no_such_bench", "--quick")
    assert status == 1 and "unknown benchmark" in err and "obb" in err


def test_bench_outside_a_source_tree(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(hitbox, "__file__", str(tmp_path / "a" / "b" / "__init__.py"))
    status, out, err = run(capsys, "bench", "--quick")
    assert status == 1 and not out
    assert "no benchmarks/ folder" in err and err.count("\n") == 1


# -- scene files and poses ---------------------------------------------------------------

SCENE_TOML = """
[[objects]]
name = "left"
file = "torus.stl"

[[objects]]
file = "torus.stl"
pose = [3, 0, 0, 90, 0, 0]
velocity = [-1, 0, 0]
angular_velocity = [0, 0, 45]

[[objects]]
file = "box.obj"
static = true
node = "aabb"
"""


def test_scene_toml_and_json_read_the_same(folder):
    (folder / "scene.toml").write_text(SCENE_TOML)
    import tomllib

    (folder / "scene.json").write_text(json.dumps(tomllib.loads(SCENE_TOML)))
    for name in ("scene.toml", "scene.json"):
        left, right, floor = io.load_scene(folder / name)
        assert (left.name, right.name, floor.name) == ("left", "torus", "box")
        assert left.mesh.bvh is right.mesh.bvh  # one file, one node kind: one tree
        assert left.mesh is not right.mesh  # but objects of their own, for a Scene
        assert floor.mesh.bvh.kind == "aabb" and floor.static
        np.testing.assert_allclose(right.pose, io.pose_matrix("3 0 0 90 0 0"))
        np.testing.assert_array_equal(right.velocity, [-1, 0, 0])
        np.testing.assert_allclose(right.angular_velocity, [0, 0, np.pi / 4])
        assert isinstance(left.mesh, TriangleMesh) and left.path == folder / "torus.stl"


@pytest.mark.parametrize(
    "text, reason",
    [
        ("objects = 3", "list 'objects'"),
        ("objects = []", "no objects"),
        ("[[objects]]\npose = [0, 0, 0, 0, 0, 0]", "needs 'file'"),
        ('[[objects]]\nfile = "box.obj"\nspeed = 3', "unknown field"),
        ('[[objects]]\nfile = "box.obj"\npose = [1, 2]', "objects[0].pose"),
        ('[[objects]]\nfile = "box.obj"\nvelocity = [1, 2]', "objects[0].velocity"),
        ('[[objects]]\nfile = "box.obj"\nstatic = true\nvelocity = [1, 0, 0]', "static"),
        ('[[objects]]\nfile = "box.obj"\nnode = "cone"', "node must be one of"),
        ('[[objects]]\nfile = "nan.obj"', "NaN"),
        ("[[objects]\n", "not valid TOML"),
        ('[[objects]]\nshape = { kind = "blob" }', "'kind' one of sphere"),
        (
            '[[objects]]\nshape = { kind = "sphere", center = [0, 0, 0] }',
            "needs 'radius'",
        ),
        (
            '[[objects]]\nshape = { kind = "box", center = [0, 0], half = [1, 1, 1] }',
            "shape.center must be 3 numbers",
        ),
        (
            '[[objects]]\nshape = { kind = "capsule", p0 = [0, 0, 0], p1 = [0, 0, 1], '
            "radius = -1 }",
            "objects[0].shape: radius",
        ),
        ('[[objects]]\nshape = { kind = "hull", points = [] }', "shape.points must be"),
        (
            '[[objects]]\nfile = "box.obj"\nshape = { kind = "sphere", center = [0, 0, 0], '
            "radius = 1 }",
            "a shape has no 'file'",
        ),
        (
            '[[objects]]\nshape = { kind = "cone", base = [0, 0, 0], apex = [0, 0, 1], '
            "radius = 1, colour = 3 }",
            "unknown field(s): colour",
        ),
    ],
    ids=[
        "not-a-list",
        "no-objects",
        "no-file",
        "unknown-field",
        "pose",
        "velocity",
        "static-moving",
        "node",
        "bad-mesh",
        "syntax",
        "shape-kind",
        "shape-missing-field",
        "shape-field-size",
        "shape-negative-radius",
        "shape-empty-hull",
        "shape-and-file",
        "shape-unknown-field",
    ],
)
def test_bad_scene_files(folder, tmp_path, text, reason):
    for name in ("box.obj", "nan.obj"):
        shutil.copy(folder / name, tmp_path / name)
    path = tmp_path / "scene.toml"
    path.write_text(text)
    with pytest.raises(io.FileError, match=re.escape(reason)):
        io.load_scene(path)


def test_scene_from_file_runs_in_the_pipeline(folder, tmp_path):
    """A ball falling onto a box at rest: the scene's steps find the first contact where
    the distance says it must happen (t = 1.5 s: 2 units down at 1 unit/s, minus the
    ball's radius 0.5)."""
    shutil.copy(folder / "box.obj", tmp_path / "box.obj")
    trimesh.creation.icosphere(2, radius=0.5).export(tmp_path / "ball.ply")
    (tmp_path / "scene.json").write_text(
        json.dumps(
            {
                "objects": [
                    {"name": "floor", "file": "box.obj", "static": True},
                    {
                        "name": "ball",
                        "file": "ball.ply",
                        "pose": [0, 0, 2.5, 0, 0, 0],
                        "velocity": [0, 0, -1],
                        "angular_velocity": [0, 30, 0],
                    },
                ]
            }
        )
    )
    scene, ids = io.scene_from_file(tmp_path / "scene.json")
    assert len(scene) == 2 and [scene.name(i) for i in ids] == ["floor", "ball"]
    touching = [scene.step(0.05).pairs.shape[1] > 0 for _ in range(40)]
    assert touching.index(True) + 1 == pytest.approx(30, abs=1)


SHAPES_TOML = """
[[objects]]
name = "floor"
file = "box.obj"
static = true

[[objects]]
shape = { kind = "capsule", p0 = [0, 0, -0.4], p1 = [0, 0, 0.4], radius = 0.2 }
pose = [0, 0, 2, 0, 0, 0]
velocity = [0, 0, -1]
angular_velocity = [30, 0, 0]

[[objects]]
name = "pin"
shape = { kind = "hull", points = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]] }
pose = [2, 0, 0, 0, 0, 45]

[[objects]]
shape = { kind = "cone", base = [0, 0, 0], apex = [0, 0, 1], radius = 0.3 }
pose = [-2, 0, 0, 0, 0, 0]

[[objects]]
shape = { kind = "box", center = [0, 0, 0], half = [0.2, 0.3, 0.4] }
pose = [0, 2, 0, 0, 0, 0]
"""


def test_scene_files_hold_convex_shapes(folder, tmp_path):
    """Shape entries make hitbox.convex shapes (their pose placing them), with no mesh
    or path; the Scene built from the file equals its brute-force twin at every step,
    and the capsule falling onto the box touches it."""
    shutil.copy(folder / "box.obj", tmp_path / "box.obj")
    (tmp_path / "scene.toml").write_text(SHAPES_TOML)
    floor, capsule, pin, cone, block = io.load_scene(tmp_path / "scene.toml")
    assert floor.shape is None and isinstance(floor.mesh, TriangleMesh)
    assert (capsule.name, pin.name, cone.name, block.name) == ("capsule", "pin", "cone",
                                                              "box")  # fmt: skip
    assert capsule.mesh is None and capsule.path is None
    np.testing.assert_allclose(capsule.shape.radius, [0.2])
    np.testing.assert_array_equal(cone.shape.kind, [4])
    assert len(pin.shape.vertices) == 4
    scene, ids = io.scene_from_file(tmp_path / "scene.toml")
    touched = False
    for _ in range(40):
        result = scene.step(0.05, mode="all")
        twin = scene.query_brute(mode="all")
        np.testing.assert_array_equal(result.pairs, twin.pairs)
        np.testing.assert_array_equal(result.triangles, twin.triangles)
        touched |= [ids[0], ids[1]] in result.pairs.T.tolist()
    assert touched


def test_pose_matrix_forms():
    pose = io.pose_matrix("1 2 3 0 0 90")
    np.testing.assert_allclose(pose[:3, 3], [1, 2, 3])
    np.testing.assert_allclose(pose[:3, :3] @ [1, 0, 0], [0, 1, 0], atol=1e-15)
    # R = Rz @ Ry @ Rx: x first. Turning x by 90 then z by 90 sends y to x.
    both = io.pose_matrix([0, 0, 0, 90, 0, 90])
    np.testing.assert_allclose(both[:3, :3] @ [0, 1, 0], [0, 0, 1], atol=1e-15)
    np.testing.assert_allclose(both[:3, :3] @ [0, 0, 1], [1, 0, 0], atol=1e-15)
    np.testing.assert_array_equal(io.pose_matrix(pose.tolist()), pose)
    np.testing.assert_array_equal(io.pose_matrix(",".join(map(str, pose.ravel()))), pose)
    with pytest.raises(ValueError, match="rigid"):
        io.pose_matrix(np.diag([2.0, 1, 1, 1]))
    with pytest.raises(ValueError, match="0 0 0 1"):
        io.pose_matrix(np.ones(16))


# -- the installed command ---------------------------------------------------------------


def test_the_installed_entry_point(folder):
    exe = shutil.which(
        "hitbox",
        path=os.pathsep.join(
            [str(Path(sys.executable).parent), os.environ.get("PATH", "")]
        ),
    )
    assert exe, "the 'hitbox' entry point is not installed (pip install -e .)"
    # generous: with a cold kernel cache on a loaded machine the first run compiles
    done = subprocess.run(
        [exe, "info", str(folder / "box.obj"), "--json"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["faces"] == 12
    done = subprocess.run(
        [exe, "info", str(folder / "nan.obj")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip().count("\n") == 0 and "NaN" in done.stderr


def test_demo_runs_the_worked_examples_and_writes_the_view(tmp_path, capsys):
    assert (
        cli.main(["demo", "--sections", "worked examples,view", "--out", str(tmp_path)])
        == 0
    )
    out = capsys.readouterr().out
    assert "gap on x: 0.5" in out
    assert "t = 0.16667" in out
    assert (tmp_path / "view.html").stat().st_size > 100_000  # three.js is inlined


def test_experiment_reports_identical_contacts_and_writes_its_files(tmp_path):
    from hitbox import experiment

    result = experiment.run(quick=True, out_dir=tmp_path, repeats=1, steps=12)
    methods = {row["method"] for row in result["summary"]}
    assert methods == set(experiment.METHODS)
    assert all(row["mean_us"] > 0 for row in result["summary"])
    for key in ("csv", "summary_csv", "png"):
        assert result[key].exists()


# -- distance and points --------------------------------------------------------------------


def test_distance_reports_the_meshes_own_answer(capsys, folder):
    got = run_json(capsys, "distance", folder / "ball.ply", folder / "box.obj",
                   "--pose-b", "4 0.5 0 10 20 30")  # fmt: skip
    a = io.load_mesh(folder / "ball.ply")
    b = io.load_mesh(folder / "box.obj")
    pose = io.pose_matrix("4 0.5 0 10 20 30")
    want = a.distance(b, pose)
    assert got["distance"] == want.distance > 0 and not got["touching"]
    assert (got["face_a"], got["face_b"]) == (want.face_a, want.face_b)
    np.testing.assert_allclose(got["point_b"], want.point_b)
    touching = run_json(capsys, "distance", folder / "ball.ply", folder / "box.obj",
                        "--pose-b=1,0,0,0,0,0")  # fmt: skip
    assert touching["distance"] == 0.0 and touching["touching"]
    # a box wholly inside the ball: the surfaces are apart (a mesh is its surface)
    inside = run_json(capsys, "distance", folder / "ball.ply", folder / "box.obj")
    assert inside["distance"] == a.distance(b).distance > 0
    far = run_json(capsys, "distance", folder / "ball.ply", folder / "box.obj",
                   "--pose-b=40,0,0,0,0,0", "--max-distance", "1")  # fmt: skip
    assert far["face_a"] == -1
    status, _, err = run(capsys, "distance", folder / "ball.ply", folder / "box.obj",
                         "--max-distance", "-1")  # fmt: skip
    assert status == 2 and "max-distance" in err
    status, out, _ = run(capsys, "distance", folder / "ball.ply", folder / "box.obj",
                         "--pose-b=4,0,0,0,0,0")  # fmt: skip
    assert status == 0 and "closest points" in out


def test_points_signed_distances_faces_and_inside(capsys, folder, tmp_path):
    pts = np.random.default_rng(3).uniform(-1.5, 1.5, (200, 3))
    np.save(tmp_path / "p.npy", pts)
    got = run_json(capsys, "points", folder / "ball.ply", tmp_path / "p.npy",
                   "--out", tmp_path / "o.npy")  # fmt: skip
    mesh = io.load_mesh(folder / "ball.ply")
    np.testing.assert_array_equal(got["signed_distance"], mesh.signed_distance(pts))
    assert got["face"] == mesh.closest_point(pts).face.tolist()
    assert got["inside"] == int(mesh.contains(pts).sum()) > 0
    table = np.load(tmp_path / "o.npy")
    assert table.shape == (200, 6)
    np.testing.assert_array_equal(table[:, 0], mesh.signed_distance(pts))
    pytest.importorskip("distributed")
    on_cluster = run_json(capsys, "points", folder / "ball.ply", tmp_path / "p.npy",
                          "--workers", "1")  # fmt: skip
    assert on_cluster["signed_distance"] == got["signed_distance"]
    assert on_cluster["face"] == got["face"] and on_cluster["cluster"]["workers"] == 1
    np.save(tmp_path / "bad.npy", np.zeros((3, 2)))
    status, _, err = run(capsys, "points", folder / "ball.ply", tmp_path / "bad.npy")
    assert status == 1 and "(N, 3)" in err
    np.save(tmp_path / "nan.npy", np.array([[0.0, 0, np.nan]]))
    status, _, err = run(capsys, "points", folder / "ball.ply", tmp_path / "nan.npy")
    assert status == 1 and "point 0" in err


def test_points_and_rays_from_zarr_stores(capsys, folder, tmp_path):
    zarr = pytest.importorskip("zarr")
    pts = np.random.default_rng(5).uniform(-1.5, 1.5, (300, 3))
    zarr.save_array(str(tmp_path / "p.zarr"), pts)
    np.save(tmp_path / "p.npy", pts)
    from_zarr = run_json(capsys, "points", folder / "ball.ply", tmp_path / "p.zarr")
    from_npy = run_json(capsys, "points", folder / "ball.ply", tmp_path / "p.npy")
    assert from_zarr["signed_distance"] == from_npy["signed_distance"]
    assert from_zarr["points"] == 300
    rng = np.random.default_rng(6)
    rays = np.hstack([rng.uniform(-3, 3, (400, 3)), rng.normal(size=(400, 3))])
    zarr.save_array(str(tmp_path / "r.zarr"), rays)
    got = run_json(
        capsys, "raycast", folder / "ball.ply", "--from-npy", tmp_path / "r.zarr"
    )
    mesh = io.load_mesh(folder / "ball.ply")
    assert got["hits"] == int(mesh.raycast(rays[:, :3], rays[:, 3:]).hit.sum()) > 0
    # the same checks as a .npy file's, naming the store
    bad = rays.copy()
    bad[7, 4] = np.nan
    zarr.save_array(str(tmp_path / "bad.zarr"), bad)
    status, _, err = run(capsys, "raycast", folder / "ball.ply", "--from-npy",
                         tmp_path / "bad.zarr")  # fmt: skip
    assert status == 1 and "bad.zarr" in err and "ray 7" in err
    zarr.save_array(str(tmp_path / "wide.zarr"), np.zeros((4, 5)))
    status, _, err = run(capsys, "points", folder / "ball.ply", tmp_path / "wide.zarr")
    assert status == 1 and "(N, 3)" in err
    status, _, err = run(capsys, "points", folder / "ball.ply", tmp_path / "none.zarr")
    assert status == 1 and "no such zarr store" in err
    zarr.open_group(str(tmp_path / "group.zarr"), mode="w")
    status, _, err = run(capsys, "points", folder / "ball.ply", tmp_path / "group.zarr")
    assert status == 1 and "group" in err
