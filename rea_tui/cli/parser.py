"""The argument parser: the server options, and each command of the dispatch table."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from rea_tui import __version__
from rea_tui.cli.command import UsageExit
from rea_tui.cli.commands import COMMANDS
from rea_tui.cli.exit_codes import EXIT_CODES_HELP
from rea_tui.host import DEFAULT_MAX_REPLY_BYTES, LOG_LEVELS, PROTOCOL_CHOICES, format_size, parse_size

DEFAULT_TIMEOUT = 30.0

DESCRIPTION = """\
rea-tui: a terminal MCP host for guided investigations.

With no command, opens the TUI on the configured servers (or the bundled
REA reference server). The commands below do the same host actions without a
screen; each takes the server options.
"""

EPILOG = f"""\
server options pick what to talk to: --url URL [--header 'K: V'], --stdio 'CMD ARGS'
(or -- CMD ARGS at the very end), --server NAME from --config PATH, or the user
config file (mcpServers / VS Code servers format) and other clients' user configs,
then a trusted folder's ./.rea-tui.json and project configs (`rea-tui servers
--discover`). A folder's own config files are not used until you trust the folder
(`rea-tui trust`). --url with a path ending in /sse is the legacy HTTP+SSE
transport. With none, the bundled reference server runs.

{EXIT_CODES_HELP}

every TUI session writes a transcript (see `rea-tui sessions`); `export` turns
one into a report, `replay` walks it again, `web` serves the TUI to a browser.

eval "$(rea-tui session start [server options])" keeps the servers connected for
the shell: with REA_TUI_SESSION set, the server commands run in that session
(targets, server state, evidence IDs and allowances go on); `run FILE` runs a
file of command lines in one session.
"""


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser, whose refusal carries its message (a `--json` command line prints it as JSON too)."""

    def error(self, message: str) -> NoReturn:
        # As argparse words it (usage, then `PROG: error: MESSAGE`), and its exit code 2.
        self.print_usage(sys.stderr)
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise UsageExit(2, message)


def add_server_options(parser: argparse.ArgumentParser, *, defaults: bool) -> None:
    """The server options, accepted before and after the command.

    The copies on each command have no defaults of their own, so an option
    given before the command is not overwritten by the command's default.
    """

    def default(value: object) -> object:
        return value if defaults else argparse.SUPPRESS

    group = parser.add_argument_group("server options")
    group.add_argument("--server", metavar="NAME", default=default(None), help="a server from the config file")
    group.add_argument("--url", default=default(None), help="a streamable HTTP server")
    group.add_argument(
        "--header",
        action="append",
        default=default([]),
        metavar="'K: V'",
        help="HTTP header for --url (repeatable)",
    )
    group.add_argument("--stdio", metavar="'COMMAND ARGS'", default=default(None), help="a stdio server command line")
    group.add_argument("--config", metavar="PATH", default=default(None), help="config file (mcpServers or VS Code)")
    group.add_argument(
        "--timeout",
        type=float,
        default=default(DEFAULT_TIMEOUT),
        metavar="SECONDS",
        help="timeout of connecting and of each request, and of a task's whole wait (call --task-timeout)",
    )
    group.add_argument(
        "--max-reply-size",
        type=_size,
        default=default(None),
        metavar="SIZE",
        help=f"largest HTTP reply, and largest server-sent event, read after decompression "
        f"(default {format_size(DEFAULT_MAX_REPLY_BYTES).replace(' ', '')}; e.g. 256MiB, 512KiB)",
    )
    group.add_argument(
        "--protocol", choices=PROTOCOL_CHOICES, default=default(None), help="pin the protocol generation"
    )
    group.add_argument(
        "--log-level",
        choices=LOG_LEVELS,
        default=default(None),
        metavar="LEVEL",
        help=f"ask the server for log messages from LEVEL up, shown on stderr ({', '.join(LOG_LEVELS)})",
    )
    group.add_argument("--json", action="store_true", default=default(False), help="machine-readable output")
    group.add_argument(
        "--trace",
        action="store_true",
        default=default(False),
        help="print the traffic log at the end (stderr)",
    )


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="rea-tui",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"rea-tui {__version__}")
    add_server_options(parser, defaults=True)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        sub = subparsers.add_parser(command.name, help=command.help, description=command.description or command.help)
        if command.server_options:
            add_server_options(sub, defaults=False)
        command.configure(sub)
    return parser
