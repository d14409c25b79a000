"""Replaying a recorded session: the steps to walk again, and how a new result differs.

Offline, the recorded evidence, workflow and notes are rebuilt as they were.
Online, the same prompt is rendered and the same tool calls are offered again,
each behind its approval, and every new result is compared with the recorded
one.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from typing import Any

from rea_tui.host.errors import FieldDiagnostic
from rea_tui.host.evidence import EvidenceEntry
from rea_tui.host.models import ContentBlock, MediaBlock, parse_content, parse_resource_contents
from rea_tui.host.narrowing import detect_narrowing
from rea_tui.host.notes import NOTE_KINDS, NoteKind
from rea_tui.host.transcript import Transcript
from rea_tui.host.workflow import Workflow, WorkflowMessage, WorkflowStep


@dataclass(frozen=True)
class RecordedCall:
    server: str
    tool: str
    arguments: dict[str, Any]
    entry: dict[str, Any]


@dataclass
class ReplayPlan:
    transcript: Transcript
    workflows: list[dict[str, Any]] = field(default_factory=list)
    calls: list[RecordedCall] = field(default_factory=list)
    notes: list[tuple[NoteKind, str, list[str]]] = field(default_factory=list)
    elicitations: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def next_elicitation(self, server: str) -> dict[str, Any] | None:
        """The recorded answer to this server's next elicitation form, if any."""
        queue = self.elicitations.get(server) or []
        return queue.pop(0) if queue else None


def plan_replay(transcript: Transcript) -> ReplayPlan:
    plan = ReplayPlan(transcript=transcript, workflows=transcript.of_type("workflow"))
    for event in transcript.of_type("tool_call"):
        arguments = event.get("arguments")
        plan.calls.append(
            RecordedCall(
                server=str(event.get("server", "")),
                tool=str(event.get("tool", "")),
                arguments=arguments if isinstance(arguments, dict) else {},
                entry=event,
            )
        )
    live: dict[int, tuple[NoteKind, str, list[str]]] = {}
    for event in transcript.events:
        if event.get("type") == "note" and event.get("kind") in NOTE_KINDS and isinstance(event.get("number"), int):
            live[event["number"]] = (
                event["kind"],
                str(event.get("text", "")),
                [str(c) for c in event.get("cites") or []],
            )
        elif event.get("type") == "note_removed":
            live.pop(event.get("number", -1), None)
    plan.notes = list(live.values())
    for event in transcript.of_type("elicitation"):
        if event.get("action") == "accept" and isinstance(event.get("content"), dict):
            plan.elicitations.setdefault(str(event.get("server", "")), []).append(event["content"])
    return plan


def _blocks(raw: Any) -> list[ContentBlock]:
    """Content as recorded (`block_json` form) back into blocks."""
    blocks: list[ContentBlock] = []
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, dict):
            continue
        if "data" in item or isinstance(item.get("resource"), dict):
            blocks.extend(parse_content(item))  # recorded as the server sent it
        elif item.get("type") in ("image", "audio"):
            size = item.get("sizeBytes")
            blocks.append(
                MediaBlock(str(item["type"]), str(item.get("mimeType", "?")), size if isinstance(size, int) else 0)
            )
        elif item.get("type") == "resource":
            embedded = parse_resource_contents(item)
            if embedded is not None:
                blocks.append(embedded)
        else:
            blocks.extend(parse_content(item))
    return blocks


def entry_from_record(record: dict[str, Any]) -> EvidenceEntry:
    """A recorded `tool_call` event as an evidence entry (for offline replay)."""
    raw_error = record.get("error")
    error: dict[str, Any] = raw_error if isinstance(raw_error, dict) else {}
    raw_arguments = record.get("arguments")
    entry = EvidenceEntry(
        id=str(record.get("id", "?")),
        server=str(record.get("server", "")),
        tool=str(record.get("tool", "")),
        arguments=raw_arguments if isinstance(raw_arguments, dict) else {},
        started=float(record.get("started") or 0),
        approval=f"recorded: {record.get('approval', '')}",
        outcome=record.get("outcome", "ok") if record.get("outcome") != "running" else "cancelled",
        duration_ms=record.get("durationMs") if isinstance(record.get("durationMs"), int | float) else None,
        follows=record.get("follows") if isinstance(record.get("follows"), str) else None,
    )
    entry.content = _blocks(record.get("content"))
    entry.has_structured = "structuredContent" in record
    entry.structured = record.get("structuredContent")
    entry.schema_check = str(record.get("schemaCheck", ""))
    entry.error = str(error.get("message", "")) if error else ""
    entry.error_code = error.get("code") if error else None
    entry.field_errors = [
        FieldDiagnostic(str(f.get("field", "")), str(f.get("message", "")))
        for f in (error.get("fields") or [])
        if isinstance(f, dict)
    ]
    entry.exit_code = record.get("exitCode")
    entry.stderr_tail = str(record.get("stderrTail", "") or "")
    entry.narrowing = detect_narrowing(entry.structured, entry.content)
    narrowing = record.get("narrowing")
    if isinstance(narrowing, dict) and isinstance(narrowing.get("round"), int):
        entry.narrowing_round = narrowing["round"]
    return entry


def workflow_from_record(record: dict[str, Any]) -> Workflow:
    messages = [
        WorkflowMessage(role=str(m.get("role", "?")), blocks=tuple(_blocks(m.get("content"))))
        for m in record.get("messages", [])
        if isinstance(m, dict)
    ]
    steps = [
        WorkflowStep(tool=str(s.get("tool", "")), description=str(s.get("description", "")), position=i)
        for i, s in enumerate(record.get("steps", []))
        if isinstance(s, dict)
    ]
    arguments = record.get("arguments")
    return Workflow(
        prompt=str(record.get("prompt", "")),
        arguments=arguments if isinstance(arguments, dict) else {},
        description=str(record.get("description", "")),
        messages=tuple(messages),
        steps=tuple(steps),
    )


def comparable(record: dict[str, Any]) -> str:
    """What must match between a recorded and a new result, as stable text."""
    texts = [b.get("text", "") for b in record.get("content", []) if isinstance(b, dict)]
    data = {
        "outcome": record.get("outcome"),
        "text": texts,
        "structuredContent": record.get("structuredContent"),
    }
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False, default=str)


def compare(recorded: dict[str, Any], entry: EvidenceEntry) -> str | None:
    """None when the new result matches the recording, else a unified diff (recorded → now)."""
    before = comparable(recorded).splitlines()
    after = comparable(entry.to_json()).splitlines()
    if before == after:
        return None
    diff = difflib.unified_diff(
        before, after, f"recorded {recorded.get('id', '?')}", f"now {entry.id}", lineterm="", n=1
    )
    return "\n".join(list(diff)[:400])
