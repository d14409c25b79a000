"""Running the server: stdio, or streamable HTTP on one host and port."""

from __future__ import annotations

import socket
import sys

import anyio

from rea_tui.server.rea_server import ReaServer


def serve_stdio(app: ReaServer) -> int:
    from mcp.server.stdio import stdio_server

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await app.server.run(read_stream, write_stream, app.initialization_options())

    anyio.run(run)
    return 0


def serve_http(app: ReaServer, host: str, port: int) -> int:
    import uvicorn

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        print(f"rea-server: cannot listen on {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    sock.listen(128)
    bound_port = sock.getsockname()[1]
    shown_host = f"[{host}]" if family == socket.AF_INET6 else host

    starlette_app = app.server.streamable_http_app(host=host)
    config = uvicorn.Config(starlette_app, log_level="warning", access_log=False, lifespan="on")
    server = uvicorn.Server(config)

    async def announce() -> None:
        while not server.started:
            if server.should_exit:
                return
            await anyio.sleep(0.02)
        # Tests and the host parse exactly this line.
        print(f"rea-server listening on http://{shown_host}:{bound_port}/mcp", file=sys.stderr, flush=True)

    async def run() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(announce)
            await server.serve(sockets=[sock])
            tg.cancel_scope.cancel()

    anyio.run(run)
    return 0
