"""A Mach-O's `LC_FUNCTION_STARTS`: where every function begins, stripped or not.

The linker records each function's start (as ULEB128 deltas from the start of `__TEXT`, which LIEF
decodes into offsets) for the unwinder and for tools; a stripped binary keeps the table, so its
functions are found without symbols. The table holds no sizes: a function runs to the next start, or
to the end of its code section (alignment padding included).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass

FUNCTION_STARTS = "LC_FUNCTION_STARTS"


@dataclass(frozen=True, slots=True)
class CodeSection:
    name: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class FunctionStarts:
    extents: tuple[tuple[int, int], ...]
    """`(address, size)` of each function start inside a code section, by address."""
    error: str | None
    """What of the table was not read (starts outside the code), when something was not."""


def function_extents(offsets: Iterable[int], text_address: int, sections: list[CodeSection]) -> FunctionStarts:
    """Each start (`text_address` + offset) inside a code section, sized to the next start in that
    section or to the section's end; starts elsewhere are counted in `error`."""
    ordered = sorted(sections, key=lambda s: s.start)
    section_starts = [s.start for s in ordered]
    addresses = sorted({text_address + offset for offset in offsets})
    inside: list[tuple[int, CodeSection]] = []
    outside = 0
    for address in addresses:
        at = bisect_right(section_starts, address) - 1
        if at >= 0 and address < ordered[at].end:
            inside.append((address, ordered[at]))
        else:
            outside += 1
    extents: list[tuple[int, int]] = []
    for position, (address, section) in enumerate(inside):
        following = inside[position + 1][0] if position + 1 < len(inside) else section.end
        extents.append((address, min(following, section.end) - address))
    error = None
    if outside:
        error = (
            f"{FUNCTION_STARTS}: {outside:,} of {len(addresses):,} function starts lie outside the code sections "
            "and were left out"
        )
    return FunctionStarts(tuple(extents), error)
