"""The shape of `--json` output: MCP's objects as the server sent them, rea-tui's additions under `rea`.

A result (a tool call's, a resource read's, a listing's items) is the
server's JSON: camelCase, a field it left out is left out, content blocks
whole (with their data), `isError`, `structuredContent` and `_meta` as sent.
What rea-tui adds (the evidence id, the outcome, the duration, the approval,
a narrowing question, a task) is one `rea` object beside them. A failure is
a JSON object too, on stdout: `{"error": {...}, "rea": {"exitCode": N, ...}}`,
where `error` is the server's JSON-RPC error object when there was one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rea_tui.cli.exit_codes import ExitCode

if TYPE_CHECKING:
    from rea_tui.host import EvidenceEntry


def call_json(entry: EvidenceEntry, exit_code: ExitCode, earlier: list[EvidenceEntry] | None = None) -> dict[str, Any]:
    """One call: the server's result (or error) and, under `rea`, the evidence entry; earlier rounds first."""
    data = _entry_json(entry)
    data["rea"]["exitCode"] = int(exit_code)
    if earlier:
        data["rea"]["earlier"] = [_entry_json(e) for e in earlier]
    return data


def _entry_json(entry: EvidenceEntry) -> dict[str, Any]:
    rea: dict[str, Any] = {
        "evidence": entry.id,
        "server": entry.server,
        "tool": entry.tool,
        "arguments": entry.arguments,
        "approval": entry.approval,
        "outcome": entry.outcome,
    }
    if entry.duration_ms is not None:
        rea["durationMs"] = round(entry.duration_ms, 1)
    if entry.waited_ms >= 1.0:
        rea["waitedMs"] = round(entry.waited_ms, 1)
    if entry.schema_check:
        rea["schemaCheck"] = entry.schema_check
    if entry.narrowing is not None:
        rea["narrowing"] = {**entry.narrowing.to_json(), "round": entry.narrowing_round}
    if entry.follows:
        rea["follows"] = entry.follows
    if entry.task_id is not None:
        rea["task"] = {"taskId": entry.task_id, "status": entry.task_status}
    if entry.outcome in ("ok", "tool_error"):
        return {**(entry.result or {}), "rea": rea}
    if entry.outcome == "task_submitted":
        return {**(entry.result or {}), "rea": rea}  # the server's CreateTaskResult
    error: dict[str, Any] = (
        dict(entry.result) if entry.result and "code" in entry.result else {"message": entry.error or entry.outcome}
    )
    if entry.exit_code is not None or entry.stderr_tail:
        rea["exitCode"] = entry.exit_code
        rea["stderrTail"] = entry.stderr_tail
    return {"error": error, "rea": rea}


def error_json(error: BaseException, exit_code: ExitCode) -> dict[str, Any]:
    """A command that failed: the JSON-RPC error when the server sent one, else what happened."""
    from rea_tui.host import HostError, ProtocolError

    rea: dict[str, Any] = {"exitCode": int(exit_code), "kind": type(error).__name__}
    if isinstance(error, ProtocolError):
        body: dict[str, Any] = error.to_json()
        if error.fields:
            rea["fields"] = [{"field": f.field, "message": f.message} for f in error.fields]
    else:
        body = {"message": error.describe() if isinstance(error, HostError) else str(error)}
    return {"error": body, "rea": rea}
