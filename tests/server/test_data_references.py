"""Plain pointers in a fixed-address document's data: aligned words that land in its mapped sections."""

from __future__ import annotations

from rea_tui.server.analysis.data_references import DataReferenceIndex, Relocation
from rea_tui.server.analysis.string_index import SectionBytes

MAPPED = [(0x400000, 0x401000), (0x600000, 0x601000)]


def words(*values: int, width: int = 8) -> bytes:
    return b"".join(v.to_bytes(width, "little") for v in values)


def test_aligned_words_inside_mapped_sections_are_pointers() -> None:
    # 0x400010 and 0x600ff8 are mapped; 0x1770 and 0x401000 (one past the end) are not.
    data = SectionBytes(".data", 0x600000, words(0x400010, 0x1770, 0x401000, 0x600FF8))
    index = DataReferenceIndex([], [data], MAPPED, 8)
    assert [(r.site, r.target) for r in index.references] == [(0x600000, 0x400010), (0x600018, 0x600FF8)]
    assert index.scanned_sections == [".data"]
    assert [r.site for r in index.to_range(0x400000, 0x400020)] == [0x600000]


def test_a_misaligned_section_is_read_from_its_first_aligned_word() -> None:
    data = SectionBytes(".data", 0x600004, b"\xff" * 4 + words(0x400020))
    index = DataReferenceIndex([], [data], MAPPED, 8)
    assert [(r.site, r.target) for r in index.references] == [(0x600008, 0x400020)]


def test_position_independent_documents_report_relocations_only() -> None:
    data = SectionBytes(".data", 0x600000, words(0x400010))
    index = DataReferenceIndex([Relocation(0x600100, 0x400030, "RELATIVE")], [data], [], 8)
    assert [(r.site, r.target, r.kind, r.detail) for r in index.references] == [
        (0x600100, 0x400030, "relocation", "RELATIVE")
    ]
    assert index.scanned_sections == []


def test_thirty_two_bit_pointers() -> None:
    data = SectionBytes(".data", 0x600000, words(0x400010, 0x5, width=4))
    index = DataReferenceIndex([], [data], MAPPED, 4)
    assert [(r.site, r.target) for r in index.references] == [(0x600000, 0x400010)]
