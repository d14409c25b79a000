"""Function extents from an ELF's `.eh_frame` FDEs, for binaries LIEF finds no functions in.

LIEF reads functions from `.eh_frame_hdr`'s search table; a static binary
linked without `--eh-frame-hdr` (Debian's busybox-static) has the FDEs but no
table, so LIEF reports none. pyelftools walks the `.eh_frame` CIE/FDE records
and decodes their pointer encodings (pc-relative, data-relative, sized).
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from elftools.dwarf.callframe import FDE
from elftools.elf.elffile import ELFFile

EH_FRAME = ".eh_frame"
EH_FRAME_HDR = ".eh_frame_hdr"


@dataclass(frozen=True, slots=True)
class FrameEntries:
    """`(start, size)` of every FDE with a non-empty range, or why they could not be read."""

    extents: list[tuple[int, int]]
    error: str | None = None


def read_frame_entries(source: str | bytes) -> FrameEntries:
    """The FDE extents of the ELF at `source` (a path, or the file's bytes)."""
    try:
        stream = open(source, "rb") if isinstance(source, str) else io.BytesIO(source)  # noqa: SIM115
    except OSError as exc:
        return FrameEntries([], f"cannot read {EH_FRAME}: {exc.strerror or exc}")
    with stream:
        try:
            elf = ELFFile(stream)
            if elf.get_section_by_name(EH_FRAME) is None:
                return FrameEntries([])
            entries = elf.get_dwarf_info(relocate_dwarf_sections=False).EH_CFI_entries()
            extents = [
                (int(entry.header.initial_location), int(entry.header.address_range))
                for entry in entries
                if isinstance(entry, FDE) and entry.header.address_range > 0
            ]
        # pyelftools raises ELFError, construct's StreamError and plain ones (struct, index, key)
        # on truncated or hostile records.
        except Exception as exc:
            return FrameEntries([], f"{EH_FRAME} could not be decoded: {type(exc).__name__}")
    return FrameEntries(extents)
