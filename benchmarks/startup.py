"""Start-up time of the `rea-tui` command line, as medians of several runs.

Run from anywhere (the repository root is found from this file):

    python benchmarks/startup.py [--runs 7] [--baseline DIR] [--profile]

Prints, for each measurement, the median wall time of alternating runs, its
target (if it has one) and its ratio to two baselines measured in the same
run: interpreter start (`python -c pass`) and `python -c "import mcp"`.
`rea-tui prompts --json` runs on the bundled reference server (the default
target: this interpreter and the libraries it links) and on the stdio
sample server of the tests. `rea-tui` itself (the TUI) runs in a
pseudo-terminal (160x48): the time from its start to the first frame and to
the bundled server's prompt list on the screen. `--baseline DIR` also times rea-tui from another
source tree (e.g. `git archive main | tar -x -C DIR`), alternating with this
one, and prints the ratio. `--profile` adds the ten slowest imports of
`rea_tui.cli` (`python -X importtime`). Every rea-tui run gets XDG folders of
its own (warmed by an uncounted first run). Nothing is asserted; this is a
report for people.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pty_run import pty_env, run_in_pty
from timing import (
    REPO,
    Timed,
    alternate,
    baseline_timed,
    isolated_xdg,
    load_average,
    ratio,
    rea_tui_command,
    verdict,
)

# The targets, in seconds.
HELP_TARGET = 0.3
BUNDLED_PROMPTS_TARGET = 1.0
SAMPLE_PROMPTS_TARGET = 1.2
SAMPLE_SERVER = ["--", sys.executable, "-m", "tests.support.sample_server"]
TUI_PROMPT_LIST_TARGET = 0.9
# On the screen: the header at the first frame; a bundled prompt's title once the prompt list is painted.
FIRST_FRAME_MARK = "rea-tui"
PROMPT_LIST_MARK = "Investigate a feature"


@dataclass
class TuiStart:
    """The TUI in a pty: start to the first frame and to the prompt list, run after run."""

    label: str
    argv: list[str]
    env: dict[str, str]
    cwd: Path = REPO
    first_frame: list[float] = field(default_factory=list)
    prompt_list: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def run_once(self) -> None:
        seen = run_in_pty(self.argv, self.env, [FIRST_FRAME_MARK, PROMPT_LIST_MARK], cwd=self.cwd)
        frame, listed = seen.at(FIRST_FRAME_MARK), seen.at(PROMPT_LIST_MARK)
        if frame is not None:
            self.first_frame.append(frame)
        if listed is None:
            self.failures.append(seen.tail)
        else:
            self.prompt_list.append(listed)


def tui_starts(scratch: Path, baseline: Path | None) -> list[TuiStart]:
    starts = [TuiStart("rea-tui (TUI, bundled server)", rea_tui_command(), pty_env(scratch / "tui"))]
    if baseline is not None:
        tree = baseline.resolve()
        env = pty_env(scratch / "tui-baseline", {"PYTHONPATH": str(tree)})
        starts.append(
            TuiStart("rea-tui (TUI, bundled server) (baseline)", [sys.executable, "-m", "rea_tui"], env, tree)
        )
    return starts


@dataclass
class Measurement:
    timed: Timed
    target: float | None = None
    baseline: Timed | None = None


def measurements(scratch: Path, baseline: Path | None) -> list[Measurement]:
    rea = rea_tui_command()
    xdg = isolated_xdg(scratch / "rea-tui")
    rows = [
        ("rea-tui --help", ["--help"], HELP_TARGET),
        ("rea-tui prompts --json (bundled server)", ["prompts", "--json"], BUNDLED_PROMPTS_TARGET),
        ("rea-tui prompts --json (stdio sample server)", ["prompts", "--json", *SAMPLE_SERVER], SAMPLE_PROMPTS_TARGET),
    ]
    found = [
        Measurement(Timed("python -c pass", [sys.executable, "-c", "pass"])),
        Measurement(Timed('python -c "import mcp"', [sys.executable, "-c", "import mcp"])),
    ]
    for label, args, target in rows:
        base = None
        if baseline is not None:
            base = baseline_timed(f"{label} (baseline)", baseline, args, isolated_xdg(scratch / "baseline"))
        found.append(Measurement(Timed(label, [*rea, *args], xdg), target, base))
    return found


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
    parser.add_argument("--baseline", type=Path, help="also time rea-tui from this source tree")
    parser.add_argument("--profile", action="store_true", help="also print the slowest imports of rea_tui.cli")
    args = parser.parse_args(argv)
    runs = max(1, args.runs)

    with tempfile.TemporaryDirectory(prefix="rea-startup-") as scratch:
        found = measurements(Path(scratch), args.baseline)
        starts = tui_starts(Path(scratch), args.baseline)
        start_load = load_average()
        alternate([t for m in found for t in (m.timed, m.baseline) if t is not None], runs)
        for start in starts:
            start.run_once()  # protocol memory, OS file cache; not counted
        for round_number in range(runs):
            for start in starts[round_number % 2 :] + starts[: round_number % 2]:
                start.run_once()
        end_load = load_average()
    interpreter = found[0].timed.median
    import_mcp = found[1].timed.median

    print(f"rea-tui start-up, medians of {runs} alternating runs (Python {sys.version.split()[0]})")
    print(f"{start_load} at the start, {end_load} at the end")
    header = (
        f"{'measurement':<46} {'median':>8} {'min':>7} {'max':>7}  {'target':<9} {'':<6}"
        f" {'x python':>8} {'x mcp':>6} {'baseline':>9} {'x base':>6}"
    )
    print(header)
    print("-" * len(header))
    for measurement in found:
        timed = measurement.timed
        if measurement.target is None:
            target, word = "", ""
        else:
            target = f"<= {measurement.target:g} s"
            word = verdict(timed.median <= measurement.target)
        base = measurement.baseline
        base_columns = f" {base.median:8.3f}s {ratio(timed.median, base.median):>6}" if base else ""
        print(
            f"{timed.label:<46} {timed.median:7.3f}s {timed.low:6.3f}s {timed.high:6.3f}s  {target:<9} {word:<6}"
            f" {timed.median / interpreter:8.1f} {timed.median / import_mcp:6.2f}{base_columns}"
        )
    for start in starts:
        frame = statistics.median(start.first_frame) if start.first_frame else float("nan")
        listed = statistics.median(start.prompt_list) if start.prompt_list else float("nan")
        print(
            f"{start.label + ': first frame':<46} {frame:7.3f}s"
            f"\n{start.label + ': prompt list':<46} {listed:7.3f}s"
            f"{'':<16}  {'<= ' + str(TUI_PROMPT_LIST_TARGET) + ' s':<9} {verdict(listed <= TUI_PROMPT_LIST_TARGET):<6}"
            + (f"  ({len(start.failures)} runs never showed the list)" if start.failures else "")
        )
    if len(starts) == 2 and starts[1].prompt_list and starts[0].prompt_list:
        ratio_text = ratio(statistics.median(starts[0].prompt_list), statistics.median(starts[1].prompt_list))
        print(f"TUI prompt list against the baseline: x {ratio_text}")
    if args.profile:
        profile_imports()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
