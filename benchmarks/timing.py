"""What the benchmark scripts share: timed runs of commands, alternated, reported as medians.

Imported by the scripts beside it (`python benchmarks/NAME.py` puts this
folder on `sys.path`). Every figure is a median of runs that alternate
between the commands compared, so a burst of load from elsewhere on the
machine falls on all of them alike; the load average is printed with them.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# A command that does not finish in this long is reported as failed, not waited for.
RUN_TIMEOUT_SECONDS = 120.0


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} ({os.cpu_count()} CPUs)"


def rea_tui_command() -> list[str]:
    """The installed console script next to this interpreter, else `python -m rea_tui`."""
    script = Path(sys.executable).with_name("rea-tui")
    if script.is_file():
        return [str(script)]
    found = shutil.which("rea-tui")
    return [found] if found else [sys.executable, "-m", "rea_tui"]


def baseline_timed(label: str, tree: Path, args: Sequence[str], env: Mapping[str, str]) -> Timed:
    """rea-tui from another source tree (e.g. `git archive main | tar -x -C DIR`), run by this interpreter.

    It runs in that tree, so `-m` finds its package (and its tests' servers) before this checkout's.
    """
    root = tree.resolve()
    return Timed(label, [sys.executable, "-m", "rea_tui", *args], {**env, "PYTHONPATH": str(root)}, root)


def isolated_xdg(root: Path) -> dict[str, str]:
    """XDG variables pointing into `root`: no user config, protocol memory or transcript is read or written."""
    dirs = {}
    for name in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        path = root / name.removeprefix("XDG_").removesuffix("_HOME").lower()
        path.mkdir(parents=True, exist_ok=True)
        dirs[name] = str(path)
    return dirs


class CommandFailed(Exception):
    """A timed command exited non-zero (or timed out)."""


@dataclass
class Timed:
    """One command under test and the wall times of its runs."""

    label: str
    argv: list[str]
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: Path = REPO
    samples: list[float] = field(default_factory=list)

    def run_once(self) -> float:
        environment = {**os.environ, **self.env}
        started = time.perf_counter()
        try:
            result = subprocess.run(
                self.argv,
                cwd=self.cwd,
                env=environment,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=RUN_TIMEOUT_SECONDS,
            )
        except subprocess.TimeoutExpired as exc:
            raise CommandFailed(f"{self.label}: no answer within {RUN_TIMEOUT_SECONDS:g} s") from exc
        elapsed = time.perf_counter() - started
        if result.returncode != 0:
            tail = (result.stderr or result.stdout).decode(errors="replace")[-2000:]
            raise CommandFailed(f"{self.label}: exit code {result.returncode}\n{tail}")
        return elapsed

    @property
    def median(self) -> float:
        return statistics.median(self.samples) if self.samples else float("nan")

    @property
    def low(self) -> float:
        return min(self.samples, default=float("nan"))

    @property
    def high(self) -> float:
        return max(self.samples, default=float("nan"))


def alternate(commands: Sequence[Timed], runs: int, *, warm_up: bool = True) -> None:
    """Run each command `runs` times, in turn (the order rotates each round), after one uncounted run each."""
    if warm_up:
        for command in commands:
            command.run_once()  # OS file cache, __pycache__, protocol memory; not counted
    for round_number in range(runs):
        shift = round_number % len(commands)
        for command in [*commands[shift:], *commands[:shift]]:
            command.samples.append(command.run_once())


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if b > 0 else "n/a"


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"
