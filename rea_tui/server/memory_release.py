"""Giving the memory of a closed target back to the system.

A parsed binary is many small native and Python allocations; once they are
freed, glibc keeps most of the pages in its arenas, so the process's resident
size stays where the largest target took it. `malloc_trim` returns the free
pages (a no-op elsewhere: other C libraries have no such call).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging
from collections.abc import Callable
from functools import cache

logger = logging.getLogger("rea_tui.server")


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
    """Collect cycles, then return free heap pages to the system (call from a worker thread)."""
    gc.collect()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
