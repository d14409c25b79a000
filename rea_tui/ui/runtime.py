"""Process-wide tuning, applied once: Textual's frame rate and the garbage collector.

The launcher applies it before Textual is imported; the test suite calls the
same function from its configuration, after pytest's plugins have already
imported Textual, which is why the screen's update period is set too.
"""

from __future__ import annotations

import gc
import os
import sys

# The stages of settle_heap, in the order they come.
APP_STARTED = "app started"
SDK_LOADED = "SDK loaded"
FIRST_CONNECTION = "first connection"
# The stages settle_heap has settled already.
_settled_stages: set[str] = set()
# gc.collect(1) collects generations 0 and 1, not the oldest (2).
YOUNG_GENERATIONS = 1


def apply_frame_rate(fps: int) -> None:
    """Repaint at most `fps` times a second (an explicit TEXTUAL_FPS in the environment wins)."""
    os.environ.setdefault("TEXTUAL_FPS", str(fps))
    screen = sys.modules.get("textual.screen")
    if screen is not None:
        # Textual read TEXTUAL_FPS when it was imported; a screen takes its update period from here.
        vars(screen)["UPDATE_PERIOD"] = 1 / int(os.environ["TEXTUAL_FPS"])


def settle_heap(stage: str) -> None:
    """Once per `stage` of the process, after a burst of long-lived objects: keep them out of later full
    collections, each of which scans every object not frozen and stalls the screen that long.

    The stages are the app started (Textual), the SDK loaded and the first server connected (its
    catalogs). Before the SDK stage existed, the collections while a 5,000-tool server's pages came in
    scanned Textual and the SDK (170,000 objects), 55 to 90 ms each; after it they scan the pages.

    Only the young generations are collected first: a full collection here took 55 to 60 ms (a
    frame limit is 50) and found 0 to 10 unreachable objects, which the freeze then keeps.
    """
    if stage in _settled_stages:
        return
    _settled_stages.add(stage)
    gc.collect(YOUNG_GENERATIONS)
    gc.freeze()
