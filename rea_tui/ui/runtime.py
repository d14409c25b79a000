"""Process-wide tuning, applied once: Textual's frame rate and the garbage collector.

The launcher applies it before Textual is imported; the test suite calls the
same function from its configuration, after pytest's plugins have already
imported Textual, which is why the screen's update period is set too.
"""

from __future__ import annotations

import gc
import os
import sys

_heap_settled = False
# gc.collect(1) collects generations 0 and 1, not the oldest (2).
YOUNG_GENERATIONS = 1


def apply_frame_rate(fps: int) -> None:
    """Repaint at most `fps` times a second (an explicit TEXTUAL_FPS in the environment wins)."""
    os.environ.setdefault("TEXTUAL_FPS", str(fps))
    screen = sys.modules.get("textual.screen")
    if screen is not None:
        # Textual read TEXTUAL_FPS when it was imported; a screen takes its update period from here.
        vars(screen)["UPDATE_PERIOD"] = 1 / int(os.environ["TEXTUAL_FPS"])


def settle_heap() -> None:
    """Once per process, after the long-lived objects exist (Textual, the SDK, the first catalogs):
    keep them out of later full collections, which otherwise stall keystrokes by 100 ms or more.

    Only the young generations are collected first: a full collection here took 55 to 60 ms (a
    frame limit is 50) and found 0 to 10 unreachable objects, which the freeze then keeps.
    """
    global _heap_settled
    if _heap_settled:
        return
    _heap_settled = True
    gc.collect(YOUNG_GENERATIONS)
    gc.freeze()
