"""A text field of a tool form with the prompt form's completion dropdown.

The server completes prompt arguments and template variables only; the tool
form asks about the argument of the same name (`host.tool_completion_refs`),
through the same host `CompletionFeed` (newest value wins, stale replies
dropped). Up/down/page/home/end move in the dropdown, enter takes the
highlighted value, tab takes it once the analyst typed or moved (and goes on
to the next field), escape closes it. Nothing runs from a suggestion.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from textual import events
from textual.widgets import Input

from rea_tui.host import CompletionFailure, CompletionPage, sanitize
from rea_tui.ui.widgets.dropdown import CompletionDropdown

# (value, the other fields' values, deliver): asks the server; `deliver` gets the page or the failure.
FieldCompleter = Callable[[str, Mapping[str, str], Callable[[CompletionPage | CompletionFailure], None]], None]

_DROPDOWN_KEYS = {
    "up": "cursor_up",
    "down": "cursor_down",
    "pageup": "page_up",
    "pagedown": "page_down",
    "home": "first",
    "end": "last",
}


class CompletingInput(Input):
    """An Input whose value the server completes, shown in a `CompletionDropdown` mounted after it."""

    def __init__(
        self, value: str, complete: FieldCompleter, others: Callable[[], Mapping[str, str]], **kwargs: Any
    ) -> None:
        self.dropdown = CompletionDropdown()
        self._complete = complete
        self._others = others
        self._accepting = False
        # Typed in, or moved the highlight, since the focus came: only then does tab take a value.
        self.engaged = False
        super().__init__(value, **kwargs)

    def ask(self) -> None:
        """Ask for the suggestions of what the field holds now."""
        value = self.value
        dropdown = self.dropdown
        dropdown.expect(value)

        def deliver(page: CompletionPage | CompletionFailure) -> None:
            if not self.is_attached or not self.has_focus:
                return
            if isinstance(page, CompletionPage):
                dropdown.show_page(page, self.value)
            else:
                dropdown.show_failure(page, self.value)

        self._complete(value, self._others(), deliver)

    def _on_focus(self, event: events.Focus) -> None:
        super()._on_focus(event)
        self.engaged = False
        self.ask()

    def _on_blur(self, event: events.Blur) -> None:
        super()._on_blur(event)
        self.dropdown.close()

    def typed(self) -> None:
        """The value changed: by the analyst (ask again), or by an accepted value (nothing to ask)."""
        if self._accepting or not self.has_focus:
            return
        self.engaged = True
        self.ask()

    def accept(self, value: str) -> None:
        self._accepting = True
        try:
            self.value = sanitize(value, None)
        finally:
            self._accepting = False
        self.cursor_position = len(self.value)
        self.dropdown.close()

    async def _on_key(self, event: events.Key) -> None:
        dropdown = self.dropdown
        if dropdown.is_open:
            if event.key in _DROPDOWN_KEYS:
                event.stop()
                event.prevent_default()
                self.engaged = True
                dropdown.move(_DROPDOWN_KEYS[event.key])
                return
            value = dropdown.highlighted_value()
            if value is not None and (event.key == "enter" or (event.key == "tab" and self.engaged)):
                event.stop()
                event.prevent_default()
                self.accept(value)
                if event.key == "tab":
                    self.screen.focus_next()  # the value is in: tab goes on to the next field
                return
            if event.key == "escape":
                event.stop()
                event.prevent_default()
                dropdown.close()
                return
        await super()._on_key(event)
