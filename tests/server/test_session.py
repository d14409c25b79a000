"""The session model: ledger, unknowns, artifacts and captures as completion sources; lifecycle."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import mcp_types as types
import pytest
import pytest_asyncio
from mcp.client.subscriptions import PromptsListChanged

from tests.server.live import LiveServer

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=["legacy", "2026-07-28"])
async def server(request: pytest.FixtureRequest) -> AsyncIterator[LiveServer]:
    live = await LiveServer("--synthetic", "600", mode=request.param).start()
    yield live
    await live.stop()


@pytest_asyncio.fixture(loop_scope="module")
async def fresh(server: LiveServer) -> LiveServer:
    """Each test starts from a freshly opened synthetic target with an empty ledger (holding only the open)."""
    await server.tool("close_binary")
    await server.structured("open_binary", {"path": "synthetic:600"})
    await server.tool("close_binary")
    opened = await server.structured("open_binary", {"path": "synthetic:600"})
    assert await values(server, "evidence") == [opened["evidence_id"]]
    server.elicit_answer = types.ElicitResult(action="accept", content={})
    return server


def number(identifier: str) -> int:
    """The counter in an ID such as E-0042, M-0003 or U-0007."""
    return int(identifier.split("-")[1])


def evidence(n: int) -> str:
    return f"E-{n:04d}"


async def values(
    server: LiveServer,
    argument: str,
    value: str = "",
    prompt: str = "investigate_feature",
    context: dict[str, str] | None = None,
) -> list[str]:
    return (await server.complete(argument, value, context, prompt=prompt)).values


async def test_every_tool_result_gets_an_evidence_id_in_the_ledger(fresh: LiveServer) -> None:
    (opened,) = await values(fresh, "evidence")
    layout = await fresh.structured("inspect_binary_layout", {"document": "Notes"})
    docs = await fresh.structured("list_documents")
    first = number(opened)
    assert (layout["evidence_id"], docs["evidence_id"]) == (evidence(first + 1), evidence(first + 2))
    assert await values(fresh, "evidence") == [opened, layout["evidence_id"], docs["evidence_id"]]
    assert await values(fresh, "evidence", docs["evidence_id"].lower()) == [docs["evidence_id"]]
    read = await fresh.client.read_resource(f"rea://evidence/{layout['evidence_id']}")
    entry = json.loads(getattr(read.contents[0], "text", "{}"))
    assert entry["operation"] == "inspect_binary_layout" and entry["result"]["document"]["name"] == "Notes"


async def test_capture_family_offers_only_process_capture_v4(fresh: LiveServer) -> None:
    capture = await fresh.structured("run_process_capture", {"arguments": "--sync"})
    assert capture["schema"] == "rea.process_capture.v4" and capture["simulated"] is True
    await fresh.structured("list_documents")
    assert await values(fresh, "capture", prompt="trace_crash") == [capture["evidence_id"]]
    assert len(await values(fresh, "evidence", prompt="trace_crash")) == 3


async def test_manifest_and_occurrence_families_come_from_retained_inventories(fresh: LiveServer) -> None:
    first = await fresh.structured("inventory_artifact", {"limit": 4})
    manifest = first["manifest"]["manifest_id"]
    page_ids = [o["occurrence_id"] for o in first["page"]["occurrences"]]
    assert manifest.startswith("M-") and len(page_ids) == 4
    prompt = "compare_application_versions"
    assert await values(fresh, "manifest", prompt=prompt) == [manifest]
    # Only occurrences present in retained pages are offered.
    assert await values(fresh, "occurrence", prompt=prompt) == page_ids
    # Retrieving the same page again does not duplicate values.
    await fresh.structured("inventory_artifact", {"manifest": manifest, "limit": 4})
    second = await fresh.structured("inventory_artifact", {"manifest": str(number(manifest)), "offset": 4, "limit": 2})
    expected = sorted(page_ids + [o["occurrence_id"] for o in second["page"]["occurrences"]])
    page = await fresh.complete("occurrence", "O-", {"manifest": manifest}, prompt=prompt)
    assert page.values == expected and page.total == 6
    assert await values(fresh, "occurrence", context={"manifest": "M-9042"}, prompt=prompt) == []
    inspected = await fresh.structured("inspect_artifact", {"manifest": manifest, "occurrence": page_ids[1]})
    assert inspected["occurrence"]["occurrence_id"] == page_ids[1]
    graph = await fresh.structured("inspect_artifact", {"manifest": manifest})
    assert graph["graph"]["nodes"][0]["kind"] == "target" and "findings" in graph


async def test_unknown_family_offers_only_open_heads(fresh: LiveServer) -> None:
    prompt = "audit_residual_unknowns"
    (opened,) = await values(fresh, "evidence")
    one = await fresh.structured("record_unknown", {"question": "Where is the search index stored?"})
    two = await fresh.structured("record_unknown", {"question": "Does sync run offline?", "evidence": [opened]})
    three = await fresh.structured("record_unknown", {"question": "Which cache format?"})
    ids = [u["unknown"]["unknown_id"] for u in (one, two, three)]
    assert [number(i) for i in ids] == [number(ids[0]) + k for k in range(3)]
    assert await values(fresh, "unknown", prompt=prompt) == ids
    await fresh.structured("resolve_unknown", {"unknown": ids[1], "resolution": "yes", "evidence": opened})
    refined = await fresh.structured(
        "record_unknown", {"question": "Which cache format on disk?", "supersedes": "cache format"}
    )
    assert refined["unknown"]["supersedes"] == ids[2]
    assert number(refined["unknown"]["unknown_id"]) == number(ids[2]) + 1
    assert await values(fresh, "unknown", prompt=prompt) == [ids[0], refined["unknown"]["unknown_id"]]
    listed = await fresh.structured("list_unknowns", {"status": "all"})
    assert [u["status"] for u in listed["unknowns"]] == ["open", "resolved", "superseded", "open"]
    unqualified = await fresh.tool(
        "resolve_unknown", {"unknown": str(number(ids[0])), "resolution": "x", "evidence": "E-9999"}
    )
    assert unqualified.is_error is True


async def test_closing_clears_ledger_unknowns_and_artifacts(fresh: LiveServer) -> None:
    await fresh.structured("record_unknown", {"question": "open question"})
    await fresh.structured("inventory_artifact", {"limit": 2})
    await fresh.structured("run_process_capture")
    assert await values(fresh, "evidence") != []
    closed = await fresh.structured("close_binary")
    assert closed["closed"] is True and closed["cleared"]["evidence"] >= 4
    assert await values(fresh, "evidence") == []
    assert await values(fresh, "unknown", prompt="audit_residual_unknowns") == []
    assert await values(fresh, "capture", prompt="trace_crash") == []
    assert await values(fresh, "manifest", prompt="compare_application_versions") == []
    assert await values(fresh, "document") == []
    assert (await fresh.structured("list_unknowns"))["unknowns"] == []
    assert await values(fresh, "provider", prompt="trace_crash") == ["auto"]
    assert (await fresh.tool("list_documents")).is_error is True


async def test_target_switch_is_seen_by_the_next_completion(fresh: LiveServer) -> None:
    opened_before = await values(fresh, "evidence")
    interpreter = os.path.realpath(sys.executable)
    name = os.path.basename(interpreter)
    assert "Notes" in await values(fresh, "document")
    assert await values(fresh, "procedure", "openDocument", context={"document": "Notes"}) == ["openDocument"]
    opened = await fresh.structured("open_binary", {"path": interpreter})
    assert opened["kind"] == "file" and opened["previous_target"] == "synthetic:600:0"
    assert await values(fresh, "document") == [name]
    assert await values(fresh, "procedure", "openDocument", context={"document": "Notes"}) == []
    real = await values(fresh, "procedure", "", context={"document": name})
    assert real and any(not v.startswith("0x") for v in real)
    # Switching keeps the ledger (compare workflows need both versions); only close clears it.
    assert opened_before[0] in await values(fresh, "evidence")
    await fresh.structured("open_binary", {"path": "synthetic:50:3"})
    assert await values(fresh, "procedure", "", context={"document": name}) == []
    assert len(await values(fresh, "procedure", "0x", context={"document": "Notes"})) == 21


async def test_an_unparsable_document_gives_an_empty_list(fresh: LiveServer, tmp_path: Path) -> None:
    folder = tmp_path / "bundle"
    folder.mkdir()
    interpreter = os.path.realpath(sys.executable)
    shutil.copy(interpreter, folder / "tool")
    (folder / "broken.exe").write_bytes(b"MZ" + bytes(200))
    (folder / "notes.txt").write_text("not a binary")
    opened = await fresh.structured("open_binary", {"path": str(folder)})
    assert opened["kind"] == "directory"
    docs = {d["name"]: d for d in opened["documents"]}
    assert set(docs) == {"tool", "broken.exe"} and "error" in docs["broken.exe"]
    assert await values(fresh, "procedure", "", context={"document": "broken.exe"}) == []
    assert await values(fresh, "procedure", "", context={"document": "tool"}) != []
    layout = await fresh.tool("inspect_binary_layout", {"document": "broken.exe"})
    assert layout.is_error is True


async def test_inspection_acts_on_the_active_target_only(fresh: LiveServer) -> None:
    manifest = (await fresh.structured("inventory_artifact", {"limit": 1}))["manifest"]["manifest_id"]
    await fresh.structured("open_binary", {"path": "synthetic:40"})
    elsewhere = await fresh.tool("inspect_artifact", {"manifest": manifest})
    assert elsewhere.is_error is True and "Open that target first" in getattr(elsewhere.content[0], "text", "")
    await fresh.structured("open_binary", {"path": "synthetic:600"})
    assert (await fresh.structured("inspect_artifact", {"manifest": manifest}))["manifest"]["manifest_id"] == manifest


async def test_session_resource_reports_the_target(fresh: LiveServer) -> None:
    read = await fresh.client.read_resource("rea://session")
    content = read.contents[0]
    assert isinstance(content, types.TextResourceContents) and content.mime_type == "application/json"
    session = json.loads(content.text)
    assert session["target"] == "synthetic:600:0" and session["kind"] == "synthetic"
    assert [d["name"] for d in session["documents"]][:2] == ["Notes", "NotesHelper"]
    assert [p["name"] for p in session["providers"]] == [
        "auto",
        "deep-cold",
        "deep-failing",
        "deep-malformed",
    ]


async def test_opening_a_target_updates_the_prompts_and_notifies(server: LiveServer) -> None:
    before = {p.name: p.description for p in (await server.client.list_prompts()).prompts}
    if server.mode == "legacy":
        server.notifications.clear()
        await server.structured("open_binary", {"path": "synthetic:77"})
        assert any(isinstance(n, types.PromptListChangedNotification) for n in server.notifications)
    else:
        async with server.client.listen(prompts_list_changed=True) as subscription:
            await server.structured("open_binary", {"path": "synthetic:77"})
            event = await asyncio.wait_for(anext(aiter(subscription)), 10)
            assert isinstance(event, PromptsListChanged)
    after = {p.name: p.description for p in (await server.client.list_prompts()).prompts}
    assert "77 procedures" in str(after["investigate_feature"]) and before != after
    await server.structured("open_binary", {"path": "synthetic:600"})


async def test_identifiers_are_never_handed_out_twice(fresh: LiveServer) -> None:
    """Closing clears the ledger, unknowns and manifests, but their counters keep going."""
    before = {
        "evidence": (await fresh.structured("list_documents"))["evidence_id"],
        "unknown": (await fresh.structured("record_unknown", {"question": "q"}))["unknown"]["unknown_id"],
        "manifest": (await fresh.structured("inventory_artifact", {"limit": 1}))["manifest"]["manifest_id"],
    }
    await fresh.structured("close_binary")
    reopened = await fresh.structured("open_binary", {"path": "synthetic:600"})
    after = {
        "evidence": reopened["evidence_id"],
        "unknown": (await fresh.structured("record_unknown", {"question": "q"}))["unknown"]["unknown_id"],
        "manifest": (await fresh.structured("inventory_artifact", {"limit": 1}))["manifest"]["manifest_id"],
    }
    for kind, old in before.items():
        assert number(after[kind]) > number(old), kind
    # The old IDs are gone, not re-pointed at new results.
    assert before["evidence"] not in await values(fresh, "evidence")
    stale = await fresh.tool("inspect_artifact", {"manifest": before["manifest"]})
    assert stale.structured_content is not None and stale.structured_content["reason"] == "not_found"
