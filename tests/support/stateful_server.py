"""A tiny stateful MCP server: a session id from `start` is good only in the same server process.

Run as `python -m tests.support.stateful_server` (stdio). `start` opens a
session and returns its id (random, so a fresh process cannot guess it);
`step` advances a known session and fails with a tool error on an unknown one;
`stop` ends it. Like a debugger server, what it holds lasts as long as its
process: a one-shot command loses it, a warm session keeps it.
"""

from __future__ import annotations

import secrets

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

server = MCPServer("stateful-server", version="1.0.0")
# session id -> steps taken
SESSIONS: dict[str, int] = {}


@server.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=False))
def start() -> str:
    """Open a session; its id."""
    session_id = secrets.token_hex(8)
    SESSIONS[session_id] = 0
    return session_id


@server.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=False))
def step(session: str) -> str:
    """Advance a session opened by `start` in this process."""
    if session not in SESSIONS:
        raise ValueError(f"no session {session!r} in this process")
    SESSIONS[session] += 1
    return f"session {session}: step {SESSIONS[session]}"


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def count() -> int:
    """How many sessions this process holds."""
    return len(SESSIONS)


if __name__ == "__main__":
    server.run("stdio")
