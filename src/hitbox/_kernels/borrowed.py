"""Arrays a kernel borrows from its caller, outside numba's reference counting.

numba counts references to an array's memory at every call that takes the array and
every view made of it: an atomic increment on entry, a decrement on each way out. A
Scene step calls its per-pair kernels with twenty arrays each, all views of four
arenas the caller holds for the whole step; perf charged 38 % of a 60-tori step to
those counts. A borrowed array is the same view with no owner recorded, so the counts
on it and on every view made of it do nothing.

Only for arrays whose owner outlives every use: the arenas a kernel was called with,
used within that call. A borrowed array must never be returned or stored.
"""

from numba import config, njit, types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def borrowed(typingctx, arr):
    """``arr`` as a view with no owner: numba counts no references to it."""
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, signature, args):
        view = cgutils.create_struct_proxy(arr)(context, builder, value=args[0])
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        view.parent = cgutils.get_null_value(view.parent.type)
        return view._getvalue()

    return arr(arr), codegen


if config.DISABLE_JIT:  # kernels run as Python (NUMBA_DISABLE_JIT): nothing is counted

    def borrowed(arr):  # noqa: F811
        """``arr`` itself: without the jit there are no reference counts to skip."""
        return arr


@njit(inline="always")
def borrowed_tree(bv0, bv1, bv2, first, count, tris, sbox):
    """A walk's tree arrays (its node volume parts, children, slot triangles and boxes),
    each :func:`borrowed`."""
    return (borrowed(bv0), borrowed(bv1), borrowed(bv2), borrowed(first),
            borrowed(count), borrowed(tris), borrowed(sbox))  # fmt: skip
