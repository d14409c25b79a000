"""A warm session (`rea-tui session start`) against one-shot commands, on the bundled server.

Run from anywhere (the repository root is found from this file):

    python benchmarks/warm_session.py [--runs 20] [--inspector]

What is timed, as wall time from process start to exit (the output read in full):

- warm `call`: `rea-tui call doctor --yes --json` with REA_TUI_SESSION set (median of --runs)
- a 20-command script: `rea-tui run FILE` of 20 calls, through the warm session, after it is up
- cold `call`: the same `rea-tui call` one-shot, which starts the bundled server (median of a few runs;
  its protocol memory warmed by an uncounted run, as a user's is)
- the same warm call's round trip alone, sent by this process (`session_client.exchange`, no process start),
  and `python -c pass` (the interpreter's own start, under the same load): what a warm call costs beyond
  starting Python
- with `--inspector`: the MCP Inspector CLI's `prompts/list` on server-everything over stdio, as
  benchmarks/vs_inspector.py runs it (installing it with npm the first time)

The warm and cold runs alternate. Nothing is asserted; it prints figures, ratios and the issue's goals
(a warm call's median <= 50 ms, the script <= 1 s).
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import REPO, Timed, alternate, isolated_xdg, load_average, ratio, rea_tui_command, verdict

WARM_GOAL_SECONDS = 0.050
SCRIPT_GOAL_SECONDS = 1.0
SCRIPT_COMMANDS = 20
# One-shot runs start the bundled server each time (seconds each): fewer of them.
COLD_RUNS = 5
CALL = ["call", "doctor", "--yes", "--json"]


def start_session(env: dict[str, str]) -> str:
    started = subprocess.run(
        [*rea_tui_command(), "session", "start"], env=env, cwd=REPO, capture_output=True, text=True, check=True
    )
    assignment = started.stdout.split(";")[0]
    return shlex.split(assignment.split("=", 1)[1])[0]


def write_script(folder: Path) -> Path:
    """20 commands of a feature trace, as an analyst would script them."""
    lines = ["# a feature trace on the default target"]
    trace = [
        "call search_strings query='unknown encoding' --yes",
        "call find_references string='unknown encoding' --yes",
        "call list_documents --yes",
        "call doctor --yes",
        "tools",
    ]
    while len(lines) - 1 < SCRIPT_COMMANDS:
        lines.append(trace[(len(lines) - 1) % len(trace)])
    script = folder / "trace.rea"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return script


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--inspector", action="store_true", help="also time the Inspector CLI's prompts/list")
    args = parser.parse_args(argv)
    rea = rea_tui_command()
    with tempfile.TemporaryDirectory(prefix="rt-", dir="/tmp") as scratch_name:
        scratch = Path(scratch_name)
        runtime = scratch / "run"
        runtime.mkdir(mode=0o700)
        env = {**os.environ, **isolated_xdg(scratch / "xdg"), "XDG_RUNTIME_DIR": str(runtime)}
        env.pop("REA_TUI_SESSION", None)
        load_before = load_average()
        up_started = time.perf_counter()
        session = start_session(env)
        up_seconds = time.perf_counter() - up_started
        warm_env = {**env, "REA_TUI_SESSION": session}
        try:
            warm = Timed("warm call", [*rea, *CALL], warm_env)
            cold = Timed("cold call (one-shot)", [*rea, *CALL], env)
            script = Timed(f"{SCRIPT_COMMANDS}-command script", [*rea, "run", str(write_script(scratch))], warm_env)
            # The target is read in the background after the server starts: wait for it, uncounted.
            warm.run_once()
            script.run_once()
            cold.run_once()
            for round_number in range(args.runs):
                warm.samples.append(warm.run_once())
                if round_number < COLD_RUNS:
                    cold.samples.append(cold.run_once())
            alternate([script], min(args.runs, 5), warm_up=False)
            round_trips = round_trip_samples(session, args.runs)
            interpreter = Timed("python -c pass", [sys.executable, "-c", "pass"], env)
            alternate([interpreter], args.runs)
        finally:
            subprocess.run([*rea, "session", "stop"], env=warm_env, capture_output=True, check=False)
        inspector: Timed | None = None
        if args.inspector:
            inspector = inspector_prompts_list(scratch)
            alternate([inspector], min(args.runs, 5))
        load_after = load_average()
    print(f"{load_before} before, {load_after} after")
    print(f"session start (bundled server connected): {up_seconds:.2f} s")
    print(f"{'warm call, round trip alone':34} median {statistics.median(round_trips) * 1000:8.1f} ms")
    for timed in (interpreter, warm, script, cold, inspector):
        if timed is not None:
            print(
                f"{timed.label:34} median {timed.median * 1000:8.1f} ms  "
                f"(min {timed.low * 1000:.1f}, max {timed.high * 1000:.1f}, n={len(timed.samples)})"
            )
    print(f"cold / warm call: {ratio(cold.median, warm.median)}x")
    print(f"goal warm call <= {WARM_GOAL_SECONDS * 1000:.0f} ms: {verdict(warm.median <= WARM_GOAL_SECONDS)}")
    print(f"goal {SCRIPT_COMMANDS}-command script <= {SCRIPT_GOAL_SECONDS:g} s: {verdict(script.median <= 1.0)}")
    if inspector is not None:
        print(f"warm call / Inspector prompts/list: {ratio(warm.median, inspector.median)}")
        print(f"goal warm call <= a tenth of it: {verdict(warm.median <= inspector.median / 10)}")
    return 0


def round_trip_samples(session: str, runs: int) -> list[float]:
    """The warm call sent from this process: the session's part of a warm call, without starting a process."""
    import io

    from rea_tui.cli import session_wire as wire
    from rea_tui.cli.session_client import exchange

    samples = []
    for _ in range(runs):
        request = wire.encode("run", argv=CALL, cwd=str(REPO), stdin_tty=False)
        started = time.perf_counter()
        code = exchange(session, request, io.StringIO(), io.StringIO())
        samples.append(time.perf_counter() - started)
        if code != 0:
            raise SystemExit(f"the warm call failed in the session (exit code {code})")
    return samples


def inspector_prompts_list(scratch: Path) -> Timed:
    import vs_inspector

    folder = vs_inspector.install()
    node = str(folder / vs_inspector.NODE_ENTRY)
    everything = str(folder / vs_inspector.EVERYTHING_ENTRY)
    (scratch / "inspector-home").mkdir(exist_ok=True)
    inspector_env = {"HOME": str(scratch / "inspector-home"), "MCP_CATALOG_PATH": str(scratch / "catalog.json")}
    command = [node, str(folder / vs_inspector.INSPECTOR_ENTRY), "--cli", node, everything, "stdio"]
    return Timed(
        "Inspector prompts/list (stdio)", [*command, *vs_inspector.inspector_args("prompts/list")], inspector_env
    )


if __name__ == "__main__":
    raise SystemExit(main())
