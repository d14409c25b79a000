"""Demangled C++ names, offered and matched beside the mangled ones.

cxxfilt calls libstdc++'s `abi::__cxa_demangle`, the same libiberty demangler
binutils' `c++filt` uses, so the names agree with it character for character.
Without libstdc++ on the machine nothing is demangled and the mangled names
stay the only ones (`demangling_available` says which).
"""

from __future__ import annotations

import functools
from typing import Any

ITANIUM_PREFIX = "_Z"
"""Every external Itanium-ABI mangled name starts so (`_ZNSt6vectorIiSaIiEE9push_backERKi`)."""
MACHO_PREFIX = "_"
"""Mach-O puts an underscore before every C-level name, so a mangled C++ name reads `__Z...`."""
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


def demangled(name: str, macho: bool = False) -> str | None:
    """The demangled form of an Itanium C++ name, or None (not mangled, invalid, or no demangler)."""
    mangled = name[len(MACHO_PREFIX) :] if macho and name.startswith(MACHO_PREFIX + ITANIUM_PREFIX) else name
    if not mangled.startswith(ITANIUM_PREFIX) or len(mangled) > MAX_MANGLED_CHARS:
        return None
    demangler = _demangler()
    if demangler is None:
        return None
    try:
        raw: bytes = demangler.demangleb(mangled.encode("utf-8", "surrogateescape"))
    except Exception:  # cxxfilt.InvalidName and kin: a name that only looks mangled
        return None
    text = raw.decode("utf-8", "backslashreplace")
    return text if text and text != mangled else None
