"""Mesh files checked against their format before and after trimesh reads them.

trimesh is forgiving: it drops faces it cannot use, reads counts it cannot find as
zero, resolves OBJ's relative indices against the end of the file, and loops over the
counts a PLY header promises. :func:`scan` reads the file's own structure first (sizes,
counts, face sizes and indices, with line numbers) and returns how many triangles the
file describes, so that :func:`hitbox.io.read_mesh` can check what trimesh hands
back against it. Every loop here is bounded by the file's size, not by a count in it.
"""

import re

__all__ = ["Malformed", "scan"]

# PLY property types and their sizes in bytes
_PLY_SIZES = {
    **dict.fromkeys((b"char", b"uchar", b"int8", b"uint8"), 1),
    **dict.fromkeys((b"short", b"ushort", b"int16", b"uint16"), 2),
    **dict.fromkeys((b"int", b"uint", b"int32", b"uint32", b"float", b"float32"), 4),
    **dict.fromkeys((b"double", b"float64"), 8),
}
# the longest PLY header read (real ones are a few hundred bytes)
_PLY_HEADER_MAX = 1 << 16
_OFF_HEADER = re.compile(rb"^(ST)?C?N?4?OFF$")


class Malformed(ValueError):
    """The file breaks its format: the message says where and how (no file name)."""


def scan(path, suffix):
    """Check the file against its format; return the number of triangles it describes
    (polygons of n vertices count n - 2), or None where only trimesh can tell.

    Raises :class:`Malformed` naming the line (text formats) and the fault.
    """
    if suffix == ".stl":
        return _scan_stl(path)
    if suffix == ".obj":
        return _scan_obj(path)
    if suffix == ".off":
        return _scan_off(path)
    if suffix == ".ply":
        return _scan_ply(path)
    return None


# -- STL ---------------------------------------------------------------------------------


def _scan_stl(path):
    """A binary STL is an 80-byte header, a count n and n 50-byte records: check the
    size against the count (a text STL starts with 'solid' and is left to trimesh)."""
    size = path.stat().st_size
    with path.open("rb") as f:
        head = f.read(84)
    if head.lstrip()[:5].lower() == b"solid":
        count = int.from_bytes(head[80:84], "little") if len(head) == 84 else -1
        if size != 84 + 50 * count:
            return None  # text
    if len(head) < 84:
        raise Malformed(f"corrupt STL: {size} bytes, too short for an STL header")
    count = int.from_bytes(head[80:84], "little")
    if size != 84 + 50 * count:
        raise Malformed(
            f"corrupt binary STL: its header counts {count} triangles, which take "
            f"{84 + 50 * count} bytes, but the file has {size}"
        )
    return count


# -- OBJ ---------------------------------------------------------------------------------


def _lines(path):
    """(line number, the line without its comment, stripped), as bytes."""
    with path.open("rb") as f:
        for number, raw in enumerate(f, start=1):
            yield number, raw.split(b"#", 1)[0].strip()


def _scan_obj(path):
    n_vertices = 0
    triangles = 0
    relative_at = None  # line of the first relative index
    for number, line in _lines(path):
        key = line[:2]
        if key in (b"v ", b"v\t"):
            n_vertices += 1
            if relative_at is not None:
                raise Malformed(
                    f"line {number}: a vertex after the relative face index on line "
                    f"{relative_at}, which trimesh would resolve against the last "
                    "vertex of the file; write absolute indices"
                )
        elif key in (b"f ", b"f\t"):
            corners = line.split()[1:]
            if len(corners) < 3:
                raise Malformed(f"line {number} is a face of {len(corners)} vertices")
            for corner in corners:
                index = _obj_index(number, corner)
                if index < 0:
                    relative_at = relative_at or number
                    index += n_vertices + 1  # -1 is the last vertex so far
                if not 1 <= index <= n_vertices:
                    raise Malformed(
                        f"line {number}: face vertex {corner.decode(errors='replace')!r} "
                        f"indexes past the {n_vertices} vertices read so far"
                    )
            triangles += len(corners) - 2
    return triangles


def _obj_index(number, corner):
    """The vertex index of one face corner (``v``, ``v/vt``, ``v//vn``, ``v/vt/vn``)."""
    text = corner.split(b"/", 1)[0]
    shown = corner.decode(errors="replace")
    if not text:
        raise Malformed(f"line {number}: face vertex {shown!r} gives no vertex index")
    try:
        index = int(text)
    except ValueError:
        raise Malformed(f"line {number}: {shown!r} is not a face vertex") from None
    if index == 0:
        raise Malformed(f"line {number}: face index 0 (OBJ indices start at 1)")
    return index


# -- OFF ---------------------------------------------------------------------------------


def _scan_off(path):
    lines = ((n, line) for n, line in _lines(path) if line)
    number, head = next(lines, (1, b""))
    tokens = head.split()
    if not tokens or not _OFF_HEADER.match(tokens[0].upper()):
        raise Malformed(
            f"line {number}: an OFF file starts with 'OFF', got {head[:40]!r}"
        )
    if tokens[0].upper() != b"OFF" and tokens[0].upper() not in (b"COFF", b"NOFF"):
        return None  # rare variants: trimesh's to judge
    counts = tokens[1:]
    if not counts:
        number, rest = next(lines, (number + 1, b""))
        counts = rest.split()
    try:
        n_vertices, n_faces = int(counts[0]), int(counts[1])
    except (IndexError, ValueError):
        raise Malformed(
            f"line {number}: expected the vertex and face counts, got {counts[:3]}"
        ) from None
    if n_vertices < 0 or n_faces < 0:
        raise Malformed(f"line {number}: negative counts {n_vertices} {n_faces}")
    last, read = number, 0
    for number, line in lines if n_vertices else ():
        last = number
        if len(line.split()) < 3:
            raise Malformed(f"line {number}: vertex {read} has fewer than 3 coordinates")
        read += 1
        if read == n_vertices:
            break
    if read < n_vertices:
        raise Malformed(
            f"the header counts {n_vertices} vertices, but the file ends at line {last} "
            f"after {read}"
        )
    triangles = 0
    seen_faces = 0
    for number, line in lines:
        last = number
        if seen_faces == n_faces:
            raise Malformed(
                f"line {number}: more lines than the {n_vertices} vertices and "
                f"{n_faces} faces the header counts"
            )
        size, corners = _face_row(number, line)
        if size < 3:
            raise Malformed(f"line {number} is a face of {size} vertices")
        if len(corners) < size:
            raise Malformed(
                f"line {number}: a face of {size} vertices lists {len(corners)}"
            )
        bad = [c for c in corners if not 0 <= c < n_vertices]
        if bad:
            raise Malformed(
                f"line {number}: face index {bad[0]} is past the {n_vertices} vertices"
            )
        triangles += size - 2
        seen_faces += 1
    if seen_faces < n_faces:
        raise Malformed(
            f"the header counts {n_vertices} vertices and {n_faces} faces, but the "
            f"file ends at line {last} after {seen_faces} faces"
        )
    return triangles


# -- PLY ---------------------------------------------------------------------------------


def _scan_ply(path):
    size = path.stat().st_size
    with path.open("rb") as f:
        head = f.read(_PLY_HEADER_MAX)
        end = re.search(rb"(^|\n)end_header[ \t]*\r?\n?", head)
        if not head.startswith(b"ply") or end is None:
            what = "no 'end_header'" if head.startswith(b"ply") else "no 'ply' magic"
            raise Malformed(f"not a PLY file ({what} in its first {len(head)} bytes)")
        fmt, elements = _ply_header(head[: end.start()])
        f.seek(end.end())
        if fmt == b"ascii":
            return _ply_ascii_body(f, elements, head[: end.end()].count(b"\n") + 1)
    body = size - end.end()
    least = sum(count * sum(_ply_least(p) for p in props) for _, count, props in elements)
    if body < least:
        raise Malformed(
            f"the header promises at least {least} bytes of {fmt.decode()} data, "
            f"the file has {body} after it"
        )
    return None


def _ply_header(text):
    """(format, [(element name, count, [property words])]) of a PLY header."""
    fmt, elements = None, []
    for number, raw in enumerate(text.split(b"\n"), start=1):
        words = raw.split()
        if not words or words[0] in (b"comment", b"obj_info", b"ply"):
            continue
        if words[0] == b"format" and len(words) >= 2:
            fmt = words[1]
        elif words[0] == b"element" and len(words) == 3 and words[2].isdigit():
            elements.append((words[1], int(words[2]), []))
        elif words[0] == b"property" and elements and _ply_property_ok(words):
            elements[-1][2].append(words[1:])
        else:
            raise Malformed(f"line {number}: not a PLY header line: {raw[:40]!r}")
    if fmt not in (b"ascii", b"binary_little_endian", b"binary_big_endian"):
        raise Malformed(f"unknown PLY format {fmt!r}")
    return fmt, elements


def _ply_property_ok(words):
    """A property line names a type (or ``list``, a count type and an item type) and
    a name; a bare ``property`` is malformed, not an index error."""
    if len(words) < 2:
        return False
    if words[1] == b"list":
        return len(words) == 5 and words[2] in _PLY_SIZES and words[3] in _PLY_SIZES
    return len(words) == 3 and words[1] in _PLY_SIZES


def _ply_least(prop):
    """The fewest bytes a property takes (a list: its count alone)."""
    return _PLY_SIZES[prop[1]] if prop[0] == b"list" else _PLY_SIZES[prop[0]]


def _ply_ascii_body(f, elements, first_line):
    """Check an ASCII body line by line against the header's counts; return the face
    element's triangles (None without one)."""
    lines = ((n, raw.strip()) for n, raw in enumerate(f, start=first_line))
    lines = ((n, line) for n, line in lines if line)
    n_vertices = next((c for name, c, _ in elements if name == b"vertex"), 0)
    triangles = None
    for name, count, props in elements:
        is_face = name == b"face" and props[:1] != [] and props[0][0] == b"list"
        triangles = 0 if is_face else triangles
        read = 0
        for number, line in lines if count else ():
            read += 1
            if is_face:
                triangles += _ply_face(number, read - 1, line, n_vertices)
            if read == count:
                break
        if read < count:
            raise Malformed(
                f"the header counts {count} {name.decode(errors='replace')} rows, the "
                f"file ends after {read}"
            )
    return triangles


def _face_row(number, line):
    """(vertex count, the indices after it) of a face row of an OFF or ASCII PLY body;
    the row may list fewer indices than it counts (the caller says so)."""
    words = line.split()
    try:
        size = int(words[0])
        corners = [int(w) for w in words[1 : 1 + size]]
    except ValueError:
        raise Malformed(f"line {number}: not a face: {line[:40]!r}") from None
    return size, corners


def _ply_face(number, row, line, n_vertices):
    """Triangles of one ASCII face row (its vertex count first)."""
    size, corners = _face_row(number, line)
    if size < 3:
        raise Malformed(f"line {number}: face {row} has {size} vertices")
    bad = [c for c in corners if not 0 <= c < n_vertices]
    if len(corners) < size or bad:
        what = f"index {bad[0]}" if bad else f"{len(corners)} of its {size} indices"
        raise Malformed(f"line {number}: face {row} has {what} for {n_vertices} vertices")
    return size - 2
