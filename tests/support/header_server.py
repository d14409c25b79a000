"""A FastMCP server over streamable HTTP whose tools carry `x-mcp-header` annotations (SEP-2243).

`python -m tests.support.header_server stdio` serves over stdio;
`python -m tests.support.header_server PORT RECORD` serves on 127.0.0.1:PORT and appends one JSON
line per POST to RECORD: the JSON-RPC method, the tool name of a `tools/call`, and every `mcp-*`
header received (lower-cased, as the server read them). `route` has valid annotations on a string,
an integer, a boolean and a string sent non-ASCII; `bad_score` puts one on a `number`, which
2026-07-28 forbids (a client must exclude the tool); `plain` has none.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

from fastmcp import FastMCP
from pydantic import Field

server = FastMCP("header-test")


def header(name: str) -> Any:
    return Field(json_schema_extra={"x-mcp-header": name})


@server.tool
def route(
    region: Annotated[str, header("Region")],
    priority: Annotated[int, header("Priority")] = 1,
    verbose: Annotated[bool, header("Verbose")] = False,
    label: Annotated[str, header("Label")] = "",
    query: str = "",
) -> str:
    """Echo the arguments (the mirrored ones come as Mcp-Param-* headers too)."""
    return f"region={region} priority={priority} verbose={verbose} label={label} query={query}"


@server.tool
def bad_score(score: Annotated[float, header("Score")]) -> str:
    """An x-mcp-header on a number: invalid at 2026-07-28."""
    return f"score={score}"


@server.tool
def plain(text: str = "") -> str:
    """No annotations."""
    return f"plain {text}"


class Recorder:
    """ASGI middleware: the MCP headers of every POST, with its method, appended to a file."""

    def __init__(self, app: Any, path: str) -> None:
        self.app = app
        self.path = path

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        more = True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        try:
            request = json.loads(body)
        except ValueError:
            request = {}
        params = request.get("params") if isinstance(request, dict) else None
        record = {
            "method": request.get("method") if isinstance(request, dict) else None,
            "name": params.get("name") if isinstance(params, dict) else None,
            "headers": {
                k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"] if k.lower().startswith(b"mcp-")
            },
        }
        with open(self.path, "a", encoding="utf-8") as out:
            out.write(json.dumps(record) + "\n")
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def main() -> None:
    if sys.argv[1:] == ["stdio"]:
        server.run(show_banner=False)
        return
    import uvicorn

    port, record = int(sys.argv[1]), sys.argv[2]
    app = Recorder(server.http_app(path="/mcp"), record)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")


if __name__ == "__main__":
    main()
