"""`rea-tui auth status` with no server named lists every sign-in kept, and a short expiry in seconds."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from rea_tui.host.auth.store import AuthRecord, TokenStore
from rea_tui.host.config.config import user_config_path
from tests.cli import rea

KEPT_URL = "http://127.0.0.1:9/mcp"
CONFIGURED_URL = "http://127.0.0.1:9/other"
# As the FastMCP test server issues them: tokens that last 25 seconds.
SHORT_TOKEN_SECONDS = 25


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The file store (no keyring) and a home of its own (no other client's config of the real user)."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    return {"HOME": str(home), "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}


def test_with_nothing_kept_it_says_so_and_exits_0(env: dict[str, str]) -> None:
    run = rea("auth", "status", env=env).expect(0)
    assert "no HTTP server is configured and no sign-in is kept" in run.out
    assert json.loads(rea("auth", "status", "--json", env=env).expect(0).out)["servers"] == []


def test_every_kept_sign_in_is_listed_with_its_expiry_in_seconds(env: dict[str, str], tmp_path: Path) -> None:
    tokens = {"access_token": "secret-access-token", "token_type": "Bearer", "scope": "mcp"}
    TokenStore(use_keyring=False).save(
        KEPT_URL, AuthRecord(tokens=tokens, expires_at=time.time() + SHORT_TOKEN_SECONDS)
    )
    # A server of the rea-tui config with no sign-in is listed too (as before), by its name.
    config = user_config_path()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"mcpServers": {"other": {"url": CONFIGURED_URL}}}), encoding="utf-8")
    text, machine = (
        rea("auth", "status", env=env).expect(0),
        rea("auth", "status", "--json", env=env).expect(0),
    )
    assert "secret-access-token" not in text.out + machine.out
    assert text.out.startswith(f"other  ({CONFIGURED_URL})\n  not signed in\n")
    assert f"\n{KEPT_URL}  ({KEPT_URL})\n" in text.out
    left = re.search(r"signed in, scope mcp, expires in (\d+) s\n", text.out)
    assert left is not None, text.out
    assert 0 < int(left.group(1)) <= SHORT_TOKEN_SECONDS
    servers = json.loads(machine.out)["servers"]
    assert [(s["server"], s["signedIn"]) for s in servers] == [("other", False), (KEPT_URL, True)]
    # Named, it shows that server only; a stdio-only selection is still a usage error.
    named = rea("auth", "status", "--url", KEPT_URL, env=env).expect(0)
    assert "expires in" in named.out
    rea("auth", "status", "--stdio", "true", env=env).expect(2)
