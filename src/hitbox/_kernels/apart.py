"""Rare, heavy kernel code compiled once, apart from the kernels that call it (issue 28,
the first call).

numba compiles each @njit callee on its own, but then links the callee's whole LLVM
module into every caller's and optimises and emits it again there, at each level of the
call tree: the exact expansions of orient3d were optimised five times over on the way up
to ``collide_any``. A function made by :func:`apart` is a numba ``cfunc`` (cached on disk
like any kernel) that callers reach by its symbol name, as an external C function: their
modules hold one declaration, and a cached caller finds the symbol again at load time.

Only for code that runs rarely (exact fallbacks, degenerate cases): a call through the
symbol is never inlined. Arguments and results are C scalars (float64, intp).
"""

import hashlib

from llvmlite import binding
from numba import cfunc, config, types

_ALIVE = []  # the compiled functions: their machine code must outlive every caller


def apart(name, signature):
    """Decorator: compile ``py_func`` alone as a cfunc of ``signature`` and return an
    external function that @njit kernels call by the symbol ``hitbox_<name>``; the plain
    Python function when the JIT is off.

    The symbol carries the signature, so a caller cached against another signature
    fails to load rather than calling with the wrong arguments.
    """

    def wrap(py_func):
        if config.DISABLE_JIT:
            return py_func
        compiled = cfunc(signature, cache=True, nopython=True)(py_func)
        tag = hashlib.sha1(str(signature).encode()).hexdigest()[:10]
        symbol = f"hitbox_{name}_{tag}"
        binding.add_symbol(symbol, compiled.address)
        _ALIVE.append(compiled)
        return types.ExternalFunction(symbol, signature)

    return wrap
