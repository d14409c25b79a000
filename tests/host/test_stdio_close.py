"""Closing a stdio server: end of input first, then SIGTERM without waiting long for it to leave, then SIGKILL."""

from __future__ import annotations

import asyncio
import os
import signal
import sys

import pytest

from rea_tui.host import HostError, Session, start_server_process
from rea_tui.host.config.config import ServerSpec
from rea_tui.host.transports.traffic import TrafficLog
from rea_tui.host.transports.transport import StderrBuffer, StdioProcess

# Each child says it is set up (signal handlers in place) with one JSON-RPC line, then behaves as named.
READY = 'print(\'{"jsonrpc": "2.0", "method": "notifications/ready"}\', flush=True)'
LEAVES_ON_EOF = f"import sys\n{READY}\nsys.stdin.read()"
# Leaves by itself a second after end of input: far longer than a closing host waits.
LEAVES_LATE = f"import sys, time\n{READY}\nsys.stdin.read()\ntime.sleep(1)"
IGNORES_SIGTERM = f"import signal, sys, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n{READY}\ntime.sleep(60)"


def child(script: str) -> StdioProcess:
    spec = ServerSpec(name="child", transport="stdio", command=sys.executable, args=("-c", script))
    return StdioProcess(spec, TrafficLog(), StderrBuffer())


async def run_and_close(process: StdioProcess) -> int | None:
    async with process as (read, _write):
        await read.receive()  # the child's "ready" line
    return process.returncode


@pytest.mark.parametrize(
    "script, returncode",
    [
        (LEAVES_ON_EOF, 0),
        (LEAVES_LATE, -signal.SIGTERM),
        (IGNORES_SIGTERM, -signal.SIGKILL),
    ],
    ids=["leaves-on-eof", "leaves-late-gets-sigterm", "ignores-sigterm-gets-sigkill"],
)
async def test_close_ends_the_server(script: str, returncode: int) -> None:
    process = child(script)
    assert await run_and_close(process) == returncode
    assert process.exited.is_set()


# Never answers: the host's handshake waits for it until the connect timeout.
MUTE = "import time\ntime.sleep(120)"
# Far under the connect timeout (30 s) the mute server would otherwise hold the close for.
CLOSE_LIMIT_SECONDS = 10.0


@pytest.mark.parametrize("early", [False, True], ids=["in-the-handshake", "while-its-lists-are-asked-early"])
async def test_closing_a_session_whose_server_never_answers_ends_at_once(early: bool) -> None:
    """Quitting while a server hangs: the close does not wait for the connect timeout.

    Started early (as the TUI starts its servers), the host first asks the server for its lists over the
    pipe, before the SDK session exists; closed then, the handshake is never begun.
    """
    spec = ServerSpec(name="mute", transport="stdio", command=sys.executable, args=("-c", MUTE))
    started = {"mute": start_server_process(spec)} if early else None
    session = Session([spec], remember_protocols=False, started=started)
    connecting = asyncio.create_task(session.connect("mute"))
    # Its first request: the early lists' discover when started early, else the handshake's (either generation).
    while (hosted := session.hosted("mute")) is None or not any(
        hosted.connection.traffic.requests_sent(method) for method in ("server/discover", "initialize")
    ):
        await asyncio.sleep(0.02)
    process = hosted.connection._process
    assert process is not None and process.pid is not None
    await asyncio.wait_for(session.close(), CLOSE_LIMIT_SECONDS)
    with pytest.raises(HostError):
        await asyncio.wait_for(connecting, CLOSE_LIMIT_SECONDS)
    assert process.returncode is not None, "the server's process is ended, not left behind"
    with pytest.raises(ProcessLookupError):
        os.kill(process.pid, 0)
    handshakes = [e for e in hosted.connection.traffic.entries() if e.kind == "event" and e.method == "connect"]
    assert len(handshakes) == (0 if early else 1), "closed while the lists were asked early: no handshake begun"


async def test_a_session_closed_before_its_server_connects_starts_nothing_after_and_ends_what_it_started() -> None:
    """Quitting at once after starting: the connect the app asked for first must not start the server
    after the close (it would run on with nobody to end it), and the process started early is ended."""
    spec = ServerSpec(name="mute", transport="stdio", command=sys.executable, args=("-c", MUTE))
    early = start_server_process(spec)
    session = Session([spec], remember_protocols=False, started={"mute": early})
    connecting = asyncio.create_task(session.connect("mute"))
    await asyncio.sleep(0)  # the connect is under way: its connection module loads in a thread
    await asyncio.wait_for(session.close(), CLOSE_LIMIT_SECONDS)
    with pytest.raises(HostError, match="closed"):
        await asyncio.wait_for(connecting, CLOSE_LIMIT_SECONDS)
    hosted = session.hosted("mute")
    assert hosted is None or hosted.connection.state in ("closed", "failed")
    assert early.poll() is not None, "the process started early is ended, not left behind"
    with pytest.raises(ProcessLookupError):
        os.kill(early.pid, 0)
