"""Go's function table (`.gopclntab`): every function of a Go binary with its name and extent.

A Go binary keeps its function table for the runtime (stack traces, the garbage collector), so a stripped
one (`-ldflags=-s -w`) still names every function there. The table starts with a header (Go's
`runtime.pcHeader`): a magic number per format, the pointer size, the function count, the start of the
text (1.18 and later) and the offsets of the name table and of the function table. The function table
is sorted by address, one entry per function plus one that ends the last; each entry points to the
function's `_func`, whose second field is the offset of its name.

Formats read: Go 1.16-1.17 (entries as addresses) and 1.18 and later (entries as offsets from the text
start). The bytes are the file's, so every offset is checked against them; a table that does not hold
together is reported by the reason it stopped, with the functions read before it.

Where the table is: ELF has a `.gopclntab` section, Mach-O a `__gopclntab` section (`__TEXT` or
`__DATA_CONST`). PE has no section of its own: the table lies inside `.rdata`, where the `runtime.pclntab`
COFF symbol points when the symbol table is kept; a stripped PE's is found by its header (`find_go_table`).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

GOPCLNTAB = ".gopclntab"
MACHO_GOPCLNTAB = "__gopclntab"
PCLNTAB_SYMBOL = "runtime.pclntab"
"""The COFF symbol a PE's Go linker puts at the start of the table (gone with `-ldflags=-s`)."""
# runtime.pcHeader magic numbers (little-endian uint32 at the start of the table).
MAGIC_GO116 = 0xFFFFFFFA
MAGIC_GO118 = 0xFFFFFFF0
MAGIC_GO120 = 0xFFFFFFF1
KNOWN_MAGICS = {MAGIC_GO116: "Go 1.16", MAGIC_GO118: "Go 1.18", MAGIC_GO120: "Go 1.20"}
# The header: magic (4), two pad bytes, the instruction size quantum (1), the pointer size (1), then
# pointer-sized fields: 1.16 has nfunc, nfiles and five table offsets; 1.18 adds the text start.
FIXED_HEADER_BYTES = 8
# A function name longer than this is not one the Go linker wrote.
NAME_LIMIT = 4096
# The instruction size quanta Go's architectures use (x86 1, s390x 2, the RISC ones 4).
INSTRUCTION_QUANTA = (1, 2, 4)
POINTER_SIZES = (4, 8)
MAX_HEADER_CANDIDATES = 4096
"""How many places with a magic and zero pad bytes the header scan looks at, per magic: a bound on the
work a hostile file's decoys can cause (a Go linker's `.rdata` holds the magic a few times at most)."""


@dataclass(frozen=True, slots=True)
class GoFunction:
    address: int
    size: int
    name: str


@dataclass(frozen=True, slots=True)
class GoFunctionTable:
    functions: tuple[GoFunction, ...]
    version: str | None  # "Go 1.18" and so on; None when the section is not a table this reads
    error: str | None  # why reading stopped (functions read before it are kept)


def find_go_table(data: bytes, text_start: int, text_end: int) -> int | None:
    """The offset in `data` (a stripped PE's `.rdata`) of a Go function table whose header holds together:
    a known magic, zero pad bytes, a known instruction quantum and pointer size, and a text start (1.18
    and later) or first function (1.16) inside `[text_start, text_end)`; None when there is none."""
    for magic in KNOWN_MAGICS:
        pattern = struct.pack("<I", magic) + b"\0\0"
        at = data.find(pattern)
        for _ in range(MAX_HEADER_CANDIDATES):
            if at < 0:
                break
            if _plausible_header(data, at, magic, text_start, text_end):
                return at
            at = data.find(pattern, at + 1)
    return None


def _plausible_header(data: bytes, at: int, magic: int, text_start: int, text_end: int) -> bool:
    if at + FIXED_HEADER_BYTES > len(data):
        return False
    quantum, pointer = data[at + 6], data[at + 7]
    if quantum not in INSTRUCTION_QUANTA or pointer not in POINTER_SIZES:
        return False
    word = "<Q" if pointer == 8 else "<I"

    def field(offset: int) -> int | None:
        return int(struct.unpack_from(word, data, offset)[0]) if offset + pointer <= len(data) else None

    if magic != MAGIC_GO116:
        start = field(at + FIXED_HEADER_BYTES + 2 * pointer)  # the third pointer-sized field: the text start
        return start is not None and text_start <= start < text_end
    # Go 1.16 has no text start: its function table's first entry is the first function's address.
    functab = field(at + FIXED_HEADER_BYTES + 6 * pointer)
    first = field(at + functab) if functab is not None else None
    return first is not None and text_start <= first < text_end


def read_go_functions(table: bytes, text_address: int, where: str = GOPCLNTAB) -> GoFunctionTable:
    """The functions in a Go function table's bytes (from its header to the end of what holds it);
    `text_address` stands in for a text start of 0 (a position-independent binary whose loader fills it
    in); `where` names the table in errors."""
    if len(table) < FIXED_HEADER_BYTES:
        return GoFunctionTable((), None, f"{where} is shorter than its header")
    magic = struct.unpack_from("<I", table, 0)[0]
    version = KNOWN_MAGICS.get(magic)
    if version is None:
        return GoFunctionTable((), None, f"{where} has the unknown magic 0x{magic:08x}")
    pointer = table[7]
    if pointer not in POINTER_SIZES or table[4:6] != b"\0\0":
        return GoFunctionTable((), version, f"{where} ({version}) has a malformed header")
    word = "<Q" if pointer == 8 else "<I"
    modern = magic != MAGIC_GO116
    fields = 8 if modern else 7  # nfunc, nfiles, [textStart,] funcname, cu, filetab, pctab, pcln offsets
    if len(table) < FIXED_HEADER_BYTES + fields * pointer:
        return GoFunctionTable((), version, f"{where} ({version}) is shorter than its header")
    values = [struct.unpack_from(word, table, FIXED_HEADER_BYTES + i * pointer)[0] for i in range(fields)]
    count = values[0]
    text_start = (values[2] or text_address) if modern else 0
    names_at = values[3 if modern else 2]
    functab_at = values[7 if modern else 6]
    entry_bytes = 8 if modern else 2 * pointer
    if functab_at + (count + 1) * entry_bytes > len(table) or names_at > len(table):
        return GoFunctionTable((), version, f"{where} ({version}) names {count:,} functions past its end")

    def entry(index: int) -> tuple[int, int]:
        at = functab_at + index * entry_bytes
        if modern:
            offset, func = struct.unpack_from("<II", table, at)
            return text_start + offset, func
        address, func = struct.unpack_from(word, table, at)[0], struct.unpack_from(word, table, at + pointer)[0]
        return address, func

    functions: list[GoFunction] = []
    error: str | None = None
    previous = -1
    for index in range(count):
        address, func = entry(index)
        following = entry(index + 1)[0]
        name_field = functab_at + func + (4 if modern else pointer)  # after the _func's entry field
        if address <= previous or following <= address or name_field + 4 > len(table):
            error = f"{where} ({version}): function {index:,} of {count:,} is out of order or out of bounds"
            break
        name_offset = struct.unpack_from("<i", table, name_field)[0]
        start = names_at + name_offset
        end = table.find(b"\0", start, start + NAME_LIMIT) if 0 <= start < len(table) else -1
        if end < 0:
            error = f"{where} ({version}): the name of function {index:,} is out of bounds"
            break
        name = table[start:end].decode("utf-8", errors="replace")
        functions.append(GoFunction(address, following - address, name))
        previous = address
    return GoFunctionTable(tuple(functions), version, error)
