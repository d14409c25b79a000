"""Over HTTP every MCP session has its own target, evidence and unknowns (two real clients, one server)."""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from mcp import Client

from tests.server.http_live import http_server


async def structured(client: Client, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    result = await client.call_tool(name, arguments or {})
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content


async def read_json(client: Client, uri: str) -> dict[str, Any]:
    content = (await client.read_resource(uri)).contents[0]
    assert isinstance(content, types.TextResourceContents)
    data: dict[str, Any] = json.loads(content.text)
    return data


async def procedure_values(client: Client, prefix: str) -> list[str]:
    reply = await client.complete(
        types.PromptReference(name="trace_crash"), {"name": "procedure", "value": prefix}, {"document": "Notes"}
    )
    return reply.completion.values


async def test_one_session_switching_or_closing_leaves_the_other_alone() -> None:
    with http_server("--synthetic", "2000") as server:
        async with (
            Client(server.url, mode="legacy", cache=None) as first,
            Client(server.url, mode="legacy", cache=None) as second,
        ):
            started = await read_json(second, "rea://session")
            assert started["target"] == "synthetic:2000:0" and "MCP session's own" in started["scope"]
            kept = (await structured(second, "doctor"))["evidence_id"]
            before = await procedure_values(second, "openDoc")
            assert before == ["openDocument"]

            opened = await structured(first, "open_binary", {"path": "synthetic:40:7"})
            assert opened["target"] == "synthetic:40:7" and opened["previous_target"] == "synthetic:2000:0"
            assert (await read_json(first, "rea://session"))["target"] == "synthetic:40:7"
            assert (await read_json(second, "rea://session"))["target"] == "synthetic:2000:0", "B was switched"
            assert await procedure_values(second, "openDoc") == before

            other = (await structured(first, "doctor"))["evidence_id"]
            assert other != kept, "an evidence ID is never handed out twice by one server, across sessions"
            closed = await structured(first, "close_binary")
            assert closed["closed"] is True and closed["cleared"]["evidence"] == 2
            assert (await read_json(first, "rea://session"))["state"] == "none"
            survivor = await read_json(second, "rea://session")
            assert survivor["state"] == "ready" and survivor["evidence_count"] == 1, "B's evidence was cleared"
            assert (await read_json(second, f"rea://evidence/{kept}"))["operation"] == "doctor"
            ids = await second.complete(types.PromptReference(name="trace_crash"), {"name": "evidence", "value": ""})
            assert ids.completion.values == [kept]


async def test_requests_without_a_session_share_one_workspace_apart_from_the_sessions() -> None:
    """Protocol 2026-07-28 has no sessions over HTTP: its requests share one workspace, and say so."""
    with http_server("--synthetic", "2000") as server:
        async with (
            Client(server.url, mode="2026-07-28", cache=None) as modern,
            Client(server.url, mode="legacy", cache=None) as legacy,
        ):
            assert "no sessions" in (await read_json(modern, "rea://session"))["scope"]
            await structured(modern, "open_binary", {"path": "synthetic:30"})
            assert (await read_json(modern, "rea://session"))["target"] == "synthetic:30:0"
            assert (await read_json(legacy, "rea://session"))["target"] == "synthetic:2000:0"
