"""`rea-tui server`: the bundled REA reference server (its own options; see `rea-tui server --help`)."""

from __future__ import annotations

import argparse

from rea_tui.cli.command import Command, Context


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("server_args", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)


def run(context: Context) -> int:
    from rea_tui.server.__main__ import main as server_main

    return int(server_main(context.argv[1:]))


COMMAND = Command(
    "server",
    "run the bundled REA reference server (see `rea-tui server --help`)",
    configure,
    run,
    server_options=False,
)
