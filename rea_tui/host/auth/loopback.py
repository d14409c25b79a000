"""The loopback redirect of a native OAuth client (RFC 8252 §7.3).

A one-shot HTTP listener on 127.0.0.1 (an ephemeral port unless one is
configured) that receives the authorization server's redirect to
`http://127.0.0.1:PORT/callback?code=...&state=...`, answers the browser with
a short page and hands the parameters to the SDK's OAuth flow. Any other path
gets a 404 and the listener keeps waiting. A callback whose `state` is not
the one of the sign-in under way (`expect_state`) is refused (400, a page
saying so) and the listener keeps waiting for the right one: a page on
another site cannot end or hijack the sign-in by calling the listener.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from types import TracebackType
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

from rea_tui.host.protocol.errors import AuthorizationRequired

if TYPE_CHECKING:
    from mcp.shared.auth import AuthorizationCodeResult

CALLBACK_PATH = "/callback"
_PAGE = (
    "<!doctype html><meta charset=utf-8><title>rea-tui</title>"
    "<body style='font-family:sans-serif'><h1>{title}</h1><p>{text}</p></body>"
)


class AuthorizationDenied(AuthorizationRequired):
    """The authorization server redirected back with an error instead of a code (`error`, e.g. invalid_scope)."""

    error = ""


class LoopbackRedirect:
    """`async with LoopbackRedirect() as redirect:` listens; `await redirect.wait()` returns the callback."""

    def __init__(self, server: str, port: int = 0, host: str = "127.0.0.1") -> None:
        self._server_name = server
        self._host = host
        self._port = port
        self._server: asyncio.Server | None = None
        self._result: asyncio.Future[dict[str, str]] | None = None
        # The state of the authorization request under way (None: not known, every callback counts).
        self._state: str | None = None
        # Callbacks refused for a wrong state, for the caller to report.
        self.refused = 0

    @property
    def port(self) -> int:
        assert self._server is not None, "the listener is not running"
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    @property
    def redirect_uri(self) -> str:
        return f"http://{self._host}:{self.port}{CALLBACK_PATH}"

    async def __aenter__(self) -> LoopbackRedirect:
        self._result = asyncio.get_running_loop().create_future()
        try:
            self._server = await asyncio.start_server(self._handle, self._host, self._port)
        except OSError:
            if not self._port:
                raise
            # The remembered port is taken: any port will do (the registration is redone for it).
            self._server = await asyncio.start_server(self._handle, self._host, 0)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2.0)
        if self._result is not None and not self._result.done():
            self._result.cancel()

    def expect_state(self, authorization_url: str) -> None:
        """The sign-in under way sent this URL: only a callback with its `state` completes it."""
        state = parse_qs(urlsplit(authorization_url).query).get("state")
        self._state = state[0] if state else None

    async def wait(self, timeout: float) -> AuthorizationCodeResult:
        """The redirect's code, state and issuer; raises AuthorizationRequired on an error or a timeout."""
        from mcp.shared.auth import AuthorizationCodeResult

        assert self._result is not None
        try:
            params = await asyncio.wait_for(asyncio.shield(self._result), timeout)
            # The next sign-in on this connection (a step-up) waits for a redirect of its own.
            self._result = asyncio.get_running_loop().create_future()
        except TimeoutError:
            raise AuthorizationRequired(
                self._server_name, reason=f"no sign-in arrived within {timeout:g} s (the browser never came back)"
            ) from None
        if "error" in params:
            detail = params.get("error_description", "")
            denied = AuthorizationDenied(
                self._server_name,
                reason=f"the authorization server answered {params['error']}" + (f": {detail}" if detail else ""),
            )
            denied.error = params["error"]
            raise denied
        if not params.get("code"):
            raise AuthorizationDenied(self._server_name, reason="the redirect carried no authorization code")
        return AuthorizationCodeResult(code=params["code"], state=params.get("state"), iss=params.get("iss"))

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10.0)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ConnectionError):
            writer.close()
            return
        request_line = head.split(b"\r\n", 1)[0].decode("latin-1")
        parts = request_line.split(" ")
        target = urlsplit(parts[1]) if len(parts) == 3 else None
        if parts[0] != "GET" or target is None or target.path != CALLBACK_PATH:
            await self._answer(writer, "404 Not Found", "Not found", "This is rea-tui's sign-in listener.")
            return
        params = {k: v[0] for k, v in parse_qs(target.query).items()}
        if self._state is not None and not secrets.compare_digest(params.get("state", ""), self._state):
            self.refused += 1
            text = "This request does not belong to the sign-in under way, so it was refused. rea-tui is still waiting."
            await self._answer(writer, "400 Bad Request", "Sign-in request refused", text)
            return
        if "error" in params:
            await self._answer(writer, "200 OK", "Sign-in failed", "The authorization server refused. Back to rea-tui.")
        else:
            await self._answer(writer, "200 OK", "Signed in", "You can close this window and return to rea-tui.")
        if self._result is not None and not self._result.done():
            self._result.set_result(params)

    @staticmethod
    async def _answer(writer: asyncio.StreamWriter, status: str, title: str, text: str) -> None:
        body = _PAGE.format(title=title, text=text).encode()
        head = (
            f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"
        )
        with contextlib.suppress(ConnectionError):
            writer.write(head.encode() + body)
            await writer.drain()
        writer.close()
