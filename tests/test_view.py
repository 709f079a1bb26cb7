"""Pictures: the HTML 3D view (hitbox.view), rendered in headless Chromium, and the
matplotlib plots (hitbox.report).

The browser test needs a Chromium binary (Debian: ``apt-get install chromium``; set
``HITBOX_CHROMIUM`` to use another one); without one it is skipped with the reason.
``.ci/run`` installs it on CI.
"""

import os
import re
import shutil
import subprocess

import numpy as np
import pytest
import trimesh

from hitbox import report, view
from hitbox.mesh import TriangleMesh

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def chromium():
    """Path of a Chromium-like browser, or None."""
    own = os.environ.get("HITBOX_CHROMIUM")
    if own:
        return shutil.which(own)
    return next((path for name in BROWSERS if (path := shutil.which(name))), None)


def headless(page, tmp_path, *extra):
    """Run headless Chromium on a page: (returncode, stdout)."""
    exe = chromium()
    if exe is None:
        pytest.skip(
            "no Chromium binary on PATH (apt-get install chromium; or HITBOX_CHROMIUM)"
        )
    profile = tmp_path / f"profile{len(list(tmp_path.glob('profile*')))}"
    argv = [
        exe,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--enable-unsafe-swiftshader",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-extensions",
        f"--user-data-dir={profile}",
        "--window-size=800,600",
        "--virtual-time-budget=5000",
        *extra,
        page.as_uri(),
    ]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout


def torus(node, sections=(30, 10)):
    t = trimesh.creation.torus(
        1.0, 0.3, major_sections=sections[0], minor_sections=sections[1]
    )
    return TriangleMesh(np.asarray(t.vertices), np.asarray(t.faces), node=node)


def shift(x, y=0.0, z=0.0):
    pose = np.eye(4)
    pose[:3, 3] = x, y, z
    return pose


@pytest.fixture(scope="module")
def scene():
    """Three tori: an OBB tree, a sphere tree crossing it, an AABB tree apart; depth 2."""
    a, b, c = torus("obb"), torus("sphere"), torus("aabb")
    ring = shift(1.5)
    ring[:3, :3] = [
        [1, 0, 0],
        [0, 0, -1],
        [0, 1, 0],
    ]  # 90 degrees about x: the tubes cross
    pairs = a.with_tree("obb").intersect(b.with_tree("obb"), ring, mode="all")
    assert pairs.shape[1] > 0
    return {
        "meshes": [
            (a, None, None, "obb"),
            (b, ring, "#e3b66b", "sphere"),
            (c, shift(0, 3.0), (0.6, 0.8, 0.6), "aabb"),
        ],
        "highlight": {0: pairs[0], 1: pairs[1]},
        "depth": 2,
    }


# -- the page ----------------------------------------------------------------------------


def test_page_is_self_contained(scene, tmp_path):
    written = view.write_html(
        tmp_path / "v.html",
        scene["meshes"],
        volumes_depth=scene["depth"],
        highlight=scene["highlight"],
    )
    page = written.path.read_text()
    assert '<script type="importmap">' in page
    assert not re.search(r"""<script[^>]*\ssrc=|<link[^>]*\shref=""", page)
    imports = re.search(r'<script type="importmap">(.*?)</script>', page, re.S).group(1)
    urls = re.findall(
        r'"(?:three|three/core|three/addons/OrbitControls.js)": "([^"]*)"', imports
    )
    assert len(urls) == 3 and all(
        u.startswith("data:text/javascript;base64,") for u in urls
    )
    assert "three.js authors, MIT licence" in page


def test_object_count_is_meshes_volumes_and_highlights(scene, tmp_path):
    written = view.write_html(
        tmp_path / "v.html",
        scene["meshes"],
        volumes_depth=scene["depth"],
        highlight=scene["highlight"],
    )
    volumes = sum(
        len(view.nodes_at_depth(m.bvh, scene["depth"])) for m, *_ in scene["meshes"]
    )
    assert written.volumes == volumes
    assert written.objects == 3 + volumes + 2


@pytest.mark.parametrize("node", ["aabb", "sphere", "obb", "kdop18"])
@pytest.mark.parametrize("depth", [0, 1, 3, 50])
def test_nodes_at_depth_cover_every_triangle_once(node, depth):
    tree = torus(node, (12, 5)).bvh
    nodes = view.nodes_at_depth(tree, depth)
    assert np.all(np.diff(nodes) > 0)
    # Slow twin: walk the tree recursively, collecting each leaf's slots and each
    # node's depth.
    found = {}

    def walk(m, d):
        found[m] = d
        if tree.node_count[m] == 0:
            walk(tree.node_first[m], d + 1)
            walk(tree.node_first[m] + 1, d + 1)

    walk(0, 0)
    want = sorted(
        m
        for m, d in found.items()
        if d == depth or (d < depth and tree.node_count[m] > 0)
    )
    assert nodes.tolist() == want
    spans = []

    def span(m):
        if tree.node_count[m]:
            return [tree.node_first[m], tree.node_first[m] + tree.node_count[m]]
        lo, _ = span(tree.node_first[m])
        _, hi = span(tree.node_first[m] + 1)
        return [lo, hi]

    spans = sorted(span(m) for m in nodes)
    assert spans[0][0] == 0 and spans[-1][1] == tree.n_prims
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:], strict=False))


def test_empty_mesh_and_no_volumes(tmp_path):
    empty = TriangleMesh(np.zeros((0, 3)), np.zeros((0, 3), int))
    written = view.write_html(tmp_path / "e.html", [empty], volumes_depth=2)
    assert (written.objects, written.volumes) == (1, 0)
    assert len(view.nodes_at_depth(empty.bvh, 3)) == 0


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"meshes": ["not a mesh"]}, TypeError, "TriangleMesh"),
        ({"volumes_depth": -1}, ValueError, "volumes_depth"),
        ({"volumes_depth": 1.5}, ValueError, "volumes_depth"),
        ({"highlight": {0: [10_000]}}, ValueError, "past the mesh"),
        ({"highlight": {5: [0]}}, ValueError, "mesh 5"),
        ({"meshes": [(None, None, None)]}, TypeError, "TriangleMesh"),
        ({"colour": "#12345z"}, ValueError, "colour"),
        ({"colour": (1.0, 2.0, 0.0)}, ValueError, "colour"),
        ({"pose": np.eye(3)}, ValueError, "pose"),
        ({"opacity": 0.0}, ValueError, "opacity"),
    ],
)
def test_bad_arguments(tmp_path, kwargs, error, match):
    mesh = torus("aabb", (8, 4))
    args = {"meshes": [(mesh, kwargs.pop("pose", None), kwargs.pop("colour", None))]}
    args.update(kwargs)
    with pytest.raises(error, match=match):
        view.write_html(tmp_path / "bad.html", **args)


def test_colours_and_names(tmp_path):
    mesh = torus("aabb", (8, 4))
    written = view.write_html(
        tmp_path / "c.html",
        [(mesh, None, "#abc", "<b>odd</b> name"), (mesh, None, (1, 0, 0))],
        title="a <title>",
    )
    page = written.path.read_text()
    assert "#aabbcc" in page and "#ff0000" in page
    assert "<b>odd</b>" not in page and "&lt;b&gt;odd" in page
    assert "<title>a &lt;title&gt;</title>" in page


# -- in the browser ----------------------------------------------------------------------


def test_view_renders_in_headless_chromium(scene, tmp_path):
    written = view.write_html(
        tmp_path / "v.html",
        scene["meshes"],
        volumes_depth=scene["depth"],
        highlight=scene["highlight"],
    )
    status, dom = headless(written.path, tmp_path, "--dump-dom")
    assert status == 0
    assert "data-hitbox-error" not in dom, re.search(r'data-hitbox-error="[^"]*"', dom)
    assert 'data-hitbox-ready="true"' in dom
    count = re.search(r'data-hitbox-objects="(\d+)"', dom)
    assert count and int(count.group(1)) == written.objects

    shot = tmp_path / "shot.png"
    status, _ = headless(written.path, tmp_path, f"--screenshot={shot}")
    assert status == 0 and shot.exists()
    from PIL import Image

    pixels = np.asarray(Image.open(shot).convert("RGB"), dtype=np.float64)
    assert pixels.shape[:2] == (600, 800)
    assert pixels.std(axis=(0, 1)).max() > 20, "the screenshot is blank"
    background = np.all(np.abs(pixels - [244, 245, 247]) < 4, axis=-1)
    assert 0.05 < 1 - background.mean() < 0.95, "the meshes are missing or fill the view"
    red = (pixels[..., 0] > 200) & (pixels[..., 1] < 90) & (pixels[..., 2] < 90)
    assert red.sum() > 50, "the colliding triangles are not drawn"


# -- plots -------------------------------------------------------------------------------

ROWS = {
    "broadphase": [
        {
            "bench": "step",
            "n": 1000,
            "engine": "hitbox sap",
            "speedup_vs_fcl": 3.0,
            "speedup_vs_coal_collide": "0.5",
        },
        {"bench": "step", "n": 1000, "engine": "python-fcl", "step_min_s": 0.1},
    ],
    "bvh_build": [
        {"bench": "build", "impl": "coal_obbrss", "ratio_vs_coal": 1.0},
        {"bench": "build", "impl": "hitbox_sah_obb", "ratio_vs_coal": 2.5},
    ],
    "ray": [
        {"bench": "ray", "impl": "hitbox kernel", "ratio": 1.0},
        {"bench": "ray", "impl": "numpy slab test", "ratio": 27.0},
    ],
    "empty": [{"bench": "x", "impl": "hitbox", "ratio_vs_numpy": float("nan")}],
}


def test_ratio_rows_read_each_convention():
    got = [(r["bench"], r["peer"], r["ratio"]) for r in report.ratio_rows(ROWS)]
    assert got == [
        ("broadphase", "fcl", 3.0),
        ("broadphase", "coal (collide)", 0.5),
        ("bvh_build", "coal", 2.5),
        ("ray", "numpy slab test", 27.0),
    ]
    assert [r["peer"] for r in report.ratio_rows(ROWS, peers=["COAL"])] == [
        "coal (collide)",
        "coal",
    ]
    assert report.ratio_rows(ROWS)[0]["case"] == "hitbox sap n=1000"


def test_plot_ratios_and_steps(tmp_path):
    png = report.plot_ratios(ROWS, tmp_path / "ratios.png")
    assert png.stat().st_size > 5000
    assert report.plot_ratios(ROWS, tmp_path / "none.png", peers=["pybullet"]) is None
    assert not (tmp_path / "none.png").exists()
    rng = np.random.default_rng(0)
    times = {
        "sphere cull, then OBB": rng.uniform(1e-4, 2e-4, 50),
        "OBB only": [3e-4] * 40,
    }
    svg = report.plot_steps(times, tmp_path / "steps.svg", title="two tori")
    text = svg.read_text()
    assert "two tori" in text and "OBB only: total 12 ms" in text


@pytest.mark.parametrize("times", [{}, {"a": []}, {"a": [1.0, np.nan]}, {"a": [-1.0]}])
def test_plot_steps_rejects_bad_times(tmp_path, times):
    with pytest.raises(ValueError, match="times"):
        report.plot_steps(times, tmp_path / "bad.png")


def test_write_rows_takes_every_key_in_first_seen_order(tmp_path):
    import csv

    rows = [{"bench": "a", "ratio": 2.5}, {"bench": "b", "peer": "coal"}, {}]
    path = report.write_rows(tmp_path / "rows.csv", rows)
    with path.open(newline="") as f:
        back = list(csv.DictReader(f))
    assert list(back[0]) == ["bench", "ratio", "peer"]
    assert back == [
        {"bench": "a", "ratio": "2.5", "peer": ""},
        {"bench": "b", "ratio": "", "peer": "coal"},
        {"bench": "", "ratio": "", "peer": ""},
    ]
