"""The actions a row of evidence offers: the server's tools that take what it names, and copying it.

Choosing a tool here only opens its call: the arguments are checked against
the tool's schema and the call waits for the approval dialog like any other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from rea_tui.host import RowAction
from rea_tui.ui.styles import stylesheet
from rea_tui.ui.text import LINE_LIMIT, join, plain_line


@dataclass(frozen=True)
class LocalAction:
    """Something the host does itself with the row (copy a value, go into an entry's rows)."""

    key: str
    label: str
    value: str = ""


MenuChoice = RowAction | LocalAction


class RowActionsScreen(ModalScreen[MenuChoice | None]):
    """What the row names, and the calls and host actions that fit it; enter chooses, escape closes."""

    CSS_PATH = stylesheet("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="row-actions-close", tooltip="Choose nothing"),
    ]

    def __init__(
        self, subject: str, server: str, actions: list[RowAction], local: list[LocalAction], *, local_first: bool
    ) -> None:
        super().__init__()
        self.subject = subject
        self.server = server
        self.choices: list[MenuChoice] = [*local, *actions] if local_first else [*actions, *local]
        self.tool_count = len(actions)

    def compose(self) -> ComposeResult:
        with Vertical(id="row-actions", classes="dialog"):
            title = join(Text("Act on  ", style="dim"), plain_line(self.subject, LINE_LIMIT, style="bold"))
            yield Static(title, classes="dialog-title")
            if self.tool_count:
                note = join(Text("calls of ", style="dim"), plain_line(self.server, LINE_LIMIT))
                note.append(" (each is checked and asks for approval before anything is sent)", style="dim")
            else:
                note = Text("No tool of the server takes what this row names.", style="dim")
            yield Static(note, classes="dialog-description")
            options = [Option(self._label(choice), id=str(index)) for index, choice in enumerate(self.choices)]
            yield OptionList(*options, id="row-actions-list")

    @staticmethod
    def _label(choice: MenuChoice) -> Text:
        if isinstance(choice, RowAction):
            label = plain_line(choice.tool, LINE_LIMIT, style="bold")
            for name, value in choice.arguments.items():
                label.append(f"  {name}=", style="dim")
                label.append_text(plain_line(value if isinstance(value, str) else repr(value), LINE_LIMIT))
            return label
        return Text(choice.label, style="italic")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0 if self.choices else None
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        index = int(event.option.id or 0)
        self.dismiss(self.choices[index])

    def action_close(self) -> None:
        self.dismiss(None)
