"""Which executable `run_process_capture` may start.

The rule: a capture runs only the main executable of the target the server
was started with (`--target PATH`, or the default target: this Python
interpreter), which the analyst chose when configuring the server. A target
opened later with `open_binary` can be inspected but never run, because any
client (or any text a model read) can call `open_binary`: opening `/bin/sh`
and then capturing must not run a shell. The executable is identified at
start by device, inode, size and modification time, and checked again before
each run, so a file swapped in later under the same path is refused too.
Synthetic targets have nothing on disk; their captures are simulated.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal

from rea_tui.server.target.target import Target


@dataclass(frozen=True, slots=True)
class ExecutableIdentity:
    path: str
    device: int
    inode: int
    size: int
    modified_ns: int

    @classmethod
    def of(cls, path: str) -> ExecutableIdentity | None:
        full = os.path.realpath(path)
        try:
            info = os.stat(full)
        except OSError:
            return None
        return cls(full, info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)

    def same_file(self, other: ExecutableIdentity) -> bool:
        return (self.device, self.inode) == (other.device, other.inode)


@dataclass(frozen=True, slots=True)
class CaptureDecision:
    action: Literal["run", "simulate", "refuse"]
    executable: str | None = None
    reason: str | None = None


class CapturePolicy:
    def __init__(self) -> None:
        self.startup: ExecutableIdentity | None = None

    def record_startup(self, target: Target) -> None:
        """Remember the startup target's main executable (once, when it has opened)."""
        if target.main_executable is not None:
            self.startup = ExecutableIdentity.of(target.main_executable)

    def decide(self, target: Target) -> CaptureDecision:
        if target.kind == "synthetic":
            return CaptureDecision("simulate")
        executable = target.main_executable
        if executable is None:
            return CaptureDecision("refuse", reason="the active target has no main executable to run")
        startup = self.startup
        if startup is None:
            return CaptureDecision(
                "refuse",
                reason="the server was started without a runnable target; run_process_capture only runs the "
                "main executable of the target the server was started with (--target PATH or the default target)",
            )
        current = ExecutableIdentity.of(executable)
        if current is None or not current.same_file(startup):
            return CaptureDecision(
                "refuse",
                reason=f"run_process_capture only runs the target the server was started with ({startup.path}); "
                f"{executable} was opened later with open_binary, so it may be inspected but not run. "
                f"Start the server with --target {executable} to capture it",
            )
        if (current.size, current.modified_ns) != (startup.size, startup.modified_ns):
            return CaptureDecision("refuse", reason=f"{startup.path} changed on disk since the server started")
        return CaptureDecision("run", executable=startup.path)
