"""The narrowing picker: the server's question, its candidates, and where the choice goes."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, OptionList, Select, Static
from textual.widgets.option_list import Option

from rea_tui.host import EvidenceEntry, NarrowingCandidate
from rea_tui.ui.styles import stylesheet
from rea_tui.ui.text import plain, plain_line


@dataclass(frozen=True)
class NarrowingChoice:
    candidate: NarrowingCandidate
    argument: str


def breadcrumb(entry: EvidenceEntry) -> Text:
    question = entry.narrowing
    assert question is not None
    text = Text(f"round {entry.narrowing_round}", style="bold")
    text.append(f" · {question.reason}", style="magenta")
    if question.scoped_by:
        text.append(" · scoped by ", style="dim")
        text.append_text(
            plain_line(
                " › ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in question.scoped_by.items()),
                200,
            )
        )
    else:
        text.append(" · nothing pinned yet", style="dim")
    return text


class NarrowingScreen(ModalScreen[NarrowingChoice | None]):
    CSS_PATH = stylesheet("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="narrowing-cancel", tooltip="Leave the question unanswered"),
    ]

    def __init__(self, entry: EvidenceEntry, arguments: list[str], concerned: str | None) -> None:
        super().__init__()
        self.entry = entry
        self.arguments = arguments
        self.concerned = concerned

    def compose(self) -> ComposeResult:
        question = self.entry.narrowing
        assert question is not None
        with Vertical(id="narrowing", classes="dialog"):
            title = Text("The server asks", style="bold")
            title.append_text(plain_line(f"  ({self.entry.tool}, {self.entry.ref})", 100, style="dim"))
            yield Static(title, classes="dialog-title")
            yield Static(breadcrumb(self.entry), id="narrowing-breadcrumb")
            yield Static(plain(question.ask_user, 2_000, style="bold"), id="narrowing-question")
            yield OptionList(
                *(Option(plain_line(c.label, 200), id=str(i)) for i, c in enumerate(question.candidates)),
                id="narrowing-candidates",
            )
            if not question.candidates:
                yield Static(Text("The server offered no candidates.", style="yellow"))
            with Horizontal(id="narrowing-target"):
                yield Static(Text("pin the choice to", style="dim"))
                options = [(plain_line(name, 60), name) for name in self.arguments]
                # The initial value goes to the constructor: set later, the label would not repaint.
                if self.concerned in self.arguments:
                    yield Select(options, value=self.concerned, allow_blank=False, id="narrowing-argument")
                else:
                    yield Select(options, allow_blank=False, id="narrowing-argument")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Choose", id="choose", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        candidates = self.query_one("#narrowing-candidates", OptionList)
        if candidates.option_count:
            candidates.highlighted = 0
        candidates.focus()

    def _choose(self) -> None:
        question = self.entry.narrowing
        assert question is not None
        index = self.query_one("#narrowing-candidates", OptionList).highlighted
        select = self.query_one("#narrowing-argument", Select)
        if index is None or select.is_blank():
            self.notify("Pick a candidate and the argument it answers.", severity="warning")
            return
        self.dismiss(NarrowingChoice(question.candidates[index], str(select.value)))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._choose()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "choose":
            self._choose()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)
