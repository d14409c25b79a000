"""`rea-tui servers --discover`: the servers other MCP clients are configured with, and where."""

from __future__ import annotations

import argparse
from typing import Any

from rea_tui.cli import EXIT_OK, emit_json, safe, say


def cmd_discover(args: argparse.Namespace) -> int:
    from rea_tui.host.discovery import discover

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
        emit_json({"servers": rows, "problems": found.problems, "searched": [str(p) for _, p in found.searched]})
        return EXIT_OK
    for row in rows:
        say(f"{safe(row['name'])}  ({safe(row['target'], 300)})")
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
    return EXIT_OK
