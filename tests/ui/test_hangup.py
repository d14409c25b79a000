"""A terminal that hangs up (closed, or its ssh connection dropped) ends rea-tui and its servers.

rea-tui runs in a pseudo-terminal here, as in a real one: its own session, the pty its controlling
terminal. Closing the pty's other end hangs it up (SIGHUP). The process used to stay behind for good,
blocked in Textual's restoring of a terminal that was gone.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import REPO
from tests.support.terminal import CSI, spawn_on_terminal

# The first prompt of the sample server, once the list is drawn.
LISTED = "Review code"
START_TIMEOUT_SECONDS = 30.0
EXIT_TIMEOUT_SECONDS = 15.0
COLUMNS, LINES = 160, 48


def children_of(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            found += [int(child) for child in (task / "children").read_text().split()]
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_hangup_ends_rea_tui_and_its_servers(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "TEXTUAL"))}
    env.update(
        {"TERM": "xterm-256color", **{f"XDG_{d}_HOME": str(tmp_path / d) for d in ("CONFIG", "DATA", "STATE", "CACHE")}}
    )
    server = f"{sys.executable} -m tests.support.sample_server"
    master, process = spawn_on_terminal(
        [sys.executable, "-m", "rea_tui", "--stdio", server], env=env, cwd=REPO, columns=COLUMNS, lines=LINES
    )
    try:
        shown, deadline = "", time.monotonic() + START_TIMEOUT_SECONDS
        while LISTED not in CSI.sub("", shown):
            assert time.monotonic() < deadline, f"the prompt list never showed: {CSI.sub('', shown)[-500:]!r}"
            if select.select([master], [], [], 0.1)[0]:
                shown += os.read(master, 65536).decode(errors="replace")
        servers = children_of(process.pid)
        assert servers, "the server runs as rea-tui's child"
    finally:
        os.close(master)  # the terminal hangs up
    try:
        returncode = process.wait(timeout=EXIT_TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        raise AssertionError("rea-tui was still running after its terminal hung up") from None
    assert returncode == 128 + signal.SIGHUP
    deadline = time.monotonic() + EXIT_TIMEOUT_SECONDS
    while any(alive(pid) for pid in servers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(pid) for pid in servers), "a server outlived the hangup"
