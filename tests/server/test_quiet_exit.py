"""The server leaves nothing on stderr when it exits with a target open (stderr is the host's log pane)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures" / "kinds"
EXIT_SECONDS = 60


@pytest.mark.parametrize("fixture", ["macho-universal", "exports.dll", "strings-aarch64"])
def test_exit_with_a_target_open_prints_nothing_on_stderr(fixture: str) -> None:
    # nanobind printed pages of "leaked instance" lines for the LIEF objects of the open target.
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "list_procedures", "arguments": {}}},
    ]
    server = subprocess.Popen(
        [sys.executable, "-m", "rea_tui.server", "--target", str(FIXTURES / fixture)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
    server.stdin.flush()
    listed = None
    while listed is None:
        line = server.stdout.readline()
        assert line, "the server closed stdout before answering"
        reply = json.loads(line)
        listed = reply if reply.get("id") == 1 else None
    assert listed["result"]["structuredContent"]["procedures"], listed
    _, stderr = server.communicate(timeout=EXIT_SECONDS)  # closes stdin: the server exits
    assert server.returncode == 0
    assert stderr == ""
