"""Signing in: `login` (interactive, through the browser) and `needs_authorization` (a probe)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rea_tui.host.auth import AuthStatus, auth_status, storage_for, uses_oauth
from rea_tui.host.auth.store import TokenStore
from rea_tui.host.config import ServerSpec
from rea_tui.host.errors import AuthorizationRequired

if TYPE_CHECKING:
    from rea_tui.host.auth.provider import UrlHandler


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
