"""Keys that come faster than the app handles them are handled in the order they were typed.

Each test posts its keys to the app at once, as a terminal's input thread does with a burst (a fast
typist, a paste of keys, tmux send-keys): a key that bubbles up to a binding (backspace, ctrl+u, tab, a
dialog's escape) must be done before the key behind it.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.pilot import Pilot
from textual.widgets import Input

from rea_tui.ui.app import ReaApp
from rea_tui.ui.key_order import KeyHandled
from rea_tui.ui.screens.screenshot import ScreenshotScreen
from rea_tui.ui.widgets.argument_form import ArgumentField
from tests.conftest import sample_spec
from tests.support.pilot import make_app, terminal_key, wait_for
from tests.ui.test_app import SIZE
from tests.ui.test_frame_hold import focused_field

Burst = list[str | events.Paste]


def post_at_once(app: ReaApp, burst: Burst) -> None:
    for key in burst:
        if isinstance(key, events.Paste):
            app.post_message(key)
        else:
            app.post_message(terminal_key(key))


async def investigate_form(pilot: Pilot[Any], app: ReaApp) -> tuple[ArgumentField, ArgumentField]:
    """The sample server's `investigate` form, the cursor in its first field (and the field after it)."""
    first = await focused_field(pilot, app, "feature")
    form = first.form
    assert form is not None and form.fields[0] is first
    await pilot.pause()
    return first, form.fields[1]


async def settle(pilot: Pilot[Any], app: ReaApp) -> None:
    """Until every key posted has been handled (the last one's mark is back, none waiting)."""
    await pilot.pause()  # the app has taken the keys from its queue
    await wait_for(pilot, lambda: app.key_order.idle, what="the keys handled")
    await pilot.pause()


async def test_text_typed_behind_a_deleting_key_comes_after_the_deletion() -> None:
    app = make_app([sample_spec("legacy")])
    async with app.run_test(size=SIZE) as pilot:
        field, _ = await investigate_form(pilot, app)
        post_at_once(app, [*"ba", "backspace", "c", "x", "ctrl+w", *"lib", "left", "ctrl+k", "s"])
        await settle(pilot, app)
        # b a ⌫ → "b"; c x → "bcx"; ctrl+w deletes the word → ""; lib ← ctrl+k → "li"; s → "lis".
        assert field.value == "lis"
        post_at_once(app, ["ctrl+u", *"search"])
        await settle(pilot, app)
        assert field.value == "search"


async def test_text_typed_behind_tab_goes_to_the_next_field() -> None:
    app = make_app([sample_spec("legacy")])
    async with app.run_test(size=SIZE) as pilot:
        first, second = await investigate_form(pilot, app)
        post_at_once(app, [*"ab", "tab", *"cd"])
        await settle(pilot, app)
        assert (first.value, second.value) == ("ab", "cd")
        assert app.focused is second.input


async def test_a_paste_behind_a_deleting_key_comes_after_the_deletion() -> None:
    app = make_app([sample_spec("legacy")])
    async with app.run_test(size=SIZE) as pilot:
        field, _ = await investigate_form(pilot, app)
        post_at_once(app, [*"abc", "backspace", events.Paste("XY"), "left", "left", "left", "backspace"])
        await settle(pilot, app)
        assert field.value == "bXY"


async def test_keys_behind_a_dialog_that_opens_and_closes_go_to_the_dialog_and_then_back() -> None:
    """ctrl+s opens the screenshot dialog, escape closes it (its widgets go, and the mark behind the
    escape may go with them), and the text after goes back to the field."""
    app = make_app([sample_spec("legacy")])
    async with app.run_test(size=SIZE) as pilot:
        field, _ = await investigate_form(pilot, app)
        post_at_once(app, ["x", "ctrl+s", "end", *"/z", "escape", *"yz"])
        await settle(pilot, app)
        assert not isinstance(app.screen, ScreenshotScreen), "the escape closed the dialog"
        assert field.value == "xyz"
        assert app.focused is field.input
        # The dialog had the keys typed while it was open.
        post_at_once(app, ["ctrl+s", "end", *"/q"])
        await settle(pilot, app)
        assert isinstance(app.screen, ScreenshotScreen)
        assert app.screen.query_one(Input).value.endswith("/q")


class SwallowsMarks(Input):
    """An input that keeps the marks the app sends behind each key, as a lost mark would be."""

    def on_key_handled(self, message: KeyHandled) -> None:
        message.stop()


async def test_keys_behind_a_lost_mark_still_come_in_order() -> None:
    app = make_app([sample_spec("legacy")])
    async with app.run_test(size=SIZE) as pilot:
        await investigate_form(pilot, app)
        swallows = SwallowsMarks()
        await app.screen.mount(swallows)
        swallows.focus()
        await pilot.pause()
        post_at_once(app, [*"abc", "backspace", "d"])
        await settle(pilot, app)  # each key after the wait for the mark before it
        assert swallows.value == "abd"
