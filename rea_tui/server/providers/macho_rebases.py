"""A check of a Mach-O's rebase opcodes (`LC_DYLD_INFO`): where the stream stops holding together.

LIEF decodes the opcodes into rebases, and on a damaged stream it stops or drops entries without saying
so. This walk reads the same bytes once, without expanding repeats (a repeat's last address is
computed, not stepped to), so a hostile count costs nothing; it names the first opcode that is unknown,
runs past the end of the stream, picks a segment the file does not have, or rebases outside the sections
of its segment (llvm-objdump's rule).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

REBASE_OPCODES = "LC_DYLD_INFO rebase opcodes"

OPCODE_MASK = 0xF0
IMMEDIATE_MASK = 0x0F
DONE = 0x00
SET_TYPE_IMM = 0x10
SET_SEGMENT_AND_OFFSET_ULEB = 0x20
ADD_ADDR_ULEB = 0x30
ADD_ADDR_IMM_SCALED = 0x40
DO_REBASE_IMM_TIMES = 0x50
DO_REBASE_ULEB_TIMES = 0x60
DO_REBASE_ADD_ADDR_ULEB = 0x70
DO_REBASE_ULEB_TIMES_SKIPPING_ULEB = 0x80
"""The rebase opcodes of `<mach-o/loader.h>` (high nibble; the low nibble is an immediate)."""
MAX_REBASE_TYPE = 3
"""REBASE_TYPE_TEXT_PCREL32, the last type (1 pointer, 2 32-bit absolute in text, 3 32-bit PC-relative)."""
ULEB_MAX_BYTES = 10
"""A 64-bit value takes at most ten 7-bit groups."""
ADDRESS_MASK = 2**64 - 1
"""dyld's address arithmetic wraps at 64 bits (ADD_ADDR_ULEB of a huge value steps back)."""


@dataclass(frozen=True, slots=True)
class Segment:
    start: int
    end: int
    sections: tuple[tuple[int, int], ...] = ()
    """`[start, end)` of its sections: a rebase lies inside one (as llvm-objdump checks), not only in the segment."""


@dataclass(frozen=True, slots=True)
class RebaseCheck:
    rebases: int
    """Rebases the stream describes up to where it holds together."""
    error: str | None


class _Malformed(Exception):
    pass


def _covered(sections: Sequence[tuple[int, int]], low: int, high: int) -> bool:
    """Whether `[low, high)` lies inside the sections, adjacent ones joined (a run of rebases may go on from
    `__got` into `__const`)."""
    at = low
    for start, end in sorted(sections):
        if start <= at < end:
            at = end
        if at >= high:
            return True
    return False


def check_rebase_opcodes(opcodes: bytes, segments: Sequence[Segment], pointer_bytes: int) -> RebaseCheck:
    """Walk `opcodes` (segments in load-command order, as SET_SEGMENT counts them) and count the rebases."""
    position = 0
    segment: Segment | None = None
    address = 0
    rebases = 0

    def uleb() -> int:
        nonlocal position
        value = shift = 0
        for _ in range(ULEB_MAX_BYTES):
            if position >= len(opcodes):
                raise _Malformed("a number runs past the end of the stream")
            byte = opcodes[position]
            position += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value & ADDRESS_MASK
        raise _Malformed("a number longer than 64 bits")

    def rebase(count: int, step: int) -> None:
        """`count` rebases from `address`, `step` bytes apart; all must lie in the current segment."""
        nonlocal address, rebases
        if segment is None:
            raise _Malformed("a rebase before any segment is set")
        if not count:
            # No linker writes one; dyld rebases nothing and llvm-objdump shows one rebase: damage either way.
            raise _Malformed("a repeat count of 0")
        last = address + (count - 1) * step
        if not _covered(segment.sections, address, last + pointer_bytes):
            raise _Malformed(f"{count:,} rebases from 0x{address:x} leave the sections of their segment")
        rebases += count
        address = (address + count * step) & ADDRESS_MASK

    try:
        while position < len(opcodes):
            at = position
            byte = opcodes[position]
            position += 1
            opcode, immediate = byte & OPCODE_MASK, byte & IMMEDIATE_MASK
            if opcode == DONE:
                break
            if opcode == SET_TYPE_IMM:
                if immediate > MAX_REBASE_TYPE:
                    raise _Malformed(f"unknown rebase type {immediate} at byte {at}")
                continue
            if opcode == SET_SEGMENT_AND_OFFSET_ULEB:
                if immediate >= len(segments):
                    raise _Malformed(f"segment {immediate} at byte {at} (the file has {len(segments)})")
                segment = segments[immediate]
                address = (segment.start + uleb()) & ADDRESS_MASK
            elif opcode in (ADD_ADDR_ULEB, ADD_ADDR_IMM_SCALED) and segment is None:
                raise _Malformed(f"an address step before any segment is set, at byte {at}")
            elif opcode == ADD_ADDR_ULEB:
                address = (address + uleb()) & ADDRESS_MASK
            elif opcode == ADD_ADDR_IMM_SCALED:
                address = (address + immediate * pointer_bytes) & ADDRESS_MASK
            elif opcode == DO_REBASE_IMM_TIMES:
                rebase(immediate, pointer_bytes)
            elif opcode == DO_REBASE_ULEB_TIMES:
                rebase(uleb(), pointer_bytes)
            elif opcode == DO_REBASE_ADD_ADDR_ULEB:
                rebase(1, pointer_bytes + uleb())
            elif opcode == DO_REBASE_ULEB_TIMES_SKIPPING_ULEB:
                count = uleb()
                rebase(count, pointer_bytes + uleb())
            else:
                raise _Malformed(f"unknown opcode 0x{byte:02x} at byte {at}")
    except _Malformed as exc:
        return RebaseCheck(
            rebases,
            f"{REBASE_OPCODES}: {exc} (of {len(opcodes):,} bytes), so rebases after the first {rebases:,} are missing",
        )
    return RebaseCheck(rebases, None)
