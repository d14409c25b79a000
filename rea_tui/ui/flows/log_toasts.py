"""Toasts for a server's error logs, coalesced: a flood costs a counter, not a toast per message.

Log messages of level error and above get a toast. At most one log toast is
shown per `MIN_GAP_SECONDS`; what arrives in between is counted per server
and shown as one toast when the gap is over ("1,234 more error logs from X,
the latest: ..."). Every message is in the protocol log's Logs tab anyway.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rea_tui.ui.text import notify_plain

if TYPE_CHECKING:
    from textual.app import App
    from textual.timer import Timer

    from rea_tui.host import LogMessageReceived

# Messages from this level up get a toast (the rest are only in the protocol log).
TOAST_FROM = "error"
# At most one log toast per this many seconds (two a second).
MIN_GAP_SECONDS = 0.5
TOAST_SECONDS = 6
LATEST_LIMIT = 300


@dataclass
class _Pending:
    count: int
    latest: LogMessageReceived


def _data_text(event: LogMessageReceived) -> str:
    import json

    data: Any = event.data
    return data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)


class LogToasts:
    """Error logs of every server, turned into a few toasts a second at most."""

    def __init__(self, app: Callable[[], App[Any]]) -> None:
        """`app`: the app to toast on (asked when there is something to show: screens get theirs on mount)."""
        self._app = app
        self._pending: dict[str, _Pending] = {}
        self._shown_at = -MIN_GAP_SECONDS
        self._timer: Timer | None = None
        # Toasts shown; messages shown in a toast of their own, and those counted into a later one.
        self.toasts = 0
        self.alone = 0
        self.coalesced = 0

    def add(self, event: LogMessageReceived) -> None:
        from rea_tui.host import at_least

        if not at_least(event.level, TOAST_FROM):
            return
        now = time.monotonic()
        if self._timer is None and now - self._shown_at >= MIN_GAP_SECONDS:
            self._toast(f"{event.level}: {_data_text(event)}", event.server, event.logger)
            self._shown_at = now
            self.alone += 1
            return
        pending = self._pending.get(event.server)
        if pending is None:
            self._pending[event.server] = _Pending(1, event)
        else:
            pending.count += 1
            pending.latest = event
        self.coalesced += 1
        if self._timer is None:
            wait = max(MIN_GAP_SECONDS - (now - self._shown_at), 0.0)
            self._timer = self._app().set_timer(wait, self._flush)

    def _flush(self) -> None:
        self._timer = None
        pending, self._pending = self._pending, {}
        if not pending:
            return
        lines = []
        for server, counted in pending.items():
            latest = counted.latest
            noun = "log" if counted.count == 1 else "logs"
            lines.append(
                f"{counted.count:,} more error {noun} from {server}; the latest ({latest.level}): "
                f"{_data_text(latest)[:LATEST_LIMIT]}"
            )
        self._toast("\n".join(lines), ", ".join(pending), None)
        self._shown_at = time.monotonic()

    def _toast(self, message: str, server: str, logger: str | None) -> None:
        self.toasts += 1
        title = f"{server} log" + (f" ({logger})" if logger else "")
        notify_plain(self._app(), message, title=title, severity="error", timeout=TOAST_SECONDS)
