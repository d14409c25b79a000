"""A tool result as plain text lines: a disassembly as a listing, pages of things as tables, the rest once.

The listing and tables are the host's result views (`rea_tui.host.result_views`,
the ones the TUI and the report show); here they become aligned columns, one
row a line, for a terminal or a script (`cut`, `awk -F'  +'`). A text block
that only repeats the structured content as JSON is not printed again, and
the structured content is printed as JSON only when no view reads it.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rea_tui.host import DisassemblyListing, EvidenceEntry, ResultTable, ResultView

CELL_LIMIT = 300
# Instruction bytes wider than this are cut (a long x86 instruction has 15).
BYTES_SHOWN = 24
MNEMONIC_WIDTH = 7
COLUMN_GAP = "  "


def repeats_structured(text: str, structured: Any) -> bool:
    """Whether a text block only says the structured content again (as JSON, or as the SDK's bare `result`)."""
    try:
        parsed: Any = json.loads(text)
    except ValueError:
        parsed = text
    if parsed == structured:
        return True
    # An SDK tool returning a plain value sends it as text and as {"result": value}.
    return isinstance(structured, dict) and set(structured) == {"result"} and parsed == structured["result"]


def view_lines(view: ResultView) -> list[str]:
    from rea_tui.host import DisassemblyListing, sanitize_line

    title = sanitize_line(view.title, CELL_LIMIT)
    lines = [f"{title} ({sanitize_line(view.note, CELL_LIMIT)})" if view.note else title]
    if isinstance(view, DisassemblyListing):
        return lines + listing_lines(view)
    return lines + table_lines(view)


def listing_lines(listing: DisassemblyListing) -> list[str]:
    from rea_tui.host import sanitize_line

    rows = listing.instructions
    address_width = max((len(i.address) for i in rows), default=0)
    bytes_width = min(BYTES_SHOWN, max((len(i.hex_bytes) for i in rows), default=0))
    lines = []
    for insn in rows:
        parts = [
            sanitize_line(insn.address, CELL_LIMIT).ljust(address_width),
            sanitize_line(insn.hex_bytes[:bytes_width], CELL_LIMIT).ljust(bytes_width),
            sanitize_line(insn.mnemonic, CELL_LIMIT).ljust(MNEMONIC_WIDTH),
            sanitize_line(insn.operands, CELL_LIMIT),
        ]
        line = COLUMN_GAP.join(parts).rstrip()
        if insn.target:
            line = f"{line}  <{sanitize_line(insn.target, CELL_LIMIT)}>"
        lines.append(f"{line}  ; {sanitize_line(insn.comment, CELL_LIMIT)}" if insn.comment else line)
    return lines


def table_lines(table: ResultTable) -> list[str]:
    from rea_tui.host import sanitize_line

    header = [sanitize_line(c, CELL_LIMIT) for c in table.columns]
    rows = [[sanitize_line(cell, CELL_LIMIT) for cell in row] for row in table.rows]
    widths = [max([len(header[i]), *(len(r[i]) for r in rows if i < len(r))]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        padded = [
            cell.rjust(widths[i]) if i in table.numeric else cell.ljust(widths[i])
            for i, cell in enumerate(cells[: len(widths)])
        ]
        return COLUMN_GAP.join(padded).rstrip()

    return [line(header), *(line(r) for r in rows)]


def result_lines(entry: EvidenceEntry, text_limit: int) -> list[str]:
    """The entry's result, once: its views (or its structured content as JSON) and the text that says more."""
    from rea_tui.host import result_views, sanitize

    views = result_views(entry.structured) if entry.has_structured else []
    lines: list[str] = []
    for view in views:
        lines += view_lines(view)
    texts = [getattr(block, "text", "") for block in entry.content if block.kind == "text"]
    repeated = [text for text in texts if entry.has_structured and repeats_structured(text, entry.structured)]
    # Under a view, a text that repeats the result goes; without one, it is the result, as the server wrote it.
    shown = [text for text in texts if text not in repeated] if views else texts
    lines += [sanitize(text, text_limit) for text in shown]
    if entry.has_structured and not views and not repeated and entry.narrowing is None:
        if shown:
            lines.append("structuredContent:")
        lines.append(sanitize(json.dumps(entry.structured, indent=2, ensure_ascii=False, default=str), text_limit))
    return lines
