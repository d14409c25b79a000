"""Run a command to its end and read its peak resident memory (the kernel's figure for that one child).

`os.wait4` returns the rusage of exactly the process it reaps, so the figure is the command's own,
not the largest of every child the test process ever had (`RUSAGE_CHILDREN`). But Linux carries the
forking process's high-water mark across `exec` into the child's `ru_maxrss`, so a child of a test
worker that has grown to 150 MB would report at least 150 MB. The command is therefore spawned by a
small launcher interpreter (a fresh, small process), which reaps it and reports its figure.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

KIB = 1024

# Spawns argv[2:], waits for exactly it, writes its ru_maxrss (KiB) to the file argv[1], exits as it did.
LAUNCHER = (
    "import os, sys\n"
    "pid = os.posix_spawnp(sys.argv[2], sys.argv[2:], os.environ)\n"
    "_, status, usage = os.wait4(pid, 0)\n"
    "open(sys.argv[1], 'w').write(str(usage.ru_maxrss))\n"
    "sys.exit(os.waitstatus_to_exitcode(status) % 256)\n"
)


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
    figure = Path(tempfile.mkstemp(prefix="peak-rss-")[1])
    process = subprocess.Popen(
        [sys.executable, "-S", "-c", LAUNCHER, str(figure), *command],
        start_new_session=True,  # a timeout kills the launcher and the command together
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
    timer = threading.Timer(timeout, os.killpg, args=(process.pid, signal.SIGKILL))
    timer.start()
    try:
        code = process.wait()
    finally:
        timer.cancel()
    for reader in readers:
        reader.join()
    try:
        peak_kib = int(figure.read_text() or 0)  # empty when the launcher was killed
    finally:
        figure.unlink()
    return Measured(
        code=code,
        out=captured["out"].decode("utf-8", errors="replace"),
        err=captured["err"].decode("utf-8", errors="replace"),
        peak_rss=peak_kib * KIB,  # Linux reports kilobytes
        seconds=time.monotonic() - started,
    )
