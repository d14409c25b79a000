"""Sign-in metadata is fetched only when signing in, and then only from the server's origin or its authorization server.

A server answers 401 with a `WWW-Authenticate` that names metadata URLs on another loopback port;
a `CountingListener` there counts every connection. Commands that do not sign in follow no
metadata URL at all (on the fast path and the SDK path); `auth login` does not follow one on
another origin either (it looks at the server's own well-known URLs, and fails to sign in).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.cli import REPO, rea
from tests.cli.test_lean_http import FULL
from tests.conftest import start_http_server
from tests.support.listeners import CountingListener

HEADLESS = f"{sys.executable} {REPO / 'tests' / 'support' / 'headless_signin.py'} %s"


@dataclass
class Challenged:
    url: str
    foreign: CountingListener
    server: subprocess.Popen[str]

    def asked_paths(self) -> list[str]:
        """The paths the server was asked for (it prints one line per request; read after it stopped)."""
        self.server.terminate()
        assert self.server.stderr is not None
        _, rest = self.server.communicate(timeout=10)
        return [line.split()[-1] for line in rest.splitlines() if line.startswith("status-server asked")]


@pytest.fixture
def challenged() -> Iterator[Challenged]:
    with CountingListener() as foreign:
        base = f"http://127.0.0.1:{foreign.port}"
        challenge = (
            f'Bearer resource_metadata="{base}/.well-known/oauth-protected-resource", '
            f'authorization_uri="{base}/authorize", scope="mcp:read"'
        )
        process, url = start_http_server(
            ["-m", "tests.support.status_server", "401", challenge], r"listening on (http://\S+)"
        )
        try:
            yield Challenged(url, foreign, process)
        finally:
            process.kill()
            process.wait(timeout=10)


def test_commands_that_do_not_sign_in_follow_no_metadata_url(challenged: Challenged) -> None:
    url = challenged.url
    for env in ({}, FULL):
        for args in (("tools",), ("prompts",), ("call", "echo", "text=hi", "--yes")):
            run = rea(*args, "--url", url, "--protocol", "legacy", env=env)
            assert run.code == 8, (args, env, run.err)
            assert "authorization needed" in run.err and "rea-tui auth login" in run.err
    assert challenged.foreign.hits == 0
    # Not the server's own well-known URLs either: nothing but the MCP endpoint was asked.
    paths = challenged.asked_paths()
    assert paths and all(path == "/mcp" for path in paths), paths


def test_signing_in_does_not_follow_metadata_on_another_origin(challenged: Challenged) -> None:
    run = rea(
        "auth",
        "login",
        "--url",
        challenged.url,
        "--login-timeout",
        "10",
        env={"BROWSER": HEADLESS, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"},
    )
    assert run.code != 0, run.out
    assert challenged.foreign.hits == 0
    # It looked for the metadata where it may: the server's own origin.
    assert any(path.startswith("/.well-known/") for path in challenged.asked_paths())
