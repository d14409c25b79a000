"""`rea-tui web`: serve the TUI to a browser on 127.0.0.1 (textual-serve)."""

from __future__ import annotations

import argparse
import shlex
import sys

from rea_tui.cli.command import Command, Context, UsageError
from rea_tui.cli.exit_codes import ExitCode

DEFAULT_PORT = 8000
LOOPBACK = "127.0.0.1"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--host", default=LOOPBACK, help="127.0.0.1 only (the page and its websocket are guarded)")


def web_command(argv: list[str]) -> str:
    """The rea-tui command line each browser session runs: the same server options, no `web` part."""
    passthrough: list[str] = []
    skip = False
    seen_web = False
    for token in argv:
        if skip:
            skip = False
            continue
        if not seen_web and token == "web":
            seen_web = True
            continue
        if seen_web and token in ("--port", "--host"):
            skip = True
            continue
        if seen_web and token.startswith(("--port=", "--host=")):
            continue
        passthrough.append(token)
    return shlex.join([sys.executable, "-m", "rea_tui", *passthrough])


def run(context: Context) -> int:
    args = context.args
    if args.host != LOOPBACK:
        raise UsageError("rea-tui web serves on loopback only (127.0.0.1)")
    from rea_tui.ui.web_server import serve

    def announce(url: str) -> None:
        context.out.note(f"rea-tui is served at {url}")
        context.out.note("open that URL (it carries the access token); Ctrl+C stops")

    serve(web_command(context.argv), args.port, title="rea-tui", on_ready=announce)
    return ExitCode.OK


COMMAND = Command("web", "serve the TUI to a browser on 127.0.0.1 (textual-serve)", configure, run)
