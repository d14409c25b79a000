"""Serving streamable HTTP at /mcp on one host and port (see `http_security` for who may connect)."""

from __future__ import annotations

import socket
import sys
from typing import Any

import anyio
from mcp.server.transport_security import TransportSecuritySettings

from rea_tui.server.protocol.http_security import BearerTokenGate, allowed_hosts, is_loopback
from rea_tui.server.rea_server import ReaServer
from rea_tui.server.target.target_paths import StartupTarget
from rea_tui.server.target.workspaces import SESSION_HEADER, SESSION_IDLE_SECONDS, Workspaces

LISTEN_BACKLOG = 128
HTTP_OK = 200
HTTP_REDIRECT = 300
_STARTED_POLL_SECONDS = 0.02


def _security(host: str) -> TransportSecuritySettings:
    """Always explicit: the SDK would only turn the check on for three spellings of loopback."""
    if is_loopback(host):
        hosts, origins = allowed_hosts(host)
        return TransportSecuritySettings(
            enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
        )
    # A remote bind has no fixed Host name to check; the bearer token guards it instead.
    return TransportSecuritySettings(enable_dns_rebinding_protection=False)


class SessionEnd:
    """ASGI wrapper: a client's DELETE of its MCP session drops that session's target and evidence."""

    def __init__(self, inner: Any, workspaces: Workspaces) -> None:
        self.inner = inner
        self.workspaces = workspaces

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or scope.get("method") != "DELETE":
            await self.inner(scope, receive, send)
            return
        statuses: list[int] = []

        async def watched(message: Any) -> None:
            if message.get("type") == "http.response.start":
                statuses.append(int(message.get("status", 0)))
            await send(message)

        await self.inner(scope, receive, watched)
        if statuses and HTTP_OK <= statuses[0] < HTTP_REDIRECT:  # the SDK ended the session
            for name, value in scope.get("headers", ()):
                if name.decode("latin-1").lower() == SESSION_HEADER:
                    self.workspaces.drop(value.decode("latin-1"))


def serve_http(app: ReaServer, host: str, port: int, token: str | None, startup: StartupTarget | None) -> int:
    import uvicorn

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        print(f"rea-server: cannot listen on {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    sock.listen(LISTEN_BACKLOG)
    bound_port = sock.getsockname()[1]
    shown_host = f"[{host}]" if family == socket.AF_INET6 else host

    asgi: Any = app.server.streamable_http_app(
        host=host, transport_security=_security(host), session_idle_timeout=SESSION_IDLE_SECONDS
    )
    asgi = SessionEnd(asgi, app.workspaces)
    if token:
        asgi = BearerTokenGate(asgi, token)
    config = uvicorn.Config(asgi, log_level="warning", access_log=False, lifespan="on")
    server = uvicorn.Server(config)

    async def announce() -> None:
        while not server.started:
            if server.should_exit:
                return
            await anyio.sleep(_STARTED_POLL_SECONDS)
        # Tests and the host parse exactly this line.
        print(f"rea-server listening on http://{shown_host}:{bound_port}/mcp", file=sys.stderr, flush=True)

    async def run() -> None:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(announce)
            if startup is not None:
                await app.open_startup_target(startup, tasks)
            await server.serve(sockets=[sock])
            tasks.cancel_scope.cancel()

    anyio.run(run)
    return 0
