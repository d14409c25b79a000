"""Bytes, layout and strings of one synthetic document, all derived from `(name, seed)`.

Procedures are real x86-64 code: a prologue, a deterministic body with calls
into other procedures of the document, and an epilogue. A `__cstring`
section holds planted and generated strings, and some procedures load one of
them with `lea rdi, [rip + ...]`, so string search, references, callers and
callees can be traced end to end on the synthetic target.
"""

from __future__ import annotations

import random
from typing import Any, Final

from rea_tui.server.analysis.code_listing import DataSymbol
from rea_tui.server.analysis.code_references import SlotTarget
from rea_tui.server.analysis.data_references import RelocationTables
from rea_tui.server.analysis.disassembly import CapstoneMode, capstone_mode
from rea_tui.server.analysis.string_index import SectionBytes
from rea_tui.server.completion.text_forms import hex_address
from rea_tui.server.providers.base import DocumentInventory

STRIDE: Final = 0x40
"""Bytes between consecutive synthetic procedures."""

SHARED_STRING: Final = "Could not open the document %@"
"""Planted in three documents (the ones that also hold `openDocument`)."""

PLANTED_STRINGS: Final[dict[str, tuple[tuple[int, str], ...]]] = {
    # (index of the procedure that loads it, text); several index 10 (openDocument).
    "Notes": (
        (10, SHARED_STRING),
        (11, "Offline search is unavailable"),
        (25, "Export as PDF failed: %@"),
        (19, "Sync failed: %s"),
        (20, "Sync failed: %s"),  # the same text twice in one document
        (17, "\uff33\uff39\uff2e\uff23 \uff45\uff52\uff52\uff4f\uff52"),  # full-width "SYNC error"
        (15, "\ufb01le import failed"),  # the fi ligature folds to "fi"
    ),
    "NotesHelper": ((10, SHARED_STRING),),
    "libsync.dylib": ((10, SHARED_STRING),),
}

GENERATED_STRING_EVERY: Final = 8
"""One generated string (and one procedure loading it) per this many procedures."""

_PROLOGUE = bytes.fromhex("554889e5")  # push rbp; mov rbp, rsp
_EPILOGUE = bytes.fromhex("c9c3")  # leave; ret
_LEA_RDI_RIP = bytes.fromhex("488d3d")  # lea rdi, [rip + disp32]
_LEA_BYTES = len(_LEA_RDI_RIP) + 4
_CALL_REL32 = b"\xe8"
_CALL_BYTES = 5
_CALL_CHANCE = 0.15
_STRINGS_SECTION_GAP = 0x1000
"""Unmapped bytes between the last procedure and `__cstring`."""
_DATA_SECTION_SIZE = 0x2000
_GOLDEN_RATIO_32 = 0x9E3779B1
"""Mixes the seed into each procedure's byte generator."""

# Small, valid x86-64 encodings, so synthetic procedures disassemble for real.
_BODY = (
    bytes.fromhex("4883ec20"),  # sub rsp, 0x20
    bytes.fromhex("48897df8"),  # mov [rbp-8], rdi
    bytes.fromhex("31c0"),  # xor eax, eax
    bytes.fromhex("488b45f8"),  # mov rax, [rbp-8]
    bytes.fromhex("85c0"),  # test eax, eax
    bytes.fromhex("7405"),  # je +5
    bytes.fromhex("4889c7"),  # mov rdi, rax
    bytes.fromhex("83f801"),  # cmp eax, 1
)
_VERBS = ("Sync", "Search", "Index", "Render", "Share", "Import")
_NOUNS = ("note", "folder", "attachment", "account", "draft", "tag")


def _strings_plan(name: str, count: int) -> list[tuple[int, str]]:
    """`(procedure index, text)` for every string of the document, in table order."""
    plan = [(index, text) for index, text in PLANTED_STRINGS.get(name, ()) if index < count]
    planted = {index for index, _ in plan}
    for index in range(GENERATED_STRING_EVERY // 2, count, GENERATED_STRING_EVERY):
        if index not in planted:
            verb, noun = _VERBS[index % len(_VERBS)], _NOUNS[(index // len(_VERBS)) % len(_NOUNS)]
            plan.append((index, f"{verb} {noun} failed (code {index})"))
    return plan


class SyntheticDocument:
    """Byte access, layout and data sections for one synthetic document."""

    def __init__(self, name: str, base: int, inventory: DocumentInventory, seed: int) -> None:
        self.name = name
        self.base = base
        self.inventory = inventory
        self.seed = seed
        self.format = "MachO"
        self.arch = "X86_64"
        self.bits = 64
        self.error: str | None = None
        self.read_note: str | None = None
        self.code_note: str | None = None
        self.not_decoded: list[str] = []
        records = inventory.records
        self._text_end = records[-1].address + STRIDE if records else base
        self._strings_start = self._text_end + _STRINGS_SECTION_GAP
        table = bytearray()
        self._loads: dict[int, int] = {}
        """Procedure address -> address of the string it loads."""
        for index, text in _strings_plan(name, len(records)):
            self._loads.setdefault(records[index].address, self._strings_start + len(table))
            table += text.encode("utf-8") + b"\x00"
        self._strings = bytes(table)

    def view(self, address: int, size: int) -> bytes:
        return self.read(address, size)

    def read(self, address: int, size: int) -> bytes:
        if self._strings_start <= address < self._strings_start + len(self._strings):
            offset = address - self._strings_start
            return self._strings[offset : offset + size]
        rng = random.Random(address ^ (self.seed * _GOLDEN_RATIO_32))
        code = bytearray(_PROLOGUE)
        loaded = self._loads.get(address)
        if loaded is not None:
            rel = (loaded - (address + len(code) + _LEA_BYTES)) & 0xFFFFFFFF
            code += _LEA_RDI_RIP + rel.to_bytes(4, "little")
        records = self.inventory.records
        while len(code) < max(size - len(_EPILOGUE) - _CALL_BYTES, 8):
            if rng.random() < _CALL_CHANCE and records:
                # Calls land on real procedures of the document, so call graphs can be traced.
                target = records[rng.randrange(len(records))].address
                rel = (target - (address + len(code) + _CALL_BYTES)) & 0xFFFFFFFF
                code += _CALL_REL32 + rel.to_bytes(4, "little")
            else:
                code += rng.choice(_BODY)
        code += _EPILOGUE
        return bytes(code[:size]) if size < len(code) else bytes(code)

    def data_sections(self) -> list[SectionBytes]:
        return [SectionBytes("__cstring", self._strings_start, self._strings)]

    def absolute_ranges(self) -> list[tuple[int, int]]:
        return []  # position-independent, like the Mach-O binaries it imitates

    def stub_sections(self) -> list[SectionBytes]:
        return []

    def data_symbols(self) -> list[DataSymbol]:
        return []

    def data_relocations(self) -> RelocationTables:
        return RelocationTables([])

    def import_slots(self) -> dict[int, SlotTarget]:
        return {}

    def layout(self) -> dict[str, Any]:
        records = self.inventory.records
        end = self._text_end
        data_start = self._strings_start + len(self._strings)
        return {
            "format": "MachO",
            "arch": self.arch,
            "bits": self.bits,
            "synthetic": True,
            "entrypoint": hex_address(records[0].address if records else self.base),
            "imagebase": hex_address(self.base),
            "pie": True,
            "nx": True,
            "sections": [
                {
                    "name": "__text",
                    "address": hex_address(self.base),
                    "size": end - self.base,
                    "offset": 0x1000,
                    "entropy": 6.1,
                    "flags": ["segment:__TEXT"],
                },
                {
                    "name": "__cstring",
                    "address": hex_address(self._strings_start),
                    "size": len(self._strings),
                    "offset": 0x1000 + self._strings_start - self.base,
                    "entropy": 4.2,
                    "flags": ["segment:__TEXT"],
                },
                {
                    "name": "__data",
                    "address": hex_address(data_start),
                    "size": _DATA_SECTION_SIZE,
                    "offset": 0x1000 + data_start - self.base,
                    "entropy": 1.3,
                    "flags": ["segment:__DATA"],
                },
            ],
            "segments": [
                {
                    "name": "__TEXT",
                    "address": hex_address(self.base),
                    "size": data_start - self.base,
                    "flags": ["read", "exec"],
                },
                {
                    "name": "__DATA",
                    "address": hex_address(data_start),
                    "size": _DATA_SECTION_SIZE,
                    "flags": ["read", "write"],
                },
            ],
            "libraries": ["/usr/lib/libSystem.B.dylib", "@rpath/libsearch.dylib", "@rpath/libsync.dylib"],
            "procedure_count": len(records),
        }

    def disassembly_target(self) -> CapstoneMode | None:
        return capstone_mode(self.arch, self.bits)

    def code_mode(self, address: int) -> CapstoneMode | None:
        return self.disassembly_target()

    def code_spans(self, start: int, end: int) -> list[tuple[int, int]]:
        return [(start, end)]
