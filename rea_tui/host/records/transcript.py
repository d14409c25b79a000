"""The session transcript: one JSON line per event, written and flushed as it happens.

The file is made with the first event worth keeping (a prompt chosen, a
call, a note...): starting rea-tui and connecting its servers alone leave no
transcript behind; those first events are written then, with their own times.
A crash or kill of rea-tui loses at most the event being written. Header
values and secret environment values never reach the file: every line is
redacted with the same secrets as the traffic log, and elicitation answers
the form marked as sensitive are replaced before they are written.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from rea_tui import __version__
from rea_tui.host.protocol.models import block_json

if TYPE_CHECKING:
    from rea_tui.host.evidence.evidence import EvidenceEntry
    from rea_tui.host.evidence.notes import Note
    from rea_tui.host.features.interaction import (
        ElicitationAnswer,
        ElicitationRequest,
        SamplingAnswer,
        SamplingRequest,
    )
    from rea_tui.host.features.workflow import Workflow
    from rea_tui.host.protocol.connection import Connection

REDACTED = "‹redacted›"
TRANSCRIPT_SUFFIX = ".jsonl"
# Events that alone do not make a session worth a transcript: it started, servers came and went, it ended.
BOOKKEEPING_EVENTS = frozenset({"session", "server", "server_failed", "session_end"})


def sessions_dir() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("rea-tui")) / "sessions"


def new_transcript_path(directory: Path | None = None) -> Path:
    folder = directory or sessions_dir()
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime())
    return folder / f"{stamp}-{os.getpid()}{TRANSCRIPT_SUFFIX}"


def sensitive_fields(schema: dict[str, Any]) -> set[str]:
    """Properties of an elicitation schema whose values must not be kept."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return set()
    return {
        str(name)
        for name, prop in properties.items()
        if isinstance(prop, dict)
        and (prop.get("format") == "password" or prop.get("writeOnly") is True or prop.get("x-sensitive") is True)
    }


def redact_content(content: dict[str, Any] | None, schema: dict[str, Any]) -> dict[str, Any] | None:
    if content is None:
        return None
    hidden = sensitive_fields(schema)
    return {k: (REDACTED if k in hidden else v) for k, v in content.items()}


class TranscriptWriter:
    """Appends events to a JSONL file; each line is complete and flushed before the call returns.

    A bookkeeping event (the session started, a server connected...) is held until the first event
    worth keeping, which makes the file; a writer closed with only those makes no file at all.
    """

    def __init__(self, path: Path | None, secrets: Iterable[str] = ()) -> None:
        """With `path` None nothing is written (an offline replay records nothing new)."""
        self.path = path
        self._secrets = sorted({s for s in secrets if s}, key=len, reverse=True)
        self._seq = 0
        self._file: IO[str] | None = None
        self._deferred: list[dict[str, Any]] = []

    @property
    def started(self) -> bool:
        """Whether the file exists (an event worth keeping was written)."""
        return self._file is not None

    def add_secrets(self, secrets: Iterable[str]) -> None:
        self._secrets = sorted({*self._secrets, *(s for s in secrets if s)}, key=len, reverse=True)

    def _record(self, event: str, data: dict[str, Any]) -> dict[str, Any]:
        self._seq += 1
        return {"seq": self._seq, "time": time.time(), "type": event, **data}

    def write(self, event: str, /, **data: Any) -> None:
        if self.path is None:
            return
        record = self._record(event, data)
        if self._file is None and event in BOOKKEEPING_EVENTS:
            self._deferred.append(record)
            return
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self.path.open("a", encoding="utf-8")
            for earlier in self._deferred:
                self._put(earlier)
            self._deferred.clear()
        self._put(record)

    def _put(self, record: dict[str, Any]) -> None:
        assert self._file is not None
        line = json.dumps(record, ensure_ascii=False, default=str)
        for secret in self._secrets:
            line = line.replace(json.dumps(secret)[1:-1], REDACTED)
        self._file.write(line + "\n")
        self._file.flush()

    def close(self) -> None:
        self._deferred.clear()
        if self._file is not None:
            self._file.close()
            self._file = None


@dataclass
class Transcript:
    """A transcript read back: its events in order, and whether a last line was cut off."""

    path: Path
    events: list[dict[str, Any]] = field(default_factory=list)
    truncated: bool = False

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("type") == kind]

    def first(self, kind: str) -> dict[str, Any] | None:
        return next(iter(self.of_type(kind)), None)

    @property
    def started(self) -> float | None:
        session = self.first("session")
        value = session.get("time") if session else None
        return float(value) if isinstance(value, int | float) else None


def read_transcript(path: Path) -> Transcript:
    """Every complete event of a transcript; a torn last line (a kill mid-write) is skipped."""
    transcript = Transcript(path=path)
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if not line.strip():
                continue
            try:
                event = json.loads(line)
            except ValueError:
                transcript.truncated = True
                continue
            if isinstance(event, dict):
                transcript.events.append(event)
    return transcript


def list_transcripts(directory: Path | None = None) -> Iterator[Path]:
    folder = directory or sessions_dir()
    if folder.is_dir():
        yield from sorted(folder.glob(f"*{TRANSCRIPT_SUFFIX}"), reverse=True)


def worth_keeping(transcript: Transcript) -> bool:
    """Whether anything happened in the session beyond starting, connecting and ending."""
    return any(event.get("type") not in BOOKKEEPING_EVENTS for event in transcript.events)


def prune_transcripts(directory: Path | None = None) -> list[Path]:
    """Remove the transcripts in which nothing happened (older rea-tui wrote one per start); the ones removed.

    A transcript with anything worth keeping stays, however it ended (a killed session's evidence is kept).
    """
    removed = []
    for path in list_transcripts(directory):
        try:
            empty = not worth_keeping(read_transcript(path))
        except OSError:
            continue
        if empty:
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed


def summarize(path: Path) -> dict[str, Any]:
    """What `rea-tui sessions` shows for one transcript."""
    transcript = read_transcript(path)
    servers = [e.get("name") for e in transcript.of_type("server")]
    prompts = [e.get("prompt") for e in transcript.of_type("workflow")]
    return {
        "path": str(path),
        "started": transcript.started,
        "version": (transcript.first("session") or {}).get("version"),
        "servers": list(dict.fromkeys(s for s in servers if isinstance(s, str))),
        "prompts": list(dict.fromkeys(p for p in prompts if isinstance(p, str))),
        "toolCalls": len(transcript.of_type("tool_call")),
        "notes": len(transcript.of_type("note")),
        "events": len(transcript.events),
        "truncated": transcript.truncated,
        "ended": transcript.first("session_end") is not None,
        "empty": not worth_keeping(transcript),
    }


def session_header() -> dict[str, Any]:
    return {"version": __version__, "pid": os.getpid()}


class SessionRecorder:
    """What the app tells the transcript, one method per kind of event."""

    def __init__(self, writer: TranscriptWriter) -> None:
        self.writer = writer
        writer.write("session", **session_header())

    @property
    def path(self) -> Path | None:
        return self.writer.path

    def server_connected(self, connection: Connection) -> None:
        spec = connection.spec
        self.writer.add_secrets(spec.secret_values())
        self.writer.write(
            "server",
            name=spec.name,
            transport=spec.transport,
            target=spec.display_target(),
            bundled=spec.bundled,
            protocolVersion=connection.protocol_version,
            serverInfo={"name": connection.server_name, "version": connection.server_version},
            capabilities=sorted(connection.capabilities),
        )

    def server_failed(self, server: str, error: str) -> None:
        self.writer.write("server_failed", name=server, error=error)

    def prompt_selected(self, server: str, prompt: str) -> None:
        self.writer.write("prompt_selected", server=server, prompt=prompt)

    def completion_accepted(self, server: str, target: str, argument: str, value: str) -> None:
        self.writer.write("completion_accepted", server=server, target=target, argument=argument, value=value)

    def workflow(self, server: str, workflow: Workflow) -> None:
        self.writer.write(
            "workflow",
            server=server,
            prompt=workflow.prompt,
            arguments=workflow.arguments,
            description=workflow.description,
            messages=[{"role": m.role, "content": [block_json(b) for b in m.blocks]} for m in workflow.messages],
            steps=[{"tool": s.tool, "description": s.description} for s in workflow.steps],
        )

    def approval(self, server: str, tool: str, arguments: dict[str, Any], decision: str) -> None:
        self.writer.write("approval", server=server, tool=tool, arguments=arguments, decision=decision)

    def tool_call(self, entry: EvidenceEntry) -> None:
        self.writer.write("tool_call", **entry.to_json())

    def narrowing_answer(self, entry: EvidenceEntry, candidate: str, argument: str) -> None:
        self.writer.write(
            "narrowing_answer",
            entry=entry.id,
            round=entry.narrowing_round,
            candidate=candidate,
            argument=argument,
        )

    def elicitation(self, request: ElicitationRequest, answer: ElicitationAnswer) -> None:
        self.writer.write(
            "elicitation",
            server=request.server,
            message=request.message,
            mode=request.mode,
            url=request.url or None,
            requestedSchema=request.requested_schema,
            action=answer.action,
            content=redact_content(answer.content, request.requested_schema),
        )

    def sampling(self, request: SamplingRequest, answer: SamplingAnswer) -> None:
        self.writer.write("sampling", server=request.server, declined=answer.text is None, reply=answer.text)

    def replay_started(self, recording: Path) -> None:
        """This session walks a recorded one again (its report says so)."""
        self.writer.write("replay", recording=recording.name)

    def replay_compared(self, entry: EvidenceEntry) -> None:
        """How a replayed call's result compares with the recorded one (`entry.replay_of`, `replay_diff`)."""
        self.writer.write(
            "replay_result",
            entry=entry.id,
            recorded=entry.replay_of,
            matches=entry.replay_diff is None,
            diff=entry.replay_diff,
        )

    def note(self, note: Note) -> None:
        self.writer.write("note", **note.to_json())

    def note_removed(self, number: int) -> None:
        self.writer.write("note_removed", number=number)

    def close(self, reason: str | None = None) -> None:
        """`reason`: why the session ended, when something other than the analyst ended it."""
        self.writer.write("session_end", **({"reason": reason} if reason else {}))
        self.writer.close()
