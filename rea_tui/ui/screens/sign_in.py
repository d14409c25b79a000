"""Signing in to a server (OAuth): where the browser was sent, and the wait for it to come back.

The authorization URL is shown with its host and warnings first, then the
URL in a box of bounded height (the same way a URL elicitation is), so the analyst can check it or open it by hand;
rea-tui opens it in the browser and waits on 127.0.0.1 for the redirect.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from rea_tui.ui.screens.elicitation import highlighted_url
from rea_tui.ui.styles import stylesheet
from rea_tui.ui.text import join, plain, plain_line

NAME_LIMIT = 80
ERROR_LIMIT = 4_000


class SignInScreen(ModalScreen[None]):
    CSS_PATH = stylesheet("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="sign-in-close", tooltip="Close (a sign-in under way goes on)"),
    ]

    def __init__(self, server: str) -> None:
        super().__init__()
        self.server = server
        self.failed_message = ""

    def compose(self) -> ComposeResult:
        with Vertical(id="sign-in", classes="dialog"):
            title = join(Text("Signing in to ", style="bold"), plain_line(self.server, NAME_LIMIT, style="bold"))
            yield Static(title, classes="dialog-title")
            yield Static(Text("Connecting to find out where to sign in…", style="dim"), id="sign-in-status")
            with VerticalScroll(id="sign-in-url-box"):
                yield Static("", id="sign-in-url")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Close", id="sign-in-close-button")

    def show_url(self, url: str, *, browser_found: bool = True) -> None:
        if not self.is_mounted:
            return
        status = Text("Your browser was sent here; if it did not open, open it yourself:", style="bold")
        if not browser_found:
            status = Text("No browser was found (or it could not be opened); open this URL yourself:", style="bold")
        self.query_one("#sign-in-status", Static).update(status)
        self.query_one("#sign-in-url", Static).update(highlighted_url(url))

    def failed(self, message: str) -> None:
        self.failed_message = message
        if self.is_mounted:
            text = join(Text("Sign-in failed: ", style="bold red"), plain(message, ERROR_LIMIT))
            self.query_one("#sign-in-status", Static).update(text)

    def close(self) -> None:
        if self.is_attached and self.app.screen is self:
            self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
