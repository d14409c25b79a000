"""Strings found in a document's data sections, for `search_strings` and string references.

A string is a run of at least `MIN_STRING_CHARS` printable characters (ASCII
printable and tab, or well-formed UTF-8 sequences) in a data section. The
index is built on first use per document and kept until the target changes;
queries are NFKC case-insensitive substring matches over the folded texts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from rea_tui.server.completion.text_forms import fold

MIN_STRING_CHARS: Final = 4
"""Shorter runs are mostly opcode or table bytes that happen to be printable."""

MAX_STRING_CHARS: Final = 4096
"""Longer runs are kept whole for reference ranges but shown cut to this length."""

MAX_SECTION_BYTES: Final = 64 * 1024 * 1024
"""Bytes scanned per section; beyond that a section is scanned in part."""

_PRINTABLE_RUN = re.compile(
    rb"(?:[\x20-\x7e\t]|[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3})"
    rb"{%d,}" % MIN_STRING_CHARS
)


@dataclass(frozen=True, slots=True)
class SectionBytes:
    """One data section's name, virtual address and contents."""

    name: str
    address: int
    data: bytes


@dataclass(frozen=True, slots=True)
class FoundString:
    address: int
    size: int
    """Bytes the string occupies, so a reference into its middle still counts."""
    section: str
    text: str


class StringIndex:
    """The strings of one document, in address order."""

    def __init__(self, sections: Iterable[SectionBytes]) -> None:
        found: list[FoundString] = []
        for section in sections:
            data = section.data[:MAX_SECTION_BYTES]
            for run in _PRINTABLE_RUN.finditer(data):
                raw = run.group()
                text = raw.decode("utf-8", "replace")
                found.append(FoundString(section.address + run.start(), len(raw), section.name, text))
        found.sort(key=lambda s: s.address)
        self.strings = found
        self._folded = [fold(s.text[:MAX_STRING_CHARS]) for s in found]

    def __len__(self) -> int:
        return len(self.strings)

    def search(self, query: str) -> list[int]:
        """Positions of the strings whose folded text contains the folded query, in address order."""
        key = fold(query)
        if not key:
            return list(range(len(self.strings)))
        return [i for i, text in enumerate(self._folded) if key in text]

    def folded(self, position: int) -> str:
        return self._folded[position]
