"""OAuth 2.1 for HTTP servers (streamable HTTP and the legacy HTTP+SSE transport).

The host API the CLI (`rea-tui auth ...`) and the TUI use:

- A connection to a server that asks for authorization raises
  `AuthorizationRequired` (from `Connection.start` or any request) when no
  usable token is held; stored tokens are sent and refreshed on their own.
- `await signin.login(spec, on_url=...)` signs in: it opens the authorization URL
  with `webbrowser` (honouring `$BROWSER`; `on_url` is awaited with it first,
  so a UI can show it), waits for the redirect on a loopback listener at
  127.0.0.1 and keeps the tokens. A connection may also sign in by itself
  when given a `Login` (`Connection.login = Login(...)`).
- `auth_status(spec)`, `logout(spec)`, and `await signin.needs_authorization(spec)`
  (None, or the `AuthorizationRequired` the server answers with).

Modules: `settings` (the config entry's options), `store` (keyring or 0600
files), `loopback` (the redirect listener), `provider` (the SDK's providers
with rea-tui's policies), `http` (`HttpAuth`, what a connection's httpx client
gets), `signin` (`login`, `needs_authorization`; it opens connections, so it
is imported from here, not by the transports).

Tokens live in the system keyring or a 0600 file (`store.py`). A server entry
with an `Authorization` header of its own is left to that header.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from rea_tui.host.auth.settings import OAuthSettings, OAuthSettingsError
from rea_tui.host.auth.store import ServerTokenStorage, TokenStore
from rea_tui.host.config.config import ServerSpec
from rea_tui.host.protocol.errors import AuthorizationRequired

__all__ = [
    "AuthStatus",
    "AuthorizationRequired",
    "OAuthSettings",
    "OAuthSettingsError",
    "auth_status",
    "logout",
    "uses_oauth",
]


def uses_oauth(spec: ServerSpec) -> bool:
    """Whether rea-tui answers this server's authorization challenges (HTTP, and no Authorization header of its own)."""
    return spec.transport in ("http", "sse") and not any(k.lower() == "authorization" for k in spec.headers)


def settings_for(spec: ServerSpec) -> OAuthSettings:
    return OAuthSettings.from_mapping(spec.oauth)


def storage_for(spec: ServerSpec, store: TokenStore | None = None) -> ServerTokenStorage:
    return ServerTokenStorage(store or TokenStore(), spec.url)


@dataclass(frozen=True)
class AuthStatus:
    """What is kept for one server (never the token values)."""

    server: str
    url: str
    oauth: bool
    signed_in: bool
    expires_at: float | None
    scope: str | None
    refreshable: bool
    client_id: str | None
    grant_type: str
    store: str
    wanted_scope: str | None = None

    @property
    def expired(self) -> bool:
        return self.expires_at is not None and time.time() > self.expires_at

    def to_json(self) -> dict[str, Any]:
        return {
            "server": self.server,
            "url": self.url,
            "oauth": self.oauth,
            "signedIn": self.signed_in,
            "expired": self.expired,
            "expiresAt": self.expires_at,
            "scope": self.scope,
            "refreshable": self.refreshable,
            "clientId": self.client_id,
            "grantType": self.grant_type,
            "store": self.store,
            "wantedScope": self.wanted_scope,
        }


def auth_status(spec: ServerSpec, store: TokenStore | None = None) -> AuthStatus:
    store = store or TokenStore()
    settings = settings_for(spec)
    record = store.load(spec.url) if uses_oauth(spec) else None
    tokens = (record.tokens if record else None) or {}
    client_id = settings.client_id or ((record.client_info or {}).get("client_id") if record else None)
    return AuthStatus(
        server=spec.name,
        url=spec.url,
        oauth=uses_oauth(spec),
        signed_in=bool(tokens.get("access_token")),
        expires_at=record.expires_at if record else None,
        scope=tokens.get("scope"),
        refreshable=bool(tokens.get("refresh_token")),
        client_id=client_id,
        grant_type=settings.grant_type,
        store=store.describe(),
        wanted_scope=record.wanted_scope if record else None,
    )


def logout(spec: ServerSpec, store: TokenStore | None = None) -> bool:
    """Forget the server's tokens and client registration; True if anything was kept."""
    return (store or TokenStore()).delete(spec.url)
