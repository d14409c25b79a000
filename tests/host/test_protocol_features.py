"""Roots, log levels, resource subscriptions, instructions, URL elicitation required (-32042), capabilities.

Real peers: the FastMCP test server (roots, instructions, logging on both
protocol generations), server-everything (subscriptions, -32042) and a log
server without the SDK that honours `logging/setLevel`.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from rea_tui.host import (
    CapabilityMissing,
    ElicitationAnswer,
    ElicitationRequest,
    EvidenceLedger,
    HostedServer,
    HostEvent,
    ResourceUpdated,
    Root,
    ServerSpec,
    can_subscribe,
    require_capability,
    run_tool_call,
    set_log_level,
    set_roots,
    subscribe,
    unsubscribe,
)
from rea_tui.host.config.config import ConfigError, parse_config
from tests.conftest import REPO
from tests.host.test_tasks import everything_spec
from tests.host.test_waiting import fastmcp_spec

DOCUMENT = "demo://resource/static/document/features.md"


def flood_spec() -> ServerSpec:
    return ServerSpec(
        name="flood",
        transport="stdio",
        command=sys.executable,
        args=("-m", "tests.support.log_flood_server"),
        cwd=str(REPO),
        protocol="legacy",
    )


async def started(spec: ServerSpec) -> HostedServer:
    hosted = HostedServer(spec, timeout=30)
    await hosted.start()
    return hosted


async def call(hosted: HostedServer, name: str, arguments: dict[str, Any] | None = None) -> Any:
    return await run_tool_call(
        hosted.connection,
        EvidenceLedger(),
        name,
        arguments or {},
        tool=hosted.catalogs.tools.get(name),
        approval="test",
    )


async def notified(hosted: HostedServer, method: str) -> list[Any]:
    """The notifications of `method` sent so far, once the transport has written the first one."""
    for _ in range(100):
        found = [e for e in hosted.connection.traffic.entries() if e.method == method and e.direction == "out"]
        if found:
            return found
        await asyncio.sleep(0.02)
    return []


def sent(hosted: HostedServer, method: str) -> list[dict[str, Any]]:
    return [json.loads(e.payload).get("params", {}) for e in hosted.connection.traffic.requests_sent(method)]


# ---------------------------------------------------------------- roots


def test_roots_come_from_the_config_entry(tmp_path: Path) -> None:
    [spec] = parse_config(
        {"mcpServers": {"files": {"command": "x", "roots": [str(tmp_path), {"uri": "file:///srv", "name": "srv"}]}}}
    )
    assert spec.roots == (Root(tmp_path.as_uri()), Root("file:///srv", "srv"))
    [bare] = parse_config({"mcpServers": {"files": {"command": "x"}}})
    assert bare.roots == ()
    with pytest.raises(ConfigError, match="file:// URIs"):
        parse_config({"mcpServers": {"files": {"command": "x", "roots": ["https://example.com/x"]}}})


async def test_roots_list_is_answered_and_a_change_is_announced(tmp_path: Path) -> None:
    from dataclasses import replace

    hosted = await started(replace(fastmcp_spec(), roots=(Root(tmp_path.as_uri(), "work"),)))
    try:
        first = await call(hosted, "show_roots")
        assert first.structured == {"result": [f"{tmp_path.as_uri()} work"]}
        other = tmp_path / "other"
        assert await set_roots(hosted.connection, [Root(other.as_uri())])
        assert not await set_roots(hosted.connection, [Root(other.as_uri())])  # unchanged: nothing sent
        notes = await notified(hosted, "notifications/roots/list_changed")
        assert [e.kind for e in notes] == ["notification"]
        second = await call(hosted, "show_roots")
        assert second.structured == {"result": [other.as_uri()]}
        assert hosted.connection.roots.listed >= 2
    finally:
        await hosted.close()


# ---------------------------------------------------------------- logging


async def test_set_level_is_sent_and_the_server_log_counts_every_message() -> None:
    hosted = await started(flood_spec())
    try:
        await set_log_level(hosted.connection, "error")
        assert sent(hosted, "logging/setLevel") == [{"level": "error"}]
        below = await call(hosted, "flood", {"count": 50, "level": "warning"})
        assert below.text() == "sent 0 log messages"
        await call(hosted, "flood", {"count": 300, "level": "critical"})
        log = hosted.connection.log
        assert (log.total, log.counts["critical"], log.level) == (300, 300, "error")
        assert log.records[-1].text == "critical message 300 of 300"
        with pytest.raises(ValueError, match="unknown log level"):
            await set_log_level(hosted.connection, "loud")
        # A reconnect asks for the same level again.
        await hosted.reconnect()
        assert sent(hosted, "logging/setLevel") == [{"level": "error"}, {"level": "error"}]
    finally:
        await hosted.close()


async def test_on_2026_07_28_the_level_travels_with_each_request() -> None:
    from dataclasses import replace

    hosted = await started(replace(fastmcp_spec(), protocol="auto"))
    try:
        assert hosted.connection.modern
        await set_log_level(hosted.connection, "error")
        assert not sent(hosted, "logging/setLevel")  # not a 2026-07-28 method
        await call(hosted, "say", {"level": "info", "count": 2})
        assert hosted.connection.log.total == 0
        await call(hosted, "say", {"level": "error", "count": 2})
        assert hosted.connection.log.counts["error"] == 2
        [*_, last] = sent(hosted, "tools/call")
        assert last["_meta"]["io.modelcontextprotocol/logLevel"] == "error"
    finally:
        await hosted.close()


# ---------------------------------------------------------------- subscriptions, instructions, capabilities


async def test_a_subscribed_resource_is_updated() -> None:
    hosted = await started(everything_spec())
    events: list[HostEvent] = []
    hosted.connection.subscribe(events.append)
    try:
        assert can_subscribe(hosted.connection.capabilities)
        await subscribe(hosted.connection, DOCUMENT)
        assert sent(hosted, "resources/subscribe") == [{"uri": DOCUMENT}]
        await call(hosted, "toggle-subscriber-updates")  # it sends an update for each subscription at once
        for _ in range(200):
            if any(isinstance(e, ResourceUpdated) for e in events):
                break
            await asyncio.sleep(0.02)
        assert ResourceUpdated(hosted.name, DOCUMENT) in events
        await unsubscribe(hosted.connection, DOCUMENT)
        assert sent(hosted, "resources/unsubscribe") == [{"uri": DOCUMENT}]
        assert not hosted.connection.subscriptions
    finally:
        await hosted.close()


async def test_instructions_and_missing_capabilities() -> None:
    fastmcp, flood = await asyncio.gather(started(fastmcp_spec()), started(flood_spec()))
    try:
        assert fastmcp.connection.instructions.startswith("Use ask_reason before anything else.")
        assert not can_subscribe(fastmcp.connection.capabilities)
        with pytest.raises(CapabilityMissing, match=r"resources\.subscribe"):
            await subscribe(fastmcp.connection, "x://y")
        with pytest.raises(CapabilityMissing, match="prompts/get was not sent"):
            require_capability(flood.connection, "prompts", "prompts/get")
        assert not sent(flood, "prompts/get") and not sent(fastmcp, "resources/subscribe")
    finally:
        await asyncio.gather(fastmcp.close(), flood.close())


# ---------------------------------------------------------------- URL elicitation required (-32042)


@pytest.mark.parametrize("action", ["accept", "decline"])
async def test_url_elicitation_required_asks_for_consent_then_calls_again(action: str) -> None:
    hosted = await started(everything_spec())
    asked: list[ElicitationRequest] = []

    async def consent(request: ElicitationRequest) -> ElicitationAnswer:
        asked.append(request)
        return ElicitationAnswer(action)  # type: ignore[arg-type]

    hosted.connection.elicitation_handler = consent
    try:
        arguments = {"url": "https://example.com/checkout", "errorPath": True}
        entry = await call(hosted, "trigger-url-elicitation", arguments)
        prerequisite = asked[0]
        assert prerequisite.mode == "url" and prerequisite.url == "https://modelcontextprotocol.io"
        assert prerequisite.elicitation_id
        if action == "accept":
            # Sent again with the same arguments; the retry asks for its own URL, which was accepted too.
            assert entry.outcome == "ok", entry.error
            assert [p["arguments"] for p in sent(hosted, "tools/call")] == [arguments, arguments]
            assert [r.url for r in asked] == ["https://modelcontextprotocol.io", "https://example.com/checkout"]
            assert "completed the URL elicitation" in entry.text()
        else:
            assert entry.outcome == "protocol_error" and entry.error_code == -32042
            assert "did not open https://modelcontextprotocol.io" in entry.error
            assert len(sent(hosted, "tools/call")) == 1
            assert entry.result["data"]["elicitations"][0]["url"] == "https://modelcontextprotocol.io"
    finally:
        await hosted.close()
