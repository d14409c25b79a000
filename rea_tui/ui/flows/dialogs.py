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


def install_interaction_handlers(
    app: App[Any],
    connection: Connection,
    recorder: SessionRecorder,
    prefill: Callable[[str], dict[str, Any] | None] | None = None,
) -> None:
    """`prefill(server)` may give the values to put in the next elicitation form (replays)."""
    from rea_tui.ui.screens.elicitation import ElicitationScreen, SamplingScreen

    async def elicit(request: ElicitationRequest) -> ElicitationAnswer:
        initial = prefill(request.server) if prefill is not None and request.mode == "form" else None
        answer: ElicitationAnswer = await ask(app, ElicitationScreen(request, initial))
        recorder.elicitation(request, answer)
        return answer

    async def sample(request: SamplingRequest) -> SamplingAnswer:
        answer: SamplingAnswer = await ask(app, SamplingScreen(request))
        recorder.sampling(request, answer)
        return answer

    connection.elicitation_handler = elicit
    connection.sampling_handler = sample
