"""`HttpAuth`: the OAuth client a connection's httpx client gets (None when OAuth is not used)."""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING

from rea_tui.host.auth import settings_for, storage_for, uses_oauth
from rea_tui.host.auth.settings import OAuthSettings
from rea_tui.host.auth.store import ServerTokenStorage, TokenStore
from rea_tui.host.config.config import ServerSpec

if TYPE_CHECKING:
    import httpx2

    from rea_tui.host.auth.loopback import LoopbackRedirect
    from rea_tui.host.auth.provider import Login
    from rea_tui.host.transports.http_status import HttpStatusLog
    from rea_tui.host.transports.traffic import TrafficLog


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
        staged = self._login.storage if self._login is not None else None
        storage = staged or storage_for(spec, self._store)
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
