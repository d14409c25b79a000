"""The evidence ledger: every tool call the analyst approved, with what came back.

Each entry has a key, numbered E1, E2, ... per session (transcripts, narrowing
chains and replays refer to entries by it; the analyst never sees it), and a
reference, the one ID the analyst sees and cites: the server's own evidence ID
when its result carries one (REA's `structuredContent.evidence_id`, `E-0004`),
qualified by a short server name when the session has several servers
(`rea:E-0004`); a host ID otherwise (`H1`, `H2`, numbered apart from the keys,
so it cannot be taken for a server's). A narrowing reply is the server's
question, not evidence: it has no reference and is shown as the question.
Entries are never removed; a narrowing conversation is a chain of entries
(each round points at the one before).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from rea_tui.host.features.narrowing import NarrowingQuestion
from rea_tui.host.protocol.errors import FieldDiagnostic
from rea_tui.host.protocol.models import ContentBlock, block_json, block_text
from rea_tui.host.protocol.observers import Listeners, Unsubscribe

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
# Where a result carries the server's own evidence ID (the REA convention).
EVIDENCE_ID_KEY = "evidence_id"
# A server's ID is shown and cited only when it is a short plain token (no spaces, markup or controls).
_SERVER_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}")
Qualifier = Callable[[str], "str | None"]
# The IDs the host gives results that carry none of the server's: H1, H2, ...
HOST_ID_PREFIX = "H"
_HOST_ID = re.compile(rf"{HOST_ID_PREFIX}(\d+)")
# What the ledger shows in place of an ID: for a narrowing reply, and for a call still under way.
QUESTION_LABEL = "question"
PENDING_LABEL = "…"

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
    # The ID the analyst sees and cites: "" until the call ends, and for a narrowing reply (not evidence).
    ref: str = ""
    # What qualifies the server's IDs in a session of several servers (None: one server).
    qualifier: str | None = None
    # The result (or error object) as the server sent it, for machine output; not recorded in transcripts.
    result: dict[str, Any] | None = None
    # A task-augmented call: the server's task id and its last status.
    task_id: str | None = None
    task_status: str | None = None

    @property
    def label(self) -> str:
        """What the ledger shows for this entry: its ID, or what it is when it has none."""
        return entry_label(self.ref, self.narrowing is not None)

    @property
    def server_evidence_id(self) -> str | None:
        """The evidence ID the server gave this result, if it gave a usable one."""
        return server_evidence_id(self.structured)

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
            "ref": self.ref,
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


def entry_label(ref: str, narrowing: bool) -> str:
    """An entry's ID, or in its place what the entry is: the server's question, or a call under way."""
    return ref or (QUESTION_LABEL if narrowing else PENDING_LABEL)


def recorded_ref(record: dict[str, Any]) -> str:
    """The ID a recorded `tool_call` was cited by ("" for a narrowing reply).

    Transcripts from before references were cited by the key.
    """
    if "ref" in record:
        return str(record.get("ref") or "")
    return str(record.get("id") or "")


def recorded_label(record: dict[str, Any]) -> str:
    """What the ledger showed for a recorded `tool_call`: its ID, or what it was."""
    return entry_label(recorded_ref(record), isinstance(record.get("narrowing"), dict))


def server_evidence_id(structured: Any) -> str | None:
    """`structuredContent.evidence_id` when it is a short plain token, else None."""
    value = structured.get(EVIDENCE_ID_KEY) if isinstance(structured, dict) else None
    return value if isinstance(value, str) and _SERVER_ID.fullmatch(value) else None


def citation_qualifiers(servers: Iterable[str]) -> dict[str, str]:
    """A short, distinct token per server name to qualify its evidence IDs (`rea` for "rea (bundled)")."""
    names = list(dict.fromkeys(servers))
    slugs = {name: re.sub(r"[^a-z0-9]+", "-", name.casefold()).strip("-") or "server" for name in names}
    words = {name: slug.split("-")[0] for name, slug in slugs.items()}
    qualifiers: dict[str, str] = {}
    for name in names:
        word_taken = sum(1 for other in names if words[other] == words[name]) > 1
        qualifier = slugs[name] if word_taken else words[name]
        # Distinct names can still share a slug ("a b" and "a-b"): number the later ones.
        taken = set(qualifiers.values())
        candidate, number = qualifier, 2
        while candidate in taken:
            candidate, number = f"{qualifier}-{number}", number + 1
        qualifiers[name] = candidate
    return qualifiers


def _duration(ms: float) -> str:
    return f"{ms:,.0f} ms" if ms < SECONDS_SHOWN_FROM_MS else f"{ms / 1000:,.1f} s"


class EvidenceLedger:
    """All evidence entries of a session, in order."""

    def __init__(self, qualifier: Qualifier | None = None) -> None:
        """`qualifier(server)`: the token that qualifies that server's IDs, or None (a one-server session)."""
        self.entries: list[EvidenceEntry] = []
        self.listeners: Listeners[EvidenceEntry] = Listeners()
        self.qualifier = qualifier

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
            qualifier=self.qualifier(server) if self.qualifier is not None else None,
        )
        self.entries.append(entry)
        self.changed(entry)
        return entry

    def restore(self, entry: EvidenceEntry) -> None:
        """Put back an entry recorded in an earlier session, with its original key and reference."""
        self.entries.append(entry)
        self.listeners.emit(entry)

    def changed(self, entry: EvidenceEntry) -> None:
        # A task's result is still to come when it is submitted: its ID waits for it.
        settled = entry.finished and entry.outcome != "task_submitted"
        if settled and not entry.ref and entry.narrowing is None:
            entry.ref = self._reference(entry)
        self.listeners.emit(entry)

    def _reference(self, entry: EvidenceEntry) -> str:
        """The server's ID for a finished entry (qualified in a session of several servers), else a host ID."""
        server_id = entry.server_evidence_id
        if server_id is None:
            return self._next_host_id()
        ref = f"{entry.qualifier}:{server_id}" if entry.qualifier else server_id
        # A restarted server numbers from the start again: an ID an earlier entry has keeps to that one.
        return self._next_host_id() if self.find(ref) is not None else ref

    def _next_host_id(self) -> str:
        """One past the highest host ID the ledger holds (restored entries included), and not an ID in use."""
        numbers = [int(m.group(1)) for ref in self.refs() if (m := _HOST_ID.fullmatch(ref))]
        number = max(numbers, default=0) + 1
        while self.find(f"{HOST_ID_PREFIX}{number}") is not None:
            number += 1
        return f"{HOST_ID_PREFIX}{number}"

    def get(self, entry_id: str | None) -> EvidenceEntry | None:
        """The entry with this key (E1, E2...)."""
        return next((e for e in self.entries if e.id == entry_id), None)

    def find(self, ref: str | None) -> EvidenceEntry | None:
        """The entry the analyst cites as `ref` (the ID the ledger shows)."""
        if not ref:
            return None
        return next((e for e in self.entries if e.ref == ref), None)

    def ids(self) -> list[str]:
        return [e.id for e in self.entries]

    def refs(self) -> list[str]:
        """The IDs the analyst sees and cites, in order (narrowing replies and calls under way have none)."""
        return [e.ref for e in self.entries if e.ref]

    def search(self, text: str) -> list[EvidenceEntry]:
        """Entries whose ID, tool, outcome, arguments or text contain `text` (case-insensitive)."""
        needle = text.casefold().strip()
        if not needle:
            return list(self.entries)
        found = []
        for entry in self.entries:
            haystack = " ".join(
                [
                    entry.label,
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
