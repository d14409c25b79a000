"""How soon bundled servers started together answer `prompts/list`, as a host sees it over stdio.

Run from anywhere (the repository root is found from this file):

    python benchmarks/server_lists.py [--runs 3] [--servers 1 20] [--protocol legacy|2026-07-28]
                                      [--after-reply] [--baseline DIR] [-- SERVER ARGS...]

Each round spawns N reference servers at once (`python -m rea_tui.server`,
the default target unless server arguments follow `--`), the way the host
starts stdio servers: each in a process group of its own, at nice +5. A raw
JSON-RPC client writes each one its opening request (`initialize` and
`notifications/initialized`, or `server/discover` at 2026-07-28) and
`prompts/list` right after the spawn (with `--after-reply`, `prompts/list`
once the opening's reply has arrived, as an SDK client sends it), and notes
when each `prompts/list` reply arrives. Printed per N: the time from the first spawn to the first,
the median and the last reply, as medians over the rounds. `--baseline DIR`
also runs the servers of another source tree (e.g. `git archive main | tar
-x -C DIR`), alternating rounds with this one. Every server is stopped once
it has answered, so the rounds do not overlap. Nothing is asserted; this is
a report for people.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from queue import Empty, SimpleQueue
from typing import IO, Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import REPO, load_average

REPLY_TIMEOUT_SECONDS = 120.0
STOP_TIMEOUT_SECONDS = 10.0
HOST_NICENESS = 5
"""What the host gives a stdio server it starts (`rea_tui.host.transports.transport`)."""
MODERN = "2026-07-28"
CLIENT_INFO = {"name": "bench", "version": "0"}
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
    "io.modelcontextprotocol/clientCapabilities": {},
}
LIST_ID = "prompts"


def conversation(protocol: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """What the client writes: the opening, then `notifications/initialized` (legacy) and `prompts/list`."""
    if protocol == MODERN:
        return (
            [{"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {"_meta": MODERN_META}}],
            [{"jsonrpc": "2.0", "id": LIST_ID, "method": "prompts/list", "params": {"_meta": MODERN_META}}],
        )
    return (
        [
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": CLIENT_INFO},
            }
        ],
        [
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": LIST_ID, "method": "prompts/list"},
        ],
    )


class Spawned:
    """One server, its stdout read by a thread that timestamps each line."""

    def __init__(self, tree: Path, server_args: list[str], after_reply: list[dict[str, Any]] | None = None) -> None:
        """`after_reply`: messages written once the opening request's reply has arrived."""
        self._after_reply = after_reply
        self.spawned = time.perf_counter()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "rea_tui.server", *server_args],
            cwd=tree,
            env={**os.environ, "PYTHONPATH": str(tree)},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            process_group=0,
        )
        with contextlib.suppress(OSError):  # a process already gone
            os.setpriority(os.PRIO_PROCESS, self.process.pid, HOST_NICENESS)
        assert self.process.stdin is not None and self.process.stdout is not None
        self._in: IO[bytes] = self.process.stdin
        self._lines: SimpleQueue[tuple[float, bytes]] = SimpleQueue()
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    def _read(self, stdout: IO[bytes]) -> None:
        for line in iter(stdout.readline, b""):
            self._lines.put((time.perf_counter(), line))
            if self._after_reply is not None and json.loads(line).get("id") == 0:
                self.write(self._after_reply)
                self._after_reply = None

    def write(self, messages: list[dict[str, Any]]) -> None:
        self._in.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
        self._in.flush()

    def listed_at(self) -> float:
        """When the reply to `prompts/list` arrived."""
        deadline = time.perf_counter() + REPLY_TIMEOUT_SECONDS
        while True:
            try:
                arrived, line = self._lines.get(timeout=max(0.0, deadline - time.perf_counter()))
            except Empty:
                raise TimeoutError("no prompts/list reply") from None
            message = json.loads(line)
            if message.get("id") == LIST_ID and "method" not in message:
                if "result" not in message:
                    raise RuntimeError(f"prompts/list failed: {message}")
                return arrived

    def stop(self) -> None:
        self._in.close()
        try:
            self.process.wait(timeout=STOP_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@dataclass
class Figures:
    """Per round: seconds from the first spawn to the first, median and last `prompts/list` reply."""

    label: str
    tree: Path
    count: int
    first: list[float] = field(default_factory=list)
    median: list[float] = field(default_factory=list)
    last: list[float] = field(default_factory=list)

    def run_once(self, protocol: str, server_args: list[str], after_reply: bool) -> None:
        servers = []
        first, then = conversation(protocol)
        for _ in range(self.count):
            server = Spawned(self.tree, server_args, then if after_reply else None)
            server.write(first if after_reply else first + then)
            servers.append(server)
        try:
            started = servers[0].spawned
            answered = sorted(server.listed_at() - started for server in servers)
        finally:
            for server in servers:
                server.stop()
        self.first.append(answered[0])
        self.median.append(statistics.median(answered))
        self.last.append(answered[-1])


def seconds(samples: list[float]) -> str:
    return f"{statistics.median(samples):6.2f} s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="rounds per measurement (default 3)")
    parser.add_argument("--servers", type=int, nargs="+", default=[1, 20], help="servers per round (default 1 20)")
    parser.add_argument("--protocol", choices=["legacy", MODERN], default="legacy", help="opening (default legacy)")
    parser.add_argument(
        "--after-reply",
        action="store_true",
        help="write prompts/list once the opening's reply has arrived, as an SDK client does (default: at spawn)",
    )
    parser.add_argument("--baseline", type=Path, help="also run the servers of this source tree")
    parser.add_argument("server_args", nargs="*", help="arguments for each server, after --")
    args = parser.parse_args(argv)
    trees = [("this tree", REPO)]
    if args.baseline is not None:
        trees.append(("baseline", args.baseline.resolve()))
    measured = [Figures(label, tree, count) for count in args.servers for label, tree in trees]
    # One uncounted round per tree warms the file cache and __pycache__.
    for _label, tree in trees:
        Figures("warm-up", tree, 1).run_once(args.protocol, args.server_args, args.after_reply)
    before = load_average()
    for round_number in range(args.runs):
        shift = round_number % len(measured)
        for figures in [*measured[shift:], *measured[:shift]]:
            figures.run_once(args.protocol, args.server_args, args.after_reply)
    when = "after the opening's reply" if args.after_reply else "at spawn"
    print(f"prompts/list after spawn ({args.protocol}, written {when}), medians of {args.runs} rounds; {before}")
    print(f"  {'servers':>7}  {'tree':<10} {'first':>8} {'median':>8} {'last':>8}")
    for figures in measured:
        print(
            f"  {figures.count:>7}  {figures.label:<10} {seconds(figures.first)} {seconds(figures.median)} "
            f"{seconds(figures.last)}"
        )
    print(f"  then {load_average()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
