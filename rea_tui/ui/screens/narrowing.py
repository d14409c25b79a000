"""The narrowing picker: the server's question, its candidates, a filter, and where the choice goes.

The filter narrows the listed candidates as the analyst types. When the
server listed as many as it lists at most (so there are more), what is typed
is also sent back as the value (seed 003: the server narrows): the flow makes
that call, and the picker then shows the server's new question, or closes when
the value resolved and the call ran. Without a session allowance for the tool
that call waits for enter (and the approval dialog); with one, a pause in
typing sends it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Button, Input, OptionList, Select, Static
from textual.widgets.option_list import Option

from rea_tui.host import MAX_CANDIDATES, EvidenceEntry, NarrowingCandidate, NarrowingQuestion
from rea_tui.ui.styles import stylesheet
from rea_tui.ui.text import LINE_LIMIT, MESSAGE_LIMIT, NAME_LIMIT, PARAGRAPH_LIMIT, join, plain, plain_line

# A pause in typing this long sends the filter to the server (when that needs no approval).
REASK_DELAY = 0.4
FILTER_LIMIT = 200

# The flow's half: send (argument, value) as the same call again; it answers with `narrowed` or `reask_failed`.
Reask = Callable[[str, str], None]


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
                LINE_LIMIT,
            )
        )
    else:
        text.append(" · nothing pinned yet", style="dim")
    return text


def lists_everything(question: NarrowingQuestion) -> bool:
    """Fewer candidates than the server lists at most: these are all of them."""
    return len(question.candidates) < MAX_CANDIDATES


def matches(candidate: NarrowingCandidate, typed: str) -> bool:
    needle = typed.strip().casefold()
    return not needle or needle in candidate.label.casefold()


class NarrowingScreen(ModalScreen[NarrowingChoice | None]):
    CSS_PATH = stylesheet("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="narrowing-cancel", tooltip="Leave the question unanswered"),
        Binding("down", "move('cursor_down')", "Next", id="narrowing-next", show=False, tooltip="Next candidate"),
        Binding("up", "move('cursor_up')", "Previous", id="narrowing-previous", show=False, tooltip="Previous one"),
    ]

    def __init__(
        self,
        entry: EvidenceEntry,
        arguments: list[str],
        concerned: str | None,
        *,
        reask: Reask | None = None,
        asks_freely: Callable[[], bool] = lambda: False,
    ) -> None:
        """`asks_freely()`: whether sending the filter needs no approval (the tool is allowed for the session)."""
        super().__init__()
        self.entry = entry
        self.arguments = arguments
        self.concerned = concerned
        self.reask = reask
        self.asks_freely = asks_freely
        # Indexes of the candidates the filter lets through, in list order.
        self._shown: list[int] = []
        # The value the server was last asked about (one question at a time), and one whose reply listed every match.
        self.asking: str | None = None
        self.in_flight = False
        self._complete_for: str | None = None
        self._timer: Timer | None = None

    @property
    def question(self) -> NarrowingQuestion:
        question = self.entry.narrowing
        assert question is not None
        return question

    def compose(self) -> ComposeResult:
        question = self.question
        with Vertical(id="narrowing", classes="dialog"):
            yield Static(self._title(), classes="dialog-title")
            yield Static(breadcrumb(self.entry), id="narrowing-breadcrumb")
            yield Static(plain(question.ask_user, PARAGRAPH_LIMIT, style="bold"), id="narrowing-question")
            yield Input(placeholder="filter: type part of a name", id="narrowing-filter")
            yield Static("", id="narrowing-status")
            yield OptionList(id="narrowing-candidates")
            with Horizontal(id="narrowing-target"):
                yield Static(Text("pin the choice to", style="dim"))
                options = [(plain_line(name, NAME_LIMIT), name) for name in self.arguments]
                # The initial value goes to the constructor: set later, the label would not repaint.
                if self.concerned in self.arguments:
                    yield Select(options, value=self.concerned, allow_blank=False, id="narrowing-argument")
                else:
                    yield Select(options, allow_blank=False, id="narrowing-argument")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Choose", id="choose", variant="primary")
                yield Button("Ask the server", id="ask-server")
                yield Button("Cancel", id="cancel")

    def _title(self) -> Text:
        title = Text("The server asks", style="bold")
        title.append_text(plain_line(f"  ({self.entry.tool})", NAME_LIMIT, style="dim"))
        return title

    def on_mount(self) -> None:
        self._refilter()
        self.query_one("#narrowing-filter", Input).focus()

    # ------------------------------------------------------------ the list and its filter

    @property
    def typed(self) -> str:
        return self.query_one("#narrowing-filter", Input).value

    def _can_ask(self, typed: str) -> bool:
        """Whether the server may know more than it listed for `typed`."""
        if self.reask is None or not typed.strip() or (lists_everything(self.question) and self.asking is None):
            return False
        # Once a reply listed every match for a value, a longer filter containing it only narrows that list.
        complete = self._complete_for
        return not (complete is not None and complete.casefold() in typed.casefold())

    def _refilter(self) -> None:
        candidates = self.query_one("#narrowing-candidates", OptionList)
        typed = self.typed
        self._shown = [i for i, c in enumerate(self.question.candidates) if matches(c, typed)]
        candidates.set_options(
            [Option(plain_line(self.question.candidates[i].label, LINE_LIMIT), id=str(i)) for i in self._shown]
        )
        if self._shown:
            candidates.highlighted = 0
        self._show_status()

    def _show_status(self, message: Text | None = None) -> None:
        status = self.query_one("#narrowing-status", Static)
        self.query_one("#ask-server", Button).display = self._can_ask(self.typed)
        if message is not None:
            status.update(message)
            return
        question, typed = self.question, self.typed
        listed = len(question.candidates)
        if not question.candidates:
            text = Text("The server offered no candidates.", style="yellow")
        elif typed.strip() and not self._shown:
            text = join(Text("No listed candidate contains ", style="yellow"), plain_line(repr(typed), FILTER_LIMIT))
        else:
            text = Text(f"{len(self._shown)} of {listed} listed", style="dim")
        if lists_everything(question) and self.asking is None:
            text.append("  (all the server has)", style="dim")
        elif self._can_ask(typed):
            how = "a pause in typing asks it" if self.asks_freely() else "enter asks it (needs approval)"
            text.append(f"  the server has more: {how}", style="dim")
        elif not typed.strip() and self.reask is not None:
            text.append("  the server has more: type to narrow", style="dim")
        status.update(text)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id != "narrowing-filter":
            return
        event.stop()
        self._refilter()
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self._can_ask(event.value) and self.asks_freely():
            self._timer = self.set_timer(REASK_DELAY, self._ask_server)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self._shown:
            self._choose()
        elif self._can_ask(self.typed):
            self._ask_server()

    def action_move(self, action: str) -> None:
        candidates = self.query_one("#narrowing-candidates", OptionList)
        if candidates.option_count:
            getattr(candidates, f"action_{action}")()

    # ------------------------------------------------------------ asking the server again

    def _ask_server(self) -> None:
        """Send what is typed; while a question is out, wait: its answer asks again if typing went on."""
        self._timer = None
        typed = self.typed.strip()
        select = self.query_one("#narrowing-argument", Select)
        if self.reask is None or self.in_flight or not typed or select.is_blank() or typed == self.asking:
            return
        self.asking, self.in_flight = typed, True
        self._show_status(join(Text("asking the server for ", style="dim"), plain_line(repr(typed), FILTER_LIMIT)))
        self.reask(str(select.value), typed)

    def narrowed(self, value: str, entry: EvidenceEntry) -> None:
        """The server's new question for `value` (the flow calls this when the call came back as one)."""
        self.in_flight = False
        question = entry.narrowing
        if question is None or value != self.asking:
            return
        self.entry = entry
        select = self.query_one("#narrowing-argument", Select)
        if question.argument and question.argument != select.value and question.argument in self.arguments:
            # The value is settled; the server now asks about another argument: a fresh filter for it.
            select.value = question.argument
            self.asking, self._complete_for = None, None
            with self.prevent(Input.Changed):
                self.query_one("#narrowing-filter", Input).value = ""
        elif lists_everything(question):
            self._complete_for = value
        self.query_one(".dialog-title", Static).update(self._title())
        self.query_one("#narrowing-breadcrumb", Static).update(breadcrumb(entry))
        self.query_one("#narrowing-question", Static).update(plain(question.ask_user, PARAGRAPH_LIMIT, style="bold"))
        self._refilter()
        if self.typed.strip() != value and self._can_ask(self.typed) and self.asks_freely():
            # Typing went on while the server answered: ask about what is there now.
            self._ask_server()

    def reask_failed(self, value: str, message: str) -> None:
        self.in_flight = False
        if value == self.asking:
            self.asking = None
            self._show_status(join(Text("The server could not narrow: ", style="red"), plain(message, MESSAGE_LIMIT)))

    # ------------------------------------------------------------ choosing

    def _choose(self) -> None:
        index = self.query_one("#narrowing-candidates", OptionList).highlighted
        select = self.query_one("#narrowing-argument", Select)
        if index is None or not 0 <= index < len(self._shown) or select.is_blank():
            self.notify("Pick a candidate and the argument it answers.", severity="warning")
            return
        self.dismiss(NarrowingChoice(self.question.candidates[self._shown[index]], str(select.value)))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._choose()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "choose":
            self._choose()
        elif event.button.id == "ask-server":
            self._ask_server()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)
