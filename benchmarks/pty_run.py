"""Running `rea-tui` in a pseudo-terminal, as a user's terminal would, and timing what appears on it.

Imported by the scripts beside it. `run_in_pty` starts a command on a
160x48 pty (TERM=xterm-256color), reads what it draws, and notes the wall
time (from just before the process is started) at which each marker text
first appears once escape sequences are stripped; then it leaves with
ctrl+q and makes sure the process group is gone. Nothing in the product is
instrumented: this reads the terminal.
"""

from __future__ import annotations

import codecs
import contextlib
import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import termios
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from timing import REPO, isolated_xdg

SIZE = (160, 48)
READ_WAIT_SECONDS = 0.01
QUIT_WAIT_SECONDS = 5.0
TERM_WAIT_SECONDS = 3.0
CTRL_Q = b"\x11"
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC
    r"|\x1b[PX^_][^\x1b]*\x1b\\"  # DCS, SOS, PM, APC
    r"|\x1b[()*+][0-9A-Za-z]"  # charset selection
    r"|\x1b[@-Z\\-_=>78]"  # other two-character escapes
)


def strip_escapes(text: str) -> str:
    return _ESCAPES.sub("", text)


def _child_setup() -> None:
    # A new session whose controlling terminal is the pty (stdin), as in a real terminal.
    os.setsid()
    with contextlib.suppress(OSError):
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def pty_env(xdg_root: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a terminal session with its own XDG folders under `xdg_root`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "TEXTUAL"))}
    env.update({"TERM": "xterm-256color", "COLUMNS": str(SIZE[0]), "LINES": str(SIZE[1])})
    env.update(isolated_xdg(xdg_root))
    env.update(extra or {})
    return env


def peak_rss_kb(pid: int) -> int:
    """A live process's peak resident memory (VmHWM) in kB, 0 if it is gone."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


@dataclass
class PtyRun:
    seen: dict[str, float] = field(default_factory=dict)  # marker -> seconds from start
    exit_code: int | None = None
    tail: str = ""
    peak_rss_kb: int = 0  # the process's VmHWM when it had shown what was awaited (or at the timeout)
    quit_seconds: float | None = None  # from ctrl+q to the process's exit (None: it did not exit by itself)

    def at(self, marker: str) -> float | None:
        return self.seen.get(marker)


def run_in_pty(
    argv: Sequence[str],
    env: Mapping[str, str],
    markers: Sequence[str],
    *,
    cwd: Path = REPO,
    timeout: float = 20.0,
    done: Callable[[dict[str, float]], bool] | None = None,
    quit_wait: float = QUIT_WAIT_SECONDS,
) -> PtyRun:
    """Start `argv` on a pty; the time each of `markers` first shows; then ctrl+q (or kill it).

    It reads until `done(seen)` (by default: every marker seen) or `timeout`.
    """
    finished = done or (lambda seen: len(seen) == len(markers))
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", SIZE[1], SIZE[0], 0, 0))
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    raw = ""
    run = PtyRun()
    started = time.perf_counter()
    proc = subprocess.Popen(
        list(argv),
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=dict(env),
        cwd=cwd,
        preexec_fn=_child_setup,
        close_fds=True,
    )
    os.close(slave)

    def drain(wait: float) -> bool:
        nonlocal raw
        ready, _, _ = select.select([master], [], [], wait)
        if not ready:
            return True
        try:
            data = os.read(master, 1 << 16)
        except OSError:
            return False
        if not data:
            return False
        raw += decoder.decode(data)
        return True

    try:
        deadline = started + timeout
        alive = True
        while alive and not finished(run.seen) and time.perf_counter() < deadline:
            alive = drain(READ_WAIT_SECONDS)
            now = time.perf_counter() - started
            text = strip_escapes(raw)
            for marker in markers:
                if marker not in run.seen and marker in text:
                    run.seen[marker] = now
        run.peak_rss_kb = peak_rss_kb(proc.pid)
        # Leave as a user would (ctrl+q), then make sure the process group is gone.
        with contextlib.suppress(OSError):
            os.write(master, CTRL_Q)
        quit_pressed = time.perf_counter()
        quit_deadline = quit_pressed + quit_wait
        while proc.poll() is None and time.perf_counter() < quit_deadline:
            if not drain(READ_WAIT_SECONDS * 5):
                break
        # The pty reads end when the process closes the terminal; it may still be leaving then.
        while proc.poll() is None and time.perf_counter() < quit_deadline:
            time.sleep(READ_WAIT_SECONDS / 10)
        if proc.poll() is not None:
            run.quit_seconds = time.perf_counter() - quit_pressed
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(TERM_WAIT_SECONDS)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    finally:
        os.close(master)
    run.exit_code = proc.returncode
    if not finished(run.seen):
        run.tail = strip_escapes(raw)[-300:]
    return run
