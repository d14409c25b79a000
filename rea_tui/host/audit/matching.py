"""Text forms the audit compares completion values in.

`fold` is the REA contract's matching form (NFKC, case-folded, NFKC again
so the result is stable); `fullwidth` and `ascii_swapcase` make prefixes
that a contract-following server must treat exactly like the original.
"""

from __future__ import annotations

import unicodedata
from typing import Final

_FULLWIDTH_OFFSET: Final = 0xFEE0  # U+0021..U+007E -> U+FF01..U+FF5E
_PRINTABLE_ASCII: Final = range(0x21, 0x7F)


def fold(value: str) -> str:
    """The NFKC-normalized, case-folded form used for case-insensitive prefix matching."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", value).casefold())


def folded_prefix_of(value: str, prefix: str) -> bool:
    return fold(value).startswith(fold(prefix))


def can_widen(text: str) -> bool:
    """True when every character has a fullwidth form that NFKC maps back to it."""
    return bool(text) and all(ord(c) in _PRINTABLE_ASCII for c in text)


def fullwidth(text: str) -> str:
    """`text` in fullwidth forms (`ab` -> `ａｂ`); only for text where `can_widen` holds."""
    return "".join(chr(ord(c) + _FULLWIDTH_OFFSET) for c in text)


def has_ascii_letter(text: str) -> bool:
    return any(c.isascii() and c.isalpha() for c in text)


def ascii_swapcase(text: str) -> str:
    """Upper case to lower and back, for ASCII letters only (round-trips exactly)."""
    return "".join(c.swapcase() if c.isascii() and c.isalpha() else c for c in text)
