"""Streamable HTTP on 127.0.0.1, both protocol generations, one server process."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator

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
