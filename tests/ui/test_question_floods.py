"""A server that floods the analyst with questions, or asks to open a hostile URL, through the real app.

The raw server's `askflood` mode sends 10,000 elicitation requests at once on
a tool call and answers the call with how many answers of each action it got;
its `urlelicit` mode asks to open the URL it is given.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from textual import events
from textual.message import Message
from textual.widgets import Button

from rea_tui.host import ServerSpec, read_transcript
from rea_tui.ui.app import ReaApp
from rea_tui.ui.screens.elicitation import ElicitationScreen
from tests.conftest import REPO, raw_spec
from tests.support.pilot import make_app, ready, screen_text, wait_for
from tests.support.scenarios import SIZE, click, review, screen_named

FLOOD = 10_000
# Declining all is shown on fewer: the flood's intake is what costs time, and the quit test has it.
DECLINED = 1_000
# How long the quit test waits for the app to end before it fails.
QUIT_BOUND_SECONDS = 300


def flood_spec(count: int = FLOOD) -> ServerSpec:
    return ServerSpec(
        name="flood",
        transport="stdio",
        command=sys.executable,
        args=("-m", "tests.support.raw_server", "askflood", str(count)),
        cwd=str(REPO),
        protocol="legacy",
    )


def queued(app: ReaApp) -> int:
    questions = app.main.servers.questions
    return questions.waiting if questions is not None else 0


async def flood_the_analyst(pilot: Any, app: ReaApp, count: int = FLOOD) -> ElicitationScreen:
    """Call the tool; wait for the first question's dialog, with every other one queued behind it."""
    await ready(pilot, app)
    app.main.calls.open("flood", "probe")
    await screen_named(pilot, "ToolFormScreen")
    await review(pilot)
    await click(pilot, "#run-once")
    dialog = await screen_named(pilot, "ElicitationScreen")
    await wait_for(pilot, lambda: queued(app) == count - 1, "every question queued", timeout=300)
    assert isinstance(dialog, ElicitationScreen)
    return dialog


async def test_quit_from_a_dialog_with_ten_thousand_questions_queued_shows_no_further_dialog() -> None:
    """And the app ends with the session's end recorded, its server stopped, and no question answered on the
    way out (the time it took is printed; benchmarks/quit_flood.py measures it in a terminal)."""
    shown_after_quit: list[str] = []
    quitting = False

    def hook(message: Message) -> None:
        # A dialog shown is a screen resumed: none may be, once quit was pressed.
        if quitting and isinstance(message, events.ScreenResume) and isinstance(message._sender, ElicitationScreen):
            shown_after_quit.append(message._sender.request.message)

    app = make_app([flood_spec()], timeout=300)
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        dialog = await flood_the_analyst(pilot, app)
        assert dialog.request.message == "question 0"
        hosted = app.session.hosted("flood")
        assert hosted is not None
        connection = hosted.connection
        server = connection._process.pid if connection._process is not None else None
        assert server is not None
        loop = asyncio.get_running_loop()
        started = loop.time()
        quitting = True
        await pilot.press("ctrl+q")
        # No timed assertion (a loaded machine): the count of dialogs shown after quit is the measure, and
        # the time it took is printed. The bound only keeps a quit that never ends from hanging the run.
        while app.return_code is None and loop.time() - started < QUIT_BOUND_SECONDS:
            await asyncio.sleep(0.01)
        took = loop.time() - started
        assert app.return_code == 0
        assert app.session.abandoned_closes  # the server was stopped, its SDK session not ended request by request
        assert not process_alive(server)
        # Nothing answered on the way out: no response to any of the questions was written to the server.
        answers = [
            e
            for e in connection.traffic.entries()
            if e.direction == "out" and e.kind in ("response", "error") and e.id.startswith("many-")
        ]
        assert answers == []
        # Nor ended one by one: the questions still wait as they did (the connection ends with them).
        assert queued(app) == FLOOD - 1
    assert shown_after_quit == []
    path = app.session.recorder.path
    assert path is not None
    recorded = [event["type"] for event in read_transcript(path).events]
    assert recorded[-1] == "session_end", recorded
    assert "tool_call" in recorded
    print(f"quit with {FLOOD - 1:,} questions queued: {took:.2f} s")


def process_alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


async def test_decline_all_answers_every_queued_question_with_decline() -> None:
    app = make_app([flood_spec(DECLINED)], timeout=300)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await flood_the_analyst(pilot, app, DECLINED)
        button = dialog.query_one("#decline-all", Button)
        await wait_for(pilot, lambda: str(button.label) == f"Decline all ({DECLINED - 1:,} queued)", "the count")
        assert f"{DECLINED - 1:,} more question(s) queued" in screen_text(app)
        await pilot.press("alt+a")
        await wait_for(
            pilot,
            lambda: bool(app.session.ledger.entries) and app.session.ledger.entries[-1].finished,
            "the call",
            timeout=120,
        )
        entry = app.session.ledger.entries[-1]
        assert entry.text() == f"{DECLINED} answers: {DECLINED} decline", (entry.outcome, entry.error)
        assert not any(isinstance(s, ElicitationScreen) for s in app.screen_stack)
        assert queued(app) == 0


LONG_USERINFO = "accounts.google.com" + "a" * 200_000


async def test_a_url_dialog_shows_host_and_warning_first_and_enter_declines(tmp_path: Path) -> None:
    url_file = tmp_path / "url.txt"
    url_file.write_text(f"https://{LONG_USERINFO}@evil.example/signin", encoding="utf-8")
    app = make_app([raw_spec("urlelicit", url=f"@{url_file}")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        app.main.calls.open("raw-urlelicit", "probe")
        await screen_named(pilot, "ToolFormScreen")
        await review(pilot)
        await click(pilot, "#run-once")
        dialog = await screen_named(pilot, "ElicitationScreen")
        assert isinstance(dialog, ElicitationScreen)
        await pilot.pause(0.2)
        # On screen (not below the fold): the real host, the warning and the buttons.
        shown = screen_text(app)
        assert "host  evil.example" in shown
        assert "the part before @ is not the host" in shown
        assert "Open in browser" in shown and "Decline" in shown
        lines = shown.splitlines()
        host_line = next(i for i, line in enumerate(lines) if "host  evil.example" in line)
        url_line = next(i for i, line in enumerate(lines) if "https://accounts.google.com" in line)
        assert host_line < url_line
        box = dialog.query_one("#elicitation-url-box")
        assert box.region.height <= 8  # the URL is in a bounded box: six lines and its border
        assert dialog.focused is dialog.query_one("#decline", Button)
        opened: list[str] = []
        app.open_url = lambda url, **kwargs: opened.append(url)  # type: ignore[method-assign]
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: bool(app.session.ledger.entries) and app.session.ledger.entries[-1].finished, "the call"
        )
        assert app.session.ledger.entries[-1].text() == "the client chose decline"
        assert opened == []
