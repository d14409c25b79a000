"""Closing a stdio server: end of input first, then SIGTERM without waiting long for it to leave, then SIGKILL."""

from __future__ import annotations

import signal
import sys

import pytest

from rea_tui.host.config import ServerSpec
from rea_tui.host.traffic import TrafficLog
from rea_tui.host.transport import StderrBuffer, StdioProcess

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
