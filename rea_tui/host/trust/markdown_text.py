"""Server text as inert Markdown, escaped only where Markdown would read it.

A server string must never become a heading, a list, a link, an image,
emphasis or HTML in a report; everything else stays as it was written
(`investigate_feature`, `E-0004` and `libpython3.11.so.1.0` need no
backslashes). Code goes in fences or spans the content cannot close.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from rea_tui.host.trust.safe_text import sanitize, sanitize_line

TEXT_EXCERPT = 4_000
# Inline markup anywhere: escapes, code spans, emphasis, strikethrough, links and images, table cells.
_INLINE = re.compile(r"([\\`*~\[\]|])")
# An underscore opens or closes emphasis only at a word's edge (intraword ones are inert in CommonMark).
_EDGE_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
# What GitHub turns into links without any markup: URLs, www. names and e-mail addresses.
_AUTOLINK = re.compile(r"(?i)(://|\bwww\.|@)")
_AUTOLINK_BROKEN = {"://": r":\/\/", "@": r"\@"}
# What starts a block at the beginning of a line: a heading, a list item, a break or an underline.
_BLOCK_START = re.compile(r"^([#+=-]|\d{1,9}(?=[.)]))")


def _inline(text: str) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _INLINE.sub(r"\\\1", text)
    text = _EDGE_UNDERSCORE.sub(r"\\_", text)
    return _AUTOLINK.sub(lambda m: _AUTOLINK_BROKEN.get(m.group(1), m.group(1)[:-1] + "\\."), text)


def _line(line: str) -> str:
    line = _inline(line.strip())
    match = _BLOCK_START.match(line)
    if match is None:
        return line
    if match.group(1)[0].isdigit():
        # "1." starts an ordered list: escape the dot (or parenthesis) after the number.
        end = match.end()
        return f"{line[:end]}\\{line[end:]}"
    return f"\\{line}"


def md_text(value: object, limit: int | None = TEXT_EXCERPT) -> str:
    """Server text as one inert paragraph: its line breaks kept, nothing in it read as Markdown or HTML."""
    text = sanitize(value, limit)
    # Two trailing spaces keep the server's line breaks inside one paragraph; an empty line would end it.
    return "  \n".join(_line(line) or "&#8203;" for line in text.split("\n"))


def md_inline(value: object, limit: int | None = 300) -> str:
    """A fragment of server text inside a line of the report's own (so no line starts with it)."""
    return _inline(sanitize_line(value, limit))


def md_cell(value: object, limit: int | None = 300) -> str:
    """Server text in a table cell: one line, inert."""
    return _line(sanitize_line(value, limit)) or " "


def md_code(value: str, language: str = "") -> str:
    """A fenced block that the content cannot close: the fence is longer than any backtick run in it."""
    text = sanitize(value, None)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def md_span(value: object, limit: int | None = 300) -> str:
    """A code span the content cannot close (for names and values); pipes escaped for table cells."""
    text = sanitize_line(value, limit).replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    padded = f" {text} " if text.startswith("`") or text.endswith("`") or not text.strip() else text
    return f"{ticks}{padded}{ticks}"


def md_json(value: Any) -> str:
    return md_code(json.dumps(value, indent=2, ensure_ascii=False, default=str), "json")


def md_table(columns: Sequence[str], rows: Sequence[Sequence[object]], numeric: frozenset[int] = frozenset()) -> str:
    """A GFM table; `columns` are the report's own words, the cells server text."""
    head = "| " + " | ".join(columns) + " |"
    rule = "| " + " | ".join("---:" if i in numeric else "---" for i in range(len(columns))) + " |"
    body = ["| " + " | ".join(md_cell(cell) for cell in row) + " |" for row in rows]
    return "\n".join([head, rule, *body])


def md_details(summary: str, body: str) -> str:
    """A collapsed block (`summary` is the report's own words; `body` Markdown made inert already)."""
    return f"<details><summary>{summary}</summary>\n\n{body}\n\n</details>"
