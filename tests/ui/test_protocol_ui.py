"""The protocol features of a tool call in the TUI, driven by keyboard against real servers.

Tasks (f3, with a cancel key) against server-everything; a tool call whose
elicitation dialog stays open past its timeout, one the server never answers
afterwards, and one cancelled from its dialog, against the FastMCP test
server; 50,000 error logs from the log server with the event loop's largest
stall measured; URL elicitation required (-32042) through the consent dialog.
(The screens for a server are in test_server_screens.py.)
"""

from __future__ import annotations

import asyncio
import gc
import time
from typing import Any

from textual.widgets import Checkbox, DataTable, Input

from rea_tui.ui.app import ReaApp
from tests.host.test_protocol_features import flood_spec
from tests.host.test_tasks import everything_spec
from tests.host.test_waiting import fastmcp_spec
from tests.support.pilot import make_app, screen_text, wait_for
from tests.support.scenarios import (
    SIZE,
    approve,
    click,
    connected,
    fill_tool_form,
    open_tool,
    review,
    screen_named,
)

FLOOD_COUNT = 50_000
# The largest pause of the event loop allowed while 50,000 log messages arrive (a key press waits at most this).
MAX_STALL_SECONDS = 0.3
# A pause of the loop however little CPU it took (a blocking wait), with room for a loaded machine.
MAX_WALL_STALL_SECONDS = 1.0


def traffic_methods(app: ReaApp, server: str, direction: str = "out") -> list[str]:
    hosted = app.session.hosted(server)
    assert hosted is not None
    return [e.method for e in hosted.connection.traffic.entries() if e.direction == direction and e.method]


class StallMeter:
    """The event loop's largest pause, measured by a task that asks to wake every few milliseconds.

    `worst` counts a pause for the CPU time this process spent in it (all its threads: one holding the
    GIL stalls the loop too), up to the pause's length: on a loaded machine (CI runs other tests beside
    this one) waiting for a core is not the app stalling. `worst_wall` is the pause as it was, which
    also catches the loop waiting on something without using the CPU.
    """

    TICK = 0.005

    def __init__(self) -> None:
        self.worst = 0.0
        self.worst_wall = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        last, cpu = loop.time(), time.process_time()
        while True:
            await asyncio.sleep(self.TICK)
            now, used = loop.time(), time.process_time()
            pause = now - last - self.TICK
            self.worst = max(self.worst, min(pause, used - cpu))
            self.worst_wall = max(self.worst_wall, pause)
            last, cpu = now, used

    def __enter__(self) -> StallMeter:
        self._task = asyncio.ensure_future(self._run())
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()


async def test_fifty_thousand_error_logs_keep_the_ui_responsive() -> None:
    app = make_app([flood_spec()])
    shown: list[str] = []
    notify = app.notify

    def recording(message: str, **kwargs: Any) -> None:  # every toast, also those that expired since
        shown.append(message)
        notify(message, **kwargs)

    app.notify = recording  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await open_tool(pilot, "flood", "flood")
        await fill_tool_form(pilot, {"count": str(FLOOD_COUNT)})
        await review(pilot)
        # As in the app's own process, whose heap is settled at its first connection (runtime.settle_heap):
        # this test worker's heap also holds what earlier tests left, which full collections would scan.
        gc.collect()
        gc.freeze()
        with StallMeter() as meter:
            started = time.monotonic()
            entry = await approve(pilot)
            hosted = app.session.hosted("flood")
            assert hosted is not None
            await wait_for(pilot, lambda: hosted.connection.log.total == FLOOD_COUNT, "every log message", 60)
            elapsed = time.monotonic() - started
        gc.unfreeze()
        assert entry.outcome == "ok", entry.error
        await pilot.pause(2.5)  # the last coalesced toast
        toasts = [t for t in shown if "error message" in t or "more like this" in t]
        print(
            f"flood: {elapsed:.1f} s, worst stall {meter.worst * 1000:.0f} ms "
            f"({meter.worst_wall * 1000:.0f} ms of wall time), {len(toasts)} toasts"
        )
        assert meter.worst < MAX_STALL_SECONDS, f"the event loop stalled {meter.worst:.3f} s"
        assert meter.worst_wall < MAX_WALL_STALL_SECONDS, f"the event loop waited {meter.worst_wall:.3f} s"
        # A toast every two seconds at most; the messages in between are counted into it.
        assert 1 <= len(toasts) <= elapsed / 2 + 3, toasts
        assert toasts[0] == "error: error message 1 of 50000"
        counted = sum(int(t.split(" more like this")[0].replace(",", "")) for t in toasts if "more like this" in t)
        assert counted == FLOOD_COUNT - len([t for t in toasts if "more like this" not in t])
        assert hosted.connection.log.counts["error"] == FLOOD_COUNT


async def test_the_tasks_screen_lists_a_running_task_and_its_cancel_key_cancels_it() -> None:
    app = make_app([everything_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await open_tool(pilot, "simulate-research-query", "everything")
        await fill_tool_form(pilot, {"topic": "ui"})
        await review(pilot)
        await click(pilot, "#run-once")
        hosted = app.session.hosted("everything")
        assert hosted is not None
        board = hosted.connection.tasks
        await wait_for(pilot, lambda: bool(board.running), "the task to start")
        [task] = board.running
        await pilot.press("f3")
        screen = await screen_named(pilot, "TasksScreen")
        table = screen.query_one("#tasks-table", DataTable)
        await wait_for(pilot, lambda: table.row_count == 1, "the task's row")
        shown = screen_text(app)
        assert task.task_id in shown and "simulate-research-query" in shown and "working" in shown
        assert "E1" in shown
        await pilot.press("c")
        entry = app.session.ledger.entries[0]
        await wait_for(pilot, lambda: entry.finished, "the call to end", 15)
        assert entry.outcome == "cancelled" and "tasks/cancel" in entry.error
        assert "tasks/cancel" in traffic_methods(app, "everything")
        await wait_for(pilot, lambda: "cancelled" in screen_text(app), "the row to say cancelled")
        await pilot.press("escape")
        await screen_named(pilot, "MainScreen")


def fastmcp_app(**kwargs: Any) -> ReaApp:
    return make_app([fastmcp_spec()], **kwargs)


async def start_elicitation(pilot: Any, app: ReaApp, tool: str, timeout: str) -> Any:
    """Open `tool`, set its timeout, approve it, and wait for its elicitation dialog."""
    await open_tool(pilot, tool, "fastmcp")
    field = app.screen.query_one("#tool-timeout", Input)
    field.focus()
    field.value = ""
    await pilot.press(*timeout)
    await review(pilot)
    await click(pilot, "#run-once")
    return await screen_named(pilot, "ElicitationScreen")


def reason_field(app: ReaApp) -> Input:
    for field in app.screen.query(".schema-field"):
        if getattr(field, "key", None) == "reason":
            editor = field.query_one(".schema-input")
            assert isinstance(editor, Input)
            return editor
    raise AssertionError("the elicitation form has no reason field")


async def test_a_call_does_not_time_out_while_its_dialog_is_open() -> None:
    app = fastmcp_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await start_elicitation(pilot, app, "ask_reason", "0.5")
        entry = app.session.ledger.entries[0]
        await pilot.pause(1.5)  # three times the call's timeout, with the dialog open
        assert entry.outcome == "running"
        reason_field(app).focus()
        await pilot.press(*"audit")
        await click(pilot, "#accept")
        await wait_for(pilot, lambda: entry.finished, "the call to finish")
        assert entry.outcome == "ok", entry.error
        assert "reason: audit" in entry.text()
        assert entry.waited_ms >= 1_400 and entry.duration_ms is not None and entry.duration_ms < 500
        await wait_for(pilot, lambda: "waiting for you)" in screen_text(app), "the duration with the wait")


async def test_a_server_silent_after_the_dialog_times_the_call_out_then() -> None:
    app = fastmcp_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await start_elicitation(pilot, app, "ask_then_hang", "0.5")
        entry = app.session.ledger.entries[0]
        await pilot.pause(1.0)
        assert entry.outcome == "running"
        reason_field(app).focus()
        await pilot.press(*"then")
        closed = time.monotonic()
        await click(pilot, "#accept")
        await wait_for(pilot, lambda: entry.finished, "the call to time out", 10)
        assert entry.outcome == "timed_out" and "timed out after 0.5 s" in entry.error
        assert time.monotonic() - closed < 3


async def test_cancelling_a_call_closes_its_open_dialog() -> None:
    app = fastmcp_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await start_elicitation(pilot, app, "ask_reason", "30")
        entry = app.session.ledger.entries[0]
        await pilot.press("ctrl+b")
        await wait_for(pilot, lambda: entry.finished, "the call to be cancelled")
        assert entry.outcome == "cancelled"
        await screen_named(pilot, "MainScreen")
        assert "notifications/cancelled" in traffic_methods(app, "fastmcp")


async def test_url_elicitation_required_uses_the_url_consent_dialog_then_calls_again() -> None:
    app = make_app([everything_spec()])
    opened: list[str] = []
    app.open_url = lambda url, **_: opened.append(url)  # type: ignore[method-assign]  # no browser in a test
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await open_tool(pilot, "trigger-url-elicitation", "everything")
        await fill_tool_form(pilot, {"url": "https://example.com/pay"})
        [error_path] = [f for f in app.screen.query(".schema-field") if getattr(f, "key", None) == "errorPath"]
        box = error_path.query_one(".schema-input", Checkbox)
        box.focus()
        await pilot.press("space")  # errorPath: the server answers -32042 first
        assert box.value is True
        await review(pilot)
        await click(pilot, "#run-once")
        await screen_named(pilot, "ElicitationScreen")
        # The prerequisite from error.data, in full, before anything is opened.
        assert "https://modelcontextprotocol.io" in screen_text(app) and not opened
        await click(pilot, "#accept")
        # Sent again; this time the tool asks for its own URL through elicitation/create.
        await wait_for(pilot, lambda: "https://example.com/pay" in screen_text(app), "the retry's URL")
        await click(pilot, "#accept")
        entry = app.session.ledger.entries[0]
        await wait_for(pilot, lambda: entry.finished, "the call to finish")
        assert entry.outcome == "ok", entry.error
        assert opened == ["https://modelcontextprotocol.io", "https://example.com/pay"]
        assert traffic_methods(app, "everything").count("tools/call") == 2
