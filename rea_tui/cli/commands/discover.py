"""`rea-tui servers --discover`: the servers other MCP clients are configured with, and where."""

from __future__ import annotations

from typing import Any

from rea_tui.cli.command import Context
from rea_tui.cli.exit_codes import ExitCode

TARGET_LIMIT = 300


def list_discovered(context: Context) -> int:
    from rea_tui.host import discover, sanitize

    args, out = context.args, context.out
    safe = sanitize
    say = out.line

    found = discover()
    first: dict[str, str] = {}
    rows: list[dict[str, Any]] = []
    for server in found.servers:
        picked = server.name not in first
        first.setdefault(server.name, f"{server.client} ({server.source})")
        rows.append(
            {
                "name": server.name,
                "client": server.client,
                "scope": server.scope,
                "source": str(server.source),
                "target": server.describe_target(),
                "picked": picked,
            }
        )
    if args.json:
        out.json({"servers": rows, "problems": found.problems, "searched": [str(p) for _, p in found.searched]})
        return ExitCode.OK
    for row in rows:
        say(f"{safe(row['name'])}  ({safe(row['target'], TARGET_LIMIT)})")
        say(f"  {row['client']}, {row['scope']}: {safe(row['source'])}")
        if not row["picked"]:
            say(f"  (--server {safe(row['name'])} uses the one in {safe(first[row['name']])})")
    for problem in found.problems:
        say(f"warning: {safe(problem)}")
    if not rows:
        say("(no servers in the other clients' config files)")
    say(
        f"{len(rows)} servers from other clients' configs; `--server NAME` uses them when the rea-tui config "
        "has no server of that name (the first listed wins)"
    )
    return ExitCode.OK
