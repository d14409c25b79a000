"""The one writer of the command line: every line on stdout and stderr goes through here.

Each write passes the egress guard (`rea_tui.host.trust.egress.guard`), so no control
character or escape sequence from a server reaches the terminal even if a
command forgot to sanitize (and the test suite, in strict mode, fails
instead). JSON is written ASCII-only, so server text in it is escaped.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from typing import IO, Any

from rea_tui.cli.exit_codes import ExitCode
from rea_tui.host import guard

PREFIX = "rea-tui: "


@dataclass(frozen=True)
class OutputMark:
    json_count: int
    errors: int


class Output:
    """stdout for results, stderr for what is said about them."""

    def __init__(self, stdout: IO[str] | None = None, stderr: IO[str] | None = None) -> None:
        self._stdout = stdout
        self._stderr = stderr
        self._status_width = 0
        # What `rea_tui.cli.shapes.finish_json` reads: how many JSON documents went out, and the errors said.
        self.json_count = 0
        self.errors: list[str] = []

    @property
    def stdout(self) -> IO[str]:
        return self._stdout or sys.stdout

    @property
    def stderr(self) -> IO[str]:
        return self._stderr or sys.stderr

    def line(self, text: str = "") -> None:
        """One line of the command's result (stdout)."""
        self._write(self.stdout, text + "\n", "stdout")

    def json(self, data: Any) -> None:
        self.json_count += 1
        self._write(self.stdout, json.dumps(data, indent=2, ensure_ascii=True) + "\n", "stdout")

    def mark(self) -> OutputMark:
        """Where the output is now: a command line run with this writer (`rea-tui run` runs many) reads what came
        after it."""
        return OutputMark(self.json_count, len(self.errors))

    def note(self, text: str, *, end: str = "\n") -> None:
        """Something said about the result (stderr): progress, what was sent, questions."""
        self._write(self.stderr, text + end, "stderr")

    def error(self, text: str) -> None:
        self.errors.append(text)
        self.note(PREFIX + text)

    def status(self, text: str) -> None:
        """Redraw one status line in place on stderr (a progress bar); only for a terminal."""
        padding = " " * max(self._status_width - len(text), 0)
        self._write(self.stderr, text + padding, "stderr", redraw=True)
        self._status_width = len(text)

    def clear_status(self) -> None:
        if self._status_width:
            self._write(self.stderr, " " * self._status_width, "stderr", redraw=True)
            self._write(self.stderr, "", "stderr", redraw=True)
            self._status_width = 0

    def stderr_is_terminal(self) -> bool:
        return self.stderr.isatty()

    def _write(self, stream: IO[str], text: str, where: str, *, redraw: bool = False) -> None:
        # The carriage return that redraws a status line is the writer's own, never a server's.
        start = "\r" if redraw else ""
        try:
            stream.write(start + guard(text, where))
            stream.flush()
        except BrokenPipeError:
            # The reader went away (`rea-tui tools | head`): stop quietly, as other tools do.
            os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
            raise SystemExit(ExitCode.OK) from None
