"""The legacy HTTP+SSE transport against the SDK's SSE server (tests/support/sample_server.py --sse)."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from pathlib import Path

from rea_tui.host.config.config import ServerSelection, resolve_servers
from rea_tui.host.protocol.connection import Connection
from tests.cli import rea, rea_many, write_config
from tests.conftest import REPO


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_sse_server(port: int) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.sample_server", "--http", f"127.0.0.1:{port}", "--sse"],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert process.stderr is not None
    assert b"listening on" in process.stderr.readline()
    return process


def test_chosen_by_type_or_by_a_path_ending_in_sse(tmp_path: Path) -> None:
    port = free_port()
    server = start_sse_server(port)
    try:
        url = f"http://127.0.0.1:{port}/sse"
        config = write_config(tmp_path / "c.json", {"servers": {"legacy": {"type": "sse", "url": url}}})
        [spec], _ = resolve_servers(ServerSelection(config=str(config)))
        assert spec.transport == "sse"
        [by_url], _ = resolve_servers(ServerSelection(url=url))
        assert by_url.transport == "sse"
        tools, servers = rea_many(
            ("tools", "--json", "--trace", "--url", url),
            ("servers", "--json", "--config", str(config)),
        )
        assert "echo" in [t["name"] for t in tools.expect(0).json()["tools"]]
        assert "tools/list" in tools.trace_methods()
        [row] = servers.expect(0).json()["servers"]
        assert row["rea"]["transport"] == "sse" and row["rea"]["status"] == "ok"
        called = rea("call", "echo", "text=over sse", "--yes", "--url", url).expect(0)
        assert "over sse" in called.out
    finally:
        server.terminate()
        server.wait(timeout=10)


async def test_reconnects_after_the_server_restarts() -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/sse"
    server = start_sse_server(port)
    [spec], _ = resolve_servers(ServerSelection(url=url, protocol="legacy"))
    connection = Connection(spec, timeout=10, connect_timeout=10)
    try:
        await connection.start()
        first = await connection.request("tools/list")
        server.terminate()
        server.wait(timeout=10)
        server = start_sse_server(port)
        # The stream dropped; the transport opens it again and says hello on the new session.
        for _ in range(100):
            if any(e.method == "sse/reconnect" for e in connection.traffic.entries()):
                break
            await asyncio.sleep(0.1)
        # Sent while the stream may still be coming back: it waits for the new endpoint.
        again = await connection.request("tools/list")
        assert [t["name"] for t in again["tools"]] == [t["name"] for t in first["tools"]]
        assert connection.is_ready
        [event] = [e for e in connection.traffic.entries() if e.method == "sse/reconnected"]
        assert "new session, handshake sent again" in event.payload
    finally:
        await connection.close()
        server.terminate()
        server.wait(timeout=10)


async def test_reconnects_with_last_event_id_to_the_same_session() -> None:
    import json
    import urllib.request

    from tests.conftest import start_http_server

    process, url = start_http_server(["-m", "tests.support.resumable_sse_server"], r"listening on (http://\S+)")
    [spec], _ = resolve_servers(ServerSelection(url=url, protocol="legacy"))
    connection = Connection(spec, timeout=10, connect_timeout=10)
    try:
        await connection.start()
        for _ in range(3):  # the server drops its stream after every tools/list reply
            listed = await connection.request("tools/list")
            assert [t["name"] for t in listed["tools"]] == ["noop"]
        for _ in range(50):
            with urllib.request.urlopen(url.replace("/sse", "/seen")) as response:
                seen = json.loads(response.read())
            if len(seen) >= 2:
                break
            await asyncio.sleep(0.1)
        assert seen[:2] == ["2", "3"]  # the id of the last event each stream carried
        reconnected = [e.payload for e in connection.traffic.entries() if e.method == "sse/reconnected"]
        assert reconnected and all("the same session" in p for p in reconnected)
        reconnects = [e.payload for e in connection.traffic.entries() if e.method == "sse/reconnect"]
        assert "after 0.2 s (Last-Event-ID 2)" in reconnects[0]
    finally:
        await connection.close()
        process.terminate()
        process.wait(timeout=10)
