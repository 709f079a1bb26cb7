"""Batches whose elements lie at magnitudes too far apart for one power of two: each
element's scale, the groups sharing one, and their answers put back in order. A far
element (a sentinel at 1e300 among ordinary values) must not shrink every other
element's problem until its squares vanish (:func:`hitbox._validate.pow2_factor` scales a
whole problem; these split it first)."""

import numpy as np

from hitbox._validate import pow2_each


def magnitudes(n, *arrays):
    """(n,) the largest finite |value| of each of n elements over ``arrays``, each (n,
    ...) or (1, ...) (broadcast to every element)."""
    big = np.zeros(n)
    for arr in arrays:
        a = np.abs(np.asarray(arr, dtype=float)).reshape(len(arr), -1)
        a = np.where(np.isfinite(a), a, 0.0).max(axis=1) if a.shape[1] else 0.0
        np.maximum(big, a, out=big)
    return big


def scale_groups(big, safe_exp=None):
    """[(g, indices)] of the elements whose magnitudes ``big`` share a power of two
    (:func:`hitbox._validate.pow2_each`), or None when one serves them all. A batch
    mixing magnitudes too far apart for one scale (a far sentinel among ordinary values)
    is solved group by group: one scale for all would shrink the ordinary ones until
    their squares vanish."""
    g = pow2_each(big, safe_exp)
    if not len(g) or (g == g[0]).all():
        return None
    return [(float(s), np.flatnonzero(g == s)) for s in np.unique(g)]


def in_order(n, parts):
    """The answers of groups put back in the elements' order: ``parts`` [(indices,
    answer)], each answer a NamedTuple of arrays (or one array) over its group's
    elements; returns the same kind over all n."""
    first = parts[0][1]
    fields = first if isinstance(first, tuple) else (first,)
    out = [np.empty((n, *f.shape[1:]), f.dtype) for f in fields]
    for idx, got in parts:
        for full, part in zip(
            out, got if isinstance(got, tuple) else (got,), strict=True
        ):
            full[idx] = part
    return type(first)(*out) if isinstance(first, tuple) else out[0]
