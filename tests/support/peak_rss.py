"""Run a command to its end and read its peak resident memory (the kernel's figure for that one child).

`os.wait4` returns the rusage of exactly the process it reaps, so the figure is the command's own,
not the largest of every child the test process ever had (`RUSAGE_CHILDREN`).
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

KIB = 1024


@dataclass(frozen=True)
class Measured:
    code: int
    out: str
    err: str
    peak_rss: int  # bytes
    seconds: float


def run_measured(
    command: Sequence[str], *, env: Mapping[str, str] | None = None, cwd: Path | None = None, timeout: float = 120
) -> Measured:
    """Run `command` (stdin closed, output captured); its exit code, output and peak RSS in bytes."""
    started = time.monotonic()
    process = subprocess.Popen(
        list(command),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(env) if env is not None else None,
        cwd=cwd,
    )
    captured: dict[str, bytes] = {}

    def drain(name: str, pipe: IO[bytes] | None) -> None:
        assert pipe is not None
        with pipe:
            captured[name] = pipe.read()

    readers = [
        threading.Thread(target=drain, args=(n, p)) for n, p in (("out", process.stdout), ("err", process.stderr))
    ]
    for reader in readers:
        reader.start()
    timer = threading.Timer(timeout, process.kill)
    timer.start()
    try:
        _, status, usage = os.wait4(process.pid, 0)
    finally:
        timer.cancel()
    process.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait for it again
    for reader in readers:
        reader.join()
    return Measured(
        code=process.returncode,
        out=captured["out"].decode("utf-8", errors="replace"),
        err=captured["err"].decode("utf-8", errors="replace"),
        peak_rss=usage.ru_maxrss * KIB,  # Linux reports kilobytes
        seconds=time.monotonic() - started,
    )
