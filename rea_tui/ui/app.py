"""The rea-tui application: the session, the settings, the screens, the global keys, and the one error route.

The first frame paints before `mcp` is imported or any server starts: the
host modules that need the SDK load in a worker thread once the app runs.
The UI never speaks JSON-RPC itself; everything goes through `rea_tui.host`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from rea_tui.host import sanitize
from rea_tui.ui.key_order import KeyHandled, KeyOrder, OrderedInput
from rea_tui.ui.messages import JobFailed
from rea_tui.ui.screen_guard import guard_update
from rea_tui.ui.screens.main import MainScreen
from rea_tui.ui.settings import AppSettings
from rea_tui.ui.styles import stylesheet
from rea_tui.ui.text import notify_plain

if TYPE_CHECKING:
    from rea_tui.host import ReplayPlan, Session, TrustGate

# How much of an unexpected error's text a toast shows (the rest is in the error log).
FAILURE_TOAST_LIMIT = 600
# Signals that end rea-tui the orderly way.
ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
# A shell's exit status for a process ended by a hangup (128 + the signal's number).
HANGUP_EXIT_CODE = 128 + signal.SIGHUP
# How long a quit waits for its servers to close by themselves before it stops them: closing answers each
# request a server left pending, one by one inside the SDK (10,000 pending questions: 20 to 45 s).
QUIT_CLOSE_BUDGET_SECONDS = 0.5


def untyped_alt_key(event: OrderedInput) -> OrderedInput:
    """An alt+letter key as a key only: it types nothing into the focused field, and so reaches the bindings.

    A terminal sends alt+r as ESC r, which Textual reports as key `alt+r` with the character `r`; a text
    field took that as typing `r` and stopped it, so the alt+ twins of the keys a browser keeps
    (`rea-tui web`) typed their letter instead of acting.
    """
    if isinstance(event, events.Key) and event.key.startswith("alt+") and event.character is not None:
        return events.Key(event.key, None)
    return event


class ReaApp(App[int]):
    """The terminal MCP host."""

    CSS_PATH = stylesheet("app.tcss")
    TITLE = "rea-tui"
    ENABLE_COMMAND_PALETTE = True

    # Each key has an alt+ twin that a browser passes to the page (`rea-tui web`), shown in the footer there.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "ctrl+s,alt+s",
            "save_screenshot",
            "Screenshot",
            id="screenshot",
            tooltip="Save an SVG screenshot of this screen",
        ),
        # Priority: also from a dialog (a modal leaves only priority bindings of the app active) and from
        # a field, however many of a server's questions are queued behind it.
        Binding("ctrl+q,alt+q", "quit", "Quit", id="quit", tooltip="Leave rea-tui", priority=True),
        # Textual adds ctrl+p only when no binding opens the palette, so ours names it too.
        Binding(
            f"{App.COMMAND_PALETTE_BINDING},alt+x",
            "command_palette",
            "palette",
            show=False,
            priority=True,
            id="palette",
            tooltip="Every action",
        ),
        # Also from a dialog a call opened (an elicitation form): cancelling the call closes it.
        # (The main screen has its own ctrl+b, shown in its footer; this one is for the other screens.)
        Binding(
            "ctrl+b,alt+b",
            "cancel_calls",
            "Cancel call",
            id="cancel-calls",
            tooltip="Cancel the running tool call",
            show=False,
            priority=True,  # a modal dialog leaves only priority bindings of the app active
        ),
    ]

    def __init__(
        self,
        session: Session,
        *,
        settings: AppSettings | None = None,
        replay: ReplayPlan | None = None,
        offline: bool = False,
        attached: bool = False,
    ) -> None:
        """`attached`: the session is a warm session's (`rea-tui session attach`), which owns the signals and
        outlives this TUI: quitting leaves it running."""
        super().__init__()
        self.session = session
        self.attached = attached
        self.settings = settings or AppSettings.load()
        self.screenshot_folder = Path.cwd()
        # Nothing is configured: the main screen offers the servers of other clients' configs (f12).
        self.offer_discovered = False
        # The folder has config files of its own that are not trusted: the main screen asks about them.
        self.untrusted_folder: TrustGate | None = None
        # Unexpected failures of background jobs, oldest first (the toast shows the newest).
        self.failures: list[str] = []
        self.main = MainScreen(session, self.settings, replay=replay, offline=offline)
        self.key_order = KeyOrder(self)

    def get_default_screen(self) -> Screen[Any]:
        return self.main

    def on_mount(self) -> None:
        if self.attached:
            return
        # Killed or hung up: leave as ctrl+q does (servers closed, session end recorded, terminal restored).
        loop = asyncio.get_running_loop()
        for signum in ENDING_SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(signum, self._ended_by_signal, signum)

    def on_unmount(self) -> None:
        if self.attached:
            # However it leaves (ctrl+q, its terminal gone, the session ending), the session goes on without it.
            self.main.detach()
            return
        loop = asyncio.get_running_loop()
        for signum in ENDING_SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(signum)

    def _ended_by_signal(self, signum: int) -> None:
        ending = self._hung_up() if signum == signal.SIGHUP else self.action_quit()
        self.run_worker(ending, group="quit", exclusive=True, exit_on_error=False)

    async def _hung_up(self) -> None:
        """The terminal is gone: the servers are closed and the session's end recorded, and the process ends.

        Not through Textual's own leaving: it restores the terminal through its output thread, which died
        writing to the hung-up terminal, into a queue of 30 writes nothing drains, and the process stayed
        blocked there for good (with its servers closed, but alive and holding its files).
        """
        await self._end_session()
        logging.shutdown()
        os._exit(HANGUP_EXIT_CODE)

    def copy_to_clipboard(self, text: str) -> None:
        """Every copy goes through here: what reaches the clipboard has no control characters, so a
        copied value cannot end a bracketed paste (`ESC[201~`) and run what follows it in a shell.
        Line breaks stay: this is for a block the analyst copies as one (a selection, "Copy block")."""
        super().copy_to_clipboard(sanitize(text, None))

    def get_key_display(self, binding: Binding) -> str:
        """In a browser, the footer names the alt+ twin of a key the browser keeps for itself."""
        if self.is_web and not binding.key.startswith("alt+"):
            twin = browser_key(binding.action, [*self.BINDINGS, *MainScreen.BINDINGS])
            if twin is not None:
                return super().get_key_display(Binding(twin, binding.action))
        return super().get_key_display(binding)

    def _display(self, screen: Screen[Any], renderable: Any) -> None:
        # Every frame passes the egress guard (see screen_guard): the one place all painting goes through.
        super()._display(screen, guard_update(renderable) if renderable is not None else None)

    async def on_event(self, event: events.Event) -> None:
        # Every key and paste from the terminal passes the order gate (see key_order) before Textual's own
        # handling; one that has bubbled back, or anything else, goes straight on.
        if isinstance(event, OrderedInput) and not event.is_forwarded:
            event = untyped_alt_key(event)
            if self.key_order.admit(event):
                await self._send_input(event)
            return
        await super().on_event(event)

    async def _send_input(self, event: OrderedInput | None) -> None:
        while event is not None:
            target = self.focused or self.screen  # where Textual gives it
            await super().on_event(event)
            if self.key_order.sent(event, target):
                return
            event = self.key_order.next_waiting()

    async def on_key_handled(self, message: KeyHandled) -> None:
        message.stop()
        if self.key_order.handled(message.number):
            await self._send_input(self.key_order.next_waiting())

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        # A text cursor only blinks while focused; the settings may say it never does.
        if not self.settings.cursor_blink and hasattr(event.widget, "cursor_blink"):
            event.widget.cursor_blink = False

    # ------------------------------------------------------------ the one error route

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Any background job that fails unexpectedly ends here: the analyst sees it, and what it did is marked."""
        worker = event.worker
        if event.state != WorkerState.ERROR or worker.error is None:
            return
        self.report_failure(worker.group, worker.name, worker.error)

    def report_failure(self, group: str, name: str, error: BaseException) -> None:
        description = f"{group} {name}: {type(error).__name__}: {error}"
        self.failures.append(description)
        notify_plain(self, description[:FAILURE_TOAST_LIMIT], title="Unexpected error", severity="error", timeout=15)
        self.main.post_message(JobFailed(group, name, error))

    # ------------------------------------------------------------ global keys

    def action_save_screenshot(self) -> None:
        from rea_tui.ui.screens.screenshot import ScreenshotScreen

        def save(folder: Path | None) -> None:
            # Called once the dialog is gone, so the screenshot is of the screen behind it.
            if folder is None:
                return
            self.screenshot_folder = folder
            try:
                folder.mkdir(parents=True, exist_ok=True)
                path = self.save_screenshot(path=str(folder))
            except OSError as exc:
                notify_plain(self, f"Could not save the screenshot: {exc}", severity="error")
                return
            notify_plain(self, f"Screenshot saved to {path}", title="Screenshot", timeout=10)

        self.push_screen(ScreenshotScreen(self.screenshot_folder), callback=save)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        bindings = [*MainScreen.BINDINGS, *self.BINDINGS] if screen is self.main else list(self.BINDINGS)
        listed = [b for b in bindings if isinstance(b, Binding)]
        # Textual's own command of the same name (its Screenshot) is left out: ours, with its key, stands for it.
        ours = {b.description for b in listed if b.action not in ("quit", "command_palette", "cancel_calls")}
        yield from (command for command in super().get_system_commands(screen) if command.title not in ours)
        for binding in listed:
            if binding.action in ("quit", "command_palette", "cancel_calls"):  # cancel_calls: ctrl+b elsewhere
                continue
            action = binding.action
            target = self if binding in self.BINDINGS else screen
            yield SystemCommand(
                f"{binding.description} ({binding.key.replace(',', ' or ')})",
                binding.tooltip,
                lambda a=action, t=target: t.run_action(a),
            )

    def action_cancel_calls(self) -> None:
        self.main.action_cancel_call()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # On the main screen its own ctrl+b (in its footer) does it; an offline replay runs no call.
        if action == "cancel_calls":
            return self.screen is not self.main and not self.main.offline
        return True

    async def action_quit(self) -> None:
        if self.attached:
            self.main.calls.cancel_all()
        else:
            await self._end_session()
        self.exit(0)

    async def _end_session(self) -> None:
        """The calls under way cancelled, the servers closed (or stopped, past the budget) and the session's
        end recorded."""
        self.main.servers.close_questions()
        self.session.leaving()
        self.main.calls.cancel_all()
        await self.session.close(budget=QUIT_CLOSE_BUDGET_SECONDS)


def browser_key(action: str, bindings: Iterable[BindingType]) -> str | None:
    """The alt+ key bound to `action`, if there is one."""
    for binding in bindings:
        if isinstance(binding, Binding) and binding.action == action:
            twin = next((k.strip() for k in binding.key.split(",") if k.strip().startswith("alt+")), None)
            if twin is not None:
                return twin
    return None


def create_app(
    session: Session,
    *,
    settings: AppSettings | None = None,
    replay: ReplayPlan | None = None,
    offline: bool = False,
    attached: bool = False,
) -> ReaApp:
    """The app factory used by `rea-tui`, `rea-tui session attach`, the tests and the screenshot script."""
    return ReaApp(session, settings=settings, replay=replay, offline=offline, attached=attached)
