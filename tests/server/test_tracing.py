"""Feature tracing on the synthetic target: search_strings, find_references, callers, callees.

Results are checked against what other tools show independently: a string
reference must be a RIP-relative instruction in the procedure's own
disassembly whose operand lands on the string, and callers/callees must agree
with the calls `inspect_procedure` decodes.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any

import jsonschema
import mcp_types as types
import pytest
import pytest_asyncio

from tests.server.live import LiveServer

pytestmark = pytest.mark.asyncio(loop_scope="module")

RIP_OPERAND = re.compile(r"\[rip ([+-]) (0x[0-9a-f]+|[0-9]+)\]")


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=["legacy", "2026-07-28"])
async def server(request: pytest.FixtureRequest) -> AsyncIterator[LiveServer]:
    live = await LiveServer("--synthetic", "2000", mode=request.param).start()
    yield live
    await live.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def schemas(server: LiveServer) -> dict[str, dict[str, Any]]:
    tools = await server.client.list_tools()
    return {t.name: t.output_schema for t in tools.tools if t.output_schema is not None}


async def call(server: LiveServer, schemas: dict[str, Any], name: str, args: dict[str, Any]) -> dict[str, Any]:
    """A successful call whose structured content matches its output schema and its text."""
    result = await server.tool(name, args)
    assert result.is_error is not True, result.content
    structured = result.structured_content
    assert isinstance(structured, dict)
    jsonschema.validate(structured, schemas[name])
    text = result.content[0]
    assert isinstance(text, types.TextContent) and json.loads(text.text) == structured
    return structured


async def rip_targets(server: LiveServer, procedure: dict[str, Any], document: str) -> dict[str, int]:
    """Instruction address -> RIP-relative target, decoded from inspect_procedure's disassembly."""
    inspected = await server.structured(
        "inspect_procedure", {"procedure": str(procedure["id"]), "document": document, "max_instructions": 512}
    )
    out: dict[str, int] = {}
    for insn in inspected["disassembly"]["instructions"]:
        found = RIP_OPERAND.search(insn["operands"])
        if found is not None:
            following = int(insn["address"], 16) + len(insn["bytes"]) // 2
            displacement = int(found.group(2), 0)
            out[insn["address"]] = following + displacement if found.group(1) == "+" else following - displacement
    return out


async def test_search_strings_finds_text_in_data_sections(server: LiveServer, schemas: dict[str, Any]) -> None:
    found = await call(server, schemas, "search_strings", {"query": "offline search"})
    assert found["total"] == 1 and found["next_offset"] is None
    (string,) = found["strings"]
    assert string["text"] == "Offline search is unavailable" and string["document"] == "Notes"
    layout = await server.structured("inspect_binary_layout", {"document": "Notes"})
    section = next(s for s in layout["layout"]["sections"] if s["name"] == string["section"])
    start = int(section["address"], 16)
    assert start <= int(string["address"], 16) < start + section["size"]
    assert found["evidence_id"].startswith("E-")


async def test_string_matching_is_nfkc_and_case_insensitive(server: LiveServer) -> None:
    width = await server.structured("search_strings", {"query": "SYNC ERROR"})
    assert [s["text"] for s in width["strings"]] == ["ＳＹＮＣ ｅｒｒｏｒ"]
    ligature = await server.structured("search_strings", {"query": "file import"})
    assert [s["text"] for s in ligature["strings"]] == ["\ufb01le import failed"]


async def test_search_strings_is_scoped_and_paged(server: LiveServer) -> None:
    everywhere = await server.structured("search_strings", {"query": "could not open the document"})
    assert sorted(s["document"] for s in everywhere["strings"]) == ["Notes", "NotesHelper", "libsync.dylib"]
    helper = await server.structured("search_strings", {"query": "could not open", "document": "helper"})
    assert [s["document"] for s in helper["strings"]] == ["NotesHelper"] and helper["document"]["name"] == "NotesHelper"
    first = await server.structured("search_strings", {"query": "failed", "limit": 5})
    assert first["total"] > 10 and first["next_offset"] == 5 and len(first["strings"]) == 5
    second = await server.structured("search_strings", {"query": "failed", "limit": 5, "offset": 5})
    ids = [s["id"] for s in first["strings"] + second["strings"]]
    assert len(set(ids)) == 10 and all("failed" in s["text"].lower() for s in second["strings"])
    unknown_document = await server.structured("search_strings", {"query": "x", "document": "kernel"})
    assert unknown_document["reason"] == "not_found" and unknown_document["argument"] == "document"


async def test_references_to_a_string_are_real_instructions(server: LiveServer, schemas: dict[str, Any]) -> None:
    refs = await call(server, schemas, "find_references", {"string": "Offline search is unavailable"})
    target = int(refs["query"]["string"]["address"], 16)
    assert refs["document"]["name"] == "Notes" and refs["total"] >= 1
    assert "SearchNotesEntry" in [n for r in refs["references"] for n in r["procedure"]["names"]]
    for row in refs["references"]:
        decoded = await rip_targets(server, row["procedure"], "Notes")
        for site in row["sites"]:
            assert site["kind"] == "rip_relative" and decoded[site["at"]] == target, site
    by_address = await call(server, schemas, "find_references", {"address": hex(target), "document": "Notes"})
    assert by_address["references"] == refs["references"]


async def test_string_names_narrow_like_every_other_name(server: LiveServer, schemas: dict[str, Any]) -> None:
    twice = await call(server, schemas, "find_references", {"string": "Sync failed: %s"})
    assert twice["reason"] == "ambiguous" and twice["argument"] == "string"
    assert [c["name"] for c in twice["candidates"]] == ["Sync failed: %s", "Sync failed: %s"]
    assert len({c["address"] for c in twice["candidates"]}) == 2
    pinned = await call(server, schemas, "find_references", {"string": str(twice["candidates"][1]["id"])})
    assert pinned["query"]["string"]["address"] == twice["candidates"][1]["address"]

    shared = await call(server, schemas, "find_references", {"string": "Could not open the document %@"})
    assert shared["reason"] == "ambiguous" and shared["argument"] == "document"
    assert [c["name"] for c in shared["candidates"]] == ["Notes", "NotesHelper", "libsync.dylib"]
    assert shared["scoped_by"] == {"string": "Could not open the document %@"}
    resolved = await call(
        server, schemas, "find_references", {"string": "Could not open the document %@", "document": "NotesHelper"}
    )
    assert resolved["document"]["name"] == "NotesHelper"
    assert [r["procedure"]["names"] for r in resolved["references"]] == [["openDocument"]]

    missing = await call(server, schemas, "find_references", {})
    assert missing["reason"] == "missing_required" and missing["argument"] == "string"
    assert 0 < len(missing["candidates"]) <= 25
    unknown = await call(server, schemas, "find_references", {"string": "Ofline serch is unavailable!"})
    assert unknown["reason"] == "not_found" and unknown["candidates"][0]["name"] == "Offline search is unavailable"
    both = await server.tool("find_references", {"string": "Sync", "address": "0x10"})
    assert both.is_error is True


async def test_callees_agree_with_the_decoded_calls(server: LiveServer, schemas: dict[str, Any]) -> None:
    procedures = (await server.structured("list_procedures", {"document": "Notes", "limit": 40}))["procedures"]
    checked = 0
    for procedure in procedures:
        inspected = await server.structured(
            "inspect_procedure", {"procedure": str(procedure["id"]), "max_instructions": 512}
        )
        decoded = {c["target"] for c in inspected["disassembly"]["calls"]}
        callees = await call(server, schemas, "callees", {"procedure": str(procedure["id"])})
        assert {c["target"] for c in callees["callees"]} == decoded, procedure["names"]
        for callee in callees["callees"]:
            assert callee["procedure"] is not None, "synthetic calls land on procedures of the document"
            callers = await call(server, schemas, "callers", {"procedure": str(callee["procedure"]["id"])})
            assert procedure["id"] in [c["procedure"]["id"] for c in callers["callers"]]
            checked += 1
    assert checked > 10, "the synthetic code calls other procedures"


async def test_references_to_a_procedure_are_its_call_sites(server: LiveServer) -> None:
    procedures = await server.structured("list_procedures", {"document": "Notes", "offset": 100, "limit": 60})
    for procedure in procedures["procedures"]:
        callers = await server.structured("callers", {"procedure": str(procedure["id"])})
        if callers["total"]:
            refs = await server.structured("find_references", {"procedure": str(procedure["id"])})
            assert refs["references"] == callers["callers"]
            return
    pytest.fail("no procedure in the sample has callers")
