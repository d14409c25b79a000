"""The egress guard on every frame: text that skipped the ingress fails a test, and never reaches a terminal."""

from __future__ import annotations

from typing import Any

import pytest
from rich.text import Text
from textual.app import App
from textual.screen import Screen
from textual.strip import Strip
from textual.widgets import Static

from rea_tui.host import EgressViolation, Session
from rea_tui.ui.app import create_app

# What a display path that forgot `plain()` would paint: a title-setting OSC, a bidi override, a BEL.
UNSANITIZED = "name\x1b]0;owned\x07\u202egnp.exe"


async def test_a_frame_with_unsanitized_text_fails_in_strict_mode() -> None:
    app = create_app(Session([]))
    with pytest.raises(EgressViolation, match="U\\+001B"):
        async with app.run_test() as pilot:
            await app.main.mount(Static(Text(UNSANITIZED)))
            await pilot.pause()


def segment_text(update: Any) -> str:
    """The text (not Textual's control segments) of a compositor update, full or partial."""
    strips: list[Strip] = []
    for line in getattr(update, "strips", None) or []:
        strips.extend([line] if isinstance(line, Strip) else line)
    for chop in getattr(update, "chops", None) or []:
        strips.extend(strip for strip in chop.values() if strip is not None)
    return "".join(seg.text for strip in strips for seg in strip if seg.control is None)


async def test_outside_strict_mode_the_frame_is_cleaned_and_the_app_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REA_TUI_STRICT_EGRESS")
    written: list[str] = []
    display = App._display

    def capture(self: App[Any], screen: Screen[Any], renderable: Any) -> None:
        # What Textual's own _display gets is what it writes to the terminal.
        written.append(segment_text(renderable))
        display(self, screen, renderable)

    monkeypatch.setattr(App, "_display", capture)
    app = create_app(Session([]))
    async with app.run_test() as pilot:
        await app.main.mount(Static(Text(UNSANITIZED), id="leak"))
        await pilot.pause()
        painted = "".join(written)
        assert "name" in painted and "gnp.exe" in painted
        assert not any(ch in painted for ch in ("\x1b", "\x07", "\u202e"))
        assert app.is_running
