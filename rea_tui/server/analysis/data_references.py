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
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from rea_tui.server.analysis.string_index import SectionBytes

DataKind = Literal["relocation", "pointer"]

ADDRESS_BITS: Final = 64
"""Bits of an address: a target shifted by them and or-ed with a site sorts by target, then site."""
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
        self.scanned_sections: list[str] = []
        # Kept as three arrays, not one object per reference: libLLVM has 374,000 (about 50 MB as objects).
        self._labels: list[tuple[DataKind, str]] = []
        label_of: dict[tuple[DataKind, str], int] = {}
        targets, sites, labels = array("Q"), array("Q"), array("H")

        def add(site: int, target: int, kind: DataKind, detail: str) -> None:
            label = label_of.get((kind, detail))
            if label is None:
                label = label_of[(kind, detail)] = len(self._labels)
                self._labels.append((kind, detail))
            targets.append(target)
            sites.append(site)
            labels.append(label)

        for r in tables.relocations:
            add(r.site, r.target, "relocation", r.type)
        if mapped and pointer_bytes:
            for site, target, section in self._pointers(data, sorted(mapped), pointer_bytes):
                add(site, target, "pointer", section)
        order = sorted(range(len(targets)), key=lambda i: (targets[i] << ADDRESS_BITS) | sites[i])
        self._targets = array("Q", (targets[i] for i in order))
        self._sites = array("Q", (sites[i] for i in order))
        self._label_at = array("H", (labels[i] for i in order))

    @property
    def references(self) -> list[DataReference]:
        return self._rows(0, len(self._targets))

    def _rows(self, first: int, last: int) -> list[DataReference]:
        return [
            DataReference(self._sites[i], self._targets[i], *self._labels[self._label_at[i]])
            for i in range(first, last)
        ]

    def _pointers(
        self, data: Sequence[SectionBytes], mapped: list[tuple[int, int]], width: int
    ) -> Iterator[tuple[int, int, str]]:
        """(site, target, section) of each aligned word in `data` that falls inside a mapped range."""
        starts = [lo for lo, _ in mapped]
        for section in data:
            self.scanned_sections.append(section.name)
            body = section.data[:MAX_POINTER_SCAN_BYTES]
            skip = -section.address % width  # first aligned word
            view = memoryview(body)[skip:]
            words = struct.iter_unpack("<Q" if width == 8 else "<I", view[: len(view) - len(view) % width])
            for index, (value,) in enumerate(words):
                at = bisect_right(starts, value) - 1
                if at >= 0 and value < mapped[at][1]:
                    yield section.address + skip + index * width, value, section.name

    def __len__(self) -> int:
        return len(self._targets)

    def to_range(self, low: int, high: int) -> list[DataReference]:
        """References whose target lies in `[low, high)`."""
        return self._rows(bisect_left(self._targets, low), bisect_left(self._targets, high))
