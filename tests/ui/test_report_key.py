"""ctrl+t writes the session's report beside its transcript (in a worker thread), and says where."""

from __future__ import annotations

from tests.conftest import sample_spec
from tests.support.pilot import make_app, ready, wait_for
from tests.support.scenarios import SIZE


async def test_ctrl_t_writes_the_report_beside_the_transcript() -> None:
    app = make_app([sample_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: any("no transcript" in str(n.message) for n in app._notifications), "told")
        entry = await app.session.call_tool("sample", "echo", {"text": "for the report"}, approval="test")
        assert entry.text() == "for the report"
        transcript = app.session.recorder.path
        assert transcript is not None and transcript.is_file()
        report = transcript.with_suffix(".md")
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: any("Report written" in str(n.message) for n in app._notifications), "report")
        text = report.read_text(encoding="utf-8")
        assert "echo" in text and "for the report" in text
