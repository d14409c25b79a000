"""Catalogs, workflows and tool calls against real servers, including hostile and broken ones."""

from __future__ import annotations

import asyncio
import json

from rea_tui.host.evidence.evidence import EvidenceLedger
from rea_tui.host.features.catalog import ServerCatalogs
from rea_tui.host.features.tool_call import run_tool_call
from rea_tui.host.features.workflow import find_steps, render_prompt
from rea_tui.host.protocol.connection import Connection
from rea_tui.host.protocol.models import EmbeddedResourceBlock, MediaBlock, ResourceLinkBlock, TextBlock, Tool
from rea_tui.host.trust.safe_text import sanitize
from tests.conftest import raw_spec, sample_spec


async def test_catalogs_and_workflow_with_every_block_kind() -> None:
    connection = Connection(sample_spec("auto"))
    await connection.start()
    try:
        catalogs = ServerCatalogs(connection)
        await catalogs.refresh_all()
        investigate = catalogs.prompts.get("investigate")
        assert investigate is not None
        assert [(a.name, a.required) for a in investigate.arguments] == [
            ("feature", True),
            ("document", False),
            ("procedure", False),
        ]
        assert catalogs.tools.get("echo") is not None and catalogs.tools.get("echo").read_only  # type: ignore[union-attr]
        assert [t.variables for t in catalogs.templates.items] == [("document", "procedure")]
        workflow = await render_prompt(
            connection, "investigate", {"feature": "search", "document": ""}, catalogs.tools.items
        )
        assert workflow.arguments == {"feature": "search"}
        kinds = [type(b) for m in workflow.messages for b in m.blocks]
        assert kinds == [TextBlock, TextBlock, ResourceLinkBlock, EmbeddedResourceBlock, MediaBlock]
        assert [s.tool for s in workflow.steps] == ["list_documents", "echo", "structured_info"]
        media = workflow.messages[-1].blocks[0]
        assert isinstance(media, MediaBlock) and media.mime_type == "image/png" and media.size_bytes == 8
    finally:
        await connection.close()


def test_steps_match_whole_tool_names_in_order_of_first_occurrence() -> None:
    tools = [Tool(name="open"), Tool(name="open_binary"), Tool(name="list"), Tool(name="doctor")]
    steps = find_steps("Run open_binary, then doctor. Later open_binary again; listing is not list_x.", tools)
    assert [s.tool for s in steps] == ["open_binary", "doctor"]


async def test_hostile_server_strings_survive_as_plain_text() -> None:
    connection = Connection(raw_spec("hostile"))
    await connection.start()
    try:
        catalogs = ServerCatalogs(connection)
        await catalogs.refresh_all()
        # The two malformed prompt entries are skipped and counted, not fatal.
        assert len(catalogs.prompts.items) == 1 and catalogs.prompts.skipped == 2
        prompt = catalogs.prompts.items[0]
        # Made safe where it entered the host: the model's text can be shown as it is.
        shown = prompt.name + prompt.description
        assert "\x1b" not in shown and "\x07" not in shown
        assert "[red]x[/red]" in shown
        assert sanitize(prompt.name) == prompt.name
        assert "\x1b" in prompt.wire  # the name as sent, kept intact to send back to the server
        workflow = await render_prompt(connection, prompt, {"thing": "a"}, catalogs.tools.items)
        assert [s.tool for s in workflow.steps] == ["probe"]
        sent = connection.traffic.requests_sent("prompts/get")[-1]
        assert json.loads(sent.payload)["params"]["name"] == prompt.wire
    finally:
        await connection.close()


async def test_huge_payloads_arrive_whole() -> None:
    connection = Connection(raw_spec("huge"))
    await connection.start()
    try:
        result = await connection.request("prompts/get", {"name": "odd", "arguments": {"thing": "a"}})
        assert len(result["messages"][0]["content"]["text"]) == 5_000_000
        entry = next(e for e in connection.traffic.entries() if e.method == "prompts/get" and e.direction == "in")
        assert entry.size > 5_000_000 and len(entry.payload) < 300_000  # stored bounded
    finally:
        await connection.close()


async def test_tool_calls_become_evidence_with_schema_checks_and_progress() -> None:
    connection = Connection(sample_spec("auto"))
    await connection.start()
    try:
        catalogs = ServerCatalogs(connection)
        await catalogs.refresh_all()
        ledger = EvidenceLedger()
        ok = await run_tool_call(
            connection,
            ledger,
            "structured_info",
            {"name": "abc"},
            tool=catalogs.tools.get("structured_info"),
            approval="test",
        )
        assert (ok.id, ok.outcome, ok.structured) == ("E1", "ok", {"name": "abc", "size": 3})
        assert ok.schema_check == "valid against the output schema"
        # The declared schema is checked by us, not trusted: a tool claiming a schema it breaks is flagged.
        lying = Tool(name="structured_info", output_schema={"type": "object", "required": ["missing"]})
        bad = await run_tool_call(connection, ledger, "structured_info", {}, tool=lying, approval="test")
        assert bad.schema_check.startswith("invalid:") and "missing" in bad.schema_check
        slow = await run_tool_call(
            connection,
            ledger,
            "slow_task",
            {"seconds": 0.2, "steps": 2},
            tool=catalogs.tools.get("slow_task"),
            approval="test",
        )
        assert slow.progress is not None and slow.progress.fraction == 1.0
        timed = await run_tool_call(
            connection, ledger, "slow_task", {"seconds": 5}, tool=None, approval="test", timeout=0.3
        )
        assert timed.outcome == "timed_out"
        task = asyncio.create_task(
            run_tool_call(connection, ledger, "slow_task", {"seconds": 5}, tool=None, approval="test")
        )
        await asyncio.sleep(0.3)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        assert ledger.entries[-1].outcome == "cancelled"
        error = await run_tool_call(connection, ledger, "no_such_tool", {}, tool=None, approval="test")
        assert error.outcome in ("tool_error", "protocol_error")
        crashed = await run_tool_call(connection, ledger, "crash", {"code": 9}, tool=None, approval="test")
        assert crashed.outcome == "server_exited" and crashed.exit_code == 9 and "code 9" in crashed.stderr_tail
        assert ledger.ids() == ["E1", "E2", "E3", "E4", "E5", "E6", "E7"]
        assert [e.id for e in ledger.search("timed out")] == ["E4"]
    finally:
        await connection.close()
