"""The ledger's IDs as the analyst meets them: a question has none, a result without the server's gets H1,
and the report's anchors follow the IDs shown."""

from __future__ import annotations

import re
from pathlib import Path

from rea_tui.host.records.report import render_markdown
from rea_tui.host.records.transcript import read_transcript
from rea_tui.ui.widgets.entry_list import EntryList
from tests.conftest import sample_spec
from tests.support.pilot import make_app
from tests.support.scenarios import SIZE, connected, reference_spec, run_tool

SAMPLE = "sample"


async def test_questions_have_no_id_host_ids_for_the_rest_and_the_report_links_them(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    app = make_app([reference_spec(), sample_spec()], transcript=path)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        # No procedure named: the reference server asks which one (a narrowing reply).
        asked = await run_tool(pilot, "inspect_procedure")
        assert asked.narrowing is not None
        await pilot.press("escape")  # the picker: not now
        echoed = await run_tool(pilot, "echo", {"text": "hello"}, server=SAMPLE)
        listed = await run_tool(pilot, "list_documents")
        assert (asked.ref, asked.label) == ("", "question")
        assert echoed.ref == "H1"  # the sample server gives no evidence ID
        assert re.fullmatch(r"rea:E-\d{4}", listed.ref), listed.ref  # two servers: the server's ID, qualified
        assert app.session.ledger.refs() == ["H1", listed.ref]
        entries = app.main.query_one(EntryList)
        lines = [str(entries.line_at(index)) for index in range(entries.entry_count)]
        assert [line.split()[0] for line in lines] == ["question", "H1", listed.ref]
        app.session.notebook.add(
            "observation", f"echo answers (H1); documents in {listed.ref}", known_ids=app.session.ledger.refs()
        )
        await pilot.press("ctrl+q")

    report = render_markdown(read_transcript(path))
    anchor = "evidence-" + listed.ref.lower().replace(":", "-")
    assert f"([H1](#evidence-h1), [{listed.ref}](#{anchor}))" in report
    for target in ("evidence-h1", anchor, f"question-{asked.id.lower()}"):
        assert f'<a id="{target}"></a>' in report, target
        assert f"(#{target})" in report, target
    assert "### question: inspect_procedure (ok)" in report
