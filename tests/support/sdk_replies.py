"""The reference server's SDK, in this process, over given stdio lines: what it writes back, line for line.

The same path as `rea_tui.server.protocol.stdio_serving` without the front: the SDK's
stdio transport reads `lines` (decoded as it decodes the wire), the server
answers (no target open), and every message it writes is collected. Input ends
once the SDK has answered every line it reads as a request, so nothing is
cut off by the end of input. Tests compare the stdio front's early replies
with these.
"""

from __future__ import annotations

import json
from typing import cast

import anyio
import mcp_types as types
from mcp.server.stdio import stdio_server

from rea_tui.server.protocol.session_state import ServerOptions
from rea_tui.server.rea_server import ReaServer

ANSWER_TIMEOUT_SECONDS = 10.0

_server: ReaServer | None = None


def reference_server() -> ReaServer:
    """One server for every run (building one costs more than a run; listing changes nothing in it)."""
    global _server
    if _server is None:
        _server = ReaServer(ServerOptions())
    return _server


def is_request(line: bytes) -> bool:
    """Whether the SDK reads `line` as a JSON-RPC request (it owes it a reply)."""
    try:
        message = types.jsonrpc_message_adapter.validate_json(line.decode("utf-8", "replace"), by_name=False)
    except ValueError:
        return False
    return isinstance(message, types.JSONRPCRequest)


def _responses(written: list[str]) -> int:
    return sum(1 for text in written if "method" not in json.loads(text))


def sdk_replies(lines: list[bytes]) -> list[str]:
    """Every message the SDK writes for `lines` (JSON text, no newline), in the order it writes them."""
    owed = sum(1 for line in lines if is_request(line))
    written: list[str] = []

    class Incoming:
        def __init__(self) -> None:
            self._lines = iter(lines)

        def __aiter__(self) -> Incoming:
            return self

        async def __anext__(self) -> str:
            line = next(self._lines, None)
            if line is not None:
                return line.decode("utf-8", "replace")
            with anyio.move_on_after(ANSWER_TIMEOUT_SECONDS):
                while _responses(written) < owed:
                    await anyio.sleep(0.001)
            raise StopAsyncIteration

    class Outgoing:
        async def write(self, text: str) -> None:
            written.append(text.rstrip("\n"))

        async def flush(self) -> None:
            return None

    async def run() -> None:
        app = reference_server()
        incoming = cast("anyio.AsyncFile[str]", Incoming())
        outgoing = cast("anyio.AsyncFile[str]", Outgoing())
        async with stdio_server(stdin=incoming, stdout=outgoing) as (read_stream, write_stream):
            await app.server.run(read_stream, write_stream, app.initialization_options())

    anyio.run(run)
    assert _responses(written) == owed, f"the SDK answered {_responses(written)} of {owed} requests: {written}"
    return written
