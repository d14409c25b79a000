"""The `rea-tui` command line: the TUI, its headless twin commands, and the bundled server.

Every host action the TUI offers has a command here built on the same
`rea_tui.host` call, for scripts, tests and people checking a server by hand.
Heavy modules (`mcp`, `textual`) are imported only by the commands that need
them, so `rea-tui --help` stays fast.

Exit codes: 0 ok, 1 not run (approval declined) or the tool reported an
error, 2 usage, 3 server unavailable or exited, 4 protocol error, 5 timeout,
6 the tool asked a narrowing question, 8 authorization needed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any

from rea_tui import __version__
from rea_tui.host.config import (
    PROTOCOL_CHOICES,
    ConfigError,
    ServerSelection,
    ServerSpec,
    resolve_servers,
    split_stdio_command,
)

if TYPE_CHECKING:
    from rea_tui.host.hosted import HostedServer

EXIT_OK = 0
EXIT_NOT_RUN = 1
EXIT_USAGE = 2
EXIT_UNAVAILABLE = 3
EXIT_PROTOCOL = 4
EXIT_TIMEOUT = 5
EXIT_NARROWING = 6
EXIT_AUTH = 8

DESCRIPTION = """\
rea-tui: a terminal MCP host for guided investigations.

With no command, opens the TUI on the configured servers (or the bundled
REA reference server). The commands below do the same host actions without a
screen; each takes the server options.
"""

EPILOG = """\
server options pick what to talk to: --url URL [--header 'K: V'], --stdio 'CMD ARGS'
(or -- CMD ARGS at the very end), --server NAME from --config PATH, ./.rea-tui.json
or the user config file (mcpServers / VS Code servers format), else from other
clients' configs (`rea-tui servers --discover`). --url with a path ending in /sse
is the legacy HTTP+SSE transport. With none, the bundled reference server runs.

exit codes: 0 ok, 1 not run or tool error, 2 usage, 3 server unavailable or
exited (HTTP 404: no MCP endpoint; HTTP 5xx), 4 protocol error, 5 timeout,
6 narrowing question, 8 authorization needed (HTTP 401/403: run
`rea-tui auth login NAME`).

every TUI session writes a transcript (see `rea-tui sessions`); `export` turns
one into a report, `replay` walks it again, `web` serves the TUI to a browser.
"""


class UsageError(Exception):
    """Bad command-line input; exit code 2."""


# ------------------------------------------------------------------ parser


def _server_options(parser: argparse.ArgumentParser, *, defaults: bool) -> None:
    """The server options, accepted before and after the command.

    The copies on each command have no defaults of their own, so an option
    given before the command is not overwritten by the command's default.
    """

    def default(value: object) -> object:
        return value if defaults else argparse.SUPPRESS

    group = parser.add_argument_group("server options")
    group.add_argument("--server", metavar="NAME", default=default(None), help="a server from the config file")
    group.add_argument("--url", default=default(None), help="a streamable HTTP server")
    group.add_argument(
        "--header",
        action="append",
        default=default([]),
        metavar="'K: V'",
        help="HTTP header for --url (repeatable)",
    )
    group.add_argument("--stdio", metavar="'COMMAND ARGS'", default=default(None), help="a stdio server command line")
    group.add_argument("--config", metavar="PATH", default=default(None), help="config file (mcpServers or VS Code)")
    group.add_argument("--timeout", type=float, default=default(30.0), metavar="SECONDS", help="per-request timeout")
    group.add_argument(
        "--protocol", choices=PROTOCOL_CHOICES, default=default(None), help="pin the protocol generation"
    )
    group.add_argument("--json", action="store_true", default=default(False), help="machine-readable output")
    group.add_argument(
        "--trace",
        action="store_true",
        default=default(False),
        help="print the traffic log at the end (stderr)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rea-tui",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"rea-tui {__version__}")
    _server_options(parser, defaults=True)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text, description=help_text)
        _server_options(sub, defaults=False)
        return sub

    servers = command("servers", "list the servers and connect to each (protocol, capabilities)")
    servers.add_argument("--no-connect", action="store_true", help="only list them")
    servers.add_argument("--discover", action="store_true", help="list the servers other MCP clients are set up with")
    command("prompts", "list the server's prompts and their arguments")
    get = command("get", "render a prompt (prompts/get) as a workflow with steps")
    get.add_argument("prompt")
    get.add_argument("pairs", nargs="*", metavar="name=value")
    complete = command("complete", "ask for completions of a prompt argument or template variable")
    complete.add_argument("target", metavar="PROMPT|URI_TEMPLATE")
    complete.add_argument("argument")
    complete.add_argument("value", nargs="?", default="")
    complete.add_argument("--template", action="store_true", help="TARGET is a resource URI template")
    complete.add_argument("--context", action="append", default=[], metavar="name=value")
    command("tools", "list the server's tools with their declared annotations")
    call = command("call", "call a tool after approval (nothing is sent without --yes or a yes)")
    call.add_argument("tool")
    call.add_argument("pairs", nargs="*", metavar="name=value")
    call.add_argument("--args", metavar="JSON", help="arguments as a JSON object (pairs override)")
    call.add_argument("--yes", action="store_true", help="approve without asking")
    call.add_argument(
        "--pick",
        action="append",
        default=[],
        metavar="NAME_OR_ID",
        help="answer a narrowing question (repeatable)",
    )
    call.add_argument("--elicit", action="append", default=[], metavar="name=value", help="answer an elicitation form")
    command("resources", "list resources and resource templates")
    read = command("read", "read a resource (resources/read)")
    read.add_argument("uri")
    command("sessions", "list the recorded session transcripts")
    export = command("export", "write a report (Markdown or JSON) from a session transcript")
    export.add_argument("transcript", help="a transcript path, or its name in the sessions folder")
    export.add_argument("--format", choices=("md", "json"), default="md")
    export.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    replay = command("replay", "walk a recorded session again; each call stops at its approval")
    replay.add_argument("transcript", help="a transcript path, or its name in the sessions folder")
    replay.add_argument("--offline", action="store_true", help="show the recorded session with no server (read-only)")
    web = command("web", "serve the TUI to a browser on 127.0.0.1 (textual-serve)")
    web.add_argument("--port", type=int, default=8000)
    web.add_argument("--host", default="127.0.0.1", help="loopback only")
    from rea_tui.cli_auth import add_auth_arguments

    add_auth_arguments(command("auth", "sign in to an HTTP server (OAuth), sign out, or show what is kept"))
    commands.add_parser("server", help="run the bundled REA reference server (see `rea-tui server --help`)")
    return parser


def parse_pairs(pairs: Sequence[str], what: str = "argument") -> dict[str, str]:
    found: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise UsageError(f"{what} {pair!r} must look like name=value")
        found[name] = value
    return found


def _selection(args: argparse.Namespace, stdio_tail: list[str]) -> ServerSelection:
    stdio: tuple[str, ...] = ()
    if args.stdio:
        stdio = split_stdio_command(args.stdio)
    if stdio_tail:
        if stdio:
            raise ConfigError("give the stdio command either with --stdio or after --, not both")
        stdio = tuple(stdio_tail)
    return ServerSelection(
        server=args.server,
        url=args.url,
        headers=tuple(args.header),
        stdio=stdio,
        config=args.config,
        protocol=args.protocol,
    )


def run(argv: Sequence[str]) -> int:
    argv = list(argv)
    if argv and argv[0] == "server":
        from rea_tui.server.__main__ import main as server_main

        return int(server_main(argv[1:]))
    stdio_tail: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, stdio_tail = argv[:cut], argv[cut + 1 :]
    parser = build_parser()
    # name=value pairs may come after options (`call echo --yes text=hi`): collect the leftovers.
    args, leftovers = parser.parse_known_args(argv)
    pairs = [token for token in leftovers if "=" in token and not token.startswith("-")]
    unknown = [token for token in leftovers if token not in pairs]
    if unknown or (pairs and not hasattr(args, "pairs")):
        parser.error(f"unrecognized arguments: {' '.join(unknown or pairs)}")
    if pairs:
        args.pairs = [*args.pairs, *pairs]
    try:
        selection = _selection(args, stdio_tail)
        from rea_tui.host.discovery import find_server

        specs, _config = resolve_servers(selection, fallback=find_server)
        if args.command in LOCAL_COMMANDS:
            from rea_tui.cli_session import run_local

            return run_local(args, specs, selection, [*argv, *(["--", *stdio_tail] if stdio_tail else [])])
    except ConfigError as exc:
        print(f"rea-tui: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except UsageError as exc:
        print(f"rea-tui: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.command is None:
        from rea_tui.ui.launch import run_tui

        return int(run_tui(specs, timeout=args.timeout))
    handler = COMMANDS[args.command]
    try:
        return asyncio.run(handler(args, specs))
    except UsageError as exc:
        print(f"rea-tui: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130


# ------------------------------------------------------------------ output


def emit_json(data: Any) -> None:
    # ASCII-only so no control or escape character from a server reaches the terminal raw.
    say(json.dumps(data, indent=2, ensure_ascii=True))


def say(text: str = "") -> None:
    try:
        print(text)
    except BrokenPipeError:
        # The reader went away (`rea-tui tools | head`): stop quietly, as other tools do.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise SystemExit(EXIT_OK) from None


def safe(value: object, limit: int | None = 2_000) -> str:
    from rea_tui.host.sanitize import sanitize

    return sanitize(value, limit)


def exit_code_for(error: BaseException) -> int:
    from rea_tui.host.errors import (
        AuthorizationRequired,
        ProtocolError,
        RequestTimedOut,
        ServerExited,
        ServerUnavailable,
    )

    if isinstance(error, AuthorizationRequired):
        return EXIT_AUTH
    if isinstance(error, ServerUnavailable | ServerExited):
        return EXIT_UNAVAILABLE
    if isinstance(error, RequestTimedOut):
        return EXIT_TIMEOUT
    if isinstance(error, ProtocolError):
        return EXIT_PROTOCOL
    return EXIT_USAGE


def _single(specs: list[ServerSpec]) -> ServerSpec:
    if len(specs) > 1:
        names = ", ".join(s.name for s in specs)
        raise UsageError(f"several servers are configured ({names}); pick one with --server NAME")
    return specs[0]


Body = Callable[["HostedServer"], Coroutine[Any, Any, int]]


async def with_server(args: argparse.Namespace, specs: list[ServerSpec], body: Body, *, catalogs: bool = True) -> int:
    """Connect to the one server named, run `body`, close; map host errors to exit codes."""
    from rea_tui.host.errors import HostError
    from rea_tui.host.hosted import HostedServer
    from rea_tui.host.protocol_memory import ProtocolMemory

    hosted = HostedServer(_single(specs), timeout=args.timeout, memory=ProtocolMemory())
    try:
        await hosted.start(load_catalogs=catalogs)
        return await body(hosted)
    except HostError as exc:
        print(f"rea-tui: {safe(exc.describe(), 8_000)}", file=sys.stderr)
        return exit_code_for(exc)
    finally:
        await hosted.close()
        if args.trace:
            print(hosted.connection.traffic.format_table(), file=sys.stderr)


# ------------------------------------------------------------------ commands


async def cmd_servers(args: argparse.Namespace, specs: list[ServerSpec]) -> int:
    if args.discover:
        from rea_tui.cli_discover import cmd_discover

        return cmd_discover(args)
    rows: list[dict[str, Any]] = []

    async def probe(spec: ServerSpec) -> None:
        row: dict[str, Any] = {
            "name": spec.name,
            "transport": spec.transport,
            "target": spec.display_target(),
            "protocol": spec.protocol,
        }
        rows.append(row)
        if args.no_connect:
            return
        from rea_tui.host.connection import Connection
        from rea_tui.host.errors import HostError
        from rea_tui.host.protocol_memory import ProtocolMemory

        connection = Connection(spec, timeout=args.timeout, connect_timeout=args.timeout, memory=ProtocolMemory())
        try:
            await connection.start()
            row.update(
                status="ok",
                protocolVersion=connection.protocol_version,
                serverInfo={"name": connection.server_name, "version": connection.server_version},
                capabilities=sorted(connection.capabilities),
            )
        except HostError as exc:
            row.update(status="error", error=exc.describe(), exitCode=exit_code_for(exc))
        finally:
            await connection.close()
            if args.trace:
                print(connection.traffic.format_table(), file=sys.stderr)

    await asyncio.gather(*(probe(spec) for spec in specs))
    rows.sort(key=lambda r: [s.name for s in specs].index(r["name"]))
    if args.json:
        emit_json({"servers": rows})
    else:
        for row in rows:
            say(f"{safe(row['name'])}  ({row['transport']}: {safe(row['target'])})")
            if row.get("status") == "ok":
                info = row["serverInfo"]
                say(f"  {safe(info['name'])} {safe(info['version'])}, protocol {row['protocolVersion']}")
                say(f"  capabilities: {', '.join(row['capabilities']) or 'none'}")
            elif row.get("status") == "error":
                say("  " + safe(row["error"]).replace("\n", "\n  "))
    failed = [r for r in rows if r.get("status") == "error"]
    return int(failed[0]["exitCode"]) if failed and len(failed) == len(rows) else EXIT_OK


def prompt_json(prompt: Any) -> dict[str, Any]:
    return {
        "name": prompt.name,
        "title": prompt.title,
        "description": prompt.description,
        "arguments": [
            {"name": a.name, "title": a.title, "description": a.description, "required": a.required}
            for a in prompt.arguments
        ],
    }


async def cmd_prompts(args: argparse.Namespace, specs: list[ServerSpec]) -> int:
    async def body(hosted: HostedServer) -> int:
        await hosted.catalogs.prompts.refresh()
        prompts = hosted.catalogs.prompts.items
        if args.json:
            emit_json({"prompts": [prompt_json(p) for p in prompts]})
            return EXIT_OK
        if not hosted.catalogs.prompts.supported:
            say("(the server does not declare the prompts capability)")
        for prompt in prompts:
            title = f" - {safe(prompt.title)}" if prompt.title else ""
            say(f"{safe(prompt.name)}{title}")
            if prompt.description:
                say(f"    {safe(prompt.description, 500)}")
            for argument in prompt.arguments:
                mark = "*" if argument.required else " "
                say(f"    {mark} {safe(argument.name)}: {safe(argument.description, 300)}")
        say(f"{len(prompts)} prompts (* = required argument)")
        return EXIT_OK

    return await with_server(args, specs, body, catalogs=False)


def workflow_json(workflow: Any) -> dict[str, Any]:
    from rea_tui.host.models import block_json

    return {
        "prompt": workflow.prompt,
        "arguments": workflow.arguments,
        "description": workflow.description,
        "messages": [{"role": m.role, "content": [block_json(b) for b in m.blocks]} for m in workflow.messages],
        "steps": [{"tool": s.tool, "description": s.description} for s in workflow.steps],
    }


async def cmd_get(args: argparse.Namespace, specs: list[ServerSpec]) -> int:
    from rea_tui.host.workflow import render_prompt

    arguments = parse_pairs(args.pairs)

    async def body(hosted: HostedServer) -> int:
        prompt = hosted.catalogs.prompts.get(args.prompt)
        missing = [a.name for a in prompt.required_arguments if not arguments.get(a.name)] if prompt else []
        if missing:
            raise UsageError(f"{args.prompt} needs {', '.join(missing)} (nothing was sent)")
        workflow = await render_prompt(hosted.connection, args.prompt, arguments, hosted.catalogs.tools.items)
        if args.json:
            emit_json(workflow_json(workflow))
            return EXIT_OK
        from rea_tui.host.models import block_text

        if workflow.description:
            say(safe(workflow.description))
            say()
        for message in workflow.messages:
            say(f"[{safe(message.role)}]")
            for block in message.blocks:
                text = block_text(block)
                say(safe(text, 20_000) if text and block.kind == "text" else f"<{block.kind}> {safe(text, 500)}")
            say()
        say("steps:")
        for number, step in enumerate(workflow.steps, 1):
            say(f"  {number}. {safe(step.tool)} - {safe(step.description, 200)}")
        if not workflow.steps:
            say("  (no tool of this server is named in the prompt)")
        return EXIT_OK

    return await with_server(args, specs, body)


async def cmd_complete(args: argparse.Namespace, specs: list[ServerSpec]) -> int:
    from rea_tui.host.completion import CompletionRef

    context = parse_pairs(args.context, "--context")
    ref = CompletionRef("template" if args.template else "prompt", args.target)

    async def body(hosted: HostedServer) -> int:
        feed = hosted.completions
        if not feed.supported:
            print(
                "rea-tui: the server does not declare the completions capability; nothing was asked",
                file=sys.stderr,
            )
            return EXIT_PROTOCOL
        page = await feed.complete(ref, args.argument, args.value, context)
        if args.json:
            emit_json(page.to_json())
            return EXIT_OK
        total = "?" if page.total is None else f"{page.total:,}"
        more = ", hasMore" if page.has_more else ""
        say(f"{len(page.values)} values (total {total}{more}) in {page.latency_ms:.1f} ms")
        for value in page.values:
            say(f"  {safe(value, 300)}")
        if not page.values:
            say("  (no suggestions; an empty list does not mean there are none)")
        for warning in page.warnings:
            say(f"warning: {warning}")
        return EXIT_OK

    return await with_server(args, specs, body, catalogs=False)


def tool_json(tool: Any) -> dict[str, Any]:
    return {
        "name": tool.name,
        "title": tool.title,
        "description": tool.description,
        "inputSchema": tool.input_schema,
        "outputSchema": tool.output_schema,
        "annotations": tool.annotations,
    }


def describe_annotations(annotations: dict[str, Any]) -> str:
    hints = [f"{k}={json.dumps(v)}" for k, v in sorted(annotations.items()) if k.endswith("Hint")]
    return ", ".join(hints) if hints else "none declared"


async def cmd_tools(args: argparse.Namespace, specs: list[ServerSpec]) -> int:
    async def body(hosted: HostedServer) -> int:
        await hosted.catalogs.tools.refresh()
        tools = hosted.catalogs.tools.items
        if args.json:
            emit_json({"tools": [tool_json(t) for t in tools]})
            return EXIT_OK
        for tool in tools:
            say(f"{safe(tool.name)}  [{safe(describe_annotations(tool.annotations))}]")
            if tool.description:
                say(f"    {safe(tool.description, 300)}")
        say(f"{len(tools)} tools (annotations are declared by the server, not verified)")
        return EXIT_OK

    return await with_server(args, specs, body, catalogs=False)


async def cmd_resources(args: argparse.Namespace, specs: list[ServerSpec]) -> int:
    async def body(hosted: HostedServer) -> int:
        resources = hosted.catalogs.resources.items
        templates = hosted.catalogs.templates.items
        if args.json:
            emit_json(
                {
                    "resources": [
                        {"uri": r.uri, "name": r.name, "description": r.description, "mimeType": r.mime_type}
                        for r in resources
                    ],
                    "resourceTemplates": [
                        {"uriTemplate": t.uri_template, "name": t.name, "description": t.description} for t in templates
                    ],
                }
            )
            return EXIT_OK
        for resource in resources:
            say(f"{safe(resource.uri)}  {safe(resource.name)}  {safe(resource.mime_type or '')}")
        for template in templates:
            say(f"{safe(template.uri_template)}  (template: {', '.join(safe(v) for v in template.variables)})")
        say(f"{len(resources)} resources, {len(templates)} templates")
        return EXIT_OK

    async def load(hosted: HostedServer) -> int:
        await hosted.catalogs.resources.refresh()
        from rea_tui.host.errors import ProtocolError

        try:
            await hosted.catalogs.templates.refresh()
        except ProtocolError:
            hosted.catalogs.templates.items = []
        return await body(hosted)

    return await with_server(args, specs, load, catalogs=False)


async def cmd_read(args: argparse.Namespace, specs: list[ServerSpec]) -> int:
    from rea_tui.host.models import parse_resource_contents

    async def body(hosted: HostedServer) -> int:
        result = await hosted.connection.request("resources/read", {"uri": args.uri})
        contents = result.get("contents") if isinstance(result.get("contents"), list) else []
        if args.json:
            emit_json(result)
            return EXIT_OK
        for raw in contents or []:
            block = parse_resource_contents(raw)
            if block is None:
                continue
            say(f"--- {safe(block.uri)} ({safe(block.mime_type or 'no type')})")
            if block.text is not None:
                say(safe(block.text, 200_000))
            else:
                say(f"<binary, {block.blob_size or 0:,} bytes>")
        return EXIT_OK

    return await with_server(args, specs, body, catalogs=False)


async def cmd_auth(args: argparse.Namespace, specs: list[ServerSpec]) -> int:
    from rea_tui.cli_auth import cmd_auth as auth_command

    return await auth_command(args, specs)


async def cmd_call(args: argparse.Namespace, specs: list[ServerSpec]) -> int:
    from rea_tui.cli_call import call_tool_command

    return await call_tool_command(args, specs)


# Commands that run here rather than against one connected server (in cli_session).
LOCAL_COMMANDS = ("sessions", "export", "replay", "web")


COMMANDS: dict[str, Callable[[argparse.Namespace, list[ServerSpec]], Coroutine[Any, Any, int]]] = {
    "servers": cmd_servers,
    "prompts": cmd_prompts,
    "get": cmd_get,
    "complete": cmd_complete,
    "tools": cmd_tools,
    "call": cmd_call,
    "resources": cmd_resources,
    "read": cmd_read,
    "auth": cmd_auth,
}
