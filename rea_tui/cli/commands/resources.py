"""`rea-tui resources` and `rea-tui read`: what the server offers to read, and reading it."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from rea_tui.cli.command import Command, Context, no_arguments
from rea_tui.cli.connect import server_command
from rea_tui.cli.exit_codes import ExitCode

if TYPE_CHECKING:
    from rea_tui.host import HostedServer

CONTENT_LIMIT = 200_000


async def list_body(context: Context, hosted: HostedServer) -> int:
    from rea_tui.host import ProtocolError, sanitize

    out = context.out
    await hosted.catalogs.resources.refresh()
    try:
        await hosted.catalogs.templates.refresh()
    except ProtocolError:
        hosted.catalogs.templates.items = []
    resources = hosted.catalogs.resources.items
    templates = hosted.catalogs.templates.items
    if context.args.json:
        # As the server listed them.
        out.json(
            {
                "resources": [dict(r.raw) or {"uri": r.uri} for r in resources],
                "resourceTemplates": [dict(t.raw) or {"uriTemplate": t.uri_template} for t in templates],
            }
        )
        return ExitCode.OK
    for resource in resources:
        out.line(f"{sanitize(resource.uri)}  {sanitize(resource.name)}  {sanitize(resource.mime_type or '')}")
    for template in templates:
        out.line(f"{sanitize(template.uri_template)}  (template: {', '.join(sanitize(v) for v in template.variables)})")
    out.line(f"{len(resources)} resources, {len(templates)} templates")
    return ExitCode.OK


def configure_read(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("uri")


async def read_body(context: Context, hosted: HostedServer) -> int:
    from rea_tui.host import block_summary, require_capability, sanitize

    out = context.out
    require_capability(hosted.connection, "resources", "resources/read")
    result = await hosted.read_resource(context.args.uri)
    if context.args.json:
        out.json(result.raw)
        return ExitCode.OK
    for block in result.contents:
        out.line(sanitize(block_summary(block)))
        if block.text is not None:
            out.line(sanitize(block.text, CONTENT_LIMIT))
    return ExitCode.OK


RESOURCES = Command(
    "resources", "list resources and resource templates", no_arguments, server_command(list_body, catalogs=False)
)
READ = Command("read", "read a resource (resources/read)", configure_read, server_command(read_body, catalogs=False))
