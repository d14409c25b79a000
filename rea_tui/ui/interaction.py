"""Route a connection's elicitation and sampling requests to the app's dialogs."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from rea_tui.host.interaction import ElicitationAnswer, ElicitationRequest, SamplingAnswer, SamplingRequest

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

    from rea_tui.host.connection import Connection


async def ask(app: App[Any], screen: Screen[Any]) -> Any:
    """Push a dialog from outside a worker and wait for what it is dismissed with."""
    answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    def done(result: Any) -> None:
        if not answer.done():
            answer.set_result(result)

    app.push_screen(screen, callback=done)
    return await answer


def install_interaction_handlers(app: App[Any], connection: Connection) -> None:
    from rea_tui.ui.screens.elicitation import ElicitationScreen, SamplingScreen

    async def elicit(request: ElicitationRequest) -> ElicitationAnswer:
        answer = await ask(app, ElicitationScreen(request))
        recorder = getattr(app, "record_elicitation", None)
        if recorder is not None:
            recorder(request, answer)
        return answer  # type: ignore[no-any-return]

    async def sample(request: SamplingRequest) -> SamplingAnswer:
        return await ask(app, SamplingScreen(request))  # type: ignore[no-any-return]

    connection.elicitation_handler = elicit
    connection.sampling_handler = sample
