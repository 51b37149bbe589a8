"""Bulk steps without the cyclic garbage collector.

Reading a 30,000-pod file and scheduling it builds millions of small dicts, tuples and
frozen objects that all stay alive. CPython's collector scans every live container object
each time the heap has grown by a quarter, so such a step pays for a dozen full passes over
everything it built (about 5 of 34 CPU seconds in `make bench`'s framework figure), and they
find nothing: the engine's objects hold no reference cycles (a run of that bench collects 0
objects in full passes, a few hundred in the young ones). Plain reference counting still frees
everything as before; the collector runs again when the step ends.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def gc_paused():
    """The cyclic collector off for the step (as a `with` block or a decorator); nested
    steps leave it to the outermost one."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
