"""Benchmark the reference server's completion and default-target opening.

Run: `python benchmarks/server.py` (no assertions; prints figures).

- Procedure completion over a 100,000-procedure synthetic target, timed server
  side by calling `CompletionEngine.complete` (what the `completion/complete`
  handler calls) with many prefixes of several lengths. Reported for the
  5-document target (requests spread over its documents) and for the worst
  case of all 100,000 procedures in one document, with exhaustive discovery
  (names take part) and with the default 5,000-address bound. A naive
  baseline (a linear NFKC-casefold scan over every candidate value, then a
  sort) runs on the same requests in the same run.
- Opening the default target (the interpreter and its libraries): median of
  several in-process runs, plus one cold run in a fresh process (LIEF import
  included).
"""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rea_tui.server.completion_engine import CompletionEngine, discover_procedures
from rea_tui.server.limits import MAX_COMPLETION_VALUES, MAX_VALUE_CHARS
from rea_tui.server.providers.synthetic import SyntheticSpec
from rea_tui.server.session_state import ServerOptions, Session
from rea_tui.server.target import Target, open_default, open_synthetic
from rea_tui.server.text_forms import fold

PROCEDURES = 100_000
REQUESTS = 400
PREFIX_LENGTHS = (0, 1, 2, 3, 5, 8, 13)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.3f} ms"


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def make_requests(target: Target, rng: random.Random) -> list[tuple[str, str]]:
    """(document, prefix) pairs: prefixes of names and addresses, of several lengths."""
    requests: list[tuple[str, str]] = []
    weights = [len(d.backend.inventory.records) for d in target.documents]
    for _ in range(REQUESTS):
        doc = rng.choices(target.documents, weights=weights)[0]
        record = rng.choice(doc.backend.inventory.records)
        source = rng.choice([*record.names, f"0x{record.address:x}"])
        length = rng.choice(PREFIX_LENGTHS)
        requests.append((doc.name, source[:length]))
    return requests


def time_requests(run: Callable[[str, str], object], requests: list[tuple[str, str]]) -> list[float]:
    samples: list[float] = []
    for document, prefix in requests:
        started = time.perf_counter()
        run(document, prefix)
        samples.append(time.perf_counter() - started)
    return samples


def naive_baseline(target: Target, session: Session) -> Callable[[str, str], object]:
    """Per request: fold every candidate value and keep the prefix matches, then sort."""
    provider = target.providers["auto"]
    candidates = {
        doc.name: [
            v
            for v in discover_procedures(
                provider, doc.name, session.options.discovery_limit, session.options.page_size
            ).offered()
            if len(v) <= MAX_VALUE_CHARS
        ]
        for doc in target.documents
    }

    def run(document: str, prefix: str) -> object:
        key = fold(prefix)
        matches = sorted({v for v in candidates[document] if fold(v).startswith(key)})
        return matches[:MAX_COMPLETION_VALUES], len(matches)

    return run


def bench_completion(documents: int, discovery_limit: int) -> None:
    started = time.perf_counter()
    target = open_synthetic(SyntheticSpec(PROCEDURES, 0, documents=documents))
    build = time.perf_counter() - started
    session = Session(ServerOptions(discovery_limit=discovery_limit))
    session.activate(target)
    engine = CompletionEngine(session)
    requests = make_requests(target, random.Random(7))

    def indexed(document: str, prefix: str) -> object:
        return engine.complete("procedure", prefix, {"document": document})

    cold: list[float] = []
    for doc in target.documents:  # first request per document builds its prefix index
        started = time.perf_counter()
        indexed(doc.name, "")
        cold.append(time.perf_counter() - started)
    samples = time_requests(indexed, requests)
    baseline = time_requests(naive_baseline(target, session), requests)
    largest = max(len(d.backend.inventory.records) for d in target.documents)
    median, base_median = statistics.median(samples), statistics.median(baseline)
    print(
        f"\n{PROCEDURES:,} synthetic procedures in {len(target.documents)} document(s) "
        f"(largest {largest:,}), discovery limit {discovery_limit:,}"
    )
    print(f"  target build                   {ms(build)}")
    print(f"  first request per document     {ms(max(cold))} (max; builds the prefix index)")
    print(f"  completion, {REQUESTS} requests     median {ms(median)}   p95 {ms(percentile(samples, 0.95))}")
    print(f"  naive linear NFKC scan         median {ms(base_median)}   p95 {ms(percentile(baseline, 0.95))}")
    print(f"  speed-up (median)              {base_median / median:8.1f}x")


def bench_default_target(runs: int = 7) -> None:
    open_default()  # warm LIEF import and the page cache
    samples: list[float] = []
    for _ in range(runs):
        started = time.perf_counter()
        target = open_default()
        samples.append(time.perf_counter() - started)
    procedures = sum(len(d.backend.inventory.records) for d in target.documents)
    code = (
        "import time; t = time.perf_counter(); "
        "from rea_tui.server.target import open_default; open_default(); "
        "print(time.perf_counter() - t)"
    )
    cold = float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    print(f"\ndefault target: {len(target.documents)} documents, {procedures:,} procedures")
    for doc in target.documents:
        print(f"  {doc.name:32} {len(doc.backend.inventory.records):6,} procedures")
    print(f"  open, median of {runs}              {ms(statistics.median(samples))}")
    print(f"  open in a fresh process        {ms(cold)} (includes importing LIEF)")


def main() -> None:
    print("rea-tui reference server benchmark")
    bench_completion(documents=5, discovery_limit=PROCEDURES)
    bench_completion(documents=1, discovery_limit=PROCEDURES)
    bench_completion(documents=1, discovery_limit=5000)
    bench_default_target()


if __name__ == "__main__":
    main()
