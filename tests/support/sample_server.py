"""A small, real MCP server for the host-core, CLI and UI tests.

Run as `python -m tests.support.sample_server [--http HOST:PORT]`. It has
prompts with required and optional arguments, context-dependent completion,
a resource template with completion, tools with annotations, a slow tool
that reports progress, a tool that changes the prompt list, a tool that makes
the server exit, and (with SAMPLE_HOSTILE=1) names, descriptions and values
full of Rich markup and terminal escape sequences.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.prompts.base import Prompt
from mcp.server.mcpserver.resolve import AcceptedElicitation, Elicit, ElicitationResult, Resolve
from mcp_types import (
    Completion,
    CompletionArgument,
    CompletionContext,
    PromptReference,
    ResourceTemplateReference,
    ToolAnnotations,
)
from pydantic import BaseModel, Field

HOSTILE = os.environ.get("SAMPLE_HOSTILE") == "1"
# Terminal attacks a server could try: colour (CSI), a hyperlink (OSC 8), a clipboard write (OSC 52).
ESCAPES = "\x1b[31mRED\x1b[0m \x1b]8;;http://evil.example\x07link\x1b]8;;\x07 \x1b]52;c;cHduZWQ=\x07"
MARKUP = "[red]x[/red] [link=http://evil.example]click[/link]"

DOCUMENTS: dict[str, list[str]] = {
    "Notes": ["note_open", "note_save", "note_search", "render_page"],
    "Helper": ["helper_main", "helper_sync", "render_page"],
    "libsearch": [f"search_{i:04d}" for i in range(250)],
}

server = MCPServer("sample-server", version="1.0.0", instructions="A sample server for rea-tui tests.")


def _hostile(text: str) -> str:
    return f"{text} {MARKUP} {ESCAPES}" if HOSTILE else text


@server.prompt(name="review_code", title="Review code", description=_hostile("Review a piece of code."))
def review_code(code: str, language: str = "") -> str:
    note = f" written in {language}" if language else ""
    return f"Please review this code{note}:\n\n{code}\n\nUse the echo tool to quote it, then slow_task."


@server.prompt(
    name="investigate",
    title="Investigate a procedure",
    description="Trace a procedure; document narrows procedure completion.",
)
def investigate(feature: str, document: str = "", procedure: str = "") -> list[dict[str, Any]]:
    return [
        {
            "role": "user",
            "content": f"Investigate {feature!r} in document {document!r}, procedure {procedure!r}.",
        },
        {"role": "assistant", "content": "Start with list_documents, then echo, then structured_info."},
        {
            "role": "user",
            "content": {
                "type": "resource_link",
                "uri": "sample://readme",
                "name": "readme",
                "mimeType": "text/plain",
            },
        },
        {
            "role": "user",
            "content": {
                "type": "resource",
                "resource": {"uri": "sample://inline", "text": "Embedded note text."},
            },
        },
        {"role": "user", "content": {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}},
    ]


if HOSTILE:

    @server.prompt(name="hostile[red]prompt[/red]\x1b[2J", description=ESCAPES + MARKUP)
    def hostile_prompt(target: str = "") -> str:
        return f"Hostile text {ESCAPES} {MARKUP} and **markdown**."


@server.resource("sample://readme", mime_type="text/plain")
def readme() -> str:
    return _hostile("The sample server's readme.")


@server.resource("sample://docs/{document}/procedures/{procedure}", mime_type="text/plain")
def procedure_resource(document: str, procedure: str) -> str:
    return f"{procedure} in {document}"


def _prefix(values: list[str], prefix: str) -> Completion:
    matches = sorted({v for v in values if v.lower().startswith(prefix.lower())})
    return Completion(values=matches[:100], total=len(matches), has_more=len(matches) > 100)


@server.completion()
async def complete(
    ref: PromptReference | ResourceTemplateReference,
    argument: CompletionArgument,
    context: CompletionContext | None,
) -> Completion | None:
    given = (context.arguments or {}) if context else {}
    if argument.name == "document":
        return _prefix(list(DOCUMENTS), argument.value)
    if argument.name == "procedure":
        document = given.get("document")
        pool = DOCUMENTS.get(document, []) if document else [p for ps in DOCUMENTS.values() for p in ps]
        return _prefix(pool, argument.value)
    if argument.name == "language":
        return _prefix(["python", "rust", "go", "typescript"], argument.value)
    if argument.name == "feature" and HOSTILE:
        return Completion(values=[f"feat {ESCAPES}", f"feat {MARKUP}"], total=2, has_more=False)
    if argument.name == "feature" and argument.value == "slow":
        await anyio.sleep(2)
    return Completion(values=[], total=0, has_more=False)


@server.tool(annotations=ToolAnnotations(readOnlyHint=True, title="Echo"))
def echo(text: str) -> str:
    """Return the text unchanged."""
    return _hostile(text)


class Info(BaseModel):
    name: str
    size: int


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def structured_info(name: str = "sample") -> Info:
    """Structured content with an output schema."""
    return Info(name=name, size=len(name))


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def list_documents() -> list[str]:
    """The sample documents."""
    return list(DOCUMENTS)


@server.tool(annotations=ToolAnnotations(readOnlyHint=True, idempotentHint=True))
async def slow_task(ctx: Context, seconds: float = 2.0, steps: int = 4) -> str:
    """Sleep in steps, reporting progress after each."""
    for step in range(steps):
        await anyio.sleep(seconds / steps)
        await ctx.report_progress(step + 1, steps, f"step {step + 1} of {steps}")
    return f"slept {seconds} s"


@server.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=False))
async def add_prompt(ctx: Context, name: str = "added_prompt") -> str:
    """Register one more prompt and announce that the prompt list changed."""

    def added(topic: str = "") -> str:
        return f"An added prompt about {topic}."

    server.add_prompt(Prompt.from_function(added, name=name, description="Added at run time."))
    await ctx.notify_prompts_changed()
    if ctx.protocol_version and not ctx.protocol_version.startswith("2026"):
        await ctx.session.send_prompt_list_changed()
    return f"added {name}"


@server.tool(annotations=ToolAnnotations(destructiveHint=True))
def crash(code: int = 3) -> str:
    """Make the server exit with `code` (after a line on stderr)."""
    sys.stderr.write(f"sample-server: crashing on purpose with code {code}\n")
    sys.stderr.flush()
    os._exit(code)


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def big_result(kilobytes: int = 1024) -> str:
    """A large text result."""
    line = "0123456789abcdef" * 4 + "\n"
    return line * (kilobytes * 1024 // len(line))


class Confirm(BaseModel):
    reason: str = Field(description="Why run it")
    count: int = Field(default=1, description="How many times")


async def ask_confirmation() -> Elicit[Confirm]:
    return Elicit("Please confirm the run", Confirm)


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
async def confirm_run(
    answer: Annotated[ElicitationResult[Confirm], Resolve(ask_confirmation)],
) -> str:
    """Ask the analyst for a reason through elicitation."""
    if isinstance(answer, AcceptedElicitation):
        return f"confirmed: {answer.data.reason} x{answer.data.count}"
    return f"not confirmed ({answer.action})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", default=None, help="HOST:PORT for streamable HTTP (PORT 0 picks one)")
    parser.add_argument("--sse", action="store_true", help="the legacy HTTP+SSE transport at /sse instead")
    args = parser.parse_args()
    if args.http is None:
        server.run("stdio")
        return
    import socket

    import uvicorn

    host, _, port = args.http.rpartition(":")
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a restart on the same port (reconnect tests)
    sock.bind((host, int(port)))
    sock.listen(128)
    bound = sock.getsockname()[1]
    app = server.sse_app(host=host) if args.sse else server.streamable_http_app(host=host)
    config = uvicorn.Config(app, log_level="warning")
    path = "/sse" if args.sse else "/mcp"
    print(f"sample-server listening on http://{host}:{bound}{path}", file=sys.stderr, flush=True)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
