"""JSON with comments (JSONC), as VS Code and Zed write their settings and `mcp.json`.

`//` line comments and `/* */` block comments are allowed between tokens,
and (where the client allows them) a trailing comma before `}` or `]`.
Nothing else of JSON5 is: single quotes, unquoted keys, hex numbers and the
like are refused, as the editors refuse them. Comments are blanked (line
breaks kept, so an error's line and column are the file's), trailing commas
dropped, and the rest is read by `json.loads`; a `//` or `,` inside a string
is text, never a comment or a separator.

json5 on PyPI reads a superset (it would accept files the editors refuse),
so this small tokenizer is used instead.
"""

from __future__ import annotations

import json
import re
from typing import Any

# A string (with its escapes), a comment, or anything else up to the next of those.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|//[^\n]*|/\*.*?(?:\*/|\Z)|[^"/]+|/', re.DOTALL)
# A string, a run of anything but strings and commas, or a comma.
_PIECE = re.compile(r'"(?:[^"\\]|\\.)*"?|[^",]+|,', re.DOTALL)
_CLOSER_NEXT = re.compile(r"\s*[}\]]")


def strip_comments(text: str) -> str:
    """The text with every comment blanked to spaces (line breaks kept); a string's content is kept as is."""
    out: list[str] = []
    for match in _TOKEN.finditer(text):
        token = match.group(0)
        if token.startswith("/*"):
            if not token.endswith("*/") or len(token) < 4:
                raise json.JSONDecodeError("unterminated /* comment", text, match.start())
            out.append(re.sub(r"[^\n]", " ", token))
        elif token.startswith("//"):
            out.append(" " * len(token))
        else:
            out.append(token)
    return "".join(out)


def _drop_trailing_commas(text: str) -> str:
    """A comma after a value and before `}` or `]` becomes a space (positions in an error stay the file's);
    a comma with no value before it (`[,]`, `{,}`, `[1,,]`) is left for json to refuse."""
    parts: list[str] = []
    last = ""  # the last character that is not whitespace
    for match in _PIECE.finditer(text):
        token = match.group(0)
        trailing = token == "," and last not in ("", "[", "{", ",") and _CLOSER_NEXT.match(text, match.end())
        parts.append(" " if trailing else token)
        significant = token.rstrip()
        if significant:
            last = significant[-1]
    return "".join(parts)


def loads(text: str, *, trailing_commas: bool = True) -> Any:
    """Parse JSONC; `json.JSONDecodeError` (a ValueError) when it is not, with the file's line and column."""
    cleaned = strip_comments(text)
    if trailing_commas:
        cleaned = _drop_trailing_commas(cleaned)
    return loads_json(cleaned)


def loads_json(text: str) -> Any:
    """`json.loads`, where nesting too deep for the parser's recursion is a ValueError like any other bad JSON
    (a folder's file of a million `[` must not end the program)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply to read") from None
