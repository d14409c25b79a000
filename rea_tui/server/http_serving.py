"""Serving streamable HTTP at /mcp on one host and port (see `http_security` for who may connect)."""

from __future__ import annotations

import socket
import sys
from typing import Any

import anyio
from mcp.server.transport_security import TransportSecuritySettings

from rea_tui.server.http_security import BearerTokenGate, allowed_hosts, is_loopback
from rea_tui.server.rea_server import ReaServer
from rea_tui.server.target_paths import StartupTarget

LISTEN_BACKLOG = 128
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

    asgi: Any = app.server.streamable_http_app(host=host, transport_security=_security(host))
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
