"""A procedure's listing, like objdump's: the whole procedure a page at a time, every target named.

The procedure is decoded from its start to its end (its size, else the next
procedure, never past its code section; see `code_references.procedure_end`)
and handed out `max_instructions` at a time from an instruction offset, with
`truncated` true and a `next_offset` while instructions remain. Every direct
call and jump names its target (`strlen@plt`, `PyErr_Format`,
`_PyEval_EvalFrameDefault+0x1f8`) and every RIP-relative operand the string or
symbol it lands on. Names are the document's own (symbols, PLT slots); an
address no symbol covers is left unnamed.
"""

from __future__ import annotations

import itertools
import json
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from rea_tui.server.analysis.code_references import (
    MAX_PROCEDURE_BYTES,
    BaseTracker,
    PageTracker,
    SlotTarget,
    branch_target,
    is_jump,
    procedure_end,
    rip_target,
    slot_name,
    stub_name,
)
from rea_tui.server.analysis.disassembly import CapstoneMode, arm64_mode, decoder, i386_mode
from rea_tui.server.analysis.string_index import FoundString
from rea_tui.server.completion.text_forms import hex_address
from rea_tui.server.providers.base import ProcedureRecord

SHOWN_STRING_CHARS: Final = 80
"""Longest string text quoted beside an operand (objdump-like comments stay one line)."""

_QUOTED_BYTES: Final = SHOWN_STRING_CHARS * 4
"""Bytes read for a quoted string: enough for its shown characters in UTF-8."""
_CALLS: Final = frozenset({"call", "bl", "blx", "jal"})


@dataclass(frozen=True, slots=True)
class DataSymbol:
    address: int
    size: int
    name: str
    sized: bool = True
    """Whether the format gives the object's size (ELF); else it runs to the next symbol or its section's end."""


class Symbolizer:
    """Names for addresses of one document: PLT stubs, procedures, data symbols and strings."""

    def __init__(
        self,
        records: Sequence[ProcedureRecord],
        code_sections: Sequence[tuple[int, int]],
        stubs: dict[int, SlotTarget],
        data_symbols: Sequence[DataSymbol],
        strings: Callable[[], Sequence[FoundString]],
        slots: dict[int, SlotTarget] | None = None,
    ) -> None:
        """`strings` gives the document's strings when a listing first names one: on the biggest documents
        building them takes longer than the references a find_references by procedure or address needs."""
        self.records = records
        self.slots = slots or {}
        """GOT slot address -> the function whose address it holds (named `free@got`)."""
        self.code_sections = sorted(code_sections)
        self.stubs = stubs
        self._starts = [r.address for r in records]
        self._ends = [procedure_end(records, i, self.code_sections) for i in range(len(records))]
        self._data = sorted(data_symbols, key=lambda s: s.address)
        self._data_starts = [s.address for s in self._data]
        self._load_strings = strings
        self._strings: Sequence[FoundString] | None = None
        self._string_starts: list[int] = []

    def procedure_at(self, address: int) -> int | None:
        """Position of the procedure whose code holds `address`."""
        at = bisect_right(self._starts, address) - 1
        return at if at >= 0 and address < self._ends[at] else None

    def starts_at(self, address: int) -> int | None:
        """Position of the procedure that starts at `address`."""
        at = bisect_right(self._starts, address) - 1
        return at if at >= 0 and self._starts[at] == address else None

    def end_of(self, position: int) -> int:
        return self._ends[position]

    def name(self, address: int) -> str | None:
        """`strlen@plt`, `free@got`, `name`, `name+0x1f8`, or None when no symbol covers the address."""
        stub = self.stubs.get(address)
        if stub is not None:
            return stub_name(stub)
        slot = self.slots.get(address)
        if slot is not None:
            return slot_name(slot)
        at = self.procedure_at(address)
        if at is not None and self.records[at].names:
            return _offset_name(self.records[at].names[0], address - self._starts[at])
        symbol = self.data_symbol(address)
        if symbol is not None:
            return _offset_name(symbol.name, address - symbol.address)
        return None

    def data_symbol(self, address: int) -> DataSymbol | None:
        at = bisect_right(self._data_starts, address) - 1
        if at < 0:
            return None
        symbol = self._data[at]
        return symbol if address < symbol.address + max(symbol.size, 1) else None

    def string(self, address: int) -> tuple[FoundString, int] | None:
        """The string holding `address` and the offset of `address` in it."""
        if self._strings is None:
            self._strings = self._load_strings()
            self._string_starts = [s.address for s in self._strings]
        at = bisect_right(self._string_starts, address) - 1
        if at < 0:
            return None
        found = self._strings[at]
        return (found, address - found.address) if address < found.address + found.size else None


def _offset_name(name: str, offset: int) -> str:
    return name if offset == 0 else f"{name}+0x{offset:x}"


def quoted(raw: bytes) -> str:
    """C string bytes (up to their NUL) as one JSON-quoted line, cut to `SHOWN_STRING_CHARS`."""
    text = raw.split(b"\0", 1)[0].decode("utf-8", "replace")
    if len(text) > SHOWN_STRING_CHARS:
        text = text[: SHOWN_STRING_CHARS - 1] + "…"
    return json.dumps(text, ensure_ascii=False)


def listing(
    mode: CapstoneMode | None,
    read: Any,
    symbols: Symbolizer,
    position: int,
    offset: int,
    max_instructions: int,
    code_note: str | None = None,
    code_spans: Callable[[int, int], list[tuple[int, int]]] | None = None,
) -> dict[str, Any]:
    """One page of the listing of the procedure at `position` in the document's records.

    `code_note` says why the document's code cannot be decoded (no mode), when it cannot; `code_spans`
    gives the parts of the procedure that are code, where data sits among it (ARM literal pools)."""
    record = symbols.records[position]
    start, end = record.address, symbols.end_of(position)
    code: bytes = read(start, min(end - start, MAX_PROCEDURE_BYTES)) if end > start else b""
    stop = start + len(code)
    spans = code_spans(start, stop) if code_spans is not None else [(start, stop)]
    skipped = [(low, high) for (_, low), (high, _) in itertools.pairwise(spans)]
    if spans and spans[-1][1] < stop:
        skipped.append((spans[-1][1], stop))
    if spans and spans[0][0] > start:
        skipped.insert(0, (start, spans[0][0]))
    decoded = []
    if mode is not None and code:
        md = decoder(mode)
        for low, high in spans:
            piece = code[low - start : high - start]
            decoded.extend(md.disasm(piece, low))
            if decoded and decoded[-1].address + decoded[-1].size < high:
                break  # capstone stopped at an undecodable byte; the note below says where
    page = decoded[offset : offset + max_instructions]
    # AArch64 builds addresses with adrp and a later add or load: follow them from the procedure's start.
    completed: dict[int, int] = {}
    if mode is not None and mode == arm64_mode():
        pages = PageTracker()
        for insn in decoded[: offset + len(page)]:
            address = pages.feed(insn.mnemonic, insn.op_str)
            if address is not None:
                completed[insn.address] = address
    # i386 position-independent code reaches data through a base register (the GOT's address).
    elif mode is not None and mode == i386_mode():
        based = BaseTracker(read)
        for insn in decoded[: offset + len(page)]:
            address = based.feed(insn.address, insn.size, insn.mnemonic, insn.op_str)
            if address is not None:
                completed[insn.address] = address
    instructions: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    for insn in page:
        row: dict[str, Any] = {
            "address": hex_address(insn.address),
            "bytes": bytes(insn.bytes).hex(),
            "mnemonic": insn.mnemonic,
            "operands": insn.op_str,
        }
        verb = insn.mnemonic.rsplit(" ", 1)[-1]
        target = branch_target(verb, insn.op_str)
        if target is not None:
            name = symbols.name(target)
            if name is None and start <= target < start + len(code):
                name = _offset_name(record.names[0], target - start) if record.names else None
            row["target"] = {"address": hex_address(target), "name": name}
            leaves = not start <= target < end and (target in symbols.stubs or symbols.starts_at(target) is not None)
            if verb in _CALLS or (is_jump(verb) and leaves):
                callee = symbols.starts_at(target)
                if target in symbols.stubs:
                    names = [name] if name is not None else []
                else:
                    names = list(symbols.records[callee].names) if callee is not None else []
                calls.append({"at": row["address"], "target": hex_address(target), "names": names})
        elif "rip" in insn.op_str:
            pointed = rip_target(insn.op_str, insn.address + insn.size)
            if pointed is not None:
                row["refers_to"] = _referent(symbols, read, pointed)
                slot = symbols.slots.get(pointed)
                if slot is not None and slot.got and (verb in _CALLS or verb == "jmp"):
                    # A call through an import's slot (-fno-plt): a call to the import, named by its slot.
                    calls.append(
                        {"at": row["address"], "target": hex_address(pointed), "names": [row["refers_to"]["name"]]}
                    )
        elif insn.address in completed:
            row["refers_to"] = _referent(symbols, read, completed[insn.address])
        instructions.append(row)
    next_offset = offset + len(page) if offset + len(page) < len(decoded) else None
    note = None
    if mode is None:
        note = code_note or "the document's architecture is not supported for disassembly"
    elif not code:
        note = "no bytes could be read at this address"
    elif not decoded:
        note = "no bytes could be decoded at this address"
    elif decoded[-1].address + decoded[-1].size < (spans[-1][1] if spans else stop) and not any(
        decoded[-1].address + decoded[-1].size == low for low, _high in skipped
    ):
        note = f"capstone stopped at {hex_address(decoded[-1].address + decoded[-1].size)}, an undecodable byte"
    if skipped:
        data = ", ".join(f"{hex_address(low)}-{hex_address(high)}" for low, high in skipped)
        note = f"{note}; " if note else ""
        note += f"data among the code (literal pools, by $d mapping symbols) not decoded: {data}"
    return {
        "window": {"start": hex_address(start), "end": hex_address(start + len(code)), "bytes": len(code)},
        "instruction_count": len(decoded),
        "offset": offset,
        "instructions": instructions,
        "truncated": next_offset is not None,
        "next_offset": next_offset,
        "calls": calls,
        "note": note,
    }


def _referent(symbols: Symbolizer, read: Any, address: int) -> dict[str, Any]:
    """What a RIP-relative operand lands on: a string (quoted from the byte it points at) or a symbol."""
    found: dict[str, Any] = {"address": hex_address(address), "name": symbols.name(address)}
    string = symbols.string(address)
    if string is not None:
        # Read to the NUL: the string index's runs stop at control characters such as a final newline.
        found["string"] = quoted(read(address, _QUOTED_BYTES))
        found["string_address"] = hex_address(string[0].address)
    return found
