"""`rea-tui replay`: walk a recorded session again; each call stops at its approval (unless its tool was
allowed for the session during the replay).

What a transcript says is not trusted: its servers are matched by name to the
configured ones (or the bundled one); any other command is shown and runs
only after a yes on the terminal (no terminal means no).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from rea_tui.cli.command import Command, Context, UsageError
from rea_tui.cli.commands.sessions import resolve_transcript
from rea_tui.cli.output import Output


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("transcript", help="a transcript path, or its name in the sessions folder")
    parser.add_argument("--offline", action="store_true", help="show the recorded session with no server (read-only)")


def ask_on_terminal(out: Output) -> Callable[[str], bool]:
    def ask(question: str) -> bool:
        if not sys.stdin.isatty():
            out.note(question)
            out.note("  no: stdin is not a terminal")
            return False
        out.note(f"{question} [y/N] ", end="")
        return sys.stdin.readline().strip().lower() in ("y", "yes")

    return ask


def run(context: Context) -> int:
    from rea_tui.host import ServerSelection, choose_servers, recorded_servers, resolve_servers
    from rea_tui.ui.launch import run_replay

    args, selection, out = context.args, context.selection, context.out
    path = resolve_transcript(args.transcript)
    if args.offline:
        return run_replay(path, [], offline=True)
    # Servers named on the command line win; else the recorded ones, matched to what is configured here.
    explicit = bool(selection.url or selection.stdio or selection.server or selection.config)
    if explicit:
        servers = context.specs
    else:
        configured, _ = resolve_servers(ServerSelection())
        ask = ask_on_terminal(out)
        chosen = choose_servers(recorded_servers(path), configured, ask)
        for choice in chosen:
            out.note(f"replay: {choice.recorded.name}: {choice.reason}")
        servers = [c.spec for c in chosen if c.spec is not None]
    if not servers:
        raise UsageError("no server to replay against; give one with the server options")
    return run_replay(path, servers, offline=False, timeout=args.timeout)


COMMAND = Command(
    "replay",
    "walk a recorded session again; each call stops at its approval (unless its tool is allowed for the session)",
    configure,
    run,
)
