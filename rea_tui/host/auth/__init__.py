"""OAuth 2.1 for HTTP servers (streamable HTTP and the legacy HTTP+SSE transport).

The host API the CLI (`rea-tui auth ...`) and the TUI use:

- A connection to a server that asks for authorization raises
  `AuthorizationRequired` (from `Connection.start` or any request) when no
  usable token is held; stored tokens are sent and refreshed on their own.
- `await login(spec, on_url=...)` signs in: it opens the authorization URL
  with `webbrowser` (honouring `$BROWSER`; `on_url` is awaited with it first,
  so a UI can show it), waits for the redirect on a loopback listener at
  127.0.0.1 and keeps the tokens. A connection may also sign in by itself
  when given a `Login` (`Connection.login = Login(...)`).
- `auth_status(spec)`, `logout(spec)`, and `await needs_authorization(spec)`
  (None, or the `AuthorizationRequired` the server answers with).

Tokens live in the system keyring or a 0600 file (`store.py`). A server entry
with an `Authorization` header of its own is left to that header.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any

from rea_tui.host.auth.settings import OAuthSettings, OAuthSettingsError
from rea_tui.host.auth.store import ServerTokenStorage, TokenStore
from rea_tui.host.config import ServerSpec
from rea_tui.host.errors import AuthorizationRequired

if TYPE_CHECKING:
    import httpx2

    from rea_tui.host.auth.loopback import LoopbackRedirect
    from rea_tui.host.auth.provider import Login, UrlHandler
    from rea_tui.host.http_status import HttpStatusLog
    from rea_tui.host.traffic import TrafficLog

__all__ = [
    "AuthStatus",
    "AuthorizationRequired",
    "HttpAuth",
    "LoginResult",
    "OAuthSettings",
    "OAuthSettingsError",
    "auth_status",
    "login",
    "logout",
    "needs_authorization",
    "uses_oauth",
]


def uses_oauth(spec: ServerSpec) -> bool:
    """Whether rea-tui answers this server's authorization challenges (HTTP, and no Authorization header of its own)."""
    return spec.transport in ("http", "sse") and not any(k.lower() == "authorization" for k in spec.headers)


def settings_for(spec: ServerSpec) -> OAuthSettings:
    return OAuthSettings.from_mapping(spec.oauth)


def storage_for(spec: ServerSpec, store: TokenStore | None = None) -> ServerTokenStorage:
    return ServerTokenStorage(store or TokenStore(), spec.url)


class HttpAuth:
    """`async with HttpAuth(spec, ...) as auth:` the httpx auth for one connection (None when OAuth is not used).

    With a `login`, a loopback listener runs for the life of the connection so it can sign in.
    """

    def __init__(
        self,
        spec: ServerSpec,
        *,
        login: Login | None = None,
        status: HttpStatusLog | None = None,
        traffic: TrafficLog | None = None,
        store: TokenStore | None = None,
    ) -> None:
        self._spec = spec
        self._login = login
        self._status = status
        self._traffic = traffic
        self._store = store
        self._redirect: LoopbackRedirect | None = None

    async def __aenter__(self) -> httpx2.Auth | None:
        if not uses_oauth(self._spec):
            return None
        from rea_tui.host.auth.provider import HostClientCredentialsProvider, HostOAuthProvider

        spec = self._spec
        settings = settings_for(spec)
        storage = storage_for(spec, self._store)
        if settings.grant_type == "client_credentials":
            return HostClientCredentialsProvider(
                spec.name, spec.url, settings, storage, status=self._status, traffic=self._traffic
            )
        if self._login is not None:
            from rea_tui.host.auth.loopback import LoopbackRedirect

            self._redirect = LoopbackRedirect(spec.name, _callback_port(settings, storage))
            await self._redirect.__aenter__()
        return HostOAuthProvider(
            spec.name,
            spec.url,
            settings,
            storage,
            login=self._login,
            redirect=self._redirect,
            status=self._status,
            traffic=self._traffic,
        )

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._redirect is not None:
            await self._redirect.__aexit__(exc_type, exc, tb)
            self._redirect = None


def _callback_port(settings: OAuthSettings, storage: ServerTokenStorage) -> int:
    """The configured port, else the one the stored registration names (so it stays valid), else any."""
    if settings.callback_port:
        return settings.callback_port
    from urllib.parse import urlsplit

    info = storage.record().client_info or {}
    for uri in info.get("redirect_uris") or []:
        parts = urlsplit(str(uri))
        if parts.hostname == "127.0.0.1" and parts.port:
            return parts.port
    return 0


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


@dataclass(frozen=True)
class LoginResult:
    """How a `login` went: `authorizations` browser sign-ins happened (0: the server asked for none)."""

    authorizations: int
    browser_opened: bool | None
    status: AuthStatus


async def login(
    spec: ServerSpec,
    *,
    on_url: UrlHandler | None = None,
    open_browser: bool = True,
    timeout: float = 300.0,
    connect_timeout: float = 30.0,
    store: TokenStore | None = None,
) -> LoginResult:
    """Sign in to `spec` (again): drop its tokens (the client registration is kept), connect, let it ask.

    Raises `AuthorizationRequired` when the sign-in fails (refused, timed out, a
    server that does not match its metadata), and the usual connection errors.
    """
    from rea_tui.host.auth.provider import Login
    from rea_tui.host.connection import Connection

    if not uses_oauth(spec):
        reason = "its config sends an Authorization header, so rea-tui does not sign in"
        raise AuthorizationRequired(spec.name, reason=reason)
    storage = storage_for(spec, store)
    storage.update(tokens=None, expires_at=None)
    connection = Connection(spec, timeout=connect_timeout, connect_timeout=connect_timeout + timeout)
    attempt = Login(on_url=on_url, open_browser=open_browser, timeout=timeout)
    connection.login = attempt
    try:
        await connection.start()
    finally:
        await connection.close()
    return LoginResult(attempt.authorizations, attempt.browser_opened, auth_status(spec, store))


async def needs_authorization(spec: ServerSpec, *, timeout: float = 30.0) -> AuthorizationRequired | None:
    """Connect without signing in: the `AuthorizationRequired` the server answers with, or None."""
    from rea_tui.host.connection import Connection

    connection = Connection(spec, timeout=timeout, connect_timeout=timeout)
    try:
        await connection.start()
    except AuthorizationRequired as exc:
        return exc
    finally:
        await connection.close()
    return None
