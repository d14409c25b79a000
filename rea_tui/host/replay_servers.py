"""Which servers a replay may start: a transcript names servers, but it must not start processes.

Transcripts are made to be shared, so what one says is not trusted. A
recorded server is matched by name to a server the analyst configured (or to
the bundled reference server), and then the configured command runs, never
the recorded one. A recorded stdio server with no configured match is only a
proposal: the exact command is shown and the analyst must say yes (no
terminal means no). A recorded HTTP server is a URL, and connecting to it
starts nothing on this machine; it is proposed the same way.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rea_tui.host.config import ServerSpec, bundled_server_spec
from rea_tui.host.safe_text import sanitize_line
from rea_tui.host.transcript import read_transcript

# Arguments of the bundled server a transcript may choose (deterministic targets only; nothing else).
SAFE_BUNDLED_OPTIONS = ("--synthetic", "--seed")
COMMAND_LIMIT = 2_000


@dataclass(frozen=True)
class RecordedServer:
    """A server as the transcript describes it (untrusted)."""

    name: str
    transport: str
    target: str
    bundled: bool


@dataclass(frozen=True)
class ReplayServer:
    """What the replay will connect to for one recorded server, and why."""

    recorded: RecordedServer
    spec: ServerSpec | None  # None: not started
    reason: str


Ask = Callable[[str], bool]


def recorded_servers(path: Path) -> list[RecordedServer]:
    found: list[RecordedServer] = []
    for event in read_transcript(path).of_type("server"):
        name, target = str(event.get("name", "")), str(event.get("target", ""))
        if name and target and all(r.name != name for r in found):
            found.append(
                RecordedServer(name, str(event.get("transport", "stdio")), target, event.get("bundled") is True)
            )
    return found


def _bundled_args(recorded: RecordedServer) -> tuple[str, ...] | None:
    """The recorded bundled server's options, if they are only the safe ones (else None)."""
    try:
        parts = shlex.split(recorded.target)
    except ValueError:
        return None
    if "-m" not in parts or parts[parts.index("-m") + 1 : parts.index("-m") + 2] != ["rea_tui.server"]:
        return None
    extra = parts[parts.index("-m") + 2 :]
    options, values = extra[0::2], extra[1::2]
    if len(options) != len(values) or any(o not in SAFE_BUNDLED_OPTIONS for o in options):
        return None
    if not all(v.isdigit() for v in values):
        return None
    return tuple(extra)


def choose_servers(
    recorded: Sequence[RecordedServer], configured: Sequence[ServerSpec], ask: Ask
) -> list[ReplayServer]:
    """For each recorded server: the configured one of that name, the bundled one, or what the analyst approved."""
    chosen: list[ReplayServer] = []
    for server in recorded:
        match = next((s for s in configured if s.name == server.name), None)
        if match is not None:
            chosen.append(ReplayServer(server, match, "configured under the same name"))
            continue
        if server.bundled and server.transport == "stdio":
            extra = _bundled_args(server)
            if extra is not None:
                spec = bundled_server_spec(extra)
                chosen.append(ReplayServer(server, ServerSpec(**{**spec.__dict__, "name": server.name}), "bundled"))
                continue
        shown = sanitize_line(server.target, COMMAND_LIMIT)
        if server.transport == "http":
            question = f"The transcript names the HTTP server {sanitize_line(server.name)} at {shown}. Connect?"
            spec = ServerSpec(name=server.name, transport="http", url=server.target)
        else:
            question = f"The transcript names {sanitize_line(server.name)}, started as:\n  {shown}\nRun this command?"
            try:
                command, *args = shlex.split(server.target)
            except ValueError:
                chosen.append(ReplayServer(server, None, "its command cannot be read"))
                continue
            spec = ServerSpec(name=server.name, transport="stdio", command=command, args=tuple(args))
        if ask(question):
            chosen.append(ReplayServer(server, spec, "approved by the analyst"))
        else:
            chosen.append(ReplayServer(server, None, "not approved (nothing was started)"))
    return chosen
