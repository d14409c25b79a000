"""Transcripts (write, redact, read back after a kill) and the reports made from them."""

from __future__ import annotations

import json
import re
from pathlib import Path

from markdown_it import MarkdownIt

from rea_tui.host.records.report import md_code, md_text, render_json, render_markdown
from rea_tui.host.records.transcript import (
    REDACTED,
    SessionRecorder,
    TranscriptWriter,
    read_transcript,
    redact_content,
    summarize,
)
from rea_tui.host.trust.markdown_text import md_cell, md_inline, md_span

HOSTILE = "<script>alert(1)</script> [click](http://evil.example) # Heading\n- item\n```\nfence\n``` **bold** \x1b[31m"


def test_every_event_is_on_disk_when_write_returns(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    writer = TranscriptWriter(path)
    writer.write("session", version="x")
    writer.write("note", kind="observation", text="seen")
    # Read while the writer is still open: nothing is left in a buffer.
    lines = path.read_text().splitlines()
    assert [json.loads(line)["type"] for line in lines] == ["session", "note"]
    assert json.loads(lines[1])["kind"] == "observation"
    writer.close()


def test_a_transcript_starts_with_the_first_event_worth_keeping(tmp_path: Path) -> None:
    """Starting and connecting alone leave no file; the first prompt, call or note writes them all."""
    quiet = tmp_path / "quiet.jsonl"
    recorder = SessionRecorder(TranscriptWriter(quiet))
    recorder.writer.write("server", name="rea")
    recorder.server_failed("other", "exited")
    recorder.close()
    assert not quiet.exists()

    busy = tmp_path / "busy.jsonl"
    recorder = SessionRecorder(TranscriptWriter(busy))
    recorder.writer.write("server", name="rea")
    assert not busy.exists()
    recorder.prompt_selected("rea", "investigate_feature")
    events = read_transcript(busy).events
    assert [e["type"] for e in events] == ["session", "server", "prompt_selected"]
    # Held events keep their own order and time.
    assert [e["seq"] for e in events] == [1, 2, 3] and events[0]["time"] <= events[2]["time"]
    recorder.close()
    assert [e["type"] for e in read_transcript(busy).events][-1] == "session_end"


def test_secrets_never_reach_the_file(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    writer = TranscriptWriter(path, secrets=["Bearer tok-123456", "tok-123456"])
    writer.write("server", target="http://x", note='header "Bearer tok-123456" and tok-123456')
    writer.add_secrets(['quo"te-secret'])
    writer.write("call", arguments={"k": 'has quo"te-secret inside'})
    text = path.read_text()
    assert "tok-123456" not in text and 'quo\\"te-secret' not in text
    assert text.count(REDACTED) == 3


def test_sensitive_elicitation_values_are_redacted() -> None:
    schema = {
        "properties": {
            "user": {"type": "string"},
            "password": {"type": "string", "format": "password"},
            "token": {"type": "string", "writeOnly": True},
            "pin": {"type": "string", "x-sensitive": True},
        }
    }
    assert redact_content({"user": "ann", "password": "p", "token": "t", "pin": "1"}, schema) == {
        "user": "ann",
        "password": REDACTED,
        "token": REDACTED,
        "pin": REDACTED,
    }


def test_a_torn_last_line_is_skipped_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"seq": 1, "type": "session", "time": 1}\n{"seq": 2, "type": "note", "te')
    transcript = read_transcript(path)
    assert [e["type"] for e in transcript.events] == ["session"] and transcript.truncated
    assert summarize(path)["truncated"] is True


def hostile_transcript(tmp_path: Path) -> Path:
    path = tmp_path / "hostile.jsonl"
    writer = TranscriptWriter(path)
    writer.write("session", version="t")
    writer.write("server", name=f"srv {HOSTILE}", serverInfo={"name": HOSTILE, "version": "1"}, protocolVersion="x")
    writer.write(
        "workflow",
        server="srv",
        prompt=f"p {HOSTILE}",
        arguments={"feature": HOSTILE},
        description=HOSTILE,
        messages=[{"role": "user", "content": [{"type": "text", "text": f"Use probe. {HOSTILE}"}]}],
        steps=[{"tool": "probe", "description": HOSTILE}],
    )
    writer.write(
        "tool_call",
        id="E1",
        server="srv",
        tool="probe",
        arguments={"x": HOSTILE},
        outcome="ok",
        approval="approved once",
        content=[{"type": "text", "text": f"result ```` {HOSTILE}"}],
        structuredContent={"html": HOSTILE},
        schemaCheck="no output schema declared",
    )
    writer.write("note", number=1, kind="observation", text=f"seen in E1 {HOSTILE}", cites=["E1"])
    writer.write("note", number=2, kind="inference", text="so it follows", cites=["E1"])
    writer.write("note", number=3, kind="unknown", text="still open", cites=[])
    writer.write("note", number=4, kind="unknown", text="removed later", cites=[])
    writer.write("note_removed", number=4)
    writer.close()
    return path


def test_markdown_report_keeps_notes_apart_and_cites_evidence(tmp_path: Path) -> None:
    report = render_markdown(read_transcript(hostile_transcript(tmp_path)))
    observations = report.index("## Observations")
    inferences = report.index("## Inferences")
    unknowns = report.index("## Unknowns")
    assert observations < inferences < unknowns
    assert "[E1](#evidence-e1)" in report[observations:inferences]
    assert "so it follows" in report[inferences:unknowns] and "still open" in report[unknowns:]
    assert "removed later" not in report
    assert '<a id="evidence-e1"></a>' in report
    assert "| [E1](#evidence-e1) | probe | ok |" in report
    assert "1. `probe`: " in report


def rendered(report: str) -> str:
    """The report as GitHub would show it: CommonMark with tables, strikethrough and bare links."""
    return MarkdownIt("gfm-like").render(report)


def test_server_text_in_the_report_is_inert(tmp_path: Path) -> None:
    report = render_markdown(read_transcript(hostile_transcript(tmp_path)))
    for html in (MarkdownIt("commonmark").render(report), rendered(report)):
        assert "<script>" not in html
        assert "evil.example" not in "".join(re.findall(r'href="[^"]*"', html))
        assert "<strong>" not in html and "<s>" not in html
        assert re.findall(r"<em>(.*?)</em>", html) == ["user:"]  # the report's own: who said the workflow
        # The only headings are the report's own.
        headings = [line for line in html.splitlines() if line.startswith(("<h1", "<h2", "<h3"))]
        assert all("Heading" not in h for h in headings)
        # Evidence anchors are the report's own HTML; nothing else is raw HTML.
        assert html.count("<a id=") == 1
        # The report's own links go to its own anchors, nowhere else.
        assert all(href.startswith('href="#') for href in re.findall(r'href="[^"]*"', html))
    assert "\x1b" not in report


def test_md_helpers() -> None:
    assert md_text("a <b> [c](d) *e*") == "a &lt;b&gt; \\[c\\](d) \\*e\\*"
    block = md_code("x ```` y")
    assert block.startswith("`````\n") and block.endswith("\n`````")


def test_escaping_only_where_markdown_needs_it() -> None:
    """Names, IDs and file names read as written; what Markdown would read is escaped."""
    for plain in ("investigate_feature", "E-0004", "libpython3.11.so.1.0", "open (3 args)", "a: b", "x.y-z"):
        assert md_text(plain) == plain, plain
    assert md_text("__init__ and _PyCodec_Lookup") == "\\_\\_init\\_\\_ and \\_PyCodec_Lookup"
    # Lines that would start a block: a heading, a list, a quote, a rule, an ordered list, an underline.
    assert md_text("# h\n- i\n> q\n---\n1. one\n===") == "\\# h  \n\\- i  \n&gt; q  \n\\---  \n1\\. one  \n\\==="
    # What GitHub links without markup: URLs, www. names, e-mail-like names (malloc@libc.so.6).
    assert md_text("see https://x.example or www.x.example or malloc@libc.so.6") == (
        "see https:\\/\\/x.example or www\\.x.example or malloc\\@libc.so.6"
    )
    html = rendered(md_text("see https://x.example or www.x.example or malloc@libc.so.6"))
    assert "<a " not in html and "malloc@libc.so.6" in html
    # Inline fragments and table cells keep to their line; spans cannot be closed by their content.
    assert md_inline("a\nb") == "a b"
    assert md_cell("a | b") == "a \\| b"
    assert md_span("x ` y") == "``x ` y``" and md_span("`x`") == "`` `x` ``"


def test_each_result_once_as_a_table_with_the_json_collapsed(tmp_path: Path) -> None:
    """A known shape reads as a table; its JSON (which the text block repeats) is kept once, collapsed."""
    path = tmp_path / "strings.jsonl"
    structured = {
        "evidence_id": "E-0004",
        "query": "unknown encoding",
        "offset": 0,
        "total": 1,
        "next_offset": None,
        "strings": [
            {
                "id": 4710,
                "document": "libpython3.11.so.1.0",
                "section": ".rodata",
                "address": "0x383a20",
                "text": "unknown encoding: %s",
            }
        ],
    }
    writer = TranscriptWriter(path)
    writer.write("session", version="t")
    writer.write(
        "elicitation",
        server="rea",
        message="Run it?",
        mode="form",
        action="accept",
        content={"timeout_seconds": 5},
        requestedSchema={},
    )
    writer.write(
        "tool_call",
        id="E1",
        ref="E-0004",
        server="rea",
        tool="search_strings",
        arguments={"query": "unknown encoding"},
        outcome="ok",
        approval="approved once",
        durationMs=12.0,
        content=[{"type": "text", "text": json.dumps(structured, indent=2)}],
        structuredContent=structured,
    )
    writer.write("note", number=1, kind="observation", text="the string is in .rodata (E-0004)", cites=["E-0004"])
    writer.close()
    report = render_markdown(read_transcript(path))
    assert "### E-0004: search_strings (ok)" in report
    assert "| [E-0004](#evidence-e-0004) | search_strings | ok |" in report
    assert "| 4710 | libpython3.11.so.1.0 | .rodata | 0x383a20 | unknown encoding: %s |" in report
    assert report.count('"evidence_id": "E-0004"') == 1
    assert "<details><summary>Raw result (JSON)</summary>" in report
    assert "The server asked the analyst: Run it?  \nThe analyst accepted: `timeout_seconds` = `5`." in report
    assert "the string is in .rodata (E-0004) ([E-0004](#evidence-e-0004))" in report
    assert '<a id="evidence-e-0004"></a>' in report
    assert "\\" not in report.split("## Observations")[1].split("## Evidence")[0]  # nothing there needs escaping


def test_json_report(tmp_path: Path) -> None:
    data = json.loads(render_json(read_transcript(hostile_transcript(tmp_path))))
    assert [e["id"] for e in data["evidence"]] == ["E1"]
    assert [n["text"] for n in data["notes"]["unknown"]] == ["still open"]
    assert data["workflows"][0]["steps"][0]["tool"] == "probe"
