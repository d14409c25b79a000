"""Protocol errors: -32602 with field diagnostics, -32603 for the unexpected, never 0."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from mcp import MCPError

from tests.server.live import LiveServer
from tests.support.faulting_server import FAULT_METHOD

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=["legacy", "2026-07-28"])
async def server(request: pytest.FixtureRequest) -> AsyncIterator[LiveServer]:
    # The product has no fault hook: a test-support server adds one failing method to the real ReaServer.
    live = await LiveServer(command=("-m", "tests.support.faulting_server"), mode=request.param).start()
    yield live
    await live.stop()


async def fails(server: LiveServer, method: str, params: dict[str, Any] | None) -> MCPError:
    with pytest.raises(MCPError) as caught:
        await server.raw(method, params)
    return caught.value


def fields(error: MCPError) -> dict[str, str]:
    assert error.code == -32602, (error.code, error.message)
    assert isinstance(error.data, dict) and isinstance(error.data["errors"], list)
    return {e["field"]: e["message"] for e in error.data["errors"]}


async def still_works(server: LiveServer) -> None:
    page = await server.complete("document", "Notes")
    assert page.values[0] == "Notes"


PROMPT_REF = {"type": "ref/prompt", "name": "investigate_feature"}


async def test_completion_value_over_4096_is_invalid_params(server: LiveServer) -> None:
    error = await fails(
        server,
        "completion/complete",
        {"ref": PROMPT_REF, "argument": {"name": "procedure", "value": "a" * 4097}},
    )
    assert "argument.value" in fields(error)
    exactly = await server.complete("procedure", "a" * 4096, {"document": "Notes"})
    assert exactly.values == []
    await still_works(server)


async def test_completion_schema_errors_name_each_field(server: LiveServer) -> None:
    error = await fails(server, "completion/complete", {"ref": {"type": "ref/prompt"}, "argument": {"name": 5}})
    named = fields(error)
    assert {"argument.name", "argument.value", "ref.name"} <= set(named)
    unknown = await fails(
        server,
        "completion/complete",
        {"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "x", "value": ""}},
    )
    assert set(fields(unknown)) == {"ref.name"}
    bad_argument = await fails(
        server, "completion/complete", {"ref": PROMPT_REF, "argument": {"name": "nonsense", "value": ""}}
    )
    assert set(fields(bad_argument)) == {"argument.name"}
    long_context = await fails(
        server,
        "completion/complete",
        {
            "ref": PROMPT_REF,
            "argument": {"name": "procedure", "value": ""},
            "context": {"arguments": {"document": "d" * 5000}},
        },
    )
    assert set(fields(long_context)) == {"context.arguments.document"}
    await still_works(server)


async def test_prompts_get_errors_name_each_field(server: LiveServer) -> None:
    unknown = await fails(server, "prompts/get", {"name": "no_such_prompt"})
    assert set(fields(unknown)) == {"name"}
    several = await fails(server, "prompts/get", {"name": "trace_crash", "arguments": {"bogus": "1", "capture": "x"}})
    assert fields(several) == {
        "arguments.bogus": "unknown argument for this prompt",
        "arguments.symptom": "required",
    }
    typed = await fails(server, "prompts/get", {"name": "trace_crash", "arguments": {"symptom": 3}})
    assert set(fields(typed)) == {"arguments.symptom"}
    long_value = await fails(server, "prompts/get", {"name": "trace_crash", "arguments": {"symptom": "s" * 5000}})
    assert set(fields(long_value)) == {"arguments.symptom"}
    await still_works(server)


@pytest.mark.parametrize("method", ["prompts/list", "tools/list", "resources/list"])
async def test_list_methods_reject_invalid_params(server: LiveServer, method: str) -> None:
    typed = await fails(server, method, {"cursor": 7})
    assert set(fields(typed)) == {"cursor"}
    unknown_cursor = await fails(server, method, {"cursor": "page-2"})
    assert set(fields(unknown_cursor)) == {"cursor"}
    await still_works(server)


async def test_unknown_tool_is_invalid_params_and_bad_arguments_are_a_tool_error(server: LiveServer) -> None:
    unknown = await fails(server, "tools/call", {"name": "no_such_tool", "arguments": {}})
    assert set(fields(unknown)) == {"name"}
    result = await server.tool("list_procedures", {"limit": 0, "bogus": True})
    assert result.is_error is True
    text = result.content[0]
    assert "arguments.limit" in getattr(text, "text", "") and "arguments.bogus" in getattr(text, "text", "")
    await still_works(server)


async def test_unexpected_failure_is_internal_error_never_zero(server: LiveServer) -> None:
    error = await fails(server, FAULT_METHOD, {})
    assert error.code == -32603
    assert error.code != 0
    await still_works(server)
    again = await fails(server, FAULT_METHOD, {})
    assert again.code == -32603


async def test_the_product_server_has_no_fault_hook() -> None:
    product = await LiveServer("--synthetic", "50").start()
    try:
        with pytest.raises(MCPError) as caught:
            await product.raw(FAULT_METHOD, {})
        assert caught.value.code == -32601, "an unknown method, not a test hook"
    finally:
        await product.stop()
