"""An investigation report from a transcript: Markdown for a colleague, or JSON.

The report says what was asked (prompt and arguments), the workflow the
server proposed, the evidence with its ids and outcomes, and the analyst's
observations, inferences and unknowns kept apart, each citing its evidence.
Every server string is escaped, so it cannot inject Markdown or HTML.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from rea_tui.host.notes import NOTE_KINDS
from rea_tui.host.safe_text import sanitize
from rea_tui.host.transcript import Transcript

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~=^:])")
TEXT_EXCERPT = 4_000
NOTE_TITLES = {"observation": "Observations", "inference": "Inferences", "unknown": "Unknowns"}


def md_text(value: object, limit: int | None = TEXT_EXCERPT) -> str:
    """Server text as inert Markdown: no markup, no HTML, no links, no line that starts a block."""
    text = sanitize(value, limit)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _MARKDOWN_SPECIAL.sub(r"\\\1", text)
    # Two trailing spaces keep the server's line breaks inside one paragraph.
    return "  \n".join(line.strip() or "&#8203;" for line in text.split("\n"))


def md_code(value: str, language: str = "") -> str:
    """A fenced block that the content cannot close: the fence is longer than any backtick run in it."""
    text = sanitize(value, None)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def md_json(value: Any) -> str:
    return md_code(json.dumps(value, indent=2, ensure_ascii=False, default=str), "json")


def anchor(entry_id: str) -> str:
    return f"evidence-{entry_id.lower()}"


def cite(ids: list[str], known: set[str]) -> str:
    links = [f"[{i}](#{anchor(i)})" if i in known else f"{i} (not in this transcript)" for i in ids]
    return ", ".join(links)


def report_data(transcript: Transcript) -> dict[str, Any]:
    """The report's content, independent of the output format."""
    notes: dict[int, dict[str, Any]] = {}
    for event in transcript.events:
        if event.get("type") == "note" and isinstance(event.get("number"), int):
            notes[event["number"]] = event
        elif event.get("type") == "note_removed":
            notes.pop(event.get("number", -1), None)
    return {
        "transcript": str(transcript.path),
        "started": transcript.started,
        "truncated": transcript.truncated,
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


def _entry_section(entry: dict[str, Any]) -> list[str]:
    entry_id = str(entry.get("id", "?"))
    lines = [
        f'<a id="{anchor(entry_id)}"></a>',
        f"### {md_text(entry_id, 20)}: {md_text(entry.get('tool', '?'), 200)}"
        f" ({md_text(entry.get('outcome', '?'), 40)})",
        "",
        f"Server {md_text(entry.get('server', ''), 200)}; approval: {md_text(entry.get('approval', ''), 100)}"
        + (f"; {entry['durationMs']:,.0f} ms" if isinstance(entry.get("durationMs"), int | float) else "")
        + (f"; answers {md_text(entry['follows'], 20)}" if entry.get("follows") else ""),
        "",
        "Arguments:",
        "",
        md_json(entry.get("arguments", {})),
        "",
    ]
    narrowing = entry.get("narrowing")
    if isinstance(narrowing, dict):
        lines += [
            f"The server asked ({md_text(narrowing.get('reason', ''), 40)}, round {narrowing.get('round', '?')}): "
            f"{md_text(narrowing.get('ask_user', ''), 1_000)}",
            "",
        ]
        for candidate in narrowing.get("candidates", [])[:25]:
            if isinstance(candidate, dict):
                lines.append(f"- {md_text(candidate.get('name', ''), 200)} (id {md_text(candidate.get('id'), 40)})")
        lines.append("")
    error = entry.get("error")
    if isinstance(error, dict):
        lines += [f"Error: {md_text(error.get('message', ''), 2_000)}", ""]
        for problem in error.get("fields") or []:
            lines.append(f"- {md_text(problem.get('field', ''), 200)}: {md_text(problem.get('message', ''), 500)}")
        if error.get("fields"):
            lines.append("")
    if entry.get("exitCode") is not None or entry.get("stderrTail"):
        lines += [
            f"The server exited (code {md_text(entry.get('exitCode'), 20)}). Its last stderr lines:",
            "",
        ]
        lines += [md_code(str(entry.get("stderrTail", ""))), ""]
    texts = [b.get("text", "") for b in entry.get("content", []) if isinstance(b, dict) and b.get("text")]
    if texts and not narrowing:
        lines += ["Result:", "", md_code("\n".join(texts)[:TEXT_EXCERPT]), ""]
    if "structuredContent" in entry and not narrowing:
        lines += ["Structured content:", "", md_json(entry["structuredContent"]), ""]
    if entry.get("schemaCheck"):
        lines += [f"Output schema: {md_text(entry['schemaCheck'], 300)}", ""]
    return lines


def render_markdown(transcript: Transcript) -> str:
    data = report_data(transcript)
    started = data["started"]
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(started)) if started else "unknown time"
    lines = ["# Investigation report", "", f"Session of {when}, from `{md_text(transcript.path.name, 200)}`."]
    if data["truncated"]:
        lines.append("The transcript ends with an incomplete line (the session was interrupted); it is left out.")
    lines.append("")
    if data["servers"]:
        lines += ["Servers:", ""]
        for server in data["servers"]:
            info = server.get("serverInfo") or {}
            lines.append(
                f"- {md_text(server.get('name', ''), 200)}: {md_text(info.get('name', ''), 100)} "
                f"{md_text(info.get('version', ''), 50)}, protocol {md_text(server.get('protocolVersion', ''), 20)}"
            )
        lines.append("")
    lines += ["## The question", ""]
    if not data["workflows"]:
        lines += ["No prompt was rendered in this session.", ""]
    for workflow in data["workflows"]:
        lines += [
            f"Prompt {md_text(workflow.get('prompt', ''), 200)} on {md_text(workflow.get('server', ''), 200)}",
            "",
        ]
        arguments = workflow.get("arguments") or {}
        for name, value in arguments.items():
            lines.append(f"- {md_text(name, 200)}: {md_text(value, 1_000)}")
        lines.append("")
    lines += ["## The workflow", ""]
    for workflow in data["workflows"]:
        for message in workflow.get("messages", []):
            for block in message.get("content", []):
                if block.get("type") == "text":
                    lines += [
                        f"*{md_text(message.get('role', ''), 40)}:*",
                        "",
                        md_text(block.get("text", "")),
                        "",
                    ]
                else:
                    lines += [
                        f"*{md_text(message.get('role', ''), 40)}:* ({md_text(block.get('type', ''), 40)} block)",
                        "",
                    ]
        steps = workflow.get("steps") or []
        if steps:
            lines += ["Suggested steps:", ""]
            for number, step in enumerate(steps, 1):
                lines.append(
                    f"{number}\\. {md_text(step.get('tool', ''), 200)}: {md_text(step.get('description', ''), 300)}"
                )
            lines.append("")
    lines += ["## Evidence", ""]
    evidence = data["evidence"]
    if not evidence:
        lines += ["No tool was run.", ""]
    else:
        lines += ["| id | tool | outcome |", "| --- | --- | --- |"]
        for entry in evidence:
            entry_id = str(entry.get("id", "?"))
            lines.append(
                f"| [{md_text(entry_id, 20)}](#{anchor(entry_id)}) | {md_text(entry.get('tool', ''), 100)} "
                f"| {md_text(entry.get('outcome', ''), 40)} |"
            )
        lines.append("")
        for entry in evidence:
            lines += _entry_section(entry)
    denied = [a for a in data["approvals"] if a.get("decision") == "deny"]
    if denied:
        lines += ["Calls the analyst denied (nothing was sent):", ""]
        for approval in denied:
            lines.append(
                f"- {md_text(approval.get('tool', ''), 200)} with {md_text(json.dumps(approval.get('arguments')), 500)}"
            )
        lines.append("")
    known = {str(e.get("id")) for e in evidence}
    for kind in NOTE_KINDS:
        lines += [f"## {NOTE_TITLES[kind]}", ""]
        notes = data["notes"][kind]
        if not notes:
            lines += ["None recorded.", ""]
            continue
        for note in notes:
            cites = note.get("cites") or []
            cited = f" ({cite([str(c) for c in cites], known)})" if cites else ""
            lines.append(f"- {md_text(note.get('text', ''), 4_000)}{cited}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
