"""Work dealt to threads: chunks of consecutive items, round-robin to one lane per
thread, so each lane's share is even and a chunk's items (warm-started walks) stay
together. ``prange`` alone hands each thread one contiguous block."""

from numba import njit


@njit(inline="always")
def lane_count(n, threads, chunk):
    """(lanes, chunks) for n items in chunks of ``chunk``, on ``threads`` threads."""
    n_chunks = (n + chunk - 1) // chunk
    return max(1, min(threads, n_chunks)), n_chunks


@njit(inline="always")
def chunk_span(c, n, chunk):
    """Items [lo, hi) of chunk c."""
    return c * chunk, min(n, (c + 1) * chunk)
