"""A FastMCP server behind FastMCP's in-memory OAuth provider, with a tool that needs more scope.

`python -m tests.support.fastmcp_oauth_server --http 127.0.0.1:PORT [--token-ttl N] [--log FILE]`
serves streamable HTTP at `/mcp` on one origin with the authorization server
FastMCP builds on the SDK's handlers: dynamic registration (scopes `mcp` and
`admin` may be registered; a client registered for fewer is refused the rest
at the authorization endpoint with `invalid_scope`), an authorization endpoint
that approves at once, a token endpoint (PKCE, refresh). The MCP endpoint needs
scope `mcp`; `whoami` answers with the token's client and scopes; a call of
`admin_op` with a token that lacks `admin` is answered HTTP 403
`insufficient_scope` naming `mcp admin` (`AdminGate`). With `--log` every
HTTP request is appended to FILE as `METHOD PATH`, so a test counts what was
asked (token-endpoint requests, registrations). State lives in memory: a
restart on the same port forgets every client and token.
It prints `fastmcp-oauth listening on URL` on stderr.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
from pathlib import Path
from typing import Any

import uvicorn
from fastmcp import FastMCP
from fastmcp.server.auth.auth import ClientRegistrationOptions
from fastmcp.server.auth.providers import in_memory
from fastmcp.server.dependencies import get_access_token

BASE_SCOPE = "mcp"
ADMIN_SCOPE = "admin"


class AdminGate:
    """ASGI middleware: a `tools/call` of `admin_op` whose token lacks `admin` gets HTTP 403 insufficient_scope.

    The step-up challenge of SEP-2350 / RFC 6750 §3.1 at the HTTP layer, naming the scopes the call needs.
    """

    def __init__(self, app: Any, provider: in_memory.InMemoryOAuthProvider, metadata_url: str) -> None:
        self.app = app
        self.provider = provider
        self.metadata_url = metadata_url

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != "/mcp":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        more = True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        if await self._lacks_admin(scope, body):
            challenge = (
                f'Bearer error="insufficient_scope", scope="{BASE_SCOPE} {ADMIN_SCOPE}", '
                f'resource_metadata="{self.metadata_url}"'
            )
            await send(
                {
                    "type": "http.response.start",
                    "status": 403,
                    "headers": [(b"www-authenticate", challenge.encode()), (b"content-length", b"0")],
                }
            )
            await send({"type": "http.response.body", "body": b""})
            return
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _lacks_admin(self, scope: Any, body: bytes) -> bool:
        try:
            message = json.loads(body)
        except ValueError:
            return False
        if not isinstance(message, dict) or message.get("method") != "tools/call":
            return False
        if (message.get("params") or {}).get("name") != "admin_op":
            return False
        headers = dict(scope["headers"])
        bearer = headers.get(b"authorization", b"").decode().removeprefix("Bearer ")
        token = await self.provider.load_access_token(bearer)
        # No valid token is the 401 the auth layer answers; only a valid one short of admin is a step-up.
        return token is not None and ADMIN_SCOPE not in token.scopes


class RequestLog:
    """ASGI middleware appending `METHOD PATH` of every HTTP request to a file."""

    def __init__(self, app: Any, path: Path) -> None:
        self.app = app
        self.path = path

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(f"{scope['method']} {scope['path']}\n")
        await self.app(scope, receive, send)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", default="127.0.0.1:0")
    parser.add_argument("--token-ttl", type=int, default=3600, help="access token lifetime in seconds")
    parser.add_argument("--log", type=Path, default=None, help="append METHOD PATH of each request here")
    args = parser.parse_args()

    host, _, port = args.http.rpartition(":")
    sock = socket.socket()
    # A restart binds the same port at once (the test restarts the server under the same URL).
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, int(port)))
    sock.listen(128)
    base = f"http://{host}:{sock.getsockname()[1]}"
    # The provider reads its token lifetime from this module constant at each issue.
    in_memory.DEFAULT_ACCESS_TOKEN_EXPIRY_SECONDS = args.token_ttl
    provider = in_memory.InMemoryOAuthProvider(
        base_url=base,
        client_registration_options=ClientRegistrationOptions(enabled=True, valid_scopes=[BASE_SCOPE, ADMIN_SCOPE]),
        required_scopes=[BASE_SCOPE],
    )
    server = FastMCP("fastmcp-oauth", auth=provider)

    @server.tool
    def whoami() -> str:
        """The client and scopes of the token this call came with."""
        token = get_access_token()
        return f"client={token.client_id if token else None} scopes={' '.join(token.scopes) if token else ''}"

    @server.tool
    def admin_op() -> str:
        """An operation that needs the admin scope."""
        return "admin done"

    app: Any = AdminGate(server.http_app(path="/mcp"), provider, f"{base}/.well-known/oauth-protected-resource/mcp")
    if args.log is not None:
        app = RequestLog(app, args.log)
    print(f"fastmcp-oauth listening on {base}/mcp", file=sys.stderr, flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on")).run(sockets=[sock])


if __name__ == "__main__":
    main()
