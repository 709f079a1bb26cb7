"""C-contiguous views of a flat buffer in 2 or 3 dimensions, made without numba's
``reshape``.

A Scene step reads its tables as views of a few flat arenas, and makes dozens of them
per candidate pair. numba's ``reshape`` goes through a runtime helper that tries a
no-copy reshape for any layout: about 30 ns a view, which summed to a large part of a
step. Here the source is known to be one C-contiguous run, so a view is its data
pointer with new shape and strides (a few ns). The length is checked against the shape
(ValueError), so a wrong shape cannot read past the buffer.
"""

from numba import njit, types
from numba.core import cgutils
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array


@intrinsic
def _c_view(typingctx, arr, shape):
    """``arr`` (1D, C-contiguous) as a C-contiguous array of ``shape`` (a tuple of
    intp): no check of the size (the callers below check it)."""
    if not (isinstance(arr, types.Array) and arr.ndim == 1 and arr.layout == "C"):
        return None
    if not isinstance(shape, types.UniTuple):
        return None
    nd = shape.count
    out = arr.copy(ndim=nd, layout="C")

    def codegen(context, builder, sig, args):
        src = make_array(sig.args[0])(context, builder, args[0])
        dst = make_array(sig.return_type)(context, builder)
        dims = cgutils.unpack_tuple(builder, args[1], nd)
        dims = [context.cast(builder, d, shape.dtype, types.intp) for d in dims]
        step = src.itemsize
        strides = []
        for d in reversed(dims):
            strides.insert(0, step)
            step = builder.mul(step, d)
        populate_array(
            dst, data=src.data, shape=dims, strides=strides, itemsize=src.itemsize,
            meminfo=src.meminfo, parent=src.parent,
        )  # fmt: skip
        return impl_ret_borrowed(context, builder, sig.return_type, dst._getvalue())

    return out(arr, shape), codegen


@njit(inline="always")
def rows(a, n, m):
    """``a`` (1D, C-contiguous, length n m) as (n, m)."""
    if len(a) != n * m:
        raise ValueError("flat view: the buffer's length does not match the shape")
    return _c_view(a, (n, m))


@njit(inline="always")
def blocks(a, n, r, c):
    """``a`` (1D, C-contiguous, length n r c) as (n, r, c)."""
    if len(a) != n * r * c:
        raise ValueError("flat view: the buffer's length does not match the shape")
    return _c_view(a, (n, r, c))
