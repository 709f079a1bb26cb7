"""Mesh files checked against their format: what trimesh would accept quietly (face
index 0, counts the body does not hold, faces without vertex indices) or loop on (a PLY
that ends after its header) is a FileError naming the file and, where known, the line."""

import numpy as np
import pytest
import trimesh

from hitbox import io
from hitbox.mesh import TriangleMesh

V = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n"
PLY_HEAD = (
    "ply\nformat {fmt} 1.0\nelement vertex {nv}\nproperty float x\nproperty float y\n"
    "property float z\nelement face {nf}\nproperty list uchar int vertex_indices\n"
    "end_header\n"
)


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def _refused(path, match):
    with pytest.raises(io.FileError, match=match) as info:
        io.read_mesh(path)
    assert str(info.value).startswith(str(path)) and "\n" not in str(info.value)


def _triangles(path):
    vertices, faces = io.read_mesh(path)
    return vertices[faces].tolist()


TRIANGLE = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]


@pytest.mark.parametrize(
    "face",
    ["f 1 2 3", "f -4 -3 -2", "f 1/1 2/1 3/1", "f 1/1/1 2/1/1 3/1/1", "f 1//1 2//1 3//1"],
    ids=["1-based", "relative", "v/vt", "v/vt/vn", "v//vn"],
)
def test_obj_index_forms_read_the_right_vertices(tmp_path, face):
    path = _write(tmp_path, "m.obj", V + "vt 0 0\nvn 0 0 1\n" + face + "\n")
    assert _triangles(path) == [TRIANGLE]


@pytest.mark.parametrize(
    ("face", "match"),
    [
        ("f 0 1 2", "line 7: face index 0 .OBJ indices start at 1"),
        ("f /1 /1 /1", "line 7: face vertex '/1' gives no vertex index"),
        ("f //1 //1 //1", "gives no vertex index"),
        ("f 1 2 x", "line 7: 'x' is not a face vertex"),
        ("f 1 2 9", "line 7: face vertex '9' indexes past the 4 vertices"),
        ("f 1 2 -5", "face vertex '-5' indexes past"),
        ("f 1 2", "line 7 is a face of 2 vertices"),
    ],
    ids=[
        "index 0",
        "texture only",
        "normal only",
        "not a number",
        "past",
        "back past",
        "2",
    ],
)
def test_obj_faces_that_give_no_vertex_are_refused(tmp_path, face, match):
    _refused(_write(tmp_path, "m.obj", V + "vt 0 0\nvn 0 0 1\n" + face + "\n"), match)


def test_obj_relative_index_before_later_vertices_is_refused(tmp_path):
    # trimesh resolves -1 against the file's last vertex, the OBJ rule against the last
    # vertex read so far: refused rather than read as the wrong triangle
    text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\nv 5 5 5\nf 1 2 4\n"
    _refused(_write(tmp_path, "m.obj", text), "line 5: a vertex after the relative")


def test_obj_polygons_give_n_minus_2_triangles(tmp_path):
    path = _write(tmp_path, "m.obj", V + "v 1 1 0\nf 1 2 5 3\nf 1 2 4\n")
    assert len(io.read_mesh(path)[1]) == 3


OFF = "OFF\n4 {nf} 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n"


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (
            OFF.format(nf=1) + "3 0 1 2\n3 0 1 3\n",
            "line 8: more lines than the 4 vertices",
        ),
        (
            OFF.format(nf=3) + "3 0 1 2\n",
            "counts 4 vertices and 3 faces, but the file ends",
        ),
        (
            "OFF\n5 1 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 1 2\n",
            "counts 5 vertices and 1 faces, but the file ends",
        ),
        ("OFF\n6 0 0\n0 0 0\n", "counts 6 vertices, but the file ends at line 3 after 1"),
        (OFF.format(nf=1) + "3 0 1 4\n", "line 7: face index 4 is past the 4 vertices"),
        (OFF.format(nf=1) + "4 0 1 2\n", "line 7: a face of 4 vertices lists 3"),
        (OFF.format(nf=1) + "2 0 1\n", "line 7 is a face of 2 vertices"),
        ("OFF\nfour 1 0\n", "line 2: expected the vertex and face counts"),
        ("PFF\n", "line 1: an OFF file starts with 'OFF'"),
    ],
    ids=[
        "more faces",
        "fewer faces",
        "fewer vertices",
        "cut",
        "past",
        "short",
        "2",
        "nan",
        "magic",
    ],  # fmt: skip
)
def test_off_counts_must_match_the_body(tmp_path, text, match):
    _refused(_write(tmp_path, "m.off", text), match)


def test_off_forms_read(tmp_path):
    assert _triangles(_write(tmp_path, "a.off", OFF.format(nf=1) + "3 0 1 2\n")) == [
        TRIANGLE
    ]
    text = "OFF 4 1 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 1 2 255 0 0\n"
    assert _triangles(_write(tmp_path, "b.off", text)) == [TRIANGLE]


@pytest.mark.parametrize("fmt", ["ascii", "binary_little_endian", "binary_big_endian"])
@pytest.mark.parametrize("nv", [3, 10**9])
def test_a_ply_that_ends_after_its_header_is_refused_at_once(tmp_path, fmt, nv):
    path = _write(tmp_path, "m.ply", PLY_HEAD.format(fmt=fmt, nv=nv, nf=1))
    _refused(path, "header (counts|promises)")


def test_ply_ascii_body_checked(tmp_path):
    head = PLY_HEAD.format(fmt="ascii", nv=3, nf=1)
    body = "0 0 0\n1 0 0\n0 1 0\n"
    assert _triangles(_write(tmp_path, "a.ply", head + body + "3 0 1 2\n")) == [TRIANGLE]
    _refused(
        _write(tmp_path, "b.ply", head + body + "3 0 1 3\n"),
        "line 13: face 0 has index 3",
    )
    _refused(_write(tmp_path, "c.ply", head + body + "2 0 1\n"), "face 0 has 2 vertices")
    _refused(_write(tmp_path, "d.ply", head + body), "counts 1 face rows, the file ends")
    _refused(
        _write(tmp_path, "e.ply", "ply\nformat ascii 1.0\nelement\n"), "no 'end_header'"
    )
    bad_header = head.replace("property float z", "property flot z")
    _refused(_write(tmp_path, "f.ply", bad_header), "line 6: not a PLY header line")
    # a bare 'property' (the file fuzzer's find: an IndexError, not a clear refusal)
    for fmt in ("ascii", "binary_little_endian"):
        bare = PLY_HEAD.format(fmt=fmt, nv=3, nf=1).replace(
            "property float z", "property"
        )
        _refused(_write(tmp_path, f"g-{fmt}.ply", bare), "line 6: not a PLY header line")


@pytest.mark.parametrize("encoding", ["ascii", "binary"])
def test_trimesh_exports_read_back(tmp_path, encoding):
    box = trimesh.creation.box()
    for suffix in ("ply", "stl", "off", "obj"):
        path = tmp_path / f"box.{suffix}"
        if suffix == "ply":
            path.write_bytes(box.export(file_type="ply", encoding=encoding))
        elif suffix == "stl":
            kind = "stl_ascii" if encoding == "ascii" else "stl"
            path.write_bytes(box.export(file_type=kind).encode()
                             if encoding == "ascii" else box.export(file_type=kind))  # fmt: skip
        else:
            box.export(path)
        vertices, faces = io.read_mesh(path)
        assert len(faces) == 12
        np.testing.assert_allclose(np.sort(vertices[faces].reshape(-1, 3), axis=0),
                                   np.sort(box.triangles.reshape(-1, 3), axis=0))  # fmt: skip


def test_binary_stl_size_must_match_its_count(tmp_path):
    raw = trimesh.creation.box().export(file_type="stl")
    _refused(_write(tmp_path, "a.stl", raw[:-10]), "header counts 12 triangles")
    _refused(_write(tmp_path, "b.stl", raw[:50]), "too short for an STL header")


def test_negative_face_index_in_arrays_says_negative():
    with pytest.raises(ValueError, match=r"faces\[0\] \[0, 1, -1\] has a negative index"):
        TriangleMesh(np.eye(3), [[0, 1, -1]])
    with pytest.raises(ValueError, match="indexes past the 3 vertices"):
        TriangleMesh(np.eye(3), np.array([[0, 1, 2**64 - 1]], np.uint64))
    with pytest.raises(ValueError, match="indexes past the 3 vertices"):
        TriangleMesh(np.eye(3), [[0.0, 1.0, 1e300]])
