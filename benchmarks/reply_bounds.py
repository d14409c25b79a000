"""Peak memory of `rea-tui tools` against hostile HTTP replies, on both HTTP paths, next to plain httpx2.

Run from anywhere (the repository root is found from this file):

    python benchmarks/reply_bounds.py [--bomb-mib 1024] [--huge-mb 400] [--baseline-cap-mib 1536]

Each case is a loopback `tests.support.reply_bomb_server` answering `tools/list` with a gzip bomb,
a deflate bomb (BOMB inflated; about a thousandth of that on the wire), a plain JSON reply of HUGE
bytes and an event stream with one HUGE-byte event, all generated as they are sent. For each
case it prints the peak RSS (the kernel's figure for that one process, `os.wait4`) and the exit
code of `rea-tui tools --protocol legacy` on the fast path and on the SDK path
(`REA_TUI_FULL_PATH=1`) with the default reply size limit, against the bound the limit promises
(limit + 100 MB), and of the baseline: plain httpx2 (`Client.post(...).content`) reading the same
reply, run under an address-space cap (`RLIMIT_AS`) so a bomb cannot take the machine; a baseline
that hits the cap is shown as "> cap". Nothing is asserted; this is a report for people.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from rea_tui.host.transports.reply_limit import DEFAULT_MAX_REPLY_BYTES, MIB  # noqa: E402
from tests.conftest import start_http_server  # noqa: E402
from tests.support.peak_rss import Measured, run_measured  # noqa: E402

MB = 1000 * 1000
HEADROOM = 100 * MB  # what the brief allows besides the limit

# Plain httpx2 reading the reply, as a client without a bound would: the whole body in memory.
BASELINE = """
import sys, httpx2
url = sys.argv[1]
accept = {"accept": "application/json, text/event-stream"}
def rpc(method, **extra):
    return {"jsonrpc": "2.0", "method": method, **extra}
with httpx2.Client(timeout=600) as client:
    client.post(url, json=rpc("initialize", id=1, params={"protocolVersion": "2025-11-25",
        "capabilities": {}, "clientInfo": {"name": "baseline", "version": "0"}}), headers=accept)
    client.post(url, json=rpc("notifications/initialized"), headers=accept)
    print(len(client.post(url, json=rpc("tools/list", id=2), headers=accept).content))
"""


def baseline(url: str, cap: int) -> Measured | None:
    """Plain httpx2 under the cap; None when the cap stopped it (a MemoryError exits non-zero)."""
    command = [sys.executable, "-c", BASELINE, url]
    # run_measured has no preexec hook: a wrapper process sets the cap and execs the baseline.
    wrapper = [
        sys.executable,
        "-c",
        "import os, resource, sys; resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]),) * 2); "
        "os.execv(sys.argv[2], sys.argv[2:])",
        str(cap),
        *command,
    ]
    run = run_measured(wrapper, cwd=REPO, timeout=900)
    return None if run.code != 0 else run


def rea(url: str, full: bool) -> Measured:
    script = Path(sys.executable).with_name("rea-tui")
    env = {**os.environ, "REA_TUI_FULL_PATH": "1" if full else "0"}
    return run_measured([str(script), "tools", "--url", url, "--protocol", "legacy"], env=env, cwd=REPO, timeout=900)


def mb(size: int) -> str:
    return f"{size / MB:8.0f} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bomb-mib", type=int, default=1024, help="what a bomb inflates to (MiB)")
    parser.add_argument("--huge-mb", type=int, default=400, help="the plain reply and the one event (MB)")
    parser.add_argument("--baseline-cap-mib", type=int, default=1536, help="address-space cap of the baseline")
    options = parser.parse_args()
    cases = [
        ("gzip bomb", "gzip", options.bomb_mib * MIB),
        ("deflate bomb", "deflate", options.bomb_mib * MIB),
        ("plain JSON", "plain", options.huge_mb * MB),
        ("one SSE event", "sse-event", options.huge_mb * MB),
    ]
    cap = options.baseline_cap_mib * MIB
    bound = DEFAULT_MAX_REPLY_BYTES + HEADROOM
    print(f"reply size limit {DEFAULT_MAX_REPLY_BYTES // MIB} MiB; bound (limit + 100 MB) {bound / MB:.0f} MB")
    print(f"{'case':<15}{'reply':>12}  {'path':<9}{'peak RSS':>12}  {'exit':>4}  {'seconds':>7}  vs bound")
    for name, mode, size in cases:
        process, url = start_http_server(
            ["-m", "tests.support.reply_bomb_server", mode, "--size", str(size)], r"listening on (http://\S+)"
        )
        try:
            runs = {}
            for path, full in (("fast", False), ("sdk", True)):
                run = runs[path] = rea(url, full)
                verdict = "within" if run.peak_rss < bound else "OVER"
                figures = f"{mb(run.peak_rss):>12}  {run.code:>4}  {run.seconds:7.1f}"
                print(f"{name:<15}{mb(size):>12}  {path:<9}{figures}  {verdict}")
            base = baseline(url, cap)
            if base is None:
                print(f"{name:<15}{mb(size):>12}  {'httpx2':<9}{'> ' + mb(cap).strip():>12}  (hit the cap)")
            else:
                ratio = base.peak_rss / max(runs["sdk"].peak_rss, 1)
                print(
                    f"{name:<15}{mb(size):>12}  {'httpx2':<9}{mb(base.peak_rss):>12}  {base.code:>4}  "
                    f"{base.seconds:7.1f}  unbounded ({ratio:.1f}x the SDK path)"
                )
        finally:
            process.kill()
            process.wait(timeout=10)


if __name__ == "__main__":
    main()
