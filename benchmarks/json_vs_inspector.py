"""rea-tui's `--json` against the MCP Inspector CLI's JSON, field by field, on server-everything.

Run from anywhere (the repository root is found from this file):

    python benchmarks/json_vs_inspector.py

It uses the Inspector, Node 22 and server-everything that `vs_inspector.py`
installs into `~/.cache/rea-tui/benchmarks/` (installing them the first time).
For every request both command lines make (tools/list, prompts/list,
resources/list, resources/templates/list, prompts/get with and without
arguments, resources/read, tools/call), it runs each client once over stdio,
drops rea-tui's own `rea` key, and compares the two JSON documents path by
path. It prints one line per request (fields compared, fields that differ)
and each differing path with both values; it exits 1 when any differs.
Tools the server
lists only to a client that declares sampling, elicitation or roots are named
apart (rea-tui declares them, the Inspector CLI does not).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import isolated_xdg, rea_tui_command
from vs_inspector import EVERYTHING_ENTRY, INSPECTOR_ENTRY, NODE_ENTRY, install

COMMAND_TIMEOUT_SECONDS = 120
STARTUP = "demo://resource/static/document/startup.md"


@dataclass
class Request:
    """One MCP request as each command line makes it, and where its result sits in rea-tui's JSON."""

    method: str
    rea: list[str]
    inspector: list[str]
    # rea-tui's `resources` prints resources/list and resources/templates/list together: the key to compare.
    rea_key: str | None = None


REQUESTS = [
    Request("tools/list", ["tools"], ["--method", "tools/list"]),
    Request("prompts/list", ["prompts"], ["--method", "prompts/list"]),
    Request("resources/list", ["resources"], ["--method", "resources/list"], rea_key="resources"),
    Request(
        "resources/templates/list",
        ["resources"],
        ["--method", "resources/templates/list"],
        rea_key="resourceTemplates",
    ),
    Request("prompts/get", ["get", "simple-prompt"], ["--method", "prompts/get", "--prompt-name", "simple-prompt"]),
    Request(
        "prompts/get (arguments)",
        ["get", "args-prompt", "city=Paris", "state=Texas"],
        ["--method", "prompts/get", "--prompt-name", "args-prompt", "--prompt-args", "city=Paris", "state=Texas"],
    ),
    Request("resources/read", ["read", STARTUP], ["--method", "resources/read", "--uri", STARTUP]),
    Request(
        "tools/call",
        ["call", "get-sum", "a=1", "b=2", "--yes"],
        ["--method", "tools/call", "--tool-name", "get-sum", "--tool-arg", "a=1", "b=2"],
    ),
]


def run_json(command: list[str], env: dict[str, str]) -> Any:
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=COMMAND_TIMEOUT_SECONDS)
    if done.returncode != 0:
        raise SystemExit(f"{command[:4]}… exited {done.returncode}: {done.stderr.strip()[-500:]}")
    # The Inspector prints a line about starting the server on stdout before the JSON.
    text = done.stdout
    return json.loads(text[text.index("{") :])


def differences(ours: Any, theirs: Any, path: str = "") -> tuple[int, list[tuple[str, Any, Any]]]:
    """(leaf fields compared, [(path, ours, theirs)] where they differ)."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        count, found = 0, []
        for key in sorted(set(ours) | set(theirs)):
            sub = f"{path}.{key}" if path else key
            if key not in ours or key not in theirs:
                count += 1
                found.append((sub, ours.get(key, "<absent>"), theirs.get(key, "<absent>")))
                continue
            n, more = differences(ours[key], theirs[key], sub)
            count, found = count + n, found + more
        return count, found
    if isinstance(ours, list) and isinstance(theirs, list):
        if len(ours) != len(theirs):
            return 1, [(f"{path}[len]", len(ours), len(theirs))]
        count, found = 0, []
        for index, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            n, more = differences(a, b, f"{path}[{index}]")
            count, found = count + n, found + more
        return count, found
    return 1, [] if ours == theirs else [(path, ours, theirs)]


def only_ours(ours: dict[str, Any], theirs: dict[str, Any]) -> list[str]:
    """Tools the server lists to rea-tui only, removed from `ours` (compared by name, then field by field).

    server-everything lists some tools only to a client that declares the capability they use
    (sampling, elicitation, roots); rea-tui declares them and the Inspector CLI does not.
    """
    if "tools" not in ours or "tools" not in theirs:
        return []
    names = {tool["name"] for tool in theirs["tools"]}
    extra = [tool["name"] for tool in ours["tools"] if tool["name"] not in names]
    ours["tools"] = [tool for tool in ours["tools"] if tool["name"] in names]
    return extra


def main() -> int:
    folder = install()
    node, everything = str(folder / NODE_ENTRY), str(folder / EVERYTHING_ENTRY)
    server = [node, everything, "stdio"]
    inspector = [node, str(folder / INSPECTOR_ENTRY), "--cli", *server]
    differing = 0
    with tempfile.TemporaryDirectory(prefix="rea-json-") as scratch:
        home = Path(scratch) / "inspector-home"
        home.mkdir()
        inspector_env = {**os.environ, "HOME": str(home), "MCP_CATALOG_PATH": str(home / "catalog.json")}
        rea_env = {**os.environ, **isolated_xdg(Path(scratch) / "rea-tui")}
        print(f"{'request':28} {'fields':>7} {'differ':>7}")
        for request in REQUESTS:
            ours = run_json([*rea_tui_command(), *request.rea, "--json", "--", *server], rea_env)
            theirs = run_json([*inspector, *request.inspector], inspector_env)
            ours.pop("rea", None)
            if request.rea_key is not None:
                ours = {request.rea_key: ours[request.rea_key]}
                theirs = {request.rea_key: theirs[request.rea_key]}
            extra = only_ours(ours, theirs)
            count, found = differences(ours, theirs)
            differing += len(found)
            print(f"{request.method:28} {count:7} {len(found):7}")
            if extra:
                print(f"    listed to rea-tui only (it declares sampling, elicitation and roots): {', '.join(extra)}")
            for path, a, b in found:
                print(f"    {path}: rea-tui {json.dumps(a)[:80]} / Inspector {json.dumps(b)[:80]}")
    print("identical on every request" if differing == 0 else f"{differing} differing fields")
    return 0 if differing == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
