"""The README's table of which query runs where, walked cell by cell.

Every cell the table fills runs here, through its entry point, on every node kind and
on mixed kinds, and equals its slow twin (every triangle pair; every point against
every face). The table in the README is parsed and must be exactly the one walked, so a
cell cannot be claimed without being tested, nor dropped silently.
"""

import json
import re
from pathlib import Path

import numpy as np
import pytest

from hitbox import cli, shapes
from hitbox.bvh import KINDS
from hitbox.pipeline import Scene

README = Path(__file__).resolve().parents[1] / "README.md"
ENTRIES = ("pair", "many", "scene", "cli")
#: query -> the entry points that answer it (the README table's filled cells)
TABLE = {
    "any": {"pair", "many", "scene", "cli"},
    "all": {"pair", "many", "scene", "cli"},
    "contacts": {"pair", "many", "scene", "cli"},
    "inside": {"pair", "many", "scene", "cli"},
    "distance": {"pair", "many", "scene", "cli"},
}
#: node kinds of (A, B): each kind against itself, and mixed pairs
KIND_PAIRS = [(k, k) for k in KINDS] + [("obb", "sphere"), ("aabb", "kdop26"),
                                         ("sphere", "kdop14")]  # fmt: skip


def _readme_table():
    """{query: set of entries} from the README's 'Which query runs where' table."""
    text = README.read_text()
    start = text.index("| query | `TriangleMesh` pair |")
    rows = {}
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        query = re.match(r"`(\w+)`|(contact segments)|(distance)", cells[0])
        name = query.group(1) or ("contacts" if query.group(2) else "distance")
        rows[name] = {e for e, c in zip(ENTRIES, cells[1:], strict=True) if c != "–"}
    return rows


def test_the_readme_shows_the_table_walked_here():
    assert _readme_table() == TABLE


def _pose(x, turn=0.0):
    c, s = np.cos(turn), np.sin(turn)
    pose = np.eye(4)
    pose[:3, :3] = [[c, -s, 0], [s, c, 0], [0, 0, 1]]
    pose[:3, 3] = [x, 0.2, 0.1]
    return pose


POSES = np.stack([_pose(x, t) for x, t in ((0.9, 0.3), (1.6, 1.0), (4.0, 0.0),
                                           (0.0, 0.7), (2.55, 0.2))])  # fmt: skip


@pytest.fixture(scope="module")
def meshes():
    """Each node kind's tree of a small torus (A) and of a small capsule (B)."""
    return {k: (shapes.torus(256, 1.0, 0.3, node=k),
                shapes.capsule(0.25, 0.8, 4, 8, node=k)) for k in KINDS}  # fmt: skip


def _pair(meshes, kinds):
    return meshes[kinds[0]][0], meshes[kinds[1]][1]


def _brute_pairs(a, b, pose):
    return a.intersect_brute(b, pose)


@pytest.mark.parametrize("kinds", KIND_PAIRS, ids="-".join)
def test_any_all_contacts_distance_pair_and_many(meshes, kinds):
    a, b = _pair(meshes, kinds)
    want = [_brute_pairs(a, b, p) for p in POSES]
    assert any(w.shape[1] for w in want) and not all(w.shape[1] for w in want)
    for pose, w in zip(POSES, want, strict=True):
        assert a.intersect(b, pose) == (w.shape[1] > 0)
        np.testing.assert_array_equal(a.intersect(b, pose, mode="all"), w)
        contacts = a.contacts(b, pose)
        np.testing.assert_array_equal(contacts.faces, w)
        d, fa, fb = a.distance_brute(b, pose)
        got = a.distance(b, pose)
        assert got.distance == d and (d == 0.0) == (w.shape[1] > 0)
    np.testing.assert_array_equal(
        a.intersect_many(b, POSES), [w.shape[1] > 0 for w in want]
    )
    many = a.intersect_many(b, POSES, mode="all")
    for k, w in enumerate(want):
        np.testing.assert_array_equal(many[1:, many[0] == k], w)
    got = a.contacts_many(b, POSES)
    np.testing.assert_array_equal(got.pairs, many)
    for k, pose in enumerate(POSES):
        one, rows = a.contacts(b, pose), got.pairs[0] == k
        np.testing.assert_array_equal(got.segments[rows], one.segments)
        np.testing.assert_array_equal(got.normals[rows], one.normals)
        np.testing.assert_array_equal(got.depths[rows], one.depths)
    dist = a.distance_many(b, POSES).distance
    np.testing.assert_array_equal(dist, [a.distance_brute(b, p)[0] for p in POSES])


@pytest.mark.parametrize("kinds", KIND_PAIRS, ids="-".join)
def test_inside_pair_and_many(kinds):
    big = shapes.box((3.0, 3.0, 3.0), node=kinds[0])
    small = shapes.icosphere(0.3, 1, node=kinds[1])
    poses = np.stack([_pose(0.0), _pose(1.2), _pose(1.45), _pose(3.0)])
    # within, crossing the wall (x = 1.5), touching it from inside, outside
    want_touch = [len(_brute_pairs(big, small, p)[0]) > 0 for p in poses]
    want_in = [bool(big.contains(small.vertices @ p[:3, :3].T + p[:3, 3]).all())
               for p in poses]  # fmt: skip
    want = np.logical_or(want_touch, want_in)
    assert want.tolist() == [True, True, True, False]
    assert not big.intersect(small, poses[0])  # no triangle crosses: only inside says so
    assert [big.intersect(small, p, inside=True) for p in poses] == want.tolist()
    np.testing.assert_array_equal(big.intersect_many(small, poses, inside=True), want)
    for pose, w in zip(poses, want, strict=True):
        scene = Scene()
        scene.add(big)
        scene.add(small, pose)
        assert (scene.query(inside=True).pairs.shape[1] == 1) == w


@pytest.mark.parametrize("kinds", KIND_PAIRS[:6], ids="-".join)
@pytest.mark.parametrize("mode", ["any", "all", "contacts"])
def test_scene_any_all_contacts_distance(meshes, kinds, mode):
    a, b = _pair(meshes, kinds)
    for pose in POSES:
        scene = Scene()
        scene.add(a)
        scene.add(b, pose)
        got = scene.query(mode)
        want = scene.query_brute(mode)
        np.testing.assert_array_equal(got.pairs, want.pairs)
        np.testing.assert_array_equal(got.pairs.shape[1] > 0,
                                      _brute_pairs(a, b, pose).shape[1] > 0)  # fmt: skip
        if mode != "any":
            np.testing.assert_array_equal(got.triangles, want.triangles)
        if mode == "contacts":
            found = a.contacts(b, pose)
            np.testing.assert_array_equal(got.segments, found.segments)
            np.testing.assert_array_equal(got.depths, found.depths)
        pairs, dist = scene.within(0.5)
        d = a.distance_brute(b, pose)[0]
        assert pairs.shape[1] == (d <= 0.5) and (d > 0.5 or dist[0] == d)


def test_scene_distance_gives_continuous_contact_times(meshes):
    """The Scene's distance cell: continuous mode advances mesh pairs on their distance
    and reports when in the step they first touch."""
    a, b = _pair(meshes, ("obb", "obb"))
    scene = Scene()
    scene.add(a)
    start = _pose(4.0)
    scene.add(b, start, velocity=[-40.0, 0.0, 0.0])
    result = scene.step(0.1, continuous=True)
    assert result.pairs.tolist() == [[0], [1]]
    t = float(result.toi[0])
    at_contact = start.copy()
    at_contact[0, 3] -= 40.0 * t
    assert 0.0 < t < 0.1
    assert a.distance(b, at_contact).distance <= 1e-9 * 4.0
    before = at_contact.copy()
    before[0, 3] += 1e-6
    assert a.distance(b, before).distance > 0.0


def _write(mesh, path):
    with open(path, "w") as f:
        f.writelines(f"v {x!r} {y!r} {z!r}\n" for x, y, z in mesh.vertices.tolist())
        f.writelines(f"f {i + 1} {j + 1} {k + 1}\n" for i, j, k in mesh.faces.tolist())
    return path


def _cli(capsys, *argv):
    assert cli.main([str(a) for a in argv] + ["--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("kind", KINDS)
def test_cli_any_all_inside_distance(capsys, tmp_path, meshes, kind):
    a, b = meshes[kind]
    fa, fb = _write(a, tmp_path / "a.obj"), _write(b, tmp_path / "b.obj")
    for x in (0.9, 4.0):
        pose = f"{x} 0.2 0.1 0 0 0"
        matrix = _pose(x)
        want = _brute_pairs(a, b, matrix)
        got = _cli(capsys, "collide", fa, fb, "--pose-b", pose, "--node", kind)
        assert got["collide"] == (want.shape[1] > 0)
        got = _cli(capsys, "collide", fa, fb, "--pose-b", pose, "--node", kind, "--all")
        assert got["pairs"] == want.T.tolist()
        got = _cli(
            capsys, "collide", fa, fb, "--pose-b", pose, "--node", kind, "--inside"
        )
        assert got["collide"] == (want.shape[1] > 0)
        got = _cli(capsys, "distance", fa, fb, "--pose-b", pose, "--node", kind)
        assert got["distance"] == a.distance_brute(b, matrix)[0]
        got = _cli(capsys, "collide", fa, fb, "--pose-b", pose, "--node", kind,
                   "--contacts")  # fmt: skip
        assert got["pairs"] == want.T.tolist()
        found = a.contacts(b, matrix)
        np.testing.assert_array_equal(np.array(got["segments"]).reshape(-1, 2, 3),
                                      found.segments)  # fmt: skip
        np.testing.assert_array_equal(got["depths"], found.depths)
        np.testing.assert_array_equal(np.array(got["normals"]).reshape(-1, 3),
                                      found.normals)  # fmt: skip
