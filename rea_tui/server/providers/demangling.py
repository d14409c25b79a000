"""Demangled C++ and Rust names, offered and matched beside the mangled ones.

cxxfilt calls libstdc++'s `abi::__cxa_demangle`, the same libiberty demangler
binutils' `c++filt` uses, so the names agree with it character for character.
Without libstdc++ on the machine no C++ name is demangled and the mangled names
stay the only ones (`demangling_available` says which).

Rust names, legacy (`_ZN5hello4main17h05af221e174051e8E`) and v0 (`_RNvC5hello4main`),
are demangled by pyderust, a binding of rustc-demangle (the Rust project's own
demangler, memory-safe and bounded in depth and output on hostile names), in the
form `c++filt -s rust --no-verbose` and `objdump -C` print: no legacy hash, no v0
crate disambiguator, and no suffix a compiler pass appended (`.llvm.123`, `.cold`).
A legacy Rust name is also a valid C++ name; like libiberty, the hash element that
ends it says it is Rust.
"""

from __future__ import annotations

import functools
import re
from typing import Any

ITANIUM_PREFIX = "_Z"
"""Every external Itanium-ABI mangled name starts so (`_ZNSt6vectorIiSaIiEE9push_backERKi`)."""
MACHO_PREFIX = "_"
"""Mach-O puts an underscore before every C-level name, so a mangled C++ name reads `__Z...`."""
RUST_V0_PREFIX = "_R"
"""Every Rust v0 mangled name starts so; its grammar uses only letters, digits and `_`, so a `.` starts a suffix."""
RUST_LEGACY = re.compile(r"(_ZN.*17h[0-9a-f]{16}E)(?:\.[\w.$]*)?")
"""A legacy Rust name: an Itanium-style path whose last element is `h` and a 16-hex-digit hash, then perhaps
a suffix a compiler pass appended (`.llvm.123`)."""
SWIFT_PREFIXES = ("$s", "$S", "$e", "_T0")
"""Swift mangled names start so (Swift 5 and later, Swift 4.2, Embedded Swift, Swift 4); no library the
server can check against a toolchain's demangler reads them, so they stay mangled and are said to."""
MAX_MANGLED_CHARS = 4096
"""Longer names are left mangled: the completion value limit, and a bound on the demangler's work."""


@functools.cache
def _demangler() -> Any:
    try:
        import cxxfilt
    except Exception:  # libstdc++ or libc not loadable: cxxfilt fails at import
        return None
    demangler = cxxfilt.default_demangler
    return demangler if isinstance(demangler, cxxfilt.Demangler) else None


def demangling_available() -> bool:
    return _demangler() is not None


@functools.cache
def _rust_demangler() -> Any:
    try:
        import pyderust
    except Exception:  # the binding's native module not loadable on this machine
        return None
    return pyderust


def rust_demangled(mangled: str) -> str | None:
    """The demangled form of a Rust name (legacy or v0, without a Mach-O underscore), or None."""
    legacy = RUST_LEGACY.fullmatch(mangled)
    if legacy is not None:
        core = legacy.group(1)
    elif mangled.startswith(RUST_V0_PREFIX):
        core = mangled.split(".", 1)[0]
    else:
        return None
    demangler = _rust_demangler()
    if demangler is None:
        return None
    try:
        text: str = demangler.demangle(core)
    except Exception:  # pyderust.DemangleError: a name that only looks mangled
        return None
    return text if text and text != core else None


def demangled(name: str, macho: bool = False) -> str | None:
    """The demangled form of a Rust or Itanium C++ name, or None (not mangled, invalid, or no demangler)."""
    mangled = name[len(MACHO_PREFIX) :] if macho and name.startswith(MACHO_PREFIX) else name
    if len(mangled) > MAX_MANGLED_CHARS:
        return None
    rust = rust_demangled(mangled)
    if rust is not None or not mangled.startswith(ITANIUM_PREFIX):
        return rust
    demangler = _demangler()
    if demangler is None:
        return None
    try:
        raw: bytes = demangler.demangleb(mangled.encode("utf-8", "surrogateescape"))
    except Exception:  # cxxfilt.InvalidName and kin: a name that only looks mangled
        return None
    text = raw.decode("utf-8", "backslashreplace")
    return text if text and text != mangled else None


def swift_mangled(name: str, macho: bool = False) -> bool:
    """Whether a name is Swift-mangled (`$s4main3FooV3baryyF`; on Mach-O `_$s...`)."""
    mangled = name[len(MACHO_PREFIX) :] if macho and name.startswith(MACHO_PREFIX) else name
    return mangled.startswith(SWIFT_PREFIXES)
