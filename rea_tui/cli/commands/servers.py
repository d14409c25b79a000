"""`rea-tui servers`: each configured server, connected to (protocol version, capabilities)."""

from __future__ import annotations

import argparse
import asyncio
import subprocess
from textwrap import indent
from typing import TYPE_CHECKING, Any

from rea_tui.cli.command import Command, Context, run_async
from rea_tui.cli.exit_codes import ExitCode, exit_code_for

if TYPE_CHECKING:
    from rea_tui.host import Connection, ServerSpec

# Server instructions are guidance for a model; more than this is cut on the terminal.
INSTRUCTIONS_LIMIT = 4_000


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-connect", action="store_true", help="only list them")
    parser.add_argument(
        "--discover",
        action="store_true",
        help="list the servers other MCP clients are set up with (and the ones their client turns off)",
    )


async def probe(context: Context, spec: ServerSpec, started: subprocess.Popen[bytes] | None) -> dict[str, Any]:
    """What one server says about itself, or why it could not be reached. `started`: its process, if it is.

    As `--json` prints it: the server's initialize result as sent (`protocolVersion`, `capabilities`,
    `serverInfo`, `instructions` when it gave some), or an `error`, and rea-tui's own facts under `rea`.
    """
    facts: dict[str, Any] = {
        "name": spec.name,
        "transport": spec.transport,
        "target": spec.display_target(),
        "protocol": spec.protocol,
    }
    row: dict[str, Any] = {"rea": facts}
    if context.args.no_connect:
        return row
    from rea_tui.host import HostedServer, HostError, ProtocolMemory

    hosted = HostedServer(spec, timeout=context.args.timeout, memory=ProtocolMemory(), started=started)
    connection = hosted.connection
    try:
        await hosted.start(load_catalogs=False)
        row = {**initialize_result(connection), "rea": {**facts, "status": "ok"}}
    except HostError as exc:
        row = {
            "error": {"message": exc.describe()},
            "rea": {**facts, "status": "error", "exitCode": int(exit_code_for(exc)), "kind": type(exc).__name__},
        }
    finally:
        await hosted.close()
        if context.args.trace:
            context.out.note(connection.traffic.format_table())
    return row


def initialize_result(connection: Connection) -> dict[str, Any]:
    """The server's initialize result as it sent it (`instructions` only when it gave some)."""
    result: dict[str, Any] = {
        "protocolVersion": connection.protocol_version,
        "capabilities": connection.capabilities,
        "serverInfo": connection.server_info,
    }
    if connection.instructions:
        result["instructions"] = connection.instructions
    return result


async def run(context: Context) -> int:
    from rea_tui.host import sanitize, start_servers

    if context.args.discover:
        from rea_tui.cli.commands.discover import list_discovered

        return list_discovered(context)
    # All at once, and more of them than CPU cores below this process's priority (`start_servers`).
    started = {} if context.args.no_connect else start_servers(context.specs)
    rows = await asyncio.gather(*(probe(context, spec, started.get(spec.name)) for spec in context.specs))
    out = context.out
    if context.args.json:
        out.json({"servers": rows})
    else:
        for row in rows:
            facts = row["rea"]
            out.line(f"{sanitize(facts['name'])}  ({facts['transport']}: {sanitize(facts['target'])})")
            if facts.get("status") == "ok":
                info = row["serverInfo"]
                out.line(f"  {sanitize(info['name'])} {sanitize(info['version'])}, protocol {row['protocolVersion']}")
                out.line(f"  capabilities: {', '.join(sanitize(c) for c in sorted(row['capabilities'])) or 'none'}")
                if row.get("instructions"):
                    out.line("  instructions:")
                    out.line(indent(sanitize(row["instructions"], INSTRUCTIONS_LIMIT), "    "))
            elif facts.get("status") == "error":
                out.line("  " + sanitize(row["error"]["message"]).replace("\n", "\n  "))
    failed = [r["rea"] for r in rows if r["rea"].get("status") == "error"]
    return int(failed[0]["exitCode"]) if failed and len(failed) == len(rows) else ExitCode.OK


COMMAND = Command("servers", "list the servers and connect to each (protocol, capabilities)", configure, run_async(run))
