"""What a command is: its name, its arguments, and how it runs.

Every command is one `Command` in the dispatch table (`rea_tui.cli.commands`).
A command that talks to one server is written as an async body taking the
connected `HostedServer` (`server_command`); the rest get the `Context` and
run as they like (`local_command`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from rea_tui.cli.output import Output

if TYPE_CHECKING:
    from rea_tui.host import EvidenceLedger, HostedServer, ServerSelection, ServerSpec, Tool, Workflow

ServerBody = Callable[["Context", "HostedServer"], Coroutine[Any, Any, int]]


class UsageError(Exception):
    """Bad command-line input; exit code 2."""


class UsageExit(SystemExit):
    """argparse refused the command line (exit 2, its usage and message on stderr); `message` is what it said
    (`rea_tui.cli.parser.ArgumentParser`)."""

    def __init__(self, code: int | str | None, message: str) -> None:
        super().__init__(code)
        self.message = message


@dataclass
class Context:
    """Everything a command gets: its parsed arguments, the servers named, and the writer."""

    args: argparse.Namespace
    specs: list[ServerSpec]
    selection: ServerSelection
    argv: list[str]
    out: Output
    # Set when the command runs in a warm session (`rea-tui session`): its ledger, allowances and questions.
    live: LiveCommand | None = None
    # The command lines themselves, for a command that runs others (`run`); set by `rea_tui.cli.main`.
    lines: CommandLines | None = None


class LiveCommand(Protocol):
    """What a command body asks of the warm session it runs in (`rea_tui.cli.session_exec.LiveSession`)."""

    @property
    def ledger(self) -> EvidenceLedger: ...

    async def approve_call(
        self, server: str, tool: Tool | None, name: str, arguments: dict[str, Any], *, yes: bool
    ) -> str | None: ...

    def workflow_rendered(self, server: str, workflow: Workflow) -> None: ...


class CommandLines(Protocol):
    """Parsing and running command lines (`rea_tui.cli.main`), handed to what runs them in a session."""

    def parse(self, argv: list[str]) -> tuple[argparse.Namespace, list[str], list[str]]: ...

    def server_body(self, command: str) -> ServerBody | None: ...

    def one_shot(self, argv: list[str], out: Output) -> int: ...


Runner = Callable[[Context], int]
Configure = Callable[[argparse.ArgumentParser], None]


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    configure: Configure
    run: Runner
    # Commands that never talk to a server take no server options of their own.
    server_options: bool = True
    # What `rea-tui NAME --help` says, when it says more than `help`.
    description: str = ""


def no_arguments(parser: argparse.ArgumentParser) -> None:
    """For commands whose only options are the server options."""


def parse_pairs(pairs: Sequence[str], what: str = "argument") -> dict[str, str]:
    found: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise UsageError(f"{what} {pair!r} must look like name=value")
        found[name] = value
    return found


AsyncRunner = Callable[[Context], Coroutine[Any, Any, int]]


def run_async(body: AsyncRunner) -> Runner:
    """A sync runner for an async command body."""

    def run(context: Context) -> int:
        import asyncio

        return asyncio.run(body(context))

    return run
