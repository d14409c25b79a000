"""`rea-tui tools`: the server's tools with their declared annotations."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from rea_tui.cli.command import Command, Context, no_arguments
from rea_tui.cli.connect import server_command
from rea_tui.cli.exit_codes import ExitCode

if TYPE_CHECKING:
    from rea_tui.host import HostedServer, Tool

DESCRIPTION_LIMIT = 300


def tool_json(tool: Tool) -> dict[str, Any]:
    """The tool as the server listed it (`execution`, `_meta` and all)."""
    return dict(tool.raw) or {"name": tool.name, "inputSchema": tool.input_schema}


def describe_annotations(annotations: dict[str, Any]) -> str:
    hints = [f"{k}={json.dumps(v)}" for k, v in sorted(annotations.items()) if k.endswith("Hint")]
    return ", ".join(hints) if hints else "none declared"


async def body(context: Context, hosted: HostedServer) -> int:
    from rea_tui.host import exclusion_warning, sanitize

    out = context.out
    await hosted.catalogs.tools.refresh()
    tools = hosted.catalogs.tools.items
    for excluded in hosted.catalogs.tools.excluded:
        out.note(f"warning: {exclusion_warning(excluded)}")
    if context.args.json:
        out.json({"tools": [tool_json(t) for t in tools]})
        return ExitCode.OK
    for tool in tools:
        runs = tool.execution.get("taskSupport")
        as_task = f"  (runs as a task: {sanitize(runs)})" if runs in ("required", "optional") else ""
        out.line(f"{sanitize(tool.name)}  [{sanitize(describe_annotations(tool.annotations))}]{as_task}")
        if tool.description:
            out.line(f"    {sanitize(tool.description, DESCRIPTION_LIMIT)}")
    out.line(f"{len(tools)} tools (annotations are declared by the server, not verified)")
    return ExitCode.OK


COMMAND = Command(
    "tools",
    "list the server's tools with their declared annotations",
    no_arguments,
    server_command(body, catalogs=False),
)
