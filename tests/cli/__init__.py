"""Tests of the `rea-tui` command line, run as a real subprocess.

The helpers here start the installed console script (or `python -m rea_tui`)
from the repository root with the test's isolated XDG directories, against
the sample server over stdio (`SAMPLE`), the misbehaving raw server
(`raw(MODE)`), or the sample server over streamable HTTP (`--url`).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
PYTHON = sys.executable

# The sample server as a stdio command after `--`, and as one `--stdio` string.
SAMPLE: tuple[str, ...] = ("--", PYTHON, "-m", "tests.support.sample_server")
SAMPLE_STDIO = f"{shlex.quote(PYTHON)} -m tests.support.sample_server"
TEMPLATE = "sample://docs/{document}/procedures/{procedure}"

# What must never reach a terminal from a server: ESC, BEL and the other C0
# controls (newline and tab are fine), DEL, and the C1 range (8-bit CSI/OSC...).
UNSAFE_CHARACTER = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def raw(mode: str) -> tuple[str, ...]:
    """Server options for `tests.support.raw_server MODE`, given with `--stdio`."""
    return ("--stdio", f"{shlex.quote(PYTHON)} -m tests.support.raw_server {mode}")


def rea_command() -> list[str]:
    """The installed console script next to this interpreter, else `python -m rea_tui`."""
    script = Path(PYTHON).with_name("rea-tui")
    if script.is_file():
        return [str(script)]
    found = shutil.which("rea-tui")
    return [found] if found else [PYTHON, "-m", "rea_tui"]


@dataclass(frozen=True)
class Run:
    """One finished `rea-tui` process."""

    args: tuple[str, ...]
    code: int
    out: str
    err: str

    def json(self) -> Any:
        try:
            return json.loads(self.out)
        except ValueError as exc:
            raise AssertionError(f"stdout is not JSON ({exc}):\n{self.out}\n--- stderr ---\n{self.err}") from None

    def expect(self, code: int) -> Run:
        assert self.code == code, (
            f"rea-tui {shlex.join(self.args)}\nexit code {self.code}, expected {code}\n"
            f"--- stdout ---\n{self.out}\n--- stderr ---\n{self.err}"
        )
        return self

    def trace_methods(self, direction: str = "->", kind: str = "request") -> list[str]:
        """Methods in the `--trace` table (stderr) going `direction` as `kind`."""
        found = []
        for line in self.err.splitlines():
            parts = line.split()
            if len(parts) >= 4 and parts[1] == direction and parts[2] == kind:
                found.append(parts[3])
        return found


def rea(
    *args: str,
    env: Mapping[str, str] | None = None,
    cwd: Path = REPO,
    stdin: Any = subprocess.DEVNULL,
    timeout: float = 60,
) -> Run:
    """Run `rea-tui ARGS` to completion; stdin is not a terminal unless given."""
    environ = os.environ.copy()
    environ.update(env or {})
    environ.pop("NO_COLOR", None)
    result = subprocess.run(
        [*rea_command(), *args],
        cwd=cwd,
        stdin=stdin,
        capture_output=True,
        timeout=timeout,
        env=environ,
    )
    # Decode like a UTF-8 terminal would, so C1 characters show up as code points.
    out = result.stdout.decode("utf-8", errors="replace")
    err = result.stderr.decode("utf-8", errors="replace")
    return Run(tuple(args), result.returncode, out, err)


def rea_many(*commands: Sequence[str], env: Mapping[str, str] | None = None, workers: int = 2) -> list[Run]:
    """Run independent commands two at a time (each mostly waits on a server start)."""
    environ = dict(os.environ) | dict(env or {})
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(rea, *command, env=environ) for command in commands]
        return [future.result() for future in futures]


def assert_terminal_safe(run: Run) -> None:
    """No escape sequence, BEL, other control character or C1 character on stdout or stderr."""
    for stream, text in (("stdout", run.out), ("stderr", run.err)):
        bad = sorted({repr(c) for c in UNSAFE_CHARACTER.findall(text)})
        assert not bad, f"rea-tui {shlex.join(run.args)}: {stream} carries {', '.join(bad)}:\n{text!r}"


def snake_case_keys(data: Any, skip: Sequence[str] = ()) -> list[str]:
    """Keys with an underscore anywhere in `data`, not looking inside the keys in `skip`."""
    found: list[str] = []
    if isinstance(data, dict):
        for key, value in data.items():
            if "_" in str(key) and not str(key).startswith("_"):
                found.append(str(key))
            if key not in skip:
                found += snake_case_keys(value, skip)
    elif isinstance(data, list):
        for item in data:
            found += snake_case_keys(item, skip)
    return found


def write_config(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def sample_entry(**extra: Any) -> dict[str, Any]:
    """A `mcpServers` entry that starts the sample server over stdio."""
    return {"command": PYTHON, "args": ["-m", "tests.support.sample_server"], "cwd": str(REPO), **extra}


def raw_entry(mode: str) -> dict[str, Any]:
    return {"command": PYTHON, "args": ["-m", "tests.support.raw_server", mode], "cwd": str(REPO)}
