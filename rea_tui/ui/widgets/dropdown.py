"""The completion dropdown: an overlay under an argument field.

It only shows pages whose value is the field's current value, so a stale
reply is never painted. Accepting a value only fills the field.

It is as tall as what it shows: up to ten rows of values and a footer line
per note, or a single line when there is nothing to suggest (so under a
free-text field it fits in the gap before the next field). Its height is set
only when the number of rows changes, and while it is open a smaller height
waits for a pause in typing, so while typing narrows a long list each new page
is a repaint, not a layout pass.
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.css.styles import RulesMap
from textual.geometry import Size
from textual.reactive import Reactive
from textual.strip import Strip
from textual.timer import Timer
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from rea_tui.ui.text import LINE_LIMIT, plain, plain_line

if TYPE_CHECKING:
    from rea_tui.host import CompletionFailure, CompletionPage

SPINNER_DELAY = 0.15
# Seconds per spinner frame.
SPINNER_FRAME_SECONDS = 0.08
SPINNER_FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
EMPTY_MESSAGE = "no suggestions (empty does not mean none)"
NOTE_LIMIT = 200
# Value rows shown at most (more scroll); the border above and below the rows takes two lines.
MAX_ROWS = 10
BORDER_LINES = 2
# Seconds without a new page before a narrowed dropdown is fitted to it: a pause in typing.
SHRINK_DELAY = 0.3


def _fits_in(shape: tuple[int, int, bool], room: tuple[int, int, bool]) -> bool:
    """Whether a dropdown sized `room` can show what `shape` needs (its rows, footer lines and scrollbar)."""
    rows, footer, scrolls = shape
    room_rows, room_footer, room_scrolls = room
    return rows <= room_rows and footer <= room_footer and (room_scrolls or not scrolls)


def footer_lines(page: CompletionPage) -> int:
    """The footer's height: the count (or the empty message) and one line per note."""
    return 1 + len(page.notes)


def footer_for(page: CompletionPage) -> Text:
    text = _count_text(page)
    for note in page.notes:
        text.append("\n")
        text.append_text(plain_line(note, NOTE_LIMIT, style="dim italic"))
    return text


def _count_text(page: CompletionPage) -> Text:
    count = len(page.values)
    if count == 0:
        return Text(EMPTY_MESSAGE, style="italic")
    if page.has_more:
        total = f"{page.total:,}" if page.total is not None else "more"
        text = Text(f"{count:,} of {total} - keep typing to narrow")
    elif page.total is not None and page.total != count:
        text = Text(f"{count:,} of {page.total:,}")
    else:
        text = Text(f"{count:,} {'value' if count == 1 else 'values'}")
    if page.warnings:
        text.append(f"  ⚠ {len(page.warnings)} spec warning(s)", style="bold yellow")
    return text


class SuggestionText(Content):
    """A suggestion as the list draws it, counted as one line when it fits its row.

    The list measures every value of a page (up to 100) each time it is filled, and wrapping
    each one to count its lines was about half of that. A value too long for the row is
    measured, and wrapped, as any text is.
    """

    def get_height(self, rules: RulesMap, width: int) -> int:
        # Suggestions are single lines (sanitize_line): one that fits is one line, wrapped or not.
        if self.cell_length <= width - 2 * rules.get("line_pad", 0):
            return 1
        return super().get_height(rules, width)


class DropdownOptions(OptionList):
    """Never takes focus: the field keeps it and forwards the navigation keys.

    While `stale`, it paints blank lines: values answering an older keystroke are
    never shown, and hiding them costs a repaint, not a style or layout pass.
    """

    can_focus = False

    # The list sets its virtual size to its number of lines whenever it is filled, and Widget declares
    # that reactive with layout=True: a layout pass of the whole screen for every page with another
    # number of values (11 ms a keystroke). Its own size never depends on it (the dropdown sets its
    # height, and whether it scrolls), and the list moves its scrollbar's thumb itself.
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)

    def __init__(self, *, classes: str) -> None:
        super().__init__(classes=classes)
        self.stale = False

    def set_stale(self, stale: bool) -> None:
        if stale != self.stale:
            self.stale = stale
            self.refresh()

    def render_line(self, y: int) -> Strip:
        if self.stale:
            return Strip.blank(self.size.width, self.rich_style)
        return super().render_line(y)


class CompletionDropdown(Vertical):
    """Values for one field, with a footer for total/hasMore, emptiness, spinner or error."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="completion-dropdown")
        self.shown_for: str | None = None
        self.expected: str | None = None
        self.values: tuple[str, ...] = ()
        self._spinner: Timer | None = None
        # Counts the spinner's stops: a start queued before the last stop does nothing.
        self._spinner_turn = 0
        self._frame = 0
        # (value rows, footer lines, scrolls) the dropdown is sized for; None until the first page.
        self._shape: tuple[int, int, bool] | None = None
        # A smaller shape waiting for a pause in typing, and its timer.
        self._pending_shape: tuple[int, int, bool] | None = None
        self._shrink: asyncio.TimerHandle | None = None
        # Sized for a page since it last opened: only then does a shrink wait.
        self._sized_since_open = False
        # Kept, not queried: every keystroke reads them.
        self.options = DropdownOptions(classes="dropdown-options")
        self.footer = Static("", classes="dropdown-footer")
        self._footer_text = Text()

    def compose(self) -> ComposeResult:
        yield self.options
        yield self.footer

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def open(self) -> None:
        if self._shape is None:
            # Before the first page: one line, for the spinner.
            self._size_for(0, 1)
        if not self.is_open:
            # Appearing lays the screen out anyway: its first page is fitted at once.
            self._sized_since_open = False
        self.add_class("-open")

    def close(self) -> None:
        # Closing lays the screen out anyway: a shrink still waiting is done with it.
        self._apply_pending_shape()
        self.remove_class("-open")
        self._stop_spinner()
        self.expected = None

    def expect(self, value: str, *, hide_stale: bool = True) -> None:
        """A request for `value` went out: what is shown answers an older value, so hide it.

        Not hidden here when the caller holds the screen's frames (`hide_stale=False`): it then
        calls `hide_stale` before the next frame, unless the answer came first.
        """
        self.expected = value
        if hide_stale:
            self.hide_stale()
        self.open()
        self._stop_spinner()
        self._spinner = self.set_timer(SPINNER_DELAY, partial(self._start_spinner, self._spinner_turn))

    def hide_stale(self) -> None:
        """Blank the values if they answer another value than the one asked for.

        Hiding (not clearing) keeps the dropdown's size, so no layout pass is needed.
        """
        if self.expected is not None and self.shown_for != self.expected:
            self.options.set_stale(True)
            self._show_footer(Text())

    def _start_spinner(self, turn: int) -> None:
        # Textual's set_timer queues its callback on the widget, so a start that came due just before
        # the answer runs after it, past `_stop_spinner` (and "asking the server…" stayed up under the
        # values it was asking for). set_interval calls its own at once: `_spin` needs no turn.
        if turn != self._spinner_turn:
            return
        self._spinner = self.set_interval(SPINNER_FRAME_SECONDS, self._spin)
        self._spin()

    def _spin(self) -> None:
        self._frame = (self._frame + 1) % len(SPINNER_FRAMES)
        self._show_footer(Text(f"{SPINNER_FRAMES[self._frame]} asking the server…", style="dim"))

    def _stop_spinner(self) -> None:
        self._spinner_turn += 1
        if self._spinner is not None:
            self._spinner.stop()
            self._spinner = None

    @property
    def height(self) -> int:
        """Lines the dropdown takes below its field (once it has been sized)."""
        rows, footer, _scrolls = self._shape or (0, 1, False)
        return rows + footer + (BORDER_LINES if rows else 0)

    def _size_for(self, values: int, footer: int) -> None:
        """Fit the dropdown to `values` values and `footer` lines.

        A new size is a layout pass of the whole screen, the costliest part of a keystroke. While
        the dropdown is open, one that only shrinks waits for a pause in typing (the rows it no
        longer needs stay blank till then), so typing that narrows a list lays nothing out.
        """
        shape = (min(values, MAX_ROWS), footer, values > MAX_ROWS)
        self._cancel_shrink()
        sized, self._sized_since_open = self._sized_since_open, self.is_open
        if shape == self._shape:
            return
        if sized and self._shape is not None and _fits_in(shape, self._shape):
            self._pending_shape = shape
            self._shrink = asyncio.get_running_loop().call_later(SHRINK_DELAY, self._apply_pending_shape)
            return
        self._apply_shape(shape)

    def _cancel_shrink(self) -> None:
        if self._shrink is not None:
            self._shrink.cancel()
            self._shrink = None
        self._pending_shape = None

    def _apply_pending_shape(self) -> None:
        shape = self._pending_shape
        self._cancel_shrink()
        if shape is not None and self.is_attached:
            self._apply_shape(shape)

    def _apply_shape(self, shape: tuple[int, int, bool]) -> None:
        self._shape = shape
        rows, footer_height, scrolls = shape
        self.set_class(rows == 0, "-empty")
        self.options.styles.height = rows
        # A scrollbar only when there are more values than rows (it changes with the rows, never alone).
        self.options.styles.overflow_y = "scroll" if scrolls else "hidden"
        self.footer.styles.height = footer_height
        self.styles.height = self.height

    def show_page(self, page: CompletionPage, current_value: str) -> bool:
        """Show `page` if it answers the field's current value; False when it is stale."""
        if page.value != current_value or self.expected != current_value:
            return False
        self._stop_spinner()
        # The same value answered again (a refocus, the target opening): the highlight stays where it was moved.
        kept = self.highlighted_value() if page.value == self.shown_for else None
        options = self.options
        if page.values != self.values or not options.option_count:
            # One replacement (not clear + add): the list's size changes once, not twice. The same
            # values again (typing on within one match, or a few) keep the list as it is: building
            # and measuring it is most of a keystroke's work.
            text = SuggestionText.from_rich_text
            options.set_options([Option(text(plain_line(value, LINE_LIMIT))) for value in page.values])
        self.values = page.values
        self.shown_for = page.value
        if page.values:
            options.highlighted = page.values.index(kept) if kept in page.values else 0
        self._size_for(len(page.values), footer_lines(page))
        options.set_stale(False)
        self._show_footer(footer_for(page))
        self.open()
        return True

    def _show_footer(self, text: Text) -> None:
        # The same footer again is not repainted (Text's == leaves out the base style).
        if text != self._footer_text or text.style != self._footer_text.style:
            self._footer_text = text
            self.footer.update(text, layout=False)

    def show_failure(self, failure: CompletionFailure, current_value: str) -> bool:
        if failure.value != current_value or self.expected != current_value:
            return False
        self._stop_spinner()
        self.options.clear_options()
        self.values = ()
        self.shown_for = failure.value
        # Two lines: the error and what it says (an error is worth the room).
        self._size_for(0, 2)
        self.options.set_stale(False)
        code = getattr(failure.error, "code", None)
        prefix = f"error {code}: " if code is not None else "error: "
        message = str(failure.error)
        if code is not None and message.startswith(f"error {code}: "):
            message = message[len(f"error {code}: ") :]
        self._show_footer(Text(prefix, style="bold red").append_text(plain(message, LINE_LIMIT)))
        self.open()
        return True

    def move(self, action: str) -> None:
        options = self.options
        if not options.option_count:
            return
        getattr(options, f"action_{action}")()

    def highlighted_value(self) -> str | None:
        index = self.options.highlighted
        if index is None or not 0 <= index < len(self.values):
            return None
        return self.values[index]
