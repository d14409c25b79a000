"""The evidence list by keyboard and mouse, on a ledger long enough to scroll (30 entries, 6 rows shown)."""

from __future__ import annotations

from rea_tui.host import TextBlock
from rea_tui.ui.widgets.entry_list import EntryList
from rea_tui.ui.widgets.evidence_pane import EvidenceDetail
from tests.support.pilot import make_app, wait_for
from tests.support.scenarios import SIZE

ENTRIES = 30


async def test_keys_and_clicks_move_the_highlight_and_show_that_entry() -> None:
    app = make_app([], transcript=None)
    async with app.run_test(size=SIZE) as pilot:
        ledger = app.session.ledger
        for number in range(ENTRIES):
            entry = ledger.open("rea", f"tool_{number}", {}, "interactive yes")
            entry.outcome, entry.content = "ok", [TextBlock(f"result {number}")]
            ledger.changed(entry)
        entries, detail = app.query_one(EntryList), app.query_one(EvidenceDetail)
        await wait_for(pilot, lambda: detail.entry is ledger.entries[-1], "the newest entry shown")
        entries.focus()
        await pilot.pause()
        rows = entries.scrollable_content_region.height
        assert 0 < rows < ENTRIES and entries.scroll_offset.y == ENTRIES - rows, "the newest row is in view"

        def at(index: int) -> bool:
            return entries.highlighted == index and detail.entry is ledger.entries[index]

        for key, index in [
            ("up", 28),
            ("home", 0),
            ("down", 1),
            ("pagedown", 1 + rows),
            ("end", 29),
            ("pageup", 29 - rows),
        ]:
            await pilot.press(key)
            await wait_for(pilot, lambda index=index: at(index), f"{key} to entry {index}")
            top = entries.scroll_offset.y
            assert top <= index < top + rows, f"after {key}, row {index} is out of view (top {top})"
        await pilot.press("home")
        await wait_for(pilot, lambda: at(0), "home")
        # The third row on screen, clicked.
        await pilot.click(EntryList, offset=(4, 2))
        await wait_for(pilot, lambda: at(2), "the clicked row")
        assert "tool_2" in str(entries.line_at(2))
