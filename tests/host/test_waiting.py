"""A tool call's timeout measures the server, not the analyst: it stops while an elicitation waits.

Against the FastMCP test server (over 2025-11-25, where a tool can elicit
mid-call): a call with a 0.5 s timeout whose dialog stays open 1.5 s
finishes, and its duration leaves the dialog's time out; a server that
never answers after the dialog still times the call out, by its own
timeout counted from when the dialog closed; a call cancelled while its
dialog is open closes the dialog.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from rea_tui.host import (
    ElicitationAnswer,
    ElicitationRequest,
    EvidenceLedger,
    HostedServer,
    ServerSpec,
    run_tool_call,
)
from tests.conftest import REPO

TIMEOUT = 0.5
DIALOG_SECONDS = 1.5


def fastmcp_spec(name: str = "fastmcp") -> ServerSpec:
    return ServerSpec(
        name=name,
        transport="stdio",
        command=sys.executable,
        args=("-m", "tests.support.fastmcp_server"),
        cwd=str(REPO),
        protocol="legacy",
    )


@pytest.fixture
async def fastmcp() -> AsyncIterator[HostedServer]:
    hosted = HostedServer(fastmcp_spec(), timeout=30)
    await hosted.start()
    try:
        yield hosted
    finally:
        await hosted.close()


def dialog_open_for(seconds: float, opened: list[float]) -> Any:
    async def answer(request: ElicitationRequest) -> ElicitationAnswer:
        opened.append(time.monotonic())
        await asyncio.sleep(seconds)  # the analyst reads, thinks, types
        return ElicitationAnswer("accept", {"reason": "checked"})

    return answer


async def ask_reason(hosted: HostedServer, *, hang: bool = False) -> Any:
    return await run_tool_call(
        hosted.connection,
        EvidenceLedger(),
        "ask_reason",
        {"hang": hang},
        tool=hosted.catalogs.tools.get("ask_reason"),
        approval="test",
        timeout=TIMEOUT,
    )


async def test_the_timeout_stops_while_the_dialog_is_open(fastmcp: HostedServer) -> None:
    opened: list[float] = []
    fastmcp.connection.elicitation_handler = dialog_open_for(DIALOG_SECONDS, opened)
    entry = await ask_reason(fastmcp)
    assert entry.outcome == "ok", entry.error
    assert "reason: checked" in entry.text()
    assert len(opened) == 1
    # The dialog's time is the analyst's: the call's duration is the server's alone.
    assert entry.waited_ms >= DIALOG_SECONDS * 1000 * 0.95
    assert entry.duration_ms < TIMEOUT * 1000
    assert "waiting for you" in entry.duration_label


async def test_a_server_silent_after_the_dialog_times_out_by_its_own_timeout(fastmcp: HostedServer) -> None:
    opened: list[float] = []
    fastmcp.connection.elicitation_handler = dialog_open_for(DIALOG_SECONDS, opened)
    started = time.monotonic()
    entry = await ask_reason(fastmcp, hang=True)
    elapsed = time.monotonic() - started
    assert entry.outcome == "timed_out"
    assert "timed out after 0.5 s" in entry.error
    # Not while the dialog was open; by its own 0.5 s once it closed.
    assert DIALOG_SECONDS + TIMEOUT * 0.9 <= elapsed < DIALOG_SECONDS + TIMEOUT + 2.0
    # The request was cancelled on the wire (the note is written by the transport's own task).
    for _ in range(100):
        if any(
            e.method == "notifications/cancelled" and e.direction == "out" for e in fastmcp.connection.traffic.entries()
        ):
            break
        await asyncio.sleep(0.02)
    else:
        raise AssertionError("no notifications/cancelled was sent")


async def test_cancelling_the_call_closes_its_open_dialog(fastmcp: HostedServer) -> None:
    closed = asyncio.Event()
    opened = asyncio.Event()

    async def never_answered(request: ElicitationRequest) -> ElicitationAnswer:
        opened.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            closed.set()  # the dialog was taken down
            raise
        raise AssertionError("unreachable")

    fastmcp.connection.elicitation_handler = never_answered
    call = asyncio.ensure_future(ask_reason(fastmcp))
    await asyncio.wait_for(opened.wait(), 10)
    assert fastmcp.connection.waits.waiting
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    await asyncio.wait_for(closed.wait(), 5)
    assert not fastmcp.connection.waits.waiting


async def test_a_timeout_with_the_dialog_closed_is_unchanged(fastmcp: HostedServer) -> None:
    entry = await run_tool_call(
        fastmcp.connection,
        EvidenceLedger(),
        "slow",
        {"seconds": 3},
        tool=fastmcp.catalogs.tools.get("slow"),
        approval="test",
        timeout=TIMEOUT,
    )
    assert entry.outcome == "timed_out" and entry.waited_ms == 0
    assert entry.duration_ms < TIMEOUT * 1000 + 1_500
