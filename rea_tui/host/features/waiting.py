"""Time spent waiting for the analyst, kept off the clock of the requests it holds up.

A tool call's timeout measures the server. While a dialog the server asked
for (an elicitation form, a URL consent, a sampling reply) waits for the
analyst, the clocks of that connection's requests stop; when the dialog
closes they run on with the time they had left. A request clock also counts
how long it was stopped, so a call can report its duration without the
analyst's time ("1.2 s, plus 14 s waiting for you").

MCP does not say which request a server-to-client request belongs to (on
stdio nothing does), so a dialog holds every clock of its connection, and a
call that ends (cancelled, timed out) while no other call of the connection
runs closes the dialogs that are still open: nobody is left to answer them for.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import anyio

from rea_tui.host.features.interaction import (
    ElicitationAnswer,
    ElicitationHandler,
    ElicitationRequest,
    SamplingAnswer,
    SamplingHandler,
    SamplingRequest,
)

AnswerT = TypeVar("AnswerT")


class RequestClock:
    """One request's timeout as a budget that is spent only while no dialog waits for the analyst.

    Enter `scope` around the request; when the budget runs out the scope is
    cancelled (the request's courtesy `notifications/cancelled` goes out) and
    `expired` is True.
    """

    def __init__(self, timeout: float | None) -> None:
        self.timeout = timeout if timeout and timeout > 0 else None
        self._budget = math.inf if self.timeout is None else self.timeout
        self.scope = anyio.CancelScope()
        self._paused_at: float | None = None
        self.waited = 0.0
        self._started = False

    def start(self, *, paused: bool = False) -> None:
        self._started = True
        if paused:
            self._paused_at = time.monotonic()
            self.scope.deadline = math.inf
        else:
            self.scope.deadline = anyio.current_time() + self._budget

    def pause(self) -> None:
        if not self._started or self._paused_at is not None:
            return
        self._paused_at = time.monotonic()
        self._budget = max(self.scope.deadline - anyio.current_time(), 0.0)
        self.scope.deadline = math.inf

    def resume(self) -> None:
        if self._paused_at is None:
            return
        self.waited += time.monotonic() - self._paused_at
        self._paused_at = None
        self.scope.deadline = anyio.current_time() + self._budget

    def stop(self) -> None:
        """The request is over: count a pause still open."""
        self.resume()

    @property
    def expired(self) -> bool:
        return self.scope.cancelled_caught


class AnalystWaits:
    """The dialogs of one connection that wait for the analyst, and the request clocks they hold."""

    def __init__(self) -> None:
        self._clocks: set[RequestClock] = set()
        self._dialogs: set[asyncio.Future[Any]] = set()
        self._open = 0
        self._calls = 0
        # The app is leaving: the connection ends with its dialogs, which are not answered one by one.
        self.leaving = False
        # Seconds during which at least one dialog was open, and since when one is open now.
        self._waited = 0.0
        self._since: float | None = None

    @property
    def waiting(self) -> bool:
        return self._open > 0

    def waited(self) -> float:
        """Seconds a dialog of this connection has waited for the analyst so far (a call subtracts two readings)."""
        open_now = time.monotonic() - self._since if self._since is not None else 0.0
        return self._waited + open_now

    @property
    def running(self) -> int:
        """How many timed requests are in flight."""
        return len(self._clocks)

    @contextmanager
    def timed(self, timeout: float | None) -> Iterator[RequestClock]:
        """A clock for one request, stopped while a dialog of this connection is open."""
        clock = RequestClock(timeout)
        clock.start(paused=self.waiting)
        self._clocks.add(clock)
        try:
            with clock.scope:
                yield clock
        finally:
            self._clocks.discard(clock)
            clock.stop()

    async def elicitation(self, handler: ElicitationHandler | None, request: ElicitationRequest) -> ElicitationAnswer:
        """The analyst's answer through `handler`, clocks stopped: declined without one, cancelled if closed."""
        if handler is None:
            return ElicitationAnswer("decline")
        return await self.answer(lambda: handler(request), ElicitationAnswer("cancel"))

    async def sampling(self, handler: SamplingHandler | None, request: SamplingRequest) -> SamplingAnswer:
        """The analyst's answer through `handler`, clocks stopped: no text (declined) without one or if closed."""
        if handler is None:
            return SamplingAnswer(None)
        return await self.answer(lambda: handler(request), SamplingAnswer(None))

    async def answer(self, ask: Callable[[], Awaitable[AnswerT]], closed: AnswerT) -> AnswerT:
        """Run one dialog (`ask`) with the clocks stopped; `closed` if `close_dialogs` ended it first."""
        dialog: asyncio.Future[AnswerT] = asyncio.ensure_future(ask())
        self._dialogs.add(dialog)
        self._open += 1
        if self._open == 1:
            self._since = time.monotonic()
            for clock in list(self._clocks):
                clock.pause()
        try:
            await asyncio.wait({dialog})
        finally:
            if not dialog.done():
                dialog.cancel()  # the server withdrew the request: the dialog goes
            self._dialogs.discard(dialog)
            self._open -= 1
            if self._open == 0:
                if self._since is not None:
                    self._waited += time.monotonic() - self._since
                    self._since = None
                for clock in list(self._clocks):
                    clock.resume()
        return closed if dialog.cancelled() else dialog.result()

    @contextmanager
    def calling(self) -> Iterator[None]:
        """Around one tool call of this connection (a call that ends early may close dialogs)."""
        self._calls += 1
        try:
            yield
        finally:
            self._calls -= 1

    def call_ended_early(self) -> None:
        """A call was cancelled or timed out: if no other call runs, nobody is left to answer the open dialogs.
        Not once the app is leaving (`leaving`): each closed dialog is an answer written to the server, and the
        quit cancels the calls with every question still open (10,000: 10,000 answers on the way out)."""
        if self._calls == 0 and not self.leaving:
            self.close_dialogs()

    def close_dialogs(self) -> int:
        """A call ended and none is left to answer for: close the open dialogs. How many were open."""
        open_dialogs = [d for d in self._dialogs if not d.done()]
        for dialog in open_dialogs:
            dialog.cancel()
        return len(open_dialogs)
