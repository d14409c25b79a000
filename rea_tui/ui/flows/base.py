"""What every flow has: the screen it runs on, the session, and the way to start background jobs.

Every job runs as a Textual worker of the app, in a named group, so the app's one
`Worker.StateChanged` handler (the error route) hears of every failure.

A flow never reaches into the screen's widgets: it posts messages the screen
handles, and what it must read back (or wait for) it asks through one of the
small protocols below, which the screen provides.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.worker import Worker

    from rea_tui.host import Session, Workflow


class PromptInUse(Protocol):
    """What the analyst is working with on a server, as the screen shows it (a tool's form is prefilled,
    and its completions asked, from it): read when the form opens, so not a message."""

    def shown_workflow(self, server: str) -> Workflow | None:
        """The workflow the screen shows, when it is `server`'s."""
        ...

    def form_values(self, server: str) -> dict[str, str]:
        """The argument form's values, when its prompt or template is `server`'s (else none)."""
        ...


class WorkflowStage(Protocol):
    """Where a replay shows a recorded workflow: awaited, as the view's own `show` was, so the workflow is
    in view before the replay goes on (a message would be handled after the replay's next steps)."""

    async def show_workflow(self, server: str, workflow: Workflow) -> None: ...


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
