"""server-everything (pinned, from npm) over streamable HTTP or the legacy HTTP+SSE transport, for a test.

`everything_url("streamableHttp")` starts `node dist/index.js streamableHttp`
on a free loopback port (it listens where `PORT` says) and yields its MCP
endpoint; `"sse"` yields the `/sse` endpoint of the legacy transport. The
process is stopped when the block ends.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from tests.support.npm_servers import EVERYTHING_ENTRY, installed

START_TIMEOUT = 30.0
# What each mode prints on stderr once it listens.
READY = {"streamableHttp": r"listening on port (\d+)", "sse": r"running on port (\d+)"}
PATHS = {"streamableHttp": "/mcp", "sse": "/sse"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def everything_url(mode: str) -> Iterator[str]:
    import shutil

    node = shutil.which("node")
    assert node is not None
    port = free_port()
    process = subprocess.Popen(
        [node, str(installed() / EVERYTHING_ENTRY), mode],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PORT": str(port)},
    )
    assert process.stderr is not None
    deadline = time.monotonic() + START_TIMEOUT
    try:
        while time.monotonic() < deadline:
            line = process.stderr.readline()
            if not line and process.poll() is not None:
                raise RuntimeError(f"server-everything {mode} exited with {process.returncode}")
            if re.search(READY[mode], line):
                break
        else:
            raise RuntimeError(f"server-everything {mode} did not start in {START_TIMEOUT:g} s")
        # Keep reading its stderr, so a chatty server never blocks on a full pipe.
        threading.Thread(target=process.stderr.read, daemon=True).start()
        yield f"http://127.0.0.1:{port}{PATHS[mode]}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
