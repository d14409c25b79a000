"""A reference server serving streamable HTTP on 127.0.0.1, as a real process whose memory a test can read."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass

from tests.server.live import REPO

STOP_TIMEOUT_SECONDS = 10


@dataclass(frozen=True, slots=True)
class HttpServer:
    url: str
    process: subprocess.Popen[str]

    def peak_rss_bytes(self) -> int:
        """The server process's peak resident size so far (`VmHWM` in /proc)."""
        with open(f"/proc/{self.process.pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
        raise AssertionError("no VmHWM line")


@contextlib.contextmanager
def http_server(*args: str) -> Iterator[HttpServer]:
    """`python -m rea_tui.server --http 127.0.0.1:0 ARGS`, once it accepts connections."""
    process = subprocess.Popen(
        [sys.executable, "-m", "rea_tui.server", "--http", "127.0.0.1:0", *args],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stderr is not None
    line = process.stderr.readline()
    match = re.fullmatch(r"rea-server listening on (http://127\.0\.0\.1:\d+/mcp)\n", line)
    try:
        assert match is not None, f"unexpected first stderr line: {line!r}"
        yield HttpServer(match.group(1), process)
    finally:
        process.terminate()
        process.communicate(timeout=STOP_TIMEOUT_SECONDS)
