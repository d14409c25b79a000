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
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

GOPCLNTAB = ".gopclntab"
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


def read_go_functions(table: bytes, text_address: int) -> GoFunctionTable:
    """The functions in a `.gopclntab` section's bytes; `text_address` stands in for a text start of 0
    (a position-independent binary whose loader fills it in)."""
    if len(table) < FIXED_HEADER_BYTES:
        return GoFunctionTable((), None, "the .gopclntab section is shorter than its header")
    magic = struct.unpack_from("<I", table, 0)[0]
    version = KNOWN_MAGICS.get(magic)
    if version is None:
        return GoFunctionTable((), None, f".gopclntab has the unknown magic 0x{magic:08x}")
    pointer = table[7]
    if pointer not in (4, 8) or table[4:6] != b"\0\0":
        return GoFunctionTable((), version, f".gopclntab ({version}) has a malformed header")
    word = "<Q" if pointer == 8 else "<I"
    modern = magic != MAGIC_GO116
    fields = 8 if modern else 7  # nfunc, nfiles, [textStart,] funcname, cu, filetab, pctab, pcln offsets
    if len(table) < FIXED_HEADER_BYTES + fields * pointer:
        return GoFunctionTable((), version, f".gopclntab ({version}) is shorter than its header")
    values = [struct.unpack_from(word, table, FIXED_HEADER_BYTES + i * pointer)[0] for i in range(fields)]
    count = values[0]
    text_start = (values[2] or text_address) if modern else 0
    names_at = values[3 if modern else 2]
    functab_at = values[7 if modern else 6]
    entry_bytes = 8 if modern else 2 * pointer
    if functab_at + (count + 1) * entry_bytes > len(table) or names_at > len(table):
        return GoFunctionTable((), version, f".gopclntab ({version}) names {count:,} functions past its end")

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
            error = f".gopclntab ({version}): function {index:,} of {count:,} is out of order or out of bounds"
            break
        name_offset = struct.unpack_from("<i", table, name_field)[0]
        start = names_at + name_offset
        end = table.find(b"\0", start, start + NAME_LIMIT) if 0 <= start < len(table) else -1
        if end < 0:
            error = f".gopclntab ({version}): the name of function {index:,} is out of bounds"
            break
        name = table[start:end].decode("utf-8", errors="replace")
        functions.append(GoFunction(address, following - address, name))
        previous = address
    return GoFunctionTable(tuple(functions), version, error)
