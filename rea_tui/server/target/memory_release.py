"""The server's memory around big builds: no cyclic collection while one runs, memory given back after.

Opening a big target and building its indexes allocates millions of small,
acyclic objects. Python's cyclic collector would scan them again and again
while they are made, holding the GIL each time (libpython's reference index:
15.7 s with it, 6.9 s without, and the event loop waited up to 1 s for the
GIL). So while any build runs the collector is paused, and what a build made
is then frozen (`gc.freeze`: kept out of later collections, still freed by
reference counting).

When a target is replaced, its objects are unfrozen and collected, and
glibc's `malloc_trim` returns the free pages: without it glibc keeps them in
its arenas, and the process's resident size stays where the largest target
took it. (Other C libraries have no such call; there the trim is skipped.)
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache

_builds_lock = threading.Lock()
_builds_running = 0


@contextmanager
def collection_paused() -> Iterator[None]:
    """No cyclic collection while this (or any other) build runs; what they made is frozen after."""
    global _builds_running
    with _builds_lock:
        _builds_running += 1
        gc.disable()
    try:
        yield
    finally:
        with _builds_lock:
            _builds_running -= 1
            if _builds_running == 0:
                gc.freeze()
                gc.enable()


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        trim = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    trimmed: Callable[[int], int] = trim
    return trimmed


def release_freed_memory() -> None:
    """Collect cycles among everything (frozen builds too), then return free heap pages to the system
    (call from a worker thread, after the replaced target is no longer referenced)."""
    with _builds_lock:
        if _builds_running == 0:
            gc.unfreeze()
    gc.collect()
    with _builds_lock:
        if _builds_running == 0:
            gc.freeze()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
