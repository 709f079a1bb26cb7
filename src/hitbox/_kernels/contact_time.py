"""First contact time of two moving plain volumes (spheres and oriented boxes) within a
step: the continuous mode of a Scene step (no tunnelling).

Each object moves as the Scene integrates it: ``trans(t) = trans0 + v0 t + a t^2 / 2``
and ``rot(t) = exp([w] t) rot0`` for t in [0, dt]. A shape is a sphere (centre ``c``,
radius ``r``) or a box (centre ``c``, half extents ``h``, axes ``q``) in its model frame.

- Both translating at constant velocity (no acceleration; no spin, or a sphere centred
  on its origin): exact forms. Sphere-sphere: the root of a quadratic. Box-box: the
  separating axes swept (Gottschalk's 15 axes; each gives the interval of t in which
  the projections overlap, and the boxes meet on the intersection of them all).
  Sphere-box: the distance along a line is convex in t, so a golden-section search for
  its least value and a bisection for the first time it reaches the radius.
- Otherwise conservative advancement (Mirtich 1996): a lower bound g on the distance at
  t (exact for sphere-sphere and sphere-box, the largest separating-axis gap for two
  boxes) and a bound S on how fast any two points of the pair can approach give a safe
  step g / S; it stops when g falls below a rounding tolerance.

Touching counts: every tolerance errs towards contact.
"""

import math

import numpy as np
from numba import njit

#: Relative tolerance of "touching" (rounding of the coordinates involved).
REL_TOL = 1e-12
#: Conservative advancement gives up (and reports contact) after this many steps.
MAX_ADVANCE = 10_000
_TINY_AXIS2 = 1e-20


@njit
def turn(wx, wy, wz, t, rot0, out):
    """out = exp([w] t) rot0 (Rodrigues, as pipeline.advance)."""
    speed = math.sqrt(wx * wx + wy * wy + wz * wz)
    theta = speed * t
    if theta == 0.0:
        for r in range(3):
            for c in range(3):
                out[r, c] = rot0[r, c]
        return
    kx, ky, kz = wx / speed, wy / speed, wz / speed
    s = math.sin(theta)
    c1 = 2.0 * math.sin(0.5 * theta) ** 2
    m00 = 1.0 - c1 * (ky * ky + kz * kz)
    m11 = 1.0 - c1 * (kx * kx + kz * kz)
    m22 = 1.0 - c1 * (kx * kx + ky * ky)
    m01 = -s * kz + c1 * kx * ky
    m10 = s * kz + c1 * kx * ky
    m02 = s * ky + c1 * kx * kz
    m20 = -s * ky + c1 * kx * kz
    m12 = -s * kx + c1 * ky * kz
    m21 = s * kx + c1 * ky * kz
    for c in range(3):
        a, b, d = rot0[0, c], rot0[1, c], rot0[2, c]
        out[0, c] = m00 * a + m01 * b + m02 * d
        out[1, c] = m10 * a + m11 * b + m12 * d
        out[2, c] = m20 * a + m21 * b + m22 * d


@njit(inline="always")
def _place(state, t, center, axes):
    """World centre and axes (columns) of a shape at time t. ``state`` (12, 3) rows:
    rot0 (3), trans0, v0, w, a, model centre, half extents (or radius, 0, 0), then the
    box's model rotation (3 rows; its columns are the axes)."""
    rot = np.empty((3, 3))
    turn(state[5, 0], state[5, 1], state[5, 2], t, state[0:3], rot)
    for r in range(3):
        x = state[3, r] + state[4, r] * t + 0.5 * state[6, r] * t * t
        center[r] = x + rot[r, 0] * state[7, 0] + rot[r, 1] * state[7, 1]
        center[r] += rot[r, 2] * state[7, 2]
        for c in range(3):
            axes[r, c] = (
                rot[r, 0] * state[9, c]
                + rot[r, 1] * state[10, c]
                + rot[r, 2] * state[11, c]
            )


@njit(inline="always")
def _norm(x, y, z):
    return math.sqrt(x * x + y * y + z * z)


@njit(inline="always")
def _point_box(px, py, pz, center, axes, half):
    """Distance from a point to a solid box (0 inside)."""
    dx, dy, dz = px - center[0], py - center[1], pz - center[2]
    acc = 0.0
    for k in range(3):
        u = axes[0, k] * dx + axes[1, k] * dy + axes[2, k] * dz
        e = abs(u) - half[k]
        if e > 0.0:
            acc += e * e
    return math.sqrt(acc)


@njit(cache=True, nogil=True)
def _sat_gap(ca, aa, ha, cb, ab, hb, d, slack):
    """Separating-axis sweep of box b moving by d t against box a: (largest gap at t = 0,
    first t of overlap, last t of overlap); the gap is a lower bound on the distance."""
    tx, ty, tz = cb[0] - ca[0], cb[1] - ca[1], cb[2] - ca[2]
    gap = -np.inf
    lo = -np.inf
    hi = np.inf
    for n in range(15):
        if n < 3:
            lx, ly, lz = aa[0, n], aa[1, n], aa[2, n]
        elif n < 6:
            lx, ly, lz = ab[0, n - 3], ab[1, n - 3], ab[2, n - 3]
        else:
            p = (n - 6) // 3
            q = (n - 6) % 3
            ux, uy, uz = aa[0, p], aa[1, p], aa[2, p]
            vx, vy, vz = ab[0, q], ab[1, q], ab[2, q]
            lx, ly, lz = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
        length2 = lx * lx + ly * ly + lz * lz
        if length2 < _TINY_AXIS2:
            continue
        radius = 0.0
        for k in range(3):
            radius += abs(lx * aa[0, k] + ly * aa[1, k] + lz * aa[2, k]) * ha[k]
            radius += abs(lx * ab[0, k] + ly * ab[1, k] + lz * ab[2, k]) * hb[k]
        length = math.sqrt(length2)
        radius += slack * length
        s0 = lx * tx + ly * ty + lz * tz
        sd = lx * d[0] + ly * d[1] + lz * d[2]
        gap = max(gap, (abs(s0) - radius) / length)
        if sd == 0.0:
            if abs(s0) > radius:
                lo = np.inf
            continue
        t1 = (-radius - s0) / sd
        t2 = (radius - s0) / sd
        lo = max(lo, min(t1, t2))
        hi = min(hi, max(t1, t2))
    return gap, lo, hi


@njit(cache=True, nogil=True)
def _gap(kind_a, sa, kind_b, sb, t, ca, aa, cb, ab, d, slack):
    """A lower bound on the distance between the two shapes at time t (<= 0: touching),
    and for two boxes the swept interval along ``d``."""
    _place(sa, t, ca, aa)
    _place(sb, t, cb, ab)
    ra = sa[8, 0]
    rb = sb[8, 0]
    if kind_a == 0 and kind_b == 0:
        dist = _norm(ca[0] - cb[0], ca[1] - cb[1], ca[2] - cb[2])
        return dist - ra - rb - slack, -np.inf, np.inf
    if kind_a == 0:
        return (
            _point_box(ca[0], ca[1], ca[2], cb, ab, sb[8]) - ra - slack,
            -np.inf,
            np.inf,
        )
    if kind_b == 0:
        return (
            _point_box(cb[0], cb[1], cb[2], ca, aa, sa[8]) - rb - slack,
            -np.inf,
            np.inf,
        )
    return _sat_gap(ca, aa, sa[8], cb, ab, sb[8], d, slack)


@njit(inline="always")
def _reach(state, kind, dt):
    """Speed bound of every point of a shape over the step, and its size."""
    arm = _norm(state[7, 0], state[7, 1], state[7, 2])
    if kind == 0:
        arm += state[8, 0]
    else:
        arm += _norm(state[8, 0], state[8, 1], state[8, 2])
    v = _norm(state[4, 0], state[4, 1], state[4, 2])
    w = _norm(state[5, 0], state[5, 1], state[5, 2])
    a = _norm(state[6, 0], state[6, 1], state[6, 2])
    return v + a * dt + w * arm, arm


@njit(inline="always")
def _translates(state, kind):
    """Moves at constant velocity without turning its shape."""
    if state[6, 0] != 0.0 or state[6, 1] != 0.0 or state[6, 2] != 0.0:
        return False
    spins = state[5, 0] != 0.0 or state[5, 1] != 0.0 or state[5, 2] != 0.0
    if not spins:
        return True
    centred = state[7, 0] == 0.0 and state[7, 1] == 0.0 and state[7, 2] == 0.0
    return kind == 0 and centred


#: Rows of a motion state that are lengths (start position, velocity, acceleration,
#: shape centre, radius or half extents): scaled together, the contact time stays.
_LENGTH_ROWS = (3, 4, 6, 7, 8)


@njit(cache=True, nogil=True)
def first_contact(kind_a, sa, kind_b, sb, dt):
    """First t in [0, dt] at which shape a and shape b touch, or inf (module doc).
    ``kind``: 0 sphere, 1 box; ``state``: (12, 3), see :func:`_place`.

    Lengths beyond 2^±500 are first scaled by a power of two (exact), where squares
    neither overflow nor vanish; times do not change with the scale."""
    big = 0.0
    for r in _LENGTH_ROWS:
        for c in range(3):
            x = max(abs(sa[r, c]), abs(sb[r, c]))
            if x < np.inf:
                big = max(big, x)
    if big == 0.0 or 2.0**-500 <= big <= 2.0**500:
        return _first_contact(kind_a, sa, kind_b, sb, dt)
    g = math.ldexp(1.0, -math.frexp(big)[1])
    ga, gb = sa.copy(), sb.copy()
    for r in _LENGTH_ROWS:
        for c in range(3):
            ga[r, c] *= g
            gb[r, c] *= g
    return _first_contact(kind_a, ga, kind_b, gb, dt)


@njit(cache=True, nogil=True)
def _first_contact(kind_a, sa, kind_b, sb, dt):
    """:func:`first_contact` at a scale where squares are safe."""
    ca = np.empty(3)
    cb = np.empty(3)
    aa = np.empty((3, 3))
    ab = np.empty((3, 3))
    d = np.empty(3)
    for r in range(3):
        d[r] = sb[4, r] - sa[4, r]
    speed_a, arm_a = _reach(sa, kind_a, dt)
    speed_b, arm_b = _reach(sb, kind_b, dt)
    scale = arm_a + arm_b
    for r in range(3):
        scale += abs(sa[3, r]) + abs(sb[3, r]) + (abs(sa[4, r]) + abs(sb[4, r])) * dt
    slack = REL_TOL * scale + 1e-300
    gap, lo, hi = _gap(kind_a, sa, kind_b, sb, 0.0, ca, aa, cb, ab, d, slack)
    if gap <= 0.0:
        return 0.0
    if _translates(sa, kind_a) and _translates(sb, kind_b):
        if kind_a == 1 and kind_b == 1:
            first = max(lo, 0.0)
            return first if first <= min(hi, dt) else np.inf
        if kind_a == 0 and kind_b == 0:
            return _spheres_meet(ca, sa[8, 0], cb, sb[8, 0], d, dt, slack)
        return _sphere_box_meet(kind_a, sa, kind_b, sb, dt, ca, aa, cb, ab, d, slack)
    speed = speed_a + speed_b
    if speed == 0.0:
        return np.inf
    t = 0.0
    for _ in range(MAX_ADVANCE):
        t += gap / speed
        if t > dt:
            return np.inf
        gap, _, _ = _gap(kind_a, sa, kind_b, sb, t, ca, aa, cb, ab, d, slack)
        if gap <= 0.0:
            return t
    return t


@njit(inline="always")
def _spheres_meet(ca, ra, cb, rb, d, dt, slack):
    """First t in [0, dt] with |cb + d t - ca| <= ra + rb (apart at t = 0)."""
    px, py, pz = cb[0] - ca[0], cb[1] - ca[1], cb[2] - ca[2]
    reach = ra + rb + slack
    a = d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
    b = px * d[0] + py * d[1] + pz * d[2]
    c = px * px + py * py + pz * pz - reach * reach
    if a == 0.0 or b >= 0.0:
        return np.inf
    disc = b * b - a * c
    if disc < 0.0:
        return np.inf
    t = c / (-b + math.sqrt(disc))  # the smaller root, without cancellation
    return t if t <= dt else np.inf


@njit(cache=True, nogil=True)
def _gap_at(kind_a, sa, kind_b, sb, t, ca, aa, cb, ab, d, slack):
    g, _, _ = _gap(kind_a, sa, kind_b, sb, t, ca, aa, cb, ab, d, slack)
    return g


@njit(cache=True, nogil=True)
def _sphere_box_meet(kind_a, sa, kind_b, sb, dt, ca, aa, cb, ab, d, slack):
    """First t of contact of a translating sphere and box: golden-section search for the
    least distance (convex in t), then bisection for the first t it reaches 0."""
    args = (kind_a, sa, kind_b, sb)
    scratch = (ca, aa, cb, ab, d, slack)

    lo = 0.0
    hi = dt
    ratio = 0.5 * (math.sqrt(5.0) - 1.0)
    x1 = hi - ratio * (hi - lo)
    x2 = lo + ratio * (hi - lo)
    f1 = _gap_at(*args, x1, *scratch)
    f2 = _gap_at(*args, x2, *scratch)
    best_t, best = (x1, f1) if f1 < f2 else (x2, f2)
    for _ in range(120):
        if best <= 0.0 or hi - lo <= 0.0:
            break
        if f1 < f2:
            hi = x2
            x2, f2 = x1, f1
            x1 = hi - ratio * (hi - lo)
            f1 = _gap_at(*args, x1, *scratch)
        else:
            lo = x1
            x1, f1 = x2, f2
            x2 = lo + ratio * (hi - lo)
            f2 = _gap_at(*args, x2, *scratch)
        for x, f in ((x1, f1), (x2, f2)):
            if f < best:
                best_t, best = x, f
    end = _gap_at(*args, dt, *scratch)
    if end < best:
        best_t, best = dt, end
    if best > 0.0:
        return np.inf
    lo = 0.0
    hi = best_t
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if _gap_at(*args, mid, *scratch) <= 0.0:
            hi = mid
        else:
            lo = mid
    return hi
