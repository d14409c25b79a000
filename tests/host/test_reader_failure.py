"""A reader that breaks marks the connection failed with the reason, and a reconnect starts a fresh process."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import rea_tui.host.transports.transport as transport
from rea_tui.host import HostedServer, ServerExited
from tests.conftest import sample_spec


def pid_of(hosted: HostedServer) -> int | None:
    process = hosted.connection._process
    return None if process is None else process.pid


async def test_a_reader_failure_is_a_failed_connection_not_a_silent_one(monkeypatch: pytest.MonkeyPatch) -> None:
    hosted = HostedServer(sample_spec("legacy"), timeout=5)
    await hosted.start()
    try:
        first = pid_of(hosted)

        def broken(obj: Any) -> Any:
            raise RuntimeError("injected: the reader broke")

        monkeypatch.setattr(transport, "parse_message", broken)
        # The request in flight fails at once (no timeout), and the connection says why.
        with pytest.raises(ServerExited):
            await hosted.connection.request("ping")
        for _ in range(100):
            if hosted.status == "exited":
                break
            await asyncio.sleep(0.05)
        assert hosted.status == "exited"
        error = hosted.connection.last_error
        assert error is not None and "injected: the reader broke" in error.describe()
        monkeypatch.undo()
        await hosted.start()  # what f5 does: a fresh process
        assert hosted.ready and pid_of(hosted) != first
        assert await hosted.connection.request("ping") == {}
    finally:
        await hosted.close()
