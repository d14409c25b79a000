"""One server in detail: who it says it is, its instructions, capabilities, log level, roots and sign-in.

The instructions are the server's guidance (for a model, usually Markdown);
they are shown as plain text. The log level is asked of the server when it
is changed here (`logging/setLevel`), the roots are edited in their own
dialog, and an HTTP server's sign-in state is shown with the key that signs
in (f9 on the main screen).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Select, Static

from rea_tui.host import LOG_LEVELS, HostedServer, Root
from rea_tui.ui.flows.base import start_job
from rea_tui.ui.settings import settings_of
from rea_tui.ui.styles import stylesheet
from rea_tui.ui.text import DOCUMENT_LIMIT, join, notify_plain, plain, plain_line

if TYPE_CHECKING:
    from rea_tui.host import ServerState

DETAILS_GROUP = "server-details"
INSTRUCTIONS_LIMIT = 20_000
LINE_LIMIT = 200
DEFAULT_LEVEL = "(the server's default)"


def section(title: str) -> Static:
    return Static(Text(title, style="bold underline"), classes="details-heading")


def identity(state: ServerState, machine_details: bool = True) -> Text:
    spec, hosted = state.spec, state.hosted
    text = join(plain_line(spec.name, LINE_LIMIT, style="bold"), Text(f"  {state.status}", style="dim"))
    text.append("\n")
    # A stdio command names paths of this machine; the settings may keep them off screen (snapshots).
    where = spec.display_target() if machine_details or spec.transport != "stdio" else "(command hidden)"
    text.append_text(plain_line(f"{spec.transport}: {where}", LINE_LIMIT, style="dim"))
    connection = hosted.connection if hosted is not None else None
    if connection is not None and connection.protocol_version:
        info = connection.server_info
        text.append("\n")
        named = " ".join(str(info.get(k, "")) for k in ("name", "version") if info.get(k))
        text.append_text(plain_line(named or "(no serverInfo)", LINE_LIMIT))
        if info.get("title"):
            text.append_text(plain_line(f"  {info['title']}", LINE_LIMIT, style="italic"))
        text.append(f"  protocol {connection.protocol_version}")
    return text


def capabilities_text(capabilities: dict[str, Any]) -> Text:
    if not capabilities:
        return Text("none declared (or not connected)", style="dim")
    return plain(json.dumps(capabilities, indent=2, sort_keys=True, ensure_ascii=False), DOCUMENT_LIMIT)


def roots_list(roots: tuple[Root, ...], asked: int) -> Text:
    if not roots:
        text = Text("none offered", style="dim")
    else:
        text = Text()
        for root in roots:
            text.append_text(plain_line(root.uri, LINE_LIMIT))
            if root.name:
                text.append_text(plain_line(f"  ({root.name})", LINE_LIMIT, style="dim"))
            text.append("\n")
    text.append(f"\nthe server asked roots/list {asked} time{'s' if asked != 1 else ''}", style="dim")
    return text


class ServerDetailsScreen(ModalScreen[None]):
    CSS_PATH = stylesheet("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="server-details-close", tooltip="Back to the main screen"),
        Binding("r", "edit_roots", "Roots", id="server-details-roots", tooltip="Edit the roots offered to the server"),
    ]

    def __init__(self, state: ServerState) -> None:
        super().__init__()
        self.state = state

    @property
    def hosted(self) -> HostedServer | None:
        return self.state.hosted

    def compose(self) -> ComposeResult:
        hosted = self.hosted
        connection = hosted.connection if hosted is not None else None
        with Vertical(id="server-details", classes="dialog"):
            machine_details = settings_of(self).show_machine_details
            yield Static(identity(self.state, machine_details), classes="dialog-title", id="server-details-identity")
            with VerticalScroll(id="server-details-body"):
                yield section("Instructions")
                instructions = connection.instructions if connection is not None else ""
                yield Static(
                    plain(instructions, INSTRUCTIONS_LIMIT) if instructions else Text("none given", style="dim"),
                    id="server-details-instructions",
                )
                yield section("Capabilities")
                yield Static(capabilities_text(connection.capabilities if connection else {}), id="server-details-caps")
                yield section("Logging")
                with Horizontal(classes="details-row"):
                    yield Static("Send logs from ", classes="details-label")
                    level = connection.log.level if connection is not None else None
                    yield Select(
                        [(DEFAULT_LEVEL, ""), *((name, name) for name in LOG_LEVELS)],
                        value=level or "",
                        allow_blank=False,
                        id="server-details-level",
                        disabled=connection is None or not connection.has_capability("logging"),
                    )
                yield Static(self._log_counts(), id="server-details-log-counts")
                yield section("Roots")
                roots = connection.roots.items if connection is not None else self.state.spec.roots
                asked = connection.roots.listed if connection is not None else 0
                yield Static(roots_list(roots, asked), id="server-details-roots")
                yield section("Subscriptions")
                subscribed = sorted(connection.subscriptions) if connection is not None else []
                yield Static(
                    plain("\n".join(subscribed), DOCUMENT_LIMIT) if subscribed else Text("none", style="dim"),
                    id="server-details-subscriptions",
                )
                if self.state.spec.transport != "stdio":
                    yield section("Authorization")
                    yield Static(self._auth_text(), id="server-details-auth")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Edit roots  r", id="server-details-edit-roots")
                yield Button("Close", id="server-details-close-button", variant="primary")

    def _log_counts(self) -> Text:
        hosted = self.hosted
        if hosted is None:
            return Text("")
        log = hosted.connection.log
        if not log.total:
            return Text("no log messages yet (the protocol log's Logs tab lists them)", style="dim")
        counts = ", ".join(f"{log.counts[name]:,} {name}" for name in LOG_LEVELS if log.counts.get(name))
        return Text(f"{log.total:,} received: {counts} (the protocol log's Logs tab lists them)", style="dim")

    def _auth_text(self) -> Text:
        from rea_tui.host import AuthorizationRequired, auth_status, uses_oauth

        spec = self.state.spec
        if not uses_oauth(spec):
            return Text("its config sends an Authorization header (rea-tui does not sign in)", style="dim")
        status = auth_status(spec)
        needed = isinstance(self.state.error, AuthorizationRequired)
        if status.signed_in and not needed:
            text = Text("signed in", style="green")
            if status.scope:
                text.append_text(plain_line(f", scope {status.scope}", LINE_LIMIT))
        else:
            text = Text("authorization needed: press f9 on the main screen to sign in", style="bold yellow")
        return text

    # ------------------------------------------------------------ actions

    @on(Select.Changed, "#server-details-level")
    def _level_changed(self, event: Select.Changed) -> None:
        from rea_tui.host import HostError, set_log_level

        hosted = self.hosted
        level = event.value
        if hosted is None or not isinstance(level, str) or not level or level == hosted.connection.log.level:
            return

        async def change() -> None:
            try:
                await set_log_level(hosted.connection, level)
            except HostError as exc:
                notify_plain(self.app, exc.describe(), title="Log level not changed", severity="warning")
                return
            notify_plain(self.app, f"{hosted.name} now sends log messages from {level} up.", title="Logging")

        start_job(self, change(), DETAILS_GROUP, "log-level")

    def action_edit_roots(self) -> None:
        from rea_tui.ui.screens.roots import RootsScreen

        hosted = self.hosted
        if hosted is None:
            notify_plain(self.app, f"{self.state.spec.name} has not been started yet.")
            return

        def edited(roots: list[Root] | None) -> None:
            if roots is not None:
                start_job(self, self._set_roots(hosted, roots), DETAILS_GROUP, "roots")

        self.app.push_screen(RootsScreen(hosted.name, hosted.connection.roots.items), callback=edited)

    async def _set_roots(self, hosted: HostedServer, roots: list[Root]) -> None:
        from rea_tui.host import HostError, set_roots

        try:
            changed = await set_roots(hosted.connection, roots)
        except HostError as exc:
            notify_plain(self.app, exc.describe(), title="Roots", severity="warning")
            return
        if self.is_attached:
            connection = hosted.connection
            self.query_one("#server-details-roots", Static).update(
                roots_list(connection.roots.items, connection.roots.listed)
            )
        told = "; the server was told" if changed and hosted.ready else ""
        notify_plain(self.app, f"{len(roots)} roots offered to {hosted.name}{told}.", title="Roots")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "server-details-edit-roots":
            self.action_edit_roots()
        else:
            self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
