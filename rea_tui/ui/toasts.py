"""Toasts a server can cause, coalesced: a flood of messages never floods the screen.

Per kind of message (a server's bad output, its error logs...), at most one
toast shows per interval; what arrives meanwhile is counted, and one toast
says how many more there were (every one of them is still in the protocol
log). Fifty thousand error logs cost a few toasts, not fifty thousand.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from textual.notifications import SeverityLevel

from rea_tui.ui.text import notify_plain

# At most one toast per kind in this many seconds.
TOAST_INTERVAL = 2.0
TOAST_SECONDS = 6.0


@dataclass
class _Kind:
    last: float = 0.0
    held: int = 0
    title: str = ""
    severity: SeverityLevel = "warning"
    flushing: bool = False


class ToastThrottle:
    def __init__(self, app: Any, interval: float = TOAST_INTERVAL) -> None:
        self.app = app
        self.interval = interval
        self._kinds: dict[str, _Kind] = {}

    def notify(self, key: str, message: object, *, title: str, severity: SeverityLevel = "warning") -> None:
        kind = self._kinds.setdefault(key, _Kind())
        now = time.monotonic()
        if now - kind.last >= self.interval and not kind.held:
            kind.last = now
            notify_plain(self.app, message, title=title, severity=severity, timeout=TOAST_SECONDS)
            return
        kind.held += 1
        kind.title, kind.severity = title, severity
        if not kind.flushing:
            kind.flushing = True
            self.app.set_timer(max(self.interval - (now - kind.last), 0.0), lambda: self._flush(key))

    def _flush(self, key: str) -> None:
        kind = self._kinds[key]
        kind.flushing = False
        if kind.held:
            held, kind.held = kind.held, 0
            kind.last = time.monotonic()
            notify_plain(
                self.app,
                f"{held:,} more like this (all of them are in the protocol log, ctrl+l)",
                title=kind.title,
                severity=kind.severity,
                timeout=TOAST_SECONDS,
            )
