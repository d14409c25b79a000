"""Which code refers to which address: one capstone pass over a document's procedures.

Every procedure is decoded from its start to its size (or to the next
procedure, or the end of its code section) and four kinds of reference are kept:

- `call`: a direct call (`call 0x...`, `bl #0x...`);
- `jump`: a direct jump, conditional or not, that leaves the procedure for
  another procedure's start or a PLT stub (a tail call);
- `slot_call`, `slot_jump`: a call or jump through an imported function's
  slot without a stub (`call qword ptr [rip + slot]`, built with `-fno-plt`),
  kept at the slot's address;
- `rip_relative`: an x86-64 RIP-relative operand (`lea rdi, [rip + 0x...]`,
  `mov rax, qword ptr [rip + 0x...]`), resolved to its absolute address;
- `page_relative`: an AArch64 `adrp` page completed by an `add` or a load or
  store offset from that register (`adrp x0, #0x1000; add x0, x0, #0x5f0`),
- `base_relative`: i386 position-independent code's base register: a call to a
  `get_pc_thunk` puts its return address in a register, an `add` makes it the
  GOT's address, and an operand at an offset from it names the target
  (`lea eax, [ebx - 0x1ff8]`),
  kept at the completing instruction;
- `immediate`: an absolute address used as one (an absolute memory operand,
  or an immediate moved or pushed), kept only when it falls inside the
  document's mapped sections. Position-independent documents pass no ranges:
  their code holds no absolute addresses, so every such constant would be a
  false match. Branch targets are never immediates, and neither are the
  operands of comparisons or arithmetic (`cmp eax, 0x1770`).

ELF PLT stubs (`.plt`, `.plt.sec`, `.plt.got`) are decoded too, so a call or
tail jump into one is named after the function its GOT slot reaches
(`strlen@plt`). The index is built once per document, on first use, and kept
until the target changes.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from rea_tui.server.analysis.disassembly import (
    CapstoneMode,
    arm64_mode,
    arm_mode,
    capstone_mode,
    decoder,
    i386_mode,
    x86_64_mode,
)
from rea_tui.server.analysis.reference_search import CodeBytes, SearchedCode
from rea_tui.server.analysis.string_index import SectionBytes
from rea_tui.server.providers.base import ProcedureRecord

ImportForm = Literal["ELF", "PE", "MachO"]
ReferenceKind = Literal[
    "call", "jump", "slot_call", "slot_jump", "rip_relative", "page_relative", "base_relative", "immediate"
]

MAX_PROCEDURE_BYTES: Final = 1024 * 1024
"""Longest span decoded as one procedure; a record without a size ends at the next one."""

MAX_DECODED_KEPT: Final = 4096
"""Procedures whose references a per-target search keeps decoded (the biggest documents: about 1% of them)."""

MAX_DECODE_RESTARTS: Final = 64
"""Undecodable bytes skipped per procedure before the rest of it is given up."""

_CALLS: Final = frozenset({"call", "bl", "blx", "jal"})
_JUMPS: Final = frozenset({"b", "loop", "loope", "loopne", "cbz", "cbnz", "tbz", "tbnz"})
"""Direct jumps besides x86's `j*` family and ARM's `b.cond`."""
_ADDRESS_MOVES: Final = frozenset({"mov", "movabs", "push"})
"""Instructions whose immediate operand can be an address put in a register or on the stack."""
_RIP_OPERAND = re.compile(r"\[rip ([+-]) (0x[0-9a-f]+|[0-9]+)\]")
_ABSOLUTE_MEMORY = re.compile(r"(?<![a-z]:)\[(0x[0-9a-f]+)\]")
"""`[0x...]`, but not `fs:[0x28]` (thread-local, not an address in the image)."""
_IMMEDIATE = re.compile(r"^#?(0x[0-9a-f]+)$")


def is_jump(verb: str) -> bool:
    """A jump mnemonic (without prefixes): x86 `jmp`/`jcc`, ARM `b`/`b.cond`/`cbz`, RISC-V `j`."""
    return verb.startswith("j") or verb.startswith("b.") or verb in _JUMPS


def branch_target(verb: str, operands: str) -> int | None:
    """The target of a direct call or jump (its last operand), or None."""
    if verb not in _CALLS and not is_jump(verb):
        return None
    direct = _IMMEDIATE.match(operands.rsplit(", ", 1)[-1])
    return int(direct.group(1), 16) if direct is not None else None


@dataclass(frozen=True, slots=True)
class SlotTarget:
    """What a GOT slot (and so a PLT stub jumping through it) reaches."""

    name: str
    address: int | None = None
    """The function's address when the document defines it (a local symbol, an IRELATIVE resolver)."""
    got: bool = True
    """Whether the slot is the GOT's (GLOB_DAT, JUMP_SLOT, IRELATIVE), filled by the loader for calls through it,
    not a pointer in the program's own data that an absolute relocation fills (and the program may change)."""
    library: str | None = None
    """The DLL a PE import comes from (`KERNEL32.dll`), the dylib a Mach-O one binds to; None when the loader
    searches for it (an ELF symbol, a Mach-O flat-namespace lookup)."""
    form: ImportForm = "ELF"
    """The file format, whose tools name stubs and slots each their own way."""


@dataclass(frozen=True, slots=True)
class CodeReference:
    site: int
    """Address of the referring instruction."""
    source: int
    """Position of the referring procedure in the document's records."""
    target: int
    kind: ReferenceKind


def slot_name(slot: SlotTarget) -> str:
    """An import slot's name: ELF `strlen@got`, as `@plt` names a stub (the slot holds the function's address),
    and a Mach-O `__got` or `__la_symbol_ptr` pointer `_puts@got` alike; a PE IAT entry `__imp_ExitProcess`,
    the import library's symbol for it, which objdump prints."""
    return f"__imp_{slot.name}" if slot.form == "PE" else f"{slot.name}@got"


def stub_name(slot: SlotTarget) -> str:
    """A stub's name: ELF `strlen@plt`; a PE thunk (`jmp [rip + __imp_ExitProcess]`) `ExitProcess`, the import
    library's symbol for it, which objdump prints for a call to it; a Mach-O `__stubs` entry the symbol it
    is a stub for (`_puts`), as `llvm-objdump --macho` says (`symbol stub for: _puts`)."""
    return f"{slot.name}@plt" if slot.form == "ELF" else slot.name


def _slot_kind(verb: str, is_slot: bool) -> ReferenceKind:
    """A RIP-relative operand's reference: a call or jump through an import slot, or a plain operand."""
    if is_slot and verb in _CALLS:
        return "slot_call"
    if is_slot and verb == "jmp":
        return "slot_jump"
    return "rip_relative"


def rip_target(operands: str, next_address: int) -> int | None:
    found = _RIP_OPERAND.search(operands)
    if found is None:
        return None
    displacement = int(found.group(2), 0)
    return next_address + displacement if found.group(1) == "+" else next_address - displacement


_PAGE_BASE: Final = "adrp"
_PAGE_OFFSET = re.compile(r"^([wx]\d+), ([wx]\d+), #(0x[0-9a-f]+|\d+)$")
"""`add x0, x1, #0x5f0`: destination, source and the offset into the page."""
_PAGE_MEMORY = re.compile(r"\[(x\d+), #(0x[0-9a-f]+|\d+)\]$")
"""`ldr w0, [x1, #0x48]`: a load or store at an offset from a base register, without writeback."""
_PAGE_IMMEDIATE = re.compile(r"^(x\d+), #(0x[0-9a-f]+|\d+)$")
_NO_DESTINATION: Final = ("st", "cmp", "cmn", "tst", "cb", "tb", "prfm")
"""AArch64 mnemonics (by prefix) whose first operand is read, not written: stores, compares, branches."""
_FLOW_ENDS: Final = frozenset({"b", "br", "ret"})
"""Where what every register held no longer holds: the code after them is reached from elsewhere."""
_CALLS_AARCH64: Final = frozenset({"bl", "blr"})
_CALLEE_SAVED: Final = frozenset(f"x{n}" for n in range(19, 29))
"""x19-x28 survive a call (AAPCS64); a callee may overwrite the rest."""


class PageTracker:
    """AArch64 addresses built in two steps: `adrp` puts a 4 KiB page in a register, and the next
    `add` or load/store from that register adds the offset. One tracker follows one straight run of code."""

    def __init__(self) -> None:
        self._pages: dict[str, int] = {}

    def feed(self, mnemonic: str, operands: str) -> int | None:
        """The address an instruction completes, if it completes one; then what it overwrote is forgotten."""
        if mnemonic == _PAGE_BASE:
            page = _PAGE_IMMEDIATE.match(operands)
            if page is not None:
                self._pages[page.group(1)] = int(page.group(2), 0)
            return None
        completed: int | None = None
        if mnemonic == "add":
            pair = _PAGE_OFFSET.match(operands)
            if pair is not None and pair.group(2) in self._pages:
                completed = self._pages[pair.group(2)] + int(pair.group(3), 0)
        elif mnemonic.startswith(("ld", "st")):
            memory = _PAGE_MEMORY.search(operands)
            if memory is not None and memory.group(1) in self._pages:
                completed = self._pages[memory.group(1)] + int(memory.group(2), 0)
        if mnemonic in _FLOW_ENDS:
            self._pages.clear()
        elif mnemonic in _CALLS_AARCH64:
            self._pages = {reg: page for reg, page in self._pages.items() if reg in _CALLEE_SAVED}
        elif not mnemonic.startswith(_NO_DESTINATION):
            written = operands.split(", ", 1)[0]
            # `w1` is the low half of `x1`: writing it ends the page in `x1` too.
            self._pages.pop("x" + written[1:] if written.startswith("w") else written, None)
        return completed


# `mov REG, dword ptr [esp]; ret`: an i386 get_pc_thunk, by its bytes (a stripped binary has no name for it).
# The ModRM byte names the register the return address goes to.
_THUNK_REGISTER: Final = {0x04: "eax", 0x0C: "ecx", 0x14: "edx", 0x1C: "ebx", 0x2C: "ebp", 0x34: "esi", 0x3C: "edi"}
_BASE_ADD = re.compile(r"^(e[a-z]{2}), (0x[0-9a-f]+|\d+)$")
_BASE_MEMORY = re.compile(r"\[(e[a-z]{2}) ([+-]) (0x[0-9a-f]+|\d+)\]")
_CALLER_SAVED_I386: Final = frozenset({"eax", "ecx", "edx"})
_I386_FLOW_ENDS: Final = frozenset({"ret", "jmp"})
_I386_READS_FIRST: Final = ("cmp", "test", "push", "call", "j", "st")
"""i386 mnemonics (by prefix) whose first operand is read, not written."""
_WORD: Final = 0xFFFF_FFFF


def thunk_register(read: Callable[[int, int], bytes], target: int) -> str | None:
    """The register an i386 get_pc_thunk at `target` loads, or None when the code there is not one."""
    code = read(target, 4)
    if len(code) == 4 and code[0] == 0x8B and code[2] == 0x24 and code[3] == 0xC3:
        return _THUNK_REGISTER.get(code[1])
    return None


class BaseTracker:
    """i386 position-independent code: a register holding a known address (the GOT's, after a get_pc_thunk
    call and an `add`), and the addresses operands at an offset from it name. One procedure's code.

    A compiler sets the base once, in a callee-saved register, for the whole procedure: code after a `ret`
    or `jmp` (reached by a branch from the body) still has it, though the epilogue before restored the
    register. So the base last set is the procedure's, and each new path starts from it."""

    def __init__(self, read: Callable[[int, int], bytes]) -> None:
        self._read = read
        self._bases: dict[str, int] = {}
        self._thunks: dict[int, str | None] = {}
        self._procedure_base: tuple[str, int] | None = None

    def feed(self, address: int, size: int, mnemonic: str, operands: str) -> int | None:
        """The address an operand of this instruction names through a known base, if any."""
        bases = self._bases
        if mnemonic == "call":
            target = int(operands, 16) if operands.startswith("0x") else None
            self._bases = {reg: value for reg, value in bases.items() if reg not in _CALLER_SAVED_I386}
            if target is not None:
                if target not in self._thunks:
                    self._thunks[target] = thunk_register(self._read, target)
                register = self._thunks[target]
                if register is not None:
                    self._bases[register] = address + size  # the thunk returns its own return address
                    self._procedure_base = (register, address + size)
            return None
        if mnemonic == "add":
            added = _BASE_ADD.match(operands)
            if added is not None and added.group(1) in bases:
                register = added.group(1)
                bases[register] = (bases[register] + int(added.group(2), 0)) & _WORD
                if self._procedure_base is not None and self._procedure_base[0] == register:
                    self._procedure_base = (register, bases[register])
                return None
        named: int | None = None
        memory = _BASE_MEMORY.search(operands)
        if memory is not None and memory.group(1) in bases:
            offset = int(memory.group(3), 0)
            named = (bases[memory.group(1)] + (offset if memory.group(2) == "+" else -offset)) & _WORD
        if mnemonic in _I386_FLOW_ENDS:
            bases.clear()
            if self._procedure_base is not None:
                bases[self._procedure_base[0]] = self._procedure_base[1]
        elif not mnemonic.startswith(_I386_READS_FIRST):
            bases.pop(operands.split(", ", 1)[0], None)  # the destination is overwritten
        return named


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


def procedure_end(
    records: Sequence[ProcedureRecord], position: int, code_sections: Sequence[tuple[int, int]] = ()
) -> int:
    """Where a procedure's code ends: its size, else the next procedure, never past its code section.

    `code_sections` are sorted `[start, end)` ranges; `_init` (no size, in a
    section of its own) then stops at the end of `.init`.
    """
    record = records[position]
    following = records[position + 1].address if position + 1 < len(records) else None
    if record.size:
        end = record.address + record.size
    elif following is not None:
        end = following
    else:
        end = record.address + MAX_PROCEDURE_BYTES
    at = bisect_right([start for start, _ in code_sections], record.address) - 1
    if at >= 0 and record.address < code_sections[at][1]:
        end = min(end, code_sections[at][1])
    return min(end, record.address + MAX_PROCEDURE_BYTES)


def decode_plt_stubs(
    mode: CapstoneMode,
    stubs: Sequence[SectionBytes],
    slots: dict[int, SlotTarget],
    records: Sequence[ProcedureRecord] = (),
) -> dict[int, SlotTarget]:
    """PLT stub address -> function, from the slot each stub loads its target from.

    A PE's thunks (`jmp [rip + IAT slot]`) sit among its code (`stubs` are then its code sections): a thunk
    is such a jump outside every sized procedure in `records` (inside one it is a tail call).

    x86: the stub's `jmp [rip + slot]`; it starts there, or at the `endbr64` just
    before it (`.plt.sec`, and `.plt.got` built for CET). AArch64: `adrp x16, page;
    ldr x17, [x16, #off]; ...; br x17`, starting at the `adrp`. 32-bit ARM: `add ip,
    pc, #X; add ip, ip, #Y; ldr pc, [ip, #Z]!`, read from its words.
    """
    if not slots:
        return {}
    if any(slot.form == "PE" for slot in slots.values()):
        # x64 thunks only: a PE32's `jmp [slot]` is absolute, an ARM64 PE's thunk is adrp/ldr/br.
        return _pe_thunks(stubs, slots, records) if mode == capstone_mode("X86_64", 64) else {}
    if mode == arm64_mode():
        return _aarch64_stubs(stubs, slots)
    if mode[0] == arm_mode()[0]:
        return _arm_stubs(stubs, slots)
    names: dict[int, SlotTarget] = {}
    disasm_lite = decoder(mode).disasm_lite
    for section in stubs:
        previous: tuple[int, int, str] | None = None
        for address, size, mnemonic, operands in disasm_lite(section.data, section.address):
            if mnemonic.rsplit(" ", 1)[-1] == "jmp":
                slot = rip_target(operands, address + size)
                if slot is not None and slot in slots:
                    landing = previous is not None and previous[2] == "endbr64"
                    start = previous[0] if landing and previous is not None else address
                    names.setdefault(start, slots[slot])
            previous = (address, size, mnemonic)
    return names


_INDIRECT_JUMP: Final = b"\xff\x25"
"""`jmp qword ptr [rip + disp32]` (opcode FF /4, ModRM 0x25)."""
_REX_W: Final = 0x48
_DISPLACEMENT: Final = 4
"""Bytes of the jump's displacement, a signed 32-bit value."""
_SIGN: Final = 1 << 31
"""The displacement's sign bit."""


def _pe_thunks(
    sections: Sequence[SectionBytes], slots: dict[int, SlotTarget], records: Sequence[ProcedureRecord]
) -> dict[int, SlotTarget]:
    """PE x64 thunks: each `jmp [rip + slot]` to an IAT slot that lies outside every sized procedure (or at
    one's start), found by its bytes (capstone's linear decode would lose step in data among the code).

    A jump with a REX.W prefix is an epilogue's tail call, not a thunk: the x64 unwinder takes `rex.W jmp`
    for the end of a function, and compilers (MSVC, mingw's gcc) emit it there, even in leaf code that
    .pdata does not cover."""
    extents = sorted((r.address, r.address + r.size) for r in records if r.size)
    starts = [low for low, _high in extents]
    names: dict[int, SlotTarget] = {}
    for section in sections:
        data = section.data
        at = data.find(_INDIRECT_JUMP)
        while at >= 0 and at + len(_INDIRECT_JUMP) + _DISPLACEMENT <= len(data):
            end = at + len(_INDIRECT_JUMP) + _DISPLACEMENT
            displacement = int.from_bytes(data[at + len(_INDIRECT_JUMP) : end], "little")
            slot = section.address + end + displacement - (2 * _SIGN if displacement & _SIGN else 0)
            if slot in slots and not (at and data[at - 1] == _REX_W):
                address = section.address + at
                holder = bisect_right(starts, address) - 1
                inside = holder >= 0 and starts[holder] < address < extents[holder][1]
                if not inside:
                    names.setdefault(address, slots[slot])
            at = data.find(_INDIRECT_JUMP, at + 1)
    return names


_STUB_PAGE = re.compile(r"^(x\d+), #(0x[0-9a-f]+|\d+)$")
_STUB_LOAD = re.compile(r"^x\d+, \[(x\d+)(?:, #(0x[0-9a-f]+|\d+))?\]$")
"""`ldr x17, [x16, #0x20]`, or `[x16]` for the slot at the page's start."""


def _aarch64_stubs(stubs: Sequence[SectionBytes], slots: dict[int, SlotTarget]) -> dict[int, SlotTarget]:
    """AArch64 stubs: the `ldr` from an `adrp` page names the slot; the stub starts at the `adrp`."""
    names: dict[int, SlotTarget] = {}
    disasm_lite = decoder(arm64_mode()).disasm_lite
    for section in stubs:
        page: tuple[int, str, int] | None = None
        """Where the last `adrp` is, the register it set and the page."""
        for address, _size, mnemonic, operands in disasm_lite(section.data, section.address):
            if mnemonic == "adrp":
                found = _STUB_PAGE.match(operands)
                page = (address, found.group(1), int(found.group(2), 0)) if found is not None else None
            elif mnemonic == "ldr" and page is not None:
                load = _STUB_LOAD.match(operands)
                if load is not None and load.group(1) == page[1]:
                    slot = page[2] + int(load.group(2) or "0", 0)
                    if slot in slots:
                        names.setdefault(page[0], slots[slot])
            elif mnemonic == "br":
                page = None
    return names


ARM_WORD: Final = 4
ARM_PC_AHEAD: Final = 8
"""An ARM instruction reads `pc` as its own address plus 8."""
_ARM_STUB: Final = (0xE28FC000, 0xE28CC000, 0xE5BCF000)
"""`add ip, pc, #X`, `add ip, ip, #Y`, `ldr pc, [ip, #Z]!` with their immediates masked off."""
_ARM_IMMEDIATE_MASK: Final = 0xFFF
"""The low 12 bits: a rotated 8-bit immediate (add) or a 12-bit offset (ldr)."""
_THUMB_ENTRY: Final = bytes.fromhex("7847c046")
"""`bx pc; nop` (Thumb): the entry a Thumb caller of an ARM PLT stub may be given, just before the stub."""


def _arm_rotated(word: int) -> int:
    """An ARM data-processing immediate: 8 bits rotated right by twice the 4-bit rotation."""
    value, rotation = word & 0xFF, ((word >> 8) & 0xF) * 2
    return ((value >> rotation) | (value << (32 - rotation))) & _WORD if rotation else value


def _arm_stubs(stubs: Sequence[SectionBytes], slots: dict[int, SlotTarget]) -> dict[int, SlotTarget]:
    """32-bit ARM stubs, by their three words; a `bx pc; nop` Thumb entry before one names it too."""
    names: dict[int, SlotTarget] = {}
    for section in stubs:
        data = section.data
        for offset in range(0, len(data) - 3 * ARM_WORD + 1, ARM_WORD):
            words = [
                int.from_bytes(data[offset + i * ARM_WORD : offset + (i + 1) * ARM_WORD], "little") for i in range(3)
            ]
            if any(w & ~_ARM_IMMEDIATE_MASK & _WORD != pattern for w, pattern in zip(words, _ARM_STUB, strict=True)):
                continue
            start = section.address + offset
            slot = (
                start
                + ARM_PC_AHEAD
                + _arm_rotated(words[0])
                + _arm_rotated(words[1])
                + (words[2] & _ARM_IMMEDIATE_MASK)
            )
            if slot in slots:
                names.setdefault(start, slots[slot])
                if offset >= len(_THUMB_ENTRY) and data[offset - len(_THUMB_ENTRY) : offset] == _THUMB_ENTRY:
                    names.setdefault(start - len(_THUMB_ENTRY), slots[slot])
    return names


class ReferenceIndex:
    """References of one document, by target (for callers and find_references) and by source."""

    def __init__(
        self,
        records: Sequence[ProcedureRecord],
        read: Callable[[int, int], bytes],
        mode: CapstoneMode | None,
        absolute_ranges: Sequence[tuple[int, int]],
        stubs: Sequence[SectionBytes] = (),
        import_slots: dict[int, SlotTarget] | None = None,
        code_sections: Sequence[tuple[int, int]] = (),
        mode_at: Callable[[int], CapstoneMode | None] | None = None,
        code_spans: Callable[[int, int], list[tuple[int, int]]] | None = None,
        searched: Sequence[CodeBytes] | None = None,
    ) -> None:
        """`mode_at` gives a procedure's own mode where one document mixes them (ARM and Thumb);
        `code_spans` the parts of `[start, end)` that are code, where data sits among it (literal pools).
        `searched`, the code sections' bytes, asks for x86-64 references to be found per target in those
        bytes (`reference_search`) instead of decoding every procedure now: for the biggest documents."""
        self.decoded_instructions = 0
        self._paged = False
        """Whether the code is AArch64, whose addresses `adrp` builds in two steps."""
        self._based = False
        """Whether the code is i386, whose position-independent code reaches data through a base register."""
        self.stubs: dict[int, SlotTarget] = {}
        """PLT stub address -> the function it reaches."""
        self._records = records
        self._read = read
        self._mode = mode
        self._mode_at = mode_at
        self._code_spans = code_spans
        self._sections = sorted(code_sections)
        self._starts = {r.address: i for i, r in enumerate(records)}
        self._mapped = _Ranges(absolute_ranges)
        self._decoders: dict[CapstoneMode, object] = {}
        self._searched: SearchedCode | None = None
        """Set when references are searched for per target rather than decoded all at once (`searched`)."""
        self._decoded: dict[int, list[CodeReference]] = {}
        """Procedures decoded for a search, most recent last (`MAX_DECODED_KEPT`)."""
        self.slots: dict[int, SlotTarget] = import_slots or {}
        """Import slot address -> the function whose address it holds."""
        found: list[CodeReference] = []
        if mode is not None:
            self._paged = mode == arm64_mode()
            self._based = mode == i386_mode()
            self.stubs = decode_plt_stubs(mode, stubs, import_slots or {}, records)
            if searched is not None and mode == x86_64_mode():
                extents = [(r.address, procedure_end(records, p, self._sections)) for p, r in enumerate(records)]
                self._searched = SearchedCode(extents, searched, absolute=bool(self._mapped))
            else:
                for position in range(len(records)):
                    found.extend(self._decode(position))
        found.sort(key=lambda r: (r.target, r.site))
        self.references = found
        self._targets = [r.target for r in found]
        self._by_source: dict[int, list[CodeReference]] = {}
        for ref in sorted(found, key=lambda r: r.site):
            self._by_source.setdefault(ref.source, []).append(ref)

    @property
    def searched_per_target(self) -> bool:
        """Whether references are found per target in the code's bytes (the biggest x86-64 documents)."""
        return self._searched is not None

    def _decode(self, position: int) -> list[CodeReference]:
        """The references in one procedure's code."""
        record = self._records[position]
        own = self._mode_at(record.address) if self._mode_at is not None else self._mode
        if own is None:
            return []
        if own not in self._decoders:
            self._decoders[own] = decoder(own)
        end = procedure_end(self._records, position, self._sections)
        spans = self._code_spans(record.address, end) if self._code_spans is not None else [(record.address, end)]
        found: list[CodeReference] = []
        for low, high in spans:
            code = self._read(low, high - low)
            found.extend(self._scan(self._decoders[own], position, low, code, (record.address, end)))
        return found

    def _scan(
        self,
        md: object,
        position: int,
        start: int,
        code: bytes,
        procedure: tuple[int, int],
    ) -> list[CodeReference]:
        """References in `code` at `start`, a span of the procedure `[low, high)` (`procedure`)."""
        out: list[CodeReference] = []
        low, high = procedure
        starts, mapped = self._starts, self._mapped
        offset = 0
        restarts = 0
        disasm_lite = md.disasm_lite  # type: ignore[attr-defined]
        while offset < len(code) and restarts <= MAX_DECODE_RESTARTS:
            reached = offset
            pages = PageTracker() if self._paged else None
            based = BaseTracker(self._read) if self._based else None
            for address, size, mnemonic, operands in disasm_lite(code[offset:], start + offset):
                reached = address + size - start
                self.decoded_instructions += 1
                if pages is not None:
                    paged = pages.feed(mnemonic, operands)
                    if paged is not None:
                        out.append(CodeReference(address, position, paged, "page_relative"))
                        continue
                if based is not None:
                    through_base = based.feed(address, size, mnemonic, operands)
                    if through_base is not None:
                        out.append(CodeReference(address, position, through_base, "base_relative"))
                        continue
                if "0x" not in operands and "rip" not in operands:
                    continue
                verb = mnemonic.rsplit(" ", 1)[-1]  # drop prefixes such as "bnd" or "notrack"
                target = branch_target(verb, operands)
                if target is not None:
                    if verb in _CALLS:
                        out.append(CodeReference(address, position, target, "call"))
                    elif not low <= target < high and (target in starts or target in self.stubs):
                        out.append(CodeReference(address, position, target, "jump"))
                    continue
                if "rip" in operands:
                    rip = rip_target(operands, address + size)
                    if rip is not None:
                        slot = self.slots.get(rip)
                        is_slot = slot is not None and slot.got
                        out.append(CodeReference(address, position, rip, _slot_kind(verb, is_slot)))
                    continue
                if not mapped or verb in _CALLS or is_jump(verb):
                    continue
                for operand in operands.split(", "):
                    if "[" in operand:
                        memory = _ABSOLUTE_MEMORY.search(operand)
                    else:
                        memory = _IMMEDIATE.match(operand) if verb in _ADDRESS_MOVES else None
                    if memory is not None:
                        target = int(memory.group(1), 16)
                        if target in mapped:
                            out.append(CodeReference(address, position, target, "immediate"))
            # capstone stops at the first byte it cannot decode: skip it and go on.
            offset = reached + 1 if reached < len(code) else reached
            restarts += 1
        return out

    def __len__(self) -> int:
        return len(self.references)

    def _decoded_procedure(self, position: int) -> list[CodeReference]:
        found = self._decoded.pop(position, None)
        if found is None:
            found = self._decode(position)
            if len(self._decoded) >= MAX_DECODED_KEPT:
                del self._decoded[next(iter(self._decoded))]
        self._decoded[position] = found
        return found

    def to_range(self, low: int, high: int) -> list[CodeReference]:
        """References whose target lies in `[low, high)`."""
        if self._searched is None:
            return self.references[bisect_left(self._targets, low) : bisect_left(self._targets, high)]
        found = [
            ref
            for position in self._searched.procedures_referring(low, high)
            for ref in self._decoded_procedure(position)
            if low <= ref.target < high
        ]
        return sorted(found, key=lambda r: (r.target, r.site))

    def from_source(self, position: int) -> list[CodeReference]:
        if self._searched is not None:
            return sorted(self._decoded_procedure(position), key=lambda r: r.site)
        return self._by_source.get(position, [])

    def stub_name(self, address: int) -> str | None:
        """`strlen@plt` for a PLT stub's address (`ExitProcess` for a PE thunk), else None."""
        stub = self.stubs.get(address)
        return stub_name(stub) if stub is not None else None

    def import_at(self, address: int) -> tuple[str, SlotTarget] | None:
        """What a call to `address` reaches when it is a stub (`strlen@plt`) or an import slot (`strlen@got`)."""
        stub = self.stubs.get(address)
        if stub is not None:
            return stub_name(stub), stub
        slot = self.slots.get(address)
        return (slot_name(slot), slot) if slot is not None else None

    def to_procedure(self, address: int, names: Sequence[str]) -> list[CodeReference]:
        """References to a procedure: to its address, and to the PLT stubs and import slots that reach it.

        A shared library calls its own exported functions through the PLT
        (they may be interposed), so most callers of such a function call its
        stub, or, built with `-fno-plt`, call through its GOT slot. A stub or
        slot reaches the procedure when the slot resolves to the procedure's
        address, or, for an imported function the document does not define,
        when it bears one of the procedure's names.
        """
        wanted = set(names)
        stubs = [
            stub
            for stub, slot in (*self.stubs.items(), *((at, s) for at, s in self.slots.items() if s.got))
            if slot.address == address or (slot.address is None and slot.name in wanted)
        ]
        found = [ref for target in (address, *stubs) for ref in self.to_range(target, target + 1)]
        return sorted(found, key=lambda r: r.site)
