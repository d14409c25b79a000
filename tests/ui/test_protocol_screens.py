"""The protocol log and completion inspector screens, driven against real servers.

Every test talks to a real server process (the sample server, or the raw
misbehaving one); the snapshot tests replay traffic recorded from a real
server into a connection that is never started, so the picture is the same on
every run and every machine.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any

import pytest
from rich.console import Console
from rich.segment import Segment
from rich.text import Text
from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import DataTable, RichLog, Select, Static, TabbedContent

from rea_tui.host.features.completion import (
    CompletionFailure,
    CompletionFeed,
    CompletionLog,
    CompletionPage,
    CompletionRef,
)
from rea_tui.host.protocol.connection import Connection
from rea_tui.host.protocol.errors import ServerExited
from rea_tui.host.transports.traffic import TrafficLog
from rea_tui.ui.screens.completion_inspector import CompletionInspectorScreen
from rea_tui.ui.screens.protocol_log import TABLE_ROWS, TABLE_SLACK, ProtocolLogScreen
from rea_tui.ui.settings import AppSettings
from tests.conftest import REPO, raw_spec, sample_spec
from tests.support.pilot import snapshot_settings

SIZE = (140, 40)
INVESTIGATE = CompletionRef("prompt", "investigate")
ODD = CompletionRef("prompt", "odd")


class ScreenHarness(App[None]):
    """The smallest app that shows one screen."""

    def __init__(self, make_screen: Callable[[], Screen[None]], settings: AppSettings | None = None) -> None:
        super().__init__()
        self._make_screen = make_screen
        self.settings = settings or AppSettings()

    def on_mount(self) -> None:
        self.push_screen(self._make_screen())


@pytest.fixture
async def sample() -> AsyncIterator[Connection]:
    connection = Connection(sample_spec("legacy"))
    await connection.start()
    try:
        yield connection
    finally:
        await connection.close()


# ---------------------------------------------------------------- helpers


def rows(table: DataTable[Any]) -> list[list[str]]:
    return [[cell.plain for cell in table.get_row_at(index)] for index in range(table.row_count)]


def cursor_key(table: DataTable[Any]) -> str | None:
    return table.ordered_rows[table.cursor_row].key.value if table.row_count else None


def static_text(screen: Screen[None], selector: str) -> str:
    content = screen.query_one(selector, Static).content
    return content.plain if isinstance(content, Text) else str(content)


def rendered_segments(app: App[None]) -> list[Segment]:
    """What the app would write to the terminal for the current screen, as Rich segments."""
    console = Console(width=SIZE[0], height=SIZE[1], force_terminal=True, color_system="truecolor")
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    return list(console.render(update))


def assert_terminal_safe(app: App[None], *, export: bool = True) -> None:
    """No control character and no hyperlink in what the screen writes, nor in its SVG export."""
    for segment in rendered_segments(app):
        if segment.control:  # the compositor's own cursor moves
            continue
        assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", segment.text), repr(segment.text)
        assert segment.style is None or not segment.style.link, segment
    if not export:
        return
    svg = app.export_screenshot()
    assert "\x1b" not in svg and "\x07" not in svg
    assert "evil.example" not in "".join(re.findall(r"<a [^>]*>", svg))


async def wait_for(pilot: Pilot[None], condition: Callable[[], bool], timeout: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "condition not met in time"
        await pilot.pause(0.05)


# ---------------------------------------------------------------- protocol log


async def test_traffic_rows_match_the_log_and_the_filter_narrows_them(sample: Connection) -> None:
    await sample.request("prompts/list")
    await CompletionFeed(sample).complete(INVESTIGATE, "procedure", "re", {"document": "Helper"})
    entries = sample.traffic.entries()
    app = ScreenHarness(lambda: ProtocolLogScreen([sample]))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ProtocolLogScreen)
        assert screen.title == "Protocol log" and screen.sub_title.startswith("sample")
        assert not screen.query("#server-select")  # one server: no picker
        table: DataTable[Any] = screen.query_one("#traffic-table", DataTable)
        shown = rows(table)
        assert len(shown) == len(entries)
        arrows = {"out": "→ out", "in": "← in", "info": "• info"}
        for row, entry in zip(shown, entries, strict=True):
            when, direction, kind, method, msg_id, latency, size = row
            assert re.fullmatch(r"\d\d:\d\d:\d\d\.\d{3}", when)
            assert (direction, kind, method, msg_id, size) == (
                arrows[entry.direction],
                entry.kind,
                entry.method,
                entry.id,
                f"{entry.size:,}",
            )
            assert latency == ("" if entry.latency_ms is None else f"{entry.latency_ms:.1f}")
        assert any(row[5] for row in shown)  # responses carry a latency
        # The cursor starts on the newest message and the detail pane shows it.
        assert table.has_focus and table.cursor_row == len(entries) - 1
        assert '"values": [' in static_text(screen, "#traffic-detail-text")

        await pilot.press("slash")
        assert screen.query_one("#traffic-filter").has_focus
        await pilot.press(*"PROMPTS")
        # The filter applies once typing pauses (or on enter).
        await wait_for(pilot, lambda: table.row_count == 2)
        assert [(row[2], row[3]) for row in rows(table)] == [
            ("request", "prompts/list"),
            ("response", "prompts/list"),
        ]
        assert static_text(screen, "#traffic-count") == f"2 of {len(entries)} messages"
        await pilot.press("enter", "up")
        assert table.has_focus and table.cursor_row == 0
        detail = static_text(screen, "#traffic-detail-text")
        assert '"method": "prompts/list"' in detail and "→ out  request  prompts/list" in detail
        selected = cursor_key(table)

        # Clearing the filter brings every row back and keeps the selected message selected.
        await pilot.press("slash", *["backspace"] * 7, "enter")
        assert len(rows(table)) == len(entries)
        assert cursor_key(table) == selected
        await pilot.press("slash", *"zz", "enter")
        assert table.row_count == 0
        assert static_text(screen, "#traffic-detail-text") == "No message matches the filter."
        await pilot.press("escape")
        assert not isinstance(app.screen, ProtocolLogScreen)


async def test_new_traffic_appears_live_and_the_cursor_follows_only_from_the_last_row(
    sample: Connection,
) -> None:
    app = ScreenHarness(lambda: ProtocolLogScreen([sample]))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        table: DataTable[Any] = screen.query_one("#traffic-table", DataTable)
        before = table.row_count
        await sample.request("ping")
        await pilot.pause()
        assert [row[3] for row in rows(table)[before:]] == ["ping", "ping"]
        assert table.cursor_row == table.row_count - 1  # it was on the last row: it follows
        assert "← in  response  ping" in static_text(screen, "#traffic-detail-text")

        await pilot.press("ctrl+home")
        assert table.cursor_row == 0
        selected = static_text(screen, "#traffic-detail-text")
        await sample.request("tools/list")
        await pilot.pause()
        assert rows(table)[-1][2:4] == ["response", "tools/list"]
        assert table.cursor_row == 0 and static_text(screen, "#traffic-detail-text") == selected

        # With a filter on, only matching new messages are added.
        await pilot.press("f", *"ping", "enter")
        assert table.row_count == 2
        await sample.request("tools/list")
        await sample.request("ping")
        await pilot.pause()
        assert [row[3] for row in rows(table)] == ["ping"] * 4
        assert len(sample.traffic.listeners) == 1
        await pilot.press("escape")
        await pilot.pause()
    # Closing the screen unsubscribed it from the traffic log.
    assert len(sample.traffic.listeners) == 0


async def test_a_long_log_lists_the_newest_messages_and_stays_bounded() -> None:
    connection = Connection(sample_spec("legacy"))  # never started: its log is filled directly
    log = connection.traffic

    def exchange(count: int) -> None:
        for _ in range(count):
            request_id = log._seq
            log.record_message("out", {"jsonrpc": "2.0", "id": request_id, "method": "ping"})
            log.record_message("in", {"jsonrpc": "2.0", "id": request_id, "result": {}})

    exchange(650)
    app = ScreenHarness(lambda: ProtocolLogScreen([connection]))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        table: DataTable[Any] = screen.query_one("#traffic-table", DataTable)
        assert table.row_count == TABLE_ROWS
        assert cursor_key(table) == str(log.entries()[-1].seq)
        assert static_text(screen, "#traffic-count") == "1,300 messages, newest 1,000 listed"
        exchange(TABLE_SLACK // 2 + 1)  # past the slack: the table is rebuilt from the log
        await pilot.pause()
        assert table.row_count == TABLE_ROWS
        assert cursor_key(table) == str(log.entries()[-1].seq)
        assert [row.key.value for row in table.ordered_rows] == [str(e.seq) for e in log.entries()[-TABLE_ROWS:]]


async def test_stderr_tab_shows_what_the_server_wrote_before_it_crashed() -> None:
    connection = Connection(sample_spec("legacy"))
    await connection.start()
    try:
        app = ScreenHarness(lambda: ProtocolLogScreen([connection]))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            screen = app.screen
            screen.query_one("#protocol-tabs", TabbedContent).active = "stderr-pane"
            await pilot.pause()
            log = screen.query_one("#stderr-log", RichLog)

            def stderr_shown() -> str:
                return "\n".join(strip.text for strip in log.lines)

            assert "crashing on purpose" not in stderr_shown()
            with pytest.raises(ServerExited):
                await connection.request("tools/call", {"name": "crash", "arguments": {"code": 3}})
            # No event tells the screen: the once-a-second refresh picks it up.
            await wait_for(pilot, lambda: "crashing on purpose" in stderr_shown(), timeout=3.0)
            assert "sample-server: crashing on purpose with code 3" in stderr_shown()
            assert "bytes written to stderr" in static_text(screen, "#stderr-status")
            # The traffic tab recorded the exit live.
            screen.query_one("#protocol-tabs", TabbedContent).active = "traffic-pane"
            await pilot.pause()
            table: DataTable[Any] = screen.query_one("#traffic-table", DataTable)
            assert rows(table)[-1][2:4] == ["event", "process/exited"]
    finally:
        await connection.close()


async def test_hostile_servers_text_never_reaches_the_terminal() -> None:
    raw = Connection(raw_spec("hostile"))
    sample = Connection(sample_spec("legacy", hostile=True, name="sample-hostile"))
    await asyncio.gather(raw.start(), sample.start())
    try:
        await raw.request("prompts/list")
        await raw.request("tools/call", {"name": "probe", "arguments": {"x": "1"}})
        await CompletionFeed(raw).complete(ODD, "thing", "a")
        await sample.request("prompts/list")
        await sample.request("tools/call", {"name": "echo", "arguments": {"text": "hi"}})
        await CompletionFeed(sample).complete(INVESTIGATE, "feature", "f")
        assert any("\\u001b" in e.payload for e in raw.traffic.entries())
        app = ScreenHarness(lambda: ProtocolLogScreen([raw, sample]))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            screen = app.screen
            table: DataTable[Any] = screen.query_one("#traffic-table", DataTable)
            select: Select[int] = screen.query_one("#server-select", Select)
            for index, connection in enumerate((raw, sample)):
                select.value = index
                await pilot.pause()
                assert screen.sub_title.startswith(connection.name)
                assert table.row_count == len(connection.traffic)
                # Every message, selected in turn, renders without a control character or a link.
                for row in range(table.row_count):
                    table.move_cursor(row=row)
                    await pilot.pause()
                    detail = static_text(screen, "#traffic-detail-text")
                    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", detail)
                    assert_terminal_safe(app, export=False)
                assert_terminal_safe(app)
                # The payloads are shown (escaped as JSON), not swallowed.
                table.move_cursor(row=[r[3] for r in rows(table)].index("prompts/list") + 1)
                await pilot.pause()
                assert "[red]" in static_text(screen, "#traffic-detail-text")
                assert "evil.example" in static_text(screen, "#traffic-detail-text")
    finally:
        await asyncio.gather(raw.close(), sample.close())


# ---------------------------------------------------------------- completion inspector


async def test_inspector_rows_follow_outcomes_and_update_in_place(sample: Connection) -> None:
    feed = CompletionFeed(sample)
    delivered: list[CompletionPage | CompletionFailure] = []
    app = ScreenHarness(lambda: CompletionInspectorScreen(feed.log))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        table: DataTable[Any] = screen.query_one("#completion-table", DataTable)
        assert table.row_count == 0 and screen.title == "Completion inspector"
        assert "No completion requests yet" in static_text(screen, "#completion-detail-text")

        # "slow" makes the server sleep 2 s: the row is there, pending, while it is in flight.
        feed.submit(INVESTIGATE, "feature", "slow", {"document": "Notes"}, delivered.append)
        await wait_for(pilot, lambda: table.row_count == 1)
        assert rows(table)[0][1:3] == ["feature", "slow"] and rows(table)[0][8] == "pending"
        assert rows(table)[0][3] == "document=Notes"
        assert screen.sub_title == "1 request, 1 in flight"
        # The next value for the same field cancels it; its row changes in place.
        feed.submit(INVESTIGATE, "feature", "fast", {"document": "Notes"}, delivered.append)
        await feed.settle()
        await pilot.pause()
        assert [row.key.value for row in table.ordered_rows] == ["1", "2"]
        assert [row[8] for row in rows(table)] == ["cancelled", "shown"]
        assert rows(table)[1][4:7] == ["0", "0", "false"]
        assert re.fullmatch(r"\d+\.\d", rows(table)[1][7])

        await feed.complete(INVESTIGATE, "procedure", "", {"document": "Helper"})
        await feed.complete(INVESTIGATE, "procedure", "search_", {"document": "libsearch"})
        await pilot.pause()
        assert [row.key.value for row in table.ordered_rows] == [str(r.seq) for r in feed.log.records]
        helper, libsearch = rows(table)[2:]
        assert helper[1:9] == [
            "procedure",
            "(empty)",
            "document=Helper",
            "3",
            "3",
            "false",
            helper[7],
            "shown",
        ]
        assert libsearch[4:7] == ["100", "250", "true"]
        # The cursor followed the newest row; the detail shows that record in full.
        assert table.cursor_row == 3
        detail = static_text(screen, "#completion-detail-text")
        assert '"document": "libsearch"' in detail and "100 received, total 250, hasMore true" in detail
        await pilot.press("ctrl+home")
        detail = static_text(screen, "#completion-detail-text")
        assert "value     slow" in detail and "outcome   cancelled" in detail
        assert screen.sub_title == "4 requests"
        await pilot.press("escape")
        assert not isinstance(app.screen, CompletionInspectorScreen)


async def test_inspector_shows_lint_warnings_and_errors_from_broken_servers() -> None:
    log = CompletionLog()
    lint = Connection(raw_spec("lint"))
    garbage = Connection(raw_spec("garbage"))
    await asyncio.gather(lint.start(), garbage.start())
    try:
        app = ScreenHarness(lambda: CompletionInspectorScreen(log))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            screen = app.screen
            table: DataTable[Any] = screen.query_one("#completion-table", DataTable)
            page = await CompletionFeed(lint, log).complete(ODD, "thing", "a")
            # A hostile value typed or picked by the analyst is shown sanitized too.
            hostile_value = "b\x1b]8;;http://evil.example\x07x\x1b]8;;\x07"
            await CompletionFeed(lint, log).complete(ODD, "thing", hostile_value)
            with pytest.raises(Exception, match="not a list"):
                await CompletionFeed(garbage, log).complete(ODD, "thing", "a")
            await pilot.pause()
            first, second, third = rows(table)
            assert first[8] == "shown" and first[9] == "; ".join(page.warnings)
            assert "duplicate values" in first[9]
            assert second[2] == "bx"
            assert third[8] == "error" and "completion.values is not a list" in third[9]
            table.move_cursor(row=0)
            await pilot.pause()
            detail = static_text(screen, "#completion-detail-text")
            for warning in page.warnings:
                assert f"  - {warning}\n" in detail + "\n"
            table.move_cursor(row=2)
            await pilot.pause()
            assert "completion.values is not a list" in static_text(screen, "#completion-detail-text")
            assert_terminal_safe(app)
    finally:
        await asyncio.gather(lint.close(), garbage.close())


# ---------------------------------------------------------------- snapshots


def _normalise(detail: str) -> str:
    """Event details name the interpreter, the checkout and a pid: make them the same everywhere."""
    detail = detail.replace(sys.executable, "python").replace(str(REPO), "<repo>")
    return re.sub(r"pid \d+", "pid 4242", detail)


def _replay(source: Iterable[Any], into: TrafficLog) -> None:
    for entry in source:
        if entry.kind == "event":
            into.record_event(entry.method, _normalise(entry.payload))
        elif entry.kind == "garbage":
            into.record_garbage(entry.direction, entry.payload)
        else:
            into.record_message(entry.direction, json.loads(entry.payload), size=entry.size)


def recorded_sample_connection() -> Connection:
    """A connection (never started) holding traffic recorded from the real sample server."""

    async def record() -> Connection:
        live = Connection(sample_spec("legacy"))
        await live.start()
        try:
            await live.request("prompts/list")
            await CompletionFeed(live).complete(INVESTIGATE, "procedure", "re", {"document": "Helper"})
            await live.request("tools/call", {"name": "echo", "arguments": {"text": "hello"}})
        finally:
            await live.close()
        return live

    live = asyncio.run(record())
    replayed = Connection(sample_spec("legacy"))
    replayed.protocol_version = live.protocol_version
    _replay(live.traffic.entries(), replayed.traffic)
    return replayed


def recorded_completion_log() -> CompletionLog:
    """Completion records from real servers: shown, cancelled, with warnings, and an error."""

    async def record() -> CompletionLog:
        log = CompletionLog()
        sample = Connection(sample_spec("legacy"))
        lint = Connection(raw_spec("lint"))
        garbage = Connection(raw_spec("garbage"))
        await asyncio.gather(sample.start(), lint.start(), garbage.start())
        try:
            feed = CompletionFeed(sample, log)
            await feed.complete(INVESTIGATE, "document", "")
            await feed.complete(INVESTIGATE, "procedure", "", {"document": "Helper"})
            await feed.complete(INVESTIGATE, "procedure", "search_", {"document": "libsearch"})
            feed.submit(INVESTIGATE, "feature", "slow", {"document": "Notes"}, lambda _: None)
            await asyncio.sleep(0.1)
            feed.submit(INVESTIGATE, "feature", "fast", {"document": "Notes"}, lambda _: None)
            await feed.settle()
            await CompletionFeed(lint, log).complete(ODD, "thing", "a")
            with pytest.raises(Exception, match="not a list"):
                await CompletionFeed(garbage, log).complete(ODD, "thing", "a")
        finally:
            await asyncio.gather(sample.close(), lint.close(), garbage.close())
        return log

    return asyncio.run(record())


def test_protocol_log_snapshot(snap_compare: Any) -> None:
    connection = recorded_sample_connection()
    app = ScreenHarness(lambda: ProtocolLogScreen([connection]), snapshot_settings())

    async def select_prompts_list_response(pilot: Pilot[None]) -> None:
        await pilot.pause()
        table: DataTable[Any] = app.screen.query_one("#traffic-table", DataTable)
        table.move_cursor(row=[row[3] for row in rows(table)].index("prompts/list") + 1)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=select_prompts_list_response)


def test_completion_inspector_snapshot(snap_compare: Any) -> None:
    log = recorded_completion_log()
    app = ScreenHarness(lambda: CompletionInspectorScreen(log), snapshot_settings())

    async def select_the_lint_row(pilot: Pilot[None]) -> None:
        await pilot.pause()
        table: DataTable[Any] = app.screen.query_one("#completion-table", DataTable)
        table.move_cursor(row=5)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=select_the_lint_row)
