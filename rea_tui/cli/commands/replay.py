"""`rea-tui replay`: walk a recorded session again; each call stops at its approval (unless its tool was
allowed for the session during the replay).

What a transcript says is not trusted: its servers are matched by name to the
ones the analyst's own config or a trusted folder's config defines (or the
bundled one); any other is refused by name, and its command or URL is not used.
"""

from __future__ import annotations

import argparse

from rea_tui.cli.command import Command, Context, UsageError
from rea_tui.cli.commands.sessions import resolve_transcript


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("transcript", help="a transcript path, or its name in the sessions folder")
    parser.add_argument("--offline", action="store_true", help="show the recorded session with no server (read-only)")


def run(context: Context) -> int:
    from rea_tui.host import choose_servers, find_configured, recorded_servers
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
        chosen = choose_servers(recorded_servers(path), find_configured)
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
