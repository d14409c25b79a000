"""The audit's way to a server: limits, budget, cancellation, findings and progress in one place.

Every request of the battery and the prompt checks goes through
`AuditChannel`, which refuses to send past an argument's request limit or
the time budget, gives each request at most what is left of the budget,
checks every completion reply against the reply rules, and turns what went
wrong on the wire into exceptions the battery and the runner handle:
`Hung` (no reply within the timeout), `Lost` (the server exited or the
connection dropped), `ArgumentCapReached`, `BudgetExhausted`, `AuditCancelled`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from rea_tui.host.audit.checks import Issue, parse_reply, reply_issues
from rea_tui.host.audit.exchange import Prober
from rea_tui.host.audit.report import ArgumentStats, AuditReport, Exchange, TargetReport
from rea_tui.host.audit.rules import Profile, severity_of
from rea_tui.host.features.completion import CompletionRef

if TYPE_CHECKING:
    from rea_tui.host.hosted import HostedServer

MIN_REQUEST_SECONDS: Final = 0.05
"""Below this much budget left, no request is started."""
MAX_RECONNECTS_PER_TARGET: Final = 3
"""A prompt or template whose requests end the server this often is given up; the audit goes on to the next."""


class AuditStop(Exception):
    """Ends the whole audit early (the report is partial)."""


class BudgetExhausted(AuditStop):
    pass


class AuditCancelled(AuditStop):
    pass


class ServerGone(AuditStop):
    """The server exited or stopped answering and could not be reconnected."""


class TargetAbandoned(Exception):
    """The server exited on this target's requests once too often: its audit ends here, the others go on."""

    def __init__(self, target: str, exits: int) -> None:
        super().__init__(target)
        self.target = target
        self.exits = exits


class ArgumentCapReached(Exception):
    """The argument's battery used its `max_requests`."""


class Hung(Exception):
    def __init__(self, exchange: Exchange) -> None:
        super().__init__(exchange.note)
        self.exchange = exchange


class Lost(Exception):
    def __init__(self, exchange: Exchange) -> None:
        super().__init__(exchange.note)
        self.exchange = exchange


@dataclass(frozen=True)
class AuditProgress:
    """Where the audit is: `done` requests of about `total` (the estimate shrinks as batteries end)."""

    done: int
    total: int
    target: str
    argument: str | None
    elapsed_s: float
    budget_s: float


ProgressCallback = Callable[[AuditProgress], None]


class AuditChannel:
    def __init__(
        self,
        hosted: HostedServer,
        report: AuditReport,
        *,
        profile: Profile,
        max_requests: int,
        budget_s: float,
        timeout_s: float,
        on_progress: ProgressCallback | None = None,
    ) -> None:
        self.hosted = hosted
        self.report = report
        self.profile = profile
        self.max_requests = max_requests
        self.budget_s = budget_s
        self.timeout_s = timeout_s
        self.on_progress = on_progress
        self.prober = Prober(hosted.connection)
        self.started = time.monotonic()
        self.deadline = self.started + budget_s
        self.cancelled = False
        self.planned = 0
        self.position: tuple[str, str | None] = ("", None)
        self._reconnecting: asyncio.Task[None] | None = None
        # Restarts caused by each target's requests (a target that ends the server too often is given up).
        self.restarts_for: dict[str, int] = {}

    def close(self) -> None:
        self.prober.close()

    # -- control -----------------------------------------------------------------------

    def cancel(self) -> None:
        self.cancelled = True
        self.prober.cancel_inflight()
        if self._reconnecting is not None and not self._reconnecting.done():
            self._reconnecting.cancel()

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def _check_go(self) -> float:
        """The timeout for the next request; raises when none may be sent."""
        if self.cancelled:
            raise AuditCancelled
        remaining = self.remaining()
        if remaining < MIN_REQUEST_SECONDS:
            raise BudgetExhausted
        return min(self.timeout_s, remaining)

    def progress(self) -> None:
        if self.on_progress is None:
            return
        target, argument = self.position
        done = self.report.requests
        self.on_progress(AuditProgress(done, max(self.planned, done), target, argument, self.elapsed(), self.budget_s))

    # -- findings ----------------------------------------------------------------------

    def flag(
        self,
        issues: Iterable[Issue],
        ref: CompletionRef | None,
        argument: str | None,
        exchanges: Iterable[Exchange] = (),
    ) -> None:
        """Record the issues this profile reports, citing `exchanges` (the first is the one that shows it)."""
        cited = tuple(exchanges)
        for issue in issues:
            severity = severity_of(issue.check, self.profile)
            if severity is None:
                continue
            self.report.add(issue.check, issue.severity or severity, ref, argument, issue.message, cited)

    # -- requests ----------------------------------------------------------------------

    async def send(self, method: str, params: Mapping[str, Any], counted: ArgumentStats | TargetReport) -> Exchange:
        """One request, counted against `counted`. Raises Hung, Lost, BudgetExhausted or AuditCancelled."""
        limit = self._check_go()
        exchange = await self.prober.send(method, params, limit)
        self.report.requests += 1
        counted.requests += 1
        self.progress()
        if exchange.outcome == "cancelled":
            raise AuditCancelled
        if exchange.outcome == "timeout":
            if limit < self.timeout_s:
                raise BudgetExhausted  # cut by the budget, not a hang of the server's
            raise Hung(exchange)
        if exchange.outcome in ("exited", "unavailable"):
            raise Lost(exchange)
        return exchange

    async def complete(
        self,
        ref: CompletionRef,
        argument: str,
        value: str,
        context: Mapping[str, str] | None = None,
        *,
        stats: ArgumentStats | None = None,
        target: TargetReport | None = None,
    ) -> Exchange:
        """A `completion/complete` request; the reply rules are checked on every result.

        Counted against `stats` (and its request limit) or, for requests about
        the target as a whole, against `target`.
        """
        if stats is not None and stats.requests >= self.max_requests:
            stats.capped = True
            raise ArgumentCapReached
        params: dict[str, Any] = {"ref": ref.to_wire(), "argument": {"name": argument, "value": value}}
        if context:
            params["context"] = {"arguments": dict(context)}
        counted: ArgumentStats | TargetReport | None = stats if stats is not None else target
        assert counted is not None, "a request is counted against an argument or a target"
        exchange = await self.send("completion/complete", params, counted)
        if exchange.outcome == "result":
            if stats is not None and exchange.latency_ms is not None:
                stats.latencies_ms.append(exchange.latency_ms)
            self.flag(reply_issues(parse_reply(exchange.result)), ref, argument if stats else None, [exchange])
        elif stats is not None and exchange.latency_ms is not None:
            stats.latencies_ms.append(exchange.latency_ms)
        return exchange

    # -- recovery ----------------------------------------------------------------------

    async def restart(self) -> None:
        """Reconnect after the server exited or stopped answering; raises TargetAbandoned when the current
        target has ended it too often, ServerGone when reconnecting fails."""
        target = self.position[0]
        if self.restarts_for.get(target, 0) >= MAX_RECONNECTS_PER_TARGET:
            raise TargetAbandoned(target, self.restarts_for[target])
        self.restarts_for[target] = self.restarts_for.get(target, 0) + 1
        await self.recover()

    async def recover(self) -> None:
        """Start the server again (after a target was given up, for the next one); ServerGone when it fails."""
        remaining = self.remaining()
        if remaining < MIN_REQUEST_SECONDS:
            raise BudgetExhausted
        self.report.reconnects += 1
        self._reconnecting = asyncio.ensure_future(self.hosted.reconnect())
        try:
            await asyncio.wait_for(asyncio.shield(self._reconnecting), remaining)
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise
            raise AuditCancelled from None
        except TimeoutError:
            self._reconnecting.cancel()
            raise BudgetExhausted from None
        except Exception:
            raise ServerGone from None
        finally:
            self._reconnecting = None
