"""The sidebar counts each label's width instead of drawing it: the count must be what drawing gives.

The tree asks every line's width whenever its lines change; `ServerTree.get_label_width` answers from
the label's and tail's lengths. Fuzzed here against `render_label`, in a real app, at several widths.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.style import Style
from rich.text import Text
from textual.app import App, ComposeResult

from rea_tui.ui.text import plain_line
from rea_tui.ui.widgets.sidebar import ServerTree

# Letters, digits, punctuation, CJK and emoji (two cells each), so cuts fall inside wide characters too.
LABEL_TEXT = st.text(
    alphabet=st.sampled_from("abcXYZ019 _-./:()…éß" + "調査関数" + "🔍🧪"),
    max_size=80,
)
TREE_WIDTHS = (12, 24, 40, 70)


class TreeApp(App[None]):
    def __init__(self, width: int) -> None:
        super().__init__()
        self.tree_width = width

    def compose(self) -> ComposeResult:
        tree = ServerTree(id="tree")
        tree.styles.width = self.tree_width
        yield tree


@pytest.mark.parametrize("width", TREE_WIDTHS)
async def test_a_counted_width_is_the_drawn_width(width: int) -> None:
    app = TreeApp(width)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        tree = app.query_one(ServerTree)

        @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
        @given(server=LABEL_TEXT, detail=LABEL_TEXT, leaf=LABEL_TEXT, tail=LABEL_TEXT, expanded=st.booleans())
        def check(server: str, detail: str, leaf: str, tail: str, expanded: bool) -> None:
            tree.clear()
            node = tree.set_server(server or "s", "failed", detail)
            section = node.add(Text("Prompts (1)", style="bold"), expand=expanded)
            entry = section.add_leaf(plain_line(leaf))
            tree._tails[entry.id] = Text(tail, style="dim")
            node.expand()
            for each in (node, section, entry):
                drawn = tree.render_label(each, Style(), Style()).cell_len
                assert tree.get_label_width(each) == drawn, str(each.label)

        check()
