"""Saved meshes and trees: the suffix rule, the format number, the checksum, and one
file per invariant broken on purpose (the checksum recomputed, so only the invariant
can catch it), each refused with a one-line ValueError naming the file and the fault."""

import numpy as np
import pytest

from hitbox import shapes
from hitbox.bvh import BVH
from hitbox.io import saved
from hitbox.mesh import TriangleMesh


@pytest.mark.parametrize("node", ["obb", "aabb", "sphere", "kdop18"])
def test_save_and_load_without_a_suffix(tmp_path, node):
    mesh = shapes.torus(500, node=node)
    mesh.save(tmp_path / "tree")
    assert (tmp_path / "tree.npz").exists()
    back = TriangleMesh.load(tmp_path / "tree")
    np.testing.assert_array_equal(back.faces, mesh.faces)
    assert back.bvh.kind == node
    pose = np.eye(4)
    pose[0, 3] = 1.5
    assert back.intersect(back, pose) == mesh.intersect(mesh, pose)
    assert BVH.load(tmp_path / "tree.npz").n_prims == mesh.n_faces
    mesh.bvh.save(tmp_path / "bare")
    assert BVH.load(tmp_path / "bare.npz").n_nodes == mesh.bvh.n_nodes
    assert BVH.load(tmp_path / "bare").n_nodes == mesh.bvh.n_nodes


def test_an_empty_mesh_round_trips(tmp_path):
    mesh = TriangleMesh(np.zeros((0, 3)), np.zeros((0, 3), int))
    mesh.save(tmp_path / "empty")
    assert TriangleMesh.load(tmp_path / "empty").n_faces == 0


def _refused(path, match, load=TriangleMesh.load):
    with pytest.raises(ValueError, match=match) as info:
        load(path)
    text = str(info.value)
    assert "\n" not in text and str(path) in text, text
    return text


def test_truncated_and_foreign_files(tmp_path):
    mesh = shapes.box()
    mesh.save(tmp_path / "box.npz")
    raw = (tmp_path / "box.npz").read_bytes()
    for cut in (0, 10, 100, len(raw) // 2, len(raw) - 30, len(raw) - 1):
        (tmp_path / "cut.npz").write_bytes(raw[:cut])
        for load in (TriangleMesh.load, BVH.load):
            _refused(tmp_path / "cut.npz", "not a readable .npz", load)
    (tmp_path / "text.npz").write_text("not an archive")
    _refused(tmp_path / "text.npz", "not a readable .npz")
    np.save(tmp_path / "array.npy", np.zeros(3))
    (tmp_path / "array.npz").write_bytes((tmp_path / "array.npy").read_bytes())
    _refused(tmp_path / "array.npz", "not a readable .npz")
    with pytest.raises(FileNotFoundError):
        TriangleMesh.load(tmp_path / "missing.npz")
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    _refused(tmp_path / "other.npz", "not a saved hitbox mesh or tree")
    saved.write_npz(tmp_path / "checked.npz", {"x": np.zeros(3)})
    _refused(tmp_path / "checked.npz", "holds no kind, depth")


def test_a_tree_file_holds_no_mesh(tmp_path):
    shapes.box().bvh.save(tmp_path / "tree")
    _refused(tmp_path / "tree.npz", "holds no mesh_vertices, mesh_faces")


def _arrays(path):
    with np.load(path) as f:
        return {k: f[k].copy() for k in f.files}


def test_another_format_number_is_refused(tmp_path):
    shapes.box().save(tmp_path / "box")
    data = _arrays(tmp_path / "box.npz")
    data["format"] = np.array(1)
    np.savez(tmp_path / "old.npz", **data)
    _refused(tmp_path / "old.npz", "file format 1; this hitbox reads format 2")


def test_damage_the_checksum_catches(tmp_path):
    shapes.box().save(tmp_path / "box")
    data = _arrays(tmp_path / "box.npz")
    data["mesh_vertices"][0, 0] += 1e-9  # within every box: only the checksum sees it
    np.savez(tmp_path / "bad.npz", **data)
    _refused(tmp_path / "bad.npz", "do not match their checksum")
    del data["checksum"]
    np.savez(tmp_path / "bad.npz", **data)
    _refused(tmp_path / "bad.npz", "checksum is missing")


def test_a_damaged_array_header_cannot_ask_for_terabytes(tmp_path):
    shapes.box().save(tmp_path / "box")
    raw = (tmp_path / "box.npz").read_bytes()
    i = raw.index(b"'shape': (") + len(b"'shape': (")
    (tmp_path / "bad.npz").write_bytes(raw[:i] + b"9" + raw[i + 1 :])
    _refused(tmp_path / "bad.npz", "not a readable .npz")


def _tampered(tmp_path, node, edit):
    """A saved sphere mesh with ``edit`` applied to its arrays and the checksum
    recomputed, as a careful hand would."""
    mesh = shapes.sphere(1.0, 6, 12, node=node)
    mesh.save(tmp_path / "s.npz")
    data = _arrays(tmp_path / "s.npz")
    del data["format"], data["checksum"]
    edit(data, mesh)
    saved.write_npz(tmp_path / "t.npz", data)
    return tmp_path / "t.npz"


def _leaf(mesh):
    return int(np.flatnonzero(mesh.bvh.node_count)[0])


def _set(key, index, value, at_leaf=False):
    """An edit: ``data[key][index] = value`` (a function of the old value), where
    ``at_leaf`` puts the mesh's first leaf in front of ``index``."""

    def edit(data, mesh):
        where = (_leaf(mesh), *index) if at_leaf else index
        old = data[key][where]
        data[key][where] = value(old, mesh) if callable(value) else value

    return edit


def _put(key, value):
    """An edit: ``data[key] = value(data[key])``, or the entry removed (None)."""

    def edit(data, mesh):
        if value is None:
            del data[key]
        else:
            data[key] = value(data[key])

    return edit


def _outward(data, mesh):
    """Move a vertex radially out of its triangles' boxes, by 0.1 %."""
    data["mesh_vertices"][mesh.faces[0, 0]] *= 1.001


def _swap_faces(data, mesh):
    data["mesh_faces"][:2] = data["mesh_faces"][[1, 0]]


NOT_IN_LEAF = r"node_box\[\d+\] does not hold its triangles' boxes"
NOT_EXACT = r"slot_box\[\d+\] is not the exact box of primitive"
# case: (node kind, edit, expected message), one per invariant
INVARIANTS = {
    "NaN node box": (
        "aabb",
        _set("node_box", (1, 0, 2), np.nan),
        r"node_box\[1\] is not",
    ),
    "inf slot box": ("obb", _set("slot_box", (0, 1, 0), np.inf), r"slot_box\[0\] is not"),
    "NaN OBB centre": ("obb", _set("node_center", (2, 1), np.nan), r"center\[2\] is not"),
    "box shrunk below its children": (
        "obb",
        _set("node_box", (0, 1, 0), lambda x, m: x - 0.5),
        r"node_box\[0\] does not",
    ),
    "leaf box shrunk below its triangles": (
        "sphere",
        _set("node_box", (1, 0), lambda x, m: x - 0.5, True),
        NOT_IN_LEAF,
    ),
    "k-DOP shrunk below its child": (
        "kdop18",
        _set("node_bv", (0, 1, 4), lambda x, m: x - 0.5),
        r"node_bv\[0\] does not",
    ),
    "k-DOP leaf shrunk": (
        "kdop18",
        _set("node_bv", (1, 4), lambda x, m: x - 1e-9, True),
        "the exact k-DOP",
    ),
    "OBB shrunk": (
        "obb",
        _set("node_half", (0, 0), lambda x, m: 0.9 * x),
        "OBB does not",
    ),
    "OBB leaf shrunk a little": (
        "obb",
        _set("node_half", (), lambda x, m: x * (1 - 1e-6), True),
        "OBB does not",
    ),
    "OBB axes skewed": (
        "obb",
        _set("node_rot", (1, 0, 0), lambda x, m: x + 1e-3),
        "rot.1. is not a rotation",
    ),
    "sphere shrunk": (
        "sphere",
        _set("node_radius", (0,), lambda x, m: 0.5 * x),
        "sphere does not hold",
    ),
    "vertex moved out of its boxes": ("obb", _outward, NOT_EXACT),
    "vertex moved far": ("aabb", _set("mesh_vertices", (0, 0), 7.0), NOT_EXACT),
    "faces swapped": ("aabb", _swap_faces, NOT_EXACT),
    "face index out of range": (
        "aabb",
        _set("mesh_faces", (3, 1), 10**6),
        r"mesh faces\[3\] \[.*\] indexes past",
    ),
    "NaN vertex": ("aabb", _set("mesh_vertices", (2, 2), np.nan), "not finite|NaN"),
    "node_first out of range": (
        "aabb",
        _set("node_first", (0,), 10**6),
        "node 0: children",
    ),
    "node_first of a leaf past the slots": (
        "aabb",
        _set("node_first", (), 10**6, True),
        "a leaf's slots run past",
    ),
    "node_count off": (
        "aabb",
        _set("node_count", (), lambda x, m: x + 1, True),
        "slots? runs?|covers slots",
    ),
    "node_count negative": (
        "aabb",
        _set("node_count", (0,), -1),
        "node_count.0. is not in",
    ),
    "prim_order repeats": (
        "aabb",
        _set("prim_order", (0,), lambda x, m: m.bvh.prim_order[1]),
        "not a permutation",
    ),
    "prim_order out of range": (
        "aabb",
        _set("prim_order", (0,), -5),
        "not a permutation",
    ),
    "depth wrong": ("aabb", _put("depth", lambda x: x + 1), "the longest path is"),
    "unknown kind": (
        "aabb",
        _put("kind", lambda x: np.array("cube")),
        "unknown node kind",
    ),
    "kind changed": (
        "aabb",
        _put("kind", lambda x: np.array("sphere")),
        "'sphere' tree needs node_center",
    ),
    "float indices": (
        "aabb",
        _put("node_first", lambda x: 1.0 * x),
        "must hold integers",
    ),
    "wrong shape": (
        "aabb",
        _put("slot_box", lambda x: x[:-1]),
        "slot_box must have shape",
    ),
    "missing array": ("obb", _put("node_rot", None), "an 'obb' tree needs node_rot"),
}


@pytest.mark.parametrize("case", INVARIANTS)
def test_each_broken_invariant_is_refused(tmp_path, case):
    node, edit, match = INVARIANTS[case]
    _refused(_tampered(tmp_path, node, edit), match)


@pytest.mark.parametrize(
    "case", ["NaN node box", "box shrunk below its children", "node_first out of range"]
)
def test_a_bare_tree_is_checked_too(tmp_path, case):
    node, edit, match = INVARIANTS[case]
    _refused(_tampered(tmp_path, node, edit), match, BVH.load)


def test_an_untouched_file_passes_every_check(tmp_path):
    for node in ("aabb", "sphere", "obb", "kdop14", "kdop26"):
        path = _tampered(tmp_path, node, lambda d, m: None)
        back = TriangleMesh.load(path)
        back.bvh.validate(back.triangles)


def test_save_writes_the_whole_file_or_nothing(tmp_path, monkeypatch):
    mesh = shapes.box()
    mesh.save(tmp_path / "box")
    before = (tmp_path / "box.npz").read_bytes()

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(np, "savez", broken)
    with pytest.raises(OSError, match="disk full"):
        shapes.torus(200).save(tmp_path / "box")
    assert (tmp_path / "box.npz").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["box.npz"]
