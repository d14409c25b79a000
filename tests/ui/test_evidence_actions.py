"""Acting on evidence by keyboard, against the real reference server (`--synthetic 2000 --seed 0`).

Enter on a row offers the server's tools that take what it names; the call
goes through the approval dialog, and what the server received is the row's
value. `[` and `]` go back and forward through what was inspected.
"""

from __future__ import annotations

import json
from typing import Any

from textual.widgets import OptionList

from rea_tui.ui.app import ReaApp
from rea_tui.ui.screens.approval import ApprovalScreen
from rea_tui.ui.screens.row_actions import RowActionsScreen
from rea_tui.ui.widgets.entry_list import EntryList
from rea_tui.ui.widgets.evidence_pane import EvidenceDetail, EvidencePane
from rea_tui.ui.widgets.result_view import ViewTable
from tests.support.pilot import make_app, screen_text, wait_for
from tests.support.scenarios import SERVER, SIZE, click, connected, reference_spec, run_tool, screen_named

OFFLINE = "Offline search is unavailable"


def calls_received(app: ReaApp) -> list[dict[str, Any]]:
    """The tools/call requests as they went over the wire, in order."""
    hosted = app.session.hosted(SERVER)
    assert hosted is not None
    return [json.loads(e.payload)["params"] for e in hosted.connection.traffic.requests_sent("tools/call")]


def menu_labels(screen: Any) -> list[str]:
    options = screen.query_one("#row-actions-list", OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def act_on_row(pilot: Any, app: ReaApp, row: int, action: str) -> ApprovalScreen:
    """Focus the shown entry's first table, put its cursor on `row`, enter, and choose the action `action`."""
    detail = app.main.query_one(EvidenceDetail)
    await wait_for(pilot, lambda: bool(detail.tables) and detail.tables[0].row_count > row, "the rows")
    table = detail.tables[0]
    table.focus()
    table.move_cursor(row=row)
    await pilot.pause()
    await pilot.press("enter")
    menu = await screen_named(pilot, "RowActionsScreen")
    assert isinstance(menu, RowActionsScreen)
    index = next(i for i, label in enumerate(menu_labels(menu)) if label.startswith(action))
    await pilot.press(*(["down"] * index), "enter")
    approval = await screen_named(pilot, "ApprovalScreen")
    assert isinstance(approval, ApprovalScreen)
    return approval


async def approve_once(pilot: Any, app: ReaApp) -> None:
    before = len(app.session.ledger.entries)
    await click(pilot, "#run-once")
    await wait_for(
        pilot,
        lambda: len(app.session.ledger.entries) > before and app.session.ledger.entries[-1].finished,
        "the call to finish",
    )
    await pilot.pause()


async def test_rows_lead_from_a_string_to_its_references_to_the_procedure_through_the_approval() -> None:
    app = make_app([reference_spec()], transcript=None)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await run_tool(pilot, "search_strings", {"query": "offline"})
        # The string's row: its references, with the string and its document from the row.
        approval = await act_on_row(pilot, app, 0, "find_references")
        assert approval.arguments["string"] == OFFLINE and approval.arguments["document"] == "Notes"
        assert "procedure" not in approval.arguments  # one subject: the prompt's values are not mixed in
        await approve_once(pilot, app)
        assert calls_received(app)[-1]["arguments"]["string"] == OFFLINE
        # The references table took the focus; its row names the procedure that loads the string.
        detail = app.main.query_one(EvidenceDetail)
        await wait_for(pilot, lambda: isinstance(app.focused, ViewTable), "the new rows focused")
        menu_screen = None
        await pilot.press("enter")
        menu_screen = await screen_named(pilot, "RowActionsScreen")
        assert menu_labels(menu_screen)[:4] == [
            "inspect_procedure  procedure=SearchNotesEntry  document=Notes",
            "find_references  procedure=SearchNotesEntry  document=Notes",
            "callers  procedure=SearchNotesEntry  document=Notes",
            "callees  procedure=SearchNotesEntry  document=Notes",
        ]
        assert menu_labels(menu_screen)[-1] == "Copy SearchNotesEntry"
        await pilot.press("down", "down", "enter")  # callers
        await screen_named(pilot, "ApprovalScreen")
        await approve_once(pilot, app)
        sent = calls_received(app)[-1]
        assert sent["name"] == "callers"
        assert sent["arguments"]["procedure"] == "SearchNotesEntry" and sent["arguments"]["document"] == "Notes"
        assert detail.entry is app.session.ledger.entries[-1]


async def test_a_denied_action_sends_nothing() -> None:
    app = make_app([reference_spec()], transcript=None)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await run_tool(pilot, "search_strings", {"query": "offline"})
        await act_on_row(pilot, app, 0, "find_references")
        await pilot.press("escape")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "MainScreen", "the dialog closed")
        await pilot.pause(0.3)
        assert [c["name"] for c in calls_received(app)] == ["search_strings"]


async def test_a_listing_row_offers_the_procedure_a_call_goes_to() -> None:
    app = make_app([reference_spec()], transcript=None)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        entry = await run_tool(pilot, "inspect_procedure", {"procedure": "openDocument", "document": "Notes"})
        detail = app.main.query_one(EvidenceDetail)
        await wait_for(pilot, lambda: detail.entry is entry and bool(detail.tables), "the listing")
        table = detail.tables[0]
        # A call with a named target: its row names that procedure (not openDocument) and its address.
        row = next(i for i, facts in enumerate(table.facts) if facts.get("procedure") not in (None, "openDocument"))
        callee = table.facts[row]["procedure"]
        approval = await act_on_row(pilot, app, row, "inspect_procedure")
        assert approval.arguments["procedure"] == callee
        await approve_once(pilot, app)
        assert calls_received(app)[-1]["arguments"]["procedure"] == callee


async def test_back_and_forward_go_through_what_was_inspected_with_a_breadcrumb() -> None:
    app = make_app([reference_spec()], transcript=None)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        first = await run_tool(pilot, "search_strings", {"query": "offline"}, button="#allow-session")
        await act_on_row(pilot, app, 0, "find_references")
        await approve_once(pilot, app)
        second = app.session.ledger.entries[-1]
        detail = app.main.query_one(EvidenceDetail)
        pane = app.main.query_one(EvidencePane)
        await wait_for(pilot, lambda: isinstance(app.focused, ViewTable), "the references focused")
        trail = "E-0001 search_strings › E-0002 find_references"
        await wait_for(pilot, lambda: trail in screen_text(app), "the breadcrumb")
        await pilot.press("left_square_bracket")
        await wait_for(pilot, lambda: detail.entry is first, "back to the strings")
        # The list follows, and the rows keep the focus: enter acts on the string again.
        assert pane.selected_id == first.id and isinstance(app.focused, ViewTable)
        await pilot.press("right_square_bracket")
        await wait_for(pilot, lambda: detail.entry is second, "forward to the references")
        await pilot.press("alt+left")
        await wait_for(pilot, lambda: detail.entry is first, "back again (alt+left)")
        # From the list, enter offers the entry's rows and its evidence ID; `c` copies the ID, not typed anywhere.
        app.main.query_one(EntryList).focus()
        await pilot.press("enter")
        menu = await screen_named(pilot, "RowActionsScreen")
        assert menu_labels(menu)[:2] == ["Go to its rows", "Copy E-0001"]
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.focused, ViewTable), "its rows")


async def test_another_servers_result_acts_through_its_own_tools_by_field_name() -> None:
    """Not REA: the sample server's structured_info returns {name, size}; enter on the `name` field of the JSON
    tree offers the server's tools that take a `name` (matched by name and type), and the call is approved."""
    from textual.widgets import Tree

    from tests.conftest import sample_spec

    app = make_app([sample_spec()], transcript=None)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await run_tool(pilot, "structured_info", {"name": "Paris"}, server="sample")
        detail = app.main.query_one(EvidenceDetail)
        await wait_for(pilot, lambda: bool(detail.query(".structured-tree")), "the JSON tree")
        tree = detail.query_one(".structured-tree", Tree)
        leaf = next(n for n in tree.root.children[0].children if n.data is not None and n.data[0] == "name")
        tree.focus()
        tree.move_cursor(leaf)
        await pilot.pause()
        await pilot.press("enter")
        menu = await screen_named(pilot, "RowActionsScreen")
        labels = menu_labels(menu)
        assert "structured_info  name=Paris" in labels
        assert not any(label.startswith("echo") for label in labels)  # echo takes `text`, not a name
        await pilot.press(*(["down"] * labels.index("structured_info  name=Paris")), "enter")
        await screen_named(pilot, "ApprovalScreen")
        before = len(app.session.ledger.entries)
        await click(pilot, "#run-once")
        await wait_for(pilot, lambda: len(app.session.ledger.entries) > before, "the call")
        hosted = app.session.hosted("sample")
        assert hosted is not None
        sent = [json.loads(e.payload)["params"] for e in hosted.connection.traffic.requests_sent("tools/call")]
        assert sent[-1]["name"] == "structured_info" and sent[-1]["arguments"] == {"name": "Paris"}
