"""The TUI inside a warm session's background host, on the terminal of `rea-tui session attach`.

The host opens the attaching command's terminal (by its device path, as the
same user) and runs the app in its own event loop, on its own `Session`: the
servers, their state, the ledger, notes, allowances and transcript are the
ones the shell's commands use. While the app runs, this process's standard
descriptors are that terminal (Textual's driver reads and writes them); they
are put back when it ends. Quitting detaches: the session goes on.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

from rea_tui.ui.app import ReaApp, create_app
from rea_tui.ui.settings import AppSettings

if TYPE_CHECKING:
    from rea_tui.host import Session

STANDARD_FDS = (0, 1, 2)
SIZE_VARIABLES = ("COLUMNS", "LINES")


class NotATerminal(OSError):
    """The path an attaching command named is not a terminal this process can open."""


def open_terminal(path: str) -> int:
    """A descriptor on the terminal at `path` (never made this process's controlling terminal)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    except OSError as exc:
        raise NotATerminal(f"cannot open {path}: {exc.strerror or exc}") from None
    if not stat.S_ISCHR(os.fstat(fd).st_mode) or not os.isatty(fd):
        os.close(fd)
        raise NotATerminal(f"{path} is not a terminal")
    return fd


@contextlib.contextmanager
def on_terminal(fd: int) -> Iterator[None]:
    """This process's standard descriptors are the terminal `fd` inside the block, and its own ones after."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    saved = [os.dup(n) for n in STANDARD_FDS]
    try:
        for n in STANDARD_FDS:
            os.dup2(fd, n)
        yield
    finally:
        for stream in (sys.__stdout__, sys.__stderr__):
            with contextlib.suppress(Exception):
                if stream is not None:
                    stream.flush()
        for n, old in zip(STANDARD_FDS, saved, strict=True):
            os.dup2(old, n)
            os.close(old)


def attached_app(session: Session, *, term: str, colorterm: str) -> ReaApp:
    """The app on a live session, for the attaching terminal's kind (its colours and key sequences).

    Raises `SettingsError` when the settings file is wrong (the attaching command says why).
    """
    # The terminal's own size, not one the session's environment fixed when it started (COLUMNS and LINES
    # win over the terminal in Textual's size look-up, and would hold against every resize).
    for fixed in SIZE_VARIABLES:
        os.environ.pop(fixed, None)
    if term:
        os.environ["TERM"] = term
    if colorterm:
        os.environ["COLORTERM"] = colorterm
    else:
        os.environ.pop("COLORTERM", None)
    return create_app(session, settings=AppSettings.load(), attached=True)
