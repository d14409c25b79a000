"""The completion inspector: every `completion/complete` request and what became of it.

One row per request of a `CompletionLog`, keyed by the record's `seq`: new
records append a row, records whose outcome changes (pending → shown, stale,
cancelled or error) update their row in place. The selected record is shown
in full under the table.

The Audit tab runs the completion audit on the selected server (`a`, with a
progress bar; `c` cancels) and lists its findings, each with the requests
and replies it cites (`AuditPanel`).

Values, context, warnings and errors are shown through `plain()` / `plain_line()`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.coordinate import Coordinate
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static, TabbedContent, TabPane

from rea_tui.host import CompletionLog, CompletionRecord, HostedServer
from rea_tui.ui.settings import DEFAULT_SETTINGS, AppSettings, settings_of
from rea_tui.ui.styles import stylesheet
from rea_tui.ui.text import notify_plain, plain, plain_line
from rea_tui.ui.widgets.audit_panel import AuditPanel

# (key, label, width): the widths fit a 140-column terminal; the detail pane shows everything in full.
# A count takes the room it needs (width None: as wide as its widest cell), so 212,507 is never cut.
COLUMNS: tuple[tuple[str, str, int | None], ...] = (
    ("time", "time", 12),
    ("argument", "argument", 12),
    ("value", "value", 14),
    ("context", "context", 18),
    ("count", "values", None),
    ("total", "total", None),
    ("has-more", "hasMore", 7),
    ("latency", "ms", 7),
    ("outcome", "outcome", 9),
    ("notes", "warnings / error", 24),
)
_RIGHT = {"count", "total", "latency"}
OUTCOME_STYLES: dict[str, str] = {
    "pending": "italic",
    "shown": "green",
    "stale": "yellow",
    "cancelled": "magenta",
    "error": "bold red",
}


class CompletionRecorded(Message, bubble=False):
    """New or changed completion records are waiting in the screen's queue."""


def _clock(stamp: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(stamp)) + f".{int(stamp * 1000) % 1000:03d}"


def compact_context(context: dict[str, str]) -> Text:
    """`k=v, k=v`, sanitized, on one line."""
    return plain_line(", ".join(f"{key}={value}" for key, value in context.items()), limit=200)


def record_cells(record: CompletionRecord, settings: AppSettings = DEFAULT_SETTINGS) -> dict[str, Text]:
    """The cells of one record, by column key."""
    timings = settings.show_timings
    latency = "" if record.latency_ms is None else f"{record.latency_ms:.1f}" if timings else "•"
    has_more = "" if record.has_more is None else str(record.has_more).lower()
    if record.error:
        notes = plain_line(record.error, limit=300, style="red")
    else:
        notes = plain_line("; ".join(record.warnings), limit=300, style="yellow")
    cells = {
        "time": Text(_clock(record.time) if timings else f"#{record.seq:04d}", style="dim"),
        "argument": plain_line(record.argument, limit=100),
        "value": plain_line(record.value, limit=200) if record.value else Text("(empty)", style="dim"),
        "context": compact_context(record.context),
        "count": Text("" if record.count is None else f"{record.count:,}"),
        "total": Text("" if record.total is None else f"{record.total:,}"),
        "has-more": Text(has_more),
        "latency": Text(latency),
        "outcome": Text(record.outcome, style=OUTCOME_STYLES.get(record.outcome, "")),
        "notes": notes,
    }
    for key in _RIGHT:
        cells[key].justify = "right"
    return cells


def record_detail(record: CompletionRecord, settings: AppSettings = DEFAULT_SETTINGS) -> Text:
    """Everything about one record, one field per line."""
    lines: list[Text] = []

    def field(label: str, value: Text | str) -> None:
        line = Text(f"{label:<10}", style="bold")
        line.append_text(value if isinstance(value, Text) else Text(value))
        lines.append(line)

    heading = Text(f"#{record.seq:04d}", style="bold")
    if settings.show_timings:
        heading.append(f"  {_clock(record.time)}", style="dim")
    lines.append(heading)
    kind = "prompt" if record.ref.kind == "prompt" else "resource template"
    field("ref", Text(f"{kind} ").append_text(plain_line(record.ref.name, limit=300)))
    field("argument", plain_line(record.argument, limit=300))
    field("value", plain(record.value, limit=2_000) if record.value else Text("(empty)", style="dim"))
    context = json.dumps(record.context, indent=2, ensure_ascii=False) if record.context else "(none)"
    field("context", plain(context, limit=4_000))
    field("outcome", Text(record.outcome, style=OUTCOME_STYLES.get(record.outcome, "")))
    if record.count is not None:
        total = "unknown" if record.total is None else f"{record.total:,}"
        more = "unknown" if record.has_more is None else str(record.has_more).lower()
        field("values", f"{record.count:,} received, total {total}, hasMore {more}")
    if record.latency_ms is not None:
        field("latency", f"{record.latency_ms:.1f} ms" if settings.show_timings else "measured")
    if record.warnings:
        lines.append(Text("warnings", style="bold"))
        for warning in record.warnings:
            lines.append(Text("  - ", style="yellow").append_text(plain_line(warning, limit=500)))
    if record.error:
        field("error", plain(record.error, limit=4_000, style="red"))
    return Text("\n").join(lines)


class CompletionInspectorScreen(Screen[None]):
    """Every completion request of a `CompletionLog`, live."""

    @property
    def settings(self) -> AppSettings:
        return settings_of(self)

    CSS_PATH = stylesheet("completion_inspector.tcss")
    AUTO_FOCUS = "#completion-table"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape",
            "close",
            "Close",
            id="close-completion-inspector",
            tooltip="Close the completion inspector and return to the previous screen",
        ),
        Binding("a", "audit", "Audit", id="run-audit", tooltip="Audit the selected server's completion"),
        Binding("c", "cancel_audit", "Cancel audit", id="cancel-audit", tooltip="Stop the audit (keeps the findings)"),
    ]

    def __init__(
        self,
        log: CompletionLog,
        *,
        server: HostedServer | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.completion_log = log
        # The server the Audit tab audits (the selected one when the inspector opened).
        self.server = server
        self._unsubscribe: Callable[[], None] | None = None
        self._pending: dict[int, CompletionRecord] = {}
        self._records: dict[str, CompletionRecord] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        with TabbedContent(id="inspector-tabs"):
            with TabPane("Requests", id="requests-pane"), Vertical(id="completion-body"):
                table: DataTable[Text] = DataTable(id="completion-table", cursor_type="row")
                yield table
                with VerticalScroll(id="completion-detail"):
                    yield Static(id="completion-detail-text")
            with TabPane("Audit", id="audit-pane"):
                yield AuditPanel(id="audit-panel")
        yield Footer()

    def on_mount(self) -> None:
        self.title = "Completion inspector"
        table = self._table()
        for key, label, width in COLUMNS:
            if key == "time" and not self.settings.show_timings:
                label = "seq"
            header = Text(label, justify="right") if key in _RIGHT else Text(label)
            table.add_column(header, key=key, width=width)
        self._unsubscribe = self.completion_log.subscribe(self._on_record)
        for record in self.completion_log.records:
            self._add(table, record)
        if table.row_count:
            table.move_cursor(row=table.row_count - 1, animate=False)
        self._show_cursor_record()
        self._update_subtitle()

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self._pending.clear()

    def _table(self) -> DataTable[Text]:
        return self.query_one("#completion-table", DataTable)

    # ------------------------------------------------------------ live updates

    def _on_record(self, record: CompletionRecord) -> None:
        """Called synchronously by the log for new and changed records: queue, update later."""
        first = not self._pending
        self._pending[record.seq] = record
        if first:
            self.post_message(CompletionRecorded())

    @on(CompletionRecorded)
    def _apply_pending(self) -> None:
        records, self._pending = list(self._pending.values()), {}
        table = self._table()
        following = table.row_count == 0 or table.cursor_row >= table.row_count - 1
        selected = self._cursor_key()
        added = False
        for record in records:
            key = str(record.seq)
            if key in self._records:
                cells = record_cells(record, self.settings)
                for column, cell in cells.items():
                    table.update_cell(key, column, cell)
            else:
                self._add(table, record)
                added = True
        if added:
            self._trim(table)
            if following:
                table.move_cursor(row=table.row_count - 1, animate=False)
        if added or selected in {str(r.seq) for r in records}:
            self._show_cursor_record()
        self._update_subtitle()

    def _add(self, table: DataTable[Text], record: CompletionRecord) -> None:
        key = str(record.seq)
        cells = record_cells(record, self.settings)
        table.add_row(*(cells[column] for column, _, _ in COLUMNS), key=key)
        self._records[key] = record

    def _trim(self, table: DataTable[Text]) -> None:
        """Keep no more rows than the log keeps records."""
        limit = self.completion_log.records.maxlen
        if limit is None or table.row_count <= limit:
            return
        for row in table.ordered_rows[: table.row_count - limit]:
            if row.key.value is not None:
                self._records.pop(row.key.value, None)
            table.remove_row(row.key)

    # ------------------------------------------------------------ selection

    def _cursor_key(self) -> str | None:
        table = self._table()
        if table.row_count == 0:
            return None
        row_key, _ = table.coordinate_to_cell_key(Coordinate(table.cursor_row, 0))
        return row_key.value

    def _show_cursor_record(self) -> None:
        detail = self.query_one("#completion-detail-text", Static)
        key = self._cursor_key()
        record = self._records.get(key) if key is not None else None
        if record is None:
            detail.update(Text("No completion requests yet: type in a prompt argument field to send one.", style="dim"))
            return
        detail.update(record_detail(record, self.settings))

    @on(DataTable.RowHighlighted, "#completion-table")
    def _row_highlighted(self) -> None:
        self._show_cursor_record()

    def _update_subtitle(self) -> None:
        count = len(self.completion_log.records)
        in_flight = self.completion_log.in_flight()
        subtitle = f"{count:,} request" + ("" if count == 1 else "s")
        if in_flight:
            subtitle += f", {in_flight} in flight"
        self.sub_title = subtitle

    # ------------------------------------------------------------ actions

    def action_audit(self) -> None:
        server = self.server
        if server is None or not server.ready:
            notify_plain(self.app, "Select a connected server first: the audit runs on it.", severity="warning")
            return
        if not server.completions.supported:
            notify_plain(self.app, f"{server.name} does not declare completions: there is nothing to audit.")
            return
        self.query_one("#inspector-tabs", TabbedContent).active = "audit-pane"
        if not self.query_one(AuditPanel).start(server):
            notify_plain(self.app, "An audit is running already (c cancels it).")
        self.query_one("#audit-table", DataTable).focus()

    def action_cancel_audit(self) -> None:
        if not self.query_one(AuditPanel).cancel():
            notify_plain(self.app, "No audit is running.")

    def action_close(self) -> None:
        self.query_one(AuditPanel).cancel()
        self.dismiss(None)
