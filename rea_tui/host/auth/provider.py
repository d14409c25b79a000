"""rea-tui's OAuth clients: the SDK's providers with a few host policies on top.

The SDK's `OAuthClientProvider` does the protocol: protected-resource metadata
(RFC 9728, from `WWW-Authenticate` and the well-known URLs), authorization
server metadata (RFC 8414, the OpenID fallback and the 2025-03-26 fallbacks),
Client ID Metadata Documents, dynamic client registration, PKCE S256, the
`resource` indicator, scope selection, step-up on `insufficient_scope`, and
refresh. `ClientCredentialsOAuthProvider` does the unattended grant. What is
added here (`_HostPolicy`):

- A connection that may not sign in (every CLI command but `auth login`, and
  the TUI until the analyst asks) follows none of a 401's metadata URLs,
  never registers a client and never opens a browser: the server's own
  401/403 answers the request, and the connection reports it as
  `AuthorizationRequired`. A stored token is still refreshed (at the server's
  own origin, or the token endpoint found when it was issued).
- One that signs in fetches metadata only from the server's own origin and
  from the authorization servers the server's resource metadata names (and a
  configured `issuer`); a metadata URL elsewhere is not fetched (the flow sees
  a 404 and tries the next one).
- A stored token whose server answers 401 is refreshed once before anything
  else; a stored token's expiry survives restarts. A refresh the authorization
  server refuses (400/401) is not tried again: its tokens are dropped from the
  store (and a registration it calls `invalid_client`).
- A client registered while signing in is registered for the scope the server
  asked for in its last 403 too (`wanted_scope`), not only the one its 401
  names: an authorization server that binds scope at registration refuses
  anything more at the authorization endpoint.
- The authorization URL's `state` is given to the loopback listener, which
  refuses a callback with another one.
- Step-up sign-ins are limited (`MAX_STEP_UPS`) so a server that never
  accepts a scope cannot loop the browser.
- A pre-registered client (`clientId`/`clientSecret`) is used as configured;
  its token endpoint method, unless configured, is the best one the
  authorization server lists (basic, then post).
- Tokens and client secrets are added to the traffic log's redactions.
"""

from __future__ import annotations

import asyncio
import contextlib
import warnings
import webbrowser
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

import httpx2
from mcp.client.auth import OAuthClientProvider, OAuthFlowError
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.auth.oauth2 import OAuthContext
from mcp.client.auth.utils import union_scopes
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

from rea_tui import __version__
from rea_tui.host.auth.settings import OAuthSettings
from rea_tui.host.auth.store import ServerTokenStorage

if TYPE_CHECKING:
    from rea_tui.host.auth.loopback import LoopbackRedirect
    from rea_tui.host.transports.http_status import HttpStatusLog
    from rea_tui.host.transports.traffic import TrafficLog

MAX_STEP_UPS = 2
DEFAULT_LOGIN_TIMEOUT = 300.0
CLIENT_NAME = "rea-tui"
# A redirect URI for connections that never sign in (the SDK's metadata needs one).
UNUSED_REDIRECT = "http://127.0.0.1/callback"
# How long a browser command may take to say it failed; one still running after that counts as opened.
BROWSER_VERDICT_SECONDS = 2.0

UrlHandler = Callable[[str], Awaitable[None]]


@dataclass
class Login:
    """Permission to sign in interactively, and how.

    `on_url` is awaited with the authorization URL before the browser opens
    (the CLI prints it, the TUI shows it); `open_browser` opens it with
    `webbrowser` (which honours `$BROWSER`); `timeout` bounds the wait for the
    redirect back to the loopback listener.
    """

    on_url: UrlHandler | None = None
    open_browser: bool = True
    timeout: float = DEFAULT_LOGIN_TIMEOUT
    # Where the sign-in keeps what it gets (a staged copy that `login` commits once it succeeded).
    storage: ServerTokenStorage | None = None
    # Awaited instead of `on_url` when no browser could be opened (none found, or its command failed).
    on_no_browser: UrlHandler | None = None
    # Filled in as the flow runs, for the caller to report.
    authorizations: int = 0
    browser_opened: bool | None = None


class _SignInNeeded(Exception):
    """Stop the flow here: this connection may not (or may no longer) sign in."""


class _HostContext(OAuthContext):
    """Picks a pre-registered client's token endpoint method from the server's list when none is configured."""

    pick_method: bool = False

    def prepare_token_auth(
        self, data: dict[str, str], headers: dict[str, str] | None = None
    ) -> tuple[dict[str, str], dict[str, str]]:
        info = self.client_info
        if info is not None and info.client_secret and self.pick_method:
            offered = (self.oauth_metadata.token_endpoint_auth_methods_supported if self.oauth_metadata else None) or []
            method = next((m for m in ("client_secret_basic", "client_secret_post") if m in offered), None)
            info.token_endpoint_auth_method = method or "client_secret_basic"
        return super().prepare_token_auth(data, headers)


class _HostPolicy:
    """The policies above, for any SDK provider (mixed in before it)."""

    context: OAuthContext
    _initialized: bool

    def _setup_policy(
        self,
        server: str,
        storage: ServerTokenStorage,
        login: Login | None,
        status: HttpStatusLog | None,
        traffic: TrafficLog | None,
        *,
        signs_in: bool,
        issuer: str | None = None,
        pre_registered: bool = False,
    ) -> None:
        self._server = server
        # Whether this connection may sign in (a Login, or the unattended client credentials grant).
        self._signs_in = signs_in
        self._issuer = issuer
        self._storage = storage
        self._login = login
        self._status = status
        self._traffic = traffic
        self._step_ups = 0
        self._last_status = 0
        # The authorization server refused this connection's refresh: it is not tried again.
        self._refresh_refused = False
        self._pre_registered = pre_registered
        # Why a sign-in failed on this connection: it is not tried again (one browser round per failure).
        self._failed: str | None = None

    # ---------------------------------------------------------------- storage

    async def _initialize(self) -> None:
        await super()._initialize()  # type: ignore[misc]
        record = self._storage.record()
        if record.expires_at is not None:
            self.context.token_expiry_time = record.expires_at
        self._redact(self.context.current_tokens)

    def _redact(self, tokens: OAuthToken | None) -> None:
        if self._traffic is None:
            return
        values = [tokens.access_token, tokens.refresh_token] if tokens else []
        info = self.context.client_info
        values.append(info.client_secret if info else None)
        self._traffic.add_secrets(v for v in values if v)

    # ---------------------------------------------------------------- the flow

    def _refused(self, reason: str) -> None:
        if self._status is not None:
            self._status.auth_reason = reason

    async def _auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        refreshed = False
        while True:
            inner: AsyncGenerator[httpx2.Request, httpx2.Response] = super()._auth_flow(request)  # type: ignore[misc]
            outcome = "done"
            try:
                outgoing = await inner.__anext__()
                while True:
                    if outgoing is not request and self._is_registration(outgoing):
                        if self._login is None:
                            self._refused("no usable token is held; sign in with `rea-tui auth login`")
                            outcome = "refused"
                            break
                        outgoing = self._registration_for_wanted_scope(outgoing)
                    if outgoing is not request and not self._may_fetch(outgoing):
                        outgoing = await inner.asend(self._not_fetched(outgoing))
                        continue
                    response = yield outgoing
                    if outgoing is not request and _is_refresh(outgoing):
                        await self._after_refresh(response)
                    if outgoing is request:
                        self._last_status = response.status_code
                        if response.status_code == 401 and not refreshed and self._refresh_possible(request):
                            outcome = "refresh"
                            break
                        if not self._signs_in and _asks_for_sign_in(response):
                            # Not signing in: the server's refusal is the answer; no metadata URL is followed.
                            self._refused("no usable token is held; sign in with `rea-tui auth login`")
                            self._remember_challenge(response)
                            return
                    outgoing = await inner.asend(response)
            except StopAsyncIteration:
                pass
            except _SignInNeeded as stop:
                self._refused(str(stop))
                outcome = "refused"
            except OAuthFlowError as exc:
                self._failed = f"sign-in failed: {exc}"
                self._refused(self._failed)
                outcome = "refused"
            finally:
                await inner.aclose()
            self._redact(self.context.current_tokens)
            if outcome == "refresh":
                # The server no longer takes the stored token: refresh it before any full sign-in.
                refreshed = True
                self.context.token_expiry_time = 1.0
                continue
            if outcome == "refused":
                # The server's own refusal answers the request, so the connection can report it.
                response = yield request
                self._last_status = response.status_code
                self._remember_challenge(response)
            return

    def _may_fetch(self, outgoing: httpx2.Request) -> bool:
        """A metadata GET goes to the server's origin or an authorization server its resource metadata names.

        Other requests of the flow (refresh, registration, token) go to the endpoints that metadata named.
        """
        if outgoing.method != "GET":
            return True
        trusted = [self.context.server_url, *([self._issuer] if self._issuer else [])]
        resource = self.context.protected_resource_metadata
        if resource is not None:
            trusted += [str(url) for url in resource.authorization_servers]
        return _origin(outgoing.url) in {_origin(httpx2.URL(url)) for url in trusted}

    def _not_fetched(self, outgoing: httpx2.Request) -> httpx2.Response:
        """What the flow gets for a metadata URL on another origin: a 404 (it tries the next URL)."""
        if self._traffic is not None:
            url = outgoing.url.copy_with(query=None, fragment=None)
            self._traffic.record_event("oauth/not-followed", f"{url}: not the server's or its authorization server's")
        return httpx2.Response(404, request=outgoing)

    def _is_registration(self, outgoing: httpx2.Request) -> bool:
        return outgoing.method == "POST" and self.context.client_info is None

    def _registration_for_wanted_scope(self, outgoing: httpx2.Request) -> httpx2.Request:
        """Register for the scope the server asked for too (step-up), not only the one its 401 names.

        An authorization server that binds scope at registration refuses anything more at the
        authorization endpoint (`invalid_scope`), so the client is registered for the union.
        """
        wanted = self._storage.record().wanted_scope
        metadata = self.context.client_metadata
        if not wanted or metadata.scope == union_scopes(metadata.scope, wanted):
            return outgoing
        metadata.scope = union_scopes(metadata.scope, wanted)
        body = metadata.model_dump(by_alias=True, mode="json", exclude_none=True)
        return httpx2.Request("POST", outgoing.url, json=body, headers={"Content-Type": "application/json"})

    def _refresh_possible(self, request: httpx2.Request) -> bool:
        return "Authorization" in request.headers and self.context.can_refresh_token() and not self._refresh_refused

    async def _after_refresh(self, response: httpx2.Response) -> None:
        """A refresh the authorization server refused is not tried again, by this connection or the next.

        Its tokens are dead (a restarted in-memory server, a revoked grant): they are dropped from the
        store, and a registration it no longer knows (`invalid_client`) too, so the next sign-in
        registers again. A server error (5xx) says nothing about the tokens: they are kept.
        """
        if response.status_code not in (400, 401):
            return
        self._refresh_refused = True
        try:
            await response.aread()
            error = response.json().get("error")
        except (httpx2.HTTPError, ValueError, AttributeError):
            error = None
        dropped: dict[str, Any] = {"tokens": None, "expires_at": None}
        if error == "invalid_client" and not self._pre_registered:
            dropped["client_info"] = None
        self._storage.update(**dropped)

    def _remember_challenge(self, response: httpx2.Response) -> None:
        """A 403 naming more scope: ask for it at the next sign-in."""
        from mcp.client.auth.utils import extract_field_from_www_auth

        if response.status_code == 403 and extract_field_from_www_auth(response, "error") == "insufficient_scope":
            wanted = extract_field_from_www_auth(response, "scope")
            if wanted:
                record = self._storage.record()
                self._storage.update(wanted_scope=union_scopes(record.wanted_scope, wanted))

    async def _perform_authorization_code_grant(self) -> tuple[str, str]:
        if self._login is None:
            raise _SignInNeeded("no usable token is held; sign in with `rea-tui auth login`")
        if self._failed is not None:
            raise _SignInNeeded(self._failed)
        if self._last_status == 403:
            self._step_ups += 1
            if self._step_ups > MAX_STEP_UPS:
                raise _SignInNeeded(f"the server still refuses the scope after {MAX_STEP_UPS} sign-ins")
        wanted = self._storage.record().wanted_scope
        if wanted:
            self.context.client_metadata.scope = union_scopes(self.context.client_metadata.scope, wanted)
        self._login.authorizations += 1
        result: tuple[str, str] = await super()._perform_authorization_code_grant()  # type: ignore[misc]
        return result


def _asks_for_sign_in(response: httpx2.Response) -> bool:
    """A 401, or a 403 asking for more scope: what the SDK's flow answers with discovery and a sign-in."""
    if response.status_code == 401:
        return True
    from mcp.client.auth.utils import extract_field_from_www_auth

    return response.status_code == 403 and extract_field_from_www_auth(response, "error") == "insufficient_scope"


def _is_refresh(outgoing: httpx2.Request) -> bool:
    """A token request of the refresh grant (the SDK sends it form-encoded)."""
    return outgoing.method == "POST" and b"grant_type=refresh_token" in (outgoing.content or b"")


def _origin(url: httpx2.URL) -> tuple[str, str, int | None]:
    default = {"http": 80, "https": 443}.get(url.scheme)
    return url.scheme, url.host, url.port or default


class HostOAuthProvider(_HostPolicy, OAuthClientProvider):
    """The authorization code flow (PKCE, loopback redirect, browser)."""

    def __init__(
        self,
        server: str,
        url: str,
        settings: OAuthSettings,
        storage: ServerTokenStorage,
        *,
        login: Login | None = None,
        redirect: LoopbackRedirect | None = None,
        status: HttpStatusLog | None = None,
        traffic: TrafficLog | None = None,
    ) -> None:
        redirect_uri = redirect.redirect_uri if redirect is not None else UNUSED_REDIRECT
        self._redirect = redirect
        metadata = OAuthClientMetadata(
            client_name=CLIENT_NAME,
            redirect_uris=[redirect_uri],  # type: ignore[list-item]
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
            scope=settings.scope,
            software_id="rea-tui",
            software_version=__version__,
        )
        super().__init__(
            url,
            metadata,
            storage,
            redirect_handler=self._open_authorization,
            callback_handler=self._await_redirect,
            client_metadata_url=settings.client_metadata_url,
        )
        # The same context with the pre-registered method choice (a dataclass: copy its fields over).
        context = _HostContext(**{f.name: getattr(self.context, f.name) for f in fields(self.context) if f.init})
        context.pick_method = settings.pre_registered and settings.token_endpoint_auth_method is None
        self.context = context
        self._settings = settings
        self._setup_policy(
            server,
            storage,
            login,
            status,
            traffic,
            signs_in=login is not None,
            issuer=settings.issuer,
            pre_registered=settings.pre_registered,
        )

    async def _initialize(self) -> None:
        await super()._initialize()
        settings = self._settings
        redirect_uri = str(self.context.client_metadata.redirect_uris[0])  # type: ignore[index]
        if settings.pre_registered:
            self.context.client_info = OAuthClientInformationFull(
                client_id=settings.client_id or "",
                client_secret=settings.client_secret,
                redirect_uris=[redirect_uri],  # type: ignore[list-item]
                token_endpoint_auth_method=settings.token_endpoint_auth_method,
                scope=settings.scope,
            )
            self._redact(self.context.current_tokens)
            return
        info = self.context.client_info
        registered = [str(u) for u in (info.redirect_uris or [])] if info else []
        if info is not None and self._redirect is not None and redirect_uri not in registered:
            # Registered for another loopback port (it was taken): register again for this one.
            is_cimd = info.client_id == settings.client_metadata_url
            if not is_cimd:
                self.context.client_info = None

    async def _open_authorization(self, url: str) -> None:
        login = self._login
        if login is None:  # pragma: no cover - guarded by _perform_authorization_code_grant
            raise _SignInNeeded("this connection may not sign in")
        if self._redirect is not None:
            self._redirect.expect_state(url)
        if login.open_browser and not await self._try_browser(url):
            login.browser_opened = False
            handler = login.on_no_browser or login.on_url
            if handler is not None:
                await handler(url)
            return
        if login.on_url is not None:
            await login.on_url(url)

    async def _try_browser(self, url: str) -> bool:
        """Open `url` in a browser; False at once when none can be found or its command fails.

        webbrowser may wait for the browser command to exit ($BROWSER): after BROWSER_VERDICT_SECONDS
        it runs on beside the redirect wait, counted as opened.
        """
        try:
            webbrowser.get()
        except webbrowser.Error:
            return False
        self._browser = asyncio.ensure_future(asyncio.to_thread(webbrowser.open, url))
        done, _ = await asyncio.wait({self._browser}, timeout=BROWSER_VERDICT_SECONDS)
        if not done:
            return True
        try:
            return bool(self._browser.result())
        except Exception:
            return False

    async def _await_redirect(self) -> AuthorizationCodeResult:
        assert self._redirect is not None and self._login is not None
        try:
            return await self._redirect.wait(self._login.timeout)
        finally:
            browser = getattr(self, "_browser", None)
            if browser is not None:
                with contextlib.suppress(Exception):
                    self._login.browser_opened = bool(await asyncio.wait_for(browser, 10.0))


class HostClientCredentialsProvider(_HostPolicy, ClientCredentialsOAuthProvider):
    """The client credentials grant, for unattended use (`oauth.grantType: client_credentials`)."""

    def __init__(
        self,
        server: str,
        url: str,
        settings: OAuthSettings,
        storage: ServerTokenStorage,
        *,
        status: HttpStatusLog | None = None,
        traffic: TrafficLog | None = None,
    ) -> None:
        method: Any = settings.token_endpoint_auth_method or "client_secret_basic"
        with warnings.catch_warnings():
            # Without `oauth.issuer` the SDK warns that the server picks the authorization server; docs/oauth.md.
            warnings.simplefilter("ignore")
            super().__init__(
                url,
                storage,
                client_id=settings.client_id or "",
                client_secret=settings.client_secret or "",
                token_endpoint_auth_method=method,
                scope=settings.scope,
                issuer=settings.issuer,
            )
        # The unattended grant signs in by itself: it discovers, within the same origins.
        self._setup_policy(
            server, storage, None, status, traffic, signs_in=True, issuer=settings.issuer, pre_registered=True
        )
