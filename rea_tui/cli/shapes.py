"""The shape of `--json` output: MCP's objects as the server sent them, rea-tui's additions under `rea`.

A result (a tool call's, a resource read's, a listing's items) is the
server's JSON: camelCase, a field it left out is left out, content blocks
whole (with their data), `isError`, `structuredContent` and `_meta` as sent.
What rea-tui adds (the evidence id, the outcome, the duration, the approval,
a narrowing question, a task) is one `rea` object beside them. A failure is
a JSON object too, on stdout: `{"error": {...}, "rea": {"exitCode": N, ...}}`,
where `error` is the server's JSON-RPC error object when there was one.
A command that fails before it has anything to print (a usage error, a
capability the server lacks) still prints that object (`finish_json`), and
the `exitCode` in the JSON is always the process's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rea_tui.cli.exit_codes import ExitCode

if TYPE_CHECKING:
    from rea_tui.cli.output import Output, OutputMark
    from rea_tui.host import CompletionPage, EvidenceEntry


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
        # The server process's exit status (`exitCode` is the command's own).
        rea["serverExitCode"] = entry.exit_code
        rea["stderrTail"] = entry.stderr_tail
    return {"error": error, "rea": rea}


def completion_json(page: CompletionPage) -> dict[str, Any]:
    """A `completion/complete` result as sent (`completion`, `_meta`); under `rea` what was asked, the latency, and
    what rea-tui found wrong with the list or read in its `_meta`."""
    rea = {
        "argument": page.argument,
        "value": page.value,
        "latencyMs": round(page.latency_ms, 1),
        "warnings": list(page.warnings),
        "notes": list(page.notes),
    }
    return {**page.raw, "rea": rea}


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


def wants_json(argv: Sequence[str]) -> bool:
    """`--json` among a command line's options (not in a stdio command after `--`)."""
    options = argv[: list(argv).index("--")] if "--" in argv else argv
    return "--json" in options


def failure_json(message: str, exit_code: int) -> dict[str, Any]:
    """A failure that is no server's error: what rea-tui said, and the exit code (`kind` names the exit code)."""
    kind = "UsageError" if exit_code == ExitCode.USAGE else _exit_code_name(exit_code)
    return {"error": {"message": message}, "rea": {"exitCode": int(exit_code), "kind": kind}}


def _exit_code_name(exit_code: int) -> str:
    try:
        return ExitCode(exit_code).name.title().replace("_", "")
    except ValueError:
        return "Failed"


def finish_json(out: Output, since: OutputMark, exit_code: int, message: str | None = None) -> None:
    """With `--json`: a command that failed without printing JSON prints its error as JSON on stdout.

    Every command line ends here (`rea_tui.cli.main.run`, and a warm session's
    `execute`), so no failure leaves stdout empty, whichever path it took.
    `since`: where this command line's output began; `message`: what argparse said, when the command line could
    not be parsed.
    """
    if exit_code == ExitCode.OK or out.json_count > since.json_count:
        return
    said = message or "; ".join(out.errors[since.errors :]) or f"failed with exit code {int(exit_code)}"
    out.json(failure_json(said, exit_code))
