"""Argument completion: `completion/complete` for prompt arguments and template variables.

`CompletionFeed.submit` is what a typing analyst drives: per field, one
request in flight, the newest value wins, a superseded request is cancelled
(the SDK sends `notifications/cancelled`) and a stale reply is never
delivered. Every request is recorded in the `CompletionLog` that the
completion inspector shows, with lint warnings for replies that break the
spec. A broken reply is reported, never raised past the feed.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from rea_tui.host.protocol.errors import MALFORMED_RESULT, HostError, ProtocolError
from rea_tui.host.protocol.observers import Listeners, Unsubscribe

if TYPE_CHECKING:
    from rea_tui.host.protocol.connection import Connection

MAX_VALUES = 100
COMPLETION_TIMEOUT = 10.0
LOG_LIMIT = 1_000

Outcome = Literal["pending", "shown", "stale", "cancelled", "error"]


@dataclass(frozen=True)
class CompletionRef:
    """What is being completed: a prompt's argument or a resource template's variable."""

    kind: Literal["prompt", "template"]
    name: str

    def to_wire(self) -> dict[str, str]:
        if self.kind == "prompt":
            return {"type": "ref/prompt", "name": self.name}
        return {"type": "ref/resource", "uri": self.name}


# `_meta` keys of REA servers (the bundled one among them) that say why a list is short.
DISCOVERY_META = "rea/discovery"
TARGET_META = "rea/target"


@dataclass(frozen=True)
class CompletionPage:
    """One reply, ready to show."""

    argument: str
    value: str
    values: tuple[str, ...]
    total: int | None
    has_more: bool
    latency_ms: float
    warnings: tuple[str, ...] = ()
    # What the server said about the list itself (a bound that cut discovery, a target still opening).
    notes: tuple[str, ...] = ()
    target_opening: bool = False
    # The result as the server sent it (`completion` and `_meta`), for `--json`.
    raw: Mapping[str, Any] = field(default_factory=dict)


def target_opening(result: Mapping[str, Any]) -> bool:
    """A REA server's reply says its target is still opening (`_meta["rea/target"].state`): nothing is loaded."""
    meta = result.get("_meta")
    target = meta.get(TARGET_META) if isinstance(meta, dict) else None
    return isinstance(target, dict) and target.get("state") == "opening"


def server_notes(result: Mapping[str, Any]) -> tuple[list[str], bool]:
    """What a REA server's `_meta` says about a completion list; and whether its target is still opening."""
    meta = result.get("_meta")
    if not isinstance(meta, dict):
        return [], False
    notes: list[str] = []
    discovery = meta.get(DISCOVERY_META)
    if isinstance(discovery, dict) and discovery.get("complete") is False:
        limit = discovery.get("limit")
        reason = discovery.get("reason")
        if reason == "time":
            notes.append("names hidden: discovery ran out of time (addresses only)")
        elif isinstance(limit, int) and not isinstance(limit, bool):
            notes.append(f"names hidden: discovery stopped at {limit:,} addresses")
        else:
            notes.append("names hidden: discovery was cut short (addresses only)")
    target = meta.get(TARGET_META)
    opening = target_opening(result)
    if opening:
        notes.append("the target is still opening: suggestions follow when it is ready")
    elif isinstance(target, dict) and target.get("state") in ("none", "failed"):
        notes.append("no target is open" if target.get("state") == "none" else "the target failed to open")
    return notes, opening


@dataclass(frozen=True)
class CompletionFailure:
    """A request that ended in an error, shown inline under the field."""

    argument: str
    value: str
    error: HostError


@dataclass
class CompletionRecord:
    """One row of the completion inspector."""

    seq: int
    time: float
    ref: CompletionRef
    argument: str
    value: str
    context: dict[str, str]
    outcome: Outcome = "pending"
    count: int | None = None
    total: int | None = None
    has_more: bool | None = None
    latency_ms: float | None = None
    warnings: tuple[str, ...] = ()
    error: str = ""


class CompletionLog:
    """The bounded list of completion requests, newest last, with listeners."""

    def __init__(self, limit: int = LOG_LIMIT) -> None:
        self.records: deque[CompletionRecord] = deque(maxlen=limit)
        self.listeners: Listeners[CompletionRecord] = Listeners()
        self._seq = 0

    def subscribe(self, listener: Callable[[CompletionRecord], None]) -> Unsubscribe:
        return self.listeners.subscribe(listener)

    def open(self, ref: CompletionRef, argument: str, value: str, context: dict[str, str]) -> CompletionRecord:
        self._seq += 1
        record = CompletionRecord(self._seq, time.time(), ref, argument, value, dict(context))
        self.records.append(record)
        self.changed(record)
        return record

    def changed(self, record: CompletionRecord) -> None:
        self.listeners.emit(record)

    def in_flight(self) -> int:
        return sum(1 for r in self.records if r.outcome == "pending")


def lint_completion(result: Mapping[str, Any]) -> tuple[list[str], int | None, bool, list[str]]:
    """Check a raw `completion/complete` result against the spec.

    Returns (values, total, has_more, warnings). Raises ProtocolError when the
    reply cannot be used at all.
    """
    completion = result.get("completion")
    if not isinstance(completion, dict):
        raise ProtocolError(MALFORMED_RESULT, "the reply has no completion object")
    raw_values = completion.get("values")
    if not isinstance(raw_values, list):
        raise ProtocolError(MALFORMED_RESULT, "completion.values is not a list")
    warnings: list[str] = []
    strings = [v for v in raw_values if isinstance(v, str)]
    if len(strings) != len(raw_values):
        warnings.append(f"{len(raw_values) - len(strings)} non-string values (dropped)")
    if len(raw_values) > MAX_VALUES:
        warnings.append(f"{len(raw_values)} values sent; the spec allows at most {MAX_VALUES}")
    values = list(dict.fromkeys(strings))
    if len(values) != len(strings):
        warnings.append(f"{len(strings) - len(values)} duplicate values")
    total_raw = completion.get("total")
    total: int | None = None
    if isinstance(total_raw, int) and not isinstance(total_raw, bool):
        total = total_raw
    elif total_raw is not None:
        warnings.append("total is not an integer (ignored)")
    has_more_raw = completion.get("hasMore")
    if has_more_raw is not None and not isinstance(has_more_raw, bool):
        warnings.append("hasMore is not a boolean (ignored)")
    has_more = has_more_raw is True
    if total is not None:
        if total < len(raw_values):
            warnings.append(f"total {total} is below the {len(raw_values)} values sent")
        elif total > len(raw_values) and not has_more:
            warnings.append(f"hasMore is false but total {total} exceeds the {len(raw_values)} values sent")
    return values, total, has_more, warnings


def context_for(argument: str, values: Mapping[str, str]) -> dict[str, str]:
    """The other non-empty arguments, as `context.arguments`."""
    return {k: v for k, v in values.items() if k != argument and v}


@dataclass
class _Field:
    generation: int = 0
    task: asyncio.Task[None] | None = None


Deliver = Callable[[CompletionPage | CompletionFailure], None]
WireNames = Callable[[str, str], tuple[str, dict[str, str]]]


@dataclass
class CompletionFeed:
    """Completion requests for one connection."""

    connection: Connection
    log: CompletionLog = field(default_factory=CompletionLog)
    timeout: float = COMPLETION_TIMEOUT
    # Turns a ref's (display) name into the server's own names: (wire name, {argument: wire argument}).
    wire_names: WireNames | None = None
    _fields: dict[tuple[CompletionRef, str], _Field] = field(default_factory=dict)

    @property
    def supported(self) -> bool:
        """Only servers that declare the `completions` capability are asked."""
        return self.connection.has_capability("completions")

    async def complete(
        self, ref: CompletionRef, argument: str, value: str, context: Mapping[str, str] | None = None
    ) -> CompletionPage:
        """One request, recorded in the log. Raises HostError; cancelling the caller cancels it on the wire."""
        ctx = dict(context or {})
        record = self.log.open(ref, argument, value, ctx)
        try:
            page = await self._request(ref, argument, value, ctx)
        except asyncio.CancelledError:
            record.outcome = "cancelled"
            self.log.changed(record)
            raise
        except HostError as exc:
            record.outcome = "error"
            record.error = exc.describe()
            self.log.changed(record)
            raise
        record.count, record.total, record.has_more = len(page.values), page.total, page.has_more
        record.latency_ms, record.warnings = page.latency_ms, page.warnings
        record.outcome = "shown"
        self.log.changed(record)
        return page

    async def _request(self, ref: CompletionRef, argument: str, value: str, context: dict[str, str]) -> CompletionPage:
        wire_ref, arguments = ref, dict[str, str]()
        if self.wire_names is not None:
            name, arguments = self.wire_names(ref.kind, ref.name)
            wire_ref = CompletionRef(ref.kind, name)
        params: dict[str, Any] = {
            "ref": wire_ref.to_wire(),
            "argument": {"name": arguments.get(argument, argument), "value": value},
        }
        if context:
            params["context"] = {"arguments": {arguments.get(k, k): v for k, v in context.items()}}
        started = time.perf_counter()
        schema_warning: list[str] = []
        try:
            # Strict: a malformed reply is linted and shown with its warnings, not toasted per keystroke.
            result = await self.connection.request("completion/complete", params, timeout=self.timeout, strict=True)
        except ProtocolError as exc:
            # The SDK found the reply malformed; what can still be shown is shown, with the reasons.
            if exc.code != MALFORMED_RESULT or exc.reply is None:
                raise
            result, schema_warning = exc.reply, [exc.message]
        latency = (time.perf_counter() - started) * 1000.0
        values, total, has_more, warnings = lint_completion(result)
        if schema_warning and not warnings:
            warnings = schema_warning  # the lint found nothing specific: say what the SDK found
        notes, opening = server_notes(result)
        return CompletionPage(
            argument, value, tuple(values), total, has_more, latency, tuple(warnings), tuple(notes), opening, result
        )

    def submit(
        self,
        ref: CompletionRef,
        argument: str,
        value: str,
        context: Mapping[str, str],
        deliver: Deliver,
    ) -> None:
        """Ask for completions of the field's newest value; `deliver` gets only current replies."""
        state = self._fields.setdefault((ref, argument), _Field())
        state.generation += 1
        previous = state.task
        if previous is not None and not previous.done():
            previous.cancel()
        state.task = asyncio.create_task(
            self._run(state, state.generation, previous, ref, argument, value, dict(context), deliver)
        )

    async def _run(
        self,
        state: _Field,
        generation: int,
        previous: asyncio.Task[None] | None,
        ref: CompletionRef,
        argument: str,
        value: str,
        context: dict[str, str],
        deliver: Deliver,
    ) -> None:
        if previous is not None and not previous.done():
            # Let the superseded request finish cancelling (its notifications/cancelled
            # goes out) so this field never has two requests in flight. (Not awaited when it
            # is over: waiting on a finished task still yields, and a frame gets in first.)
            await asyncio.wait([previous])
        if generation != state.generation:
            return
        try:
            page: CompletionPage | CompletionFailure = await self.complete(ref, argument, value, context)
        except HostError as exc:
            page = CompletionFailure(argument, value, exc)
        if generation != state.generation:
            self._mark_stale(argument, value)
            return
        deliver(page)

    def _mark_stale(self, argument: str, value: str) -> None:
        for record in reversed(self.log.records):
            if record.argument == argument and record.value == value:
                record.outcome = "stale"
                self.log.changed(record)
                return

    def cancel_all(self) -> None:
        for state in self._fields.values():
            state.generation += 1
            if state.task is not None and not state.task.done():
                state.task.cancel()

    def _under_way(self) -> list[asyncio.Task[None]]:
        """The requests sent, or still waiting to go (for the one before them, or the connection)."""
        return [s.task for s in self._fields.values() if s.task is not None and not s.task.done()]

    @property
    def busy(self) -> bool:
        return bool(self._under_way())

    async def settle(self) -> None:
        """Wait until no completion task is running (tests, benchmarks, shutdown)."""
        tasks = self._under_way()
        if tasks:
            await asyncio.wait(tasks)


__all__ = [
    "CompletionFailure",
    "CompletionFeed",
    "CompletionLog",
    "CompletionPage",
    "CompletionRecord",
    "CompletionRef",
    "context_for",
    "lint_completion",
]
