"""Record a session through the real app, export it, replay it online and offline, survive a kill."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from rea_tui.host.config.config import ServerSpec
from rea_tui.host.records.replay_plan import plan_replay
from rea_tui.host.records.report import render_markdown
from rea_tui.host.records.transcript import read_transcript
from rea_tui.ui.app import ReaApp
from rea_tui.ui.messages import NodeRef, StepChosen
from rea_tui.ui.widgets.argument_form import ArgumentForm
from rea_tui.ui.widgets.sidebar import ServerTree
from rea_tui.ui.widgets.workflow_view import WorkflowView
from tests.conftest import REPO
from tests.support.pilot import make_app, ready, screen_text, wait_for

SIZE = (160, 48)


def reference(seed: int = 0) -> ServerSpec:
    return ServerSpec(
        name="rea",
        transport="stdio",
        command=sys.executable,
        args=("-m", "rea_tui.server", "--synthetic", "2000", "--seed", str(seed)),
    )


async def on_screen(pilot, app: ReaApp, name: str) -> None:  # type: ignore[no-untyped-def]
    """Wait until the screen called `name` is on top and composed."""
    await wait_for(pilot, lambda: type(app.screen).__name__ == name and app.screen.is_mounted, what=name)
    await pilot.pause()


async def approve_current(pilot, app: ReaApp) -> None:  # type: ignore[no-untyped-def]
    await on_screen(pilot, app, "ApprovalScreen")
    await pilot.click("#run-once")


async def run_tool(pilot, app: ReaApp, tool: str, count: int) -> None:  # type: ignore[no-untyped-def]
    app.main.calls.open("rea", tool)
    await on_screen(pilot, app, "ToolFormScreen")
    await pilot.click("#review")
    await approve_current(pilot, app)
    await wait_for(
        pilot, lambda: len(app.session.ledger.entries) == count and app.session.ledger.entries[-1].finished, what=tool
    )


async def record_session(path: Path) -> None:
    """An analyst's session: a prompt, a narrowing conversation, a denied call, an elicitation, notes."""
    app = make_app([reference()], transcript=path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        app.main.query_one(ServerTree).select_ref(NodeRef("prompt", "rea", "investigate_feature"))
        form = app.main.query_one(ArgumentForm)
        await wait_for(pilot, lambda: form.target is not None, what="form")
        await pilot.pause(0.1)
        form.field("feature").input.value = "open a document"  # type: ignore[union-attr]
        form.field("procedure").input.value = "openDocument"  # type: ignore[union-attr]
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: app.main.query_one(WorkflowView).workflow is not None, what="workflow")
        # Round 1 asks which document; the picker opens; choosing reopens the form with it pinned.
        await run_tool(pilot, app, "inspect_procedure", 1)
        await on_screen(pilot, app, "NarrowingScreen")
        await pilot.click("#choose")
        await on_screen(pilot, app, "ToolFormScreen")
        await pilot.click("#review")
        await approve_current(pilot, app)
        await wait_for(pilot, lambda: len(app.session.ledger.entries) == 2 and app.session.ledger.entries[-1].finished)
        # A denied call: nothing is sent, the denial is recorded.
        app.main.calls.open("rea", "list_documents")
        await on_screen(pilot, app, "ToolFormScreen")
        await pilot.click("#review")
        await on_screen(pilot, app, "ApprovalScreen")
        await pilot.click("#deny")
        # An elicitation answered in the form.
        app.main.calls.open("rea", "run_process_capture")
        await on_screen(pilot, app, "ToolFormScreen")
        await pilot.click("#review")
        await approve_current(pilot, app)
        await on_screen(pilot, app, "ElicitationScreen")
        await pilot.click("#accept")
        await wait_for(pilot, lambda: len(app.session.ledger.entries) == 3 and app.session.ledger.entries[-1].finished)
        # Notes cite the IDs the ledger shows: the server's for its evidence.
        inspected, captured = app.session.ledger.entries[1].ref, app.session.ledger.entries[2].ref
        app.session.notebook.add(
            "observation",
            f"openDocument resolves to one address in Notes ({inspected})",
            known_ids=app.session.ledger.refs(),
        )
        app.session.notebook.add("inference", "the capture ran the simulated target", [captured])
        app.session.notebook.add("unknown", "what the helper copies do")
        await pilot.press("ctrl+q")


async def test_record_export_and_replay(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    await record_session(path)
    transcript = read_transcript(path)
    kinds = [e["type"] for e in transcript.events]
    for kind in (
        "session",
        "server",
        "prompt_selected",
        "workflow",
        "approval",
        "tool_call",
        "narrowing_answer",
        "elicitation",
        "note",
        "session_end",
    ):
        assert kind in kinds, kind
    assert kinds.index("workflow") < kinds.index("tool_call") < kinds.index("narrowing_answer")
    decisions = [(e["tool"], e["decision"]) for e in transcript.of_type("approval")]
    assert ("list_documents", "deny") in decisions
    assert [e["id"] for e in transcript.of_type("tool_call")] == ["E1", "E2", "E3"]
    # The narrowing question is not evidence: it has no ID; the results keep the server's IDs.
    assert [e["ref"] for e in transcript.of_type("tool_call")] == ["", "E-0001", "E-0002"]
    assert [e["cites"] for e in transcript.of_type("note")] == [["E-0001"], ["E-0002"], []]
    answer = transcript.first("narrowing_answer")
    assert answer is not None and answer["argument"] == "document"
    elicitation = transcript.first("elicitation")
    assert elicitation is not None and elicitation["action"] == "accept"

    # Export through the CLI: the report an analyst would send.
    result = subprocess.run(
        [sys.executable, "-m", "rea_tui", "export", str(path)], capture_output=True, text=True, cwd=REPO, timeout=60
    )
    assert result.returncode == 0, result.stderr
    report = result.stdout
    assert "Prompt `investigate_feature` on rea" in report
    assert "- `feature`: open a document" in report
    assert "| [E-0001](#evidence-e-0001) | inspect_procedure | ok |" in report
    assert "| [question](#question-e1) | inspect_procedure | ok |" in report
    assert "### E-0001: inspect_procedure (ok)" in report
    assert "The analyst chose `Notes` for `document`." in report
    assert "The server asked the analyst: " in report.split("### E-0002: run_process_capture")[1]
    assert "`list_documents`" in report.split("Calls the analyst denied")[1]
    assert "openDocument resolves to one address in Notes (E-0001) ([E-0001](#evidence-e-0001))" in report
    assert '<a id="evidence-e-0001"></a>' in report and "answers [the server's question (inspect_procedure)]" in report
    as_json = subprocess.run(
        [sys.executable, "-m", "rea_tui", "export", str(path), "--format", "json", "-o", str(tmp_path / "r.json")],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert as_json.returncode == 0
    assert [e["id"] for e in json.loads((tmp_path / "r.json").read_text())["evidence"]] == ["E1", "E2", "E3"]

    # Offline: the recorded session, read-only, with no server at all.
    offline = make_app([], replay=plan_replay(transcript), offline=True)
    async with offline.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot,
            lambda: len(offline.session.ledger.entries) == 3 and len(offline.session.notebook.notes) == 3,
            what="restore",
        )
        await pilot.pause(0.2)
        assert offline.session.ledger.ids() == ["E1", "E2", "E3"]
        assert offline.session.ledger.refs() == ["E-0001", "E-0002"]
        assert [e.label for e in offline.session.ledger.entries] == ["question", "E-0001", "E-0002"]
        assert [n.cites for n in offline.session.notebook.notes] == [["E-0001"], ["E-0002"], []]
        assert offline.session.ledger.entries[0].narrowing is not None
        assert offline.main.query_one(WorkflowView).workflow is not None
        assert offline.session.names == []
        # The header is set once the workflow is shown, after the entries are restored.
        await wait_for(pilot, lambda: "replay (offline, read-only)" in screen_text(offline), "the replay header")
        assert offline.session.recorder.path is None
        # Keys that would need a server are not offered; the notes are shown, and nothing takes a new one.
        await pilot.pause(0.2)
        footer = next(line for line in screen_text(offline).splitlines() if "Quit" in line)
        for hidden in ("Render", "Reconnect", "Log", "Completions"):
            assert hidden not in footer, hidden
        assert "Notes" in footer and "Report" in footer
        await pilot.press("ctrl+n")
        await on_screen(pilot, offline, "NotesScreen")
        assert not offline.screen.query("#note-text") and not offline.screen.query("#note-add")
        assert "Read-only" in screen_text(offline)
        await pilot.press("delete")
        assert len(offline.session.notebook.notes) == 3
        await pilot.press("escape")
        # A recorded step does not open a tool form: nothing would run it.
        offline.main.query_one(WorkflowView).post_message(StepChosen("rea", "inspect_procedure"))
        await pilot.pause(0.2)
        assert type(offline.screen).__name__ == "MainScreen"

    # Online against a server whose data changed (another seed): every call stops at its approval,
    # and where the new result differs, the entry says how.
    online = make_app([reference(seed=1)], replay=plan_replay(transcript), transcript=tmp_path / "replayed.jsonl")
    async with online.run_test(size=SIZE) as pilot:
        await ready(pilot, online)
        for count in (1, 2, 3):
            await approve_current(pilot, online)
            if count == 3:
                await on_screen(pilot, online, "ElicitationScreen")
                await pilot.click("#accept")  # prefilled with the recorded answer
            await wait_for(
                pilot,
                lambda c=count: len(online.session.ledger.entries) == c and online.session.ledger.entries[-1].finished,
            )
        entries = online.session.ledger.entries
        assert [e.replay_of for e in entries] == ["question", "E-0001", "E-0002"]
        assert [e.arguments for e in entries] == [c.arguments for c in plan_replay(transcript).calls]
        assert any(e.replay_diff for e in entries)
        assert all(e.replay_diff is None or e.replay_diff.startswith("recorded ") for e in entries)
        await wait_for(pilot, lambda: len(online.session.notebook.notes) == 3, what="recorded notes")
        assert online.session.notebook.notes[0].cites == [entries[1].ref]
        matched = sum(1 for e in entries if e.replay_diff is None)
        await pilot.press("ctrl+q")

    # The replay's own report says it is one, and whether each result matched the recording.
    replayed = render_markdown(read_transcript(tmp_path / "replayed.jsonl"))
    assert (
        f"This session replayed the recorded session `session.jsonl`: {matched} of 3 results replayed matched"
        in replayed
    )
    sections = replayed.split("\n### ")[1:]
    assert len(sections) == 3
    for section in sections:
        assert ("Replay: the same result as recorded " in section) != ("Replay: differs from the recorded " in section)
    assert replayed.count("Replay: differs from the recorded ") == 3 - matched


def test_a_killed_session_keeps_every_event_written(tmp_path: Path) -> None:
    path = tmp_path / "killed.jsonl"
    script = f"""
import asyncio, os, signal, sys
from pathlib import Path
from tests.support.pilot import make_app
from rea_tui.host.config.config import ServerSpec
spec = ServerSpec(name="rea", transport="stdio", command=sys.executable,
                  args=("-m", "rea_tui.server", "--synthetic", "300"))
async def main():
    app = make_app([spec], transcript=Path({str(path)!r}))
    async with app.run_test() as pilot:
        while app.session.state("rea").status != "ready":
            await pilot.pause(0.05)
        app.session.notebook.add("observation", "written before the kill")
        app.session.notebook.add("unknown", "also written")
        print("ready", flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
asyncio.run(main())
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert result.returncode == -signal.SIGKILL and "ready" in result.stdout
    transcript = read_transcript(path)
    assert [e["type"] for e in transcript.events] == ["session", "server", "note", "note"]
    assert transcript.events[-1]["text"] == "also written"
    assert not transcript.truncated
    assert os.path.getsize(path) > 0


async def test_a_session_in_which_nothing_happens_leaves_no_transcript(tmp_path: Path) -> None:
    """Connecting is not enough; choosing a prompt is: the transcript then starts, with the connection in it."""
    quiet = tmp_path / "quiet.jsonl"
    app = make_app([reference()], transcript=quiet)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press("ctrl+q")
    assert not quiet.exists()

    busy = tmp_path / "busy.jsonl"
    app = make_app([reference()], transcript=busy)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        assert not busy.exists()
        app.main.query_one(ServerTree).select_ref(NodeRef("prompt", "rea", "investigate_feature"))
        await wait_for(pilot, busy.exists, what="the transcript")
        await pilot.press("ctrl+q")
    assert [e["type"] for e in read_transcript(busy).events] == ["session", "server", "prompt_selected", "session_end"]
