"""One ledger ID scheme: the server's IDs, host IDs (H1, H2...) for results without one, none for questions.

Also: transcripts written before host IDs (E-numbers) load, keep their IDs and anchors, and a report
reads notes first, then the evidence in the order the notes cite it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rea_tui.host.evidence.evidence import EvidenceEntry, EvidenceLedger
from rea_tui.host.evidence.notes import Notebook, citations_in
from rea_tui.host.features.tool_call import fill_result
from rea_tui.host.records.replay_plan import entry_from_record, plan_replay
from rea_tui.host.records.report import render_markdown
from rea_tui.host.records.transcript import SessionRecorder, TranscriptWriter, read_transcript

QUESTION = {
    "reason": "ambiguous",
    "ask_user": "Which document?",
    "candidates": [{"id": 1, "name": "Notes"}, {"id": 2, "name": "NotesHelper"}],
    "scoped_by": {"procedure": "openDocument"},
}


def finish(ledger: EvidenceLedger, structured: dict[str, Any] | None, *, follows: str | None = None) -> EvidenceEntry:
    """One call through the ledger, its result filled the way a real call fills it."""
    entry = ledger.open("rea", "inspect_procedure", {"procedure": "openDocument"}, "approved once", follows=follows)
    assert (entry.ref, entry.label) == ("", "…")  # no ID while it runs
    result: dict[str, Any] = {"content": [{"type": "text", "text": json.dumps(structured)}]}
    if structured is not None:
        result["structuredContent"] = structured
    fill_result(entry, None, result)
    ledger.changed(entry)
    return entry


def test_questions_take_no_id_and_results_without_one_take_host_ids() -> None:
    ledger = EvidenceLedger()
    question = finish(ledger, QUESTION)
    server = finish(ledger, {"evidence_id": "E-0008", "document": "Notes"}, follows=question.id)
    plain = finish(ledger, None)
    again = finish(ledger, {"evidence_id": "E-0009"})
    other = finish(ledger, {"no": "id"})
    assert [e.id for e in ledger.entries] == ["E1", "E2", "E3", "E4", "E5"]  # the keys: never shown
    assert [e.ref for e in ledger.entries] == ["", "E-0008", "H1", "E-0009", "H2"]
    assert [e.label for e in ledger.entries] == ["question", "E-0008", "H1", "E-0009", "H2"]
    assert ledger.refs() == ["E-0008", "H1", "E-0009", "H2"]
    assert ledger.find("") is None and ledger.find("question") is None
    assert (ledger.find("H1"), ledger.find("E-0009")) == (plain, again)
    assert other.ref == "H2" and server.follows == "E1"
    # A restarted server numbers again from the start: the repeated ID gets a host ID, not the earlier entry's.
    assert finish(ledger, {"evidence_id": "E-0008"}).ref == "H3"


def test_a_server_id_shaped_like_a_host_id_keeps_the_two_apart() -> None:
    ledger = EvidenceLedger()
    finish(ledger, None)
    assert finish(ledger, {"evidence_id": "H1"}).ref == "H2"  # H1 is taken: the server's H1 is not that entry
    assert finish(ledger, {"evidence_id": "H5"}).ref == "H5"
    assert finish(ledger, None).ref == "H6"


def test_notes_cite_host_ids() -> None:
    assert citations_in("seen in H2 and E-0004, rea:E-0005, old E3; not H2O nor XH1") == [
        "H2",
        "E-0004",
        "rea:E-0005",
        "E3",
    ]
    notebook = Notebook()
    note = notebook.add("observation", "the string is in .rodata (H1)", known_ids=["H1", "E-0004"])
    assert note.cites == ["H1"]


def old_transcript(tmp_path: Path) -> Path:
    """Written before host IDs: a narrowing question and a result without an ID numbered E-something."""
    path = tmp_path / "old.jsonl"
    call = {"server": "rea", "tool": "inspect_procedure", "approval": "approved once", "outcome": "ok"}
    events = [
        {"type": "session", "time": 1.0, "version": "0.1"},
        {**call, "type": "tool_call", "id": "E1", "ref": "E1", "arguments": {}, "structuredContent": QUESTION,
         "narrowing": {**QUESTION, "round": 1}},
        {**call, "type": "tool_call", "id": "E2", "ref": "E-0009", "arguments": {"document": "Notes"},
         "structuredContent": {"evidence_id": "E-0009"}, "follows": "E1"},
        # Older still: no `ref` at all (the key was the ID).
        {**call, "type": "tool_call", "id": "E3", "arguments": {}, "content": [{"type": "text", "text": "plain"}]},
        {"type": "note", "number": 1, "kind": "observation", "text": "both E3 and E-0009", "cites": ["E3", "E-0009"]},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


def test_a_transcript_with_e_numbers_still_loads(tmp_path: Path) -> None:
    transcript = read_transcript(old_transcript(tmp_path))
    plan = plan_replay(transcript)
    assert [c.ref for c in plan.calls] == ["E1", "E-0009", "E3"]
    ledger = EvidenceLedger()
    for record in transcript.of_type("tool_call"):
        ledger.restore(entry_from_record(record))
    # Each keeps the ID it was cited by; the first host ID after them is still H1.
    assert ledger.refs() == ["E1", "E-0009", "E3"]
    assert finish(ledger, None).ref == "H1"
    report = render_markdown(transcript)
    assert "both E3 and E-0009 ([E3](#evidence-e3), [E-0009](#evidence-e-0009))" in report
    for anchor in ("evidence-e1", "evidence-e-0009", "evidence-e3"):
        assert report.count(f'<a id="{anchor}"></a>') == 1, anchor


def test_the_report_reads_notes_first_then_evidence_in_the_order_cited(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    recorder = SessionRecorder(TranscriptWriter(path))
    recorder.prompt_selected("rea", "investigate_feature")
    ledger = EvidenceLedger()
    ledger.subscribe(lambda e: recorder.tool_call(e) if e.finished else None)
    uncited = finish(ledger, {"evidence_id": "E-0001", "first": True})
    question = finish(ledger, QUESTION)
    answer = finish(ledger, {"evidence_id": "E-0002"}, follows=question.id)
    host = finish(ledger, None)
    notebook = Notebook()
    notebook.subscribe(lambda change: recorder.note(change.note))
    notebook.add("inference", "so it opens Notes (E-0002)", known_ids=ledger.refs())
    notebook.add("observation", "the plain result says so (H1)", known_ids=ledger.refs())
    recorder.close()
    report = render_markdown(read_transcript(path))

    headings = [line for line in report.splitlines() if line.startswith("## ")]
    assert headings[:5] == ["## The question", "## Observations", "## Inferences", "## Unknowns", "## Evidence"]
    # Observations are read first, so H1 (cited there) leads; the question comes right before its answer.
    sections = [line for line in report.splitlines() if line.startswith("### ")]
    assert sections == [
        "### H1: inspect_procedure (ok)",
        "### question: inspect_procedure (ok)",
        "### E-0002: inspect_procedure (ok)",
        "### E-0001: inspect_procedure (ok)",
    ]
    table = report.split("| ID | tool | outcome |")[1].split("\n\n")[0]
    assert [row.split("](")[0] for row in table.splitlines()[2:]] == ["| [H1", "| [question", "| [E-0002", "| [E-0001"]
    # Every link goes to an anchor that exists, named after the ID shown.
    assert "the plain result says so (H1) ([H1](#evidence-h1))" in report
    assert f"answers [the server's question (inspect_procedure)](#question-{question.id.lower()})" in report
    for target in ("evidence-h1", "evidence-e-0002", "evidence-e-0001", "question-e2"):
        assert f'<a id="{target}"></a>' in report and f"(#{target})" in report
    assert (uncited.ref, answer.ref, host.ref) == ("E-0001", "E-0002", "H1")
