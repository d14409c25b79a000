"""The evidence pane: the ledger's entries with outcome badges, a filter, and the selected entry.

Large results are rendered lazily: the first part is shown, the rest comes
with "show more", so a multi-megabyte result never blocks the screen.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Button, Input, OptionList, ProgressBar, Static, Tree
from textual.widgets.option_list import Option
from textual.widgets.tree import TreeNode

from rea_tui.host import TextBlock
from rea_tui.ui.settings import DEFAULT_SETTINGS, AppSettings, settings_of
from rea_tui.ui.text import join, plain, plain_line
from rea_tui.ui.widgets.workflow_view import block_card

if TYPE_CHECKING:
    from rea_tui.host import EvidenceEntry, EvidenceLedger

FIRST_CHUNK = 20_000
MORE_CHUNK = 200_000
TREE_CHILD_LIMIT = 200

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


def entry_line(entry: EvidenceEntry, settings: AppSettings = DEFAULT_SETTINGS) -> Text:
    line = Text(no_wrap=True, overflow="ellipsis")
    line.append(f"{entry.id:<4}", style="bold")
    line.append_text(badge(entry))
    line.append("  ")
    line.append_text(plain_line(entry.tool, 40))
    if entry.narrowing is not None:
        line.append(f"  ? round {entry.narrowing_round}", style="bold magenta")
    if entry.duration_ms is not None and settings.show_timings:
        line.append(f"  {entry.duration_label}", style="dim")
    return line


def add_json_node(node: TreeNode[None], key: str, value: Any) -> None:
    """Add `value` under `node`, as a collapsible subtree for objects and arrays."""
    label = plain_line(key, 80, style="bold")
    if isinstance(value, dict):
        child = node.add(join(label, Text(f"  {{{len(value)}}}", style="dim")), expand=False)
        for index, (k, v) in enumerate(value.items()):
            if index >= TREE_CHILD_LIMIT:
                child.add_leaf(Text(f"… {len(value) - TREE_CHILD_LIMIT:,} more keys", style="dim"))
                break
            add_json_node(child, str(k), v)
    elif isinstance(value, list):
        child = node.add(join(label, Text(f"  [{len(value)}]", style="dim")), expand=False)
        for index, item in enumerate(value):
            if index >= TREE_CHILD_LIMIT:
                child.add_leaf(Text(f"… {len(value) - TREE_CHILD_LIMIT:,} more items", style="dim"))
                break
            add_json_node(child, f"[{index}]", item)
    else:
        node.add_leaf(join(label, Text(": "), plain_line(json.dumps(value, ensure_ascii=False), 300)))


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


class EvidenceDetail(VerticalScroll):
    """Everything about one evidence entry."""

    class AnswerRequested(Message):
        def __init__(self, entry_id: str) -> None:
            super().__init__()
            self.entry_id = entry_id

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entry: EvidenceEntry | None = None

    async def show(self, entry: EvidenceEntry | None) -> None:
        self.entry = entry
        await self.remove_children()
        if entry is None:
            await self.mount(Static(Text("No evidence yet: run a step.", style="dim")))
            return
        await self.mount_all(list(self._widgets(entry)))

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
            message.update(plain_line(entry.progress.message or "", 200))

    def _widgets(self, entry: EvidenceEntry) -> list[Any]:
        head = join(Text(entry.id, style="bold"), Text("  "), plain_line(entry.tool, 80, style="bold"), Text("  "))
        head.append_text(badge(entry))
        if entry.duration_ms is not None and settings_of(self).show_timings:
            head.append(f"  {entry.duration_label}", style="dim")
        head.append("\nserver ", style="dim")
        head.append_text(plain_line(entry.server, 80))
        head.append(f"  approval: {entry.approval}", style="dim")
        if entry.follows:
            head.append(f"  follows {entry.follows} (narrowing round {entry.narrowing_round})", style="dim")
        widgets: list[Any] = [Static(head, classes="evidence-head")]
        arguments = json.dumps(entry.arguments, indent=2, ensure_ascii=False)
        widgets.append(Static(join(Text("arguments ", style="bold"), plain(arguments, 5_000)), classes="evidence-args"))
        if entry.outcome == "running":
            widgets.append(ProgressBar(total=None, show_eta=False, classes="evidence-progress"))
            widgets.append(Static("", classes="progress-message"))
            widgets.append(Static(Text("ctrl+b cancels the call", style="dim")))
        if entry.replay_of and entry.finished:
            if entry.replay_diff is None:
                widgets.append(Static(Text(f"replay: the same result as recorded {entry.replay_of}", style="green")))
            else:
                text = Text(f"replay: differs from recorded {entry.replay_of}\n", style="bold yellow")
                text.append_text(plain(entry.replay_diff, 20_000))
                widgets.append(Static(text, classes="replay-diff"))
        if entry.narrowing is not None:
            question = entry.narrowing
            text = Text(f"The server asks ({question.reason}): ", style="bold magenta")
            text.append_text(plain(question.ask_user, 1_000))
            if question.scoped_by:
                text.append("\nscoped by: ", style="dim")
                text.append_text(plain(json.dumps(question.scoped_by, ensure_ascii=False), 500))
            text.append(f"\n{len(question.candidates)} candidates", style="dim")
            widgets.append(Static(text, classes="narrowing-question"))
            answer = Button("Answer…", id="answer-narrowing", variant="warning", compact=True)
            answer.tooltip = "pick a candidate; the same call opens again with it pinned"
            widgets.append(answer)
        if entry.error:
            error = Text("error  ", style="bold red")
            error.append_text(plain(entry.error, 5_000))
            widgets.append(Static(error, classes="evidence-error"))
        for block in entry.content:
            if isinstance(block, TextBlock):
                if entry.narrowing is None:
                    widgets.append(ChunkedText(block.text))
            else:
                widgets.append(block_card(entry.server, block))
        if entry.has_structured and entry.narrowing is None:
            tree: Tree[None] = Tree(Text("structuredContent", style="bold"), classes="structured-tree")
            add_json_node(tree.root, "structuredContent", entry.structured)
            tree.root.expand()
            for child in tree.root.children:
                child.expand()
            widgets.append(tree)
        if entry.schema_check:
            style = "red" if entry.schema_check.startswith("invalid") else "dim"
            widgets.append(Static(Text(f"output schema: {entry.schema_check}", style=style)))
        if entry.finished:
            with_copy = Horizontal(classes="evidence-actions")
            with_copy.compose_add_child(Button("Copy id", id="copy-id", compact=True))
            with_copy.compose_add_child(Button("Copy value", id="copy-value", compact=True))
            widgets.append(with_copy)
        return widgets

    def on_button_pressed(self, event: Button.Pressed) -> None:
        entry = self.entry
        if entry is None:
            return
        if event.button.id == "copy-id":
            event.stop()
            self.app.copy_to_clipboard(entry.id)
            self.notify(f"Copied {entry.id}")
        elif event.button.id == "copy-value":
            event.stop()
            value = json.dumps(entry.structured, indent=2, ensure_ascii=False) if entry.has_structured else entry.text()
            self.app.copy_to_clipboard(value)
            self.notify(f"Copied the value of {entry.id} ({len(value):,} characters)")
        elif event.button.id == "answer-narrowing":
            event.stop()
            self.post_message(self.AnswerRequested(entry.id))


class EntryList(OptionList):
    pass


class EvidencePane(Vertical):
    """Bottom right: the evidence ledger."""

    def __init__(self, ledger: EvidenceLedger, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.ledger = ledger
        self.border_title = "Evidence"
        self._shown_ids: list[str] = []

    def compose(self) -> ComposeResult:
        yield Input(placeholder="filter: id, tool, outcome or text", id="evidence-filter")
        with Horizontal(id="evidence-body"):
            yield EntryList(id="evidence-list")
            yield EvidenceDetail(id="evidence-detail")

    async def on_mount(self) -> None:
        await self.query_one(EvidenceDetail).show(None)

    @property
    def selected_id(self) -> str | None:
        entries = self.query_one(EntryList)
        index = entries.highlighted
        if index is None or not 0 <= index < len(self._shown_ids):
            return None
        return self._shown_ids[index]

    def refresh_list(self, select: str | None = None) -> None:
        filter_text = self.query_one("#evidence-filter", Input).value
        entries = self.ledger.search(filter_text)
        keep = select or self.selected_id
        self._shown_ids = [e.id for e in entries]
        option_list = self.query_one(EntryList)
        option_list.clear_options()
        option_list.add_options([Option(entry_line(e, settings_of(self)), id=e.id) for e in entries])
        self.border_title = f"Evidence ({len(self.ledger.entries)})"
        if keep in self._shown_ids:
            option_list.highlighted = self._shown_ids.index(keep)
        elif self._shown_ids:
            option_list.highlighted = len(self._shown_ids) - 1

    async def entry_changed(self, entry: EvidenceEntry, *, select: bool = False) -> None:
        detail = self.query_one(EvidenceDetail)
        if select:
            self.refresh_list(select=entry.id)
            await detail.show(entry)
            return
        if entry.outcome == "running" and entry.progress is not None and detail.entry is entry:
            detail.update_progress(entry)
            return
        self.refresh_list()
        if detail.entry is entry:
            await detail.show(entry)

    async def select(self, entry_id: str) -> None:
        entry = self.ledger.get(entry_id)
        if entry is not None:
            await self.entry_changed(entry, select=True)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "evidence-filter":
            event.stop()
            self.refresh_list()

    async def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        entry = self.ledger.get(event.option.id)
        detail = self.query_one(EvidenceDetail)
        if entry is not None and detail.entry is not entry:
            await detail.show(entry)
