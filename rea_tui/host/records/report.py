"""An investigation report from a transcript: Markdown for a colleague, or JSON.

Written for its reader: first what was asked (prompt and arguments) and what
the analyst found (observations, inferences and unknowns kept apart, each
citing its evidence), then the evidence in the order the notes cite it (what
no note cites after), under the IDs the analyst saw, each result once (a
listing or a table when its shape is known, with the raw JSON collapsed under
it; the JSON itself otherwise), with the questions the server asked during a
call and how they were answered; last the workflow the server proposed. A
replay's report says so, and whether each result matched the recording.
Server text is escaped where Markdown would read it, so it cannot become a
heading, a link or HTML.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from rea_tui.host.evidence.evidence import recorded_label, recorded_ref
from rea_tui.host.evidence.evidence_views import DisassemblyListing, ResultView, result_views
from rea_tui.host.evidence.notes import NOTE_KINDS
from rea_tui.host.records.transcript import Transcript
from rea_tui.host.trust.markdown_text import (
    TEXT_EXCERPT,
    md_cell,
    md_code,
    md_details,
    md_inline,
    md_json,
    md_span,
    md_table,
    md_text,
)

__all__ = ["md_code", "md_text", "render_json", "render_markdown", "report_data"]

NOTE_TITLES = {"observation": "Observations", "inference": "Inferences", "unknown": "Unknowns"}
# Narrowing candidates listed per question (the resolver contract caps them at 25).
CANDIDATE_LIMIT = 25
# Arguments shown inline when every value is a short scalar; otherwise as a JSON block.
INLINE_ARGUMENT_LIMIT = 120


def ref_of(entry: dict[str, Any]) -> str:
    """What the analyst saw for an entry: its ID (transcripts before references: the key), or `question`."""
    return recorded_label(entry)


def anchor(label: str, *, question: bool = False) -> str:
    """The HTML id of an entry's section, from the ID shown (`E-0009` -> `evidence-e-0009`)."""
    slug = re.sub(r"[^a-z0-9]+", "-", label.casefold()).strip("-") or "entry"
    return f"{'question' if question else 'evidence'}-{slug}"


def anchors_of(evidence: list[dict[str, Any]]) -> dict[str, str]:
    """Entry key -> the anchor of its section: from the ID shown, the key for a question (which has no ID)."""
    anchors: dict[str, str] = {}
    taken: set[str] = set()
    for entry in evidence:
        ref = recorded_ref(entry)
        base = anchor(ref) if ref else anchor(str(entry.get("id", "?")), question=True)
        # A transcript is not trusted to keep its IDs apart (nor do two IDs always make two slugs).
        candidate, number = base, 2
        while candidate in taken:
            candidate, number = f"{base}-{number}", number + 1
        taken.add(candidate)
        anchors[str(entry.get("id"))] = candidate
    return anchors


def reading_order(evidence: list[dict[str, Any]], notes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The evidence in the order the notes cite it, then what no note cites (in the order it was taken).

    An entry that answers a server's question comes right after the question (the chain in its order).
    """
    by_ref = {recorded_ref(e): e for e in evidence if recorded_ref(e)}
    by_key = {str(e.get("id")): e for e in evidence}
    cited = [by_ref[str(c)] for note in notes for c in note.get("cites") or [] if str(c) in by_ref]
    order: list[dict[str, Any]] = []
    placed: set[int] = set()
    for entry in [*cited, *evidence]:
        chain = [entry]
        while (before := by_key.get(str(chain[0].get("follows")))) is not None and id(before) not in placed:
            if any(before is link for link in chain):
                break  # a transcript whose entries follow each other in a circle
            chain.insert(0, before)
        for link in chain:
            if id(link) not in placed:
                placed.add(id(link))
                order.append(link)
    return order


def report_data(transcript: Transcript) -> dict[str, Any]:
    """The report's content, independent of the output format."""
    notes: dict[int, dict[str, Any]] = {}
    for event in transcript.events:
        if event.get("type") == "note" and isinstance(event.get("number"), int):
            notes[event["number"]] = event
        elif event.get("type") == "note_removed":
            notes.pop(event.get("number", -1), None)
    replays = transcript.of_type("replay")
    return {
        "transcript": str(transcript.path),
        "started": transcript.started,
        "truncated": transcript.truncated,
        "replayOf": replays[0].get("recording") if replays else None,
        "replayResults": transcript.of_type("replay_result"),
        "servers": transcript.of_type("server"),
        "workflows": transcript.of_type("workflow"),
        "approvals": transcript.of_type("approval"),
        "evidence": transcript.of_type("tool_call"),
        "narrowing": transcript.of_type("narrowing_answer"),
        "elicitations": transcript.of_type("elicitation"),
        "notes": {kind: [n for n in notes.values() if n.get("kind") == kind] for kind in NOTE_KINDS},
    }


def render_json(transcript: Transcript) -> str:
    return json.dumps(report_data(transcript), indent=2, ensure_ascii=False, default=str)


# ---------------------------------------------------------------- one evidence entry


def _arguments(arguments: Any) -> list[str]:
    if not isinstance(arguments, dict) or not arguments:
        return ["Arguments: none.", ""]
    scalar = all(isinstance(v, str | int | float | bool) or v is None for v in arguments.values())
    if scalar and len(json.dumps(arguments, default=str)) <= INLINE_ARGUMENT_LIMIT:
        pairs = ", ".join(
            f"{md_span(k, 100)} = {md_span(json.dumps(v, ensure_ascii=False), 200)}" for k, v in arguments.items()
        )
        return [f"Arguments: {pairs}.", ""]
    return ["Arguments:", "", md_json(arguments), ""]


def _view(view: ResultView) -> list[str]:
    lines = [f"**{md_inline(view.title, 300)}**" + (f" ({md_inline(view.note, 300)})" if view.note else ""), ""]
    if isinstance(view, DisassemblyListing):
        rows = []
        for insn in view.instructions:
            row = f"{insn.address:<12} {insn.hex_bytes:<20} {insn.mnemonic:<7} {insn.operands}"
            rows.append(f"{row}  ; {insn.target}" if insn.target else row)
        lines += [md_code("\n".join(rows), "asm"), ""]
    elif view.rows:  # an empty one's title says there is nothing (`no strings containing 'x'`)
        lines += [md_table(view.columns, view.rows, view.numeric), ""]
    return lines


def _texts(entry: dict[str, Any]) -> list[str]:
    """The text blocks that say more than the structured content (REA's repeat it as JSON)."""
    structured = entry.get("structuredContent")
    texts = []
    for block in entry.get("content") or []:
        if not isinstance(block, dict) or block.get("type") != "text" or not isinstance(block.get("text"), str):
            continue
        try:
            same = "structuredContent" in entry and json.loads(block["text"]) == structured
        except ValueError:
            same = False
        if not same:
            texts.append(block["text"])
    return texts


def _readable(text: str) -> str:
    """JSON pretty-printed (a resource's contents often are), other text as it is."""
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except ValueError:
        return text


def _other_blocks(entry: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    for block in entry.get("content") or []:
        if not isinstance(block, dict) or block.get("type") in ("text", None):
            continue
        uri = block.get("uri")
        named = f" {md_span(uri, 300)}" if isinstance(uri, str) and uri else ""
        text = block.get("text")
        if isinstance(text, str):
            lines += [f"Resource{named}:", "", md_code(_readable(text)[:TEXT_EXCERPT]), ""]
        else:
            lines += [f"A {md_inline(block.get('type'), 40)} block{named} (not shown).", ""]
    return lines


def _result(entry: dict[str, Any]) -> list[str]:
    views = result_views(entry.get("structuredContent"))
    texts = _texts(entry)
    lines: list[str] = []
    for view in views:
        lines += _view(view)
    for text in texts:
        lines += [md_code(text[:TEXT_EXCERPT]), ""]
    lines += _other_blocks(entry)
    if "structuredContent" in entry:
        raw = md_json(entry["structuredContent"])
        # Known shapes read above; the JSON is kept, collapsed. Unknown ones are the JSON.
        lines += [md_details("Raw result (JSON)", raw) if views else raw, ""]
    return lines


def _narrowing(entry: dict[str, Any], answers: list[dict[str, Any]]) -> list[str]:
    narrowing = entry.get("narrowing")
    if not isinstance(narrowing, dict):
        return []
    reason, round_number = md_inline(narrowing.get("reason", ""), 40), md_inline(narrowing.get("round", "?"), 10)
    lines = [
        f"The server asked ({reason}, round {round_number}): {md_text(narrowing.get('ask_user', ''), 1_000)}",
        "",
    ]
    # The reply's own candidates say more (document, address) than the recorded question keeps.
    structured = entry.get("structuredContent")
    listed = structured.get("candidates") if isinstance(structured, dict) else None
    if not isinstance(listed, list):
        listed = narrowing.get("candidates") or []
    candidates = [c for c in listed if isinstance(c, dict)][:CANDIDATE_LIMIT]
    if candidates:
        extra = sorted({str(k) for c in candidates for k in c if k not in ("id", "name")})
        columns = ["name", "id", *(md_cell(k, 40) for k in extra)]
        lines += [md_table(columns, [[c.get("name"), c.get("id"), *(c.get(k) for k in extra)] for c in candidates]), ""]
    for answer in answers:
        lines += [
            f"The analyst chose {md_span(answer.get('candidate'), 200)} for {md_span(answer.get('argument'), 100)}.",
            "",
        ]
    return lines


def _elicitation(event: dict[str, Any]) -> list[str]:
    lines = [f"The server asked the analyst: {md_text(event.get('message', ''), 1_000)}"]
    if event.get("url"):
        lines[0] += f" (open {md_span(event['url'], 500)})"
    action = str(event.get("action", "?"))
    content = event.get("content")
    if action == "accept" and isinstance(content, dict) and content:
        answers = ", ".join(
            f"{md_span(k, 100)} = {md_span(json.dumps(v, ensure_ascii=False), 300)}" for k, v in content.items()
        )
        lines.append(f"The analyst accepted: {answers}.")
    else:
        lines.append(f"The analyst's answer: {md_inline(action, 40)}.")
    return ["  \n".join(lines), ""]


def _replay_result(result: dict[str, Any] | None) -> list[str]:
    if result is None:
        return []
    recorded = md_inline(result.get("recorded", "?"), 60)
    if result.get("matches") is True:
        return [f"Replay: the same result as recorded {recorded}.", ""]
    return [f"Replay: differs from the recorded {recorded}:", "", md_code(str(result.get("diff") or "")), ""]


def _entry_section(entry: dict[str, Any], context: _Context) -> list[str]:
    key = str(entry.get("id", "?"))
    ref = ref_of(entry)
    facts = [
        f"Server {md_inline(entry.get('server', ''), 200)}",
        f"approval: {md_inline(entry.get('approval', ''), 100)}",
    ]
    if isinstance(entry.get("durationMs"), int | float):
        facts.append(f"{entry['durationMs']:,.0f} ms")
    follows = str(entry.get("follows") or "")
    if follows:
        followed = context.labels.get(follows, "an entry not in this transcript")
        target = context.anchors.get(follows)
        shown = md_inline(followed, 200)
        facts.append(f"answers [{shown}](#{target})" if target else f"answers {shown}")
    lines = [
        f'<a id="{context.anchors.get(key, anchor(key))}"></a>',
        f"### {md_inline(ref, 60)}: {md_inline(entry.get('tool', '?'), 200)} "
        f"({md_inline(entry.get('outcome', '?'), 40)})",
        "",
        "; ".join(facts),
        "",
        *_replay_result(context.replayed.get(key)),
        *_arguments(entry.get("arguments")),
    ]
    for question in context.elicitations.get(key, []):
        lines += _elicitation(question)
    lines += _narrowing(entry, context.answers.get(key, []))
    error = entry.get("error")
    if isinstance(error, dict):
        lines += [f"Error: {md_text(error.get('message', ''), 2_000)}", ""]
        for problem in error.get("fields") or []:
            if isinstance(problem, dict):
                lines.append(
                    f"- {md_span(problem.get('field', ''), 200)}: {md_inline(problem.get('message', ''), 500)}"
                )
        if error.get("fields"):
            lines.append("")
    if entry.get("exitCode") is not None or entry.get("stderrTail"):
        lines += [f"The server exited (code {md_inline(entry.get('exitCode'), 20)}). Its last stderr lines:", ""]
        lines += [md_code(str(entry.get("stderrTail", ""))), ""]
    if not isinstance(entry.get("narrowing"), dict):
        lines += _result(entry)
    if entry.get("schemaCheck"):
        lines += [f"Output schema: {md_inline(entry['schemaCheck'], 300)}.", ""]
    return lines


class _Context:
    """What belongs to each entry besides its own record: the questions asked during it, the answers to it."""

    def __init__(self, data: dict[str, Any], transcript: Transcript) -> None:
        evidence = data["evidence"]
        self.anchors = anchors_of(evidence)
        # What an entry that answers a question names it by: the question, with its round.
        self.labels = {
            str(e.get("id")): recorded_ref(e) or f"the server's question ({e.get('tool', '?')})" for e in evidence
        }
        self.replayed = {str(r.get("entry")): r for r in data["replayResults"]}
        self.answers: dict[str, list[dict[str, Any]]] = {}
        for answer in data["narrowing"]:
            self.answers.setdefault(str(answer.get("entry")), []).append(answer)
        # An elicitation is answered during a call and recorded before it: it belongs to that server's next call.
        self.elicitations: dict[str, list[dict[str, Any]]] = {}
        self.unattached: list[dict[str, Any]] = []
        pending: dict[str, list[dict[str, Any]]] = {}
        for event in transcript.events:
            if event.get("type") == "elicitation":
                pending.setdefault(str(event.get("server", "")), []).append(event)
            elif event.get("type") == "tool_call":
                asked = pending.pop(str(event.get("server", "")), [])
                if asked:
                    self.elicitations.setdefault(str(event.get("id")), []).extend(asked)
        for asked in pending.values():
            self.unattached.extend(asked)


# ---------------------------------------------------------------- the report


def _header(data: dict[str, Any], transcript: Transcript) -> list[str]:
    started = data["started"]
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(started)) if started else "unknown time"
    lines = ["# Investigation report", "", f"Session of {when}, from {md_span(transcript.path.name, 200)}."]
    if data["truncated"]:
        lines.append("The transcript ends with an incomplete line (the session was interrupted); it is left out.")
    lines.append("")
    if data["servers"]:
        lines += ["Servers:", ""]
        for server in data["servers"]:
            info = server.get("serverInfo") or {}
            lines.append(
                f"- {md_inline(server.get('name', ''), 200)}: {md_inline(info.get('name', ''), 100)} "
                f"{md_inline(info.get('version', ''), 50)}, protocol {md_inline(server.get('protocolVersion', ''), 20)}"
                + (f"; {_where(server)} {md_span(server['target'], 300)}" if server.get("target") else "")
            )
        lines.append("")
    return lines


def _where(server: dict[str, Any]) -> str:
    """What a server event's `target` is: the command a stdio server was started with, or its URL."""
    return "started as" if server.get("transport") == "stdio" else "at"


def _question(data: dict[str, Any]) -> list[str]:
    lines = ["## The question", ""]
    if not data["workflows"]:
        return [*lines, "No prompt was rendered in this session.", ""]
    for workflow in data["workflows"]:
        lines += [
            f"Prompt {md_span(workflow.get('prompt', ''), 200)} on {md_inline(workflow.get('server', ''), 200)}",
            "",
        ]
        for name, value in (workflow.get("arguments") or {}).items():
            lines.append(f"- {md_span(name, 200)}: {md_text(value, 1_000)}")
        lines.append("")
    return lines


def _workflow(data: dict[str, Any]) -> list[str]:
    lines = ["## The workflow", ""]
    for workflow in data["workflows"]:
        for message in workflow.get("messages", []):
            role = md_inline(message.get("role", ""), 40)
            for block in message.get("content", []):
                if block.get("type") == "text":
                    # The server's Markdown, shown as written: in a fence, it cannot become headings or links.
                    lines += [f"*{role}:*", "", md_code(str(block.get("text", "")), "markdown"), ""]
                else:
                    lines += [f"*{role}:* (a {md_inline(block.get('type', ''), 40)} block)", ""]
        steps = workflow.get("steps") or []
        if steps:
            lines += ["Suggested steps:", ""]
            for number, step in enumerate(steps, 1):
                lines.append(
                    f"{number}. {md_span(step.get('tool', ''), 200)}: {md_text(step.get('description', ''), 300)}"
                )
            lines.append("")
    return lines


def _evidence(data: dict[str, Any], transcript: Transcript) -> list[str]:
    lines = ["## Evidence", ""]
    evidence = data["evidence"]
    if not evidence:
        return [*lines, "No tool was run.", ""]
    context = _Context(data, transcript)
    ordered = reading_order(evidence, [n for kind in NOTE_KINDS for n in data["notes"][kind]])
    lines += ["In the order the notes cite it; what no note cites follows.", ""]
    rows = [
        f"| [{md_inline(ref_of(e), 60)}](#{context.anchors[str(e.get('id'))]}) | {md_cell(e.get('tool', ''), 100)} "
        f"| {md_cell(e.get('outcome', ''), 40)} |"
        for e in ordered
    ]
    lines += ["| ID | tool | outcome |", "| --- | --- | --- |", *rows, ""]
    for entry in ordered:
        lines += _entry_section(entry, context)
    if context.unattached:
        lines += ["Questions the server asked outside a recorded call:", ""]
        for event in context.unattached:
            lines += _elicitation(event)
    denied = [a for a in data["approvals"] if a.get("decision") == "deny"]
    if denied:
        lines += ["Calls the analyst denied (nothing was sent):", ""]
        for approval in denied:
            arguments = json.dumps(approval.get("arguments"), ensure_ascii=False)
            lines.append(f"- {md_span(approval.get('tool', ''), 200)} with {md_span(arguments, 500)}")
        lines.append("")
    return lines


def _cite(cites: list[str], anchors: dict[str, str]) -> str:
    return ", ".join(
        f"[{md_inline(c, 60)}](#{anchors[c]})" if c in anchors else f"{md_inline(c, 60)} (not in this transcript)"
        for c in cites
    )


def _notes(data: dict[str, Any]) -> list[str]:
    # Notes cite the IDs the analyst saw; transcripts from before references cite keys (the same then).
    by_key = anchors_of(data["evidence"])
    anchors = {recorded_ref(e): by_key[str(e.get("id"))] for e in data["evidence"] if recorded_ref(e)}
    lines: list[str] = []
    for kind in NOTE_KINDS:
        lines += [f"## {NOTE_TITLES[kind]}", ""]
        notes = data["notes"][kind]
        if not notes:
            lines += ["None recorded.", ""]
            continue
        for note in notes:
            cites = [str(c) for c in note.get("cites") or []]
            cited = f" ({_cite(cites, anchors)})" if cites else ""
            lines.append(f"- {md_text(note.get('text', ''), 4_000)}{cited}")
        lines.append("")
    return lines


def _replay(data: dict[str, Any]) -> list[str]:
    if data["replayOf"] is None:
        return []
    results = data["replayResults"]
    matched = sum(1 for r in results if r.get("matches") is True)
    return [
        f"This session replayed the recorded session {md_span(data['replayOf'], 200)}: "
        f"{matched:,} of {len(results):,} results replayed matched the recording "
        "(each result below says whether it did).",
        "",
    ]


def render_markdown(transcript: Transcript) -> str:
    data = report_data(transcript)
    lines = [
        *_header(data, transcript),
        *_replay(data),
        *_question(data),
        *_notes(data),
        *_evidence(data, transcript),
        *_workflow(data),
    ]
    return "\n".join(lines).rstrip() + "\n"
