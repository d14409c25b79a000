"""`rea-tui complete`: ask for completions of a prompt argument or a template variable."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from rea_tui.cli.command import Command, Context, parse_pairs
from rea_tui.cli.connect import server_command
from rea_tui.cli.exit_codes import ExitCode

if TYPE_CHECKING:
    from rea_tui.host import HostedServer

VALUE_LIMIT = 300


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", metavar="PROMPT|URI_TEMPLATE")
    parser.add_argument("argument")
    parser.add_argument("value", nargs="?", default="")
    parser.add_argument("--template", action="store_true", help="TARGET is a resource URI template")
    parser.add_argument("--context", action="append", default=[], metavar="name=value")


async def body(context: Context, hosted: HostedServer) -> int:
    from rea_tui.host import CompletionRef, sanitize

    args, out = context.args, context.out
    pairs = parse_pairs(args.context, "--context")
    ref = CompletionRef("template" if args.template else "prompt", args.target)
    feed = hosted.completions
    if not feed.supported:
        out.error("the server does not declare the completions capability; nothing was asked")
        return ExitCode.PROTOCOL
    # A REA server opens its target after the handshake; until then its lists are empty by design.
    await hosted.catalogs.resources.refresh()
    await hosted.wait_for_target(args.timeout)
    page = await feed.complete(ref, args.argument, args.value, pairs)
    if args.json:
        from rea_tui.cli.shapes import completion_json

        out.json(completion_json(page))
        return ExitCode.OK
    total = "?" if page.total is None else f"{page.total:,}"
    more = ", hasMore" if page.has_more else ""
    out.line(f"{len(page.values)} values (total {total}{more}) in {page.latency_ms:.1f} ms")
    for value in page.values:
        out.line(f"  {sanitize(value, VALUE_LIMIT)}")
    if not page.values:
        out.line("  (no suggestions; an empty list does not mean there are none)")
    for note in page.notes:
        out.line(f"note: {sanitize(note)}")
    for warning in page.warnings:
        out.line(f"warning: {sanitize(warning)}")
    return ExitCode.OK


COMMAND = Command(
    "complete",
    "ask for completions of a prompt argument or template variable",
    configure,
    server_command(body, catalogs=False),
)
