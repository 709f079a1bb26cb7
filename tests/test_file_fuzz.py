"""A file fuzzer for every reader: byte mutations and truncations of valid files, and
small grammar-built files. The property: a valid mesh (finite vertices, faces in range)
or a one-line ValueError/TypeError naming the file, within the per-example deadline.

`make test` runs a small budget; `make fuzz` (HYPOTHESIS_PROFILE=fuzz, registered in
conftest.py) a long one.
"""

import os
from datetime import timedelta

import numpy as np
import pytest
import trimesh
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hitbox import io, shapes
from hitbox.mesh import TriangleMesh

LONG = os.environ.get("HYPOTHESIS_PROFILE") == "fuzz"
# The deadline catches a reader that hangs (a header promising 10^9 rows), not a kernel
# compiling or loading from the cache on the first file that reaches it (seconds).
FUZZ = settings(
    max_examples=3000 if LONG else 25,
    deadline=timedelta(seconds=20),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _seeds():
    box = trimesh.creation.box()
    seeds = {
        "obj": box.export(file_type="obj").encode(),
        "off": box.export(file_type="off").encode(),
        "ply_ascii": box.export(file_type="ply", encoding="ascii"),
        "ply_binary": box.export(file_type="ply"),
        "stl_ascii": box.export(file_type="stl_ascii").encode(),
        "stl_binary": box.export(file_type="stl"),
    }
    return seeds


SEEDS = _seeds()
SUFFIX = {"ply_ascii": ".ply", "ply_binary": ".ply", "stl_ascii": ".stl",
          "stl_binary": ".stl"}  # fmt: skip


def _npz_seed(tmp_path_factory):
    path = tmp_path_factory.mktemp("seed") / "mesh.npz"
    shapes.sphere(1.0, 4, 6).save(path)
    TriangleMesh.load(path)  # the loader's kernels compiled before any deadline runs
    return path.read_bytes()


@st.composite
def mutated(draw, seed):
    """``seed`` with a few bytes flipped, inserted or deleted, or cut short."""
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["flip", "insert", "delete", "cut", "digit"]))
        at = draw(st.integers(0, max(len(data) - 1, 0)))
        if op == "flip" and data:
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif op == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
        elif op == "delete":
            del data[at : at + draw(st.integers(1, 16))]
        elif op == "cut":
            del data[at:]
        elif data:  # a digit, often where a count or index stands
            data[at] = ord(draw(st.sampled_from("0123456789-")))
    return bytes(data)


NUMBER = st.sampled_from(
    ["0", "1", "2", "3", "-1", "-4", "9", "1e308", "nan", "x", "1.5"]
)


@st.composite
def grammar_file(draw, kind):
    """A small file of the format's own lines, valid or nearly so."""
    n = draw(st.integers(0, 6))
    if kind == "obj":
        lines = [f"v {draw(NUMBER)} {draw(NUMBER)} {draw(NUMBER)}" for _ in range(n)]
        for _ in range(draw(st.integers(0, 4))):
            corners = draw(st.lists(NUMBER, min_size=0, max_size=5))
            form = draw(st.sampled_from(["{}", "{}/1", "{}//1", "{}/1/1", "/{}"]))
            lines.insert(draw(st.integers(0, len(lines))),
                         "f " + " ".join(form.format(c) for c in corners))  # fmt: skip
        return "\n".join(lines).encode()
    if kind == "off":
        nf = draw(st.integers(0, 4))
        lines = [f"OFF\n{draw(st.sampled_from([n, n + 1, max(n - 1, 0)]))} {nf} 0"]
        lines += [f"{draw(NUMBER)} {draw(NUMBER)} {draw(NUMBER)}" for _ in range(n)]
        for _ in range(draw(st.sampled_from([nf, nf + 1, max(nf - 1, 0)]))):
            corners = draw(st.lists(NUMBER, min_size=0, max_size=5))
            lines.append(
                f"{draw(st.sampled_from([len(corners), 3]))} " + " ".join(corners)
            )
        return "\n".join(lines).encode()
    nf = draw(st.integers(0, 3))
    head = (
        f"ply\nformat ascii 1.0\nelement vertex {draw(st.sampled_from([n, n + 1, 10**9]))}"
        "\nproperty float x\nproperty float y\nproperty float z\n"
        f"element face {nf}\nproperty list uchar int vertex_indices\nend_header\n"
    )
    body = [f"{draw(NUMBER)} {draw(NUMBER)} {draw(NUMBER)}" for _ in range(n)]
    body += [f"3 {draw(NUMBER)} {draw(NUMBER)} {draw(NUMBER)}" for _ in range(nf)]
    return (head + "\n".join(body)).encode()


def _check_mesh(path, read):
    """The property, for one file."""
    try:
        result = read(path)
    except (ValueError, TypeError) as exc:
        text = str(exc)
        assert "\n" not in text and str(path) in text, text
        return
    vertices, faces = (
        (result.vertices, result.faces) if isinstance(result, TriangleMesh) else result
    )
    assert np.isfinite(vertices).all()
    assert len(faces) and faces.min() >= 0 and faces.max() < len(vertices)


@pytest.mark.parametrize("kind", list(SEEDS))
@FUZZ
@given(data=st.data())
def test_mutated_mesh_files(tmp_path, kind, data):
    raw = data.draw(mutated(SEEDS[kind]))
    path = tmp_path / f"m{SUFFIX.get(kind, '.' + kind)}"
    path.write_bytes(raw)
    _check_mesh(path, io.read_mesh)


@pytest.mark.parametrize("kind", ["obj", "off", "ply"])
@FUZZ
@given(data=st.data())
def test_grammar_mesh_files(tmp_path, kind, data):
    path = tmp_path / f"g.{kind}"
    path.write_bytes(data.draw(grammar_file(kind)))
    _check_mesh(path, io.read_mesh)


@pytest.fixture(scope="module")
def npz_seed(tmp_path_factory):
    return _npz_seed(tmp_path_factory)


@FUZZ
@given(data=st.data())
def test_mutated_saved_meshes(tmp_path, npz_seed, data):
    path = tmp_path / "m.npz"
    path.write_bytes(data.draw(mutated(npz_seed)))
    _check_mesh(path, TriangleMesh.load)


@FUZZ
@given(data=st.data())
def test_mutated_scene_files(tmp_path, data):
    (tmp_path / "box.obj").write_bytes(SEEDS["obj"])
    seed = (
        b'{"objects": [{"file": "box.obj", "pose": [0, 0, 0, 0, 0, 0]},'
        b' {"file": "box.obj", "pose": [1, 0, 0, 90, 0, 0], "velocity": [1, 0, 0]}]}'
    )
    path = tmp_path / "scene.json"
    path.write_bytes(data.draw(mutated(seed)))
    try:
        objects = io.load_scene(path)
    except (ValueError, TypeError) as exc:
        text = str(exc)
        assert "\n" not in text and ": " in text, text  # a file, then the fault
        return
    for obj in objects:
        assert np.isfinite(obj.pose).all() and np.isfinite(obj.velocity).all()
