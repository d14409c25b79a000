"""Completion rules against the real server over stdio, on both protocol generations."""

from __future__ import annotations

from collections.abc import AsyncIterator

import mcp_types as types
import pytest
import pytest_asyncio

from tests.server.live import (
    LiveServer,
    expected_procedure_values,
    expected_target_values,
    fold,
    matching,
    matching_target,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

DOCUMENTS = ["Notes", "NotesHelper", "NotesShare.appex", "libsearch.dylib", "libsync.dylib"]


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=["legacy", "2026-07-28"])
async def server(request: pytest.FixtureRequest) -> AsyncIterator[LiveServer]:
    live = await LiveServer("--synthetic", "2000", mode=request.param).start()
    yield live
    await live.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def target_values(server: LiveServer) -> set[str]:
    """What the whole-target rule says completion without a document must offer."""
    return expected_target_values({doc: await server.all_procedures(doc) for doc in DOCUMENTS})


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def notes_values(server: LiveServer) -> set[str]:
    """What the seeds' rule says Notes must offer, from the full inventory via list_procedures."""
    return expected_procedure_values(await server.all_procedures("Notes"))


async def test_the_connection_speaks_the_requested_generation(server: LiveServer) -> None:
    expected = "2025-11-25" if server.mode == "legacy" else "2026-07-28"
    assert server.client.protocol_version == expected


async def test_document_family_lists_the_provider_documents(server: LiveServer) -> None:
    everything = await server.complete("document", "")
    assert everything.values == sorted(DOCUMENTS)
    assert everything.total == 5 and not everything.has_more
    notes = await server.complete("document", "nOTES")
    assert notes.values == ["Notes", "NotesHelper", "NotesShare.appex"]


async def test_procedure_family_matches_the_full_inventory_rule(server: LiveServer, notes_values: set[str]) -> None:
    for prefix in ("open", "0x1000001", "_", "-[", "search", "load"):
        page = await server.complete("procedure", prefix, {"document": "Notes"})
        expected = matching(notes_values, prefix)
        assert page.total == len(expected), prefix
        assert page.values == expected[:100], prefix
        assert page.has_more == (len(expected) > 100)


async def test_document_context_is_forwarded(server: LiveServer) -> None:
    in_notes = await server.complete("procedure", "openDocument", {"document": "Notes"})
    in_search = await server.complete("procedure", "openDocument", {"document": "libsearch.dylib"})
    assert in_notes.values == ["openDocument"]
    assert in_search.values == []
    libsync = await server.all_procedures("libsync.dylib")
    page = await server.complete("procedure", "0x7ff82", {"document": "libsync.dylib"})
    assert set(page.values) <= {p["address"] for p in libsync} and page.total == len(libsync)


async def test_matching_is_nfkc_and_case_insensitive_and_keeps_spelling(server: LiveServer) -> None:
    ctx = {"document": "Notes"}
    ligature = await server.complete("procedure", "file", ctx)
    assert ligature.values == ["fileImport", "\ufb01leImport"]
    assert (await server.complete("procedure", "\ufb01le", ctx)).values == ligature.values
    assert (await server.complete("procedure", "ＦＩＬＥ", ctx)).values == ligature.values
    width = await server.complete("procedure", "SYNCNOW", ctx)
    assert width.values == ["syncNow", "ｓｙｎｃＮｏｗ"]
    cases = await server.complete("procedure", "loadcache", ctx)
    assert cases.values == ["LOADCACHE", "LoadCache", "loadCache"]


async def test_values_are_sorted_by_code_point_and_unique(server: LiveServer) -> None:
    page = await server.complete("procedure", "", {"document": "Notes"})
    assert page.values == sorted(page.values)
    assert len(set(page.values)) == len(page.values)
    folded = await server.complete("procedure", "LOADCACHE", {"document": "Notes"})
    assert folded.values == sorted(folded.values) and len({fold(v) for v in folded.values}) == 1


async def test_names_are_offered_only_for_a_unique_address(server: LiveServer) -> None:
    ctx = {"document": "Notes"}
    # One name at two addresses: never offered, though each address is.
    assert (await server.complete("procedure", "duplicateHelper", ctx)).values == []
    procedures = await server.all_procedures("Notes")
    duplicated = [p["address"] for p in procedures if p["names"] == ["duplicateHelper"]]
    assert len(duplicated) == 2
    assert (await server.complete("procedure", duplicated[0], ctx)).values == [duplicated[0]]
    # Three aliases at one shared address are each unique names, so each is offered.
    assert (await server.complete("procedure", "searchnotes", ctx)).values == [
        "SearchNotesEntry",
        "searchNotes",
    ]
    assert (await server.complete("procedure", "_searchNotes", ctx)).values == ["_searchNotes"]


async def test_a_later_page_withdraws_a_name_seen_at_a_shared_address(server: LiveServer) -> None:
    ctx = {"document": "Notes"}
    procedures = await server.all_procedures("Notes")
    where = [i for i, p in enumerate(procedures) if "laterAmbiguousName" in p["names"]]
    assert where[0] < 500 <= where[1], "the second occurrence must be on a later page"
    assert (await server.complete("procedure", "laterAmbiguous", ctx)).values == []
    assert (await server.complete("procedure", "uniqueAliasAt", ctx)).values == ["uniqueAliasAtShared"]


async def test_at_most_100_values_with_total_and_has_more(server: LiveServer, notes_values: set[str]) -> None:
    page = await server.complete("procedure", "0x", {"document": "Notes"})
    addresses = matching(notes_values, "0x")
    assert len(page.values) == 100 and page.has_more is True
    assert page.total == len(addresses) == 800
    assert page.values == addresses[:100]
    small = await server.complete("procedure", "openDocument", {"document": "Notes"})
    assert small.has_more is False and small.total == 1


async def test_values_longer_than_4096_are_never_offered(server: LiveServer) -> None:
    ctx = {"document": "Notes"}
    long_names = await server.complete("procedure", "longName_", ctx)
    assert long_names.values == [] and long_names.total == 0
    edge = await server.complete("procedure", "edge4096_", ctx)
    assert len(edge.values) == 1 and len(edge.values[0]) == 4096
    procedures = await server.all_procedures("Notes")
    long_addresses = [p["address"] for p in procedures if any(len(n) > 4096 for n in p["names"])]
    assert len(long_addresses) == 2
    for address in long_addresses:
        assert (await server.complete("procedure", address, ctx)).values[0] == address


async def test_provider_family_offers_auto_then_sorted_deep_providers(server: LiveServer) -> None:
    page = await server.complete("provider", "", prompt="trace_crash")
    assert page.values == ["auto", "deep-cold", "deep-failing", "deep-malformed"]
    assert (await server.complete("provider", "DEEP-F", prompt="trace_crash")).values == ["deep-failing"]


@pytest.mark.parametrize("provider", ["deep-cold", "deep-failing", "deep-malformed"])
async def test_unready_or_broken_providers_give_an_empty_list(server: LiveServer, provider: str) -> None:
    for argument, value in (
        ("document", ""),
        ("document", "Notes"),
        ("procedure", ""),
        ("procedure", "open"),
    ):
        page = await server.complete(argument, value, {"document": "Notes", "provider": provider})
        assert (page.values, page.total, page.has_more) == ([], 0, False), (argument, value)
    # Reading the cold provider did not start analysis.
    doctor = await server.structured("doctor")
    states = {p["name"]: p["state"] for p in doctor["session"]["providers"]}
    assert states["deep-cold"] == "cold"


async def test_unknown_document_context_gives_an_empty_list(server: LiveServer) -> None:
    page = await server.complete("procedure", "open", {"document": "NoSuchDocument"})
    assert page.values == [] and page.total == 0


async def test_arguments_without_a_session_family_complete_to_nothing(server: LiveServer) -> None:
    assert (await server.complete("feature", "o")).values == []


async def test_resource_template_variables_complete(server: LiveServer) -> None:
    ref = types.ResourceTemplateReference(uri="rea://documents/{document}/procedures/{procedure}")
    docs = await server.client.complete(ref, {"name": "document", "value": "lib"})
    assert docs.completion.values == ["libsearch.dylib", "libsync.dylib"]
    procs = await server.client.complete(ref, {"name": "procedure", "value": "openDoc"}, {"document": "Notes"})
    assert procs.completion.values == ["openDocument"]
    read = await server.client.read_resource("rea://documents/Notes/procedures/openDocument")
    text = read.contents[0]
    assert isinstance(text, types.TextResourceContents) and '"openDocument"' in text.text


COMPLETE = {"complete": True, "limit": 1_000_000, "addresses": 2000}
"""`_meta["rea/discovery"]` of a complete inventory of the 2,000-procedure target."""


async def discovery_meta(server: LiveServer, value: str, context: dict[str, str] | None = None) -> object:
    result = await server.client.complete(
        types.PromptReference(name="investigate_feature"), {"name": "procedure", "value": value}, context
    )
    return (result.meta or {}).get("rea/discovery")


async def test_without_a_document_completion_spans_the_whole_target(
    server: LiveServer, target_values: set[str]
) -> None:
    for prefix in (
        "open",
        "openDocument",
        "openDocument@",
        "openDocument@libsync",
        "search",
        "0x1000002",
        "load",
        "-[",
    ):
        page = await server.complete("procedure", prefix)
        expected = matching_target(target_values, prefix)
        assert page.total == len(expected), prefix
        assert page.values == expected[:100], prefix
        assert page.has_more == (len(expected) > 100), prefix
    assert await discovery_meta(server, "open") == COMPLETE


async def test_a_name_in_several_documents_is_offered_qualified(server: LiveServer) -> None:
    shared = await server.complete("procedure", "openDocument")
    assert shared.values == ["openDocument@Notes", "openDocument@NotesHelper", "openDocument@libsync.dylib"]
    # Unique across the target: offered plain (and ambiguous within a document: not at all).
    assert (await server.complete("procedure", "exportNoteAsPDF")).values == ["exportNoteAsPDF"]
    assert (await server.complete("procedure", "duplicateHelper")).values == []


async def test_every_name_taking_tool_accepts_the_qualified_form(server: LiveServer) -> None:
    for value in (await server.complete("procedure", "openDocument")).values:
        name, document = value.rsplit("@", 1)
        inspected = await server.structured("inspect_procedure", {"procedure": value})
        assert inspected["document"]["name"] == document and inspected["procedure"]["names"] == [name]
        for tool in ("callers", "callees", "find_references"):
            result = await server.structured(tool, {"procedure": value})
            assert result["document"]["name"] == document, (tool, result)
    by_address = (await server.complete("procedure", "0x100000280@Notes")).values
    # A prefix: the same address qualified by NotesHelper or NotesShare.appex matches it too.
    assert by_address[0] == "0x100000280@Notes" and all(v.startswith("0x100000280@Notes") for v in by_address)
    assert (await server.structured("inspect_procedure", {"procedure": by_address[0]}))["procedure"]["names"] == [
        "openDocument"
    ]


async def test_the_discovery_meta_of_a_document(server: LiveServer) -> None:
    notes = await discovery_meta(server, "", {"document": "Notes"})
    assert notes == {"complete": True, "limit": 1_000_000, "addresses": 800}
    # Families that are not procedures carry no discovery report.
    result = await server.client.complete(
        types.PromptReference(name="investigate_feature"), {"name": "document", "value": ""}
    )
    assert "rea/discovery" not in (result.meta or {})
