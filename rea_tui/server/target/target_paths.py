"""What a target path can be, checked without parsing anything (cheap enough to run before the server starts).

`synthetic:N[:SEED]` is the deterministic synthetic target, `default:` the
running interpreter and its libraries; anything else is a file, a directory
of binaries or a macOS `.app` bundle on disk.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rea_tui.server.limits import MAX_SYNTHETIC_PROCEDURES
from rea_tui.server.target.binary_formats import sniff_format

SYNTHETIC_PATH = re.compile(r"^synthetic:(\d{1,6})(?::(\d{1,9}))?$")
DEFAULT_TARGET = "default:"
"""`open_binary` path of the default target: this interpreter and the libraries it links."""
DEFAULT_LABEL = f"Python {sys.version.split()[0]} interpreter and its shared libraries"


class TargetError(Exception):
    """The path cannot be opened as a target; the message says why."""


def check_openable(path: str) -> str:
    """The checks that need no parsing; returns a label for the target while it opens.

    Raises `TargetError` for a bad synthetic spec, a missing path or a single
    file that is not a binary. Deeper failures surface when the target opens.
    """
    text = path.strip()
    match = SYNTHETIC_PATH.match(text)
    if match:
        count = int(match.group(1))
        if not 1 <= count <= MAX_SYNTHETIC_PROCEDURES:
            raise TargetError(f"synthetic targets have 1 to {MAX_SYNTHETIC_PROCEDURES} procedures")
        return f"synthetic target ({count} procedures)"
    if text == DEFAULT_TARGET:
        return DEFAULT_LABEL
    full = os.path.realpath(os.path.expanduser(path))
    if not os.path.exists(full):
        raise TargetError(f"no such file or directory: {path}")
    if os.path.isfile(full) and sniff_format(full) is None:
        raise TargetError(f"not an ELF, Mach-O or PE binary: {path}")
    return os.path.basename(full.rstrip(os.sep)) or full


@dataclass(frozen=True, slots=True)
class StartupTarget:
    """The target the server was started with: how to open it, and what to call it meanwhile."""

    # Returns a `target.Target`; not imported here, since target.py imports this module (no cycle).
    opener: Callable[[], Any]
    label: str
    # `--open-first`: opened before any request but initialize is answered, so the first lists describe it.
    first: bool = False
