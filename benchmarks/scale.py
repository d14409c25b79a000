"""rea-tui at scale: many servers, long lists, long sessions, big transcripts. Time and peak memory of each.

Run from anywhere (the repository root is found from this file):

    python benchmarks/scale.py [--runs 3] [--servers 20] [--baseline DIR] [--only NAME ...]

Each measurement runs in a process of its own (so its peak memory, VmHWM
from /proc, is its own), `--runs` times, alternating with the others and
with `--baseline DIR` (rea-tui from another source tree, for the command
line and terminal measurements); figures are medians. Every process gets its
own XDG folders. What is measured:

- servers-cli:  `rea-tui servers --config` with N bundled servers, wall time to exit.
- servers-tui:  the app (headless, 160x48) on the same N servers: start to every server ready and
                listed in the sidebar.
- large-list:   the app on `large_server.py` (5,000 tools, 2,000 prompts, pages of 500): start to the
                sidebar filled; then the sidebar filter: ctrl+f, typing `tool_0421` one key at a time
                (each key to the tree refiltered and repainted), and Escape (everything back). The
                longest event-loop stall in each phase is beside it (the issue: no frame over 50 ms).
- ledger:       the app given a ledger of 1,000 finished calls at once (as a replay restores one): time
                until the pane lists them all and shows the last; the longest stall; then one more call
                (listed and shown) with 1,000 before it.
- export-1000:  `rea-tui export` of a transcript of 1,000 calls (each a 1 KB result), to Markdown.
- export-100mb: `rea-tui export` of a 100 MB transcript (1,000 calls of 100 KB each).
- replay-100mb: `rea-tui replay --offline` of that transcript in a pseudo-terminal: start to the first
                screen with the recorded evidence on it.

Nothing is asserted; it prints figures, the issue's targets and the machine load.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pty_run import pty_env, run_in_pty
from timing import REPO, isolated_xdg, load_average, rea_tui_command, verdict

SIZE = (160, 48)
LARGE_TOOLS = 5000
LARGE_PROMPTS = 2000
FILTER_TEXT = "tool_0421"
LEDGER_CALLS = 1000
SMALL_RESULT_BYTES = 1024
BIG_TRANSCRIPT_CALLS = 1000
BIG_RESULT_BYTES = 100 * 1024  # 1,000 of these make the 100 MB transcript
STALL_TICK_SECONDS = 0.001
WAIT_TIMEOUT_SECONDS = 120.0
POLL_SECONDS = 0.005

# The targets (seconds, or milliseconds for a frame).
TARGETS: dict[str, tuple[str, float]] = {
    "servers-cli": ("wall_s", 6.0),
    "servers-tui": ("ready_s", 6.0),
    "export-1000": ("wall_s", 5.0),
    "export-100mb": ("wall_s", 10.0),
    "replay-100mb": ("first_screen_s", 3.0),
}
FRAME_LIMIT_MS = 50.0


# ------------------------------------------------------------------ in the measured process


def peak_rss_mb() -> float:
    """This process's peak resident memory (VmHWM), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class StallWatch:
    """The longest the event loop went without running a 1 ms ticker: an upper bound on one frame's work."""

    def __init__(self) -> None:
        self.longest_ms = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _tick(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(STALL_TICK_SECONDS)
            now = time.perf_counter()
            self.longest_ms = max(self.longest_ms, (now - last - STALL_TICK_SECONDS) * 1000.0)
            last = now

    def reset(self) -> None:
        self.longest_ms = 0.0

    def __enter__(self) -> StallWatch:
        self._task = asyncio.get_running_loop().create_task(self._tick())
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._task is not None:
            self._task.cancel()


async def wait_until(pilot: Any, condition: Callable[[], object], what: str) -> None:
    deadline = time.perf_counter() + WAIT_TIMEOUT_SECONDS
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        await pilot.pause(POLL_SECONDS)


def bundled_specs(count: int) -> list[Any]:
    from rea_tui.host import bundled_server_spec

    base = bundled_server_spec()
    return [type(base)(**{**base.__dict__, "name": f"rea-{n:02d}"}) for n in range(1, count + 1)]


def write_config(path: Path, count: int) -> None:
    servers = {
        f"rea-{n:02d}": {"command": sys.executable, "args": ["-m", "rea_tui.server"]} for n in range(1, count + 1)
    }
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")


def make_app(specs: list[Any], *, started: dict[str, Any] | None = None) -> Any:
    from rea_tui.host import Session
    from rea_tui.ui.app import create_app
    from rea_tui.ui.settings import AppSettings

    return create_app(Session(specs, timeout=60.0, started=started), settings=AppSettings())


async def servers_tui(count: int) -> dict[str, float]:
    from rea_tui.host import start_servers
    from rea_tui.ui.widgets.sidebar import ServerTree

    specs = bundled_specs(count)
    started = time.perf_counter()
    app = make_app(specs, started=start_servers(specs))
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(ServerTree)

        def all_listed() -> bool:
            states = [app.session.state(s.name).status for s in specs]
            if any(s in ("failed", "exited") for s in states):
                raise SystemExit(f"a server failed: {states}")
            return all(s == "ready" for s in states) and all(
                (node := tree.server_node(s.name)) is not None and node.children for s in specs
            )

        with StallWatch() as stalls:
            await wait_until(pilot, all_listed, "every server ready")
            ready = time.perf_counter() - started
        await app.action_quit()
    return {"ready_s": ready, "longest_stall_ms": stalls.longest_ms}


async def large_list(tools: int, prompts: int) -> dict[str, float]:
    from rea_tui.host import ServerSpec
    from rea_tui.ui.widgets.sidebar import ServerTree
    from rea_tui.ui.widgets.sidebar_filter import SidebarFilter

    spec = ServerSpec(
        name="large",
        transport="stdio",
        command=sys.executable,
        args=(str(REPO / "benchmarks" / "large_server.py"), "--tools", str(tools), "--prompts", str(prompts)),
        protocol="legacy",
    )
    started = time.perf_counter()
    app = make_app([spec])
    figures: dict[str, float] = {}
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(ServerTree)

        def sections() -> list[str]:
            node = tree.server_node("large")
            return [str(child.label) for child in node.children] if node is not None else []

        with StallWatch() as stalls:
            await wait_until(pilot, lambda: f"Tools ({tools})" in sections(), "the lists in the sidebar")
            await pilot.pause()
            figures["list_load_s"] = time.perf_counter() - started
            figures["list_load_longest_stall_ms"] = stalls.longest_ms
            stalls.reset()
            await pilot.press("ctrl+f")
            field = app.query_one(SidebarFilter)
            keys: list[float] = []
            for index, key in enumerate(FILTER_TEXT):
                begun = time.perf_counter()
                await pilot.press(key)
                await wait_until(pilot, lambda i=index: tree.filter_text == FILTER_TEXT[: i + 1], "the filter")
                await pilot.pause()  # the repaint
                keys.append((time.perf_counter() - begun) * 1000.0)
            assert field.value == FILTER_TEXT
            figures["filter_key_p50_ms"] = statistics.median(keys)
            figures["filter_key_max_ms"] = max(keys)
            figures["filter_first_key_ms"] = keys[0]
            figures["filter_longest_stall_ms"] = stalls.longest_ms
            stalls.reset()
            begun = time.perf_counter()
            await pilot.press("escape")
            await wait_until(pilot, lambda: f"Tools ({tools})" in sections(), "every entry again")
            await pilot.pause()
            figures["filter_clear_ms"] = (time.perf_counter() - begun) * 1000.0
            figures["filter_clear_longest_stall_ms"] = stalls.longest_ms
        await app.action_quit()
    return figures


def finished_entry(ledger: Any, number: int, text_bytes: int) -> Any:
    from rea_tui.host import TextBlock

    entry = ledger.open("rea", "inspect_procedure", {"procedure": f"proc_{number:05d}"}, "interactive yes")
    entry.outcome = "ok"
    entry.duration_ms = 12.0
    body = f"result {number}: " + "x" * text_bytes
    entry.content = [TextBlock(body[:text_bytes])]
    entry.result_size = text_bytes
    ledger.changed(entry)
    return entry


async def ledger_render(calls: int) -> dict[str, float]:
    from rea_tui.ui.widgets.entry_list import EntryList
    from rea_tui.ui.widgets.evidence_pane import EvidenceDetail

    app = make_app([])
    figures: dict[str, float] = {}
    async with app.run_test(size=SIZE) as pilot:
        ledger = app.session.ledger
        entries = app.query_one(EntryList)
        detail = app.query_one(EvidenceDetail)
        with StallWatch() as stalls:
            begun = time.perf_counter()
            # All at once, as a replay restores a session's ledger.
            for number in range(1, calls + 1):
                finished_entry(ledger, number, SMALL_RESULT_BYTES)
            last = ledger.entries[-1]
            await wait_until(pilot, lambda: entries.entry_count == calls and detail.entry is last, "every entry listed")
            await pilot.pause()
            figures["ledger_render_s"] = time.perf_counter() - begun
            figures["ledger_longest_stall_ms"] = stalls.longest_ms
            stalls.reset()
            begun = time.perf_counter()
            newest = finished_entry(ledger, calls + 1, SMALL_RESULT_BYTES)
            await wait_until(
                pilot, lambda: entries.entry_count == calls + 1 and detail.entry is newest, "one more entry"
            )
            await pilot.pause()
            figures["one_more_call_ms"] = (time.perf_counter() - begun) * 1000.0
            figures["one_more_longest_stall_ms"] = stalls.longest_ms
        await app.action_quit()
    return figures


def run_cli(argv: list[str]) -> dict[str, float]:
    from rea_tui.cli import run

    sink = io.StringIO()
    with contextlib.redirect_stdout(sink):
        code = run(argv)
    if code != 0:
        raise SystemExit(f"rea-tui {' '.join(argv)} exited with {code}")
    return {"output_mb": len(sink.getvalue()) / 1e6}


def scenario(name: str, args: list[str]) -> dict[str, float]:
    if name == "servers-tui":
        figures = asyncio.run(servers_tui(int(args[0])))
    elif name == "large-list":
        figures = asyncio.run(large_list(int(args[0]), int(args[1])))
    elif name == "ledger":
        figures = asyncio.run(ledger_render(int(args[0])))
    elif name == "cli":
        figures = run_cli(args)
    else:
        raise SystemExit(f"no scenario {name}")
    figures["peak_rss_mb"] = peak_rss_mb()
    return figures


# ------------------------------------------------------------------ transcripts to export and replay


def write_transcript(path: Path, calls: int, text_bytes: int) -> None:
    """A recorded session: a server, a rendered workflow, then `calls` tool calls, through the host's recorder."""
    from rea_tui.host import EvidenceLedger, SessionRecorder, TranscriptWriter

    recorder = SessionRecorder(TranscriptWriter(path))
    recorder.writer.write(
        "server",
        name="rea",
        transport="stdio",
        target=f"{sys.executable} -m rea_tui.server",
        bundled=True,
        protocolVersion="2026-07-28",
        serverInfo={"name": "rea-reference-server", "version": "0.1.0"},
        capabilities=["completions", "prompts", "resources", "tools"],
    )
    ledger = EvidenceLedger()
    ledger.subscribe(lambda entry: recorder.tool_call(entry) if entry.finished else None)
    for number in range(1, calls + 1):
        finished_entry(ledger, number, text_bytes)
    recorder.close()


# ------------------------------------------------------------------ the parent: runs, medians, report


@dataclass
class Measured:
    name: str
    argv: list[str]
    env: dict[str, str]
    cwd: Path = REPO
    pty_markers: list[str] = field(default_factory=list)
    runs: list[dict[str, float]] = field(default_factory=list)
    failure: str = ""

    def run_once(self, scratch: Path) -> None:
        if self.pty_markers:
            self._run_pty(scratch)
            return
        result = scratch / f"{self.name}-result.json"
        result.unlink(missing_ok=True)
        begun = time.perf_counter()
        # The result file is named before --scenario, which takes the rest of the command line.
        done = subprocess.run(
            [*self.argv[:2], "--result", str(result), *self.argv[2:]],
            cwd=self.cwd,
            env={**os.environ, **self.env},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=WAIT_TIMEOUT_SECONDS * 2,
        )
        wall = time.perf_counter() - begun
        if done.returncode != 0 or not result.is_file():
            self.failure = done.stderr.decode(errors="replace")[-1500:]
            return
        figures = json.loads(result.read_text())
        figures["wall_s"] = wall
        self.runs.append(figures)

    def _run_pty(self, scratch: Path) -> None:
        seen = run_in_pty(self.argv, pty_env(scratch / self.name, self.env), self.pty_markers, cwd=self.cwd)
        if seen.tail:
            self.failure = f"never showed {self.pty_markers}: {seen.tail}"
            return
        self.runs.append({"first_screen_s": max(seen.seen.values()), "peak_rss_mb": seen.peak_rss_kb / 1024})

    def median(self, key: str) -> float:
        values = [r[key] for r in self.runs if key in r]
        return statistics.median(values) if values else float("nan")

    def figure_names(self) -> list[str]:
        return list(self.runs[0]) if self.runs else []


def this_script(*args: str) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "--scenario", *args]


def measurements(scratch: Path, servers: int, baseline: Path | None) -> list[Measured]:
    config = scratch / "servers.json"
    write_config(config, servers)
    small, big = scratch / "calls-1000.jsonl", scratch / "calls-100mb.jsonl"
    write_transcript(small, LEDGER_CALLS, SMALL_RESULT_BYTES)
    write_transcript(big, BIG_TRANSCRIPT_CALLS, BIG_RESULT_BYTES)
    xdg = isolated_xdg(scratch / "xdg")
    cli = ["servers", "--config", str(config), "--json"]
    found = [
        Measured("servers-cli", this_script("cli", *cli), xdg),
        Measured("servers-tui", this_script("servers-tui", str(servers)), xdg),
        Measured("large-list", this_script("large-list", str(LARGE_TOOLS), str(LARGE_PROMPTS)), xdg),
        Measured("ledger", this_script("ledger", str(LEDGER_CALLS)), xdg),
        Measured("export-1000", this_script("cli", "export", str(small)), xdg),
        Measured("export-100mb", this_script("cli", "export", str(big)), xdg),
        Measured("replay-100mb", [*rea_tui_command(), "replay", "--offline", str(big)], {}, pty_markers=["E1000"]),
    ]
    if baseline is not None:
        tree = baseline.resolve()
        env = {**xdg, "PYTHONPATH": str(tree)}
        rea = [sys.executable, "-m", "rea_tui"]
        found += [
            Measured("servers-cli (baseline)", this_script("cli", *cli), env, tree),
            Measured("export-1000 (baseline)", this_script("cli", "export", str(small)), env, tree),
            Measured("export-100mb (baseline)", this_script("cli", "export", str(big)), env, tree),
            Measured(
                "replay-100mb (baseline)",
                [*rea, "replay", "--offline", str(big)],
                {"PYTHONPATH": str(tree)},
                tree,
                pty_markers=["E1000"],
            ),
        ]
    return found


def report(found: list[Measured], runs: int, loads: tuple[str, str], transcript_mb: float) -> None:
    print(f"rea-tui at scale, medians of {runs} alternating runs, each in its own process")
    print(f"{loads[0]} at the start, {loads[1]} at the end; the big transcript is {transcript_mb:.0f} MB")
    for measured in found:
        print()
        if measured.failure and not measured.runs:
            print(f"{measured.name}: FAILED\n  {measured.failure}")
            continue
        target = TARGETS.get(measured.name.removesuffix(" (baseline)"))
        print(f"{measured.name}:")
        for key in measured.figure_names():
            value = measured.median(key)
            line = f"  {key:<32} {value:10.3f}"
            if target is not None and key == target[0]:
                line += f"   target <= {target[1]:g} s  {verdict(value <= target[1])}"
            if key.endswith("stall_ms"):
                line += f"   frame limit {FRAME_LIMIT_MS:g} ms  {verdict(value <= FRAME_LIMIT_MS)}"
            print(line)
        if measured.failure:
            print(f"  (a run failed: {measured.failure})")
    by_name = {m.name: m for m in found}
    ratios = []
    for name, measured in by_name.items():
        base = by_name.get(f"{name} (baseline)")
        if base is not None and measured.runs and base.runs:
            key = TARGETS[name][0]
            ratios.append(
                f"  {name}: {measured.median(key):.3f} s vs {base.median(key):.3f} s, "
                f"ratio {measured.median(key) / base.median(key):.2f}"
            )
    if ratios:
        print("\nagainst the baseline tree:")
        print("\n".join(ratios))


@contextlib.contextmanager
def scratch_folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="rea-scale-") as folder:
        yield Path(folder)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="runs per measurement (default 3)")
    parser.add_argument("--servers", type=int, default=20, help="bundled servers in the config (default 20)")
    parser.add_argument("--baseline", type=Path, help="also run the command-line measurements from this tree")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="only these measurements")
    parser.add_argument("--scenario", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    parser.add_argument("--result", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.scenario:
        name, *rest = args.scenario
        figures = scenario(name, rest)
        assert args.result is not None
        args.result.write_text(json.dumps(figures))
        return 0
    with scratch_folder() as scratch:
        found = measurements(scratch, args.servers, args.baseline)
        if args.only:
            found = [m for m in found if m.name.removesuffix(" (baseline)") in args.only]
        transcript_mb = (scratch / "calls-100mb.jsonl").stat().st_size / 1e6
        start_load = load_average()
        for round_number in range(max(1, args.runs)):
            shift = round_number % len(found)
            for measured in [*found[shift:], *found[:shift]]:
                measured.run_once(scratch)
        report(found, args.runs, (start_load, load_average()), transcript_mb)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
