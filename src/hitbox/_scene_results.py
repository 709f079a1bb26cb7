"""What a Scene query returns: the touching pairs, their triangles, and the funnel of
what each stage skipped (SPEC §9)."""

from typing import NamedTuple

import numpy as np

from hitbox._kernels import pipeline as _k

#: Results of a query that found nothing (read-only: shared by every such result).
NO_TRIANGLES = np.empty((2, 0), np.intp)
NO_OFFSETS = np.zeros(1, np.intp)
NO_TRIANGLES.flags.writeable = NO_OFFSETS.flags.writeable = False


class StepStats(NamedTuple):
    """What one query did, as a funnel over all ``pairs`` = n (n - 1) / 2 object pairs.

    Every pair lands in exactly one of ``skipped_static``, ``skipped_far``,
    ``skipped_filtered``, ``skipped_scheduled``, ``rejected_by_boxes`` and
    ``broadphase_candidates``; the candidates split into ``rejected_by_volumes`` and
    ``narrow_tested`` (pairs of two plain volumes skip the volume stage: their volumes
    are their shapes, and they go straight to the exact test), of which ``colliding``
    touch.

    - ``skipped_static``: static-static pairs, never formed.
    - ``skipped_far``: world boxes (the sweep never reports the pair) or bounding
      spheres more than ``threshold`` apart.
    - ``skipped_filtered``: excluded by groups and masks or by the ignore list.
    - ``skipped_scheduled``: asleep, by an earlier step's time bound or by this step's
      (spheres apart by less than ``threshold``; ``scheduled_new`` of them this step).
    - ``rejected_by_boxes``: bounding spheres meet, world boxes do not.
    - ``seconds``: wall-clock time of the whole query (one compiled call); 0.0 for a
      quiet step, which runs none (its motion is only queued).
    """

    time: float
    objects: int
    pairs: int
    skipped_static: int
    skipped_far: int
    skipped_filtered: int
    skipped_scheduled: int
    scheduled_new: int
    rejected_by_boxes: int
    broadphase_candidates: int
    rejected_by_volumes: int
    narrow_tested: int
    colliding: int
    seconds: float


class StepResult:
    """The touching pairs of one query.

    pairs : (2, n) intp
        Object ids, row 0 < row 1, sorted by (row 0, row 1); each pair once. Read-only:
        a step whose pairs equal the last step's returns that step's array again.
    triangles : (2, T) intp
        With ``mode="all"``: pair k's touching primitive pairs are
        ``triangles[:, offsets[k]:offsets[k + 1]]``, row 0 of object ``pairs[0, k]``,
        row 1 of ``pairs[1, k]``, sorted. A mesh contributes face indices; a plain volume,
        which has no faces, -1 (so a mesh-sphere pair lists (face, -1) columns and a
        sphere-box pair the one column (-1, -1)). With ``mode="any"``: empty.
    offsets : (n + 1,) intp
        Start of each pair's columns in ``triangles``; all 0 with ``mode="any"``.
    stats : StepStats or None
        Built when first read (a quiet step should cost about one function call);
        None for a step of a :class:`RunResult`.
    toi : (n,) float or None
        With ``step(..., continuous=True)``: each pair's first contact time within the
        step, in seconds from its start. None otherwise.
    segments : (T, 2, 3) float or None
        With ``mode="contacts"``: for each column of ``triangles``, the two end points
        (world frame) of the set where the two triangles meet; NaN for a column with a
        plain volume. None otherwise.
    normals, depths : (T, 3), (T,) float or None
        With ``mode="contacts"``: each column's penetration normal (world frame) and
        depth, as :class:`~hitbox.mesh.Contacts` defines them; NaN for a column with a
        plain volume. None otherwise.
    manifolds : hitbox.convex.Manifolds or None
        With ``mode="contacts"``: one row per pair, the contact manifold (up to four
        points with depths, and the normal from ``pairs[0]`` to ``pairs[1]``) of each
        pair of two plain objects of a 3D scene; count 0 for a pair with a mesh
        (:func:`hitbox.scene_queries.contact_manifolds`). None otherwise.
    """

    # the optional fields default to the class's None and land in the instance dict
    # only when set: a step's result costs four stores (a quiet step is ~1 µs in all)
    __slots__ = ("pairs", "triangles", "offsets", "_facts", "__dict__")
    toi = segments = normals = depths = manifolds = _stats = None

    def __init__(self, pairs, triangles, offsets, facts):
        self.pairs = pairs
        self.triangles = triangles
        self.offsets = offsets
        self._facts = facts

    @property
    def stats(self):
        if self._stats is None and self._facts is not None:
            self._stats = make_stats(*self._facts)
        return self._stats

    def __iter__(self):
        return iter((self.pairs, self.triangles, self.offsets, self.stats))

    def __repr__(self):
        return f"StepResult({self.pairs.shape[1]} touching pairs)"


def make_stats(now, sizes, counts, seconds):
    """The StepStats of a step's facts (``sizes``: the numbers of objects, dynamic and
    static ones; ``counts``: a list, or a step record)."""
    n_ids, n_dyn, n_stat = sizes
    if isinstance(counts, bytes):  # a step record's snapshot
        counts = np.frombuffer(counts, np.int64, 11).tolist()
    elif isinstance(counts, np.ndarray):
        counts = counts[:11].tolist()
    verdict = counts[:6]
    n_near, n_vol, n_passed, n_narrow, n_hits = counts[6:11]
    formable = n_dyn * (n_dyn - 1) // 2 + n_dyn * n_stat
    return StepStats(
        time=now,
        objects=n_ids,
        pairs=n_ids * (n_ids - 1) // 2,
        skipped_static=n_stat * (n_stat - 1) // 2,
        skipped_far=formable - n_near + verdict[_k.FAR],
        skipped_filtered=verdict[_k.FILTERED],
        skipped_scheduled=verdict[_k.ASLEEP] + verdict[_k.SCHEDULED],
        scheduled_new=verdict[_k.SCHEDULED],
        rejected_by_boxes=verdict[_k.BOXES_APART],
        broadphase_candidates=verdict[_k.CANDIDATE],
        rejected_by_volumes=n_vol - n_passed,
        narrow_tested=n_narrow,
        colliding=n_hits,
        seconds=seconds,
    )


_ZEROS = {}


def zero_offsets(n):
    """The read-only (n + 1,) zeros of a mode-"any" result, one array per n."""
    out = _ZEROS.get(n)
    if out is None:
        out = np.zeros(n + 1, np.intp)
        out.flags.writeable = False
        if len(_ZEROS) < 4096:
            _ZEROS[n] = out
    return out


def collect(tested, hits, contacts, mode):
    """The touching pairs, sorted, with their contacts flattened: (pairs (2, n),
    triangles (2, T), offsets (n + 1,))."""
    pairs = tested[:, hits]
    n = pairs.shape[1]
    offsets = np.zeros(n + 1, np.intp)
    if n > 1:
        order = np.lexsort((pairs[1], pairs[0]))
        pairs = pairs[:, order]
    else:
        order = range(n)
    pairs = np.ascontiguousarray(pairs)
    if mode == "any" or not n:
        return pairs, np.empty((2, 0), np.intp), offsets
    found = [contacts[k] for k in np.flatnonzero(hits)]
    found = [found[k] for k in order]
    offsets[1:] = np.cumsum([c.shape[1] for c in found])
    return pairs, np.ascontiguousarray(np.concatenate(found, axis=1)), offsets


class RunResult:
    """The touching pairs of many steps (:meth:`hitbox.pipeline.Scene.run`), flat.

    Step k's pairs are ``pairs[:, step_offsets[k]:step_offsets[k + 1]]`` (as
    :attr:`StepResult.pairs`: sorted, row 0 < row 1); ``result[k]`` is that step as a
    :class:`StepResult` (its stats not kept: built from the run's last step only).

    times : (steps,) float
        The scene's time at the end of each step.
    step_offsets : (steps + 1,) intp
    pairs : (2, P) intp
    toi : (P,) float or None
        With ``continuous=True``: each pair's first contact time within its step.
    triangles, offsets : (2, T) intp, (P + 1,) intp
        With ``mode="all"``: pair p's primitive pairs are
        ``triangles[:, offsets[p]:offsets[p + 1]]``, as in :class:`StepResult`.
    """

    __slots__ = ("times", "step_offsets", "pairs", "toi", "triangles", "offsets")

    def __init__(self, times, step_of, pairs, toi, tri_counts, triangles):
        self.times = times
        self.step_offsets = np.searchsorted(step_of, np.arange(len(times) + 1)).astype(
            np.intp
        )
        self.pairs = pairs
        self.toi = toi
        self.offsets = np.zeros(pairs.shape[1] + 1, np.intp)
        np.cumsum(tri_counts, out=self.offsets[1:])
        self.triangles = triangles

    def __len__(self):
        return len(self.times)

    def __getitem__(self, k):
        if not -len(self) <= k < len(self):
            raise IndexError(f"step {k} out of range for a run of {len(self)} steps")
        k %= len(self)
        lo, hi = self.step_offsets[k], self.step_offsets[k + 1]
        tri = self.offsets[lo : hi + 1]
        result = StepResult(self.pairs[:, lo:hi], self.triangles[:, tri[0] : tri[-1]],
                            tri - tri[0], None)  # fmt: skip
        if self.toi is not None:
            result.toi = self.toi[lo:hi]
        return result

    @property
    def touching_steps(self):
        """(k,) intp: the steps where some pair touched."""
        return np.flatnonzero(np.diff(self.step_offsets))

    def __repr__(self):
        return (
            f"RunResult({len(self)} steps, {len(self.touching_steps)} touching, "
            f"{self.pairs.shape[1]} pairs)"
        )
