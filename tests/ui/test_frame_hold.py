"""A keystroke's frame waits briefly for its suggestions: one frame with both, and never a frame in
which a dropdown shows values that answer another value than its field's (checked at every frame the
app paints, against the tests' sample server)."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass
from typing import Any

import pytest
from textual.pilot import Pilot

import rea_tui.ui.flows.form as form_flow
from rea_tui.ui.app import ReaApp
from rea_tui.ui.widgets.argument_form import ArgumentField
from tests.conftest import sample_spec
from tests.support.pilot import make_app, ready, terminal_key, wait_for
from tests.ui.test_app import SIZE, open_prompt

# The sample server answers feature="slow" after 2 s: far past the hold.
SLOW_VALUE = "slow"


@dataclass(frozen=True)
class Frame:
    value: str
    open: bool
    stale: bool
    shown_for: str | None
    values: tuple[str, ...]

    @property
    def shows_another_value(self) -> bool:
        return self.open and not self.stale and self.shown_for is not None and self.shown_for != self.value


def record_frames(app: ReaApp, field: ArgumentField) -> list[Frame]:
    """The field and its dropdown as each frame is painted (the app's one painting path)."""
    frames: list[Frame] = []
    display = app._display

    def displayed(screen: Any, update: Any) -> None:
        if update is not None:
            dropdown = field.dropdown
            frames.append(
                Frame(field.value, dropdown.is_open, dropdown.options.stale, dropdown.shown_for, dropdown.values)
            )
        display(screen, update)

    app._display = displayed  # type: ignore[method-assign,assignment]
    return frames


async def focused_field(pilot: Pilot[Any], app: ReaApp, name: str, **values: str) -> ArgumentField:
    """The sample server's `investigate` form with `values` filled in, and the cursor in field `name`."""
    await ready(pilot, app)
    form = await open_prompt(pilot, app, "investigate")
    for other, value in values.items():
        filled = form.field(other)
        assert filled is not None
        filled.input.value = value
    field = form.field(name)
    assert field is not None
    field.input.focus()
    return field


async def test_a_keystroke_and_its_suggestions_are_painted_in_one_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    # A hold long enough for any machine: the frame after the key is the one with its values.
    monkeypatch.setattr(form_flow, "SAME_FRAME_WAIT", 10.0)
    app = make_app([sample_spec("legacy")])
    async with app.run_test(size=SIZE) as pilot:
        document = await focused_field(pilot, app, "document")
        await wait_for(pilot, lambda: document.dropdown.values == ("Helper", "Notes", "libsearch"), what="documents")
        await pilot.pause(0.1)
        frames = record_frames(app, document)
        await pilot.press("H")
        await wait_for(pilot, lambda: any(f.value == "H" for f in frames), what="a frame with the key")
        typed = [f for f in frames if f.value == "H"]
        assert typed[0] == Frame("H", True, False, "H", ("Helper",))
        assert not any(f.stale for f in typed), "no frame with the dropdown blanked between the key and its values"


async def test_a_slow_answer_lets_the_key_through_with_the_old_values_hidden() -> None:
    app = make_app([sample_spec("legacy")])
    async with app.run_test(size=SIZE) as pilot:
        feature = await focused_field(pilot, app, "feature")
        await pilot.press(*SLOW_VALUE[:-1])
        await wait_for(pilot, lambda: feature.dropdown.shown_for == SLOW_VALUE[:-1], what="the empty answer")
        frames = record_frames(app, feature)
        await pilot.press(SLOW_VALUE[-1])
        await wait_for(pilot, lambda: any(f.value == SLOW_VALUE for f in frames), what="a frame with the key")
        first = next(f for f in frames if f.value == SLOW_VALUE)
        # Painted at the hold's end, long before the answer: what answered "slo" is not shown under "slow".
        assert first.shown_for == SLOW_VALUE[:-1] and first.stale
        await wait_for(pilot, lambda: feature.dropdown.shown_for == SLOW_VALUE, what="the slow answer", timeout=10)
        await wait_for(pilot, lambda: frames[-1].shown_for == SLOW_VALUE and not frames[-1].stale, what="its frame")
        assert not any(f.shows_another_value for f in frames)


# The hold as shipped, and one so short that it ends before most answers (the old values must be hidden then).
@pytest.mark.parametrize("hold", [form_flow.SAME_FRAME_WAIT, 0.001])
async def test_no_frame_shows_another_values_suggestions_while_keys_come_at_any_pace(
    hold: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(form_flow, "SAME_FRAME_WAIT", hold)
    app = make_app([sample_spec("legacy")])
    async with app.run_test(size=SIZE) as pilot:
        procedure = await focused_field(pilot, app, "procedure", document="libsearch")
        await wait_for(pilot, lambda: len(procedure.dropdown.values) == 100, what="the first page")
        frames = record_frames(app, procedure)
        rng = random.Random(14)
        keys = [*"search_0", "backspace", *"12", "backspace", "backspace", *"2", "ctrl+u", *"search_1", *"9"]
        for key in keys:
            # As a terminal's input thread posts them: gaps from none to longer than the hold.
            app.post_message(terminal_key(key))
            await asyncio.sleep(rng.choice([0.0, 0.001, 0.004, 0.009, 0.012, 0.03]))
        final = "search_19"
        await wait_for(pilot, lambda: procedure.value == final, what="the last key")
        await wait_for(pilot, lambda: procedure.dropdown.shown_for == final, what="its values")
        await wait_for(pilot, lambda: frames[-1].shown_for == final and not frames[-1].stale, what="their frame")
        assert len({f.value for f in frames}) > 5, "frames were painted while the keys came"
        wrong = [f for f in frames if f.shows_another_value]
        assert not wrong, f"frames with another value's suggestions: {wrong[:3]}"
