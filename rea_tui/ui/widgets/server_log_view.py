"""The protocol log's Logs tab: a server's log messages (`notifications/message`), every level, live.

It shows the connection's `ServerLog` (the newest 5,000 messages, counted by
level), filtered by a level picker ("from warning up"). New messages are
queued and written in one batch per screen update, and a batch writes at
most `BATCH_LIMIT` lines (the count says how many were skipped), so a flood
of log messages never stalls the screen.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import RichLog, Select, Static

from rea_tui.host import LOG_LEVELS, Connection, LogRecord, at_least
from rea_tui.ui.settings import settings_of
from rea_tui.ui.text import WORD_LIMIT, plain_line

# Lines the log widget keeps, and writes per batch (a flood is summarised, not painted line by line).
LOG_LINES = 2_000
BATCH_LIMIT = 300
TEXT_LIMIT = 2_000
LEVEL_STYLES = {
    "debug": "dim",
    "info": "",
    "notice": "cyan",
    "warning": "yellow",
    "error": "red",
    "critical": "bold red",
    "alert": "bold red reverse",
    "emergency": "bold red reverse",
}
ALL_LEVELS = "debug"


class LogsRecorded(Message, bubble=False):
    """New log messages are waiting in the view's queue."""


def log_line(record: LogRecord, show_timings: bool = True) -> Text:
    stamp = time.strftime("%H:%M:%S", time.localtime(record.time)) if show_timings else f"#{record.seq:05d}"
    line = Text(f"{stamp} ", style="dim")
    line.append(f"{record.level:<9}", style=LEVEL_STYLES.get(record.level, "yellow"))
    if record.logger:
        line.append_text(plain_line(record.logger, WORD_LIMIT, style="italic"))
        line.append(" ")
    line.append_text(plain_line(record.text, TEXT_LIMIT))
    return line


class ServerLogView(Vertical):
    """The log messages of one connection at a time."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._connection: Connection | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._pending: list[LogRecord] = []
        self._threshold = ALL_LEVELS
        self.skipped = 0

    def compose(self) -> ComposeResult:
        with Horizontal(id="logs-bar"):
            yield Static("From", id="logs-level-label")
            yield Select([(name, name) for name in LOG_LEVELS], value=ALL_LEVELS, allow_blank=False, id="logs-level")
            yield Static(id="logs-count")
        yield RichLog(id="logs-log", wrap=True, markup=False, highlight=False, auto_scroll=True, max_lines=LOG_LINES)

    def on_unmount(self) -> None:
        self.detach()

    def show(self, connection: Connection) -> None:
        self.detach()
        self._connection = connection
        self._unsubscribe = connection.log.subscribe(self._record)
        self._rebuild()

    def detach(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self._pending.clear()

    def _record(self, record: LogRecord) -> None:
        """Called by the server log for every message: queue it, write later."""
        self._pending.append(record)
        if len(self._pending) == 1:
            self.post_message(LogsRecorded())

    @on(LogsRecorded)
    def _write_pending(self) -> None:
        records, self._pending = self._pending, []
        shown = [r for r in records if at_least(r.level, self._threshold)]
        self._write(shown)
        self._count()

    def _write(self, records: list[LogRecord]) -> None:
        log = self.query_one("#logs-log", RichLog)
        if len(records) > BATCH_LIMIT:
            self.skipped += len(records) - BATCH_LIMIT
            log.write(Text(f"… {len(records) - BATCH_LIMIT:,} messages not shown here (they are counted)", style="dim"))
            records = records[-BATCH_LIMIT:]
        timings = settings_of(self).show_timings
        for record in records:
            log.write(log_line(record, timings))

    def _rebuild(self) -> None:
        log = self.query_one("#logs-log", RichLog)
        log.clear()
        self._pending.clear()
        connection = self._connection
        if connection is not None:
            self._write([r for r in connection.log.records if at_least(r.level, self._threshold)])
        self._count()

    def _count(self) -> None:
        connection = self._connection
        status = self.query_one("#logs-count", Static)
        if connection is None or not connection.log.total:
            level = connection.log.level if connection is not None else None
            asked = f" (asked from {level} up)" if level else ""
            status.update(Text(f"The server has sent no log messages{asked}.", style="dim"))
            return
        log = connection.log
        counts = ", ".join(f"{log.counts[name]:,} {name}" for name in LOG_LEVELS if log.counts.get(name))
        kept = f"; the newest {len(log):,} are kept" if len(log) < log.total else ""
        asked = f"; asked from {log.level} up" if log.level else ""
        status.update(Text(f"{log.total:,} messages: {counts}{kept}{asked}", style="dim"))

    @on(Select.Changed, "#logs-level")
    def _level_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, str) and event.value != self._threshold:
            self._threshold = event.value
            self._rebuild()
