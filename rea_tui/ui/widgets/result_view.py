"""A tool result as the analyst reads it: a disassembly listing, tables, or the JSON tree.

The views come from `rea_tui.host` (`result_views`), which knows the shapes;
this module only draws them. Every cell is server text, so each is a
sanitized `Text` (never markup); a table is a Rich `Table` of such cells.
"""

from __future__ import annotations

import json
from typing import Any

from rich import box
from rich.table import Table as RichTable
from rich.text import Text
from textual.widgets import Static, Tree
from textual.widgets.tree import TreeNode

from rea_tui.host import DisassemblyListing, ResultTable, ResultView
from rea_tui.ui.text import LINE_LIMIT, NAME_LIMIT, WORD_LIMIT, join, plain_line

TREE_CHILD_LIMIT = 200
# Instruction bytes shown per row (a longer encoding ends in "…"; the raw result has it all).
BYTES_SHOWN = 16
MNEMONIC_WIDTH = 7
CELL_LIMIT = 300
# A column no wider than this keeps its whole width (IDs, addresses, sections); wider ones wrap to make room.
SHORT_COLUMN = 12


def listing_text(listing: DisassemblyListing) -> Text:
    """One instruction per line: address, bytes, mnemonic, operands, and the symbol a branch goes to."""
    rows = listing.instructions
    address_width = max((len(i.address) for i in rows), default=0)
    bytes_width = min(BYTES_SHOWN, max((len(i.hex_bytes) for i in rows), default=0))
    text = Text(no_wrap=True, overflow="crop")
    for index, insn in enumerate(rows):
        if index:
            text.append("\n")
        shown_bytes = insn.hex_bytes if len(insn.hex_bytes) <= bytes_width else insn.hex_bytes[: bytes_width - 1] + "…"
        text.append_text(plain_line(insn.address.ljust(address_width), WORD_LIMIT, style="dim"))
        text.append("  ")
        text.append_text(plain_line(shown_bytes.ljust(bytes_width), WORD_LIMIT, style="dim"))
        text.append("  ")
        text.append_text(plain_line(insn.mnemonic.ljust(MNEMONIC_WIDTH), WORD_LIMIT, style="bold"))
        text.append(" ")
        text.append_text(plain_line(insn.operands, CELL_LIMIT))
        if insn.target:
            text.append("  ")
            text.append_text(plain_line(f"<{insn.target}>", CELL_LIMIT, style="cyan"))
    return text


def table_renderable(table: ResultTable) -> RichTable:
    rendered = RichTable(box=box.SIMPLE_HEAD, pad_edge=False, expand=False, show_edge=False)
    for index, column in enumerate(table.columns):
        width = max([len(column), *(len(row[index]) for row in table.rows if index < len(row))])
        short = width <= SHORT_COLUMN
        rendered.add_column(
            plain_line(column, WORD_LIMIT),
            justify="right" if index in table.numeric else "left",
            # Rich narrows wrapping columns first; the short ones keep their width.
            no_wrap=short,
            overflow="ellipsis",
            min_width=width if short else None,
        )
    for row in table.rows:
        rendered.add_row(*(plain_line(cell, CELL_LIMIT) for cell in row))
    return rendered


def view_title(view: ResultView) -> Text:
    title = plain_line(view.title, LINE_LIMIT, style="bold")
    if view.note:
        title.append("  ")
        title.append_text(plain_line(view.note, LINE_LIMIT, style="dim"))
    return title


def view_widgets(view: ResultView) -> list[Static]:
    """A title line and the listing or table under it."""
    widgets = [Static(view_title(view), classes="view-title")]
    if isinstance(view, DisassemblyListing):
        widgets.append(Static(listing_text(view), classes="disassembly-listing"))
    elif view.rows:  # an empty one's title says there is nothing (`no strings containing 'x'`)
        widgets.append(Static(table_renderable(view), classes="result-table"))
    return widgets


def add_json_node(node: TreeNode[None], key: str, value: Any) -> None:
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
        node.add_leaf(join(label, Text(": "), plain_line(json.dumps(value, ensure_ascii=False), LINE_LIMIT)))


def json_tree(structured: Any) -> Tree[None]:
    tree: Tree[None] = Tree(Text("structuredContent", style="bold"), classes="structured-tree")
    add_json_node(tree.root, "structuredContent", structured)
    tree.root.expand()
    for child in tree.root.children:
        child.expand()
    return tree
