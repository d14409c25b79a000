"""The lean HTTP client against the full path: the same stdout, stderr and exit code, on real servers.

Each command runs twice, once as users get it and once with `REA_TUI_FULL_PATH=1`; durations
are the only thing allowed to differ. `--protocol legacy` (or a warmed protocol memory) is what
lets a command take the lean path; a trace (`--trace`) shows which path ran.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli import REPO, Run, rea
from tests.conftest import start_http_server
from tests.support.everything_http import everything_url
from tests.support.file_keyring import FILE_ENV
from tests.support.http_bridge import bridged

FULL = {"REA_TUI_FULL_PATH": "1"}
DURATIONS = re.compile(r'("durationMs": )[0-9.]+|\(\d+(\.\d+)? (ms|s)\)')
# A duration too, and there only when the analyst's answer took 1 ms or more (a loaded machine decides).
WAITED = re.compile(r'\n *"waitedMs": [0-9.]+,')


def assert_same(lean: Run, full: Run) -> None:
    """The same exit code, stdout and stderr, up to durations."""
    assert lean.code == full.code, (lean.args, lean.err, full.err)
    for lean_text, full_text in ((lean.out, full.out), (lean.err, full.err)):
        assert WAITED.sub("", DURATIONS.sub("<t>", lean_text)) == WAITED.sub("", DURATIONS.sub("<t>", full_text))


def same(*args: str, timeout: float = 60) -> Run:
    """Run both paths; assert they print the same, up to durations; return the lean run."""
    lean = rea(*args, timeout=timeout)
    assert_same(lean, rea(*args, env=FULL, timeout=timeout))
    return lean


@pytest.fixture(scope="module")
def everything() -> Iterator[str]:
    with everything_url("streamableHttp") as url:
        yield url


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
        ("call", "get-roots-list", "--yes", "--json"),  # its roots/list request comes on the GET stream
        ("call", "get-roots-list", "--yes"),
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
        with bridged(mode, SAMPLE) as url:
            run = rea(*args, "--url", url, "--protocol", "legacy", env=env)
            runs.append(Run(run.args, run.code, run.out.replace(url, "<url>"), run.err.replace(url, "<url>")))
    lean, full = runs
    assert_same(lean, full)
    return lean, full


MODES = ["plain", "json", "garbage", "early", "status500", "resume", "cut", "asks", "input_required"]


@pytest.mark.parametrize("mode", MODES)
def test_a_misbehaving_server_gets_the_same_outcome(mode: str) -> None:
    same_on_fresh(mode, "tools", "--json")
    lean, _ = same_on_fresh(mode, "call", "echo", "text=hi", "--yes", "--json")
    assert lean.code in (0, 1, 3, 4), lean.err


HANG_TIMEOUT_SECONDS = 6


def test_a_hanging_call_times_out_the_same() -> None:
    # Long enough for the handshake and listing of a loaded machine (2 s was not): only the call hangs.
    lean, _ = same_on_fresh("hang", "call", "echo", "text=hi", "--yes", "--timeout", str(HANG_TIMEOUT_SECONDS))
    assert lean.code == 5
    assert f"tools/call timed out after {HANG_TIMEOUT_SECONDS} s" in lean.out


KEYRING_CHECK = """
import json, sys
from rea_tui.host.auth.store import AuthRecord, TokenStore, has_stored_sign_in
if sys.argv[1] == "first":
    import keyring
    # A record saved before the markers: in the keyring, nothing beside it on disk.
    keyring.set_password("rea-tui", "http://old/mcp", json.dumps({"tokens": {"access_token": "t"}}))
    seen = [has_stored_sign_in("http://old/mcp"), has_stored_sign_in("http://new/mcp")]
    TokenStore().save("http://later/mcp", AuthRecord(tokens={"access_token": "t"}))
    seen.append(has_stored_sign_in("http://later/mcp"))
else:
    seen = [has_stored_sign_in(url) for url in ("http://old/mcp", "http://new/mcp", "http://later/mcp")]
    seen.append("keyring" in sys.modules)
print(json.dumps(seen))
"""


def test_a_keyring_sign_in_from_before_the_markers_keeps_the_command_off_the_lean_path(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "PYTHON_KEYRING_BACKEND": "tests.support.file_keyring.FileKeyring",
        FILE_ENV: str(tmp_path / "keyring.json"),
    }

    def seen(run: str) -> list[bool]:
        done = subprocess.run(
            [sys.executable, "-c", KEYRING_CHECK, run], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        return list(json.loads(done.stdout))

    assert seen("first") == [True, False, True]
    # The next runs answer from the marker and the stamp the first one left, without importing keyring.
    assert seen("again") == [True, False, True, False]
