"""The evidence ledger: every tool call the analyst approved, with what came back.

Entries are numbered E1, E2, ... per session and never removed; a narrowing
conversation is a chain of entries (each round points at the one before).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from rea_tui.host.errors import FieldDiagnostic
from rea_tui.host.models import ContentBlock, block_json, block_text
from rea_tui.host.narrowing import NarrowingQuestion
from rea_tui.host.observers import Listeners, Unsubscribe

Outcome = Literal[
    "running",
    "ok",
    "tool_error",
    "protocol_error",
    "cancelled",
    "timed_out",
    "server_exited",
    "unavailable",
    "authorization_needed",
    "task_submitted",
    "failed",
]
OUTCOME_LABELS: dict[str, str] = {
    "running": "running",
    "ok": "ok",
    "tool_error": "isError",
    "protocol_error": "protocol error",
    "cancelled": "cancelled",
    "timed_out": "timed out",
    "server_exited": "server exited",
    "unavailable": "unavailable",
    "authorization_needed": "authorization needed",
    "task_submitted": "task submitted",
    "failed": "failed",
}
# Durations under this many milliseconds are shown in ms, longer ones in seconds.
SECONDS_SHOWN_FROM_MS = 1_000.0


@dataclass
class Progress:
    progress: float
    total: float | None
    message: str | None

    @property
    def fraction(self) -> float | None:
        if self.total is None or self.total <= 0:
            return None
        return max(0.0, min(1.0, self.progress / self.total))


@dataclass
class EvidenceEntry:
    id: str
    server: str
    tool: str
    arguments: dict[str, Any]
    started: float
    approval: str
    outcome: Outcome = "running"
    # The server's time: the call's wall time minus the time dialogs waited for the analyst (`waited_ms`).
    duration_ms: float | None = None
    waited_ms: float = 0.0
    content: list[ContentBlock] = field(default_factory=list)
    structured: Any = None
    has_structured: bool = False
    schema_check: str = ""
    error: str = ""
    error_code: int | None = None
    field_errors: list[FieldDiagnostic] = field(default_factory=list)
    exit_code: int | None = None
    stderr_tail: str = ""
    narrowing: NarrowingQuestion | None = None
    narrowing_round: int = 1
    follows: str | None = None
    progress: Progress | None = None
    result_size: int = 0
    # In a replay: the recorded entry this one repeats, and how the result differs (None: it matches).
    replay_of: str | None = None
    replay_diff: str | None = None
    # The result (or error object) as the server sent it, for machine output; not recorded in transcripts.
    result: dict[str, Any] | None = None
    # A task-augmented call: the server's task id and its last status.
    task_id: str | None = None
    task_status: str | None = None

    @property
    def outcome_label(self) -> str:
        return OUTCOME_LABELS[self.outcome]

    @property
    def duration_label(self) -> str:
        """`1.2 s`, or `1.2 s (plus 14 s waiting for you)` when a dialog waited for the analyst."""
        if self.duration_ms is None:
            return ""
        label = _duration(self.duration_ms)
        if self.waited_ms >= 1.0:
            label += f" (plus {_duration(self.waited_ms)} waiting for you)"
        return label

    @property
    def finished(self) -> bool:
        return self.outcome != "running"

    def text(self) -> str:
        """All the text the result carried."""
        return "\n".join(t for t in (block_text(b) for b in self.content) if t)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "server": self.server,
            "tool": self.tool,
            "arguments": self.arguments,
            "started": self.started,
            "durationMs": None if self.duration_ms is None else round(self.duration_ms, 1),
            **({"waitedMs": round(self.waited_ms, 1)} if self.waited_ms >= 1.0 else {}),
            "approval": self.approval,
            "outcome": self.outcome,
            "content": [block_json(b) for b in self.content],
            "schemaCheck": self.schema_check,
        }
        if self.has_structured:
            data["structuredContent"] = self.structured
        if self.error:
            data["error"] = {
                "message": self.error,
                "code": self.error_code,
                "fields": [{"field": f.field, "message": f.message} for f in self.field_errors],
            }
        if self.exit_code is not None or self.stderr_tail:
            data["exitCode"] = self.exit_code
            data["stderrTail"] = self.stderr_tail
        if self.narrowing is not None:
            data["narrowing"] = {**self.narrowing.to_json(), "round": self.narrowing_round}
        if self.follows:
            data["follows"] = self.follows
        if self.task_id is not None:
            data["task"] = {"taskId": self.task_id, "status": self.task_status}
        if self.replay_of:
            data["replayOf"] = self.replay_of
            data["replayDiff"] = self.replay_diff
        return data


def _duration(ms: float) -> str:
    return f"{ms:,.0f} ms" if ms < SECONDS_SHOWN_FROM_MS else f"{ms / 1000:,.1f} s"


class EvidenceLedger:
    """All evidence entries of a session, in order."""

    def __init__(self) -> None:
        self.entries: list[EvidenceEntry] = []
        self.listeners: Listeners[EvidenceEntry] = Listeners()

    def subscribe(self, listener: Callable[[EvidenceEntry], None]) -> Unsubscribe:
        return self.listeners.subscribe(listener)

    def open(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any],
        approval: str,
        *,
        follows: str | None = None,
    ) -> EvidenceEntry:
        previous = self.get(follows) if follows else None
        entry = EvidenceEntry(
            id=f"E{len(self.entries) + 1}",
            server=server,
            tool=tool,
            arguments=dict(arguments),
            started=time.time(),
            approval=approval,
            follows=follows,
            narrowing_round=(previous.narrowing_round + 1) if previous and previous.narrowing else 1,
        )
        self.entries.append(entry)
        self.changed(entry)
        return entry

    def restore(self, entry: EvidenceEntry) -> None:
        """Put back an entry recorded in an earlier session, with its original id."""
        self.entries.append(entry)
        self.changed(entry)

    def changed(self, entry: EvidenceEntry) -> None:
        self.listeners.emit(entry)

    def get(self, entry_id: str | None) -> EvidenceEntry | None:
        return next((e for e in self.entries if e.id == entry_id), None)

    def ids(self) -> list[str]:
        return [e.id for e in self.entries]

    def search(self, text: str) -> list[EvidenceEntry]:
        """Entries whose id, tool, outcome, arguments or text contain `text` (case-insensitive)."""
        needle = text.casefold().strip()
        if not needle:
            return list(self.entries)
        found = []
        for entry in self.entries:
            haystack = " ".join(
                [
                    entry.id,
                    entry.tool,
                    entry.outcome_label,
                    entry.server,
                    repr(entry.arguments),
                    entry.text()[:20_000],
                ]
            ).casefold()
            if needle in haystack:
                found.append(entry)
        return found
