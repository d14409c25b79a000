"""Start-up time of the `rea-tui` command line, as medians of several runs.

Run from anywhere (the repository root is found from this file):

    python benchmarks/startup.py [--runs 7] [--profile]

Prints, for each measurement, the median wall time, its target (if it has
one) and its ratio to two baselines measured in the same run: interpreter
start (`python -c pass`) and `python -c "import mcp"`. `--profile` adds the
ten slowest imports of `rea_tui.cli` (`python -X importtime`). Nothing is
asserted; this is a report for people.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Measurement:
    label: str
    argv: list[str]
    target: float | None = None


def rea_tui_command() -> list[str]:
    """The installed console script next to this interpreter, else `python -m rea_tui`."""
    script = Path(sys.executable).with_name("rea-tui")
    if script.is_file():
        return [str(script)]
    found = shutil.which("rea-tui")
    return [found] if found else [sys.executable, "-m", "rea_tui"]


def measurements() -> list[Measurement]:
    rea = rea_tui_command()
    return [
        Measurement("python -c pass", [sys.executable, "-c", "pass"]),
        Measurement('python -c "import mcp"', [sys.executable, "-c", "import mcp"]),
        Measurement("rea-tui --help", [*rea, "--help"], target=0.3),
        Measurement(
            "rea-tui prompts --json (stdio sample server)",
            [*rea, "prompts", "--json", "--", sys.executable, "-m", "tests.support.sample_server"],
            target=1.2,
        ),
    ]


def time_once(argv: list[str]) -> float:
    started = time.perf_counter()
    result = subprocess.run(
        argv, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=os.environ.copy()
    )
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed with exit code {result.returncode}:\n{result.stderr}")
    return elapsed


def median_of(argv: list[str], runs: int) -> tuple[float, float, float]:
    time_once(argv)  # warm the OS file cache and __pycache__; not counted
    samples = [time_once(argv) for _ in range(runs)]
    return statistics.median(samples), min(samples), max(samples)


def profile_imports(top: int = 10) -> None:
    """The slowest imports (cumulative) of `rea_tui.cli`, from `python -X importtime`."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import rea_tui.cli"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    rows: list[tuple[int, int, str]] = []
    for line in result.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        try:
            self_us, cumulative_us, name = line.split(":", 1)[1].split("|")
            rows.append((int(cumulative_us), int(self_us), name.rstrip()))
        except ValueError:
            continue
    rows.sort(reverse=True)
    print()
    print(f"top {top} imports of rea_tui.cli (python -X importtime, cumulative):")
    print(f"  {'cumulative':>10}  {'self':>8}  module")
    for cumulative, self_time, name in rows[:top]:
        print(f"  {cumulative / 1000:8.1f} ms  {self_time / 1000:5.1f} ms  {name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7, help="timed runs per measurement (default 7)")
    parser.add_argument("--profile", action="store_true", help="also print the slowest imports of rea_tui.cli")
    args = parser.parse_args(argv)
    runs = max(1, args.runs)

    results: list[tuple[Measurement, float, float, float]] = []
    for measurement in measurements():
        median, low, high = median_of(measurement.argv, runs)
        results.append((measurement, median, low, high))
    interpreter = results[0][1]
    import_mcp = results[1][1]

    print(f"rea-tui start-up, median of {runs} runs ({os.cpu_count()} CPUs, Python {sys.version.split()[0]})")
    header = (
        f"{'measurement':<46} {'median':>8} {'min':>7} {'max':>7}  {'target':<9} {'':<4} {'x python':>8} {'x mcp':>6}"
    )
    print(header)
    print("-" * len(header))
    for measurement, median, low, high in results:
        if measurement.target is None:
            target, verdict = "", ""
        else:
            target = f"<= {measurement.target:g} s"
            verdict = "ok" if median <= measurement.target else "SLOW"
        print(
            f"{measurement.label:<46} {median:7.3f}s {low:6.3f}s {high:6.3f}s  {target:<9} {verdict:<4}"
            f" {median / interpreter:8.1f} {median / import_mcp:6.2f}"
        )
    if args.profile:
        profile_imports()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
