"""The one error route and the serialized server lifecycle, on the real app and real server processes.

A bug is injected where the host would otherwise never fail (monkeypatch makes a method raise); the
analyst must see it, and nothing may stay "connecting" or "running" for ever. Lifecycle checks read
process ids from the traffic log and ask the OS whether each one still runs.
"""

from __future__ import annotations

import os
import re
from typing import Any

import pytest

from rea_tui.host import HostedServer
from rea_tui.host.protocol.connection import Connection
from rea_tui.ui.screens.protocol_log import ProtocolLogScreen
from tests.support.pilot import make_app, ready, screen_text, sent, wait_for
from tests.support.scenarios import SERVER, SIZE, open_tool, reference_spec, review, screen_named

PID = re.compile(r"pid (\d+)")


def started_pids(app: Any, server: str = SERVER) -> list[int]:
    hosted = app.session.hosted(server)
    assert hosted is not None
    events = [e for e in hosted.connection.traffic.entries() if e.method == "process/started"]
    return [int(PID.search(e.payload).group(1)) for e in events]  # type: ignore[union-attr]


def running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped) has no /proc/PID/status "State: Z" worth keeping alive.
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as status:
            return "State:\tZ" not in status.read()
    except FileNotFoundError:
        return False


async def test_an_unexpected_error_while_connecting_is_shown_and_the_server_marked_failed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def broken_start(self: HostedServer, *, load_catalogs: bool = True) -> None:
        raise RuntimeError("injected: start broke")

    monkeypatch.setattr(HostedServer, "start", broken_start)
    app = make_app([reference_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session.state(SERVER).status == "failed", "the server marked failed")
        await wait_for(pilot, lambda: "unexpected error: RuntimeError" in screen_text(app), "the error on screen")
        assert app.failures and "injected: start broke" in app.failures[-1]
        assert "Press f5 to retry." in screen_text(app)


async def test_an_unexpected_error_in_a_tool_call_ends_its_entry_and_is_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app([reference_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)

        async def broken_request(self: Connection, *args: Any, **kwargs: Any) -> dict[str, Any]:
            raise RuntimeError("injected: the call broke")

        monkeypatch.setattr(Connection, "request_interactive", broken_request)
        await open_tool(pilot, "list_documents")
        await review(pilot)
        await pilot.click("#run-once")
        await wait_for(
            pilot, lambda: app.session.ledger.entries and app.session.ledger.entries[-1].finished, "the entry"
        )
        entry = app.session.ledger.entries[-1]
        assert entry.outcome == "failed" and "injected: the call broke" in entry.error
        await wait_for(pilot, lambda: "‼ failed" in screen_text(app), "the entry's badge")
        assert any("injected: the call broke" in failure for failure in app.failures)


async def test_a_double_f5_ends_with_one_process_ready_and_closing_leaves_no_orphan() -> None:
    app = make_app([reference_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        first = started_pids(app)
        assert len(first) == 1
        await pilot.press("f5", "f5")
        await wait_for(pilot, lambda: len(started_pids(app)) >= 2, "the reconnect")
        await wait_for(pilot, lambda: app.session.state(SERVER).status == "ready", "ready again")
        await pilot.pause(0.5)
        pids = started_pids(app)
        assert len(pids) == 2, f"one reconnect, not two: {pids}"
        assert not running(pids[0]) and running(pids[1])
        await app.action_quit()
    assert not any(running(pid) for pid in pids)


async def test_main_screen_keys_do_nothing_on_other_screens() -> None:
    """ctrl+r renders on the main screen only: on the protocol log it must not send prompts/get."""
    app = make_app([reference_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press("ctrl+l")
        screen = await screen_named(pilot, "ProtocolLogScreen")
        assert isinstance(screen, ProtocolLogScreen)
        before = sent(app, SERVER, "prompts/get")
        await pilot.press("ctrl+r", "f5")
        await pilot.pause(0.3)
        assert sent(app, SERVER, "prompts/get") == before
        assert len(started_pids(app)) == 1
