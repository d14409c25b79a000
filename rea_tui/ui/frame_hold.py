"""Holding the screen's next frame for a moment, so a keystroke and its suggestions are painted together.

Without it a keystroke costs two frames: the typed character with the
dropdown blanked (its values answer the previous value), then the new values
a few milliseconds later. The first frame also went out before the completion
request did, so the request waited for it. Held, the request goes out at once,
and a server that answers within `limit` gets one frame with both; a slower
one gets the typed character at `limit`, and its values when they come.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AbstractContextManager, suppress
from typing import Any

from textual.app import ScreenStackError
from textual.screen import Screen


class FrameHold:
    """At most one hold at a time; it ends at `release` or after `limit` seconds, whichever is first.

    It holds every screen of the app that `screen` is on (Textual suspends repaints app-wide).
    `before_frame` runs as a hold ends, before the frame it held is painted: whatever must not be
    seen in that frame is hidden there.
    """

    def __init__(self, screen: Screen[Any], limit: float, before_frame: Callable[[], None]) -> None:
        self._screen = screen
        self._limit = limit
        self._before_frame = before_frame
        self._batch: AbstractContextManager[None] | None = None
        self._deadline: asyncio.TimerHandle | None = None

    @property
    def held(self) -> bool:
        return self._batch is not None

    def hold(self) -> None:
        """Hold the frames from now; a hold already on keeps its own deadline (typing never starves the screen)."""
        if self._batch is not None:
            return
        # Textual's public way to suspend repaints; entered here and left in `release`.
        batch = self._screen.app.batch_update()
        batch.__enter__()
        self._batch = batch
        self._deadline = asyncio.get_running_loop().call_later(self._limit, self.release)

    def release(self) -> None:
        """Paint what changed meanwhile (nothing when no hold is on)."""
        batch, self._batch = self._batch, None
        if batch is None:
            return
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        try:
            self._before_frame()
        finally:
            batch.__exit__(None, None, None)
        # The screen noticed its changes while held and let them be: have it look again.
        with suppress(ScreenStackError):
            self._screen.app.screen.check_idle()
