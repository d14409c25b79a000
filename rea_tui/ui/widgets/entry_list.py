"""The evidence ledger's entries: one line each, drawn only where they are seen.

Textual's OptionList measures every option (it wraps each one to learn its
height) whenever its options change and at each layout of its pane: with
1,000 entries, a replay restoring a ledger stalled the screen for 60 ms, and
every entry added later paid for the whole list again. An entry is one line
(`evidence_pane.entry_line`), so this list's height is its length and a frame
renders only the rows in view. It draws a row the way OptionList draws an
option (the same visual calls and the same styles), so it looks the same.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.visual import Visual, visualize

ENTRY = "entry-list--entry"
HIGHLIGHTED = "entry-list--highlighted"
HOVER = "entry-list--hover"
# Rendered rows kept; more than a screen's worth, fewer than a long ledger.
RENDERED_ROWS_KEPT = 200


class EntryList(ScrollView, can_focus=True):
    """Rows of (entry ID, line); `highlighted` is the index of the row the cursor is on."""

    DEFAULT_CSS = """
    EntryList {
        height: auto;
        max-height: 100%;
        color: $foreground;
        overflow-x: hidden;
        border: tall $border-blurred;
        padding: 0 1;
        background: $surface;
        & > .entry-list--highlighted {
            color: $foreground;
            background: $block-cursor-blurred-background;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus {
            border: tall $border;
            background-tint: $foreground 5%;
            & > .entry-list--highlighted {
                color: $block-cursor-foreground;
                background: $block-cursor-background;
                text-style: $block-cursor-text-style;
            }
        }
        & > .entry-list--hover {
            background: $block-hover-background;
        }
    }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {ENTRY, HIGHLIGHTED, HOVER}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "cursor_down", "Down", show=False),
        Binding("up", "cursor_up", "Up", show=False),
        Binding("home", "first", "First", show=False),
        Binding("end", "last", "Last", show=False),
        Binding("pagedown", "page_down", "Page Down", show=False),
        Binding("pageup", "page_up", "Page Up", show=False),
    ]

    highlighted: reactive[int | None] = reactive(None)

    class Highlighted(Message):
        """The cursor moved to the entry `entry_id`."""

        def __init__(self, entry_list: EntryList, entry_id: str) -> None:
            super().__init__()
            self.entry_list = entry_list
            self.entry_id = entry_id

        @property
        def control(self) -> EntryList:
            return self.entry_list

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._ids: list[str] = []
        self._lines: list[Text] = []
        self._index_of: dict[str, int] = {}
        self._hover: int | None = None
        self._rendered: dict[tuple[int, object, int], Strip] = {}

    # ------------------------------------------------------------ the rows

    @property
    def entry_count(self) -> int:
        return len(self._ids)

    def id_at(self, index: int) -> str:
        return self._ids[index]

    def index_of(self, entry_id: str) -> int | None:
        return self._index_of.get(entry_id)

    def line_at(self, index: int) -> Text:
        return self._lines[index]

    def line_of(self, entry_id: str) -> Text | None:
        index = self._index_of.get(entry_id)
        return None if index is None else self._lines[index]

    def set_rows(self, rows: list[tuple[str, Text]]) -> None:
        """Every row at once; the highlight is dropped (the caller sets it again)."""
        self._ids = [entry_id for entry_id, _line in rows]
        self._lines = [line for _entry_id, line in rows]
        self._index_of = {entry_id: index for index, entry_id in enumerate(self._ids)}
        self._hover = None
        self.set_reactive(EntryList.highlighted, None)
        self._changed(resized=True)

    def append_row(self, entry_id: str, line: Text) -> None:
        self._index_of[entry_id] = len(self._ids)
        self._ids.append(entry_id)
        self._lines.append(line)
        self._changed(resized=True)

    def replace_line(self, entry_id: str, line: Text) -> None:
        index = self._index_of[entry_id]
        self._lines[index] = line
        self._changed(resized=False)

    def _changed(self, *, resized: bool) -> None:
        self._rendered.clear()
        if resized:
            self.virtual_size = Size(self.scrollable_content_region.width, len(self._ids))
            # The list's own height follows its length (up to its max-height).
            self.refresh(layout=True)
        else:
            self.refresh()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._ids)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def on_resize(self) -> None:
        self._rendered.clear()
        self.virtual_size = Size(self.scrollable_content_region.width, len(self._ids))

    # ------------------------------------------------------------ drawing

    def render_line(self, y: int) -> Strip:
        index = self.scroll_offset.y + y
        width = self.scrollable_content_region.width
        if not 0 <= index < len(self._lines):
            return Strip.blank(width, self.get_visual_style(ENTRY).rich_style)
        component = HIGHLIGHTED if index == self.highlighted else HOVER if index == self._hover else None
        style = self.get_visual_style(ENTRY, component) if component else self.get_visual_style(ENTRY)
        key = (index, style, width)
        strip = self._rendered.get(key)
        if strip is None:
            visual = visualize(self, self._lines[index], markup=False)
            first = Visual.to_strips(self, visual, width, 1, style)[0]
            strip = first.extend_cell_length(width, style.rich_style).apply_meta({"entry": index})
            if len(self._rendered) >= RENDERED_ROWS_KEPT:
                self._rendered.clear()
            self._rendered[key] = strip
        return strip

    # ------------------------------------------------------------ the cursor

    def validate_highlighted(self, highlighted: int | None) -> int | None:
        if highlighted is None or not self._ids:
            return None
        return max(0, min(highlighted, len(self._ids) - 1))

    def watch_highlighted(self, old: int | None, new: int | None) -> None:
        self.refresh()
        if new is None:
            return
        self.call_after_refresh(self._bring_into_view, new)
        if old != new:
            self.post_message(self.Highlighted(self, self._ids[new]))

    def _bring_into_view(self, index: int) -> None:
        if index < len(self._ids):
            region = Region(0, index, self.scrollable_content_region.width, 1)
            self.scroll_to_region(region, animate=False, force=True, immediate=True)

    def _move_to(self, index: int) -> None:
        if self._ids:
            self.highlighted = index

    def action_cursor_down(self) -> None:
        self._move_to(0 if self.highlighted is None else self.highlighted + 1)

    def action_cursor_up(self) -> None:
        self._move_to(len(self._ids) - 1 if self.highlighted is None else self.highlighted - 1)

    def action_first(self) -> None:
        self._move_to(0)

    def action_last(self) -> None:
        self._move_to(len(self._ids) - 1)

    def action_page_down(self) -> None:
        self._move_to((self.highlighted or 0) + max(1, self.scrollable_content_region.height))

    def action_page_up(self) -> None:
        self._move_to((self.highlighted or 0) - max(1, self.scrollable_content_region.height))

    # ------------------------------------------------------------ the mouse

    def _row_under(self, event: events.MouseEvent) -> int | None:
        index = event.style.meta.get("entry")
        return index if isinstance(index, int) else None

    def on_click(self, event: events.Click) -> None:
        index = self._row_under(event)
        if index is not None:
            self.highlighted = index

    def on_mouse_move(self, event: events.MouseMove) -> None:
        index = self._row_under(event)
        if index != self._hover:
            self._hover = index
            self._rendered.clear()
            self.refresh()

    def on_leave(self, _event: events.Leave) -> None:
        if self._hover is not None:
            self._hover = None
            self._rendered.clear()
            self.refresh()
