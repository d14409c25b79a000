"""Executable formats recognised by their magic bytes (no LIEF import)."""

from __future__ import annotations

_MAGICS: tuple[tuple[bytes, str], ...] = (
    (b"\x7fELF", "ELF"),
    (b"\xfe\xed\xfa\xce", "MachO"),
    (b"\xfe\xed\xfa\xcf", "MachO"),
    (b"\xce\xfa\xed\xfe", "MachO"),
    (b"\xcf\xfa\xed\xfe", "MachO"),
    (b"\xca\xfe\xba\xbe", "MachO"),  # universal (fat)
    (b"\xca\xfe\xba\xbf", "MachO"),  # universal with 64-bit offsets
    (b"MZ", "PE"),
)
_MAGIC_BYTES = 4


def sniff_format(path: str) -> str | None:
    """The executable format of `path` from its magic bytes, or None."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(_MAGIC_BYTES)
    except OSError:
        return None
    for magic, fmt in _MAGICS:
        if head.startswith(magic):
            return fmt
    return None
