"""Seed 003's resolver contract on the real server: the decision tree and the three-round narrowing."""

from __future__ import annotations

import difflib
import json
from collections.abc import AsyncIterator
from typing import Any

import jsonschema
import mcp_types as types
import pytest
import pytest_asyncio

from tests.server.live import LiveServer, fold

pytestmark = pytest.mark.asyncio(loop_scope="module")

NARROWING_KEYS = {"reason", "ask_user", "candidates", "scoped_by", "argument"}


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=["legacy", "2026-07-28"])
async def server(request: pytest.FixtureRequest) -> AsyncIterator[LiveServer]:
    live = await LiveServer("--synthetic", "2000", mode=request.param).start()
    yield live
    await live.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def output_schemas(server: LiveServer) -> dict[str, dict[str, Any]]:
    tools = await server.client.list_tools()
    return {t.name: t.output_schema for t in tools.tools if t.output_schema is not None}


async def reply(
    server: LiveServer, schemas: dict[str, dict[str, Any]], name: str, args: dict[str, Any]
) -> dict[str, Any]:
    """Call a tool; check the result is not an error, matches its output schema, and text == structured."""
    result = await server.tool(name, args)
    assert result.is_error is not True, result.content
    structured = result.structured_content
    assert isinstance(structured, dict)
    jsonschema.validate(structured, schemas[name])
    text = result.content[0]
    assert isinstance(text, types.TextContent) and json.loads(text.text) == structured
    return structured


async def test_three_round_conversation_converges(server: LiveServer, output_schemas: dict[str, Any]) -> None:
    first = await reply(server, output_schemas, "inspect_procedure", {})
    assert set(first) == NARROWING_KEYS
    assert first["reason"] == "missing_required" and first["argument"] == "procedure"
    assert 0 < len(first["candidates"]) <= 25 and first["scoped_by"] == {}
    assert all(isinstance(c["id"], int) and isinstance(c["name"], str) for c in first["candidates"])

    second = await reply(server, output_schemas, "inspect_procedure", {"procedure": "openDocument"})
    assert second["reason"] == "ambiguous" and second["argument"] == "document"
    assert [c["name"] for c in second["candidates"]] == ["Notes", "NotesHelper", "libsync.dylib"]
    assert [c["id"] for c in second["candidates"]] == [1, 2, 4]
    assert second["scoped_by"] == {"procedure": "openDocument"}
    assert "Which document?" in second["ask_user"] and "\n" not in second["ask_user"]
    assert len(second["candidates"]) < len(first["candidates"])

    third = await reply(server, output_schemas, "inspect_procedure", {"procedure": "openDocument", "document": "Notes"})
    assert third["evidence_id"].startswith("E-")
    assert third["document"] == {"id": 1, "name": "Notes"}
    assert third["procedure"]["names"] == ["openDocument"]
    assert third["disassembly"]["instructions"][0]["mnemonic"] == "push"
    calls = third["disassembly"]["calls"]
    assert calls and all(call["names"] for call in calls), "calls resolve to procedures of the document"

    by_id = await reply(server, output_schemas, "inspect_procedure", {"procedure": "openDocument", "document": "1"})
    assert by_id["procedure"] == third["procedure"]


async def test_a_digit_string_or_integer_is_an_id(server: LiveServer, output_schemas: dict[str, Any]) -> None:
    named = await reply(server, output_schemas, "inspect_procedure", {"procedure": "openDocument", "document": "Notes"})
    proc_id = named["procedure"]["id"]
    as_text = await reply(server, output_schemas, "inspect_procedure", {"procedure": str(proc_id)})
    as_int = await reply(server, output_schemas, "inspect_procedure", {"procedure": proc_id})
    assert as_text["procedure"] == as_int["procedure"] == named["procedure"]
    missing = await reply(server, output_schemas, "inspect_procedure", {"procedure": "99999999"})
    assert missing["reason"] == "not_found"


async def test_exact_match_is_case_insensitive(server: LiveServer, output_schemas: dict[str, Any]) -> None:
    found = await reply(server, output_schemas, "inspect_procedure", {"procedure": "OPENDOCUMENT", "document": "notes"})
    assert found["procedure"]["names"] == ["openDocument"] and found["document"]["name"] == "Notes"


async def test_several_exact_matches_in_one_document(server: LiveServer, output_schemas: dict[str, Any]) -> None:
    answer = await reply(
        server, output_schemas, "inspect_procedure", {"procedure": "duplicateHelper", "document": "Notes"}
    )
    assert answer["reason"] == "ambiguous" and answer["argument"] == "procedure"
    assert [c["name"] for c in answer["candidates"]] == ["duplicateHelper", "duplicateHelper"]
    assert answer["scoped_by"] == {"document": "Notes"}
    assert all(c["document"] == "Notes" for c in answer["candidates"])
    pinned = await reply(server, output_schemas, "inspect_procedure", {"procedure": str(answer["candidates"][1]["id"])})
    assert pinned["procedure"]["address"] == answer["candidates"][1]["address"]


async def test_one_substring_match_resolves(server: LiveServer, output_schemas: dict[str, Any]) -> None:
    found = await reply(server, output_schemas, "inspect_procedure", {"procedure": "NoteAsPD"})
    assert found["procedure"]["names"] == ["exportNoteAsPDF"]


async def test_several_substring_matches_are_ambiguous(server: LiveServer, output_schemas: dict[str, Any]) -> None:
    answer = await reply(server, output_schemas, "inspect_procedure", {"procedure": "exportNoteAs"})
    assert answer["reason"] == "ambiguous" and answer["argument"] == "procedure"
    assert sorted(c["name"] for c in answer["candidates"]) == ["exportNoteAsHTML", "exportNoteAsPDF"]


async def test_no_match_is_not_found_with_candidates_in_scope(
    server: LiveServer, output_schemas: dict[str, Any]
) -> None:
    answer = await reply(
        server,
        output_schemas,
        "inspect_procedure",
        {"procedure": "zzzNothing", "document": "NotesShare.appex"},
    )
    assert answer["reason"] == "not_found" and answer["argument"] == "procedure"
    assert len(answer["candidates"]) == 25
    assert all(c["document"] == "NotesShare.appex" for c in answer["candidates"])
    assert answer["scoped_by"] == {"document": "NotesShare.appex"}


async def test_document_names_follow_the_same_tree(server: LiveServer, output_schemas: dict[str, Any]) -> None:
    helper = await reply(server, output_schemas, "inspect_binary_layout", {"document": "helper"})
    assert helper["document"]["name"] == "NotesHelper"
    exact_wins = await reply(server, output_schemas, "inspect_binary_layout", {"document": "notes"})
    assert exact_wins["document"]["name"] == "Notes"
    several = await reply(server, output_schemas, "list_procedures", {"document": "lib"})
    assert several["reason"] == "ambiguous" and several["argument"] == "document"
    assert [c["name"] for c in several["candidates"]] == ["libsearch.dylib", "libsync.dylib"]
    none = await reply(server, output_schemas, "list_procedures", {"document": "kernel"})
    assert none["reason"] == "not_found" and len(none["candidates"]) == 5


async def test_candidates_are_pre_scoped_by_the_pinned_document(
    server: LiveServer, output_schemas: dict[str, Any]
) -> None:
    unscoped = await reply(server, output_schemas, "inspect_procedure", {})
    scoped = await reply(server, output_schemas, "inspect_procedure", {"document": "libsearch.dylib"})
    assert scoped["scoped_by"] == {"document": "libsearch.dylib"}
    assert {c["document"] for c in scoped["candidates"]} == {"libsearch.dylib"}
    assert {c["document"] for c in unscoped["candidates"]} == {"Notes"}


async def test_unknown_and_manifest_names_narrow_too(server: LiveServer, output_schemas: dict[str, Any]) -> None:
    missing = await reply(server, output_schemas, "resolve_unknown", {"resolution": "x", "evidence": "E-0001"})
    assert missing["reason"] == "missing_required" and missing["argument"] == "unknown"
    no_manifest = await reply(server, output_schemas, "inspect_artifact", {"manifest": "M-0099"})
    assert no_manifest["reason"] == "not_found" and no_manifest["argument"] == "manifest"


async def test_the_provider_argument_narrows_too(server: LiveServer, output_schemas: dict[str, Any]) -> None:
    exact = await reply(server, output_schemas, "list_documents", {"provider": "AUTO"})
    assert exact["provider"] == "auto"
    several = await reply(server, output_schemas, "list_documents", {"provider": "deep"})
    assert several["reason"] == "ambiguous" and several["argument"] == "provider"
    assert [c["name"] for c in several["candidates"]] == ["deep-cold", "deep-failing", "deep-malformed"]
    unknown = await reply(server, output_schemas, "list_procedures", {"provider": "ghidra"})
    assert unknown["reason"] == "not_found" and len(unknown["candidates"]) == 4
    # One substring match or an id resolves; that provider being cold is then the tool's own error.
    for value in ("cold", "2"):
        cold = await server.tool("list_documents", {"provider": value})
        assert cold.is_error is True and "deep-cold is cold" in getattr(cold.content[0], "text", "")


def closeness(typed: str, forms: list[str]) -> float:
    """The test's own closeness: difflib's ratio (candidate against typed, as get_close_matches does) on
    folded text, the best over a procedure's names and address."""
    return max(difflib.SequenceMatcher(None, fold(f), fold(typed), autojunk=False).ratio() for f in forms)


async def test_not_found_candidates_come_closest_first(server: LiveServer, output_schemas: dict[str, Any]) -> None:
    typed = "exportNoteAsPFD"
    answer = await reply(server, output_schemas, "inspect_procedure", {"procedure": typed, "document": "Notes"})
    assert answer["reason"] == "not_found"
    names = [c["name"] for c in answer["candidates"]]
    assert names[:2] == ["exportNoteAsPDF", "exportNoteAsHTML"]
    forms = {p["address"]: [*p["names"], p["address"]] for p in await server.all_procedures("Notes")}
    scores = [closeness(typed, forms[c["address"]]) for c in answer["candidates"]]
    assert scores == sorted(scores, reverse=True), "closest first"
    documents = await reply(server, output_schemas, "inspect_binary_layout", {"document": "libsink"})
    assert documents["candidates"][0]["name"] == "libsync.dylib"


async def test_a_qualified_procedure_and_a_different_document_conflict(server: LiveServer) -> None:
    result = await server.tool("inspect_procedure", {"procedure": "openDocument@Notes", "document": "libsync.dylib"})
    assert result.is_error is True and "give one of them" in getattr(result.content[0], "text", "")
    same = await server.structured("inspect_procedure", {"procedure": "openDocument@Notes", "document": "Notes"})
    assert same["document"]["name"] == "Notes"
