"""`rea-tui replay`: walk a recorded session again; each call stops at its approval."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

from rea_tui.cli.command import Command, Context, UsageError
from rea_tui.cli.commands.sessions import resolve_transcript
from rea_tui.host import ServerSpec


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("transcript", help="a transcript path, or its name in the sessions folder")
    parser.add_argument("--offline", action="store_true", help="show the recorded session with no server (read-only)")


def recorded_specs(path: Path) -> list[ServerSpec]:
    """The servers a transcript recorded, to run its steps against again (no secrets were kept)."""
    from rea_tui.host import bundled_server_spec, read_transcript

    specs: list[ServerSpec] = []
    for event in read_transcript(path).of_type("server"):
        name, target = str(event.get("name", "")), str(event.get("target", ""))
        if not target or any(s.name == name for s in specs):
            continue
        if event.get("transport") == "http":
            specs.append(ServerSpec(name=name, transport="http", url=target))
            continue
        command, *rest = shlex.split(target)
        if event.get("bundled"):
            extra = tuple(rest[2:]) if rest[:2] == ["-m", "rea_tui.server"] else ()
            spec = bundled_server_spec(extra)
            specs.append(ServerSpec(**{**spec.__dict__, "name": name}))
        else:
            specs.append(ServerSpec(name=name, transport="stdio", command=command, args=tuple(rest)))
    return specs


def run(context: Context) -> int:
    from rea_tui.ui.launch import run_replay

    args, selection = context.args, context.selection
    path = resolve_transcript(args.transcript)
    if args.offline:
        return run_replay(path, [], offline=True)
    # Servers named on the command line win; else the ones the transcript recorded.
    explicit = bool(selection.url or selection.stdio or selection.server or selection.config)
    servers = context.specs if explicit else recorded_specs(path)
    if not servers:
        raise UsageError("the transcript names no server to replay against; give one with the server options")
    return run_replay(path, servers, offline=False, timeout=args.timeout)


COMMAND = Command("replay", "walk a recorded session again; each call stops at its approval", configure, run)
