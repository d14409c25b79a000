"""One approved `tools/call`, turned into an evidence entry.

Approval happens before this is called (the TUI's dialog, or the CLI's
`--yes`/prompt); this module only runs the call and records what happened,
whatever that was: a result, an isError result, a protocol error, a timeout,
a cancellation, or the server exiting. A tool that runs as a task
(`rea_tui.host.features.tasks`) is polled to its result; a call the server refuses
until URLs are visited (-32042) goes through the analyst's consent and is
sent again; time spent in dialogs is not the server's time.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rea_tui.host.evidence.evidence import EvidenceEntry, EvidenceLedger, Progress
from rea_tui.host.features.interaction import ElicitationRequest
from rea_tui.host.features.narrowing import detect_narrowing
from rea_tui.host.features.task_board import TaskState
from rea_tui.host.features.tasks import (
    TaskNotCreated,
    TaskTimedOut,
    cancel_quietly,
    start_task,
    task_support,
    wait_for_task,
)
from rea_tui.host.features.url_elicitation import MAX_URL_ROUNDS, required_url_elicitations
from rea_tui.host.protocol.errors import (
    AuthorizationRequired,
    HostError,
    ProtocolError,
    RequestTimedOut,
    ServerExited,
    ServerUnavailable,
)
from rea_tui.host.protocol.models import Tool, parse_content
from rea_tui.host.trust.safe_text import sanitize_line

if TYPE_CHECKING:
    from rea_tui.host.hosted import HostedServer
    from rea_tui.host.protocol.connection import Connection

ProgressListener = Callable[[EvidenceEntry], None]
SCHEMA_MESSAGE_LIMIT = 1_000


async def check_output_schema(tool: Tool | None, entry: EvidenceEntry) -> str:
    """`structuredContent` checked against the tool's declared `outputSchema` (off the event loop)."""
    from rea_tui.host.schemas.guard import check_against_schema

    if tool is None or tool.output_schema is None:
        return "no output schema declared"
    if not entry.has_structured:
        return "invalid: the tool declares an output schema but sent no structuredContent"
    verdict = await check_against_schema(tool.output_schema, entry.structured)
    if verdict.refusal is not None:
        return f"not checked: {verdict.refusal}"
    if verdict.problems:
        first = verdict.problems[0]
        where = first.field.replace(".", "/") if first.field != "(value)" else "(root)"
        more = f" (+{len(verdict.problems) - 1} more)" if len(verdict.problems) > 1 else ""
        return f"invalid: {where}: {first.message}{more}"
    if verdict.unchecked:
        return f"valid against the output schema, except what was not checked: {'; '.join(verdict.unchecked)}"
    return "valid against the output schema"


def fill_result(entry: EvidenceEntry, tool: Tool | None, result: dict[str, Any]) -> None:
    entry.result = result
    entry.content = parse_content(result.get("content"))
    entry.has_structured = "structuredContent" in result
    entry.structured = result.get("structuredContent")
    entry.outcome = "tool_error" if result.get("isError") is True else "ok"
    entry.result_size = len(json.dumps(result, default=str))
    entry.schema_check = "not checked (isError)" if entry.outcome != "ok" else ""
    entry.narrowing = detect_narrowing(entry.structured, entry.content)


def fill_error(entry: EvidenceEntry, error: HostError) -> None:
    entry.error = error.describe()
    if isinstance(error, AuthorizationRequired):
        entry.outcome = "authorization_needed"
    elif isinstance(error, RequestTimedOut):
        entry.outcome = "timed_out"
    elif isinstance(error, ServerExited):
        entry.outcome = "server_exited"
        entry.exit_code = error.exit_code
        entry.stderr_tail = error.stderr_tail
    elif isinstance(error, ProtocolError):
        entry.outcome = "protocol_error"
        entry.error_code = error.code
        entry.field_errors = list(error.fields)
        entry.result = error.to_json()
    elif isinstance(error, ServerUnavailable):
        entry.outcome = "unavailable"
    else:
        entry.outcome = "protocol_error"


def fill_unexpected(entry: EvidenceEntry, error: Exception) -> None:
    entry.outcome = "failed"
    entry.error = f"unexpected error in rea-tui: {type(error).__name__}: {error}"


class _Call:
    """One approved call in flight: its entry, how it is sent (as a task or not), and its updates."""

    def __init__(
        self,
        connection: Connection,
        ledger: EvidenceLedger,
        entry: EvidenceEntry,
        tool: Tool | None,
        timeout: float | None,
        on_update: ProgressListener | None,
        task_timeout: float | None = None,
    ) -> None:
        self.connection = connection
        self.ledger = ledger
        self.entry = entry
        self.tool = tool
        self.timeout = timeout
        self.task_timeout = task_timeout
        self.on_update = on_update
        # The name as the server sent it (the entry shows the display-safe one).
        self.wire_name = tool.wire if tool is not None else entry.tool

    def changed(self) -> None:
        self.ledger.changed(self.entry)
        if self.on_update is not None:
            self.on_update(self.entry)

    async def progressed(self, progress: float, total: float | None, message: str | None) -> None:
        self.entry.progress = Progress(progress, total, message)
        self.changed()

    async def send(self, *, wait: bool) -> dict[str, Any] | None:
        """The call's result; sent again after the analyst visits URLs the server asks for (-32042)."""
        entry = self.entry
        for round_number in range(MAX_URL_ROUNDS + 1):
            try:
                if task_support(self.tool, self.connection.capabilities) != "forbidden":
                    return await self.as_task(wait=wait)
                return await self.connection.request_interactive(
                    "tools/call",
                    {"name": self.wire_name, "arguments": entry.arguments},
                    timeout=self.timeout,
                    on_progress=self.progressed,
                    pausable=True,
                )
            except ProtocolError as exc:
                asked = required_url_elicitations(exc, self.connection.name)
                if not asked or round_number == MAX_URL_ROUNDS:
                    raise
                await self.visit(exc, asked)
        raise AssertionError("unreachable: the last round re-raises")

    async def visit(self, error: ProtocolError, asked: list[ElicitationRequest]) -> None:
        """Each URL the server requires goes through the analyst's consent; all accepted, the call goes again."""
        for request in asked:
            answer = await self.connection.elicit(request)
            if answer.action != "accept":
                declined = f"{error.message} (the analyst did not open {request.url})"
                raise ProtocolError.from_error(error.code, declined, error.data)
        self.entry.progress = Progress(0, None, f"sending again after {len(asked)} URL elicitation(s)")
        self.changed()

    async def as_task(self, *, wait: bool) -> dict[str, Any] | None:
        """Task-augmented: start the task, then poll it to its result (None: submitted only, or cancelled)."""
        connection, entry = self.connection, self.entry
        try:
            state = await start_task(connection, self.wire_name, entry.arguments, timeout=self.timeout)
        except TaskNotCreated as direct:
            return direct.result
        connection.tasks.update(state, tool=entry.tool, entry_id=entry.id)
        if not wait:
            entry.outcome = "task_submitted"
            entry.result = {"task": state.raw}
        self.task_status(state)
        if not wait:
            return None
        try:
            # The task's whole wait, not only each request, is bounded (when the caller gives a bound).
            async with asyncio.timeout(self.task_timeout):
                result = await self.wait(state)
        except TimeoutError:
            if self.task_timeout is None:
                raise
            raise TaskTimedOut(state.task_id, self.task_timeout) from None
        if result is None:
            entry.outcome = "cancelled"
            entry.error = f"the task {state.task_id} was cancelled (tasks/cancel)"
        return result

    async def wait(self, state: TaskState) -> dict[str, Any] | None:
        """Poll the task to its end; a wait given up (cancelled, or out of time) cancels the task."""
        connection = self.connection
        try:
            return await wait_for_task(connection, state, timeout=self.timeout, on_status=self.task_status)
        except asyncio.CancelledError:
            cancelled = await cancel_quietly(connection, state.task_id)
            if cancelled is not None:
                connection.tasks.update(cancelled)
            raise

    def task_status(self, state: TaskState) -> None:
        self.connection.tasks.update(state)
        self.entry.task_id, self.entry.task_status = state.task_id, state.status
        self.entry.progress = Progress(0, None, state.status_message or f"task {state.status}")
        self.changed()


async def run_tool_call(
    connection: Connection,
    ledger: EvidenceLedger,
    tool_name: str,
    arguments: dict[str, Any],
    *,
    tool: Tool | None,
    approval: str,
    timeout: float | None = None,
    follows: str | None = None,
    on_update: ProgressListener | None = None,
    wait: bool = True,
    task_timeout: float | None = None,
) -> EvidenceEntry:
    """Send the call and record it. Cancelling the calling task cancels the request (or the task).

    `timeout` bounds each request and stops while a dialog waits for the
    analyst; the entry's duration leaves that time out (`waited_ms` has it).
    A tool that runs as a task is polled to its end, unless `wait` is False
    (the entry is then "task_submitted", with its task id); `task_timeout`
    bounds that whole wait (then the task is cancelled and the entry timed out).
    """
    entry = ledger.open(connection.name, tool_name, arguments, approval, follows=follows)
    call = _Call(connection, ledger, entry, tool, timeout, on_update, task_timeout)
    started = time.perf_counter()
    waited_before = connection.waits.waited()
    ended_early = False
    try:
        with connection.waits.calling():
            result = await call.send(wait=wait)
        if result is not None:
            fill_result(entry, tool, result)
            if entry.outcome == "ok":
                # The validator quotes the server's values in its messages: made safe like all server text.
                entry.schema_check = sanitize_line(await check_output_schema(tool, entry), SCHEMA_MESSAGE_LIMIT)
    except HostError as exc:
        ended_early = isinstance(exc, RequestTimedOut)
        fill_error(entry, exc)
    except asyncio.CancelledError:
        ended_early = True
        entry.outcome = "cancelled"
        entry.error = "cancelled by the analyst (notifications/cancelled sent)"
        raise
    except Exception as exc:
        # Never left "running": the entry says what broke, and the caller's error route reports it too.
        fill_unexpected(entry, exc)
        raise
    finally:
        if ended_early:
            connection.waits.call_ended_early()
        waited = max(connection.waits.waited() - waited_before, 0.0)
        entry.waited_ms = waited * 1000.0
        entry.duration_ms = max(time.perf_counter() - started - waited, 0.0) * 1000.0
        if entry.outcome == "running":
            entry.outcome = "cancelled"
        ledger.changed(entry)
    return entry


async def run_resource_read(hosted: HostedServer, ledger: EvidenceLedger, uri: str) -> EvidenceEntry:
    """`resources/read` as evidence: reading needs no approval, but what it returned is kept."""
    entry = ledger.open(hosted.name, "resources/read", {"uri": uri}, "read (no tool runs)")
    started = time.perf_counter()
    try:
        result = await hosted.read_resource(uri)
        entry.content = list(result.contents)
        entry.outcome = "ok"
        entry.result_size = len(json.dumps(result.raw, default=str))
    except HostError as exc:
        fill_error(entry, exc)
    except Exception as exc:
        fill_unexpected(entry, exc)
        raise
    finally:
        entry.duration_ms = (time.perf_counter() - started) * 1000.0
        ledger.changed(entry)
    return entry
