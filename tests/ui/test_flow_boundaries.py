"""Flows talk to the screen by messages (and the protocols of `rea_tui.ui.flows.base`), never through its widgets."""

from __future__ import annotations

import ast
from pathlib import Path

import rea_tui.ui.flows

FLOWS = Path(rea_tui.ui.flows.__file__).parent
# Textual's DOM queries: each one reaches into a widget tree.
QUERIES = frozenset({"query", "query_one", "query_exactly_one", "query_children", "query_ancestor"})
# What a flow holds that has the screen's widget tree: the screen, and the app (whose queries go to its screen).
SCREEN_HOLDERS = frozenset({"screen", "app"})


def holds_the_screen(receiver: ast.expr) -> bool:
    """`self.screen`, `screen`, `self.screen.app`, `app`: anything whose last name is the screen or the app."""
    if isinstance(receiver, ast.Attribute):
        return receiver.attr in SCREEN_HOLDERS
    return isinstance(receiver, ast.Name) and receiver.id in SCREEN_HOLDERS


def screen_queries(source: str) -> list[str]:
    """Each call in `source` that queries the screen's widgets, as `line: code`, in the order of the lines."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        if node.func.attr in QUERIES and holds_the_screen(node.func.value):
            found.append((node.lineno, ast.unparse(node)))
    return [f"{line}: {code}" for line, code in sorted(found)]


def test_no_flow_queries_the_screens_widgets() -> None:
    modules = sorted(FLOWS.glob("*.py"))
    assert len(modules) > 5, "the flows are where this test looks for them"
    found = {m.name: q for m in modules if (q := screen_queries(m.read_text(encoding="utf-8")))}
    assert found == {}, "a flow posts a message (or asks through a protocol of flows/base.py) instead"


def test_the_scan_finds_a_query_on_the_screen() -> None:
    source = """
class Flow:
    def tree(self):
        return self.screen.query_one(ServerTree)

    def header(self, screen, app):
        screen.query("#header").first().update("x")
        self.screen.app.query_exactly_one(WorkflowView)
        app.screen.query_one(ArgumentForm)
"""
    assert [line.split(":")[0] for line in screen_queries(source)] == ["4", "7", "8", "9"]


def test_the_scan_leaves_a_dialogs_own_query_alone() -> None:
    """A dialog the flow made is not the screen: its own widgets are the dialog's business."""
    source = "picker.query_one(Input)\nself.dialog.query('#x')\nself.screen.post_message(Shown())\n"
    assert screen_queries(source) == []
