"""The protocol log: every JSON-RPC message of a connection, live, its log messages, and the server's stderr.

One server at a time (a `Select` picks it when there are several). The
"Traffic" tab is a filterable table of the connection's `TrafficLog` with the
selected message pretty-printed underneath; the "Logs" tab lists the
server's log messages of every level (`ServerLogView`); the "Server stderr"
tab shows what the server wrote to stderr, refreshed every second while it
is visible.

Everything a server sent is shown through `plain()` / `plain_line()`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.coordinate import Coordinate
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import (
    DataTable,
    Footer,
    Header,
    Input,
    RichLog,
    Select,
    Static,
    TabbedContent,
    TabPane,
)

from rea_tui.host import Connection, TrafficEntry
from rea_tui.ui.settings import DEFAULT_SETTINGS, AppSettings, settings_of
from rea_tui.ui.styles import stylesheet
from rea_tui.ui.text import plain, plain_line
from rea_tui.ui.widgets.server_log_view import ServerLogView

DETAIL_LIMIT = 64_000
STDERR_REFRESH_SECONDS = 1.0
# A DataTable measures every cell it is given, so the table holds the newest
# matching messages only (the log itself keeps 5,000); live rows may run
# TABLE_SLACK over before the table is rebuilt from the log in one go.
TABLE_ROWS = 1_000
TABLE_SLACK = 200
FILTER_DELAY_SECONDS = 0.15

_DIRECTIONS: dict[str, str] = {"out": "→ out", "in": "← in", "info": "• info"}
_DIRECTION_STYLES: dict[str, str] = {"out": "cyan", "in": "green", "info": "dim"}
_KIND_STYLES: dict[str, str] = {"error": "bold red", "garbage": "bold yellow", "event": "dim"}


class TrafficRecorded(Message, bubble=False):
    """New traffic entries are waiting in the screen's queue."""


def format_clock(stamp: float) -> str:
    """HH:MM:SS.mmm in local time."""
    return time.strftime("%H:%M:%S", time.localtime(stamp)) + f".{int(stamp * 1000) % 1000:03d}"


def traffic_row(entry: TrafficEntry, settings: AppSettings = DEFAULT_SETTINGS) -> list[Text]:
    """The table cells of one entry (time or #seq, direction, kind, method, id, latency, size)."""
    label = _DIRECTIONS[entry.direction]
    when = Text(format_clock(entry.time) if settings.show_timings else f"#{entry.seq:04d}", style="dim")
    if entry.latency_ms is None:
        latency = Text("")
    elif not settings.show_timings:
        latency = Text("•", justify="right")
    else:
        latency = Text(f"{entry.latency_ms:.1f}", justify="right")
    return [
        when,
        Text(label, style=_DIRECTION_STYLES[entry.direction]),
        Text(entry.kind, style=_KIND_STYLES.get(entry.kind, "")),
        plain_line(entry.method, limit=200),
        plain_line(entry.id, limit=60),
        latency,
        # Events about the process itself carry a path and a pid: their size varies by machine.
        Text("•" if _machine_specific(entry, settings) else f"{entry.size:,}", justify="right"),
    ]


def _machine_specific(entry: TrafficEntry, settings: AppSettings) -> bool:
    return not settings.show_machine_details and entry.kind == "event"


def traffic_detail(entry: TrafficEntry, settings: AppSettings = DEFAULT_SETTINGS) -> Text:
    """The selected entry: a one-line summary, then the payload pretty-printed."""
    label = _DIRECTIONS[entry.direction]
    header = Text(style="bold")
    header.append(f"#{entry.seq:04d}  ")
    if settings.show_timings:
        header.append(format_clock(entry.time) + "  ")
    header.append(f"{label}  {entry.kind}")
    if entry.method:
        header.append("  ")
        header.append_text(plain_line(entry.method, limit=200))
    if entry.id:
        header.append("  id=")
        header.append_text(plain_line(entry.id, limit=60))
    if entry.latency_ms is not None and settings.show_timings:
        header.append(f"  {entry.latency_ms:.1f} ms")
    machine_specific = _machine_specific(entry, settings)
    if not machine_specific:
        header.append(f"  {entry.size:,} bytes")
    body = plain("(details of this machine hidden)" if machine_specific else entry.pretty(), limit=DETAIL_LIMIT)
    return Text("\n").join([header, body])


class ProtocolLogScreen(Screen[None]):
    """The JSON-RPC traffic and stderr of one connection at a time."""

    @property
    def settings(self) -> AppSettings:
        return settings_of(self)

    CSS_PATH = stylesheet("protocol_log.tcss")
    AUTO_FOCUS = "#traffic-table"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape",
            "close",
            "Close",
            id="close-protocol-log",
            tooltip="Close the protocol log and return to the previous screen",
        ),
        Binding(
            "f,slash",
            "focus_filter",
            "Filter",
            key_display="/",
            id="focus-traffic-filter",
            tooltip="Filter the traffic table by method name",
        ),
    ]

    def __init__(
        self,
        connections: Sequence[Connection],
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.connections: list[Connection] = list(connections)
        self._connection: Connection | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._pending: list[TrafficEntry] = []
        self._shown: dict[str, TrafficEntry] = {}
        self._filter = ""
        self._stderr_seen: int | None = None
        self._stderr_timer: Timer | None = None
        self._filter_timer: Timer | None = None
        self._matching_count = 0

    # ------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Header()
        if len(self.connections) > 1:
            with Horizontal(id="server-bar"):
                yield Static("Server", id="server-label")
                yield Select[int](
                    [(plain_line(c.name, limit=80), index) for index, c in enumerate(self.connections)],
                    value=0,
                    allow_blank=False,
                    id="server-select",
                )
        with TabbedContent(id="protocol-tabs"):
            with TabPane("Traffic", id="traffic-pane"):
                with Horizontal(id="traffic-bar"):
                    yield Input(placeholder="Filter by method (/ to focus)", id="traffic-filter")
                    yield Static(id="traffic-count")
                with Vertical(id="traffic-body"):
                    table: DataTable[Text] = DataTable(id="traffic-table", cursor_type="row")
                    yield table
                    with VerticalScroll(id="traffic-detail"):
                        yield Static(id="traffic-detail-text")
            with TabPane("Logs", id="logs-pane"):
                yield ServerLogView(id="server-logs")
            with TabPane("Server stderr", id="stderr-pane"):
                yield Static(id="stderr-status")
                yield RichLog(id="stderr-log", wrap=True, markup=False, highlight=False, auto_scroll=True)
        yield Footer()

    def on_mount(self) -> None:
        self.title = "Protocol log"
        table = self._table()
        table.add_column("time" if self.settings.show_timings else "seq", key="time", width=12)
        table.add_column("dir", key="direction", width=6)
        table.add_column("kind", key="kind", width=12)
        table.add_column("method", key="method", width=34)
        table.add_column("id", key="id", width=8)
        table.add_column(Text("ms", justify="right"), key="latency", width=9)
        table.add_column(Text("bytes", justify="right"), key="size", width=10)
        self._stderr_timer = self.set_interval(STDERR_REFRESH_SECONDS, self._refresh_stderr, pause=True)
        if self.connections:
            self._show_connection(self.connections[0])
        else:
            self.sub_title = "no servers"
            self._detail().update(Text("No server is connected.", style="dim"))

    def on_unmount(self) -> None:
        self._stop_following()

    # ------------------------------------------------------------ widgets

    def _table(self) -> DataTable[Text]:
        return self.query_one("#traffic-table", DataTable)

    def _detail(self) -> Static:
        return self.query_one("#traffic-detail-text", Static)

    # ------------------------------------------------------------ connection

    def _show_connection(self, connection: Connection) -> None:
        self._stop_following()
        self._connection = connection
        self._unsubscribe = connection.traffic.subscribe(self._on_traffic)
        subtitle = plain_line(connection.name, limit=80).plain
        if connection.protocol_version:
            subtitle += " · protocol " + plain_line(connection.protocol_version, limit=40).plain
        self.sub_title = subtitle
        self._rebuild(follow=True)
        self.query_one(ServerLogView).show(connection)
        self._stderr_seen = None
        self._refresh_stderr()

    def _stop_following(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self._pending.clear()

    def _on_traffic(self, entry: TrafficEntry) -> None:
        """Called synchronously by the traffic log: queue the entry, update the table later."""
        self._pending.append(entry)
        if len(self._pending) == 1:
            self.post_message(TrafficRecorded())

    @on(TrafficRecorded)
    def _append_pending(self) -> None:
        entries, self._pending = self._pending, []
        table = self._table()
        following = table.row_count == 0 or table.cursor_row >= table.row_count - 1
        added = False
        for entry in entries:
            if self._matches(entry):
                key = str(entry.seq)
                table.add_row(*traffic_row(entry, self.settings), key=key)
                self._shown[key] = entry
                self._matching_count += 1
                added = True
        if not added:
            self._update_count()
            return
        if table.row_count > TABLE_ROWS + TABLE_SLACK:
            self._rebuild(follow=following)
            return
        if following:
            table.move_cursor(row=table.row_count - 1, animate=False)
        self._show_cursor_entry()
        self._update_count()

    # ------------------------------------------------------------ table

    def _matches(self, entry: TrafficEntry) -> bool:
        return not self._filter or self._filter in entry.method.casefold()

    def _cursor_key(self) -> str | None:
        table = self._table()
        if table.row_count == 0:
            return None
        row_key, _ = table.coordinate_to_cell_key(Coordinate(table.cursor_row, 0))
        return row_key.value

    def _rebuild(self, *, follow: bool) -> None:
        """Fill the table from the log, keeping the selected entry selected when it is still shown."""
        table = self._table()
        keep = None if follow else self._cursor_key()
        was_last = table.row_count == 0 or table.cursor_row >= table.row_count - 1
        table.clear()
        self._shown.clear()
        self._pending.clear()
        connection = self._connection
        entries = connection.traffic.entries() if connection is not None else []
        matching = [entry for entry in entries if self._matches(entry)]
        self._matching_count = len(matching)
        for entry in matching[-TABLE_ROWS:]:
            key = str(entry.seq)
            table.add_row(*traffic_row(entry, self.settings), key=key)
            self._shown[key] = entry
        if table.row_count:
            if keep is not None and keep in self._shown and not was_last:
                table.move_cursor(row=table.get_row_index(keep), animate=False)
            else:
                table.move_cursor(row=table.row_count - 1, animate=False)
        self._show_cursor_entry()
        self._update_count()

    def _update_count(self) -> None:
        connection = self._connection
        total = len(connection.traffic) if connection is not None else 0
        matching = min(self._matching_count, total)
        text = f"{matching:,} of {total:,} messages" if self._filter else f"{total:,} messages"
        shown = self._table().row_count
        if shown < matching:
            text += f", newest {shown:,} listed"
        self.query_one("#traffic-count", Static).update(Text(text, style="dim"))

    def _show_cursor_entry(self) -> None:
        key = self._cursor_key()
        entry = self._shown.get(key) if key is not None else None
        if entry is None:
            message = "No message matches the filter." if self._filter else "No messages yet."
            self._detail().update(Text(message, style="dim"))
            return
        self._detail().update(traffic_detail(entry, self.settings))

    @on(DataTable.RowHighlighted, "#traffic-table")
    def _row_highlighted(self) -> None:
        self._show_cursor_entry()

    @on(Input.Changed, "#traffic-filter")
    def _filter_changed(self) -> None:
        """Apply the filter once typing pauses (rebuilding a long table takes a moment)."""
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self._filter_timer = self.set_timer(FILTER_DELAY_SECONDS, self._apply_filter)

    @on(Input.Submitted, "#traffic-filter")
    def _filter_submitted(self) -> None:
        self._apply_filter()
        self._table().focus()

    def _apply_filter(self) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
            self._filter_timer = None
        text = self.query_one("#traffic-filter", Input).value.strip().casefold()
        if text != self._filter:
            self._filter = text
            self._rebuild(follow=False)

    @on(Select.Changed, "#server-select")
    def _server_selected(self, event: Select.Changed) -> None:
        value = event.value
        if (
            isinstance(value, int)
            and 0 <= value < len(self.connections)
            and self.connections[value] is not self._connection
        ):
            self._show_connection(self.connections[value])

    # ------------------------------------------------------------ stderr

    @on(TabbedContent.TabActivated, "#protocol-tabs")
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        timer = self._stderr_timer
        # Focus follows the tab: a focused widget in a hidden pane would switch the tab back.
        if event.pane.id == "stderr-pane":
            self._refresh_stderr()
            self.query_one("#stderr-log", RichLog).focus()
            if timer is not None:
                timer.resume()
        elif event.pane.id == "logs-pane":
            self.query_one("#logs-log", RichLog).focus()
            if timer is not None:
                timer.pause()
        else:
            if not self.query_one("#traffic-pane").has_focus_within:
                self._table().focus()
            if timer is not None:
                timer.pause()

    def _refresh_stderr(self) -> None:
        connection = self._connection
        total = connection.stderr.total_bytes if connection is not None else 0
        if total == self._stderr_seen:
            return
        self._stderr_seen = total
        log = self.query_one("#stderr-log", RichLog)
        log.clear()
        status = self.query_one("#stderr-status", Static)
        if connection is None or not total:
            status.update(Text("The server has written nothing to stderr.", style="dim"))
            return
        status.update(Text(f"{total:,} bytes written to stderr", style="dim"))
        log.write(plain(connection.stderr.text().rstrip("\n"), limit=None))

    # ------------------------------------------------------------ actions

    def action_close(self) -> None:
        self.dismiss(None)

    def action_focus_filter(self) -> None:
        self.query_one("#protocol-tabs", TabbedContent).active = "traffic-pane"
        self.query_one("#traffic-filter", Input).focus()
