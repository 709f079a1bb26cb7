"""Brute-force numpy twins for hitbox.obb, independent of the separating-axis test.

The overlap oracle clips edges: two convex polytopes intersect exactly when an edge of
one meets the other (a vertex of the intersection lies on an edge of one polytope, or is
a vertex of one, which also lies on an edge). For an edge p(t), t in [0, 1], and a box
with frame coordinates u(t) = rot.T @ (p(t) - center), the slack
``f(t) = min_k (half_k - |u_k(t)|)`` is concave and piecewise linear, so its maximum is
at t = 0, t = 1 or where two of its six linear pieces cross. ``slack(a, b)`` is the
largest such maximum over the 24 edges: >= 0 exactly when the boxes intersect. When it is
-g, the boxes are between g and sqrt(3) g apart; when it is +g, a ball of radius g about
some point of a lies inside b (or the reverse).
"""

import numpy as np

BITS = (np.arange(8)[:, None] >> np.arange(3)) & 1  # corner c: bit k picks axis k's side
EDGES = np.array(
    [(c, c | (1 << k)) for c in range(8) for k in range(3) if not c & (1 << k)]
)  # (12, 2) corner indices differing in one bit


def corners(center, half, rot):
    """(N, 8, 3) corners, in the bit order of hitbox.obb.corners."""
    local = (2.0 * BITS - 1.0)[None] * half[:, None, :]
    return center[:, None, :] + np.einsum("nij,ncj->nci", rot, local)


def _edge_slack(ca, ha, ra, cb, hb, rb):
    """(N,) max over a's 12 edges of the concave slack of b along the edge."""
    pts = corners(ca, ha, ra)  # (N, 8, 3)
    u = np.einsum("nji,nej->nei", rb, pts - cb[:, None, :])  # b's frame, (N, 8, 3)
    u0, u1 = u[:, EDGES[:, 0]], u[:, EDGES[:, 1]]  # (N, 12, 3)
    # six linear pieces h_k -+ u_k(t) = alpha + beta t
    alpha = np.concatenate(
        [hb[:, None, :] - u0, hb[:, None, :] + u0], axis=2
    )  # (N, 12, 6)
    beta = np.concatenate([-(u1 - u0), u1 - u0], axis=2)
    m, n = np.triu_indices(6, 1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        cross = (alpha[..., m] - alpha[..., n]) / (beta[..., n] - beta[..., m])
    cross = np.where(np.isfinite(cross), np.clip(cross, 0.0, 1.0), 0.0)
    ts = np.concatenate(
        [np.zeros_like(cross[..., :1]), np.ones_like(cross[..., :1]), cross], 2
    )
    f = (alpha[..., None, :] + beta[..., None, :] * ts[..., :, None]).min(axis=3)
    return f.max(axis=(1, 2))


def slack(a, b):
    """(N,) signed slack of box pairs (a[i], b[i]) (OBBs, broadcasting one against many).

    >= 0 iff the boxes intersect (in exact arithmetic; rounding is about 1e-15 of the
    coordinates). Empty boxes give -inf.
    """
    n = max(len(a.center), len(b.center))
    a = [np.broadcast_to(x, (n,) + x.shape[1:]) for x in a]
    b = [np.broadcast_to(x, (n,) + x.shape[1:]) for x in b]
    out = np.maximum(_edge_slack(*a, *b), _edge_slack(*b, *a))
    empty = (a[1] < 0).any(axis=1) | (b[1] < 0).any(axis=1)
    return np.where(empty, -np.inf, out)


def size(a, b):
    """(N,) a length scale of each pair, for relative tolerances: summed half extents
    plus the centres' magnitudes (the slack's rounding is relative to the coordinates)."""
    ha = np.maximum(a.half, 0).sum(axis=-1)
    hb = np.maximum(b.half, 0).sum(axis=-1)
    return ha + hb + np.abs(a.center).sum(axis=-1) + np.abs(b.center).sum(axis=-1)


def contains_points(center, half, rot, points):
    """(N,) closed containment in the box frame, by numpy."""
    u = np.einsum("nji,nj->ni", rot, points - center)
    return np.all(np.abs(u) <= half, axis=-1)


def fit_triangles_seed(triangles):
    """Seed 003's formula, literally: (mu, C, axes as eigenvector columns by decreasing
    eigenvalue, lo, hi of the projections) for one triangle set (F, 3, 3)."""
    p, q, r = triangles[:, 0], triangles[:, 1], triangles[:, 2]
    n = len(triangles)
    mu = (p + q + r).sum(axis=0) / (3 * n)
    pb, qb, rb = p - mu, q - mu, r - mu
    c = (
        np.einsum("ij,ik->jk", pb, pb)
        + np.einsum("ij,ik->jk", qb, qb)
        + np.einsum("ij,ik->jk", rb, rb)
    ) / (3 * n)
    w, vecs = np.linalg.eigh(c)
    vecs = vecs[:, ::-1]
    proj = (triangles.reshape(-1, 3) - mu) @ vecs
    return mu, c, w[::-1], vecs, proj.min(axis=0), proj.max(axis=0)


def overlap_pairs_band(a, b, inside, outside):
    """(must, may) (N, M) bool matrices from the slack: pairs that must overlap (slack
    above ``inside``) and pairs that may (slack not below ``-outside``)."""
    n, m = len(a.center), len(b.center)
    ii, jj = np.meshgrid(np.arange(n), np.arange(m), indexing="ij")
    ii, jj = ii.ravel(), jj.ravel()
    pa = type(a)(*(x[ii] for x in a))
    pb = type(b)(*(x[jj] for x in b))
    s = slack(pa, pb) if len(ii) else np.zeros(0)
    scale = size(pa, pb) if len(ii) else np.zeros(0)
    must = (s > inside * scale).reshape(n, m)
    may = (s >= -outside * scale).reshape(n, m)
    return must, may
