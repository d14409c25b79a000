"""2026-07-28 HTTP headers (SEP-2243): `Mcp-Param-*` on `tools/call`, and tools with an invalid `x-mcp-header`.

A FastMCP server on 127.0.0.1 (`tests.support.header_server`) records the MCP
headers of every POST it receives. `route` carries valid annotations (a
string, an integer, a boolean, a string sent with non-ASCII text), `bad_score`
an annotation on a `number`, which a 2026-07-28 client must exclude.

The lean HTTP client speaks only the legacy handshake (`cli/lean.py`), so at
2026-07-28 a one-shot command takes the full path with or without
`REA_TUI_FULL_PATH=1`; the tests run both and compare what reached the
server, and at legacy (where the lean client does run) show that neither
path sends a parameter header or drops a tool (the annotation is 2026-07-28's).
"""

from __future__ import annotations

import ast
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp.shared.inbound import encode_header_value

from tests.cli import PYTHON, REPO, Run, rea
from tests.support.everything_http import free_port

START_TIMEOUT = 60.0
FULL = {"REA_TUI_FULL_PATH": "1"}
LEAN = {"REA_TUI_FULL_PATH": "0"}
NON_ASCII = "Grüße, 世界"
ROUTE_ARGS = ("region=eu-west", "priority=3", "verbose=true", f"label={NON_ASCII}", "query=select 1")


class HeaderServer:
    """The recording server, and what it recorded."""

    def __init__(self, url: str, record: Path) -> None:
        self.url = url
        self.record = record

    def posts(self) -> list[dict[str, Any]]:
        if not self.record.exists():
            return []
        return [json.loads(line) for line in self.record.read_text(encoding="utf-8").splitlines()]

    def calls(self) -> list[dict[str, Any]]:
        return [p for p in self.posts() if p["method"] == "tools/call"]

    def forget(self) -> None:
        self.record.unlink(missing_ok=True)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HeaderServer]:
    record = tmp_path_factory.mktemp("headers") / "record.jsonl"
    port = free_port()
    process = subprocess.Popen(
        [PYTHON, "-m", "tests.support.header_server", str(port), str(record)],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert process.poll() is None, "the header server exited"
                assert time.monotonic() < deadline, "the header server did not listen"
                time.sleep(0.2)
        yield HeaderServer(f"http://127.0.0.1:{port}/mcp", record)
    finally:
        process.terminate()
        process.wait(timeout=10)


def param_headers(post: dict[str, Any]) -> dict[str, str]:
    return {k: v for k, v in post["headers"].items() if k.startswith("mcp-param-")}


def call_route(server: HeaderServer, env: dict[str, str], *pairs: str, protocol: str = "2026-07-28") -> Run:
    server.forget()
    return rea("call", "route", *pairs, "--yes", "--url", server.url, "--protocol", protocol, env=env).expect(0)


def test_both_paths_mirror_annotated_arguments_into_the_same_param_headers(server: HeaderServer) -> None:
    sent: list[dict[str, str]] = []
    for env in (FULL, LEAN):
        call_route(server, env, *ROUTE_ARGS)
        (call,) = server.calls()
        assert call["name"] == "route" and call["headers"]["mcp-name"] == "route"
        sent.append(param_headers(call))
    assert (
        sent[0]
        == sent[1]
        == {
            "mcp-param-region": "eu-west",
            "mcp-param-priority": "3",
            "mcp-param-verbose": "true",
            # Non-ASCII goes as the SDK's base64 sentinel; `query` has no annotation and is not mirrored.
            "mcp-param-label": encode_header_value(NON_ASCII),
        }
    )
    assert sent[0]["mcp-param-label"].startswith("=?base64?")


def test_an_absent_argument_sends_no_header(server: HeaderServer) -> None:
    for env in (FULL, LEAN):
        call_route(server, env, "region=us")
        (call,) = server.calls()
        assert param_headers(call) == {"mcp-param-region": "us"}


def test_the_invalid_tool_is_listed_by_neither_path_and_refused_by_name(server: HeaderServer) -> None:
    for env in (FULL, LEAN):
        listed = rea("tools", "--url", server.url, "--protocol", "2026-07-28", env=env).expect(0)
        names = [line.split()[0] for line in listed.out.splitlines() if line and not line.startswith(" ")]
        assert "route" in names and "plain" in names
        assert "bad_score" not in listed.out
        assert "warning: tool bad_score excluded: invalid x-mcp-header" in listed.err
        assert "'number'" in listed.err  # the reason says what is wrong

        server.forget()
        refused = rea(
            "call", "bad_score", "score=1.5", "--yes", "--url", server.url, "--protocol", "2026-07-28", env=env
        ).expect(2)
        assert "not sent: tool bad_score excluded: invalid x-mcp-header" in refused.err
        assert server.calls() == []
        assert [p["method"] for p in server.posts()] == ["server/discover", "tools/list"]


def test_at_legacy_neither_path_mirrors_or_excludes(server: HeaderServer) -> None:
    """An annotation means nothing before 2026-07-28: the SDK sends no header there, and neither does the lean client."""
    for env in (FULL, LEAN):
        call_route(server, env, *ROUTE_ARGS, protocol="legacy")
        (call,) = server.calls()
        assert param_headers(call) == {}
        listed = rea("tools", "--url", server.url, "--protocol", "legacy", env=env).expect(0)
        assert "bad_score" in listed.out and "excluded" not in listed.err


def test_a_lean_stdio_listing_with_annotations_goes_to_the_full_path_which_excludes() -> None:
    """Over stdio at 2026-07-28 `tools` first runs without the SDK; the annotated listing is handed over."""
    stdio = ("--protocol", "2026-07-28", "--", PYTHON, "-m", "tests.support.header_server", "stdio")
    for env in (FULL, LEAN):
        listed = rea("tools", *stdio, env=env).expect(0)
        assert "route" in listed.out and "bad_score" not in listed.out
        assert "warning: tool bad_score excluded" in listed.err


# ---------------------------------------------------------------- the one check


def test_every_tool_listing_is_parsed_in_the_catalog_that_screens_it() -> None:
    """`parse_tool` turns a listing into tools; only the catalog (whose `_take` screens) may call it on one.

    The lean HTTP client's `prefetch_call` reads the called tool's task support before any listing is
    shown; the listing itself then goes through the catalog like every other. A new caller fails here.
    """
    package = REPO / "rea_tui"
    callers: set[str] = set()
    for path in package.rglob("*.py"):
        if "server" in path.relative_to(package).parts[:1]:
            continue  # the bundled server is a separate program
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(isinstance(node, ast.Name) and node.id == "parse_tool" for node in ast.walk(tree)):
            callers.add(str(path.relative_to(package)))
    assert callers == {"host/features/catalog.py", "host/fastpath/lean_http.py"}


def test_the_catalog_screens_every_entry_point() -> None:
    """Refresh and the early preview both reach `_keep` through `screen_tools` (a skipped path lists bad_score)."""
    import asyncio

    from rea_tui.host.features.catalog import ToolCatalog
    from rea_tui.host.protocol.sdk_loader import load_sdk

    load_sdk()
    bad = {
        "name": "bad",
        "inputSchema": {"type": "object", "properties": {"n": {"type": "number", "x-mcp-header": "N"}}},
    }
    good = {
        "name": "good",
        "inputSchema": {"type": "object", "properties": {"s": {"type": "string", "x-mcp-header": "S"}}},
    }

    class Listing:
        modern = True

        def has_capability(self, name: str) -> bool:
            return True

        async def paginate(self, method: str, key: str) -> list[Any]:
            return [bad, good]

    refreshed = ToolCatalog(Listing())  # type: ignore[arg-type]
    asyncio.run(refreshed.refresh())
    seeded = ToolCatalog(Listing())  # type: ignore[arg-type]
    seeded.seed([bad, good])
    for catalog in (refreshed, seeded):
        assert catalog.names == ["good"]
        assert [t.wire_name for t in catalog.excluded] == ["bad"]
        assert catalog.excluded_named("bad") is not None and catalog.excluded_named("good") is None


def test_without_the_sdk_an_annotated_listing_is_handed_over_and_a_plain_one_is_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from rea_tui.host.features import tool_headers
    from rea_tui.host.features.tool_headers import ListingNeedsSdk, screen_tools

    monkeypatch.setattr(tool_headers, "sdk_loaded", lambda: False)
    plain = [{"name": "p", "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}}]
    assert screen_tools(plain, modern=True) == (plain, [])
    annotated = [{"name": "a", "inputSchema": {"properties": {"x": {"type": "string", "x-mcp-header": "X"}}}}]
    with pytest.raises(ListingNeedsSdk):
        screen_tools(annotated, modern=True)
    assert screen_tools(annotated, modern=False) == (annotated, [])  # legacy: nothing to check


def test_the_lean_paths_do_not_import_the_sdk_to_check() -> None:
    """`tool_headers` is imported by the catalog on the lean paths: importing it must not load the SDK."""
    code = "import sys, rea_tui.host.features.catalog; print('mcp' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert done.stdout.strip() == "False"


def test_the_session_refuses_an_excluded_tool_by_name_and_logs_why() -> None:
    """The TUI's (and a replay's) calls go through `Session.call_tool`: an excluded tool gets an entry, not a call."""
    import asyncio

    from rea_tui.host import ServerSpec, Session

    spec = ServerSpec(
        name="hdr",
        transport="stdio",
        command=PYTHON,
        args=("-m", "tests.support.header_server", "stdio"),
        cwd=str(REPO),
        protocol="2026-07-28",
    )

    async def scenario() -> None:
        session = Session([spec], timeout=30.0, remember_protocols=False)
        try:
            hosted = await session.connect("hdr")
            assert session.tool("hdr", "bad_score") is None and session.tool("hdr", "route") is not None
            entry = await session.call_tool("hdr", "bad_score", {"score": 1.5}, approval="test")
            assert entry.outcome == "failed"
            assert (entry.error or "").startswith("not sent: tool bad_score excluded: invalid x-mcp-header")
            traffic = hosted.connection.traffic
            assert traffic.requests_sent("tools/call") == []
            warned = [e for e in traffic.entries() if e.method == "tools/excluded"]
            assert len(warned) == 1
        finally:
            await session.close()

    asyncio.run(scenario())
