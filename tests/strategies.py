"""Hypothesis strategies for hitbox's inputs: boxes, points, matrices."""

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

# Integers and halves make touching and shared faces common, which is where bugs live.
grid = st.integers(-8, 8).map(lambda x: x / 2)
wide = st.one_of(
    grid,
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False, width=64),
    st.sampled_from([1e-300, -1e-300, 1e300, -1e300, 0.0, -0.0]),
)


@st.composite
def boxes(draw, n=None, dim=None, elements=None, allow_empty=True, min_n=0, max_n=12):
    """(N, 2, D) boxes; some empty (lo > hi on an axis), some flat (lo == hi)."""
    dim = dim or draw(st.integers(1, 3))
    n = n if n is not None else draw(st.integers(min_n, max_n))
    el = grid if elements is None else elements
    a = draw(hnp.arrays(np.float64, (n, 2, dim), elements=el))
    lo, hi = np.minimum(a[:, 0], a[:, 1]), np.maximum(a[:, 0], a[:, 1])
    out = np.stack([lo, hi], axis=1)
    if allow_empty and n:
        flips = draw(hnp.arrays(np.bool_, (n,)))
        out[flips] = out[flips][:, ::-1]  # lo > hi on every axis where lo != hi
    return out


@st.composite
def points(draw, n=None, dim=3, elements=None, min_n=0, max_n=12):
    n = n if n is not None else draw(st.integers(min_n, max_n))
    return draw(
        hnp.arrays(np.float64, (n, dim), elements=grid if elements is None else elements)
    )


def rotation(rng):
    """A random proper rotation from a QR decomposition."""
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    q = q * np.sign(np.diag(r))
    if np.linalg.det(q) < 0:
        q[:, 0] = -q[:, 0]
    return q


@st.composite
def affine(draw, dim=3):
    """A homogeneous (D+1, D+1) affine matrix with small integer-ish entries."""
    lin = draw(hnp.arrays(np.float64, (dim, dim), elements=grid))
    t = draw(hnp.arrays(np.float64, (dim,), elements=grid))
    m = np.eye(dim + 1)
    m[:dim, :dim], m[:dim, dim] = lin, t
    return m


def rotations(n, rng):
    """(n, 3, 3) random proper rotations."""
    q, r = np.linalg.qr(rng.normal(size=(n, 3, 3)))
    q = q * np.sign(np.diagonal(r, axis1=1, axis2=2))[:, None, :]
    q[np.linalg.det(q) < 0, :, 0] *= -1.0
    return np.ascontiguousarray(q)


def take(vols, idx):
    """Rows ``idx`` of a volume set (a namedtuple of arrays, or one array)."""
    if isinstance(vols, tuple):
        return type(vols)(*(np.ascontiguousarray(f[idx]) for f in vols))
    return np.ascontiguousarray(vols[idx])


def count(vols):
    """Volumes in a set (a namedtuple of arrays, or one array)."""
    return len(vols[0]) if isinstance(vols, tuple) else len(vols)
