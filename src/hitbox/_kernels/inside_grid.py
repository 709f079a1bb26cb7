"""Points inside a closed triangle mesh through a grid of known winding numbers, exact.

A uniform grid covers the mesh's box. A cell whose closed box, widened by a margin, meets
the box of some triangle is a *boundary* cell and lists those triangles; the others are
*empty*. Every cell has a reference point of known winding number:

- empty cells: one exact ray count (:func:`hitbox._kernels.inside.ray_winding`) per
  connected region of face-neighbouring empty cells, as no face passes between two of
  them (the segment joining their reference points meets no listed box);
- boundary cells: one exact ray count each.

A query point in an empty cell takes its cell's winding number. In a boundary cell the
winding number changes by one at each face that the segment from the reference point to
the point crosses, and every such face is listed (the segment stays in the widened
box); each crossing is decided by the signs of exact orient3d predicates (Shewchuk).
Where a sign is 0 (the segment meets an edge, a vertex, or a face's plane at the point),
or the cell's reference point lies on the surface, the point is left UNDECIDED for the
ray kernel, so answers are the ray kernel's exactly.
"""

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from hitbox._kernels.exact_predicates import orient3d
from hitbox._kernels.inside import INSIDE, OUTSIDE, UNDECIDED, ray_winding
from hitbox._kernels.lanes import chunk_span, lane_count
from hitbox._kernels.orient_filter import orient3d_filter

_CHUNK = 256
#: Cell codes below 0: empty with winding number 0, empty and inside, or undecided
#: (the ray kernel answers there). Codes >= 0 are boundary cell numbers.
EMPTY_OUT, EMPTY_IN, SLOW, _UNSET = -1, -2, -3, -4
#: Winding number of a boundary cell whose reference point lies on the surface.
_NO_WINDING = np.iinfo(np.int32).min
#: Reference point offset inside a cell, in cells from its centre: off the planes of
#: axis-aligned faces through cell centres.
_SHIFT = (0.0371, -0.0217, 0.0113)
#: Steps of a cell in the listed triangles' quantized boxes (one byte a bound).
_Q_STEPS = 255
#: Cells per face, and the most cells, of a grid.
CELLS_PER_FACE = 4.0
MAX_CELLS = 1 << 22


class Grid(NamedTuple):
    """A built grid: its geometry, each cell's code, and the boundary cells' lists."""

    box: np.ndarray  # (2, 3) the mesh's box: points off it are outside
    origin: np.ndarray  # (3,) low corner
    size: np.ndarray  # (3,) cell edge per axis
    dims: np.ndarray  # (3,) intp cells per axis
    margin: float  # listing margin; a point must lie within margin / 2 of its cell
    code: np.ndarray  # (cells,) int32: boundary number, or EMPTY_OUT / EMPTY_IN / SLOW
    winding: np.ndarray  # (boundary, 8) int32 at the cells' eighths' reference points
    first: np.ndarray  # (boundary + 1,) int64 offsets into slots
    slots: np.ndarray  # (listed,) int32 triangle slots
    qbox: (
        np.ndarray
    )  # (listed, 6) uint8 each listed triangle's box, quantized in its cell


def grid_geometry(lo, hi, n_faces):
    """(origin, size, dims, margin) for a mesh box lo..hi of n_faces, or None where cells
    would be no wider than the coordinates' rounding."""
    width = float(np.max(hi - lo))
    if not (0.0 < width < np.inf):
        return None
    ext = np.maximum(hi - lo, 1e-3 * width)
    cells = min(max(CELLS_PER_FACE * n_faces, 64.0), float(MAX_CELLS))
    edge = float(np.cbrt(np.prod(ext) / cells))
    dims = np.maximum(1, np.ceil(ext / edge - 1e-9)).astype(np.intp)
    while np.prod(dims) > MAX_CELLS:
        dims = np.maximum(1, dims // 2)
    size = (ext / dims) * (1 + 1e-6)
    origin = lo - 0.5 * ((size * dims) - (hi - lo))
    scale = float(np.max(np.abs(np.concatenate([lo, hi]))))
    margin = 1e-3 * float(size.min()) + 64 * np.finfo(float).eps * scale
    if not np.all(np.isfinite(size)) or margin >= 0.1 * size.min():
        return None
    return origin, size, dims, margin


@njit(inline="always")
def _cell_range(lo, hi, origin, size, dims, a, margin):
    """Cells along axis a whose box, widened by 2 margins, may meet [lo, hi]."""
    i0 = int(np.floor((lo - 2.0 * margin - origin[a]) / size[a]))
    i1 = int(np.floor((hi + 2.0 * margin - origin[a]) / size[a]))
    return max(i0, 0), min(i1, dims[a] - 1)


@njit(inline="always")
def _reference(origin, size, i, j, k):
    x = origin[0] + (i + 0.5 + _SHIFT[0]) * size[0]
    y = origin[1] + (j + 0.5 + _SHIFT[1]) * size[1]
    z = origin[2] + (k + 0.5 + _SHIFT[2]) * size[2]
    return x, y, z


@njit(inline="always")
def _octant(px, py, pz, origin, size, i, j, k):
    """Which eighth of cell (i, j, k) p lies in (bit 2: upper x, 1: y, 0: z)."""
    o = 4 if px >= origin[0] + (i + 0.5) * size[0] else 0
    o += 2 if py >= origin[1] + (j + 0.5) * size[1] else 0
    return o + (1 if pz >= origin[2] + (k + 0.5) * size[2] else 0)


@njit(inline="always")
def _sub_reference(origin, size, i, j, k, o):
    """The reference point of eighth o of cell (i, j, k): near its centre, off the
    planes of axis-aligned faces through simple fractions of the cell."""
    x = origin[0] + (i + 0.25 + 0.5 * ((o >> 2) & 1) + 0.5 * _SHIFT[0]) * size[0]
    y = origin[1] + (j + 0.25 + 0.5 * ((o >> 1) & 1) + 0.5 * _SHIFT[1]) * size[1]
    z = origin[2] + (k + 0.25 + 0.5 * (o & 1) + 0.5 * _SHIFT[2]) * size[2]
    return x, y, z


@njit(inline="always")
def _quantize(lo, hi, origin, size, margin, a, i):
    """[lo, hi] along axis a in 1/_Q_STEPS of cell i's box widened by a margin, rounded
    outward by a further step each way (the float products round), clamped to it."""
    base = origin[a] + i * size[a] - margin
    scale = _Q_STEPS / (size[a] + 2.0 * margin)
    qlo = int(np.floor((lo - base) * scale)) - 1
    qhi = int(np.ceil((hi - base) * scale)) + 1
    return min(max(qlo, 0), _Q_STEPS), min(max(qhi, 0), _Q_STEPS)


@njit(inline="always")
def _plane(tris, s):
    """(n0, n1, n2, d, slack) of face s: n . x = d on its plane as computed, and how far
    its own vertices stray from that plane (rounding, slivers), to be added to any test."""
    ux, uy, uz = (
        tris[s, 1, 0] - tris[s, 0, 0],
        tris[s, 1, 1] - tris[s, 0, 1],
        tris[s, 1, 2] - tris[s, 0, 2],
    )
    vx, vy, vz = (
        tris[s, 2, 0] - tris[s, 0, 0],
        tris[s, 2, 1] - tris[s, 0, 1],
        tris[s, 2, 2] - tris[s, 0, 2],
    )
    n0, n1, n2 = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
    d = n0 * tris[s, 0, 0] + n1 * tris[s, 0, 1] + n2 * tris[s, 0, 2]
    stray = 0.0
    for v in range(1, 3):
        stray = max(
            stray, abs(n0 * tris[s, v, 0] + n1 * tris[s, v, 1] + n2 * tris[s, v, 2] - d)
        )
    return n0, n1, n2, d, stray  # fmt: skip


@njit(inline="always")
def _off_plane(n0, n1, n2, d, stray, origin, size, margin, i, j, k):
    """Whether cell (i, j, k), widened by 2 margins, lies wholly off the face's plane
    (so off the face): the plane's offset from the cell's centre exceeds the box's reach
    along the normal by more than the vertices' stray and a rounding slack."""
    cx = origin[0] + (i + 0.5) * size[0]
    cy = origin[1] + (j + 0.5) * size[1]
    cz = origin[2] + (k + 0.5) * size[2]
    reach = (abs(n0) * (0.5 * size[0] + 2.0 * margin) + abs(n1) * (0.5 * size[1] + 2.0 * margin)
             + abs(n2) * (0.5 * size[2] + 2.0 * margin))  # fmt: skip
    off = abs(n0 * cx + n1 * cy + n2 * cz - d)
    slack = 1e-9 * (
        (abs(n0) + abs(n1) + abs(n2)) * (abs(cx) + abs(cy) + abs(cz)) + abs(d) + reach
    )
    return off > reach + stray + slack


@njit(cache=True, nogil=True)
def _list_triangles(tris, origin, size, dims, margin):
    """(code, first, slots, qbox): cells' codes (boundary numbers, or _UNSET), CSR
    lists of triangle slots, and each listed triangle's box quantized in its cell."""
    n_cells = dims[0] * dims[1] * dims[2]
    counts = np.zeros(n_cells, np.int32)
    for phase in range(2):
        if phase == 1:
            code = np.full(n_cells, _UNSET, np.int32)
            n_b = 0
            for c in range(n_cells):
                if counts[c] > 0:
                    code[c] = n_b
                    n_b += 1
            first = np.zeros(n_b + 1, np.int64)
            for c in range(n_cells):
                if counts[c] > 0:
                    first[code[c] + 1] = counts[c]
            for b in range(n_b):
                first[b + 1] += first[b]
            slots = np.empty(first[n_b], np.int32)
            qbox = np.empty((first[n_b], 6), np.uint8)
            fill = first[:-1].copy()
        for s in range(len(tris)):
            i0, i1 = _cell_range(min(tris[s, 0, 0], tris[s, 1, 0], tris[s, 2, 0]),
                                 max(tris[s, 0, 0], tris[s, 1, 0], tris[s, 2, 0]),
                                 origin, size, dims, 0, margin)  # fmt: skip
            j0, j1 = _cell_range(min(tris[s, 0, 1], tris[s, 1, 1], tris[s, 2, 1]),
                                 max(tris[s, 0, 1], tris[s, 1, 1], tris[s, 2, 1]),
                                 origin, size, dims, 1, margin)  # fmt: skip
            k0, k1 = _cell_range(min(tris[s, 0, 2], tris[s, 1, 2], tris[s, 2, 2]),
                                 max(tris[s, 0, 2], tris[s, 1, 2], tris[s, 2, 2]),
                                 origin, size, dims, 2, margin)  # fmt: skip
            n0, n1, n2, d, slack = _plane(tris, s)
            for i in range(i0, i1 + 1):
                for j in range(j0, j1 + 1):
                    for k in range(k0, k1 + 1):
                        if _off_plane(
                            n0, n1, n2, d, slack, origin, size, margin, i, j, k
                        ):
                            continue
                        c = (i * dims[1] + j) * dims[2] + k
                        if phase == 0:
                            counts[c] += 1
                        else:
                            b = code[c]
                            slots[fill[b]] = s
                            for a, ia in ((0, i), (1, j), (2, k)):
                                lo = min(tris[s, 0, a], tris[s, 1, a], tris[s, 2, a])
                                hi = max(tris[s, 0, a], tris[s, 1, a], tris[s, 2, a])
                                qlo, qhi = _quantize(lo, hi, origin, size, margin, a, ia)
                                qbox[fill[b], a] = qlo
                                qbox[fill[b], 3 + a] = qhi
                            fill[b] += 1
    return code, first, slots, qbox


@njit(cache=True, nogil=True)
def _boundary_range(node_box, node_first, node_count, tris, depth, origin, size, ijk,
                    first, slots, out, lo, hi):  # fmt: skip
    """Windings at the eight reference points of boundary cells lo..hi: the first by an
    axis ray, the others by the faces crossed from it (a ray where a sign is 0)."""
    stack = np.empty(2 * depth + 4, np.intp)
    ref = np.empty((1, 3))
    for b in range(lo, hi):
        i, j, k = ijk[b, 0], ijk[b, 1], ijk[b, 2]
        rx, ry, rz = _sub_reference(origin, size, i, j, k, 0)
        for o in range(8):
            sx, sy, sz = _sub_reference(origin, size, i, j, k, o)
            w = _NO_WINDING
            if o > 0 and out[b, 0] != _NO_WINDING:
                w = np.int64(out[b, 0])
                for e in range(first[b], first[b + 1]):
                    step = _crossing_fast(tris, slots[e], rx, ry, rz, sx, sy, sz)
                    if step == 2:
                        w = _NO_WINDING
                        break
                    w += step
            if w == _NO_WINDING:
                ref[0, 0], ref[0, 1], ref[0, 2] = sx, sy, sz
                status, count = ray_winding(
                    node_box, node_first, node_count, tris, stack, ref, 0
                )
                w = count if status == 0 else _NO_WINDING
            out[b, o] = w


@njit(cache=True, nogil=True, parallel=True)
def _boundary_windings(node_box, node_first, node_count, tris, depth, origin, size, ijk,
                       first, slots, threads):  # fmt: skip
    """(B, 8) winding numbers at the boundary cells' reference points, in parallel."""
    n = len(ijk)
    out = np.empty((n, 8), np.int32)
    lanes, n_chunks = lane_count(n, threads, _CHUNK)
    for lane in prange(lanes):
        for c in range(lane, n_chunks, lanes):
            lo, hi = chunk_span(c, n, _CHUNK)
            _boundary_range(node_box, node_first, node_count, tris, depth, origin, size,
                            ijk, first, slots, out, lo, hi)  # fmt: skip
    return out


@njit(cache=True, nogil=True)
def _cells_of(code, n_b, dims):
    """(B, 3) cell indices of the boundary cells."""
    ijk = np.empty((n_b, 3), np.int64)
    for i in range(dims[0]):
        for j in range(dims[1]):
            for k in range(dims[2]):
                b = code[(i * dims[1] + j) * dims[2] + k]
                if b >= 0:
                    ijk[b, 0], ijk[b, 1], ijk[b, 2] = i, j, k
    return ijk


@njit(cache=True, nogil=True)
def _fill_empty(node_box, node_first, node_count, tris, depth, code, origin, size, dims):
    """Give each region of face-neighbouring empty cells the code of its winding number,
    from one ray count at its first cell's reference point."""
    stack = np.empty(2 * depth + 4, np.intp)
    queue = np.empty(len(code), np.int32)
    ref = np.empty((1, 3))
    ny, nz = dims[1], dims[2]
    for seed in range(len(code)):
        if code[seed] != _UNSET:
            continue
        i, rem = divmod(seed, ny * nz)
        j, k = divmod(rem, nz)
        ref[0, 0], ref[0, 1], ref[0, 2] = _reference(origin, size, i, j, k)
        status, count = ray_winding(node_box, node_first, node_count, tris, stack, ref, 0)
        value = SLOW if status != 0 else (EMPTY_IN if count != 0 else EMPTY_OUT)
        code[seed] = value
        queue[0] = seed
        head, tail = 0, 1
        while head < tail:
            c = queue[head]
            head += 1
            i, rem = divmod(c, ny * nz)
            j, k = divmod(rem, nz)
            for a in range(6):
                d = 1 if a < 3 else -1
                ii, jj, kk = i, j, k
                if a % 3 == 0:
                    ii += d
                elif a % 3 == 1:
                    jj += d
                else:
                    kk += d
                if ii < 0 or jj < 0 or kk < 0 or ii >= dims[0] or jj >= ny or kk >= nz:
                    continue
                n = (ii * ny + jj) * nz + kk
                if code[n] == _UNSET:
                    code[n] = value
                    queue[tail] = n
                    tail += 1


def build(tris, node_box, node_first, node_count, depth, lo, hi, threads):
    """The :class:`Grid` of the closed mesh of ``tris`` (slot order) under its tree, or
    None where the mesh's box is too small against its coordinates for cells."""
    geometry = grid_geometry(lo, hi, len(tris))
    if geometry is None:
        return None
    origin, size, dims, margin = geometry
    code, first, slots, qbox = _list_triangles(tris, origin, size, dims, margin)
    ijk = _cells_of(code, len(first) - 1, dims)
    winding = _boundary_windings(node_box, node_first, node_count, tris, depth, origin,
                                 size, ijk, first, slots, threads)  # fmt: skip
    _fill_empty(node_box, node_first, node_count, tris, depth, code, origin, size, dims)
    box = np.stack([lo, hi]).astype(np.float64)
    return Grid(box, origin, size, dims, margin, code, winding, first, slots, qbox)


@njit(inline="always")
def _crossing(tris, s, rx, ry, rz, px, py, pz):
    """Signed change of the winding number from r to p across face s: 0 when the
    segment misses it, 2 when a sign is 0 (undecided)."""
    ends = ((rx, px), (ry, py), (rz, pz))
    for ax in range(3):  # the segment's box and the face's apart: no crossing
        if max(tris[s, 0, ax], tris[s, 1, ax], tris[s, 2, ax]) < min(ends[ax]):
            return 0
        if min(tris[s, 0, ax], tris[s, 1, ax], tris[s, 2, ax]) > max(ends[ax]):
            return 0
    a = (tris[s, 0, 0], tris[s, 0, 1], tris[s, 0, 2])
    b = (tris[s, 1, 0], tris[s, 1, 1], tris[s, 1, 2])
    c = (tris[s, 2, 0], tris[s, 2, 1], tris[s, 2, 2])
    p = (px, py, pz)
    r = (rx, ry, rz)
    side_p = orient3d(a, b, c, p)
    if side_p == 0:
        return 2  # p on the face's plane: on the face or not, the ray kernel decides
    side_r = orient3d(a, b, c, r)
    if side_r == side_p or side_r == 0:
        return 0  # r is off the surface, so on the plane it is off the face
    e1 = orient3d(r, p, a, b)
    e2 = orient3d(r, p, b, c)
    e3 = orient3d(r, p, c, a)
    if (e1 > 0 or e2 > 0 or e3 > 0) and (e1 < 0 or e2 < 0 or e3 < 0):
        return 0
    if e1 == 0 or e2 == 0 or e3 == 0:
        return 2  # through an edge or a vertex
    return -side_p  # leaving along the normal lowers the winding number


@njit(inline="always")
def _crossing_fast(tris, s, rx, ry, rz, px, py, pz):
    """:func:`_crossing`, the same answer: the five orient3d signs by their float
    filters at once, with few branches (their outcomes are random); :func:`_crossing`
    itself where a filter cannot decide. Without the box test: where every sign is
    sure, a segment off the face's box is found missing it by the signs alone."""
    ax, ay, az = tris[s, 0, 0], tris[s, 0, 1], tris[s, 0, 2]
    bx, by, bz = tris[s, 1, 0], tris[s, 1, 1], tris[s, 1, 2]
    cx, cy, cz = tris[s, 2, 0], tris[s, 2, 1], tris[s, 2, 2]
    dp, bp = orient3d_filter(ax, ay, az, bx, by, bz, cx, cy, cz, px, py, pz)
    dr, br = orient3d_filter(ax, ay, az, bx, by, bz, cx, cy, cz, rx, ry, rz)
    if (abs(dp) > bp) & (abs(dr) > br):
        if (dp > 0.0) == (dr > 0.0):
            return 0  # p and r on one side of the plane
        d1, b1 = orient3d_filter(rx, ry, rz, px, py, pz, ax, ay, az, bx, by, bz)
        d2, b2 = orient3d_filter(rx, ry, rz, px, py, pz, bx, by, bz, cx, cy, cz)
        d3, b3 = orient3d_filter(rx, ry, rz, px, py, pz, cx, cy, cz, ax, ay, az)
        if (abs(d1) > b1) & (abs(d2) > b2) & (abs(d3) > b3):
            if ((d1 > 0.0) & (d2 > 0.0) & (d3 > 0.0)) | (
                (d1 < 0.0) & (d2 < 0.0) & (d3 < 0.0)
            ):
                return -1 if dp > 0.0 else 1  # leaving along the normal lowers it
            return 0
    return _crossing(tris, s, rx, ry, rz, px, py, pz)


@njit(inline="always")
def _axis_cell(x, origin, size, dims, a, half):
    """(cell along axis a, whether x lies within half a margin of that cell's box)."""
    i = min(max(int(np.floor((x - origin[a]) / size[a])), 0), dims[a] - 1)
    fits = origin[a] + i * size[a] - half <= x <= origin[a] + (i + 1) * size[a] + half
    return i, fits


@njit(cache=True, nogil=True)
def _locate_range(box, origin, size, dims, margin, code, winding, points, out, cell,
                  lo, hi):  # fmt: skip
    """Answer the points that need no crossing test; give the others their boundary
    cell in ``cell`` (-1 for the answered)."""
    half = 0.5 * margin
    for q in range(lo, hi):
        cell[q] = -1
        px, py, pz = points[q, 0], points[q, 1], points[q, 2]
        if (px < box[0, 0] or py < box[0, 1] or pz < box[0, 2]
                or px > box[1, 0] or py > box[1, 1] or pz > box[1, 2]):  # fmt: skip
            out[q] = OUTSIDE  # off the mesh's box: off a closed mesh and outside it
            continue
        i, fi = _axis_cell(px, origin, size, dims, 0, half)
        j, fj = _axis_cell(py, origin, size, dims, 1, half)
        k, fk = _axis_cell(pz, origin, size, dims, 2, half)
        if not (fi and fj and fk):
            out[q] = UNDECIDED  # rounding put p off its cell
            continue
        c = code[(i * dims[1] + j) * dims[2] + k]
        if c < 0:
            out[q] = (
                OUTSIDE if c == EMPTY_OUT else (INSIDE if c == EMPTY_IN else UNDECIDED)
            )
        elif winding[c, _octant(px, py, pz, origin, size, i, j, k)] == _NO_WINDING:
            out[q] = UNDECIDED
        else:
            cell[q] = c


@njit(cache=True, nogil=True)
def _by_cell(cell, n_cells):
    """The points with a boundary cell, ordered by it (a counting sort), so that points
    of one cell are tested one after the other while its faces are in cache."""
    start = np.zeros(n_cells + 1, np.int64)
    for q in range(len(cell)):
        if cell[q] >= 0:
            start[cell[q] + 1] += 1
    for c in range(n_cells):
        start[c + 1] += start[c]
    order = np.empty(start[n_cells], np.int64)
    for q in range(len(cell)):
        c = cell[q]
        if c >= 0:
            order[start[c]] = q
            start[c] += 1
    return order


@njit(cache=True, nogil=True)
def _cross_range(origin, size, dims, margin, winding, first, slots, qbox, tris, points,
                 out, cell, order, lo, hi):  # fmt: skip
    """Decide the ordered points lo..hi by the faces crossed from the reference point
    of their eighth of their cell, in three passes: gather the points (independent
    loads, which overlap); list each point's faces whose box meets its segment's;
    test the listed (point, face) pairs one after the other. Apart, each pass's
    branches are few or predictable."""
    ny, nz = dims[1], dims[2]
    m = hi - lo
    seg = np.empty((m, 6))  # p, then its reference point r
    w = np.empty(m, np.int64)
    total = 0
    for u in range(m):
        q = order[lo + u]
        c = cell[q]
        seg[u, 0], seg[u, 1], seg[u, 2] = points[q, 0], points[q, 1], points[q, 2]
        w[u] = c
        total += first[c + 1] - first[c]
    pair_u = np.empty(total, np.int32)
    pair_s = np.empty(total, np.int32)
    n_pairs = 0
    for u in range(m):
        c = w[u]
        px, py, pz = seg[u, 0], seg[u, 1], seg[u, 2]
        i = min(max(int(np.floor((px - origin[0]) / size[0])), 0), dims[0] - 1)
        j = min(max(int(np.floor((py - origin[1]) / size[1])), 0), ny - 1)
        k = min(max(int(np.floor((pz - origin[2]) / size[2])), 0), nz - 1)
        o = _octant(px, py, pz, origin, size, i, j, k)
        rx, ry, rz = _sub_reference(origin, size, i, j, k, o)
        seg[u, 3], seg[u, 4], seg[u, 5] = rx, ry, rz
        lx, hx = _quantize(min(rx, px), max(rx, px), origin, size, margin, 0, i)
        ly, hy = _quantize(min(ry, py), max(ry, py), origin, size, margin, 1, j)
        lz, hz = _quantize(min(rz, pz), max(rz, pz), origin, size, margin, 2, k)
        w[u] = winding[c, o]
        for e in range(first[c], first[c + 1]):
            # written always, kept where the boxes meet, even rounded outward: no branch
            pair_u[n_pairs] = u
            pair_s[n_pairs] = slots[e]
            apart = ((qbox[e, 3] < lx) | (qbox[e, 0] > hx) | (qbox[e, 4] < ly)
                     | (qbox[e, 1] > hy) | (qbox[e, 5] < lz) | (qbox[e, 2] > hz))  # fmt: skip
            n_pairs += 0 if apart else 1
    undecided = np.zeros(m, np.bool_)
    for e in range(n_pairs):
        u = pair_u[e]
        step = _crossing_fast(tris, pair_s[e], seg[u, 3], seg[u, 4], seg[u, 5],
                              seg[u, 0], seg[u, 1], seg[u, 2])  # fmt: skip
        if step == 2:
            undecided[u] = True
        else:
            w[u] += step
    for u in range(m):
        if undecided[u]:
            out[order[lo + u]] = UNDECIDED
        else:
            out[order[lo + u]] = INSIDE if w[u] != 0 else OUTSIDE


@njit(cache=True, nogil=True, parallel=True)
def query(box, origin, size, dims, margin, code, winding, first, slots, qbox, tris,
          points, out, threads):  # fmt: skip
    """Per point INSIDE, OUTSIDE or UNDECIDED (the ray kernel decides), in parallel
    chunks on ``threads`` threads."""
    n = len(points)
    cell = np.empty(n, np.int64)
    lanes, n_chunks = lane_count(n, threads, _CHUNK)
    for lane in prange(lanes):
        for c in range(lane, n_chunks, lanes):
            lo, hi = chunk_span(c, n, _CHUNK)
            _locate_range(box, origin, size, dims, margin, code, winding, points, out,
                          cell, lo, hi)  # fmt: skip
    order = _by_cell(cell, len(winding))
    m = len(order)
    lanes, n_chunks = lane_count(m, threads, _CHUNK)
    for lane in prange(lanes):
        for c in range(lane, n_chunks, lanes):
            lo, hi = chunk_span(c, m, _CHUNK)
            _cross_range(origin, size, dims, margin, winding, first, slots, qbox, tris,
                         points, out, cell, order, lo, hi)  # fmt: skip
