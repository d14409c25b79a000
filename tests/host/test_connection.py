"""The connection against real server processes, over stdio and streamable HTTP."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest

from rea_tui.host.config.config import ServerSpec
from rea_tui.host.protocol.connection import Connection
from rea_tui.host.protocol.errors import ProtocolError, RequestTimedOut, ServerExited, ServerUnavailable
from rea_tui.host.protocol.events import ConnectionLost, HostEvent, ListChanged
from rea_tui.host.protocol.protocol_memory import ProtocolMemory
from tests.conftest import raw_spec, sample_spec


async def started(spec: ServerSpec, **kwargs: object) -> Connection:
    connection = Connection(spec, **kwargs)  # type: ignore[arg-type]
    await connection.start()
    return connection


async def wait_for_traffic(connection: Connection, method: str) -> None:
    """Messages are logged as the writer sends them; give it a moment."""
    for _ in range(100):
        if any(e.method == method for e in connection.traffic.entries()):
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{method} never went out")


@pytest.mark.parametrize("protocol, version", [("legacy", "2025-11-25"), ("auto", "2026-07-28")])
async def test_connects_on_both_generations_and_exposes_capabilities(protocol: str, version: str) -> None:
    connection = await started(sample_spec(protocol))
    try:
        assert connection.protocol_version == version
        assert connection.server_name == "sample-server"
        for capability in ("prompts", "tools", "resources", "completions"):
            assert connection.has_capability(capability)
        result = await connection.request("prompts/list")
        assert [p["name"] for p in result["prompts"]] == ["review_code", "investigate"]
    finally:
        await connection.close()
    assert connection.state == "closed"


async def test_streamable_http(sample_http_url: str) -> None:
    spec = ServerSpec(
        name="http", transport="http", url=sample_http_url, headers={"Authorization": "Bearer s3cr3t-token"}
    )
    connection = await started(spec)
    try:
        assert connection.protocol_version == "2026-07-28"
        result = await connection.request("tools/list")
        assert "echo" in [t["name"] for t in result["tools"]]
        # Header values never reach the traffic log.
        assert all("s3cr3t-token" not in e.payload for e in connection.traffic.entries())
    finally:
        await connection.close()


async def test_streamable_http_legacy(sample_http_url: str) -> None:
    connection = await started(ServerSpec(name="http", transport="http", url=sample_http_url, protocol="legacy"))
    try:
        assert connection.protocol_version == "2025-11-25"
        assert (await connection.request("prompts/get", {"name": "review_code", "arguments": {"code": "x=1"}}))[
            "messages"
        ]
    finally:
        await connection.close()


async def test_timeout_cancels_the_request_on_the_wire() -> None:
    connection = await started(sample_spec("legacy"))
    try:
        with pytest.raises(RequestTimedOut, match=r"timed out after 0\.3 s"):
            await connection.request("tools/call", {"name": "slow_task", "arguments": {"seconds": 5}}, timeout=0.3)
        await wait_for_traffic(connection, "notifications/cancelled")
        sent = [e for e in connection.traffic.entries() if e.direction == "out"]
        assert sent[-1].method == "notifications/cancelled"
        assert json.loads(sent[-1].payload)["params"]["requestId"] == json.loads(sent[-2].payload)["id"]
        # The connection keeps working afterwards.
        assert (await connection.request("ping")) == {}
    finally:
        await connection.close()


async def test_caller_cancel_sends_notifications_cancelled() -> None:
    connection = await started(sample_spec("legacy"))
    try:
        task = asyncio.create_task(connection.request("tools/call", {"name": "slow_task", "arguments": {"seconds": 5}}))
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert connection.traffic.requests_sent("tools/call")
        await wait_for_traffic(connection, "notifications/cancelled")
    finally:
        await connection.close()


async def test_progress_notifications_reach_the_caller() -> None:
    connection = await started(sample_spec("auto"))
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        seen.append((value, total, message))

    try:
        await connection.request(
            "tools/call",
            {"name": "slow_task", "arguments": {"seconds": 0.2, "steps": 2}},
            on_progress=progress,
        )
        assert seen == [(1, 2, "step 1 of 2"), (2, 2, "step 2 of 2")]
    finally:
        await connection.close()


async def test_server_exit_mid_call_is_typed_with_code_and_stderr() -> None:
    connection = await started(sample_spec("legacy"))
    events: list[HostEvent] = []
    connection.subscribe(events.append)
    with pytest.raises(ServerExited) as caught:
        await connection.request("tools/call", {"name": "crash", "arguments": {"code": 7}})
    assert caught.value.exit_code == 7
    assert "crashing on purpose with code 7" in caught.value.stderr_tail
    await asyncio.sleep(0.2)
    lost = [e for e in events if isinstance(e, ConnectionLost)]
    assert lost and lost[0].exit_code == 7
    assert connection.state == "exited"
    with pytest.raises(ServerExited):
        await connection.request("ping")
    # Reconnect: same object, same traffic log, working again.
    before = len(connection.traffic)
    await connection.reconnect()
    assert connection.state == "ready"
    assert (await connection.request("ping")) == {}
    assert len(connection.traffic) > before
    assert any(e.method == "reconnect" for e in connection.traffic.entries())
    await connection.close()


async def test_command_that_cannot_start() -> None:
    connection = Connection(ServerSpec(name="nope", transport="stdio", command="/nonexistent/server-binary"))
    with pytest.raises(ServerUnavailable, match="cannot start"):
        await connection.start()
    assert connection.state == "failed"


async def test_server_that_exits_while_starting_shows_stderr() -> None:
    connection = Connection(raw_spec("exit"))
    with pytest.raises(ServerExited) as caught:
        await connection.start()
    assert caught.value.exit_code == 4
    assert "configuration missing" in caught.value.stderr_tail
    assert connection.state == "exited"


async def test_connect_timeout() -> None:
    spec = ServerSpec(
        name="sleeper", transport="stdio", command=sys.executable, args=("-c", "import time; time.sleep(30)")
    )
    connection = Connection(spec, connect_timeout=0.5)
    with pytest.raises(RequestTimedOut, match="connect"):
        await connection.start()


async def test_protocol_error_keeps_connection_usable() -> None:
    connection = await started(sample_spec("legacy"))
    try:
        with pytest.raises(ProtocolError, match="no_such_prompt"):
            await connection.request("prompts/get", {"name": "no_such_prompt"})
        assert (await connection.request("ping")) == {}
    finally:
        await connection.close()


@pytest.mark.parametrize("protocol", ["legacy", "auto"])
async def test_list_changed_arrives_as_an_event(protocol: str) -> None:
    connection = await started(sample_spec(protocol))
    events: list[HostEvent] = []
    connection.subscribe(events.append)
    try:
        await connection.request("tools/call", {"name": "add_prompt", "arguments": {"name": "fresh"}})
        for _ in range(50):
            if any(isinstance(e, ListChanged) and e.kind == "prompts" for e in events):
                break
            await asyncio.sleep(0.05)
        assert ListChanged("sample", "prompts") in events
        names = [p["name"] for p in (await connection.request("prompts/list"))["prompts"]]
        assert "fresh" in names
    finally:
        await connection.close()


async def test_protocol_is_remembered_so_the_probe_is_skipped() -> None:
    memory = ProtocolMemory()
    spec = raw_spec("lint")
    auto = ServerSpec(**{**spec.__dict__, "protocol": "auto"})
    first = await started(auto, memory=memory)
    await first.close()
    assert memory.recall(auto.fingerprint) == "legacy"
    second = await started(auto, memory=memory)
    try:
        methods = [e.method for e in second.traffic.entries() if e.direction == "out" and e.kind == "request"]
        assert methods[0] == "initialize"
        assert "server/discover" not in methods
    finally:
        await second.close()


async def test_secret_env_values_are_redacted_from_traffic() -> None:
    spec = sample_spec("legacy")
    spec = ServerSpec(**{**spec.__dict__, "env": {"API_TOKEN": "tok-abcdef"}})
    connection = await started(spec)
    try:
        await connection.request("tools/call", {"name": "echo", "arguments": {"text": "say tok-abcdef"}})
        payloads = " ".join(e.payload for e in connection.traffic.entries())
        assert "tok-abcdef" not in payloads and "‹redacted›" in payloads
    finally:
        await connection.close()
