"""What every flow has: the screen it runs on, the session, and the way to start background jobs.

Every job runs as a Textual worker of the app, in a named group, so the app's one
`Worker.StateChanged` handler (the error route) hears of every failure.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.worker import Worker

    from rea_tui.host import Session


def start_job(
    screen: Screen[Any], work: Coroutine[Any, Any, Any], group: str, name: str = "", *, exclusive: bool = False
) -> Worker[Any]:
    """Run `work` as an app worker in `group` (a newer exclusive job cancels the one before it)."""
    return screen.app.run_worker(work, group=group, name=name, exclusive=exclusive, exit_on_error=False)


def jobs(screen: Screen[Any], group: str, name: str | None = None) -> list[Worker[Any]]:
    """The running jobs of `group` (and of `name`, when given)."""
    return [w for w in screen.app.workers if w.group == group and w.is_running and (name is None or w.name == name)]


class Flow:
    def __init__(self, screen: Screen[Any], session: Session) -> None:
        self.screen = screen
        self.session = session

    def run_job(self, work: Coroutine[Any, Any, Any], group: str, name: str = "", *, exclusive: bool = False) -> None:
        start_job(self.screen, work, group, name, exclusive=exclusive)

    def jobs(self, group: str, name: str | None = None) -> list[Worker[Any]]:
        return jobs(self.screen, group, name)
