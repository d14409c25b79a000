"""An MCP server, written without the SDK, whose tool floods the client with log messages.

`python -m tests.support.log_flood_server` speaks the 2025-11-25 handshake
over stdio and declares `logging`. The tool `flood` (arguments `count`,
`level`) writes `count` `notifications/message` lines as fast as a process
can, then its result: a producer fast enough that the client's handling is
what is measured. `logging/setLevel` is answered and remembered; messages
below the level asked for are not sent (as the spec says a server should).
"""

from __future__ import annotations

import json
import sys
from typing import Any

LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
# Lines written in one go (a buffer of about this many messages).
CHUNK = 1_000


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def flood(count: int, level: str, threshold: str) -> int:
    if LEVELS.index(level) < LEVELS.index(threshold):
        return 0
    lines = []
    for number in range(count):
        params = {"level": level, "logger": "flood", "data": f"{level} message {number + 1} of {count}"}
        lines.append(json.dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": params}) + "\n")
        if len(lines) == CHUNK:
            sys.stdout.write("".join(lines))
            lines.clear()
    sys.stdout.write("".join(lines))
    sys.stdout.flush()
    return count


TOOL = {
    "name": "flood",
    "description": "Send COUNT log messages of LEVEL, as fast as possible, then answer.",
    "inputSchema": {
        "type": "object",
        "properties": {"count": {"type": "integer"}, "level": {"type": "string", "enum": list(LEVELS)}},
    },
    "annotations": {"readOnlyHint": True},
}


def main() -> None:
    threshold = "debug"
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        method, request_id = message.get("method"), message.get("id")
        if request_id is None:
            continue
        params = message.get("params") or {}
        if method == "initialize":
            result: dict[str, Any] = {
                "protocolVersion": "2025-11-25",
                "capabilities": {"logging": {}, "tools": {}},
                "serverInfo": {"name": "log-flood", "version": "1.0.0"},
            }
        elif method == "logging/setLevel":
            threshold = params.get("level", threshold)
            result = {}
        elif method == "tools/list":
            result = {"tools": [TOOL]}
        elif method == "tools/call":
            arguments = params.get("arguments") or {}
            sent = flood(int(arguments.get("count", 1_000)), str(arguments.get("level", "error")), threshold)
            result = {"content": [{"type": "text", "text": f"sent {sent} log messages"}]}
        elif method == "ping":
            result = {}
        else:
            send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": f"no {method}"}})
            continue
        send({"jsonrpc": "2.0", "id": request_id, "result": result})


if __name__ == "__main__":
    main()
