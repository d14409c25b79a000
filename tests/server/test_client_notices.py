"""The bundled server's own log (`logging/setLevel`) and `rea://session` subscriptions, on a legacy connection.

Driven through the host against the real server process: a host's log-level
and subscription features have a reference to try them on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from rea_tui.host import (
    EvidenceLedger,
    HostedServer,
    HostEvent,
    LogMessageReceived,
    ProtocolError,
    ResourceUpdated,
    bundled_server_spec,
    run_tool_call,
    set_log_level,
    subscribe,
    unsubscribe,
)

SESSION_URI = "rea://session"
WAIT_SECONDS = 60.0
POLL_SECONDS = 0.02
# A deterministic target small enough to open at once.
SYNTHETIC = "synthetic:50"


async def call(hosted: HostedServer, name: str, arguments: dict[str, Any]) -> None:
    entry = await run_tool_call(
        hosted.connection, EvidenceLedger(), name, arguments, tool=hosted.catalogs.tools.get(name), approval="test"
    )
    assert entry.outcome == "ok", entry.error


async def until(condition: Callable[[], bool], what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_SECONDS
    while not condition():
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(POLL_SECONDS)


def updates(events: list[HostEvent]) -> int:
    return sum(isinstance(e, ResourceUpdated) and e.uri == SESSION_URI for e in events)


def logged(events: list[HostEvent], level: str, start: str) -> bool:
    return any(isinstance(e, LogMessageReceived) and e.level == level and str(e.data).startswith(start) for e in events)


async def test_the_legacy_handshake_declares_logging_and_subscriptions_and_honours_them() -> None:
    hosted = HostedServer(replace(bundled_server_spec(), protocol="legacy"), timeout=WAIT_SECONDS)
    events: list[HostEvent] = []
    hosted.connection.subscribe(events.append)
    try:
        await hosted.start()
        capabilities = hosted.connection.capabilities
        assert capabilities["logging"] == {} and capabilities["resources"]["subscribe"] is True
        assert await hosted.wait_for_target(WAIT_SECONDS)
        # Nothing is logged to a connection that did not ask.
        await call(hosted, "open_binary", {"path": SYNTHETIC})
        assert not any(isinstance(e, LogMessageReceived) for e in events)

        await set_log_level(hosted.connection, "info")
        await subscribe(hosted.connection, SESSION_URI)
        # Another resource does not change: subscribing to it is refused, saying why.
        with pytest.raises(ProtocolError, match="only rea://session changes"):
            await subscribe(hosted.connection, "rea://evidence/E-0001")

        # A target switch: logged at info, and rea://session updated.
        await call(hosted, "open_binary", {"path": SYNTHETIC})
        await until(lambda: logged(events, "info", "target ready: synthetic"), "the target's log message")
        await until(lambda: updates(events) >= 1, "the update of the switch")
        await hosted.read_resource(SESSION_URI)  # a round trip: a second update of the switch would be in
        assert updates(events) == 1
        # Each call that retains evidence (every tool of this server does) or records an unknown: one update.
        await call(hosted, "list_documents", {})
        await until(lambda: updates(events) == 2, "the update of the evidence")
        await call(hosted, "record_unknown", {"question": "what encodes the names?"})
        await until(lambda: updates(events) == 3, "the update of the unknown")
        await hosted.read_resource(SESSION_URI)
        assert updates(events) == 3
        # Discovery is logged at debug, so not at info.
        await hosted.connection.request(
            "completion/complete",
            {
                "ref": {"type": "ref/prompt", "name": "investigate_feature"},
                "argument": {"name": "procedure", "value": ""},
            },
        )
        assert not logged(events, "debug", "discovery")
        await set_log_level(hosted.connection, "debug")
        await hosted.connection.request(
            "completion/complete",
            {
                "ref": {"type": "ref/prompt", "name": "investigate_feature"},
                "argument": {"name": "procedure", "value": "s"},
            },
        )
        await until(lambda: logged(events, "debug", "discovery complete: "), "the discovery log message")

        # Unsubscribed, evidence changes are not announced any more.
        await unsubscribe(hosted.connection, SESSION_URI)
        seen = updates(events)
        await call(hosted, "record_unknown", {"question": "and the keys?"})
        await hosted.read_resource(SESSION_URI)  # a round trip after it: an update would have come before
        assert updates(events) == seen
    finally:
        await hosted.close()


async def test_at_2026_07_28_a_subscription_travels_on_the_listen_stream() -> None:
    """The host opens `subscriptions/listen` again with the resource; each change is heard once; unsubscribed, none."""
    hosted = HostedServer(bundled_server_spec(), timeout=WAIT_SECONDS)
    events: list[HostEvent] = []
    hosted.connection.subscribe(events.append)
    try:
        await hosted.start()
        assert hosted.connection.modern and "logging" not in hosted.connection.capabilities
        assert await hosted.wait_for_target(WAIT_SECONDS)
        await subscribe(hosted.connection, SESSION_URI)
        listens = hosted.connection.traffic.requests_sent("subscriptions/listen")
        await until(
            lambda: any(
                SESSION_URI in e.payload for e in hosted.connection.traffic.requests_sent("subscriptions/listen")
            ),
            "a listen stream with the subscription",
        )
        assert not any(SESSION_URI in e.payload for e in listens)  # the first stream had none
        assert not hosted.connection.traffic.requests_sent("resources/subscribe")  # not a 2026-07-28 method
        await call(hosted, "list_documents", {})
        await until(lambda: updates(events) == 1, "the update of the evidence")
        await hosted.read_resource(SESSION_URI)
        assert updates(events) == 1  # once, not once per path it arrives on

        await unsubscribe(hosted.connection, SESSION_URI)
        await until(
            lambda: SESSION_URI not in hosted.connection.traffic.requests_sent("subscriptions/listen")[-1].payload,
            "a listen stream without it",
        )
        await call(hosted, "list_documents", {})
        await hosted.read_resource(SESSION_URI)
        assert updates(events) == 1
    finally:
        await hosted.close()
