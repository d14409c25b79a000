"""The form scrolls so an open dropdown fits under its field, by what it lacks, once.

The room was measured on the screen, whose regions follow a scroll only at the next refresh: a
second page shown before it (a loaded CI machine delivered two so) scrolled the form again, by the
same amount, and pushed the fields above out of sight.
"""

from __future__ import annotations

from pathlib import Path

from tests.support import scenarios
from tests.support.pilot import make_app
from tests.support.scenarios import SIZE, reference_spec


async def test_a_second_page_before_the_next_refresh_does_not_scroll_the_form_again(tmp_path: Path) -> None:
    app = make_app([reference_spec(open_first=True)], transcript=tmp_path / "session.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await scenarios.connected(pilot)
        form = await scenarios.open_prompt(pilot, "investigate_feature")
        field = await scenarios.focus_field(pilot, form, "procedure")
        await pilot.pause()
        needed = form.scroll_y
        assert needed > 0, "the procedure's dropdown fits as it is: this form shows nothing here"
        form.scroll_home(animate=False, immediate=True)
        await pilot.pause()
        assert form.scroll_y == 0 and field.input.region.bottom < form.scrollable_content_region.bottom
        # Two pages in a row, with no refresh between them.
        form.make_room_for(field)
        form.make_room_for(field)
        assert form.scroll_y == needed
        await pilot.pause()
        # And on the screen: the dropdown's last line is the pane's last line.
        assert field.input.region.bottom + field.dropdown.height == form.scrollable_content_region.bottom
