"""`Audit`: run the completion battery and the prompt checks against one hosted server.

    audit = Audit(hosted, AuditOptions(profile="rea"), on_progress=show)
    report = await audit.run()      # returns the report, complete or partial
    audit.cancel()                  # from elsewhere: run() returns soon with a partial report

`run()` never raises for what the server does; the report says what was
found and, when partial, why it stopped (`budget`, `cancelled`,
`server-exited`). Cancelling the task that awaits `run()` also leaves
`audit.report` marked partial before the cancellation propagates.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from rea_tui.host.audit.battery import TargetBattery
from rea_tui.host.audit.channel import (
    AuditCancelled,
    AuditChannel,
    AuditStop,
    BudgetExhausted,
    Hung,
    Lost,
    ProgressCallback,
    ServerGone,
    TargetAbandoned,
)
from rea_tui.host.audit.checks import Issue
from rea_tui.host.audit.prompt_check import check_prompt
from rea_tui.host.audit.report import AuditReport, StopReason
from rea_tui.host.audit.rules import Profile
from rea_tui.host.features.completion import CompletionRef
from rea_tui.host.protocol.models import Prompt, ResourceTemplate

if TYPE_CHECKING:
    from rea_tui.host.hosted import HostedServer

DEFAULT_MAX_REQUESTS: Final = 50
DEFAULT_BUDGET_S: Final = 60.0
DEFAULT_TIMEOUT_S: Final = 10.0
RENDER_REQUESTS: Final = 1


# At most this share of the budget is spent waiting for a REA target to open.
TARGET_WAIT_SHARE: Final = 0.5


@dataclass(frozen=True)
class AuditOptions:
    profile: Profile = "mcp"
    prompts: tuple[str, ...] = ()
    """Prompt names to audit; with neither prompts nor templates given, everything is audited."""
    templates: tuple[str, ...] = ()
    """Resource URI templates to audit."""
    max_requests: int = DEFAULT_MAX_REQUESTS
    """Completion requests per argument, at most."""
    budget_s: float = DEFAULT_BUDGET_S
    """Time for the whole audit; no request outlives it."""
    timeout_s: float = DEFAULT_TIMEOUT_S
    """Per-request timeout; a request that takes longer is a hang."""


class UnknownTarget(ValueError):
    """A prompt or template named in the options is not on the server."""


def select_targets(
    prompts: Sequence[Prompt], templates: Sequence[ResourceTemplate], options: AuditOptions
) -> tuple[list[Prompt], list[ResourceTemplate]]:
    """The prompts and templates to audit. Raises UnknownTarget for a name the server does not have."""
    if not options.prompts and not options.templates:
        return list(prompts), list(templates)
    by_name = {p.name: p for p in prompts}
    by_uri = {t.uri_template: t for t in templates}
    missing = [n for n in options.prompts if n not in by_name] + [u for u in options.templates if u not in by_uri]
    if missing:
        raise UnknownTarget(", ".join(missing))
    return [by_name[n] for n in dict.fromkeys(options.prompts)], [by_uri[u] for u in dict.fromkeys(options.templates)]


class Audit:
    """One audit of one server; see the module docstring."""

    def __init__(
        self, hosted: HostedServer, options: AuditOptions, *, on_progress: ProgressCallback | None = None
    ) -> None:
        self.hosted = hosted
        self.options = options
        connection = hosted.connection
        self.report = AuditReport(
            profile=options.profile,
            server_name=connection.server_name,
            server_version=connection.server_version,
            protocol_version=connection.protocol_version,
            max_requests=options.max_requests,
            budget_s=options.budget_s,
            timeout_s=options.timeout_s,
        )
        self._on_progress = on_progress
        self._channel: AuditChannel | None = None
        self._cancel_requested = False

    def cancel(self) -> None:
        """Stop soon: the request in flight is cancelled on the wire and `run()` returns a partial report."""
        self._cancel_requested = True
        if self._channel is not None:
            self._channel.cancel()

    async def run(self) -> AuditReport:
        # A REA server opens its target after the handshake; its lists are cold (empty) until then,
        # and an audit that straddles the opening would report the change as inconsistency.
        await self.hosted.wait_for_target(self.options.budget_s * TARGET_WAIT_SHARE)
        prompts, templates = select_targets(
            self.hosted.catalogs.prompts.items, self.hosted.catalogs.templates.items, self.options
        )
        channel = AuditChannel(
            self.hosted,
            self.report,
            profile=self.options.profile,
            max_requests=self.options.max_requests,
            budget_s=self.options.budget_s,
            timeout_s=self.options.timeout_s,
            on_progress=self._on_progress,
        )
        self._channel = channel
        if self._cancel_requested:
            channel.cancel()
        started = time.monotonic()
        reason: StopReason | None = None
        try:
            await self._run(channel, prompts, templates)
        except BudgetExhausted:
            reason = "budget"
        except AuditCancelled:
            reason = "cancelled"
        except ServerGone:
            reason = "server-exited"
        except asyncio.CancelledError:
            self._finish(channel, started, "cancelled")
            raise
        self._finish(channel, started, reason)
        return self.report

    def _finish(self, channel: AuditChannel, started: float, reason: StopReason | None) -> None:
        channel.close()
        self.report.duration_s = time.monotonic() - started
        self.report.status = "complete" if reason is None else "partial"
        self.report.stop_reason = reason
        channel.planned = self.report.requests
        channel.progress()

    async def _run(self, channel: AuditChannel, prompts: list[Prompt], templates: list[ResourceTemplate]) -> None:
        completes = self.hosted.connection.has_capability("completions")
        if not completes:
            channel.flag(
                [Issue("mcp.capability", "the server does not declare the completions capability; nothing was asked")],
                None,
                None,
            )
        work: list[tuple[CompletionRef, list[str], Prompt | None]] = [
            # The audit sends what the server listed: its own names (`wire`), not their display forms.
            (CompletionRef("prompt", p.wire), [a.wire for a in p.arguments], p)
            for p in prompts
        ]
        work += [(CompletionRef("template", t.wire), list(t.wire_variables), None) for t in templates]
        for ref, arguments, _ in work:
            target = self.report.target(ref)
            for argument in arguments:
                target.argument(argument)
        batteries = [
            TargetBattery(channel, ref, self.report.target(ref), arguments if completes else [])
            for ref, arguments, _ in work
        ]
        finished: set[int] = set()
        self._plan(channel, batteries, work, finished)
        for index, (battery, (ref, _, prompt)) in enumerate(zip(batteries, work, strict=True)):
            try:
                await battery.run()
                if prompt is not None:
                    channel.position = (ref.name, None)
                    await self._render(channel, battery, prompt)
            except TargetAbandoned as abandoned:
                # Each exit is already a finding citing its request; the server is started again for the rest.
                noun = "prompt" if ref.kind == "prompt" else "resource template"
                channel.flag(
                    [
                        Issue(
                            "transport.given-up",
                            f"this {noun}'s audit was given up: the server exited {abandoned.exits + 1} times on its "
                            "requests (each is listed); the other targets were audited after a restart",
                        )
                    ],
                    ref,
                    None,
                    [
                        e
                        for f in self.report.findings
                        if f.ref == ref and f.check == "transport.exited"
                        for e in f.exchanges
                    ],
                )
                await channel.recover()
            else:
                battery.target.finished = True
            finished.add(index)
            self._plan(channel, batteries, work, finished)

    async def _render(self, channel: AuditChannel, battery: TargetBattery, prompt: Prompt) -> None:
        try:
            await check_prompt(channel, prompt, battery.target, battery.empty, self.hosted.catalogs.tools.items)
        except Hung as hung:
            channel.flag(
                [Issue("transport.timeout", f"no reply to prompts/get within {channel.timeout_s:g} s")],
                battery.ref,
                None,
                [hung.exchange],
            )
        except Lost as lost:
            await battery.lost(None, lost.exchange)

    def _plan(
        self,
        channel: AuditChannel,
        batteries: list[TargetBattery],
        work: list[tuple[CompletionRef, list[str], Prompt | None]],
        finished: set[int],
    ) -> None:
        """Estimate the requests still to come: each unfinished argument may use its whole limit."""
        remaining = 0
        for index, (battery, (_, _, prompt)) in enumerate(zip(batteries, work, strict=True)):
            if index in finished:
                continue
            used = {a.name: a.requests for a in battery.target.arguments}
            remaining += sum(max(0, self.options.max_requests - used.get(a, 0)) for a in battery.arguments)
            remaining += (1 if battery.arguments else 0) + (RENDER_REQUESTS if prompt is not None else 0)
        channel.planned = self.report.requests + remaining
        channel.progress()


__all__ = ["Audit", "AuditOptions", "AuditStop", "UnknownTarget", "select_targets"]
