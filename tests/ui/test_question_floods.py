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

from rea_tui.host import ServerSpec
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
    assert shown_after_quit == []
    print(f"quit with {FLOOD - 1:,} questions queued: {took:.2f} s")


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
