"""Replaying a recorded session: the steps to walk again, and how a new result differs.

Offline, the recorded evidence, workflow and notes are rebuilt as they were.
Online, the same prompt is rendered and the same tool calls are offered again,
each behind its approval, and every new result is compared with the recorded
one: its outcome, its structured content and its text, value by value, leaving
out what changes from run to run by nature (durations, times, process ids,
server-minted evidence IDs).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from rea_tui.host.evidence.evidence import EvidenceEntry, recorded_label, recorded_ref
from rea_tui.host.evidence.notes import NOTE_KINDS, NoteKind
from rea_tui.host.features.narrowing import detect_narrowing
from rea_tui.host.features.workflow import Workflow, WorkflowMessage, WorkflowStep
from rea_tui.host.protocol.errors import FieldDiagnostic
from rea_tui.host.protocol.models import ContentBlock, MediaBlock, parse_content, parse_resource_contents
from rea_tui.host.records.transcript import Transcript


@dataclass(frozen=True)
class RecordedCall:
    server: str
    tool: str
    arguments: dict[str, Any]
    entry: dict[str, Any]

    @property
    def ref(self) -> str:
        """The ID the analyst cited this call by ("" for a narrowing reply; transcripts before references: its key)."""
        return recorded_ref(self.entry)

    @property
    def label(self) -> str:
        """What the ledger showed for this call: its ID, or that it was the server's question."""
        return recorded_label(self.entry)


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
        # What the analyst saw and cited then; a transcript from before references cited the key.
        ref=recorded_ref(record),
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


# Fields whose value differs from run to run by nature: durations, clock times, process ids, minted IDs.
_VOLATILE = re.compile(
    r"(?i)(.*(duration|elapsed|latency|timestamp).*|.*_(ms|at|time)|time|started|finished|pid|evidence_id)"
)
# How many differences a replay lists (the count says how many there were).
DIFFERENCE_LIMIT = 40
VALUE_LIMIT = 120


def _stable(value: Any) -> Any:
    """`value` without its volatile fields, at every depth."""
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if not _VOLATILE.fullmatch(str(k))}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def _as_data(text: str) -> Any:
    """A text block as data: JSON when it is JSON (REA repeats its structured content so), else its lines."""
    try:
        return json.loads(text)
    except ValueError:
        return text.splitlines()


def comparable(record: dict[str, Any]) -> dict[str, Any]:
    """What must match between a recorded and a new result, as data."""
    texts = [
        _as_data(b["text"])
        for b in record.get("content") or []
        if isinstance(b, dict) and isinstance(b.get("text"), str)
    ]
    data: dict[str, Any] = {"outcome": record.get("outcome")}
    if "structuredContent" in record:
        data["structuredContent"] = record["structuredContent"]
        # A text block that repeats the structured content (REA's do) would list each difference twice.
        texts = [text for text in texts if text != record["structuredContent"]]
    data["text"] = texts
    return {key: _stable(value) for key, value in data.items()}


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= VALUE_LIMIT else text[: VALUE_LIMIT - 1] + "…"


def differences(before: Any, after: Any, path: str = "") -> Iterator[str]:
    """Each place where `after` differs from `before`: `path: recorded → now`."""
    where = path or "(the result)"
    if isinstance(before, dict) and isinstance(after, dict):
        for key in before:
            child = f"{path}.{key}" if path else str(key)
            if key not in after:
                yield f"{child}: {_shown(before[key])} → (gone)"
            else:
                yield from differences(before[key], after[key], child)
        for key in after:
            if key not in before:
                yield f"{f'{path}.{key}' if path else key}: (not recorded) → {_shown(after[key])}"
    elif isinstance(before, list) and isinstance(after, list):
        for index, (old, new) in enumerate(zip(before, after, strict=False)):
            yield from differences(old, new, f"{path}[{index}]")
        if len(before) != len(after):
            yield f"{where}: {len(before):,} items recorded → {len(after):,} now"
    elif type(before) is not type(after) or before != after:
        yield f"{where}: {_shown(before)} → {_shown(after)}"


def compare(recorded: dict[str, Any], entry: EvidenceEntry) -> str | None:
    """None when the new result matches the recording, else the differences (recorded → now), one per line."""
    found = list(differences(comparable(recorded), comparable(entry.to_json())))
    if not found:
        return None
    count = f"{len(found)} difference{'s' if len(found) != 1 else ''}"
    head = f"recorded {recorded_label(recorded)} → now {entry.label}: {count}"
    shown = found[:DIFFERENCE_LIMIT]
    more = [f"… and {len(found) - len(shown)} more"] if len(found) > len(shown) else []
    return "\n".join([head, *shown, *more])
