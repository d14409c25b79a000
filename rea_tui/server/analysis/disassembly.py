"""capstone, imported on first use: decoding modes and decoders."""

from __future__ import annotations

from typing import Any

CapstoneMode = tuple[int, int]
"""`(capstone architecture, mode)`."""


def capstone_mode(arch: str, bits: int) -> CapstoneMode | None:
    """The capstone mode for a LIEF architecture name, or None when unsupported."""
    import capstone

    if arch == "X86_64":
        return x86_64_mode()
    if arch == "X86":
        return capstone.CS_ARCH_X86, capstone.CS_MODE_32
    if arch == "ARM64":
        return arm64_mode()
    if arch == "ARM":
        return arm_mode()
    if arch == "RISCV":
        return capstone.CS_ARCH_RISCV, capstone.CS_MODE_RISCV64 if bits == 64 else capstone.CS_MODE_RISCV32
    return None


def arm64_mode() -> CapstoneMode:
    import capstone

    return capstone.CS_ARCH_ARM64, capstone.CS_MODE_ARM


def x86_64_mode() -> CapstoneMode:
    import capstone

    return capstone.CS_ARCH_X86, capstone.CS_MODE_64


def arm_mode() -> CapstoneMode:
    """32-bit ARM's ARM instruction set."""
    import capstone

    return capstone.CS_ARCH_ARM, capstone.CS_MODE_ARM


def i386_mode() -> CapstoneMode:
    """32-bit x86."""
    import capstone

    return capstone.CS_ARCH_X86, capstone.CS_MODE_32


def thumb_mode() -> CapstoneMode:
    """32-bit ARM's Thumb (and Thumb-2) instruction set."""
    import capstone

    return capstone.CS_ARCH_ARM, capstone.CS_MODE_THUMB


def unsupported_architecture(arch: str, machine: str, endianness: str) -> str:
    """What a listing says of code the server has no capstone mode for: the architecture by name."""
    return f"architecture {arch} ({machine}, {endianness}) is not supported for disassembly"


def decoder(mode: CapstoneMode) -> Any:
    import capstone

    md = capstone.Cs(*mode)
    md.detail = False
    return md
