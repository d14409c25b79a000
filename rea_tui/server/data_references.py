"""Which data refers to which address: pointers the loader writes (relocations) or the file holds.

A position-independent document's pointers all carry a relocation: an ELF's
dynamic relocations (R_X86_64_RELATIVE and its kin, RELR, 64, GLOB_DAT,
JUMP_SLOT, IRELATIVE), a PE's base relocations (DIR64, HIGHLOW), a Mach-O's
rebases and its binds to symbols it defines itself; so its relocations are
its data references. A fixed-address document's
pointers are plain words: its data sections are scanned for aligned
(little-endian) words that fall inside its mapped sections. Each reference is reported with the data
symbol that holds it (`_PyExc_ModuleNotFoundError+0x18`) or, outside any
symbol, its section and offset.
"""

from __future__ import annotations

import struct
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from rea_tui.server.string_index import SectionBytes

DataKind = Literal["relocation", "pointer"]

MAX_POINTER_SCAN_BYTES: Final = 64 * 1024 * 1024
"""Bytes of data scanned for plain pointers per section; beyond that a section is scanned in part."""


@dataclass(frozen=True, slots=True)
class DataReference:
    site: int
    """Address of the pointer."""
    target: int
    kind: DataKind
    detail: str
    """The relocation type (`RELATIVE`, `GLOB_DAT`, `DIR64`, `REBASE`), or the section of a plain pointer."""


@dataclass(frozen=True, slots=True)
class Relocation:
    site: int
    target: int
    type: str


@dataclass(frozen=True, slots=True)
class RelocationTables:
    """A document's relocations that write its own addresses, and which of its tables were read for them."""

    relocations: list[Relocation]
    read: tuple[str, ...] = ()
    """The tables read (`dynamic relocations`, `base relocations (.reloc)`)."""
    not_read: tuple[str, ...] = ()
    """Tables the document has that were not read (`chained fixups (LC_DYLD_CHAINED_FIXUPS)`)."""


class DataReferenceIndex:
    """Data references of one document, sorted by target."""

    def __init__(
        self,
        relocations: Sequence[Relocation] | RelocationTables,
        data: Sequence[SectionBytes],
        mapped: Sequence[tuple[int, int]],
        pointer_bytes: int,
    ) -> None:
        tables = relocations if isinstance(relocations, RelocationTables) else RelocationTables(list(relocations))
        self.tables_read = tables.read
        self.tables_not_read = tables.not_read
        found = [DataReference(r.site, r.target, "relocation", r.type) for r in tables.relocations]
        self.scanned_sections: list[str] = []
        if mapped and pointer_bytes:
            found.extend(self._pointers(data, sorted(mapped), pointer_bytes))
        found.sort(key=lambda r: (r.target, r.site))
        self.references = found
        self._targets = [r.target for r in found]

    def _pointers(self, data: Sequence[SectionBytes], mapped: list[tuple[int, int]], width: int) -> list[DataReference]:
        starts = [lo for lo, _ in mapped]
        out: list[DataReference] = []
        for section in data:
            self.scanned_sections.append(section.name)
            body = section.data[:MAX_POINTER_SCAN_BYTES]
            skip = -section.address % width  # first aligned word
            view = memoryview(body)[skip:]
            words = struct.iter_unpack("<Q" if width == 8 else "<I", view[: len(view) - len(view) % width])
            for index, (value,) in enumerate(words):
                at = bisect_right(starts, value) - 1
                if at >= 0 and value < mapped[at][1]:
                    out.append(DataReference(section.address + skip + index * width, value, "pointer", section.name))
        return out

    def __len__(self) -> int:
        return len(self.references)

    def to_range(self, low: int, high: int) -> list[DataReference]:
        """References whose target lies in `[low, high)`."""
        return self.references[bisect_left(self._targets, low) : bisect_left(self._targets, high)]
