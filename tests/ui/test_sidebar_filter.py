"""The sidebar filter: ctrl+f focuses it, typing narrows prompts, tools and resources, Escape clears it."""

from __future__ import annotations

from rea_tui.ui.app import ReaApp
from rea_tui.ui.widgets.sidebar import ServerTree
from rea_tui.ui.widgets.sidebar_filter import SidebarFilter
from tests.conftest import sample_spec
from tests.support.pilot import make_app, ready, screen_text, wait_for

SIZE = (160, 48)


def shown(app: ReaApp) -> dict[str, list[str]]:
    """Each section's title and its entries' names, as the tree holds them now."""
    tree = app.query_one(ServerTree)
    server = tree.root.children[0]
    return {
        str(section.label): [node.data.name for node in section.children if node.data is not None]
        for section in server.children
    }


async def test_typing_filters_every_section_and_escape_shows_everything_again() -> None:
    app = make_app([sample_spec("legacy")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        everything = shown(app)
        assert "Tools (8)" in everything and "Resources (1)" in everything

        await pilot.press("ctrl+f")
        filter_field = app.query_one(SidebarFilter)
        assert filter_field.has_focus
        await pilot.press(*"RE")  # any case
        await wait_for(pilot, lambda: "Prompts (2 of 2)" in shown(app), "the filtered prompts")
        narrowed = shown(app)
        # "Review code" and "Investigate a procedure" (not the "2 args" beside them);
        # among the tools only those whose name or title has "re".
        assert narrowed["Prompts (2 of 2)"] == ["review_code", "investigate"]
        tools = next(names for title, names in narrowed.items() if title.startswith("Tools"))
        assert tools and all("re" in name.casefold() for name in tools)
        assert "structured_info" in tools and "echo" not in tools
        assert "Resources (1 of 1)" in narrowed  # sample://readme

        await pilot.press("backspace", "backspace", *"args")  # the argument counts are not matched
        await wait_for(pilot, lambda: "Prompts (0 of 2)" in shown(app), "no prompt for 'args'")
        # Sections with matches open so the matches show; ones without any are left out.
        tree = app.query_one(ServerTree)
        assert all(section.is_expanded for section in tree.root.children[0].children)

        await pilot.press("escape")
        await wait_for(pilot, lambda: shown(app) == everything, "every entry again")
        assert filter_field.value == ""
        assert tree.has_focus


async def test_the_filter_field_names_its_key_and_a_list_change_keeps_the_filter() -> None:
    app = make_app([sample_spec("legacy")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        # The footer is full at 160 columns: the field itself says which key comes to it.
        assert "Filter prompts, tools, resources  ^f" in screen_text(app)
        await pilot.press("ctrl+f", *"zzz-nothing")
        await wait_for(pilot, lambda: "Prompts (0 of 2)" in shown(app), "no prompt to match")
        assert list(shown(app)) == ["Prompts (0 of 2)"]
        # The server's lists are filled again (as after list_changed): the filter still applies.
        hosted = app.session.hosted("sample")
        assert hosted is not None
        tree = app.query_one(ServerTree)
        tree.fill_server("sample", hosted.catalogs)
        assert list(shown(app)) == ["Prompts (0 of 2)"]
        await pilot.press("enter")  # leaves the filter, keeps it
        assert tree.has_focus and app.query_one(SidebarFilter).value == "zzz-nothing"


async def test_enter_in_the_filter_puts_the_cursor_on_the_first_match() -> None:
    app = make_app([sample_spec("legacy")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press("ctrl+f", *"slow", "enter")
        tree = app.query_one(ServerTree)
        assert tree.has_focus
        await wait_for(pilot, lambda: tree.cursor_node is not None and tree.cursor_node.data is not None)
        assert tree.cursor_node is not None and tree.cursor_node.data is not None
        assert (tree.cursor_node.data.kind, tree.cursor_node.data.name) == ("tool", "slow_task")
        await pilot.press("enter")  # opens it, as selecting it in the tree does
        await wait_for(pilot, lambda: len(app.screen_stack) > 1, "the tool's form")


async def test_narrowing_and_widening_the_filter_match_a_fresh_filter_and_keep_the_cursor() -> None:
    # Typing on narrows the last matches; deleting starts again from every entry: both must agree with a
    # filter typed afresh, and the entry under the cursor keeps it while it still matches.
    app = make_app([sample_spec("legacy")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        tree = app.query_one(ServerTree)
        fresh: dict[str, dict[str, list[str]]] = {}
        for text in ("s", "sl"):
            tree.filter("")
            tree.filter(text)
            fresh[text] = shown(app)
        tree.filter("")
        from rea_tui.ui.messages import NodeRef

        assert tree.select_ref(NodeRef("tool", "sample", "slow_task"), move_only=True)
        await pilot.press("ctrl+f", "s", "l", "o")
        await wait_for(pilot, lambda: tree.filter_text == "slo", "the narrowed filter")
        assert tree.cursor_node is not None and tree.cursor_node.data == NodeRef("tool", "sample", "slow_task")
        await pilot.press("backspace")
        await wait_for(pilot, lambda: tree.filter_text == "sl", "the widened filter")
        assert shown(app) == fresh["sl"]
        await pilot.press("backspace")
        await wait_for(pilot, lambda: tree.filter_text == "s", "the wider filter")
        assert shown(app) == fresh["s"] and fresh["s"] != fresh["sl"]
        assert tree.cursor_node is not None and tree.cursor_node.data == NodeRef("tool", "sample", "slow_task")


async def test_a_section_the_server_has_nothing_in_is_left_out() -> None:
    """A server with tools only (no prompts, resources or templates) shows its tools and no empty section."""
    import sys

    from rea_tui.host import ServerSpec
    from tests.conftest import REPO

    spec = ServerSpec(
        name="stateful",
        transport="stdio",
        command=sys.executable,
        args=("-m", "tests.support.stateful_server"),
        cwd=str(REPO),
    )
    app = make_app([spec])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await wait_for(pilot, lambda: "Tools (3)" in shown(app), "the tools")
        assert list(shown(app)) == ["Tools (3)"]
        assert "Prompts (0)" not in screen_text(app)
        # Under a filter too: no "Prompts (0 of 0)".
        await pilot.press("ctrl+f", *"count")
        await wait_for(pilot, lambda: list(shown(app)) == ["Tools (1 of 3)"], "the filtered tools")
