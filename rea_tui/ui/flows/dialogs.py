"""Dialogs a flow waits on, and the route from a connection's elicitation and sampling requests to them."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

    from rea_tui.host import (
        Connection,
        ElicitationAnswer,
        ElicitationRequest,
        SamplingAnswer,
        SamplingRequest,
        SessionRecorder,
    )


async def ask(app: App[Any], screen: Screen[Any]) -> Any:
    """Push a dialog and wait for what it is dismissed with (from any task or worker).

    If the wait is cancelled (the call that asked was cancelled or timed out, or the server
    withdrew its request), the dialog closes: nobody is left to answer it for.
    """
    answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    def done(result: Any) -> None:
        if not answer.done():
            answer.set_result(result)

    app.push_screen(screen, callback=done)
    try:
        return await answer
    except asyncio.CancelledError:
        close(app, screen)
        raise


# While a closed dialog is under another one, how often to look whether it is on top (seconds).
CLOSE_RETRY_SECONDS = 0.2


def close(app: App[Any], screen: Screen[Any]) -> None:
    """Take a dialog off the screen stack: now if it is on top, else once it is."""
    if screen not in app.screen_stack:
        return
    if app.screen is screen:
        app.pop_screen()
        return

    def retry() -> None:
        if screen not in app.screen_stack:
            timer.stop()
        elif app.screen is screen:
            timer.stop()
            app.pop_screen()

    timer = app.set_interval(CLOSE_RETRY_SECONDS, retry)


class QuestionQueue:
    """Servers' questions (elicitation, sampling) take turns: one dialog at a time, however many arrive.

    A hundred requests at once would otherwise stack a hundred dialogs; the
    analyst answers them in order and is told how many are still waiting.
    """

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self._turn = asyncio.Lock()
        self.waiting = 0

    async def ask(self, screen: Callable[[], Screen[Any]], server: str) -> Any:
        from rea_tui.ui.text import notify_plain

        self.waiting += 1
        try:
            async with self._turn:
                self.waiting -= 1
                if self.waiting:
                    notify_plain(self.app, f"{self.waiting} more question(s) waiting after this one", title=server)
                return await ask(self.app, screen())
        finally:
            self.waiting = max(self.waiting, 0)


def install_interaction_handlers(
    queue: QuestionQueue,
    connection: Connection,
    recorder: SessionRecorder,
    prefill: Callable[[str], dict[str, Any] | None] | None = None,
) -> None:
    """`prefill(server)` may give the values to put in the next elicitation form (replays).

    The dialogs (and the schema machinery they import) load with the first question, not with each server.
    """

    async def elicit(request: ElicitationRequest) -> ElicitationAnswer:
        from rea_tui.ui.screens.elicitation import ElicitationScreen

        initial = prefill(request.server) if prefill is not None and request.mode == "form" else None
        answer: ElicitationAnswer = await queue.ask(lambda: ElicitationScreen(request, initial), request.server)
        recorder.elicitation(request, answer)
        return answer

    async def sample(request: SamplingRequest) -> SamplingAnswer:
        from rea_tui.ui.screens.elicitation import SamplingScreen

        answer: SamplingAnswer = await queue.ask(lambda: SamplingScreen(request), request.server)
        recorder.sampling(request, answer)
        return answer

    connection.elicitation_handler = elicit
    connection.sampling_handler = sample
