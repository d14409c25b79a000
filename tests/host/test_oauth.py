"""OAuth against a real authorization server (tests/support/oauth_server.py, the SDK's server-side auth).

The person at the browser is tests/support/headless_signin.py, named through $BROWSER, which rea-tui
opens with `webbrowser`: it follows the authorization server's redirect to the loopback listener.
"""

from __future__ import annotations

import json
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rea_tui.host.auth import auth_status, logout
from rea_tui.host.auth.signin import login, needs_authorization
from rea_tui.host.auth.store import TokenStore, auth_dir
from rea_tui.host.config.config import ServerSpec
from rea_tui.host.protocol.connection import Connection
from rea_tui.host.protocol.errors import AuthorizationRequired
from tests.cli import REPO, rea, write_config
from tests.conftest import start_http_server

HEADLESS = f"{sys.executable} {REPO / 'tests' / 'support' / 'headless_signin.py'} %s"


@pytest.fixture(autouse=True)
def file_store_and_headless_browser(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    monkeypatch.setenv("BROWSER", HEADLESS)


def oauth_server(*args: str) -> Iterator[str]:
    process, url = start_http_server(["-m", "tests.support.oauth_server", *args], r"listening on (http://\S+)")
    try:
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def protected_url() -> Iterator[str]:
    yield from oauth_server("--scope", "mcp:read")


def spec_for(url: str, **oauth: str) -> ServerSpec:
    return ServerSpec(name="protected", transport="sse" if url.endswith("/sse") else "http", url=url, oauth=oauth)


async def test_no_token_is_authorization_required_not_a_protocol_error(protected_url: str) -> None:
    spec = spec_for(protected_url)
    needed = await needs_authorization(spec)
    assert needed is not None and needed.status == 401
    connection = Connection(spec, timeout=10, connect_timeout=10)
    with pytest.raises(AuthorizationRequired, match="authorization needed") as raised:
        await connection.start()
    assert "-32603" not in str(raised.value)
    # Nothing was registered or stored by a connection that may not sign in.
    assert not auth_dir().exists() or not any(auth_dir().iterdir())
    cli = rea("tools", "--url", protected_url).expect(8)
    assert "authorization needed" in cli.err and "rea-tui auth login" in cli.err
    assert "-32603" not in cli.err


async def test_login_keeps_tokens_0600_uses_and_forgets_them(protected_url: str) -> None:
    spec = spec_for(protected_url)
    shown: list[str] = []

    async def on_url(url: str) -> None:
        shown.append(url)

    result = await login(spec, on_url=on_url, timeout=30)
    assert result.authorizations == 1 and result.browser_opened is True
    [url] = shown
    # PKCE S256, the resource indicator and the scope the server asked for are on the authorization request.
    assert "code_challenge_method=S256" in url and "resource=" in url and "scope=mcp%3Aread" in url
    assert "redirect_uri=http%3A%2F%2F127.0.0.1%3A" in url
    status = auth_status(spec)
    assert status.signed_in and status.scope == "mcp:read" and status.refreshable and status.client_id
    [kept] = list(auth_dir().iterdir())
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert stat.S_IMODE(auth_dir().stat().st_mode) == 0o700
    token = json.loads(kept.read_text())["tokens"]["access_token"]

    connection = Connection(spec, timeout=10, connect_timeout=10)
    await connection.start()
    try:
        result_json = await connection.request("tools/call", {"name": "whoami", "arguments": {}})
        assert "scopes=mcp:read" in json.dumps(result_json)
    finally:
        await connection.close()

    called = rea("call", "whoami", "--yes", "--trace", "--url", protected_url).expect(0)
    assert f"client={status.client_id} scopes=mcp:read" in called.out
    shown_status = rea("auth", "status", "--json", "--url", protected_url).expect(0)
    assert token not in called.out + called.err + shown_status.out
    [row] = shown_status.json()["servers"]
    assert row["signedIn"] is True and row["scope"] == "mcp:read" and row["store"].startswith("0600 files")

    assert logout(spec) is True
    assert not auth_status(spec).signed_in
    rea("tools", "--url", protected_url).expect(8)


def test_cli_login_logout_and_status(protected_url: str) -> None:
    signed = rea("auth", "login", "--url", protected_url).expect(0)
    assert "Opening the browser to sign in" in signed.err and "/authorize?" in signed.err
    assert "signed in to" in signed.out and "scope mcp:read" in signed.out
    rea("tools", "--url", protected_url).expect(0)
    status = rea("auth", "status", "--url", protected_url).expect(0)
    assert "signed in, scope mcp:read" in status.out and "refreshable" in status.out
    assert "signed out" in rea("auth", "logout", "--url", protected_url).expect(0).out
    assert "not signed in" in rea("auth", "status", "--url", protected_url).expect(0).out
    # --no-browser prints the URL and waits; nobody comes back, so the wait ends with exit 8.
    unanswered = rea("auth", "login", "--no-browser", "--login-timeout", "1", "--url", protected_url).expect(8)
    assert "Open this URL to sign in" in unanswered.err and "no sign-in arrived within 1 s" in unanswered.err


async def test_expired_token_is_refreshed_without_a_browser() -> None:
    for url in oauth_server("--token-ttl", "2"):
        spec = spec_for(url)
        await login(spec, timeout=30)
        first = json.loads(next(auth_dir().iterdir()).read_text())["tokens"]["access_token"]
        time.sleep(2.5)
        # No Login: a sign-in is impossible, so success means the refresh token was used.
        connection = Connection(spec, timeout=10, connect_timeout=10)
        await connection.start()
        await connection.close()
        second = json.loads(next(auth_dir().iterdir()).read_text())["tokens"]["access_token"]
        assert second != first
        assert TokenStore().load(url).expires_at is not None


async def test_pre_registered_client_from_the_config(tmp_path: Path) -> None:
    for url in oauth_server("--pre-registered", "rea-pre:s3cret-value", "--no-registration"):
        config = write_config(
            tmp_path / "servers.json",
            {"mcpServers": {"pre": {"url": url, "clientId": "rea-pre", "clientSecret": "${env:PRE_SECRET}"}}},
        )
        env = {"PRE_SECRET": "s3cret-value"}
        rea("auth", "login", "pre", "--config", str(config), env=env).expect(0)
        status = rea("auth", "status", "pre", "--json", "--config", str(config), env=env).expect(0)
        [row] = status.json()["servers"]
        assert row["clientId"] == "rea-pre" and row["signedIn"] is True
        called = rea("call", "whoami", "--yes", "--server", "pre", "--config", str(config), env=env).expect(0)
        assert "client=rea-pre" in called.out
        assert "s3cret-value" not in called.out + called.err + status.out


def test_oauth_over_the_legacy_sse_transport() -> None:
    for url in oauth_server("--sse"):
        assert url.endswith("/sse")
        denied = rea("tools", "--url", url).expect(8)
        assert "HTTP 401" in denied.err
        rea("auth", "login", "--url", url).expect(0)
        assert "whoami" in rea("tools", "--url", url).expect(0).out
