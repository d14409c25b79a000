"""Dialogs a flow waits on, and the route from a connection's elicitation and sampling requests to them."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
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


class Turns:
    """One holder at a time, first come first served, where a waiter that gives up leaves in O(1).

    asyncio.Lock removes a cancelled waiter with a scan of its deque, and the SDK cancels a
    connection's requests in no particular order when it closes: with 10,000 questions waiting that
    was quadratic, seconds of the quit (0.38 s of scans for 3,000 under cProfile, 4 s expected for 10,000).
    """

    def __init__(self) -> None:
        self._held = False
        self._number = 0
        self._waiters: OrderedDict[int, asyncio.Future[None]] = OrderedDict()

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        if self._held or self._waiters:
            self._number += 1
            number = self._number
            given: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters[number] = given
            try:
                await given
            except asyncio.CancelledError:
                self._waiters.pop(number, None)
                if given.done() and not given.cancelled():
                    self._pass_on()  # handed the turn as it was cancelled: the next one takes it
                raise
        else:
            self._held = True
        try:
            yield
        finally:
            self._pass_on()

    def _pass_on(self) -> None:
        while self._waiters:
            _, waiter = self._waiters.popitem(last=False)
            if not waiter.done():
                waiter.set_result(None)  # the turn is handed over: still held
                return
        self._held = False


class QuestionQueue:
    """Servers' questions (elicitation, sampling) take turns: one dialog at a time, however many arrive.

    A hundred requests at once would otherwise stack a hundred dialogs; the
    analyst answers them in order, sees how many are still waiting, and may
    decline them all at once (`decline_all`: each waiting request gets its own
    decline answer, and no dialog is shown for it). Once the app is leaving
    (`close`), no further dialog is shown: every waiting request is declined.
    """

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self._turns = Turns()
        # Requests waiting for their turn (not the one on screen).
        self.waiting = 0
        # Each request is numbered as it comes; those numbered up to `_declined_through` get their decline.
        self._asked = 0
        self._declined_through = 0
        self.closed = False

    def decline_all(self) -> int:
        """Decline every request waiting now (the dialog on screen answers its own); how many that was."""
        self._declined_through = self._asked
        return self.waiting

    def close(self) -> None:
        """The app is leaving: no more dialogs. Nothing is answered: the requests end with their connections
        (answering ten thousand on the way out took minutes)."""
        self.closed = True

    async def ask(self, screen: Callable[[], Screen[Any]], server: str, declined: Any) -> Any:
        """Show the dialog `screen()` makes when its turn comes and wait for its answer; `declined` is the
        answer given without a dialog once the analyst declined all (or the app is leaving)."""
        from rea_tui.ui.text import notify_plain

        self._asked += 1
        number = self._asked
        self.waiting += 1
        queued = True
        try:
            async with self._turns.turn():
                self.waiting -= 1
                queued = False
                if self.closed or number <= self._declined_through:
                    return declined
                if self.waiting:
                    notify_plain(self.app, f"{self.waiting} more question(s) waiting after this one", title=server)
                return await ask(self.app, screen())
        finally:
            if queued:  # cancelled while it waited for its turn
                self.waiting -= 1


def install_interaction_handlers(
    queue: QuestionQueue,
    connection: Connection,
    recorder: SessionRecorder,
    prefill: Callable[[str], dict[str, Any] | None] | None = None,
) -> None:
    """`prefill(server)` may give the values to put in the next elicitation form (replays).

    The dialogs (and the schema machinery they import) load with the first question, not with each server.
    """

    from rea_tui.host import ElicitationAnswer, SamplingAnswer

    async def elicit(request: ElicitationRequest) -> ElicitationAnswer:
        from rea_tui.ui.screens.elicitation import ElicitationScreen

        initial = prefill(request.server) if prefill is not None and request.mode == "form" else None
        answer: ElicitationAnswer = await queue.ask(
            lambda: ElicitationScreen(request, initial, queue=queue), request.server, ElicitationAnswer("decline")
        )
        recorder.elicitation(request, answer)
        return answer

    async def sample(request: SamplingRequest) -> SamplingAnswer:
        from rea_tui.ui.screens.elicitation import SamplingScreen

        answer: SamplingAnswer = await queue.ask(
            lambda: SamplingScreen(request, queue=queue), request.server, SamplingAnswer(None)
        )
        recorder.sampling(request, answer)
        return answer

    connection.elicitation_handler = elicit
    connection.sampling_handler = sample
