"""Where x86-64 code can refer to an address, found in its bytes without decoding it.

Decoding every procedure of the biggest binaries (libLLVM: about 10 million
instructions) takes capstone minutes from Python and keeps millions of
references. Every reference `code_references` keeps in x86-64 code holds its
target's bits in the instruction's bytes:

- a rel32 call or jump, or a RIP-relative operand: a 4-byte field whose value
  `v` gives `target = field + 4 + k + v`, `k` the 0, 1, 2 or 4 immediate bytes
  after the field, so `field + 4 + v` lies in `[low - 4, high)`;
- a rel8 jump: its field lies within 128 bytes of the target;
- an absolute operand or immediate (fixed-address documents only): a 4-byte
  field equal to the target (the low half of a `movabs` too).

A field's two high bytes change only once per 64 KiB of distance from the
target, so each 64 KiB of code is searched (`re`, in C, over the parsed file's
own bytes, not a copy) for the one or two byte pairs a field there must hold,
and only those hits are checked. What
this returns is a superset: the caller decodes the procedures holding the
candidates and keeps the references it decodes.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Final

WINDOW: Final = 1 << 16
"""Field addresses whose displacement to one target shares its two high bytes: 64 KiB of code."""
FIELD: Final = 4
"""Bytes of a rel32, disp32 or imm32 field."""
MAX_TRAILING_IMMEDIATE: Final = 4
"""Bytes an immediate can follow a RIP-relative displacement with (`mov dword ptr [rip + x], imm32`)."""
SHORT_REACH: Final = 128 + 2
"""Farthest a rel8 jump's field lies from its target: the field, plus its signed byte's reach."""
MAX_ABSOLUTE_PATTERNS: Final = 16
"""Targets spread over more 256-byte pages than this are searched by their two high bytes instead of three."""
_WORD: Final = 0xFFFF_FFFF


@dataclass(frozen=True, slots=True)
class CodeBytes:
    """One code section: its address and its bytes (a view of the parsed file where the backend gives one)."""

    address: int
    data: bytes | memoryview


@cache
def _literal(needle: bytes) -> re.Pattern[bytes]:
    return re.compile(re.escape(needle))


def _finds(data: bytes | memoryview, needle: bytes, start: int, end: int) -> Iterator[int]:
    """Offsets of `needle` in `data[start:end]` (overlapping ones too), as `bytes.find` would give them."""
    pattern = _literal(needle)
    found = pattern.search(data, start, end)
    while found is not None:
        yield found.start()
        found = pattern.search(data, found.start() + 1, end)


def relative_fields(code: CodeBytes, low: int, high: int) -> Iterator[int]:
    """Addresses of 4-byte fields in `code` whose value reaches `[low, high)` relative to the field's end."""
    data, base = code.data, code.address
    first, last = low - MAX_TRAILING_IMMEDIATE, high  # `field + 4 + v` lies in [first, last)
    for window in range(base, base + len(data), WINDOW):
        window_end = min(window + WINDOW, base + len(data))
        # v = (field + 4 + v) - field - 4 over this window's fields: its extremes bound its high-byte pairs.
        smallest = first - (window_end - 1) - FIELD
        largest = (last - 1) - window - FIELD
        if largest < -(1 << 31) or smallest >= 1 << 31:
            continue  # no rel32 reaches that far
        for pair in range(smallest >> 16, (largest >> 16) + 1):
            needle = (pair & 0xFFFF).to_bytes(2, "little")
            # The pair is the field's bytes 2 and 3: search from this window's first field's byte 2.
            for at in _finds(data, needle, window - base + 2, window_end - base + 2):
                value = int.from_bytes(data[at - 2 : at + 2], "little", signed=True)
                field = base + at - 2
                if first <= field + FIELD + value < last:
                    yield field


def absolute_fields(code: CodeBytes, low: int, high: int) -> Iterator[int]:
    """Addresses of 4-byte fields in `code` that hold an address in `[low, high)` (its low 32 bits)."""
    data, base = code.data, code.address
    width = 3 if ((high - 1) >> 8) - (low >> 8) < MAX_ABSOLUTE_PATTERNS else 2
    skipped = FIELD - width  # the field's low bytes, before the searched ones
    smallest, largest = low & _WORD, (high - 1) & _WORD
    for prefix in range(smallest >> (8 * skipped), (largest >> (8 * skipped)) + 1):
        for at in _finds(data, prefix.to_bytes(width, "little"), skipped, len(data)):
            field = at - skipped
            if smallest <= int.from_bytes(data[field : field + FIELD], "little") <= largest:
                yield base + field


def candidate_fields(sections: Sequence[CodeBytes], low: int, high: int, *, absolute: bool) -> list[int]:
    """Every address in `sections` where an instruction referring to `[low, high)` can hold a 4-byte field,
    sorted: rel32 and RIP-relative fields, and (`absolute`) plain addresses. rel8 jumps are not among them:
    they lie within `SHORT_REACH` of the range."""
    found: set[int] = set()
    for section in sections:
        found.update(relative_fields(section, low, high))
        if absolute:
            found.update(absolute_fields(section, low, high))
    return sorted(found)


OVERLAP_LOOKBACK: Final = 8
"""Procedures before the nearest one checked for also holding an address (records can overlap)."""


class SearchedCode:
    """A document's code and its procedures' extents: which procedures can refer to a range of addresses."""

    def __init__(self, extents: Sequence[tuple[int, int]], code: Sequence[CodeBytes], *, absolute: bool) -> None:
        """`extents` are the procedures' `[start, end)` by record position, sorted by start; `absolute`
        says whether plain addresses in the code are references (a fixed-address document)."""
        self._starts = [start for start, _ in extents]
        self._extents = extents
        self._code = code
        self._absolute = absolute

    def _holding(self, address: int) -> Iterator[int]:
        nearest = bisect_right(self._starts, address) - 1
        for position in range(nearest, max(-1, nearest - OVERLAP_LOOKBACK - 1), -1):
            start, end = self._extents[position]
            if start <= address < end:
                yield position

    def procedures_referring(self, low: int, high: int) -> list[int]:
        """Positions of the procedures that hold a candidate field for `[low, high)`, or lie near enough to
        reach it with a rel8 jump: a superset of the procedures that refer to it."""
        found: set[int] = set()
        for field in candidate_fields(self._code, low, high, absolute=self._absolute):
            found.update(self._holding(field))
        near_low, near_high = low - SHORT_REACH, high + SHORT_REACH
        first = max(0, bisect_right(self._starts, near_low) - 1 - OVERLAP_LOOKBACK)
        for position in range(first, bisect_left(self._starts, near_high)):
            start, end = self._extents[position]
            if start < near_high and end > near_low:
                found.add(position)
        return sorted(found)
