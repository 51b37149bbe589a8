"""Bulk steps without the cyclic garbage collector.

Reading a 30,000-pod file and scheduling it builds millions of small dicts, tuples and
frozen objects that all stay alive. CPython's collector scans every live container object
each time the heap has grown by a quarter, so such a step pays for a dozen full passes over
everything it built (about 5 of 34 CPU seconds in `make bench`'s framework figure), and they
find nothing: the engine's objects hold no reference cycles (a run of that bench collects 0
objects in full passes, a few hundred in the young ones). The same holds for the first read of a stored
cluster and its engine state (scheduling.store.state: half the CPU of a cold read at 10,000
pods), which also freezes what it made before the pause ends. Plain reference counting
still frees everything as before; the collector runs again when the step ends.
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager


_lock = threading.Lock()
_pauses = [0, False]  # (pauses under way, whether the collector ran before the first)


@contextmanager
def gc_paused():
    """The cyclic collector off for the step (a `with` block or a decorator). Nested and
    concurrent steps (threads of one server) share one pause: the collector runs again,
    if it ran before, when the last of them ends."""
    with _lock:
        if _pauses[0] == 0:
            _pauses[1] = gc.isenabled()
            gc.disable()
        _pauses[0] += 1
    try:
        yield
    finally:
        with _lock:
            _pauses[0] -= 1
            if _pauses[0] == 0 and _pauses[1]:
                gc.enable()
