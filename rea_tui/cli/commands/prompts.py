"""`rea-tui prompts`: the server's prompts and their arguments."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rea_tui.cli.command import Command, Context, no_arguments
from rea_tui.cli.connect import server_command
from rea_tui.cli.exit_codes import ExitCode

if TYPE_CHECKING:
    from rea_tui.host import HostedServer, Prompt

DESCRIPTION_LIMIT = 500
ARGUMENT_DESCRIPTION_LIMIT = 300


def prompt_json(prompt: Prompt) -> dict[str, Any]:
    """The prompt as the server listed it."""
    return dict(prompt.raw) or {"name": prompt.name}


async def body(context: Context, hosted: HostedServer) -> int:
    from rea_tui.host import sanitize

    out = context.out
    await hosted.catalogs.prompts.refresh()
    prompts = hosted.catalogs.prompts.items
    if context.args.json:
        out.json({"prompts": [prompt_json(p) for p in prompts]})
        return ExitCode.OK
    if not hosted.catalogs.prompts.supported:
        out.line("(the server does not declare the prompts capability)")
    for prompt in prompts:
        title = f" - {sanitize(prompt.title)}" if prompt.title else ""
        out.line(f"{sanitize(prompt.name)}{title}")
        if prompt.description:
            out.line(f"    {sanitize(prompt.description, DESCRIPTION_LIMIT)}")
        for argument in prompt.arguments:
            mark = "*" if argument.required else " "
            out.line(
                f"    {mark} {sanitize(argument.name)}: {sanitize(argument.description, ARGUMENT_DESCRIPTION_LIMIT)}"
            )
    out.line(f"{len(prompts)} prompts (* = required argument)")
    return ExitCode.OK


COMMAND = Command(
    "prompts", "list the server's prompts and their arguments", no_arguments, server_command(body, catalogs=False)
)
