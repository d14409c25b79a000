"""The analyst's notes: observations, inferences and unknowns in three separate lists."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.suggester import Suggester
from textual.widgets import Button, Footer, Input, ListItem, ListView, Select, Static

from rea_tui.host import ID_INITIALS, NOTE_KINDS, Note, Notebook, NoteChanged, NoteKind
from rea_tui.ui.styles import stylesheet
from rea_tui.ui.text import PARAGRAPH_LIMIT, plain

TITLES = {"observation": "Observations", "inference": "Inferences", "unknown": "Unknowns"}


# A word starting otherwise completes to an ID only from this many letters on (so prose is left alone).
QUALIFIER_PREFIX = 3
# The characters an evidence ID is made of (`E-0004`, `rea:E-0004`, `E5`), at the end of what is typed.
ID_TAIL = re.compile(r"[A-Za-z0-9:._-]+$")


class EvidenceIdSuggester(Suggester):
    """Completes the word being typed with an evidence ID the ledger shows (E-0004, rea:E-0004, H5), newest first."""

    def __init__(self, ids: Callable[[], list[str]]) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self._ids = ids

    async def get_suggestion(self, value: str) -> str | None:
        # The ID being typed starts after any character an ID does not have: `(E-00`, `[E-00`, `"E-00` complete.
        word = ID_TAIL.search(value)
        typed = word.group(0) if word is not None else ""
        if not typed or not (typed.startswith(ID_INITIALS) or len(typed) >= QUALIFIER_PREFIX):
            return None
        head = value[: len(value) - len(typed)]
        for candidate in reversed(self._ids()):
            if candidate.startswith(typed) and candidate != typed:
                return f"{head}{candidate}"
        return None


def note_label(note: Note) -> Text:
    text = Text()
    text.append(f"{note.number}. ", style="bold")
    text.append_text(plain(note.text, PARAGRAPH_LIMIT))
    if note.cites:
        text.append(f"  [{', '.join(note.cites)}]", style="cyan")
    return text


class NotesScreen(ModalScreen[None]):
    """The notes beside the evidence (the main screen makes room on its left), or over the whole screen."""

    CSS_PATH = stylesheet("notes.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Back", id="notes-close", tooltip="Back to the investigation"),
        Binding("delete", "delete_note", "Delete note", id="notes-delete", tooltip="Delete the highlighted note"),
    ]

    def __init__(
        self,
        notebook: Notebook,
        evidence_ids: Callable[[], list[str]],
        *,
        read_only: bool = False,
        beside: bool = False,
    ) -> None:
        """`read_only`: the notes of an offline replay are shown, never changed (nothing would record them).
        `beside`: a panel on the left, the evidence in view on the right (else the whole screen)."""
        super().__init__(classes="-beside" if beside else "")
        self.notebook = notebook
        self.evidence_ids = evidence_ids
        self.read_only = read_only
        self._unsubscribe: Callable[[], None] | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="notes-panel"):
            yield from self._panel()
        yield Footer()

    def _panel(self) -> ComposeResult:
        yield Static(
            Text("Notes  ", style="bold").append(
                "kept apart: what was seen, what it suggests, what is still unknown. "
                "Cite evidence by the ID the evidence pane shows.",
                style="dim",
            ),
            id="notes-title",
        )
        with Horizontal(id="note-lists"):
            for kind in NOTE_KINDS:
                with Vertical(classes="note-column", id=f"column-{kind}"):
                    yield Static(Text(TITLES[kind], style="bold"), classes="note-column-title")
                    yield ListView(id=f"notes-{kind}")
        if self.read_only:
            yield Static(
                Text("Read-only: an offline replay shows the recorded notes and records nothing.", style="yellow"),
                id="note-message",
            )
            return
        with Horizontal(id="note-entry"):
            yield Select(
                [(TITLES[k][:-1], k) for k in NOTE_KINDS],
                value="observation",
                allow_blank=False,
                id="note-kind",
            )
            ids = self.evidence_ids()
            example = ids[-1] if ids else "E-0004"
            yield Input(
                placeholder=f"write a note; cite evidence like {example} (→ completes)",
                suggester=EvidenceIdSuggester(self.evidence_ids),
                id="note-text",
            )
            yield Button("Add", id="note-add", variant="primary")
        yield Static("", id="note-message")

    def on_mount(self) -> None:
        self._unsubscribe = self.notebook.subscribe(self._notes_changed)
        self.refresh_lists()
        if not self.read_only:
            self.query_one("#note-text", Input).focus()

    def _notes_changed(self, _change: NoteChanged) -> None:
        self.call_later(self.refresh_lists)

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()

    def refresh_lists(self) -> None:
        for kind in NOTE_KINDS:
            view = self.query_one(f"#notes-{kind}", ListView)
            view.clear()
            view.extend(ListItem(Static(note_label(n)), name=str(n.number)) for n in self.notebook.of_kind(kind))

    def add_note(self) -> None:
        kind_select = self.query_one("#note-kind", Select)
        text_input = self.query_one("#note-text", Input)
        kind: NoteKind = kind_select.value  # type: ignore[assignment]
        try:
            self.notebook.add(kind, text_input.value, known_ids=self.evidence_ids())
        except ValueError as exc:
            self.query_one("#note-message", Static).update(Text(str(exc), style="red"))
            return
        self.query_one("#note-message", Static).update("")
        text_input.value = ""

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.add_note()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "note-add":
            event.stop()
            self.add_note()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (self.read_only and action == "delete_note")

    def action_delete_note(self) -> None:
        focused = self.focused
        if isinstance(focused, ListView) and focused.highlighted_child is not None:
            name = focused.highlighted_child.name
            if name:
                self.notebook.remove(int(name))

    def action_close(self) -> None:
        self.dismiss(None)
