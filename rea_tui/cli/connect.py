"""Connecting a command to its one server, and turning host errors into exit codes."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from rea_tui.cli.command import Context, UsageError, run_async
from rea_tui.cli.exit_codes import exit_code_for

if TYPE_CHECKING:
    from rea_tui.host import HostedServer, ServerSpec

ServerBody = Callable[[Context, "HostedServer"], Coroutine[Any, Any, int]]

# Long server messages (an error with a stderr tail) are cut here on the terminal.
ERROR_MESSAGE_LIMIT = 8_000


def single_server(specs: list[ServerSpec]) -> ServerSpec:
    if len(specs) > 1:
        names = ", ".join(s.name for s in specs)
        raise UsageError(f"several servers are configured ({names}); pick one with --server NAME")
    return specs[0]


async def with_server(context: Context, body: ServerBody, *, catalogs: bool = True) -> int:
    """Connect to the one server named, run `body`, close; a host error becomes its exit code."""
    from rea_tui.host import HostedServer, HostError, ProtocolMemory, sanitize

    args = context.args
    hosted = HostedServer(single_server(context.specs), timeout=args.timeout, memory=ProtocolMemory())
    try:
        await hosted.start(load_catalogs=catalogs)
        return await body(context, hosted)
    except HostError as exc:
        context.out.error(sanitize(exc.describe(), ERROR_MESSAGE_LIMIT))
        return exit_code_for(exc)
    finally:
        await hosted.close()
        if args.trace:
            context.out.note(hosted.connection.traffic.format_table())


def server_command(body: ServerBody, *, catalogs: bool = True) -> Callable[[Context], int]:
    """A command that runs `body` against the one connected server."""

    async def run(context: Context) -> int:
        return await with_server(context, body, catalogs=catalogs)

    return run_async(run)
