"""What making server text safe costs: a 100-value completion page, and a large result.

`python benchmarks/sanitize.py` prints the median time to sanitize one page
of 100 completion values (as the dropdown does) for ordinary values and for
hostile ones (escape sequences, bidi and zero-width characters), beside the
baseline of doing nothing to them, and the time for a 5 MB text block (as a
tool result is made safe when it enters the host). Target: under 1 ms a page.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rea_tui.host import sanitize, sanitize_line

PAGE = 100
ROUNDS = 2_000
BIG_ROUNDS = 20
LIMIT = 300  # what the dropdown allows one value
BIG_TEXT = ("a line of a disassembly listing, ordinary text\n" * 110_000)[:5_000_000]


def median_ms(work: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        work()
        times.append((time.perf_counter() - started) * 1000.0)
    return statistics.median(times)


def main() -> None:
    ordinary = [f"0x{0x100000 + i * 16:08x}" if i % 2 else f"PyList_Function{i}" for i in range(PAGE)]
    hostile = [f"name{i}\x1b]0;title\x07\u202e{'x' * 20}\u200b" for i in range(PAGE)]
    baseline = median_ms(lambda: [v for v in ordinary], ROUNDS)
    plain = median_ms(lambda: [sanitize_line(v, LIMIT) for v in ordinary], ROUNDS)
    bad = median_ms(lambda: [sanitize_line(v, LIMIT) for v in hostile], ROUNDS)
    big = median_ms(lambda: sanitize(BIG_TEXT, None), BIG_ROUNDS)
    print(f"100-value page, ordinary values : {plain * 1000:8.1f} us  (baseline, no work: {baseline * 1000:.1f} us)")
    print(f"100-value page, hostile values  : {bad * 1000:8.1f} us  (target: under 1 ms)")
    print(f"5 MB text block                 : {big:8.1f} ms")
    print(f"hostile / ordinary: {bad / plain:.1f}x")


if __name__ == "__main__":
    main()
