"""Function extents from an ELF's `.eh_frame` FDEs, for binaries LIEF finds no functions in.

LIEF reads functions from `.eh_frame_hdr`'s search table; a static binary
linked without `--eh-frame-hdr` (Debian's busybox-static) has the FDEs but no
table, so LIEF reports none. This reads the records' headers only (the CIE's
augmentation for the FDE pointer encoding, each FDE's start and range) and
skips their call-frame instructions: pyelftools, which decodes those too, took
1.2 s for busybox's 2,038 FDEs and 43 s for node's, where this takes a few
hundredths (benchmarks/binary_kinds.py).

Layout (LSB "Exception Frames"; DWARF 4 section 6.4.1): each record is a
length (0xffffffff then a 64-bit length for the 64-bit format), an id (0 for a
CIE, else the distance back to the FDE's CIE), then the body. Pointers use
DW_EH_PE encodings: a value format in the low nibble, an application in bits
4-6 (absolute or pc-relative are read; data-, text- and function-relative and
indirect pointers are counted as unread), bit 7 indirect.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

EH_FRAME = ".eh_frame"

_EXTENDED_LENGTH = 0xFFFFFFFF
"""A 32-bit length of this value announces a 64-bit length."""
_OMIT = 0xFF
"""DW_EH_PE_omit: no pointer follows."""
_FORMAT_MASK = 0x0F
_APPLICATION_MASK = 0x70
_INDIRECT = 0x80
_ABSOLUTE, _PC_RELATIVE = 0x00, 0x10
_FIXED_FORMATS = {0x02: ("H", 2), 0x03: ("I", 4), 0x04: ("Q", 8), 0x0A: ("h", 2), 0x0B: ("i", 4), 0x0C: ("q", 8)}
"""DW_EH_PE value format -> struct code and size: udata2/4/8, sdata2/4/8."""
_ABSPTR, _ULEB128, _SLEB128 = 0x00, 0x01, 0x09
_MAX_LEB_BYTES = 10
"""A LEB128 longer than a 64-bit value needs is malformed."""


class _Malformed(Exception):
    pass


@dataclass(slots=True)
class FrameEntries:
    """`(start, size)` of every FDE with a non-empty range, and what could not be read."""

    extents: list[tuple[int, int]] = field(default_factory=list)
    error: str | None = None
    unread: int = 0
    """FDEs whose pointer encoding is not read (data- or text-relative, indirect) or whose CIE is malformed."""


class _Reader:
    def __init__(self, data: bytes, address: int, pointer_bytes: int, little: bool) -> None:
        self.data = data
        self.address = address
        self.pointer_bytes = pointer_bytes
        self.order = "<" if little else ">"
        self.mask = (1 << (8 * pointer_bytes)) - 1

    def fixed(self, code: str, at: int) -> int:
        size = struct.calcsize(code)
        if at < 0 or at + size > len(self.data):
            raise _Malformed
        return int(struct.unpack_from(self.order + code, self.data, at)[0])

    def leb(self, at: int, signed: bool) -> tuple[int, int]:
        value = shift = 0
        for count in range(_MAX_LEB_BYTES):
            if at + count >= len(self.data):
                raise _Malformed
            byte = self.data[at + count]
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                if signed and byte & 0x40:
                    value -= 1 << shift
                return value, at + count + 1
        raise _Malformed

    def pointer(self, encoding: int, at: int, applied: bool = True) -> tuple[int | None, int]:
        """A DW_EH_PE-encoded value at `at` and where it ends; the value is None when its application
        (data-, text- or function-relative, indirect) is not one this reads."""
        kind = encoding & _FORMAT_MASK
        if kind == _ABSPTR:
            code, size = ("Q", 8) if self.pointer_bytes == 8 else ("I", 4)
            value, end = self.fixed(code, at), at + size
        elif kind == _ULEB128:
            value, end = self.leb(at, signed=False)
        elif kind == _SLEB128:
            value, end = self.leb(at, signed=True)
        elif kind in _FIXED_FORMATS:
            code, size = _FIXED_FORMATS[kind]
            value, end = self.fixed(code, at), at + size
        else:
            raise _Malformed
        if not applied:
            return value, end
        application = encoding & _APPLICATION_MASK
        if encoding & _INDIRECT or application not in (_ABSOLUTE, _PC_RELATIVE):
            return None, end
        if application == _PC_RELATIVE:
            value += self.address + at
        return value & self.mask, end


def _cie_encoding(reader: _Reader, body: int, end: int) -> int:
    """The FDE pointer encoding a CIE's augmentation gives (`R`), absolute pointers without one."""
    version = reader.fixed("B", body)
    terminator = reader.data.find(b"\0", body + 1, end)
    if terminator < 0:
        raise _Malformed
    augmentation = reader.data[body + 1 : terminator].decode("latin-1")
    at = terminator + 1
    if "eh" in augmentation:
        at += reader.pointer_bytes  # an old GCC's exception table pointer
    _code_alignment, at = reader.leb(at, signed=False)
    _data_alignment, at = reader.leb(at, signed=True)
    if version == 1:
        at += 1
    else:
        _return_register, at = reader.leb(at, signed=False)
    encoding = _ABSOLUTE
    if not augmentation.startswith("z"):
        return encoding
    _augmentation_length, at = reader.leb(at, signed=False)
    for letter in augmentation[1:]:
        if letter == "R":
            encoding = reader.fixed("B", at)
            at += 1
        elif letter == "P":
            personality = reader.fixed("B", at)
            _routine, at = reader.pointer(personality, at + 1, applied=False)
        elif letter == "L":
            at += 1
        elif letter not in "SBG":
            raise _Malformed  # an augmentation this does not know: what follows cannot be located
        if at > end:
            raise _Malformed
    return encoding


def read_frame_entries(data: bytes, address: int, pointer_bytes: int, little: bool = True) -> FrameEntries:
    """The FDE extents in `.eh_frame`'s bytes `data`, which the process sees at `address`."""
    reader = _Reader(data, address, pointer_bytes, little)
    found = FrameEntries()
    encodings: dict[int, int | None] = {}
    """CIE offset -> its FDE pointer encoding, or None for a malformed CIE."""
    at = 0
    try:
        while at + 4 <= len(data):
            length = reader.fixed("I", at)
            body = at + 4
            id_bytes = 4
            if length == _EXTENDED_LENGTH:
                length = reader.fixed("Q", body)
                body += 8
                id_bytes = 8
            if length == 0:
                break  # the terminator
            end = body + length
            if end > len(data) or length < id_bytes:
                raise _Malformed
            entry_id = reader.fixed("Q" if id_bytes == 8 else "I", body)
            if entry_id != 0:
                cie = body - entry_id
                if cie not in encodings:
                    encodings[cie] = _encoding_at(reader, cie)
                encoding = encodings[cie]
                start = range_ = None
                if encoding is not None and encoding != _OMIT:
                    start, after = reader.pointer(encoding, body + id_bytes)
                    range_, _ = reader.pointer(encoding, after, applied=False)
                if start is None or range_ is None:
                    found.unread += 1
                elif range_ > 0:
                    found.extents.append((start, range_ & reader.mask))
            at = end
    except _Malformed:
        found.error = f"{EH_FRAME} is malformed at offset {at:#x}: the records after it were not read"
    if found.unread and found.error is None:
        found.error = f"{EH_FRAME}: {found.unread} FDEs use a pointer encoding or CIE that is not read"
    return found


def _encoding_at(reader: _Reader, cie: int) -> int | None:
    """The FDE pointer encoding of the CIE at offset `cie`, or None when it is not a readable CIE."""
    try:
        length = reader.fixed("I", cie)
        body, id_code = cie + 4, "I"
        if length == _EXTENDED_LENGTH:
            length, body, id_code = reader.fixed("Q", body), body + 8, "Q"
        end = body + length
        if end > len(reader.data) or reader.fixed(id_code, body) != 0:
            return None
        return _cie_encoding(reader, body + struct.calcsize(id_code), end)
    except _Malformed:
        return None
