"""A universal (fat) Mach-O's header: which slices the file holds, where, and for which architecture.

The header is read here rather than through LIEF's `FatBinary`, which drops a slice whose offset or
size does not hold together without a word: each slice is then cut out of the file and parsed on its
own, and a slice that lies past the file's end, overlaps the header or cannot be parsed is named.

Layout (all big-endian): magic, the slice count, then one entry per slice: `fat_arch` (cputype,
cpusubtype, offset, size, align: five 32-bit fields) or, after the 64-bit magic, `fat_arch_64`
(cputype, cpusubtype, a 64-bit offset and size, align, reserved).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

FAT_MAGIC = 0xCAFEBABE
FAT_MAGIC_64 = 0xCAFEBABF
FAT_HEADER = struct.Struct(">II")
FAT_ARCH = struct.Struct(">iiIII")
FAT_ARCH_64 = struct.Struct(">iiQQII")
MAX_SLICES = 32
"""More slices than any universal binary holds; a Java class file shares the magic and puts its version
(45 and up) where the count would be, so a larger count is not a fat header."""
CPU_SUBTYPE_MASK = 0x00FFFFFF
"""The subtype without its capability bits (`CPU_SUBTYPE_LIB64`, arm64e's pointer-authentication ABI)."""
UINT32_MASK = 0xFFFFFFFF
"""A CPU type is read signed (as mach/machine.h declares it) and shown as its unsigned 32 bits."""
CPU_ARCH_ABI64 = 0x01000000
CPU_ARCH_ABI64_32 = 0x02000000

# mach/machine.h: CPU types, and the subtypes lipo names separately.
CPU_TYPE_X86 = 7
CPU_TYPE_ARM = 12
CPU_TYPE_POWERPC = 18
CPU_TYPE_X86_64 = CPU_TYPE_X86 | CPU_ARCH_ABI64
CPU_TYPE_ARM64 = CPU_TYPE_ARM | CPU_ARCH_ABI64
CPU_TYPE_ARM64_32 = CPU_TYPE_ARM | CPU_ARCH_ABI64_32
CPU_TYPE_POWERPC64 = CPU_TYPE_POWERPC | CPU_ARCH_ABI64
CPU_SUBTYPE_X86_64_H = 8
CPU_SUBTYPE_ARM64E = 2
ARM_SUBTYPES = {
    5: "armv4t",
    6: "armv6",
    7: "armv5",
    8: "xscale",
    9: "armv7",
    10: "armv7f",
    11: "armv7s",
    12: "armv7k",
    13: "armv8",
    14: "armv6m",
    15: "armv7m",
    16: "armv7em",
}
"""32-bit ARM subtypes by lipo's name."""


def architecture_name(cputype: int, cpusubtype: int) -> str:
    """lipo's name for a slice's architecture: `arm64`, `x86_64`, `arm64e`, `i386`; `cputype 0x...` when
    the type is one lipo does not name."""
    subtype = cpusubtype & CPU_SUBTYPE_MASK
    if cputype == CPU_TYPE_X86_64:
        return "x86_64h" if subtype == CPU_SUBTYPE_X86_64_H else "x86_64"
    if cputype == CPU_TYPE_ARM64:
        return "arm64e" if subtype == CPU_SUBTYPE_ARM64E else "arm64"
    if cputype == CPU_TYPE_ARM:
        return ARM_SUBTYPES.get(subtype, "arm")
    named = {CPU_TYPE_X86: "i386", CPU_TYPE_ARM64_32: "arm64_32", CPU_TYPE_POWERPC: "ppc", CPU_TYPE_POWERPC64: "ppc64"}
    return named.get(cputype, f"cputype 0x{cputype & UINT32_MASK:x}")


@dataclass(frozen=True, slots=True)
class FatSlice:
    index: int
    """From 1, in header order."""
    architecture: str
    offset: int
    size: int
    """What the header claims; `readable` is what the file holds of it."""
    readable: int
    problem: str | None
    """What is wrong with where the header puts the slice, named for the reply; None when nothing is."""


@dataclass(frozen=True, slots=True)
class FatHeader:
    slices: tuple[FatSlice, ...]
    error: str | None
    """Why the header could not be read (then `slices` is empty)."""


def is_fat(head: bytes) -> bool:
    return len(head) >= FAT_HEADER.size and FAT_HEADER.unpack_from(head)[0] in (FAT_MAGIC, FAT_MAGIC_64)


def read_fat_header(data: bytes, file_size: int) -> FatHeader:
    """The slices a fat header lists. `data` holds at least the header (the file's first bytes);
    `file_size` is how many bytes the file holds, against which each slice's extent is checked."""
    if not is_fat(data):
        return FatHeader((), "not a universal Mach-O header")
    magic, count = FAT_HEADER.unpack_from(data)
    if not 0 < count <= MAX_SLICES:
        return FatHeader((), f"the universal header claims {count:,} slices (at most {MAX_SLICES} are read)")
    entry = FAT_ARCH_64 if magic == FAT_MAGIC_64 else FAT_ARCH
    header_end = FAT_HEADER.size + count * entry.size
    if header_end > min(len(data), file_size):
        return FatHeader((), f"the universal header's table of {count} slices runs past the end of the file")
    slices: list[FatSlice] = []
    for index in range(count):
        fields = entry.unpack_from(data, FAT_HEADER.size + index * entry.size)
        cputype, cpusubtype, offset, size = fields[0], fields[1], fields[2], fields[3]
        architecture = architecture_name(cputype, cpusubtype)
        where = f"slice {index + 1} of {count} ({architecture}) claims {size:,} bytes at offset 0x{offset:x}"
        readable = max(0, min(offset + size, file_size) - offset)
        problem: str | None = None
        if offset < header_end:
            readable, problem = 0, f"universal binary: {where}, inside the universal header; it was not read"
        elif size == 0:
            problem = f"universal binary: {where}; it was not read"
        elif readable == 0:
            problem = f"universal binary: {where}, past the end of the file ({file_size:,} bytes); it was not read"
        elif readable < size:
            problem = (
                f"universal binary: {where}, past the end of the file ({file_size:,} bytes); "
                f"its first {readable:,} bytes were read"
            )
        slices.append(FatSlice(index + 1, architecture, offset, size, readable, problem))
    return FatHeader(tuple(slices), None)
