"""The lean HTTP client against the full path: the same stdout, stderr and exit code, on real servers.

Each command runs twice, once as users get it and once with `REA_TUI_FULL_PATH=1`; durations
are the only thing allowed to differ. `--protocol legacy` (or a warmed protocol memory) is what
lets a command take the lean path; a trace (`--trace`) shows which path ran.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator

import pytest

from tests.cli import Run, rea
from tests.conftest import start_http_server
from tests.support.everything_http import everything_url

FULL = {"REA_TUI_FULL_PATH": "1"}
DURATIONS = re.compile(r'("durationMs": )[0-9.]+|\(\d+(\.\d+)? (ms|s)\)')


def same(*args: str, timeout: float = 60) -> Run:
    """Run both paths; assert they print the same, up to durations; return the lean run."""
    lean = rea(*args, timeout=timeout)
    full = rea(*args, env=FULL, timeout=timeout)
    assert lean.code == full.code, (args, lean.err, full.err)
    assert DURATIONS.sub("<t>", lean.out) == DURATIONS.sub("<t>", full.out), args
    assert DURATIONS.sub("<t>", lean.err) == DURATIONS.sub("<t>", full.err), args
    return lean


@pytest.fixture(scope="module")
def everything() -> Iterator[str]:
    with everything_url("streamableHttp") as url:
        yield url


def bridge(mode: str, *command: str) -> Iterator[str]:
    process, url = start_http_server(
        ["-m", "tests.support.http_bridge", mode, "--", *command], r"listening on (http://\S+)"
    )
    try:
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


SAMPLE = (sys.executable, "-m", "tests.support.sample_server")


def test_server_everything_lists_and_calls_the_same(everything: str) -> None:
    server = ("--url", everything, "--protocol", "legacy")
    for args in (
        ("prompts", "--json"),
        ("prompts",),
        ("tools", "--json"),
        ("tools",),
        ("call", "get-sum", "a=1", "b=2", "--yes", "--json"),
        ("call", "get-sum", "a=1", "b=2", "--yes"),
        ("call", "no-such-tool", "--yes", "--json"),  # the server's error reply
        ("call", "get-sum", "a=one", "--yes"),  # refused before sending
        ("call", "trigger-elicitation-request", "--yes", "--json"),  # a request during the call, declined
    ):
        same(*args, *server)


def test_a_remembered_legacy_server_takes_the_lean_path_and_pagination_matches(sample_http_url: str) -> None:
    # The first run probes (full path) and remembers; the second is lean. The sample server pages its lists.
    first = rea("tools", "--json", "--url", sample_http_url, "--trace")
    assert "server/discover" in first.err or "initialize" in first.err
    for args in (("tools", "--json"), ("prompts", "--json"), ("prompts",)):
        same(*args, "--url", sample_http_url, "--protocol", "legacy")


def test_the_bundled_server_over_http_answers_the_same() -> None:
    process, url = start_http_server(["-m", "rea_tui.server", "--http", "127.0.0.1:0"], r"listening on (http://\S+)")
    try:
        server = ("--url", url, "--protocol", "legacy")
        # Its prompts say whether the target is still opening, which changes while the test runs.
        same("tools", "--json", *server)
        same("tools", *server)
        same("call", "no-such-tool", "--yes", *server)
    finally:
        process.terminate()
        process.wait(timeout=10)


def same_on_fresh(mode: str, *args: str) -> tuple[Run, Run]:
    """Each path against its own bridge (a bridge is one session: a reply left over would reach the next)."""
    runs = []
    for env in ({}, FULL):
        for url in bridge(mode, *SAMPLE):
            run = rea(*args, "--url", url, "--protocol", "legacy", env=env)
            runs.append(Run(run.args, run.code, run.out.replace(url, "<url>"), run.err.replace(url, "<url>")))
    lean, full = runs
    assert lean.code == full.code, (args, lean.err, full.err)
    assert DURATIONS.sub("<t>", lean.out) == DURATIONS.sub("<t>", full.out), args
    assert DURATIONS.sub("<t>", lean.err) == DURATIONS.sub("<t>", full.err), args
    return lean, full


@pytest.mark.parametrize("mode", ["plain", "json", "garbage", "early", "status500"])
def test_a_misbehaving_server_gets_the_same_outcome(mode: str) -> None:
    same_on_fresh(mode, "tools", "--json")
    lean, _ = same_on_fresh(mode, "call", "echo", "text=hi", "--yes", "--json")
    assert lean.code in (0, 1, 3, 4), lean.err


def test_a_hanging_call_times_out_the_same() -> None:
    lean, _ = same_on_fresh("hang", "call", "echo", "text=hi", "--yes", "--timeout", "2")
    assert lean.code == 5
    assert "tools/call timed out after 2 s" in lean.out
