"""Work the server does unasked, in a thread of its own at a lower priority than its requests.

The startup target's analysis is the server's heaviest work (parsing the
binary, indexing its names and strings) and nobody waits on it the way a host
waits on a reply: under load, answering requests comes first. On Linux a nice
value belongs to a thread, so the analysis runs in a new thread that lowers
only itself (a pooled worker, once lowered, could not be raised back without
privilege); elsewhere it runs at the usual priority.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future
from contextlib import suppress
from typing import TypeVar

T = TypeVar("T")

# How much lower than the server's requests background work runs (nice values; 19 is the lowest).
BACKGROUND_NICENESS_STEP = 10
MAX_NICENESS = 19


def lower_this_thread() -> None:
    if sys.platform.startswith("linux"):
        thread = threading.get_native_id()
        with suppress(OSError):
            niceness = os.getpriority(os.PRIO_PROCESS, thread) + BACKGROUND_NICENESS_STEP
            os.setpriority(os.PRIO_PROCESS, thread, min(niceness, MAX_NICENESS))


def run_in_background_thread(work: Callable[[], T]) -> T:
    """`work()` in a new, lowered thread; blocks until it is done, then returns its result or raises its error."""
    outcome: Future[T] = Future()

    def run() -> None:
        lower_this_thread()
        try:
            outcome.set_result(work())
        except BaseException as exc:  # handed to the waiting caller, which raises it
            outcome.set_exception(exc)

    threading.Thread(target=run, name="rea-background", daemon=True).start()
    return outcome.result()
