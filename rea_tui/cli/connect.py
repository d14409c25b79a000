"""Connecting a command to its one server, and turning host errors into exit codes."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from rea_tui.cli.command import Context, UsageError, run_async
from rea_tui.cli.command import ServerBody as ServerBody
from rea_tui.cli.exit_codes import exit_code_for
from rea_tui.cli.output import Output

if TYPE_CHECKING:
    from rea_tui.host import HostedServer, HostError, HostEvent, ServerSpec


# Long server messages (an error with a stderr tail) are cut here on the terminal.
ERROR_MESSAGE_LIMIT = 8_000


def single_server(specs: list[ServerSpec]) -> ServerSpec:
    if len(specs) > 1:
        names = ", ".join(s.name for s in specs)
        raise UsageError(f"several servers are configured ({names}); pick one with --server NAME")
    return specs[0]


async def with_server(context: Context, body: ServerBody, *, catalogs: bool = True) -> int:
    """Connect to the one server named, run `body`, close; a host error becomes its exit code.

    With `--log-level`, the server is asked for log messages from that level
    and each one is written to stderr. With `--json`, a failure is a JSON
    object on stdout as well (`rea_tui.cli.shapes.error_json`).
    """
    from rea_tui.host import HostedServer, HostError, ProtocolMemory

    args = context.args
    hosted = HostedServer(single_server(context.specs), timeout=args.timeout, memory=ProtocolMemory())
    level: str | None = getattr(args, "log_level", None)
    hosted.connection.subscribe(bad_output_printer(context.out))
    if level is not None:
        hosted.connection.subscribe(log_printer(context.out, level))
    try:
        await hosted.start(load_catalogs=catalogs)
        if level is not None:
            await ask_for_logs(context, hosted, level)
        return await body(context, hosted)
    except HostError as exc:
        return report_host_error(context, exc)
    finally:
        await hosted.close()
        if args.trace:
            context.out.note(hosted.connection.traffic.format_table())


def report_host_error(context: Context, exc: HostError) -> int:
    """A host error as the command's result: its exit code, a JSON object with `--json`, the message on stderr."""
    from rea_tui.host import sanitize

    code = exit_code_for(exc)
    if context.args.json:
        from rea_tui.cli.shapes import error_json

        context.out.json(error_json(exc, code))
    context.out.error(sanitize(exc.describe(), ERROR_MESSAGE_LIMIT))
    return code


def log_printer(out: Output, level: str) -> Callable[[HostEvent], None]:
    """Each log message the server sends at `level` or above, on stderr."""

    def printed(event: HostEvent) -> None:
        from rea_tui.host import LogMessageReceived, at_least, sanitize

        if isinstance(event, LogMessageReceived) and at_least(event.level, level):
            logger = f" {event.logger}" if event.logger else ""
            text = event.data if isinstance(event.data, str) else json.dumps(event.data, ensure_ascii=False)
            out.note(f"{sanitize(event.server)} log {sanitize(event.level)}{sanitize(logger)}: {sanitize(text)}")

    return printed


# How the host words a notification the SDK dropped (host/sdk_faults.describe_invalid).
MALFORMED_NOTIFICATION = "ignored a malformed "


def bad_output_printer(out: Output) -> Callable[[HostEvent], None]:
    """A notification the SDK dropped as malformed: one warning line on stderr, as the TUI's toast says it (the
    other unreadable output stays in the traffic, as on the lean path, so both paths print the same)."""

    def printed(event: HostEvent) -> None:
        from rea_tui.host import BadOutputReceived, sanitize_line

        if isinstance(event, BadOutputReceived) and event.message.startswith(MALFORMED_NOTIFICATION):
            out.note(f"rea-tui: warning: {sanitize_line(event.server)}: {sanitize_line(event.message)}")

    return printed


async def ask_for_logs(context: Context, hosted: HostedServer, level: str) -> None:
    from rea_tui.host import CapabilityMissing, set_log_level

    try:
        await set_log_level(hosted.connection, level)
    except CapabilityMissing as exc:
        context.out.error(f"--log-level: {exc}")


class ServerCommand:
    """A command that runs `body` against the one connected server (a warm session runs `body` on its own)."""

    def __init__(self, body: ServerBody, *, catalogs: bool = True) -> None:
        self.body = body
        self.catalogs = catalogs

    def __call__(self, context: Context) -> int:
        return run_async(self.connected)(context)

    async def connected(self, context: Context) -> int:
        return await with_server(context, self.body, catalogs=self.catalogs)


def server_command(body: ServerBody, *, catalogs: bool = True) -> ServerCommand:
    return ServerCommand(body, catalogs=catalogs)
