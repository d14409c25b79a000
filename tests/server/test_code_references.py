"""The reference index on hand-assembled x86-64 code: which operands are addresses, which branches are calls.

The bytes are real instructions decoded by capstone; only the document around
them (a fixed-address executable mapping 0x400000-0x410000) is made up.
"""

from __future__ import annotations

import capstone

from rea_tui.server.analysis.code_references import ReferenceIndex, SlotTarget, decode_plt_stubs
from rea_tui.server.analysis.disassembly import arm_mode
from rea_tui.server.analysis.string_index import SectionBytes
from rea_tui.server.providers.base import ProcedureRecord

X86_64 = (capstone.CS_ARCH_X86, capstone.CS_MODE_64)
FIRST, SECOND, PLT = 0x401000, 0x401100, 0x400F00
MAPPED = [(0x400000, 0x410000)]


def rel32(site: int, length: int, target: int) -> bytes:
    return ((target - (site + length)) & 0xFFFFFFFF).to_bytes(4, "little")


def first_procedure() -> bytes:
    code = bytearray()
    code += bytes.fromhex("3d70170000")  # cmp eax, 0x1770
    code += bytes.fromhex("81f9 00404000")  # cmp ecx, 0x404000: a constant compared, not an address
    code += bytes.fromhex("0f84") + rel32(FIRST + len(code), 6, SECOND)  # je SECOND: a conditional tail call
    code += bytes.fromhex("74") + bytes([2])  # je +2: a branch inside the procedure
    code += bytes.fromhex("bf10404000")  # mov edi, 0x404010: an address put in a register
    code += bytes.fromhex("8b042520404000")  # mov eax, dword ptr [0x404020]
    code += bytes.fromhex("64488b042528000000")  # mov rax, qword ptr fs:[0x28]
    code += bytes.fromhex("e9") + rel32(FIRST + len(code), 5, PLT)  # jmp PLT stub: a tail call
    return bytes(code)


def plt_stub() -> bytes:
    """`jmp qword ptr [rip + slot]` through the slot at 0x403000, then padding."""
    return bytes.fromhex("ff25") + rel32(PLT, 6, 0x403000) + bytes.fromhex("6690")


def build(absolute_ranges: list[tuple[int, int]]) -> ReferenceIndex:
    code = first_procedure()
    records = [ProcedureRecord(FIRST, ("first",), len(code)), ProcedureRecord(SECOND, ("second",), 1)]

    def read(address: int, size: int) -> bytes:
        return {FIRST: code, SECOND: b"\xc3"}.get(address, b"")[:size]

    return ReferenceIndex(
        records,
        read,
        X86_64,
        absolute_ranges,
        [SectionBytes(".plt.got", PLT, plt_stub())],
        {0x403000: SlotTarget("strlen")},
    )


def test_only_operands_used_as_addresses_are_immediate_references() -> None:
    index = build(MAPPED)
    immediates = sorted(r.target for r in index.references if r.kind == "immediate")
    assert immediates == [0x404010, 0x404020]


def test_branches_are_calls_or_tail_jumps_never_immediates() -> None:
    index = build(MAPPED)
    jumps = sorted((r.target, r.kind) for r in index.references if r.kind == "jump")
    assert jumps == [(PLT, "jump"), (SECOND, "jump")]
    assert index.stub_name(PLT) == "strlen@plt"
    assert [r.site for r in index.to_procedure(0x999, ("strlen",))] == [r.site for r in index.to_range(PLT, PLT + 1)]


def test_position_independent_code_has_no_immediate_references() -> None:
    index = build([])
    assert not [r for r in index.references if r.kind == "immediate"]
    assert len([r for r in index.references if r.kind == "jump"]) == 2


def test_a_thumb_entry_before_an_arm_plt_stub_names_it_too() -> None:
    """`bx pc; nop` before an ARM stub (the entry ld gives Thumb callers): both addresses name the import.

    The stub's words are strings-thumb's own `puts@plt` (`add ip, pc, #0, 12; add ip, ip, #4096;
    ldr pc, [ip, #3052]!` at 0x428, slot 0x201c), with a Thumb entry put before it."""
    stub = bytes.fromhex("00c68fe2 01ca8ce2 ecfbbce5")
    slot = 0x428 + 8 + 0x1000 + 3052  # the stub's pc (read 8 ahead) plus its immediates: 0x201c
    names = decode_plt_stubs(
        arm_mode(), [SectionBytes(".plt", 0x424, bytes.fromhex("7847c046") + stub)], {slot: SlotTarget("puts")}
    )
    assert names == {0x424: SlotTarget("puts"), 0x428: SlotTarget("puts")}
