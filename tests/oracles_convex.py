"""Plain numpy twins for hitbox.convex: each shape by its defining parameters, with a
closed-form support function, a membership test and dense surface samples.

A distance d with points pa, pb is certified when pa is in A, pb is in B,
|pa - pb| = d and the direction u = (pb - pa) / d separates them by d:
h_A(u) + h_B(-u) = -d (a duality gap of zero; Boyd & Vandenberghe 8.2). A penetration
(depth, n) is achievable when h_A(n) + h_B(-n) = depth, and minimal when no other
direction needs less: exactly over the candidate axes for polytopes (face normals and
edge cross products), by dense direction sampling for curved shapes.
"""

import numpy as np
from scipy.optimize import linprog, nnls
from scipy.spatial import ConvexHull

from hitbox import convex as cx


class Shape:
    """One shape: ``kind`` and its world parameters; ``make()`` builds the hitbox one."""

    def __init__(self, kind, **p):
        self.kind = kind
        self.p = {k: np.asarray(v, float) for k, v in p.items()}

    def make(self):
        p = self.p
        return {
            "sphere": lambda: cx.sphere(p["c"], p["r"]),
            "capsule": lambda: cx.capsule(p["p0"], p["p1"], p["r"]),
            "box": lambda: cx.box(p["c"], p["h"], p["rot"]),
            "cylinder": lambda: cx.cylinder(p["p0"], p["p1"], p["r"]),
            "cone": lambda: cx.cone(p["p0"], p["p1"], p["r"]),
            "hull": lambda: cx.hull(p["v"]),
        }[self.kind]()

    def moved(self, rot, trans):
        """The same shape after x -> rot x + trans."""
        p = dict(self.p)
        for k in ("c", "p0", "p1"):
            if k in p:
                p[k] = rot @ p[k] + trans
        if "v" in p:
            p["v"] = p["v"] @ rot.T + trans
        if "rot" in p:
            p["rot"] = rot @ p["rot"]
        return Shape(self.kind, **p)

    def support(self, u):
        """h(u) = max over the shape of u . x, for directions u (M, 3)."""
        u = np.atleast_2d(u)
        p = self.p
        norm = np.linalg.norm(u, axis=1)
        if self.kind == "sphere":
            return u @ p["c"] + p["r"] * norm
        if self.kind == "hull":
            return (u @ p["v"].T).max(axis=1)
        if self.kind == "box":
            return u @ p["c"] + np.abs(u @ p["rot"]) @ p["h"]
        c = 0.5 * (p["p0"] + p["p1"])
        half = 0.5 * (p["p1"] - p["p0"])  # centre to p1
        along = u @ half
        if self.kind == "capsule":
            return u @ c + np.abs(along) + p["r"] * norm
        length = np.linalg.norm(half)
        axis = half / length if length > 0 else np.array([0.0, 0.0, 1.0])
        # |u - (u.axis) axis|, not sqrt(|u|^2 - (u.axis)^2): no cancellation near the axis
        across = np.linalg.norm(u - np.outer(u @ axis, axis), axis=1)
        if self.kind == "cylinder":
            return u @ c + np.abs(along) + p["r"] * across
        # cone: base disc at p0, apex at p1
        return u @ c + np.maximum(along, -along + p["r"] * across)

    def contains(self, x, tol):
        """Whether point x is in the shape, to within tol."""
        p = self.p
        x = np.asarray(x, float)
        if self.kind == "sphere":
            return np.linalg.norm(x - p["c"]) <= p["r"] + tol
        if self.kind == "capsule":
            return _segment_distance(x, p["p0"], p["p1"]) <= p["r"] + tol
        if self.kind == "box":
            q = p["rot"].T @ (x - p["c"])
            return bool(np.all(np.abs(q) <= p["h"] + tol))
        if self.kind == "hull":
            return in_hull(x, p["v"], tol)
        axis = p["p1"] - p["p0"]
        length = np.linalg.norm(axis)
        if length == 0:
            t, rho = 0.0, np.linalg.norm(x - p["p0"])
        else:
            axis = axis / length
            t = (x - p["p0"]) @ axis
            rho = np.linalg.norm(x - p["p0"] - t * axis)
        if t < -tol or t > length + tol:
            return False
        if self.kind == "cylinder":
            return rho <= p["r"] + tol
        frac = 1.0 - np.clip(t, 0, length) / length if length else 1.0
        return rho <= p["r"] * frac + 2 * tol


def _segment_distance(x, a, b):
    ab = b - a
    den = ab @ ab
    t = 0.0 if den == 0 else np.clip((x - a) @ ab / den, 0, 1)
    return np.linalg.norm(x - (a + t * ab))


def in_hull(x, verts, tol):
    """x within tol of the hull of verts: the least-squares convex weights by LP on
    the 1-norm of the residual."""
    k = len(verts)
    # minimise sum(s) s.t. -s <= V^T w - x <= s, sum w = 1, w >= 0
    c = np.concatenate([np.zeros(k), np.ones(3)])
    a_ub = np.block([[verts.T, -np.eye(3)], [-verts.T, -np.eye(3)]])
    b_ub = np.concatenate([x, -x])
    a_eq = np.concatenate([np.ones(k), np.zeros(3)])[None]
    res = linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=[1.0], bounds=(0, None))
    if res.status == 0 and res.fun <= 3 * tol:
        return True
    # the LP solver's own tolerances (about 1e-8) exceed tol on nearly flat hulls: a
    # second opinion from non-negative least squares on the vertices seen from x, the
    # weights' sum held near 1 by a heavily weighted row; scaling the weights to sum 1
    # then moves no point (x is the origin), so the residual is a true distance
    rel = verts - x
    weight = 1e3 * max(1.0, float(np.abs(rel).max()))
    w, _ = nnls(np.vstack([rel.T, weight * np.ones(k)]), np.append(np.zeros(3), weight))
    return bool(w.sum() > 0 and np.linalg.norm(rel.T @ (w / w.sum())) <= tol)


def lp_overlap(va, vb):
    """Whether the hulls of two point sets share a point: a feasibility LP over convex
    weights, sum wa_i a_i = sum wb_j b_j."""
    ka, kb = len(va), len(vb)
    a_eq = np.zeros((5, ka + kb))
    a_eq[:3, :ka], a_eq[:3, ka:] = va.T, -vb.T
    a_eq[3, :ka] = 1.0
    a_eq[4, ka:] = 1.0
    res = linprog(np.zeros(ka + kb), A_eq=a_eq, b_eq=[0, 0, 0, 1, 1], bounds=(0, None))
    return res.status == 0


def polytope_depth(va, vb):
    """Exact penetration depth of two polytopes (vertex sets), and its direction from A
    to B: the least h_A(u) + h_B(-u) over face normals of either hull and the cross
    products of their edge directions."""
    axes = [_face_normals(va), _face_normals(vb)]
    ea, eb = _edges(va), _edges(vb)
    cross = np.cross(ea[:, None], eb[None]).reshape(-1, 3)
    norm = np.linalg.norm(cross, axis=1)
    axes.append(cross[norm > 1e-9] / norm[norm > 1e-9, None])
    u = np.concatenate(axes)
    u = np.concatenate([u, -u])
    h = (u @ va.T).max(axis=1) + (-u @ vb.T).max(axis=1)
    k = np.argmin(h)
    return h[k], u[k]


def _face_normals(v):
    return ConvexHull(v).equations[:, :3]


def _edges(v):
    hull = ConvexHull(v)
    e = set()
    for s in hull.simplices:
        for a, b in ((s[0], s[1]), (s[1], s[2]), (s[2], s[0])):
            e.add((min(a, b), max(a, b)))
    d = np.array([v[b] - v[a] for a, b in e])
    return d / np.linalg.norm(d, axis=1)[:, None]


def box_vertices(c, h, rot):
    signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)])
    return c + (signs * h) @ rot.T


def fibonacci(n):
    """n directions spread evenly over the unit sphere."""
    i = np.arange(n) + 0.5
    phi = np.arccos(1 - 2 * i / n)
    theta = np.pi * (1 + 5**0.5) * i
    return np.stack(
        [np.cos(theta) * np.sin(phi), np.sin(theta) * np.sin(phi), np.cos(phi)], axis=1
    )


def sampled_depth(sa, sb, n=20000):
    """Least h_A(u) + h_B(-u) over n directions and a local refinement around the best:
    an upper bound of the penetration depth that approaches it."""
    u = fibonacci(n)
    h = sa.support(u) + sb.support(-u)
    best = u[np.argmin(h)]
    rng = np.random.default_rng(1)
    step = 0.05
    val = h.min()
    for _ in range(400):
        cand = best + step * rng.normal(size=(16, 3))
        cand /= np.linalg.norm(cand, axis=1)[:, None]
        hc = sa.support(cand) + sb.support(-cand)
        if hc.min() < val:
            val, best = hc.min(), cand[np.argmin(hc)]
        else:
            step *= 0.8
    return val, best
