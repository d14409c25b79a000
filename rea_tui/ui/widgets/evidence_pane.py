"""The evidence pane: the ledger's entries with outcome badges, a filter, and the selected entry.

Entries are listed under the ID the analyst cites (the server's evidence ID
when the result has one). A result reads like a tool: a disassembly as a
listing, documents, procedures, strings and references as tables; the JSON
tree is the other view (f7), for every result and for shapes not recognised.
Large text is rendered lazily: the first part is shown, the rest comes with
"show more", so a multi-megabyte result never blocks the screen.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.geometry import Region
from textual.message import Message
from textual.widgets import Button, DataTable, Input, ProgressBar, Static, Tree

from rea_tui.host import InspectionHistory, TextBlock, result_views, sanitize_line
from rea_tui.ui.settings import DEFAULT_SETTINGS, AppSettings, settings_of
from rea_tui.ui.text import (
    BODY_LIMIT,
    DOCUMENT_LIMIT,
    LINE_LIMIT,
    MESSAGE_LIMIT,
    NAME_LIMIT,
    PARAGRAPH_LIMIT,
    WORD_LIMIT,
    join,
    plain,
    plain_line,
)
from rea_tui.ui.widgets.entry_list import EntryList
from rea_tui.ui.widgets.result_view import JsonLeaf, ViewTable, json_tree, leaf_facts, view_widgets
from rea_tui.ui.widgets.workflow_view import block_card

if TYPE_CHECKING:
    from rea_tui.host import EvidenceEntry, EvidenceLedger

FIRST_CHUNK = 20_000
MORE_CHUNK = 200_000
# More changed entries than this at once (a replay restoring a ledger) rebuild the list in one go.
UPDATE_LINES_UP_TO = 20
# Arguments shown on one line when they fit; otherwise as indented JSON.
INLINE_ARGUMENTS = 200
# Entries shown on each side of the current one in the history's breadcrumb.
TRAIL_AROUND = 4
DetailView = Literal["reading", "tree"]

BADGES: dict[str, tuple[str, str]] = {
    "running": ("…", "yellow"),
    "ok": ("✓", "green"),
    "tool_error": ("✗", "red"),
    "protocol_error": ("!", "red"),
    "cancelled": ("⊘", "yellow"),
    "timed_out": ("⌛", "yellow"),
    "server_exited": ("⏏", "red"),
    "unavailable": ("⏏", "red"),
    "authorization_needed": ("✗", "yellow"),
    "failed": ("‼", "bold red"),
}


def badge(entry: EvidenceEntry) -> Text:
    symbol, style = BADGES.get(entry.outcome, ("?", ""))
    return Text(f"{symbol} {entry.outcome_label}", style=style)


def shown_ref(entry: EvidenceEntry) -> str:
    """The ID as listed: a transcript's own may be anything, so it is made one plain line."""
    return sanitize_line(entry.label, NAME_LIMIT)


def entry_line(entry: EvidenceEntry, settings: AppSettings = DEFAULT_SETTINGS, ref_width: int = 0) -> Text:
    """One line, whatever the entry holds (EntryList counts on it)."""
    line = Text(no_wrap=True, overflow="ellipsis")
    line.append(f"{shown_ref(entry):<{ref_width}} ", style="bold")
    line.append_text(badge(entry))
    line.append("  ")
    line.append_text(plain_line(entry.tool, WORD_LIMIT))
    if entry.narrowing is not None:
        line.append(f"  ? round {entry.narrowing_round}", style="bold magenta")
    if entry.duration_ms is not None and settings.show_timings:
        line.append(f"  {entry.duration_label}", style="dim")
    return line


class ChunkedText(Vertical):
    """A long text shown in parts: the first chunk now, more on request."""

    def __init__(self, text: str) -> None:
        super().__init__(classes="chunked-text")
        self.text = text
        self.shown = min(len(text), FIRST_CHUNK)

    def compose(self) -> ComposeResult:
        yield Static(plain(self.text[: self.shown], None), classes="chunk")
        if self.shown < len(self.text):
            yield Button(self._more_label(), classes="show-more", compact=True)

    def _more_label(self) -> str:
        return f"show more ({len(self.text) - self.shown:,} characters left)"

    async def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        start, self.shown = self.shown, min(len(self.text), self.shown + MORE_CHUNK)
        await self.mount(Static(plain(self.text[start : self.shown], None), classes="chunk"), before=event.button)
        if self.shown >= len(self.text):
            await event.button.remove()
        else:
            event.button.label = self._more_label()


def arguments_text(arguments: dict[str, Any]) -> Text:
    """`query="unknown encoding"` on one line when the arguments are few and short, else indented JSON."""
    text = Text("arguments ", style="bold")
    if not arguments:
        text.append("none", style="dim")
        return text
    inline = "  ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in arguments.items())
    scalar = all(isinstance(v, str | int | float | bool) or v is None for v in arguments.values())
    if scalar and len(inline) <= INLINE_ARGUMENTS:
        text.append_text(plain_line(inline, INLINE_ARGUMENTS))
    else:
        text.append_text(plain(json.dumps(arguments, indent=2, ensure_ascii=False), DOCUMENT_LIMIT))
    return text


def repeats_structured(entry: EvidenceEntry, block: TextBlock) -> bool:
    """A text block that is the structured content again, as JSON (REA's results carry both)."""
    if not entry.has_structured or not block.text.lstrip().startswith(("{", "[")):
        return False
    try:
        return bool(json.loads(block.text) == entry.structured)
    except ValueError:
        return False


class EvidenceDetail(VerticalScroll):
    """Everything about one evidence entry, read as a listing or tables, or as the JSON tree."""

    class AnswerRequested(Message):
        def __init__(self, entry_id: str) -> None:
            super().__init__()
            self.entry_id = entry_id

    def __init__(self, ledger: EvidenceLedger, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.ledger = ledger
        self.entry: EvidenceEntry | None = None
        self.view: DetailView = "reading"

    async def show(self, entry: EvidenceEntry | None) -> None:
        self.entry = entry
        await self.remove_children()
        if entry is None:
            await self.mount(Static(Text("No evidence yet: run a step.", style="dim")))
            return
        await self.mount_all(list(self._widgets(entry)))

    @property
    def tables(self) -> list[ViewTable]:
        return list(self.query(ViewTable))

    def on_tree_node_selected(self, event: Tree.NodeSelected[JsonLeaf | None]) -> None:
        """Enter on a named field of the JSON tree acts on it like a row (any server's result reads so)."""
        facts = leaf_facts(event.node.data)
        if facts:
            event.stop()
            self.post_message(ViewTable.RowChosen(None, facts))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """The detail scrolls with a table's cursor (the table is as tall as its rows; the detail scrolls)."""
        table = event.data_table
        if table.parent is not self:
            return
        row = table.virtual_region.y + table.header_height + event.cursor_row
        self.scroll_to_region(Region(0, row, 1, 1), animate=False, immediate=True)

    async def toggle_view(self) -> DetailView:
        """Between the listing and tables and the JSON tree; the entry shown is redrawn."""
        self.view = "tree" if self.view == "reading" else "reading"
        if self.entry is not None:
            await self.show(self.entry)
        return self.view

    def update_progress(self, entry: EvidenceEntry) -> None:
        if self.entry is not entry or entry.progress is None:
            return
        for bar in self.query(ProgressBar):
            fraction = entry.progress.fraction
            if fraction is None:
                bar.update(total=None)
            else:
                bar.update(total=100, progress=fraction * 100)
        for message in self.query(".progress-message").results(Static):
            message.update(plain_line(entry.progress.message or "", LINE_LIMIT))

    def _head(self, entry: EvidenceEntry) -> Static:
        head = join(
            Text(shown_ref(entry), style="bold"),
            Text("  "),
            plain_line(entry.tool, NAME_LIMIT, style="bold"),
            Text("  "),
        )
        head.append_text(badge(entry))
        if entry.duration_ms is not None and settings_of(self).show_timings:
            head.append(f"  {entry.duration_label}", style="dim")
        head.append("\nserver ", style="dim")
        head.append_text(plain_line(entry.server, NAME_LIMIT))
        head.append(f"  approval: {entry.approval}", style="dim")
        if entry.follows:
            followed = self.ledger.get(entry.follows)
            # A narrowing reply has no ID: what follows it answers the server's question.
            shown = (followed.ref or "the server's question") if followed is not None else entry.follows
            head.append(f"  follows {shown} (narrowing round {entry.narrowing_round})", style="dim")
        return Static(head, classes="evidence-head")

    def _status(self, entry: EvidenceEntry) -> list[Any]:
        """Progress, the replay comparison, the server's question and the error, above the result."""
        widgets: list[Any] = []
        if entry.outcome == "running":
            widgets.append(ProgressBar(total=None, show_eta=False, classes="evidence-progress"))
            widgets.append(Static("", classes="progress-message"))
            widgets.append(Static(Text("ctrl+b cancels the call", style="dim")))
        if entry.replay_of and entry.finished:
            if entry.replay_diff is None:
                widgets.append(Static(Text(f"replay: the same result as recorded {entry.replay_of}", style="green")))
            else:
                text = Text("replay: differs from the recording\n", style="bold yellow")
                text.append_text(plain(entry.replay_diff, BODY_LIMIT))
                widgets.append(Static(text, classes="replay-diff"))
        if entry.narrowing is not None:
            question = entry.narrowing
            text = Text(f"The server asks ({question.reason}): ", style="bold magenta")
            text.append_text(plain(question.ask_user, PARAGRAPH_LIMIT))
            if question.scoped_by:
                text.append("\nscoped by: ", style="dim")
                text.append_text(plain(json.dumps(question.scoped_by, ensure_ascii=False), MESSAGE_LIMIT))
            text.append(f"\n{len(question.candidates)} candidates", style="dim")
            widgets.append(Static(text, classes="narrowing-question"))
            answer = Button("Answer…", id="answer-narrowing", variant="warning", compact=True)
            answer.tooltip = "pick a candidate; the same call opens again with it pinned"
            widgets.append(answer)
        if entry.error:
            error = Text("error  ", style="bold red")
            error.append_text(plain(entry.error, DOCUMENT_LIMIT))
            widgets.append(Static(error, classes="evidence-error"))
        return widgets

    def _result(self, entry: EvidenceEntry) -> list[Any]:
        """The listing or tables (reading), or the JSON tree with every text block (tree)."""
        if entry.narrowing is not None:
            return [block_card(entry.server, b) for b in entry.content if not isinstance(b, TextBlock)]
        views = result_views(entry.structured) if entry.has_structured and self.view == "reading" else []
        widgets: list[Any] = [w for view in views for w in view_widgets(view)]
        for block in entry.content:
            if not isinstance(block, TextBlock):
                widgets.append(block_card(entry.server, block))
            elif self.view == "tree" or not repeats_structured(entry, block):
                widgets.append(ChunkedText(block.text))
        if entry.has_structured and not views:
            widgets.append(json_tree(entry.structured))
        return widgets

    def _widgets(self, entry: EvidenceEntry) -> list[Any]:
        widgets: list[Any] = [
            self._head(entry),
            Static(arguments_text(entry.arguments), classes="evidence-args"),
            *self._status(entry),
            *self._result(entry),
        ]
        if entry.schema_check:
            style = "red" if entry.schema_check.startswith("invalid") else "dim"
            widgets.append(Static(Text(f"output schema: {entry.schema_check}", style=style)))
        if entry.finished:
            actions = Horizontal(classes="evidence-actions")
            if entry.ref:  # a narrowing reply has no ID to copy
                actions.compose_add_child(Button("Copy ID", id="copy-id", compact=True))
            copy_value = Button("Copy value", id="copy-value", compact=True)
            copy_value.tooltip = "the result as one line (line breaks become spaces)"
            actions.compose_add_child(copy_value)
            copy_block = Button("Copy block", id="copy-block", compact=True)
            copy_block.tooltip = "the result with its line breaks (indented JSON for structured content)"
            actions.compose_add_child(copy_block)
            if entry.has_structured and entry.narrowing is None:
                other = "JSON tree" if self.view == "reading" else "listing and tables"
                toggle = Button(f"{other}  f7", id="toggle-view", compact=True)
                toggle.tooltip = "show the result the other way"
                actions.compose_add_child(toggle)
            widgets.append(actions)
        return widgets

    async def on_button_pressed(self, event: Button.Pressed) -> None:
        entry = self.entry
        if entry is None:
            return
        if event.button.id == "copy-id":
            event.stop()
            self.app.copy_to_clipboard(entry.ref)
            self.notify(f"Copied {entry.ref}", markup=False)
        elif event.button.id == "copy-value":
            event.stop()
            value = json.dumps(entry.structured, ensure_ascii=False) if entry.has_structured else entry.text()
            # One line: line breaks and tabs become spaces, so a paste into a shell without bracketed
            # paste cannot run a second line (or complete a name on a tab).
            self.app.copy_to_clipboard(sanitize_line(value, None))
            self.notify(f"Copied the value of {entry.ref} as one line ({len(value):,} characters)", markup=False)
        elif event.button.id == "copy-block":
            event.stop()
            value = json.dumps(entry.structured, indent=2, ensure_ascii=False) if entry.has_structured else entry.text()
            self.app.copy_to_clipboard(value)
            self.notify(f"Copied {entry.ref} with its line breaks ({len(value):,} characters)", markup=False)
        elif event.button.id == "toggle-view":
            event.stop()
            await self.toggle_view()
        elif event.button.id == "answer-narrowing":
            event.stop()
            self.post_message(self.AnswerRequested(entry.id))


class EvidencePane(Vertical):
    """Bottom right: the evidence ledger, the history of what was inspected, and the selected entry."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # Neither key types into a field: the filter takes `[` and `]` as text before the pane sees them.
        Binding(
            "left_square_bracket,alt+left",
            "back",
            "Back",
            id="evidence-back",
            tooltip="The entry inspected before",
            # The breadcrumb names both keys; the footer is full at 160 columns.
            show=False,
        ),
        Binding(
            "right_square_bracket,alt+right",
            "forward",
            "Forward",
            id="evidence-forward",
            tooltip="The entry inspected after (back undone)",
            show=False,
        ),
        Binding("enter", "choose_entry", "Act", id="evidence-act", tooltip="What the entry's ID offers", show=False),
        Binding("c", "copy_id", "Copy ID", id="evidence-copy-id", tooltip="Copy the selected entry's ID", show=False),
    ]

    class EntryChosen(Message):
        """Enter on an entry of the list: what its evidence ID offers."""

        def __init__(self, entry_id: str) -> None:
            super().__init__()
            self.entry_id = entry_id

    def __init__(self, ledger: EvidenceLedger, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.ledger = ledger
        self.border_title = "Evidence"
        # The width of the ID column, the longest ID listed: the lines' badges stay in one column.
        self._ref_width = 0
        self.history = InspectionHistory()
        # Where each entry's table cursors were (table index, row), put back when it is shown again.
        self._cursors: dict[str, tuple[int, int]] = {}
        # The entry back or forward is going to (the list's cursor follows it; that is not a new visit).
        self._going_to: str | None = None

    def compose(self) -> ComposeResult:
        yield Input(placeholder="filter: id, tool, outcome or text", id="evidence-filter")
        yield Static("", id="evidence-trail")
        with Vertical(id="evidence-body"):
            yield EntryList(id="evidence-list")
            yield EvidenceDetail(self.ledger, id="evidence-detail")

    # ------------------------------------------------------------ history

    async def _shown(self, entry: EvidenceEntry, *, visit: bool = True) -> None:
        """Show `entry` in the detail (and, unless going back or forward, visit it), its cursor where it was."""
        if visit:
            self.history.visit(entry.id)
        detail = self.query_one(EvidenceDetail)
        await detail.show(entry)
        self._show_trail()
        place = self._cursors.get(entry.id)
        tables = detail.tables
        if place is not None and place[0] < len(tables):
            table = tables[place[0]]
            self.call_after_refresh(table.move_cursor, row=place[1], animate=False)

    def _show_trail(self) -> None:
        keys, here = self.history.trail(TRAIL_AROUND)
        text = Text(no_wrap=True, overflow="ellipsis")
        if len(keys) > 1:
            text.append("[ back  ", style="dim")
            for index, key in enumerate(keys):
                if index:
                    text.append(" › ", style="dim")
                entry = self.ledger.get(key)
                label = f"{shown_ref(entry)} {sanitize_line(entry.tool, NAME_LIMIT)}" if entry is not None else key
                text.append(label, style="bold reverse" if index == here else "")
            text.append("  ] forward", style="dim")
        self.query_one("#evidence-trail", Static).update(text)
        self.set_class(len(keys) > 1, "-has-trail")

    async def _go(self, entry_id: str | None) -> None:
        entry = self.ledger.get(entry_id) if entry_id is not None else None
        if entry is None:
            return
        listed = self.query_one(EntryList)
        index = listed.index_of(entry.id)
        if index is not None and listed.highlighted != index:
            self._going_to = entry.id  # the list's message for it is not a visit
            listed.highlighted = index
        await self._shown(entry, visit=False)
        tables = self.query_one(EvidenceDetail).tables
        focused = self.screen.focused
        if tables and focused is not None and self in focused.ancestors_with_self:
            tables[min(self._cursors.get(entry.id, (0, 0))[0], len(tables) - 1)].focus()

    async def action_back(self) -> None:
        await self._go(self.history.back())

    async def action_forward(self) -> None:
        await self._go(self.history.forward())

    def action_copy_id(self) -> None:
        entry = self.query_one(EvidenceDetail).entry
        if entry is not None:
            self.app.copy_to_clipboard(entry.ref)
            self.notify(f"Copied {entry.ref}", markup=False, timeout=2)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        detail = self.query_one(EvidenceDetail)
        table = event.data_table
        if detail.entry is not None and isinstance(table, ViewTable) and table in detail.tables:
            self._cursors[detail.entry.id] = (detail.tables.index(table), event.cursor_row)

    def focus_rows(self) -> bool:
        """Put the focus on the shown entry's first table (False when it has none)."""
        tables = self.query_one(EvidenceDetail).tables
        if tables:
            tables[0].focus()
        return bool(tables)

    def action_choose_entry(self) -> None:
        """Enter on the list (a table, a field and a button take enter themselves first)."""
        if isinstance(self.screen.focused, EntryList):
            entry_id = self.selected_id
            if entry_id is not None:
                self.post_message(self.EntryChosen(entry_id))

    async def on_mount(self) -> None:
        await self.query_one(EvidenceDetail).show(None)

    @property
    def selected_id(self) -> str | None:
        entries = self.query_one(EntryList)
        index = entries.highlighted
        return None if index is None else entries.id_at(index)

    def refresh_list(self, select: str | None = None) -> None:
        filter_text = self.query_one("#evidence-filter", Input).value
        entries = self.ledger.search(filter_text)
        keep = select or self.selected_id
        listed = self.query_one(EntryList)
        self._ref_width = width = max((len(shown_ref(e)) for e in entries), default=0)
        listed.set_rows([(e.id, entry_line(e, settings_of(self), width)) for e in entries])
        self.border_title = f"Evidence ({len(self.ledger.entries)})"
        ids = [e.id for e in entries]
        if keep in ids:
            listed.highlighted = ids.index(keep)
        elif ids:
            listed.highlighted = len(ids) - 1

    def _update_line(self, entry: EvidenceEntry, *, select: bool) -> bool:
        """Show one new or changed entry without rebuilding the list (with 1,000 entries a rebuild per
        change made a session of 1,000 calls quadratic); False when the list must be rebuilt."""
        if self.query_one("#evidence-filter", Input).value.strip():
            return False  # a filter: the entry may now match, or no longer
        if len(shown_ref(entry)) > self._ref_width:
            return False  # a longer ID widens the column of every line
        listed = self.query_one(EntryList)
        line = entry_line(entry, settings_of(self), self._ref_width)
        shown = listed.line_of(entry.id)
        if shown is not None:
            if shown != line:
                listed.replace_line(entry.id, line)
        elif listed.entry_count == len(self.ledger.entries) - 1 and self.ledger.entries[-1] is entry:
            listed.append_row(entry.id, line)
            self.border_title = f"Evidence ({len(self.ledger.entries)})"
        else:
            return False
        if select:
            listed.highlighted = listed.index_of(entry.id)
        return True

    async def entries_changed(self, entries: Sequence[EvidenceEntry], newest: EvidenceEntry | None) -> None:
        """Entries opened or changed since the last call, `newest` the newest opened (it is selected)."""
        if len(entries) > UPDATE_LINES_UP_TO or not all(self._update_line(e, select=False) for e in entries):
            self.refresh_list()
        if any(e.id in self.history.keys for e in entries):
            self._show_trail()  # an ID the trail shows may have become the server's
        if newest is not None:
            await self._select(newest)
            return
        detail = self.query_one(EvidenceDetail)
        shown = detail.entry
        if shown is None or not any(entry is shown for entry in entries):
            return
        if shown.outcome == "running" and shown.progress is not None:
            detail.update_progress(shown)
        else:
            await detail.show(shown)

    async def select(self, entry_id: str) -> None:
        entry = self.ledger.get(entry_id)
        if entry is not None:
            await self._select(entry)

    async def _select(self, entry: EvidenceEntry) -> None:
        if not self._update_line(entry, select=True):
            self.refresh_list(select=entry.id)
        await self._shown(entry)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "evidence-filter":
            event.stop()
            self.refresh_list()

    async def on_entry_list_highlighted(self, event: EntryList.Highlighted) -> None:
        event.stop()
        entry = self.ledger.get(event.entry_id)
        detail = self.query_one(EvidenceDetail)
        if event.entry_id == self._going_to:
            # Back and forward move the list's cursor too; its message may come while the detail still shows
            # the entry before, and `_go` shows the entry itself (not visited again).
            self._going_to = None
            return
        if entry is not None and detail.entry is not entry:
            await self._shown(entry)
