"""Serving over stdio: the SDK's stdio transport reads and writes through the `StdioFront`."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import anyio
import anyio.to_thread

from rea_tui.server.protocol.stdio_front import StdioFront

if TYPE_CHECKING:
    from rea_tui.server.rea_server import ReaServer
    from rea_tui.server.target.target_paths import StartupTarget


class _IncomingLines:
    """What the SDK's stdio transport iterates: the wire's lines, as text."""

    def __init__(self, front: StdioFront) -> None:
        self._front = front

    def __aiter__(self) -> _IncomingLines:
        return self

    async def __anext__(self) -> str:
        line = await anyio.to_thread.run_sync(self._front.next_line, abandon_on_cancel=True)
        if line is None:
            raise StopAsyncIteration
        return line.decode("utf-8", "replace")


class _OutgoingLines:
    """What the SDK's stdio transport writes to: each call is one JSON-RPC message and its newline."""

    def __init__(self, front: StdioFront) -> None:
        self._front = front

    async def write(self, text: str) -> None:
        await anyio.to_thread.run_sync(self._front.deliver, text)

    async def flush(self) -> None:
        return None  # every delivery is flushed


def serve_stdio(front: StdioFront, app: ReaServer, startup: StartupTarget | None) -> int:
    """Run `app` on the front's wire; the startup target opens alongside, once the SDK has replied to the
    requests the front answered early."""
    from mcp.server.stdio import stdio_server

    async def replayed() -> bool:
        return await anyio.to_thread.run_sync(front.wait_until_replayed, abandon_on_cancel=True)

    async def run() -> None:
        incoming = cast("anyio.AsyncFile[str]", _IncomingLines(front))
        outgoing = cast("anyio.AsyncFile[str]", _OutgoingLines(front))
        async with (
            stdio_server(stdin=incoming, stdout=outgoing) as (read_stream, write_stream),
            anyio.create_task_group() as tasks,
        ):
            if startup is not None:
                # What the early prompt list said (the target is still opening) stays true until the SDK
                # has replied to every request answered early.
                await app.open_startup_target(startup, tasks, hold=replayed)
            await app.server.run(read_stream, write_stream, app.initialization_options())
            tasks.cancel_scope.cancel()

    anyio.run(run)
    return 0
