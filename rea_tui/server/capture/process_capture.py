"""Bounded process capture (Process Capture v4 evidence).

The target's main executable runs without a shell, with stdin closed, in a
process group of its own, under a hard wall-clock limit and with each output
stream capped; whatever exceeds the cap is drained and dropped so the child
never blocks on a full pipe. When the capture ends (the process exited or the
time limit was reached) every process still in its group is killed, so
children it started in the background do not outlive the capture. (A child
that leaves the group with `setsid` escapes this; containing that needs an
operating-system sandbox.)
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import anyio.abc

from rea_tui.server.toolkit.evidence_schemas import PROCESS_CAPTURE_V4

ProgressFn = Callable[[float, float, str], Awaitable[None]]

_PROGRESS_INTERVAL = 0.2
"""Seconds between progress notifications while the process runs."""
_OUTPUT_GRACE_SECONDS = 1.0
"""How long output may still arrive after the process ended."""


def split_arguments(arguments: str) -> list[str]:
    """POSIX-style splitting; the result is an argv list, never a shell command."""
    return shlex.split(arguments) if arguments.strip() else []


def _stream(data: bytearray, total: int, limit: int) -> dict[str, Any]:
    return {
        "text": bytes(data[:limit]).decode("utf-8", "replace"),
        "bytes": total,
        "truncated": total > limit,
    }


async def _drain(
    stream: anyio.abc.ByteReceiveStream | None,
    sink: bytearray,
    counter: list[int],
    limit: int,
    done: anyio.Event,
) -> None:
    try:
        if stream is None:
            return
        async for chunk in stream:
            counter[0] += len(chunk)
            room = limit - len(sink)
            if room > 0:
                sink.extend(chunk[:room])
    except (anyio.BrokenResourceError, anyio.ClosedResourceError):
        pass
    finally:
        done.set()


async def run_capture(
    executable: str,
    arguments: str,
    timeout_seconds: int,
    output_limit: int,
    capture_environment: bool,
    progress: ProgressFn,
) -> dict[str, Any]:
    argv = [executable, *split_arguments(arguments)]
    env = dict(os.environ)
    started = time.monotonic()
    result: dict[str, Any] = {
        "schema": PROCESS_CAPTURE_V4,
        "executable": executable,
        "argv": argv,
        "timeout_seconds": timeout_seconds,
        "simulated": False,
        "environment": {"captured": capture_environment, "keys": sorted(env) if capture_environment else []},
    }
    out, err = bytearray(), bytearray()
    out_total, err_total = [0], [0]
    try:
        process = await anyio.open_process(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,  # its own process group, so the whole group can be killed
        )
    except OSError as exc:
        result.update(
            status="failed_to_start",
            exit_code=None,
            duration_ms=int((time.monotonic() - started) * 1000),
            stdout=_stream(out, 0, output_limit),
            stderr=_stream(bytearray(f"{type(exc).__name__}: {exc.strerror or exc}".encode()), 0, output_limit),
        )
        return result
    timed_out = False
    out_done, err_done = anyio.Event(), anyio.Event()
    async with process, anyio.create_task_group() as tg:
        tg.start_soon(_drain, process.stdout, out, out_total, output_limit, out_done)
        tg.start_soon(_drain, process.stderr, err, err_total, output_limit, err_done)
        deadline = started + timeout_seconds
        while process.returncode is None:
            now = time.monotonic()
            if now >= deadline:
                timed_out = True
                _kill_group(process)
                break
            await progress(now - started, float(timeout_seconds), "process running")
            with anyio.move_on_after(min(_PROGRESS_INTERVAL, deadline - now)):
                await process.wait()
        await process.wait()
        # Whatever the process left running in its group ends with the capture.
        _kill_group(process)
        with anyio.move_on_after(_OUTPUT_GRACE_SECONDS):
            await out_done.wait()
            await err_done.wait()
        tg.cancel_scope.cancel()
    elapsed = time.monotonic() - started
    await progress(min(elapsed, float(timeout_seconds)), float(timeout_seconds), "process finished")
    result.update(
        status="timed_out" if timed_out else "completed",
        exit_code=process.returncode,
        duration_ms=int(elapsed * 1000),
        stdout=_stream(out, out_total[0], output_limit),
        stderr=_stream(err, err_total[0], output_limit),
    )
    return result


def _kill_group(process: anyio.abc.Process) -> None:
    """SIGKILL every process in the group `process` leads (the group outlives its leader)."""
    if not hasattr(os, "killpg"):  # no process groups (Windows): the process alone
        if process.returncode is None:
            process.kill()
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):  # the group is already empty
        os.killpg(process.pid, signal.SIGKILL)


async def simulate_capture(
    label: str, arguments: str, timeout_seconds: int, capture_environment: bool, progress: ProgressFn
) -> dict[str, Any]:
    """The synthetic target has no executable on disk: a deterministic stand-in, marked simulated."""
    argv = ["Notes", *split_arguments(arguments)]
    for step in range(3):
        await progress(float(step), 3.0, "simulated process running")
        await anyio.sleep(0.01)
    await progress(3.0, 3.0, "simulated process finished")
    text = f"Notes (synthetic) started with {len(argv) - 1} argument(s)\nindexing 3 folders\nready\n"
    return {
        "schema": PROCESS_CAPTURE_V4,
        "status": "completed",
        "executable": label,
        "argv": argv,
        "exit_code": 0,
        "duration_ms": 30,
        "timeout_seconds": timeout_seconds,
        "stdout": {"text": text, "bytes": len(text.encode()), "truncated": False},
        "stderr": {"text": "", "bytes": 0, "truncated": False},
        "environment": {
            "captured": capture_environment,
            "keys": ["HOME", "PATH"] if capture_environment else [],
        },
        "simulated": True,
    }
