"""Spelling invisible characters as escapes, so a value shown in a message or report is unambiguous.

Controls, bidi and other format characters, line separators, surrogates,
private-use and unassigned code points become `\\uXXXX`; inside a JSON
string that is still the exact value.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any, Final

_INVISIBLE_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_OUTSIDE_PRINTABLE_ASCII: Final = re.compile(r"[^\x20-\x7e\n]")


def _utf16_units(char: str) -> list[int]:
    data = char.encode("utf-16-be", "surrogatepass")
    return [int.from_bytes(data[i : i + 2], "big") for i in range(0, len(data), 2)]


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    if unicodedata.category(char) not in _INVISIBLE_CATEGORIES:
        return char
    return "".join(f"\\u{unit:04x}" for unit in _utf16_units(char))


def escape_invisible(text: str) -> str:
    return _OUTSIDE_PRINTABLE_ASCII.sub(_escape, text)


def visible_json(value: Any, *, indent: int | None = None) -> str:
    """JSON that keeps readable characters as they are and spells every invisible one as an escape."""
    return escape_invisible(json.dumps(value, indent=indent, ensure_ascii=False, default=str))
