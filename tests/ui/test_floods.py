"""Floods and faults from a server: the screen stays responsive, nothing is lost, the analyst is told."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from rea_tui.host import ServerSpec
from rea_tui.ui.screens.protocol_log import ProtocolLogScreen
from tests.conftest import REPO, raw_spec
from tests.support.pilot import make_app, ready, sent, wait_for
from tests.support.scenarios import SIZE, screen_named

# However many list changes or bad lines arrive, a few toasts and refreshes per second at most.
MAX_REFRESHES = 12
MAX_TOASTS = 6


def toasts(app: object) -> int:
    return len(app._notifications)  # type: ignore[attr-defined]


async def test_a_list_changed_storm_costs_a_few_refreshes() -> None:
    app = make_app([raw_spec("storm")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await wait_for(pilot, lambda: sent(app, "raw-storm", "prompts/list") >= 2, "a refresh")
        await pilot.pause(2.5)
        assert sent(app, "raw-storm", "prompts/list") <= MAX_REFRESHES
        assert app.session.state("raw-storm").status == "ready"


async def test_a_flood_of_bad_output_is_a_few_toasts_and_the_connection_goes_on() -> None:
    app = make_app([raw_spec("garbageflood")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        hosted = app.session.hosted("raw-garbageflood")
        assert hosted is not None
        await wait_for(pilot, lambda: len(hosted.connection.traffic) > 4_000, "the garbage")
        await pilot.pause(0.5)
        assert 1 <= toasts(app) <= MAX_TOASTS
        assert await hosted.connection.request("ping") == {}


async def test_a_message_nested_too_deeply_is_dropped_and_the_server_still_answers() -> None:
    app = make_app([raw_spec("deep")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        hosted = app.session.hosted("raw-deep")
        assert hosted is not None
        entry = app.session.ledger.open("raw-deep", "probe", {}, "test")
        try:
            await hosted.connection.request("tools/call", {"name": "probe", "arguments": {}}, timeout=2)
        except Exception as exc:  # the reply was dropped: the request times out, the connection lives
            assert "timed out" in str(exc)
        assert await hosted.connection.request("ping") == {}
        assert any("nested too deeply" in e.payload for e in hosted.connection.traffic.entries())
        assert entry is not None


async def test_a_hundred_questions_at_once_come_one_dialog_at_a_time() -> None:
    # A generous call timeout: answering a hundred dialogs takes a while.
    app = make_app([raw_spec("askmany")], timeout=300)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        app.main.calls.open("raw-askmany", "probe")
        await screen_named(pilot, "ToolFormScreen")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: bool(app.screen.query("#run-once")), "the approval")
        app.screen.query_one("#run-once").press()  # type: ignore[attr-defined]
        for _ in range(100):
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ElicitationScreen", "a question")
            stacked = sum(type(s).__name__ == "ElicitationScreen" for s in app.screen_stack)
            assert stacked == 1
            await pilot.press("escape")
        await wait_for(pilot, lambda: app.session.ledger.entries[-1].finished, "the call")
        entry = app.session.ledger.entries[-1]
        assert entry.text() == "100 answers", (entry.outcome, entry.error)


async def test_a_secret_the_server_echoes_is_redacted_in_stderr_and_errors() -> None:
    secret = "s3cr3t-token-value"
    base = raw_spec("echosecret")
    spec = ServerSpec(**{**base.__dict__, "env": {"API_TOKEN": secret}})
    app = make_app([spec])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        hosted = app.session.hosted("raw-echosecret")
        assert hosted is not None
        await wait_for(pilot, lambda: "using token" in hosted.connection.stderr.text(), "stderr")
        assert secret not in hosted.connection.stderr.text()
        try:
            await hosted.connection.request("tools/call", {"name": "probe", "arguments": {}})
        except Exception as exc:
            assert secret not in str(exc) and "refused" in str(exc)
        else:
            raise AssertionError("the call should have failed")
        await pilot.press("ctrl+l")
        screen = await screen_named(pilot, "ProtocolLogScreen")
        assert isinstance(screen, ProtocolLogScreen)


def test_sigterm_leaves_the_orderly_way_and_records_the_session_end(tmp_path: Path) -> None:
    path = tmp_path / "ended.jsonl"
    script = f"""
import asyncio, os, signal, sys
from pathlib import Path
from tests.support.pilot import make_app
from rea_tui.host import ServerSpec
spec = ServerSpec(name="rea", transport="stdio", command=sys.executable,
                  args=("-m", "rea_tui.server", "--synthetic", "200"))
async def main():
    app = make_app([spec], transcript=Path({str(path)!r}))
    async with app.run_test() as pilot:
        while app.session.state("rea").status != "ready":
            await pilot.pause(0.05)
        app.session.notebook.add("observation", "before the signal")
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(200):
            if app.return_code is not None:
                print("quit with", app.return_code, flush=True)
                break
            await asyncio.sleep(0.05)
asyncio.run(main())
"""
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, timeout=60, env=os.environ.copy()
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "quit with 0" in result.stdout, result.stdout
    events = [json.loads(line)["type"] for line in path.read_text(encoding="utf-8").splitlines()]
    assert events[-1] == "session_end" and "note" in events
    assert signal.SIGTERM  # the signal the script sent itself


async def test_a_thousand_entries_at_once_are_listed_in_one_go_with_the_newest_shown() -> None:
    """As an offline replay restores a ledger: 2,000 changes, a handful of messages, nothing lost."""
    from textual.message import Message

    from rea_tui.host import TextBlock
    from rea_tui.ui.messages import LedgerChanged
    from rea_tui.ui.widgets.entry_list import EntryList
    from rea_tui.ui.widgets.evidence_pane import EvidenceDetail

    ledger_messages: list[Message] = []

    def hook(message: Message) -> None:
        if isinstance(message, LedgerChanged):
            ledger_messages.append(message)

    app = make_app([], transcript=None)
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        ledger = app.session.ledger
        for number in range(1, 1001):
            entry = ledger.open("rea", "inspect_procedure", {"procedure": f"proc_{number}"}, "interactive yes")
            entry.outcome, entry.content = "ok", [TextBlock(f"result {number}")]
            ledger.changed(entry)
        entries, detail = app.query_one(EntryList), app.query_one(EvidenceDetail)
        await wait_for(pilot, lambda: detail.entry is ledger.entries[-1], "the newest entry shown")
        assert entries.entry_count == 1000 and entries.highlighted == 999
        assert len(ledger_messages) <= 2, "one message stands for the burst"
        # Later changes still come through: an entry that changed, then one more call.
        ledger.entries[10].outcome = "tool_error"
        ledger.changed(ledger.entries[10])
        await pilot.pause()
        assert "✗ isError" in str(entries.line_at(10))
        newest = ledger.open("rea", "doctor", {}, "interactive yes")
        await wait_for(pilot, lambda: detail.entry is newest, "one more call shown")
        assert entries.entry_count == 1001 and entries.highlighted == 1000
