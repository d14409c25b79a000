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
    """Push a dialog and wait for what it is dismissed with (from any task or worker)."""
    answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    def done(result: Any) -> None:
        if not answer.done():
            answer.set_result(result)

    app.push_screen(screen, callback=done)
    return await answer


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
