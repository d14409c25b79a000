"""The reply size limit on both HTTP paths: hostile replies end with the same error and exit code, in bounded memory.

Each hostile reply comes from `tests.support.reply_bomb_server` on 127.0.0.1 (generated as it is
sent); each command runs on the fast path and on the SDK path (`REA_TUI_FULL_PATH=1`) with an
8 MiB limit, and its own peak RSS is read from the kernel (`os.wait4`, in a small launcher). The legacy SSE transport
and OAuth metadata (while signing in) have only the SDK path; they are held to the same limit.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest

from tests.cli import REPO, rea, rea_command
from tests.cli.test_lean_http import FULL, assert_same
from tests.conftest import start_http_server
from tests.support.peak_rss import Measured, run_measured

MIB = 1024 * 1024
LIMIT = "8MiB"
LIMIT_BYTES = 8 * MIB
# What the process may hold besides the reply (the brief's bound: the limit plus this).
HEADROOM = 100 * 1000 * 1000
# A bomb 32 times the limit inflates to 256 MiB: far past it, quick for the server to make.
BOMB_BYTES = 256 * MIB
# The plain and SSE replies: 400 MB, generated as they are sent.
HUGE_BYTES = 400 * 1000 * 1000
PATHS = {"fast": {}, "sdk": FULL}


@pytest.fixture
def bomb(request: pytest.FixtureRequest) -> Iterator[str]:
    mode, size, method = request.param
    process, url = start_http_server(
        ["-m", "tests.support.reply_bomb_server", mode, "--size", str(size), "--on", method],
        r"listening on (http://\S+)",
    )
    try:
        yield url
    finally:
        process.kill()
        process.wait(timeout=10)


def measured(*args: str, env: dict[str, str]) -> Measured:
    environ = {**os.environ, **env}
    environ.pop("NO_COLOR", None)
    return run_measured([*rea_command(), *args], env=environ, cwd=REPO)


def test_the_figure_is_the_commands_own_not_the_test_workers() -> None:
    # Linux carries the parent's high-water mark into an exec'd child; a grown worker must not show.
    ballast = bytearray(200 * MIB)
    ballast[::4096] = b"\1" * len(ballast[::4096])  # touch every page so it is resident
    small = run_measured([sys.executable, "-c", "pass"])
    grown = run_measured([sys.executable, "-c", "b = bytearray(64 * 2**20); b[::4096] = b'\\1' * len(b[::4096])"])
    assert small.code == grown.code == 0, (small.err, grown.err)
    assert small.peak_rss < 50 * MIB, small.peak_rss
    assert 64 * MIB < grown.peak_rss < 64 * MIB + 50 * MIB, grown.peak_rss
    del ballast


HOSTILE = [
    pytest.param(("gzip", BOMB_BYTES, "tools/list"), "the reply", id="gzip-bomb"),
    pytest.param(("deflate", BOMB_BYTES, "tools/list"), "the reply", id="deflate-bomb"),
    pytest.param(("plain", HUGE_BYTES, "tools/list"), "the reply", id="400MB-json"),
    pytest.param(("sse-event", HUGE_BYTES, "tools/list"), "one server-sent event", id="400MB-sse-event"),
]


@pytest.mark.parametrize(("bomb", "what"), HOSTILE, indirect=["bomb"])
def test_a_hostile_reply_ends_with_the_limit_on_both_paths_in_bounded_memory(bomb: str, what: str) -> None:
    runs = {
        path: measured("tools", "--url", bomb, "--protocol", "legacy", "--max-reply-size", LIMIT, env=env)
        for path, env in PATHS.items()
    }
    for path, run in runs.items():
        assert run.code == 4, (path, run.err)
        assert f"{what} exceeded the reply size limit of 8 MiB" in run.err, (path, run.err)
        assert "--max-reply-size" in run.err
        assert run.peak_rss < LIMIT_BYTES + HEADROOM, (path, run.peak_rss)
    assert runs["fast"].out == runs["sdk"].out
    assert runs["fast"].err == runs["sdk"].err


@pytest.mark.parametrize("bomb", [("gzip", BOMB_BYTES, "tools/call")], indirect=True)
def test_a_bombed_call_reply_ends_the_same_on_both_paths(bomb: str) -> None:
    # The limit given before the command, as any server option may be.
    args = (
        "--max-reply-size",
        LIMIT,
        "call",
        "echo",
        "text=hi",
        "--yes",
        "--json",
        "--url",
        bomb,
        "--protocol",
        "legacy",
    )
    fast, sdk = (rea(*args, env=env) for env in PATHS.values())
    assert fast.code == sdk.code == 4, (fast.err, sdk.err)
    assert_same(fast, sdk)
    assert "exceeded the reply size limit of 8 MiB" in fast.out + fast.err


@pytest.mark.parametrize("bomb", [("gzip", 4 * MIB, "tools/list")], indirect=True)
def test_a_compressed_reply_under_the_limit_is_read_on_both_paths(bomb: str) -> None:
    # The same server and encoding, a reply that fits: both paths decode it and list the tool, the same way.
    fast, sdk = (
        rea("tools", "--url", bomb, "--protocol", "legacy", "--max-reply-size", LIMIT, env=env)
        for env in PATHS.values()
    )
    assert "echo" in fast.expect(0).out
    assert_same(fast, sdk)
    refused = rea("tools", "--url", bomb, "--protocol", "legacy", "--max-reply-size", "1MiB")
    assert refused.code == 4 and "limit of 1 MiB" in refused.err


def test_a_malformed_size_is_a_usage_error() -> None:
    run = rea("tools", "--max-reply-size", "lots")
    assert run.code == 2 and "not a size" in run.err


@pytest.mark.parametrize("bomb", [("legacy-sse", HUGE_BYTES, "tools/list")], indirect=True)
def test_the_legacy_sse_transport_holds_an_event_to_the_limit(bomb: str) -> None:
    # Only the SDK path speaks the legacy transport (a URL ending in /sse).
    run = measured("tools", "--url", bomb, "--max-reply-size", LIMIT, env={})
    assert run.code == 4, run.err
    assert "one server-sent event exceeded the reply size limit of 8 MiB" in run.err
    assert run.peak_rss < LIMIT_BYTES + HEADROOM, run.peak_rss


@pytest.mark.parametrize("bomb", [("legacy-sse", 0, "none")], indirect=True)
def test_the_legacy_sse_transport_reads_ordinary_replies(bomb: str) -> None:
    assert "echo" in rea("tools", "--url", bomb, "--max-reply-size", LIMIT).expect(0).out


@pytest.mark.parametrize("bomb", [("oauth-gzip", BOMB_BYTES, "none")], indirect=True)
def test_oauth_metadata_is_held_to_the_limit_when_signing_in(bomb: str) -> None:
    headless = f"{sys.executable} {REPO / 'tests' / 'support' / 'headless_signin.py'} %s"
    env = {"BROWSER": headless, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    run = measured("auth", "login", "--url", bomb, "--max-reply-size", LIMIT, "--login-timeout", "10", env=env)
    assert run.code == 4, run.err
    assert "the reply exceeded the reply size limit of 8 MiB" in run.err
    assert run.peak_rss < LIMIT_BYTES + HEADROOM, run.peak_rss
