"""Which code refers to which address: one capstone pass over a document's procedures.

Every procedure is decoded from its start to its size (or to the next
procedure) and four kinds of reference are kept:

- `call`: a direct call (`call 0x...`, `bl #0x...`);
- `jump`: a direct jump into another procedure (a tail call);
- `rip_relative`: an x86-64 RIP-relative operand (`lea rdi, [rip + 0x...]`,
  `mov rax, qword ptr [rip + 0x...]`), resolved to its absolute address;
- `immediate`: an absolute address written as an immediate or an absolute
  memory operand, kept only when it falls inside the document's mapped
  sections; position-independent documents pass no ranges (their code holds
  no absolute addresses, so every such constant would be a false match).

ELF PLT stubs are decoded too, so a call into the PLT is named after the
imported function (`strlen@plt`). The index is built once per document, on
first use, and kept until the target changes.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from rea_tui.server.disassembly import CapstoneMode, decoder
from rea_tui.server.providers.base import ProcedureRecord
from rea_tui.server.string_index import SectionBytes

ReferenceKind = Literal["call", "jump", "rip_relative", "immediate"]

MAX_PROCEDURE_BYTES: Final = 1024 * 1024
"""Longest span decoded as one procedure; a record without a size ends at the next one."""

MAX_DECODE_RESTARTS: Final = 64
"""Undecodable bytes skipped per procedure before the rest of it is given up."""

PLT_ENTRY_BYTES: Final = 16
"""x86-64 PLT entries are 16 bytes, aligned; the slot jump sits inside one."""

_CALLS: Final = frozenset({"call", "bl", "blx", "jal"})
_JUMPS: Final = frozenset({"jmp", "b", "j"})
_RIP_OPERAND = re.compile(r"\[rip ([+-]) (0x[0-9a-f]+|[0-9]+)\]")
_ABSOLUTE_MEMORY = re.compile(r"\[(0x[0-9a-f]+)\]")
_IMMEDIATE = re.compile(r"^#?(0x[0-9a-f]+)$")


@dataclass(frozen=True, slots=True)
class CodeReference:
    site: int
    """Address of the referring instruction."""
    source: int
    """Position of the referring procedure in the document's records."""
    target: int
    kind: ReferenceKind


def _rip_target(operands: str, next_address: int) -> int | None:
    found = _RIP_OPERAND.search(operands)
    if found is None:
        return None
    displacement = int(found.group(2), 0)
    return next_address + displacement if found.group(1) == "+" else next_address - displacement


class _Ranges:
    """Sorted, non-overlapping `[start, end)` ranges with a membership test by bisection."""

    def __init__(self, ranges: Sequence[tuple[int, int]]) -> None:
        ordered = sorted((s, e) for s, e in ranges if e > s)
        self._starts = [s for s, _ in ordered]
        self._ends = [e for _, e in ordered]

    def __bool__(self) -> bool:
        return bool(self._starts)

    def __contains__(self, address: object) -> bool:
        if not isinstance(address, int):
            return False
        at = bisect_right(self._starts, address) - 1
        return at >= 0 and address < self._ends[at]


class ReferenceIndex:
    """References of one document, by target (for callers and find_references) and by source."""

    def __init__(
        self,
        records: Sequence[ProcedureRecord],
        read: Callable[[int, int], bytes],
        mode: CapstoneMode | None,
        absolute_ranges: Sequence[tuple[int, int]],
        stubs: Sequence[SectionBytes] = (),
        import_slots: dict[int, str] | None = None,
    ) -> None:
        self.decoded_instructions = 0
        self.imports: dict[int, str] = {}
        found: list[CodeReference] = []
        if mode is not None:
            md = decoder(mode)
            self.imports = self._import_stubs(md, stubs, import_slots or {})
            starts = {r.address: i for i, r in enumerate(records)}
            mapped = _Ranges(absolute_ranges)
            for position, record in enumerate(records):
                end = self._procedure_end(records, position)
                code = read(record.address, end - record.address)
                found.extend(self._scan(md, position, record.address, code, starts, mapped))
        found.sort(key=lambda r: (r.target, r.site))
        self.references = found
        self._targets = [r.target for r in found]
        self._by_source: dict[int, list[CodeReference]] = {}
        for ref in sorted(found, key=lambda r: r.site):
            self._by_source.setdefault(ref.source, []).append(ref)

    @staticmethod
    def _procedure_end(records: Sequence[ProcedureRecord], position: int) -> int:
        record = records[position]
        following = records[position + 1].address if position + 1 < len(records) else None
        if record.size:
            end = record.address + record.size
        elif following is not None:
            end = following
        else:
            end = record.address + MAX_PROCEDURE_BYTES
        return min(end, record.address + MAX_PROCEDURE_BYTES)

    def _scan(
        self,
        md: object,
        position: int,
        start: int,
        code: bytes,
        starts: dict[int, int],
        mapped: _Ranges,
    ) -> list[CodeReference]:
        out: list[CodeReference] = []
        end = start + len(code)
        offset = 0
        restarts = 0
        disasm_lite = md.disasm_lite  # type: ignore[attr-defined]
        while offset < len(code) and restarts <= MAX_DECODE_RESTARTS:
            reached = offset
            for address, size, mnemonic, operands in disasm_lite(code[offset:], start + offset):
                reached = address + size - start
                self.decoded_instructions += 1
                if "0x" not in operands and "rip" not in operands:
                    continue
                verb = mnemonic.rsplit(" ", 1)[-1]  # drop prefixes such as "bnd" or "notrack"
                if verb in _CALLS or verb in _JUMPS:
                    direct = _IMMEDIATE.match(operands)
                    if direct is not None:
                        target = int(direct.group(1), 16)
                        if verb in _CALLS:
                            out.append(CodeReference(address, position, target, "call"))
                        elif not start <= target < end and target in starts:
                            out.append(CodeReference(address, position, target, "jump"))
                        continue
                if "rip" in operands:
                    rip = _rip_target(operands, address + size)
                    if rip is not None:
                        out.append(CodeReference(address, position, rip, "rip_relative"))
                    continue
                if not mapped:
                    continue
                for operand in operands.split(", "):
                    memory = _ABSOLUTE_MEMORY.search(operand) if "[" in operand else _IMMEDIATE.match(operand)
                    if memory is not None:
                        target = int(memory.group(1), 16)
                        if target in mapped:
                            out.append(CodeReference(address, position, target, "immediate"))
            # capstone stops at the first byte it cannot decode: skip it and go on.
            offset = reached + 1 if reached < len(code) else reached
            restarts += 1
        return out

    @staticmethod
    def _import_stubs(md: object, stubs: Sequence[SectionBytes], slots: dict[int, str]) -> dict[int, str]:
        """PLT stub address -> imported name, from each stub's `jmp [rip + slot]`."""
        names: dict[int, str] = {}
        if not slots:
            return names
        disasm_lite = md.disasm_lite  # type: ignore[attr-defined]
        for section in stubs:
            for address, size, mnemonic, operands in disasm_lite(section.data, section.address):
                if mnemonic.rsplit(" ", 1)[-1] != "jmp":
                    continue
                slot = _rip_target(operands, address + size)
                if slot is not None and slot in slots:
                    names.setdefault(address & ~(PLT_ENTRY_BYTES - 1), slots[slot])
        return names

    def __len__(self) -> int:
        return len(self.references)

    def to_range(self, low: int, high: int) -> list[CodeReference]:
        """References whose target lies in `[low, high)`."""
        return self.references[bisect_left(self._targets, low) : bisect_left(self._targets, high)]

    def from_source(self, position: int) -> list[CodeReference]:
        return self._by_source.get(position, [])

    def to_procedure(self, address: int, names: Sequence[str]) -> list[CodeReference]:
        """References to a procedure: to its address, and to the PLT stubs of any of its names.

        A shared library calls its own exported functions through the PLT
        (they may be interposed), so most callers of such a function call its stub.
        """
        wanted = set(names)
        stubs = [stub for stub, name in self.imports.items() if name in wanted]
        found = [ref for target in (address, *stubs) for ref in self.to_range(target, target + 1)]
        return sorted(found, key=lambda r: r.site)
