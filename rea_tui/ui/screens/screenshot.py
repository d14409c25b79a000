"""Choose where an SVG screenshot of the current screen goes (the default is shown)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from rea_tui.ui.styles import stylesheet


class ScreenshotScreen(ModalScreen[Path | None]):
    CSS_PATH = stylesheet("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="screenshot-cancel", tooltip="Save nothing"),
    ]

    def __init__(self, default_folder: Path) -> None:
        super().__init__()
        self.default_folder = default_folder

    def compose(self) -> ComposeResult:
        with Vertical(id="screenshot", classes="dialog"):
            yield Static(Text("Save an SVG screenshot", style="bold"), classes="dialog-title")
            yield Static(Text("Folder (the file is named after the date and time):", style="dim"))
            yield Input(str(self.default_folder), id="screenshot-folder")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Save", id="save", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#screenshot-folder", Input).focus()

    def _save(self) -> None:
        text = self.query_one("#screenshot-folder", Input).value.strip()
        self.dismiss(Path(text).expanduser() if text else self.default_folder)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._save()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "save":
            self._save()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)
