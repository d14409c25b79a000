"""How long ctrl+q takes to end rea-tui with a server's questions queued: 0, 1,000, 3,000 and 10,000.

Usage: python benchmarks/quit_flood.py [--runs N] [--counts 0,1000,3000,10000] [--baseline TREE]

rea-tui runs in a 160x48 pty (`pty_run`) on the raw test server's `askfloodstart` mode, which sends its
elicitation requests as soon as the session starts. Once the dialog says how many more are queued (all
of them), ctrl+q is written to the terminal and the time to the process's exit is measured. Printed:
the median per count, and its ratio to the run with nothing queued. `--baseline TREE` times another
checkout of rea-tui (its `rea_tui` package, run from its folder) the same way, alternated with this one.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from pty_run import pty_env, run_in_pty
from timing import REPO, load_average

COUNTS = (0, 1_000, 3_000, 10_000)
# Filling the queue of 10,000 took 20-45 s on a loaded machine; a quit before the fix took as long.
FILL_TIMEOUT_SECONDS = 300.0
QUIT_WAIT_SECONDS = 120.0
# On screen: with nothing queued, the server's tool in the list; else the dialog's count of the rest.
NOTHING_QUEUED_MARK = "Tools (1)"


def queued_mark(count: int) -> str:
    return f"{count - 1:,} more question(s) queued" if count else NOTHING_QUEUED_MARK


def quit_seconds(tree: Path, count: int) -> float | None:
    # This checkout's server (it needs nothing but the standard library), whichever tree is timed.
    server = f"{sys.executable} {REPO / 'tests' / 'support' / 'raw_server.py'} askfloodstart {count}"
    mark = queued_mark(count)
    with tempfile.TemporaryDirectory(prefix="rea-quit-flood-") as xdg:
        run = run_in_pty(
            [sys.executable, "-m", "rea_tui", "--stdio", server],
            pty_env(Path(xdg), {"PYTHONPATH": str(tree)}),
            [mark],
            cwd=tree,
            timeout=FILL_TIMEOUT_SECONDS,
            quit_wait=QUIT_WAIT_SECONDS,
        )
    if run.at(mark) is None:
        print(f"  {tree.name} {count:>6,}: never showed {mark!r}: {run.tail!r}", file=sys.stderr)
        return None
    return run.quit_seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--counts", default=",".join(str(c) for c in COUNTS))
    parser.add_argument("--baseline", type=Path, help="another checkout of rea-tui to time the same way")
    args = parser.parse_args()
    counts = [int(c) for c in args.counts.split(",")]
    trees = [REPO, *([args.baseline.resolve()] if args.baseline else [])]
    times: dict[tuple[Path, int], list[float]] = {}
    failed: dict[tuple[Path, int], int] = {}
    print(load_average())
    for _ in range(args.runs):
        for count in counts:
            for tree in trees:
                took = quit_seconds(tree, count)
                key = (tree, count)
                if took is None:
                    failed[key] = failed.get(key, 0) + 1
                    print(f"  {tree} {count:>6,} queued: did not exit within {QUIT_WAIT_SECONDS:.0f} s")
                else:
                    times.setdefault(key, []).append(took)
                    print(f"  {tree} {count:>6,} queued: {took:.2f} s", flush=True)
    print(load_average())
    print("ctrl+q to exit, median seconds (ratio to nothing queued)")
    for tree in trees:
        base = times.get((tree, counts[0]))
        for count in counts:
            got = times.get((tree, count))
            if not got:
                print(f"{tree}  {count:>6,} queued: no exit ({failed.get((tree, count), 0)} runs)")
                continue
            median = statistics.median(got)
            ratio = f"  x{median / statistics.median(base):.1f}" if base and count != counts[0] else ""
            print(f"{tree}  {count:>6,} queued: {median:6.2f} s{ratio}")


if __name__ == "__main__":
    main()
