"""`rea-tui servers --discover`: the servers other MCP clients are configured with, and where."""

from __future__ import annotations

from typing import Any

from rea_tui.cli.command import Context
from rea_tui.cli.exit_codes import ExitCode

TARGET_LIMIT = 300


def list_discovered(context: Context) -> int:
    from rea_tui.host import discover, sanitize_line

    args, out = context.args, context.out
    safe = sanitize_line
    say = out.line

    found = discover()
    rows: list[dict[str, Any]] = []
    for server in found.servers:
        used = found.find(server.name)
        # A folder's entry is not looked into before the folder is trusted (not even for which variables are set).
        unset = server.unset_variables() if not server.untrusted and not server.disabled else []
        rows.append(
            {
                "name": server.name,
                "client": server.client,
                "scope": server.scope,
                "source": str(server.source),
                "target": server.describe_target(),
                "picked": used is server,
                "trusted": not server.untrusted,
                **({"notUsed": server.untrusted} if server.untrusted else {}),
                **({"disabled": server.disabled} if server.disabled else {}),
                **({"unsetVariables": unset} if unset else {}),
                **(
                    {"usedInstead": f"{used.client} ({used.source})"} if used is not None and used is not server else {}
                ),
            }
        )
    if args.json:
        out.json({"servers": rows, "problems": found.problems, "searched": [str(p) for _, p in found.searched]})
        return ExitCode.OK
    for row in rows:
        say(f"{safe(row['name'])}  ({safe(row['target'], TARGET_LIMIT)})")
        say(f"  {row['client']}, {row['scope']}: {safe(row['source'])}")
        if not row["trusted"]:
            say(f"  not used: {safe(row['notUsed'])} (`rea-tui trust` lists what it runs and trusts the folder)")
        elif "disabled" in row:
            say(f"  disabled: {safe(row['disabled'])}; rea-tui does not start it")
        elif "usedInstead" in row:
            say(f"  (--server {safe(row['name'])} uses the one in {safe(row['usedInstead'])})")
        for said in row.get("unsetVariables", []):
            say(f"  {safe(said)}")
    for problem in found.problems:
        say(f"warning: {safe(problem)}")
    if not rows:
        say("(no servers in the other clients' config files)")
    say(
        f"{len(rows)} servers from other clients' configs; `--server NAME` uses them when the rea-tui config "
        "has no server of that name (the user's own files first, then a trusted folder's)"
    )
    return ExitCode.OK
