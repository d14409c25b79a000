"""Step-up, restart, wrong state, no browser and a refused static bearer, against FastMCP's OAuth server.

The server is tests/support/fastmcp_oauth_server.py (FastMCP's in-memory provider on the SDK's
authorization handlers) in a subprocess on 127.0.0.1: it registers clients for the scopes they ask
(and refuses them any other at the authorization endpoint), needs `mcp` for the MCP endpoint, and
answers a call of `admin_op` without `admin` with HTTP 403 insufficient_scope. It logs every HTTP
request it gets, so each test counts registrations and token requests on the server's side. The
person at the browser is tests/support/headless_signin.py, named through $BROWSER.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from rea_tui.host.auth.store import auth_dir
from rea_tui.host.config.config import ServerSpec
from rea_tui.host.protocol.connection import Connection
from rea_tui.host.protocol.errors import AuthorizationRequired
from tests.cli import REPO, rea
from tests.cli.test_lean_http import FULL
from tests.conftest import start_http_server

SIGNIN = REPO / "tests" / "support" / "headless_signin.py"
HEADLESS = f"{sys.executable} {SIGNIN} %s"


@pytest.fixture(autouse=True)
def file_store_and_headless_browser(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    monkeypatch.setenv("BROWSER", HEADLESS)


@dataclass
class OAuthServer:
    """One run of the server; `restart()` starts a fresh one (nothing remembered) on the same port."""

    url: str
    log: Path
    process: subprocess.Popen[str]

    def requests(self) -> list[str]:
        """`METHOD PATH` of every request the server got so far."""
        return self.log.read_text(encoding="utf-8").splitlines() if self.log.exists() else []

    def count(self, line: str) -> int:
        return self.requests().count(line)


def _start(port: int, log: Path, *extra: str) -> tuple[subprocess.Popen[str], str]:
    return start_http_server(
        ["-m", "tests.support.fastmcp_oauth_server", "--http", f"127.0.0.1:{port}", "--log", str(log), *extra],
        r"listening on (http://\S+)",
    )


def _stop(process: subprocess.Popen[str]) -> None:
    process.terminate()
    process.wait(timeout=10)


def _serve(tmp_path: Path, *extra: str) -> Iterator[OAuthServer]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process, url = _start(port, tmp_path / "requests-1.log", *extra)
    running = OAuthServer(url, tmp_path / "requests-1.log", process)
    try:
        yield running
    finally:
        _stop(running.process)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[OAuthServer]:
    yield from _serve(tmp_path)


@pytest.fixture
def handshake_refusing(tmp_path: Path) -> Iterator[OAuthServer]:
    """The server, answering a tokenless legacy `initialize` with a JSON-RPC error of its own (-32020)."""
    yield from _serve(tmp_path, "--initialize-error")


def restart(server: OAuthServer) -> None:
    _stop(server.process)
    port = int(server.url.rsplit(":", 1)[1].split("/")[0])
    server.log = server.log.with_name("requests-2.log")
    server.process, server.url = _start(port, server.log)


def record_file() -> Path:
    [kept] = [p for p in auth_dir().iterdir() if p.suffix == ".json"]
    return kept


def test_step_up_registers_for_the_union_and_a_failed_one_changes_nothing(server: OAuthServer, tmp_path: Path) -> None:
    url = server.url
    rea("auth", "login", "--url", url).expect(0)
    assert "scopes=mcp" in rea("call", "whoami", "--yes", "--url", url).expect(0).out
    refused = rea("call", "admin_op", "--yes", "--url", url).expect(8)
    assert "HTTP 403" in refused.out + refused.err and "mcp admin" in refused.out + refused.err
    before = record_file().read_bytes()
    assert json.loads(before)["wanted_scope"] == "mcp admin"

    # Nobody comes back from the browser: nothing stored changes, the working token still works.
    timed_out = rea("auth", "login", "--no-browser", "--login-timeout", "1", "--url", url).expect(8)
    assert "scope=mcp+admin" in timed_out.err
    assert record_file().read_bytes() == before
    # The person says no: the same.
    denied = rea("auth", "login", "--url", url, env={"BROWSER": f"{sys.executable} {SIGNIN} --deny %s"}).expect(8)
    assert "access_denied" in denied.err
    assert record_file().read_bytes() == before
    assert "scopes=mcp" in rea("call", "whoami", "--yes", "--url", url).expect(0).out

    registrations = server.count("POST /register")
    stepped = rea("auth", "login", "--url", url).expect(0)
    assert "scope=mcp+admin" in stepped.err and "scope mcp admin" in stepped.out
    # The client was registered for `mcp` only: a new one is registered for the union.
    assert server.count("POST /register") == registrations + 1
    kept = json.loads(record_file().read_text())
    assert kept["client_info"]["scope"] == "mcp admin" and kept["tokens"]["scope"] == "mcp admin"
    assert "wanted_scope" not in kept
    assert "admin done" in rea("call", "admin_op", "--yes", "--url", url).expect(0).out
    assert "scopes=mcp admin" in rea("call", "whoami", "--yes", "--url", url).expect(0).out
    # Signing in again keeps the scope held (the union of held and asked), with the same client.
    rea("auth", "login", "--url", url).expect(0)
    assert server.count("POST /register") == registrations + 1
    assert "admin done" in rea("call", "admin_op", "--yes", "--url", url).expect(0).out


def test_a_held_client_refused_the_scope_is_replaced_by_one_registered_for_the_union(server: OAuthServer) -> None:
    url = server.url
    rea("auth", "login", "--url", url).expect(0)
    rea("call", "admin_op", "--yes", "--url", url).expect(8)
    # As if the authorization server had not said which scope it registered the client for.
    kept = json.loads(record_file().read_text())
    del kept["client_info"]["scope"]
    record_file().write_text(json.dumps(kept))
    registrations, authorizations = server.count("POST /register"), server.count("GET /authorize")
    stepped = rea("auth", "login", "--url", url).expect(0)
    # The held client is tried and refused (invalid_scope), then a new one is registered for the union.
    assert server.count("GET /authorize") == authorizations + 2
    assert server.count("POST /register") == registrations + 1
    assert "scope mcp admin" in stepped.out
    assert "admin done" in rea("call", "admin_op", "--yes", "--url", url).expect(0).out


def test_after_a_server_restart_the_refresh_is_tried_once(server: OAuthServer) -> None:
    rea("auth", "login", "--url", server.url).expect(0)
    restart(server)
    # The restarted server knows neither the token nor the client: one refresh, refused, then exit 8.
    gone = rea("tools", "--url", server.url).expect(8)
    assert "authorization needed" in gone.err
    assert server.count("POST /token") == 1, server.requests()
    # The refused tokens and the registration the server no longer knows are dropped from the store.
    assert set(json.loads(record_file().read_text())) == {"server"}
    # The refused tokens are not tried again by the next command either.
    rea("tools", "--url", server.url).expect(8)
    assert server.count("POST /token") == 1, server.requests()
    # Signing in registers again (the old registration was refused as invalid_client) and works.
    rea("auth", "login", "--url", server.url, "--login-timeout", "30").expect(0)
    assert server.count("POST /register") == 1
    assert "whoami" in rea("tools", "--url", server.url).expect(0).out


def test_a_callback_with_a_wrong_state_is_refused_and_the_sign_in_goes_on(server: OAuthServer, tmp_path: Path) -> None:
    page = tmp_path / "refused-page.txt"
    browser = f"{sys.executable} {SIGNIN} --wrong-state {page} %s"
    signed = rea("auth", "login", "--url", server.url, "--login-timeout", "30", env={"BROWSER": browser}).expect(0)
    assert "signed in to" in signed.out
    status, body = page.read_text().split("\n", 1)
    assert status == "400" and "refused" in body and "Signed in" not in body
    # The forged code never reached the token endpoint: one token request, for the real code.
    assert server.count("POST /token") == 1
    assert json.loads(record_file().read_text())["tokens"]["scope"] == "mcp"
    assert "scopes=mcp" in rea("call", "whoami", "--yes", "--url", server.url).expect(0).out


def test_no_browser_says_so_and_prints_the_url_at_once(server: OAuthServer) -> None:
    run = rea(
        "auth", "login", "--url", server.url, "--login-timeout", "1", env={"BROWSER": "/nonexistent/browser"}
    ).expect(8)
    assert "no browser was found" in run.err and "Opening the browser" not in run.err
    assert "/authorize?" in run.err and "no sign-in arrived within 1 s" in run.err
    assert not auth_dir().exists() or not any(p.suffix == ".json" for p in auth_dir().iterdir())


def test_a_refused_static_bearer_is_named_not_a_sign_in(server: OAuthServer) -> None:
    for protocol in ("auto", "legacy"):
        run = rea(
            "tools", "--url", server.url, "--protocol", protocol, "--header", "Authorization: Bearer not-a-token"
        ).expect(8)
        assert "refused the Authorization header" in run.err and "auth login" not in run.err
    assert server.count("POST /token") == 0 and server.count("POST /register") == 0
    assert not auth_dir().exists() or not any(p.suffix == ".json" for p in auth_dir().iterdir())


async def test_a_401_on_the_probe_is_authorization_needed_and_no_legacy_handshake_follows(
    handshake_refusing: OAuthServer,
) -> None:
    url = handshake_refusing.url
    connection = Connection(ServerSpec(name="refusing", transport="http", url=url), timeout=10, connect_timeout=10)
    with pytest.raises(AuthorizationRequired, match="authorization needed"):
        await connection.start()
    await connection.close()
    for env in ({}, FULL):
        for args in (("tools",), ("prompts",), ("call", "whoami", "--yes"), ("tools", "--protocol", "2026-07-28")):
            run = rea(*args, "--url", url, env=env)
            assert run.code == 8, (args, env, run.err)
            assert "authorization needed" in run.err and "-32020" not in run.err
    # A sign-in that fails says why, not what the handshake would have said.
    failed = rea("auth", "login", "--no-browser", "--login-timeout", "1", "--url", url).expect(8)
    assert "no sign-in arrived within 1 s" in failed.err and "-32020" not in failed.err
    assert "POST /mcp initialize" not in handshake_refusing.requests()
    assert not auth_dir().exists() or not any(p.suffix == ".json" for p in auth_dir().iterdir())
    rea("auth", "login", "--url", url).expect(0)
    assert "scopes=mcp" in rea("call", "whoami", "--yes", "--url", url).expect(0).out
    assert "POST /mcp initialize" not in handshake_refusing.requests()


def test_a_client_registered_with_another_authorization_server_is_not_presented_to_this_one(
    server: OAuthServer,
) -> None:
    """SEP-2352: credentials are bound to the issuer that registered them; another one gets a new client."""
    rea("auth", "login", "--url", server.url).expect(0)
    kept = json.loads(record_file().read_text())
    issuer = kept["client_info"]["issuer"]
    assert issuer.rstrip("/") == server.url.rsplit("/mcp", 1)[0]
    # As if the server's resource metadata had named another authorization server when this client registered.
    previous = kept["client_info"]["client_id"]
    kept["client_info"]["issuer"] = "https://previous-authorization-server.example"
    del kept["tokens"]
    record_file().write_text(json.dumps(kept))
    registrations = server.count("POST /register")

    rea("auth", "login", "--url", server.url).expect(0)
    assert server.count("POST /register") == registrations + 1
    stored = json.loads(record_file().read_text())["client_info"]
    assert stored["client_id"] != previous and stored["issuer"] == issuer
    assert "scopes=mcp" in rea("call", "whoami", "--yes", "--url", server.url).expect(0).out
