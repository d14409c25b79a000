"""A tool result as the analyst reads it: a disassembly listing, tables, or the JSON tree.

The views come from `rea_tui.host` (`result_views`), which knows the shapes
and what each row names; this module only draws them, as tables whose rows can
be chosen (enter offers the actions that fit, `rea_tui.host.row_actions`).
Every cell is server text, so each is a sanitized `Text` (never markup).
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import DataTable, Static, Tree
from textual.widgets.tree import TreeNode

from rea_tui.host import DisassemblyListing, ResultTable, ResultView, RowFacts
from rea_tui.ui.text import LINE_LIMIT, NAME_LIMIT, WORD_LIMIT, join, plain_line

TREE_CHILD_LIMIT = 200
# Instruction bytes shown per row (a longer encoding ends in "…"; the raw result has it all).
BYTES_SHOWN = 16
CELL_LIMIT = 300


def view_title(view: ResultView) -> Text:
    title = plain_line(view.title, LINE_LIMIT, style="bold")
    if view.note:
        title.append("  ")
        title.append_text(plain_line(view.note, LINE_LIMIT, style="dim"))
    return title


class ViewTable(DataTable[Text]):
    """A listing or a table whose rows can be chosen: each row knows what it names (`RowFacts`).

    A cell is never wrapped: a column is as wide as its widest cell, and a table wider than its pane
    scrolls sideways, so a key column is never cut and a listing line never breaks.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "copy_row", "Copy", id="copy-row", tooltip="Copy what the row names (or the row)"),
    ]

    class RowChosen(Message):
        """Enter on a row: the actions that fit what it names are offered."""

        def __init__(self, table: ViewTable | None, facts: RowFacts) -> None:
            super().__init__()
            self.table = table
            self.facts = facts

    def __init__(self, view: ResultView, *, classes: str = "") -> None:
        listing = isinstance(view, DisassemblyListing)
        super().__init__(
            cursor_type="row",
            show_header=not listing,
            zebra_stripes=False,
            cell_padding=1,
            classes=f"view-table {'disassembly-listing' if listing else 'result-table'} {classes}".strip(),
        )
        self.view = view
        self.facts: tuple[RowFacts, ...] = view.facts
        self.rows_text: list[str] = []

    def on_mount(self) -> None:
        if isinstance(self.view, DisassemblyListing):
            self._add_listing(self.view)
        else:
            self._add_table(self.view)

    def _add_listing(self, listing: DisassemblyListing) -> None:
        for column in ("address", "bytes", "mnemonic", "operands", "target", "comment"):
            self.add_column(column, key=column)
        bytes_width = min(BYTES_SHOWN, max((len(i.hex_bytes) for i in listing.instructions), default=0))
        for insn in listing.instructions:
            shown = insn.hex_bytes if len(insn.hex_bytes) <= bytes_width else insn.hex_bytes[: bytes_width - 1] + "…"
            target = plain_line(f"<{insn.target}>", CELL_LIMIT, style="cyan") if insn.target else Text("")
            self.add_row(
                plain_line(insn.address, WORD_LIMIT, style="dim"),
                plain_line(shown, WORD_LIMIT, style="dim"),
                plain_line(insn.mnemonic, WORD_LIMIT, style="bold"),
                plain_line(insn.operands, CELL_LIMIT),
                target,
                plain_line(f"; {insn.comment}", CELL_LIMIT, style="green") if insn.comment else Text(""),
            )
            line = f"{insn.address}  {insn.hex_bytes}  {insn.mnemonic} {insn.operands}"
            line = f"{line}  <{insn.target}>" if insn.target else line
            self.rows_text.append(f"{line}  ; {insn.comment}" if insn.comment else line)

    def _add_table(self, table: ResultTable) -> None:
        for index, column in enumerate(table.columns):
            self.add_column(plain_line(column, WORD_LIMIT), key=str(index))
        for row in table.rows:
            cells = [plain_line(cell, CELL_LIMIT) for cell in row]
            for index in table.numeric:
                if index < len(cells):
                    cells[index].justify = "right"
            self.add_row(*cells)
            self.rows_text.append("  ".join(row))

    def facts_at(self, row: int) -> RowFacts:
        return self.facts[row] if 0 <= row < len(self.facts) else {}

    def action_select_cursor(self) -> None:
        if self.row_count:
            self.post_message(self.RowChosen(self, self.facts_at(self.cursor_row)))

    def action_copy_row(self) -> None:
        """What the row names first (a procedure, a string), the row's text otherwise."""
        if not self.row_count:
            return
        facts = self.facts_at(self.cursor_row)
        value = next((facts[k] for k in ("procedure", "string", "address", "document") if facts.get(k)), "")
        value = value or self.rows_text[self.cursor_row]
        # The app's copy strips control characters (a copied value cannot end a bracketed paste).
        self.app.copy_to_clipboard(value)
        self.notify("Copied the row's value", timeout=2)


def view_widgets(view: ResultView) -> list[Static | ViewTable]:
    """A title line and the listing or table under it, its rows selectable."""
    title = Static(view_title(view), classes="view-title")
    if isinstance(view, ResultTable) and not view.rows:  # its title says there is nothing (`no strings …`)
        return [title]
    return [title, ViewTable(view)]


# A field of a JSON tree: its name and value, what a leaf offers to act on (see `leaf_facts`).
JsonLeaf = tuple[str, Any]


def leaf_facts(leaf: JsonLeaf | None) -> RowFacts:
    """A named scalar field (`name: "sample"`) names its value by the field's name; an item of a list, an
    object, a boolean or null names nothing."""
    if leaf is None:
        return {}
    key, value = leaf
    if key.startswith("[") or isinstance(value, bool) or not isinstance(value, str | int):
        return {}
    return {key: str(value)}


def add_json_node(node: TreeNode[JsonLeaf | None], key: str, value: Any) -> None:
    """Add `value` under `node`, as a collapsible subtree for objects and arrays."""
    label = plain_line(key, NAME_LIMIT, style="bold")
    if isinstance(value, dict):
        child = node.add(join(label, Text(f"  {{{len(value)}}}", style="dim")), expand=False)
        for index, (k, v) in enumerate(value.items()):
            if index >= TREE_CHILD_LIMIT:
                child.add_leaf(Text(f"… {len(value) - TREE_CHILD_LIMIT:,} more keys", style="dim"))
                break
            add_json_node(child, str(k), v)
    elif isinstance(value, list):
        child = node.add(join(label, Text(f"  [{len(value)}]", style="dim")), expand=False)
        for index, item in enumerate(value):
            if index >= TREE_CHILD_LIMIT:
                child.add_leaf(Text(f"… {len(value) - TREE_CHILD_LIMIT:,} more items", style="dim"))
                break
            add_json_node(child, f"[{index}]", item)
    else:
        shown = join(label, Text(": "), plain_line(json.dumps(value, ensure_ascii=False), LINE_LIMIT))
        node.add_leaf(shown, data=(key, value))


def json_tree(structured: Any) -> Tree[JsonLeaf | None]:
    tree: Tree[JsonLeaf | None] = Tree(Text("structuredContent", style="bold"), classes="structured-tree")
    add_json_node(tree.root, "structuredContent", structured)
    tree.root.expand()
    for child in tree.root.children:
        child.expand()
    return tree
