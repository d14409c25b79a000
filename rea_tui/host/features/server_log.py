"""A server's log messages (`notifications/message`) and the level it was asked to send.

Every message is kept in a bounded record per connection (the protocol log's
Logs tab shows it), counted by level, so a server that sends 50,000 errors
costs a counter and a bounded buffer, not a screen per message. The level is
asked with `logging/setLevel` (2025-11-25 and earlier) or sent with every
request (2026-07-28, where logging is opted into per request).
"""

from __future__ import annotations

import json
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rea_tui.host.protocol.events import LogMessageReceived
from rea_tui.host.protocol.observers import Listeners, Unsubscribe

# RFC 5424 severities, least severe first, as MCP names them.
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
# A level a server invents is treated as this one.
UNKNOWN_LEVEL_RANK = LOG_LEVELS.index("warning")
MAX_RECORDS = 5_000
# Characters of one message's data kept (the rest is cut, with a count).
DATA_LIMIT = 8_000


def level_rank(level: str) -> int:
    return LOG_LEVELS.index(level) if level in LOG_LEVELS else UNKNOWN_LEVEL_RANK


def at_least(level: str, threshold: str) -> bool:
    return level_rank(level) >= level_rank(threshold)


def data_text(data: Any) -> str:
    """A message's `data` as text: a string as it is, anything else as JSON."""
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
    if len(text) > DATA_LIMIT:
        text = text[:DATA_LIMIT] + f"... ({len(text) - DATA_LIMIT:,} more characters)"
    return text


@dataclass(frozen=True)
class LogRecord:
    seq: int
    time: float
    level: str
    logger: str | None
    text: str


class ServerLog:
    """The log messages of one connection (the newest `MAX_RECORDS`), and counts of all of them."""

    def __init__(self, max_records: int = MAX_RECORDS) -> None:
        self.records: deque[LogRecord] = deque(maxlen=max_records)
        self.counts: Counter[str] = Counter()
        self.total = 0
        # What the server was asked to send from (None: never asked; the server's default).
        self.level: str | None = None
        self.listeners: Listeners[LogRecord] = Listeners()

    def subscribe(self, listener: Callable[[LogRecord], None]) -> Unsubscribe:
        return self.listeners.subscribe(listener)

    def add(self, event: LogMessageReceived) -> LogRecord:
        self.total += 1
        self.counts[event.level] += 1
        record = LogRecord(self.total, time.time(), event.level, event.logger, data_text(event.data))
        self.records.append(record)
        self.listeners.emit(record)
        return record

    def __len__(self) -> int:
        return len(self.records)
