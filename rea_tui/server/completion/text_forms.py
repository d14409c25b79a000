"""Text helpers: Unicode folding for matching, and quoting of untrusted values."""

from __future__ import annotations

import json
import unicodedata
from typing import Any

_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})


def fold(value: str) -> str:
    """NFKC-normalized, case-folded form used for every case-insensitive comparison.

    Normalizing again after casefold keeps the result stable for characters
    whose case folding is not NFKC-closed.
    """
    if value.isascii():
        return value.lower()
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", value).casefold())


def escape_unsafe(text: str) -> str:
    """Replace control, format and separator characters with visible escapes."""
    if text.isascii() and text.isprintable():
        return text
    out: list[str] = []
    for ch in text:
        if unicodedata.category(ch) in _UNSAFE_CATEGORIES or (ch.isascii() and not ch.isprintable()):
            code = ord(ch)
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
        else:
            out.append(ch)
    return "".join(out)


def quote(value: str, limit: int = 4096) -> str:
    """A JSON string literal for an untrusted value, safe to embed in prose.

    Control and bidi-format characters are escaped so the value cannot restyle
    or reorder the surrounding text; long values are cut with a marker.
    """
    cut = value if len(value) <= limit else value[:limit] + "…"
    return escape_unsafe(json.dumps(cut, ensure_ascii=False))


def to_json(value: Any) -> str:
    """Pretty JSON for text content blocks (the same data as structured content)."""
    return json.dumps(value, ensure_ascii=False, indent=2)


def hex_address(address: int) -> str:
    return f"0x{address:x}"
