"""A program on a pseudo-terminal of its own, as in a real terminal: its own session, the pty its
controlling terminal (so it gets SIGWINCH and SIGHUP), a size set before it starts."""

from __future__ import annotations

import fcntl
import os
import re
import struct
import subprocess
import termios
from collections.abc import Mapping, Sequence
from pathlib import Path

# What a terminal program writes besides its text (cursor moves, colours), taken out to read the text.
CSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")


def set_size(fd: int, columns: int, lines: int) -> None:
    """The pty's size, as a terminal window sets it (the foreground process gets SIGWINCH)."""
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))


def _controlling_terminal() -> None:
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def spawn_on_terminal(
    command: Sequence[str], *, env: Mapping[str, str], cwd: Path, columns: int, lines: int
) -> tuple[int, subprocess.Popen[bytes]]:
    """Start `command` on a new pty of `columns` x `lines`; the pty's other end (to read and type) and the process."""
    master, terminal = os.openpty()
    set_size(terminal, columns, lines)
    process = subprocess.Popen(
        list(command),
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        cwd=cwd,
        env=dict(env),
        preexec_fn=_controlling_terminal,
    )
    os.close(terminal)
    return master, process
