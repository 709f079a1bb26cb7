"""A compiled kernel called without numba's per-call dispatch.

Each call of a numba dispatcher works out the numba type of every argument and looks the
overload up before it runs the compiled code; for the Scene's step (four arrays and five
scalars) that is about 0.45 µs of a 1.8 µs call, paid at every step. Where the types
cannot change between calls (the Scene's own buffers), the overload's compiled entry
point can be called directly: it unboxes the arguments as that overload's types and runs.
"""


def direct_entry(dispatcher, args):
    """The compiled entry point ``dispatcher`` runs for arguments of the types of
    ``args`` (call the dispatcher with them once first, so the overload exists), or the
    dispatcher itself when numba does not expose one. Only for arguments whose types
    never change: the entry point does not check them."""
    try:
        sig = tuple(dispatcher.typeof_pyval(a) for a in args)
        return dispatcher.overloads[sig].entry_point
    except (AttributeError, KeyError, TypeError):
        return dispatcher


def resolving_slot(dispatcher):
    """A one-item list whose item calls ``dispatcher``: through numba's dispatch the first
    time, which then puts the overload's entry point (:func:`direct_entry`) in its place
    for every later call. Only for callers whose argument types never change."""
    slot = []

    def first(*args):
        result = dispatcher(*args)
        slot[0] = direct_entry(dispatcher, args)
        return result

    slot.append(first)
    return slot
