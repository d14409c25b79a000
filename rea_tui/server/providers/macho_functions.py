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


EXPORT_KIND_MASK = 0x03
EXPORT_KIND_REGULAR = 0x00
EXPORT_REEXPORT = 0x08
EXPORT_STUB_AND_RESOLVER = 0x10
ULEB_MAX_BYTES = 10
"""A 64-bit value takes at most ten 7-bit groups."""
NAME_LIMIT = 4096
"""An exported name longer than this is not one a linker wrote."""


@dataclass(frozen=True, slots=True)
class ExportTrie:
    exports: tuple[tuple[str, int], ...]
    """`(name, offset from the Mach header)` of each regular export defined here (no re-exports)."""
    error: str | None
    """Where the trie stopped holding together (names read before it are kept)."""


class _Malformed(Exception):
    pass


def _uleb(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    for index in range(ULEB_MAX_BYTES):
        if at + index >= len(data):
            raise _Malformed(at)
        byte = data[at + index]
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, at + index + 1
        shift += 7
    raise _Malformed(at)


def _cstring(data: bytes, at: int) -> tuple[bytes, int]:
    end = data.find(b"\0", at, at + NAME_LIMIT)
    if end < 0:
        raise _Malformed(at)
    return data[at:end], end + 1


def read_export_trie(trie: bytes) -> ExportTrie:
    """The exports in a Mach-O exports trie (`LC_DYLD_INFO`'s export area or `LC_DYLD_EXPORTS_TRIE`).

    Read here rather than through LIEF's export info, which a damaged trie leaves dangling (reading
    a symbol's `export_info` then crashes the process). Each node holds its terminal information (flags,
    then an address, or a library ordinal and name for a re-export) and its edges (a label and the
    child's offset); a node is visited once, so a trie whose edges loop ends.
    """
    exports: list[tuple[str, int]] = []
    pending: list[tuple[int, bytes]] = [(0, b"")] if trie else []
    seen: set[int] = set()
    try:
        while pending:
            node, prefix = pending.pop()
            if node in seen or node >= len(trie):
                raise _Malformed(node)
            seen.add(node)
            terminal, at = _uleb(trie, node)
            children_at = at + terminal
            if terminal:
                flags, at = _uleb(trie, at)
                if not flags & EXPORT_REEXPORT:
                    address, at = _uleb(trie, at)
                    if flags & EXPORT_KIND_MASK == EXPORT_KIND_REGULAR and len(prefix) <= NAME_LIMIT:
                        exports.append((prefix.decode("utf-8", errors="backslashreplace"), address))
            if children_at >= len(trie):
                raise _Malformed(children_at)
            count = trie[children_at]
            at = children_at + 1
            for _ in range(count):
                label, at = _cstring(trie, at)
                child, at = _uleb(trie, at)
                pending.append((child, prefix + label))
    except _Malformed as stop:
        return ExportTrie(tuple(exports), f"the exports trie is malformed at offset 0x{stop.args[0]:x}")
    return ExportTrie(tuple(exports), None)
