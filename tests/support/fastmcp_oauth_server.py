"""A FastMCP server behind FastMCP's in-memory OAuth provider, with a tool that needs more scope.

`python -m tests.support.fastmcp_oauth_server --http 127.0.0.1:PORT [--token-ttl N] [--log FILE]`
serves streamable HTTP at `/mcp` on one origin with the authorization server
FastMCP builds on the SDK's handlers: dynamic registration (scopes `mcp` and
`admin` may be registered; a client registered for fewer is refused the rest
at the authorization endpoint with `invalid_scope`), an authorization endpoint
that approves at once, a token endpoint (PKCE, refresh). The MCP endpoint needs
scope `mcp`; `whoami` answers with the token's client and scopes; a call of
`admin_op` with a token that lacks `admin` is answered HTTP 403
`insufficient_scope` naming `mcp admin` (`McpGate`). With `--log` every
HTTP request is appended to FILE as `METHOD PATH` (a POST to `/mcp` with its
JSON-RPC method), so a test counts what was asked (token requests,
registrations, handshakes). `--initialize-error` answers a legacy `initialize`
without a valid token with HTTP 400 and JSON-RPC error -32020, while the
2026-07-28 probe gets the 401. State lives in memory: a restart on the same
port forgets every client and token.
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
# The JSON-RPC error code `--initialize-error` answers a tokenless legacy handshake with.
HANDSHAKE_REFUSED = -32020


class McpGate:
    """ASGI middleware on `POST /mcp`: the step-up gate, the legacy handshake's own refusal, and the log.

    A `tools/call` of `admin_op` whose token lacks `admin` gets HTTP 403 insufficient_scope naming the
    scopes the call needs (SEP-2350 / RFC 6750 §3.1). With `initialize_error`, an `initialize` without
    a valid token gets HTTP 400 and a JSON-RPC error of its own (as a server that checks the legacy
    handshake before authorization does). Every request is appended to `log` as `METHOD PATH`, and a
    POST to the MCP endpoint with its JSON-RPC method (`POST /mcp initialize`).
    """

    def __init__(
        self,
        app: Any,
        provider: in_memory.InMemoryOAuthProvider,
        metadata_url: str,
        log: Path | None,
        initialize_error: bool,
    ) -> None:
        self.app = app
        self.provider = provider
        self.metadata_url = metadata_url
        self.log = log
        self.initialize_error = initialize_error

    def _note(self, line: str) -> None:
        if self.log is not None:
            with self.log.open("a", encoding="utf-8") as handle:
                handle.write(line + "\n")

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["method"] != "POST" or scope["path"] != "/mcp":
            self._note(f"{scope['method']} {scope['path']}")
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
            rpc = json.loads(body)
        except ValueError:
            rpc = None
        rpc = rpc if isinstance(rpc, dict) else {}
        method = str(rpc.get("method", ""))
        self._note(f"POST /mcp {method}".rstrip())
        token = await self._token(scope)
        calls_admin = method == "tools/call" and (rpc.get("params") or {}).get("name") == "admin_op"
        # No valid token is the 401 the auth layer answers; only a valid one short of admin is a step-up.
        if calls_admin and token is not None and ADMIN_SCOPE not in token.scopes:
            challenge = (
                f'Bearer error="insufficient_scope", scope="{BASE_SCOPE} {ADMIN_SCOPE}", '
                f'resource_metadata="{self.metadata_url}"'
            )
            await _respond(send, 403, [(b"www-authenticate", challenge.encode())], b"")
            return
        if method == "initialize" and self.initialize_error and token is None:
            error = {"code": HANDSHAKE_REFUSED, "message": "handshake refused before authorization"}
            reply = json.dumps({"jsonrpc": "2.0", "id": rpc.get("id"), "error": error}).encode()
            await _respond(send, 400, [(b"content-type", b"application/json")], reply)
            return
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _token(self, scope: Any) -> Any:
        headers = dict(scope["headers"])
        bearer = headers.get(b"authorization", b"").decode().removeprefix("Bearer ")
        return await self.provider.load_access_token(bearer) if bearer else None


async def _respond(send: Any, status: int, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
    headers = [*headers, (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", default="127.0.0.1:0")
    parser.add_argument("--token-ttl", type=int, default=3600, help="access token lifetime in seconds")
    parser.add_argument("--log", type=Path, default=None, help="append METHOD PATH of each request here")
    parser.add_argument(
        "--initialize-error", action="store_true", help="refuse a legacy initialize without a token with -32020"
    )
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

    metadata_url = f"{base}/.well-known/oauth-protected-resource/mcp"
    app = McpGate(server.http_app(path="/mcp"), provider, metadata_url, args.log, args.initialize_error)
    print(f"fastmcp-oauth listening on {base}/mcp", file=sys.stderr, flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on")).run(sockets=[sock])


if __name__ == "__main__":
    main()
