"""Streamable HTTP on 127.0.0.1, both protocol generations, one server process."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
from collections.abc import Iterator

import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.session import ClientRequestContext

from tests.server.live import REPO


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "rea_tui.server", "--http", "127.0.0.1:0", "--synthetic", "2000"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stderr is not None
    line = process.stderr.readline()
    match = re.fullmatch(r"rea-server listening on (http://127\.0\.0\.1:(\d+)/mcp)\n", line)
    try:
        assert match is not None, f"unexpected first stderr line: {line!r}"
        assert int(match.group(2)) > 0
        yield match.group(1)
    finally:
        process.terminate()
        stdout, _ = process.communicate(timeout=10)
        assert stdout == "", "nothing may be written to stdout"


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28", "auto"])
async def test_completion_and_narrowing_over_http(http_url: str, mode: str) -> None:
    async with Client(http_url, mode=mode, cache=None) as client:
        expected = "2025-11-25" if mode == "legacy" else "2026-07-28"
        assert client.protocol_version == expected
        prompts = await client.list_prompts()
        assert len(prompts.prompts) == 6
        docs = await client.complete(types.PromptReference(name="trace_crash"), {"name": "document", "value": "lib"})
        assert docs.completion.values == ["libsearch.dylib", "libsync.dylib"]
        procs = await client.complete(
            types.PromptReference(name="trace_crash"),
            {"name": "procedure", "value": "FILE"},
            {"document": "Notes"},
        )
        assert procs.completion.values == ["fileImport", "\ufb01leImport"]
        answer = await client.call_tool("inspect_procedure", {"procedure": "openDocument"})
        assert isinstance(answer.structured_content, dict) and answer.structured_content["argument"] == "document"
        done = await client.call_tool("inspect_procedure", {"procedure": "openDocument", "document": "libsync.dylib"})
        assert isinstance(done.structured_content, dict) and done.structured_content["document"]["id"] == 4


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_elicitation_over_http(http_url: str, mode: str) -> None:
    asked: list[types.ElicitRequestParams] = []

    async def accept(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        return types.ElicitResult(action="accept", content={"arguments": "--offline", "timeout_seconds": 2})

    async with Client(http_url, mode=mode, cache=None, elicitation_callback=accept) as client:
        result = await client.call_tool("run_process_capture", {})
        assert isinstance(result.structured_content, dict)
        assert result.structured_content["status"] == "completed"
        assert result.structured_content["argv"] == ["Notes", "--offline"]
        assert len(asked) == 1


async def test_invalid_params_over_http_keep_the_session(http_url: str) -> None:
    from mcp import MCPError

    async with Client(http_url, mode="legacy", cache=None) as client:
        with pytest.raises(MCPError) as caught:
            await client.get_prompt("investigate_feature", {})
        assert caught.value.code == -32602
        assert caught.value.data["errors"] == [{"field": "arguments.feature", "message": "required"}]
        rendered = await client.get_prompt("investigate_feature", {"feature": "sync"})
        assert "`search_strings`" in getattr(rendered.messages[0].content, "text", "")


# -- who may connect ------------------------------------------------------------------------

TOKEN = "test-token-7f3a"
JSON_AND_SSE = "application/json, text/event-stream"
HTTP_OK = 200
HTTP_UNAUTHORIZED = 401
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
}


def run_server(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rea_tui.server", *args, "--synthetic", "10"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


@contextlib.contextmanager
def listening(*args: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """A server started with `args`; yields its port once it accepts connections."""
    process = subprocess.Popen(
        [sys.executable, "-m", "rea_tui.server", *args, "--synthetic", "50"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
    )
    assert process.stderr is not None
    line = process.stderr.readline()
    match = re.fullmatch(r"rea-server listening on http://\S+:(\d+)/mcp\n", line)
    try:
        assert match is not None, f"unexpected first stderr line: {line!r}"
        yield match.group(1)
    finally:
        process.terminate()
        process.communicate(timeout=10)


def post_initialize(
    port: str, *, host: str = "127.0.0.1", connect: str = "127.0.0.1", headers: dict[str, str] | None = None
) -> int:
    """POST an initialize to `connect`:`port`, claiming `Host: host:port`; the HTTP status."""
    response = httpx2.post(
        f"http://{connect}:{port}/mcp",
        json=INITIALIZE,
        headers={"Accept": JSON_AND_SSE, "Host": f"{host}:{port}", **(headers or {})},
        timeout=30,
    )
    return response.status_code


@pytest.mark.parametrize("host", ["0.0.0.0", "[::]", "192.0.2.10", "example.com"])
def test_non_loopback_addresses_are_refused(host: str) -> None:
    result = run_server("--http", f"{host}:0")
    assert result.returncode == 2 and result.stdout == ""
    assert "binds loopback only" in result.stderr and "--allow-remote" in result.stderr


def test_allow_remote_requires_a_token() -> None:
    result = run_server("--http", "0.0.0.0:0", "--allow-remote", env={"REA_SERVER_TOKEN": ""})
    assert result.returncode == 2 and "needs a bearer token" in result.stderr
    stray = run_server("--token", TOKEN)
    assert stray.returncode == 2 and "only apply with --http" in stray.stderr


def test_a_remote_bind_needs_the_bearer_token() -> None:
    with listening("--http", "0.0.0.0:0", "--allow-remote", env={"REA_SERVER_TOKEN": TOKEN}) as port:
        assert post_initialize(port) == HTTP_UNAUTHORIZED
        assert post_initialize(port, headers={"Authorization": "Bearer wrong"}) == HTTP_UNAUTHORIZED
        assert post_initialize(port, headers={"Authorization": f"Bearer {TOKEN}"}) == HTTP_OK


async def test_a_client_with_the_token_works_end_to_end() -> None:
    from mcp.client.streamable_http import streamable_http_client

    with listening("--http", "127.0.0.1:0", "--token", TOKEN) as port:
        assert post_initialize(port) == HTTP_UNAUTHORIZED, "a token given on loopback is enforced too"
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"})
        async with http, Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http)) as client:
            assert len((await client.list_prompts()).prompts) == 6


@pytest.mark.parametrize("bind", ["127.0.0.1", "127.0.0.2"])
def test_the_host_and_origin_check_is_on_for_every_loopback_address(bind: str) -> None:
    with listening("--http", f"{bind}:0") as port:
        assert post_initialize(port, host=bind, connect=bind) == HTTP_OK
        assert post_initialize(port, host="evil.example", connect=bind) != HTTP_OK
        evil_origin = {"Origin": "http://evil.example"}
        assert post_initialize(port, host=bind, connect=bind, headers=evil_origin) != HTTP_OK
