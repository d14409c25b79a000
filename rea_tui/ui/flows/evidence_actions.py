"""Acting on evidence: enter on a row offers the server's tools that take what it names.

The menu's choices come from `rea_tui.host.row_actions` (the server's own
tools, matched by argument name and type); a chosen call goes through the tool
form's schema check and the approval dialog (`ToolCallFlow.open`), and its
result is selected and focused in the evidence pane when it comes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rea_tui.host import RowAction, row_actions, row_label
from rea_tui.ui.flows.base import Flow
from rea_tui.ui.text import notify_plain

if TYPE_CHECKING:
    from textual.screen import Screen

    from rea_tui.host import EvidenceEntry, RowFacts, Session
    from rea_tui.ui.flows.tool_call import ToolCallFlow
    from rea_tui.ui.screens.row_actions import LocalAction, MenuChoice

# What a row's copy offers first: the thing it names, before its place or its document.
COPIED_KINDS = ("procedure", "string", "address", "evidence", "document")


class EvidenceActionFlow(Flow):
    """The row menu of the evidence pane, and the calls it starts."""

    def __init__(self, screen: Screen[None], session: Session, calls: ToolCallFlow, *, offline: bool) -> None:
        super().__init__(screen, session)
        self.calls = calls
        self.offline = offline
        # The tool of a call started from a row: its result takes the focus when it comes (the analyst goes on
        # from it).
        self.awaiting: str | None = None

    def row_chosen(self, entry: EvidenceEntry, facts: RowFacts) -> None:
        """Enter on a row of `entry`'s listing or tables."""
        from rea_tui.ui.screens.row_actions import LocalAction

        copied = next((facts[k] for k in COPIED_KINDS if facts.get(k)), "")
        local = [LocalAction("copy", f"Copy {copied}", copied)] if copied else []
        self._offer(entry, row_label(facts) or "this row", facts, local, local_first=False)

    def entry_chosen(self, entry: EvidenceEntry, has_rows: bool) -> None:
        """Enter on an entry of the ledger: its evidence ID (when the server gave one) and its rows."""
        from rea_tui.ui.screens.row_actions import LocalAction

        local = [LocalAction("rows", "Go to its rows")] if has_rows else []
        local.append(LocalAction("copy", f"Copy {entry.ref}", entry.ref))
        server_id = entry.server_evidence_id
        facts = {"evidence": server_id} if server_id else {}
        self._offer(entry, f"evidence {entry.ref}", facts, local, local_first=True)

    def _offer(
        self, entry: EvidenceEntry, subject: str, facts: RowFacts, local: list[LocalAction], *, local_first: bool
    ) -> None:
        from rea_tui.ui.screens.row_actions import RowActionsScreen

        hosted = self.session.browsable(entry.server)
        tools = hosted.catalogs.tools.items if hosted is not None and not self.offline else []
        actions = row_actions(facts, tools)

        def chosen(choice: MenuChoice | None) -> None:
            self._run(entry, choice)

        self.screen.app.push_screen(
            RowActionsScreen(subject, entry.server, actions, local, local_first=local_first), callback=chosen
        )

    def _run(self, entry: EvidenceEntry, choice: MenuChoice | None) -> None:
        from rea_tui.ui.widgets.evidence_pane import EvidencePane

        if choice is None:
            return
        if isinstance(choice, RowAction):
            self.awaiting = choice.tool
            self.calls.open(entry.server, choice.tool, choice.arguments, from_prompt=False, review_at_once=True)
            return
        if choice.key == "copy":
            self.screen.app.copy_to_clipboard(choice.value)
            notify_plain(self.screen.app, f"Copied {choice.value}", timeout=2)
        elif choice.key == "rows":
            self.screen.query_one(EvidencePane).focus_rows()

    def result_came(self, entry: EvidenceEntry) -> None:
        """A call finished: if a row started it, its rows take the focus."""
        from rea_tui.ui.widgets.evidence_pane import EvidencePane

        if self.awaiting is None or self.awaiting != entry.tool:
            return
        self.awaiting = None
        pane = self.screen.query_one(EvidencePane)
        self.screen.call_after_refresh(pane.focus_rows)
