"""The dispatch table: every `rea-tui` command, in the order `--help` lists them."""

from __future__ import annotations

from rea_tui.cli.command import Command
from rea_tui.cli.commands import (
    audit,
    auth,
    call,
    complete,
    get,
    prompts,
    replay,
    resources,
    run,
    server,
    servers,
    session,
    sessions,
    tasks,
    tools,
    trust,
    web,
)

COMMANDS: tuple[Command, ...] = (
    servers.COMMAND,
    prompts.COMMAND,
    get.COMMAND,
    complete.COMMAND,
    tools.COMMAND,
    call.COMMAND,
    tasks.COMMAND,
    resources.RESOURCES,
    resources.READ,
    audit.COMMAND,
    session.COMMAND,
    sessions.SESSIONS,
    sessions.EXPORT,
    run.COMMAND,
    replay.COMMAND,
    web.COMMAND,
    auth.COMMAND,
    trust.COMMAND,
    server.COMMAND,
)

BY_NAME: dict[str, Command] = {command.name: command for command in COMMANDS}
