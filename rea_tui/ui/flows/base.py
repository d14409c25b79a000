"""What every flow has: the screen it runs on (its widgets, workers and messages) and the session."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.screen import Screen

    from rea_tui.host import Session


class Flow:
    def __init__(self, screen: Screen[Any], session: Session) -> None:
        self.screen = screen
        self.session = session
