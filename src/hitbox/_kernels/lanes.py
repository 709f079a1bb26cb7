"""Work dealt to threads: chunks of consecutive items, round-robin to one lane per
thread, so each lane's share is even and a chunk's items (warm-started walks) stay
together; or, for items whose costs differ tenfold, taken one at a time from a shared
count as each lane frees up (:func:`take_next`). ``prange`` alone hands each thread one
contiguous block."""

from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic


@njit(inline="always")
def lane_count(n, threads, chunk):
    """(lanes, chunks) for n items in chunks of ``chunk``, on ``threads`` threads."""
    n_chunks = (n + chunk - 1) // chunk
    return max(1, min(threads, n_chunks)), n_chunks


@njit(inline="always")
def chunk_span(c, n, chunk):
    """Items [lo, hi) of chunk c."""
    return c * chunk, min(n, (c + 1) * chunk)


@intrinsic
def _fetch_add(typingctx, counter, value):
    """counter[0] += value as one atomic step (LLVM ``atomicrmw add``); returns the
    count before. ``counter``: a 1-D int64 array."""
    if not (
        isinstance(counter, types.Array)
        and counter.dtype == types.int64
        and counter.ndim == 1
        and isinstance(value, types.Integer)
    ):
        return None
    sig = types.int64(counter, value)

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        array = context.make_array(array_type)(context, builder, args[0])
        zero = context.get_constant(types.intp, 0)
        slot = cgutils.get_item_pointer(context, builder, array_type, array, [zero])
        step = context.cast(builder, args[1], signature.args[1], types.int64)
        return builder.atomic_rmw("add", slot, step, "monotonic")

    return sig, codegen


@njit(inline="always")
def take_next(counter):
    """The next item of a count that lanes share (counter: int64 (1,), from 0): each
    lane calls it when free, so no item is taken twice and a lane held up by a costly
    item leaves the rest to the others."""
    return _fetch_add(counter, 1)
