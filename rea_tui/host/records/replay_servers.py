"""Which servers a replay may start: a transcript names servers, but it must not start processes.

Transcripts are made to be shared, so what one says is not trusted. A
recorded server is matched by name to a server the analyst's own config or a
trusted folder's config defines (the same look-up as `--server NAME`, behind
the same trust gate), or to the bundled reference server with only its safe
options, and then the configured command runs, never the recorded one. Any
other recorded server is refused by name: neither its command nor its URL is
used. Servers named on the command line replace the recorded ones.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rea_tui.host.config.config import DEFAULT_SERVER_NAME, ConfigError, ServerSpec, bundled_server_spec
from rea_tui.host.records.transcript import read_transcript
from rea_tui.host.trust.safe_text import sanitize_line

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


# The server the analyst's own or a trusted folder's config defines under a name, or None.
FindConfigured = Callable[[str], ServerSpec | None]


def find_configured(name: str) -> ServerSpec | None:
    """The server `name` as `--server NAME` finds it: the user's own configs, then a trusted folder's."""
    from rea_tui.host.config.config import config_files, configured_server
    from rea_tui.host.config.discovery import find_server

    found = configured_server(name, config_files(None), None, find_server)
    if found is None and name == DEFAULT_SERVER_NAME:
        return bundled_server_spec()  # the analyst's own bundled server, with no recorded options
    return found[0] if found is not None else None


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


def choose_servers(recorded: Sequence[RecordedServer], configured: FindConfigured) -> list[ReplayServer]:
    """For each recorded server: the configured one of that name, the bundled one, or a refusal that names it."""
    chosen: list[ReplayServer] = []
    for server in recorded:
        try:
            match = configured(server.name)
        except ConfigError as exc:  # defined only by an untrusted folder, or its entry is wrong
            chosen.append(ReplayServer(server, None, f"refused: {exc}"))
            continue
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
        what = "at" if server.transport == "http" else "started as"
        chosen.append(
            ReplayServer(
                server,
                None,
                f"refused: no server of yours or of a trusted folder is named {sanitize_line(server.name)!r} "
                f"(the transcript's, {what} {shown}, is not used; name one with --server, --stdio or --url)",
            )
        )
    return chosen
