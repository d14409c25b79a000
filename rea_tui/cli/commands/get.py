"""`rea-tui get`: render a prompt (prompts/get) as a workflow with steps."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from rea_tui.cli.command import Command, Context, UsageError, parse_pairs
from rea_tui.cli.connect import server_command
from rea_tui.cli.exit_codes import ExitCode

if TYPE_CHECKING:
    from rea_tui.host import HostedServer, Workflow

TEXT_LIMIT = 20_000
OTHER_BLOCK_LIMIT = 500
STEP_DESCRIPTION_LIMIT = 200


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("prompt")
    parser.add_argument("pairs", nargs="*", metavar="name=value")


def workflow_json(workflow: Workflow) -> dict[str, Any]:
    """The `prompts/get` result as the server sent it; the prompt, its arguments and the steps under `rea`."""
    rea = {
        "prompt": workflow.prompt,
        "arguments": workflow.arguments,
        "steps": [{"tool": s.tool, "description": s.description} for s in workflow.steps],
    }
    return {**workflow.raw, "rea": rea}


async def body(context: Context, hosted: HostedServer) -> int:
    from rea_tui.host import block_summary, block_text, render_prompt, require_capability, sanitize

    args, out = context.args, context.out
    require_capability(hosted.connection, "prompts", "prompts/get")
    arguments = parse_pairs(args.pairs)
    prompt = hosted.catalogs.prompts.get(args.prompt)
    missing = [a.name for a in prompt.required_arguments if not arguments.get(a.name)] if prompt else []
    if missing:
        raise UsageError(f"{sanitize(args.prompt)} needs {', '.join(sanitize(m) for m in missing)} (nothing was sent)")
    workflow = await render_prompt(hosted.connection, prompt or args.prompt, arguments, hosted.catalogs.tools.items)
    if context.live is not None:
        context.live.workflow_rendered(hosted.name, workflow)
    if args.json:
        out.json(workflow_json(workflow))
        return ExitCode.OK
    if workflow.description:
        out.line(sanitize(workflow.description))
        out.line()
    for message in workflow.messages:
        out.line(f"[{sanitize(message.role)}]")
        for block in message.blocks:
            text = block_text(block)
            if block.kind == "text":
                out.line(sanitize(text, TEXT_LIMIT))
                continue
            out.line(sanitize(block_summary(block), OTHER_BLOCK_LIMIT))
            if text.strip():
                out.line(sanitize(text, TEXT_LIMIT if block.kind == "resource" else OTHER_BLOCK_LIMIT))
        out.line()
    out.line("steps:")
    for number, step in enumerate(workflow.steps, 1):
        out.line(f"  {number}. {sanitize(step.tool)} - {sanitize(step.description, STEP_DESCRIPTION_LIMIT)}")
    if not workflow.steps:
        out.line("  (no tool of this server is named in the prompt)")
    return ExitCode.OK


COMMAND = Command("get", "render a prompt (prompts/get) as a workflow with steps", configure, server_command(body))
