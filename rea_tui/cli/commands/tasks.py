"""`rea-tui tasks list|get|result|cancel [ID]`: a server's tasks (MCP 2025-11-25).

`call --no-wait` starts a tool that runs as a task and prints its id; these
follow it on a server that keeps tasks across connections (streamable HTTP).
`list` needs the server's `tasks.list` capability and `cancel` its
`tasks.cancel`; nothing is sent without them.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from rea_tui.cli.command import Command, Context, UsageError
from rea_tui.cli.connect import server_command
from rea_tui.cli.exit_codes import ExitCode

if TYPE_CHECKING:
    from rea_tui.host import HostedServer, TaskState

ACTIONS = ("list", "get", "result", "cancel")
MESSAGE_LIMIT = 500
TIMESTAMP_LIMIT = 40  # an ISO 8601 time is 20-35 characters
RESULT_TEXT_LIMIT = 100_000


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=ACTIONS)
    parser.add_argument("task_id", nargs="?", metavar="ID", help="the task (for get, result and cancel)")


def describe(state: TaskState) -> str:
    from rea_tui.host import sanitize_line

    parts = [sanitize_line(state.task_id), sanitize_line(state.status)]
    if state.status_message:
        parts.append(sanitize_line(state.status_message, MESSAGE_LIMIT))
    if state.created_at:
        parts.append(f"created {sanitize_line(state.created_at, TIMESTAMP_LIMIT)}")
    return "  ".join(parts)


async def body(context: Context, hosted: HostedServer) -> int:
    from rea_tui.host import CapabilityMissing, cancel_task, get_task, list_tasks, task_result

    args, out = context.args, context.out
    connection = hosted.connection
    if args.action != "list" and not args.task_id:
        raise UsageError(f"tasks {args.action} needs the task ID")
    capabilities = connection.capabilities.get("tasks")
    tasks: dict[str, Any] = capabilities if isinstance(capabilities, dict) else {}
    if not tasks:
        raise CapabilityMissing(connection.name, "tasks", f"tasks/{args.action}")
    if args.action in ("list", "cancel") and not isinstance(tasks.get(args.action), dict):
        raise CapabilityMissing(connection.name, f"tasks.{args.action}", f"tasks/{args.action}")
    if args.action == "list":
        states = await list_tasks(connection)
        if args.json:
            out.json({"tasks": [s.raw for s in states]})
        else:
            for state in states:
                out.line(describe(state))
            out.line(f"{len(states)} tasks")
        return ExitCode.OK
    if args.action == "result":
        return print_result(context, await task_result(connection, args.task_id))
    state = await (get_task if args.action == "get" else cancel_task)(connection, args.task_id)
    if args.json:
        out.json(state.raw)
    else:
        out.line(describe(state))
    return ExitCode.OK


def print_result(context: Context, result: dict[str, Any]) -> int:
    from rea_tui.host import block_summary, parse_content, sanitize

    out = context.out
    failed = result.get("isError") is True
    if context.args.json:
        out.json(result)
        return ExitCode.NOT_RUN if failed else ExitCode.OK
    for block in parse_content(result.get("content")):
        text = getattr(block, "text", None)
        out.line(sanitize(text, RESULT_TEXT_LIMIT) if block.kind == "text" else sanitize(block_summary(block)))
    if failed:
        out.line("(isError: the tool reported a failure)")
    return ExitCode.NOT_RUN if failed else ExitCode.OK


COMMAND = Command(
    "tasks",
    "a server's tasks: list, get ID, result ID, cancel ID (tools that run as tasks; see call --no-wait)",
    configure,
    server_command(body, catalogs=False),
)
