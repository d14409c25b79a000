"""The main screen's four panes: which one a widget is in, and what in each takes the focus."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from textual.widgets import Input, ListView

from rea_tui.ui.widgets.argument_form import ArgumentForm
from rea_tui.ui.widgets.entry_list import EntryList
from rea_tui.ui.widgets.result_view import ViewTable
from rea_tui.ui.widgets.sidebar import ServerTree

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.widget import Widget

Pane = Literal["prompts", "form", "workflow", "evidence"]
PANES: tuple[Pane, ...] = ("prompts", "form", "workflow", "evidence")
# The container of each pane (its border shows where the focus is).
PANE_IDS: dict[str, Pane] = {"sidebar": "prompts", "form": "form", "workflow": "workflow", "evidence": "evidence"}


def pane_of(screen: Screen[Any], widget: Widget | None) -> Pane | None:
    """The pane a widget is in (None: outside every pane, or nothing)."""
    node = widget
    while node is not None and node is not screen:
        if node.id in PANE_IDS:
            return PANE_IDS[node.id]
        node = node.parent  # type: ignore[assignment]
    return None


def focus_target(screen: Screen[Any], pane: Pane) -> Widget | None:
    """What takes the focus in `pane`: the tree, the first empty field, the steps, the evidence's rows."""
    if pane == "prompts":
        return screen.query_one(ServerTree)
    if pane == "form":
        return screen.query_one(ArgumentForm).first_empty_field() or screen.query_one("#render-button")
    if pane == "workflow":
        steps = screen.query_one("#workflow-steps", ListView)
        if not steps.children:
            return screen.query_one("#workflow-scroll")
        if steps.index is None:
            steps.index = 0  # enter opens the first step
        return steps
    # The shown entry's rows first (enter acts on them; shift+tab reaches the list), else the list, else the filter.
    rows = screen.query(ViewTable)
    if rows:
        return rows.first()
    entries = screen.query_one(EntryList)
    return entries if entries.entry_count else screen.query_one("#evidence-filter", Input)
