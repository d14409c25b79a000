"""One approved `tools/call`, turned into an evidence entry.

Approval happens before this is called (the TUI's dialog, or the CLI's
`--yes`/prompt); this module only runs the call and records what happened,
whatever that was: a result, an isError result, a protocol error, a timeout,
a cancellation, or the server exiting.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from rea_tui.host.errors import (
    AuthorizationRequired,
    HostError,
    ProtocolError,
    RequestTimedOut,
    ServerExited,
    ServerUnavailable,
)
from rea_tui.host.evidence import EvidenceEntry, EvidenceLedger, Progress
from rea_tui.host.models import Tool, parse_content
from rea_tui.host.narrowing import detect_narrowing
from rea_tui.host.safe_text import sanitize_line

if TYPE_CHECKING:
    from rea_tui.host.connection import Connection
    from rea_tui.host.hosted import HostedServer

ProgressListener = Callable[[EvidenceEntry], None]
SCHEMA_MESSAGE_LIMIT = 1_000


def check_output_schema(tool: Tool | None, entry: EvidenceEntry) -> str:
    """Validate `structuredContent` against the tool's declared `outputSchema`."""
    if tool is None or tool.output_schema is None:
        return "no output schema declared"
    if not entry.has_structured:
        return "invalid: the tool declares an output schema but sent no structuredContent"
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(tool.output_schema)
    except SchemaError as exc:
        return f"invalid output schema: {exc.message}"
    errors = sorted(Draft202012Validator(tool.output_schema).iter_errors(entry.structured), key=lambda e: list(e.path))
    if not errors:
        return "valid against the output schema"
    first = errors[0]
    where = "/".join(str(p) for p in first.path) or "(root)"
    more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"invalid: {where}: {first.message}{more}"


def fill_result(entry: EvidenceEntry, tool: Tool | None, result: dict[str, Any]) -> None:
    entry.content = parse_content(result.get("content"))
    entry.has_structured = "structuredContent" in result
    entry.structured = result.get("structuredContent")
    entry.outcome = "tool_error" if result.get("isError") is True else "ok"
    entry.result_size = len(json.dumps(result, default=str))
    # The validator quotes the server's values in its messages: made safe like all server text.
    checked = check_output_schema(tool, entry) if entry.outcome == "ok" else "not checked (isError)"
    entry.schema_check = sanitize_line(checked, SCHEMA_MESSAGE_LIMIT)
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
    elif isinstance(error, ServerUnavailable):
        entry.outcome = "unavailable"
    else:
        entry.outcome = "protocol_error"


def fill_unexpected(entry: EvidenceEntry, error: Exception) -> None:
    entry.outcome = "failed"
    entry.error = f"unexpected error in rea-tui: {type(error).__name__}: {error}"


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
) -> EvidenceEntry:
    """Send the call and record it. Cancelling the calling task cancels the request."""
    entry = ledger.open(connection.name, tool_name, arguments, approval, follows=follows)
    started = time.perf_counter()

    async def progressed(progress: float, total: float | None, message: str | None) -> None:
        entry.progress = Progress(progress, total, message)
        ledger.changed(entry)
        if on_update is not None:
            on_update(entry)

    progress_callback: Callable[[float, float | None, str | None], Awaitable[None]] = progressed
    try:
        result = await connection.request_interactive(
            "tools/call",
            {"name": tool.wire if tool is not None else tool_name, "arguments": arguments},
            timeout=timeout,
            on_progress=progress_callback,
        )
        fill_result(entry, tool, result)
    except HostError as exc:
        fill_error(entry, exc)
    except asyncio.CancelledError:
        entry.outcome = "cancelled"
        entry.error = "cancelled by the analyst (notifications/cancelled sent)"
        raise
    except Exception as exc:
        # Never left "running": the entry says what broke, and the caller's error route reports it too.
        fill_unexpected(entry, exc)
        raise
    finally:
        entry.duration_ms = (time.perf_counter() - started) * 1000.0
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
