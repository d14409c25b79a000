"""The field above the server tree: type to narrow it to the prompts, tools and resources whose names match."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Input

# The key that comes here is named in the field (the footer has no room for it at 160 columns).
PLACEHOLDER = "Filter prompts, tools, resources  ^f"


class SidebarFilter(Input):
    """A one-line filter; its screen applies `Input.Changed` to the tree. Escape clears it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "clear_filter", "Clear filter", id="clear-filter", tooltip="Show every entry again"),
    ]

    class Left(Message):
        """The analyst is done filtering: focus goes back to the tree (after Enter, to the first match)."""

        def __init__(self, *, to_first_match: bool) -> None:
            super().__init__()
            self.to_first_match = to_first_match

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(placeholder=PLACEHOLDER, id=id)

    def action_clear_filter(self) -> None:
        self.value = ""
        self.post_message(self.Left(to_first_match=False))

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Left(to_first_match=True))
