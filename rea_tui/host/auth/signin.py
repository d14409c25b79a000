"""Signing in: `login` (interactive, through the browser) and `needs_authorization` (a probe)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rea_tui.host.auth import AuthStatus, auth_status, settings_for, uses_oauth
from rea_tui.host.auth.store import StagedTokenStorage, TokenStore
from rea_tui.host.config.config import ServerSpec
from rea_tui.host.protocol.errors import AuthorizationRequired

if TYPE_CHECKING:
    from rea_tui.host.auth.provider import Login, UrlHandler


@dataclass(frozen=True)
class LoginResult:
    """How a `login` went: `authorizations` browser sign-ins happened (0: the server asked for none)."""

    authorizations: int
    browser_opened: bool | None
    status: AuthStatus
    # Whether a new sign-in was kept (False: the server asked for none, and what was stored stays).
    kept: bool = True


async def login(
    spec: ServerSpec,
    *,
    on_url: UrlHandler | None = None,
    on_no_browser: UrlHandler | None = None,
    open_browser: bool = True,
    timeout: float = 300.0,
    connect_timeout: float = 30.0,
    store: TokenStore | None = None,
) -> LoginResult:
    """Sign in to `spec` (again), asking for the scope held and the scope the server last asked for.

    The sign-in works on a staged copy of the stored record without its tokens, so
    the server asks; the copy replaces what is stored only once the connection
    started with its new token. A failure (refused, timed out, a scope the
    authorization server will not grant, a server that does not match its
    metadata) changes nothing stored: the working token stays usable. Where the
    held client was registered for less scope than is now wanted (an
    authorization server that binds scope at registration refuses the rest with
    `invalid_scope`), or the authorization server refuses the held client the
    scope, a client is registered anew for the union (SEP-2350).

    Raises `AuthorizationRequired` when the sign-in fails, and the usual connection errors.
    """
    from mcp.client.auth.utils import union_scopes

    from rea_tui.host.auth.loopback import AuthorizationDenied
    from rea_tui.host.auth.provider import Login

    if not uses_oauth(spec):
        reason = "its config sends an Authorization header, so rea-tui does not sign in"
        raise AuthorizationRequired(spec.name, reason=reason)
    staged = StagedTokenStorage(store or TokenStore(), spec.url)
    held = staged.record()
    wanted = union_scopes((held.tokens or {}).get("scope"), held.wanted_scope)
    client_info = held.client_info
    if wanted and client_info is not None and not _covers(client_info.get("scope"), wanted):
        client_info = None
    staged.update(tokens=None, expires_at=None, wanted_scope=wanted, client_info=client_info)
    attempt = Login(on_url=on_url, on_no_browser=on_no_browser, open_browser=open_browser, timeout=timeout)
    attempt.storage = staged
    try:
        await _connect(spec, attempt, connect_timeout, timeout)
    except AuthorizationDenied as denied:
        # The held client was refused the scope (registered for less, though its registration named none):
        # once more with a client registered for the union. A client configured by hand stays as it is.
        if denied.error != "invalid_scope" or client_info is None or settings_for(spec).pre_registered:
            raise
        staged.update(client_info=None)
        await _connect(spec, attempt, connect_timeout, timeout)
    kept = staged.record().tokens is not None
    if kept:
        staged.commit()
    return LoginResult(attempt.authorizations, attempt.browser_opened, auth_status(spec, store), kept)


async def _connect(spec: ServerSpec, attempt: Login, connect_timeout: float, timeout: float) -> None:
    from rea_tui.host.protocol.connection import Connection

    connection = Connection(spec, timeout=connect_timeout, connect_timeout=connect_timeout + timeout)
    connection.login = attempt
    try:
        await connection.start()
    finally:
        await connection.close()


def _covers(registered: object, wanted: str) -> bool:
    """Whether a client registered for `registered` may ask for `wanted` (a registration without scope binds none)."""
    if not isinstance(registered, str):
        return True
    return set(wanted.split()) <= set(registered.split())


async def needs_authorization(spec: ServerSpec, *, timeout: float = 30.0) -> AuthorizationRequired | None:
    """Connect without signing in: the `AuthorizationRequired` the server answers with, or None."""
    from rea_tui.host.protocol.connection import Connection

    connection = Connection(spec, timeout=timeout, connect_timeout=timeout)
    try:
        await connection.start()
    except AuthorizationRequired as exc:
        return exc
    finally:
        await connection.close()
    return None
