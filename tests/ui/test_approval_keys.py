"""The approval dialog by keyboard: it opens on the safe choice, and each choice has a one-letter key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Button

from rea_tui.host.records.replay_plan import plan_replay
from rea_tui.host.records.transcript import TranscriptWriter, read_transcript
from rea_tui.ui.app import ReaApp
from tests.conftest import sample_spec
from tests.support.pilot import make_app, screen_text, wait_for
from tests.support.scenarios import SIZE, click, connected, fill_tool_form, open_tool, review, screen_named

SAMPLE = "sample"


def calls_sent(app: ReaApp) -> int:
    hosted = app.session.hosted(SAMPLE)
    assert hosted is not None
    return len(hosted.connection.traffic.requests_sent("tools/call"))


async def ask(pilot: Pilot[Any], text: str) -> None:
    """The echo tool's form, filled and reviewed: the approval dialog is up."""
    await open_tool(pilot, "echo", SAMPLE)
    await fill_tool_form(pilot, {"text": text})
    await review(pilot)
    await pilot.pause()


async def back_on_main(pilot: Pilot[Any], app: ReaApp) -> None:
    await wait_for(pilot, lambda: app.screen is app.main, "the dialog to close")
    await wait_for(pilot, lambda: all(e.finished for e in app.session.ledger.entries), "the calls to finish")


async def test_the_dialog_opens_on_deny_and_shows_its_keys() -> None:
    app = make_app([sample_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await ask(pilot, "first")
        focused = app.screen.focused
        assert isinstance(focused, Button) and focused.id == "deny"
        shown = screen_text(app)
        for label in ("Run once  o", "Allow this tool for the session  a", "Deny  d"):
            assert label in shown, label
        # Enter stays on the safe choice: nothing is sent.
        await pilot.press("enter")
        await back_on_main(pilot, app)
        assert calls_sent(app) == 0 and app.session.ledger.entries == []


async def test_each_choice_by_its_key() -> None:
    app = make_app([sample_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        for key in ("escape", "d"):
            await ask(pilot, key)
            await pilot.press(key)
            await back_on_main(pilot, app)
            assert calls_sent(app) == 0, key

        await ask(pilot, "once")
        await pilot.press("o")
        await back_on_main(pilot, app)
        assert calls_sent(app) == 1
        assert app.session.ledger.entries[-1].approval == "approved once"
        assert app.session.ledger.entries[-1].arguments == {"text": "once"}

        # `a`: allowed for the session; the next call of the tool asks nothing.
        await ask(pilot, "allowed")
        await pilot.press("a")
        await back_on_main(pilot, app)
        assert calls_sent(app) == 2
        await open_tool(pilot, "echo", SAMPLE)
        await fill_tool_form(pilot, {"text": "again"})
        await click(pilot, "#review")
        await wait_for(pilot, lambda: calls_sent(app) == 3, "the allowed call")
        await back_on_main(pilot, app)
        assert [e.approval for e in app.session.ledger.entries] == [
            "approved once",
            "allowed for the session",
            "allowed for the session",
        ]


async def test_allow_is_no_key_where_it_is_not_offered() -> None:
    """`a` for a tool not declared read-only does nothing: the dialog stays, nothing is sent."""
    app = make_app([sample_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await open_tool(pilot, "crash", SAMPLE)
        await review(pilot)
        assert not app.screen.query("#allow-session")
        await pilot.press("a")
        await pilot.pause(0.2)
        assert type(app.screen).__name__ == "ApprovalScreen" and calls_sent(app) == 0
        await pilot.press("d")
        await screen_named(pilot, "MainScreen")
        assert calls_sent(app) == 0


async def test_an_online_replay_honours_allow_for_the_session(tmp_path: Path) -> None:
    """Four recorded calls of one tool: one approval, `a`, and the other three run without asking."""
    recording = tmp_path / "recorded.jsonl"
    writer = TranscriptWriter(recording)
    writer.write("session", version="t")
    texts = [f"call {n}" for n in range(1, 5)]
    for number, text in enumerate(texts, 1):
        writer.write(
            "tool_call",
            id=f"E{number}",
            ref=f"H{number}",
            server=SAMPLE,
            tool="echo",
            arguments={"text": text},
            outcome="ok",
            approval="approved once",
            content=[{"type": "text", "text": text}],
            structuredContent={"result": text},
        )
    writer.close()
    replayed = tmp_path / "replayed.jsonl"
    app = make_app([sample_spec()], replay=plan_replay(read_transcript(recording)), transcript=replayed)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await screen_named(pilot, "ApprovalScreen")
        await pilot.press("a")
        # No other dialog comes up: the replay runs the three other calls on its own.
        await wait_for(pilot, lambda: calls_sent(app) == len(texts), "the replayed calls")
        await back_on_main(pilot, app)
        assert [e.arguments["text"] for e in app.session.ledger.entries] == texts
        assert all(e.replay_diff is None for e in app.session.ledger.entries)
        await pilot.press("ctrl+q")
    decisions = [e["decision"] for e in read_transcript(replayed).of_type("approval")]
    assert decisions == ["session", *["allowed for the session"] * 3]
    assert decisions.count("session") == 1  # one approval asked for four calls
