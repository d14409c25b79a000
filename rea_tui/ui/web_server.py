"""`rea-tui web`: the TUI served to a browser, to the analyst's browser only.

textual-serve runs one rea-tui per websocket and sends it the page's keys, so
whoever opens that websocket drives the app (approvals included) and reads
the screen. This server lets in only the analyst: it listens on 127.0.0.1, the
page needs a random token from the URL printed at start (as Jupyter does),
which it swaps for a SameSite=Strict cookie; the websocket needs that cookie
and an Origin of this very server; every request needs a Host of this very
server (no DNS rebinding). The access log never shows the token: a `token=`
query value (and the token anywhere else in a line, a Referer say) is
redacted before a line is written.

The page takes keys as soon as it loads: a script added to textual-serve's
page puts the focus in the terminal once it is there (without it, no key
reached the app until the page was clicked).
"""

from __future__ import annotations

import logging
import re
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from textual_serve.server import Server

LOOPBACK = "127.0.0.1"
TOKEN_BYTES = 24
COOKIE = "rea-tui-web"
# aiohttp's access log (the logger `web.run_app` writes each request line to).
ACCESS_LOGGER = "aiohttp.access"
REDACTED = "‹redacted›"
_TOKEN_QUERY = re.compile(r"([?&;]token=)[^&;\s\"']*")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
# Focus the terminal's input (xterm.js's helper textarea) as soon as textual-serve's script has made it.
FOCUS_ON_LOAD = """<script>
window.addEventListener("load", () => {
  const focusTerminal = () => {
    const input = document.querySelector("#terminal .xterm-helper-textarea");
    if (input === null) return false;
    input.focus({ preventScroll: true });
    return true;
  };
  if (!focusTerminal()) {
    const watcher = new MutationObserver(() => focusTerminal() && watcher.disconnect());
    watcher.observe(document.body, { childList: true, subtree: true });
  }
});
</script>
"""
BODY_END = "</body>"


def with_focus_on_load(response: web.StreamResponse) -> web.StreamResponse:
    """textual-serve's page with FOCUS_ON_LOAD before its `</body>` (a page without one is left as it is)."""
    if isinstance(response, web.Response) and response.text is not None and BODY_END in response.text:
        head, _, tail = response.text.rpartition(BODY_END)
        response.text = f"{head}{FOCUS_ON_LOAD}{BODY_END}{tail}"
    return response


class GuardedServer(Server):
    """textual-serve with a token, a cookie, and Host and Origin checks."""

    def __init__(self, command: str, port: int, *, title: str, token: str | None = None) -> None:
        super().__init__(command, host=LOOPBACK, port=port, title=title)
        self.token = token or secrets.token_urlsafe(TOKEN_BYTES)
        self.hosts = {f"{LOOPBACK}:{port}", f"localhost:{port}"}
        self.origins = {f"http://{host}" for host in self.hosts}

    def initialize_logging(self) -> None:
        # textual-serve's hook for its logging set-up: the access log's lines pass the token filter.
        super().initialize_logging()
        logging.getLogger(ACCESS_LOGGER).addFilter(TokenFilter(self.token))

    @property
    def url(self) -> str:
        """What the analyst opens (printed at start)."""
        return f"{self.public_url}/?token={self.token}"

    async def _make_app(self) -> web.Application:
        # textual-serve builds its aiohttp app here; the guard goes in front of every route.
        app = await super()._make_app()
        app.middlewares.append(self.guard)
        return app

    @web.middleware
    async def guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.host not in self.hosts:
            raise web.HTTPForbidden(text="rea-tui web answers only at 127.0.0.1")
        if request.path == "/":
            if not secrets.compare_digest(request.query.get("token", ""), self.token):
                raise web.HTTPForbidden(text="open the URL rea-tui web printed (it carries the token)")
            response = with_focus_on_load(await handler(request))
            response.set_cookie(COOKIE, self.token, httponly=True, samesite="Strict", path="/")
            return response
        if request.path.startswith("/static/"):
            return await handler(request)  # the page's own scripts and fonts, nothing of the session
        if request.headers.get("Origin") not in self.origins:
            raise web.HTTPForbidden(text="a page from another origin may not drive rea-tui")
        if not secrets.compare_digest(request.cookies.get(COOKIE, ""), self.token):
            raise web.HTTPForbidden(text="open the URL rea-tui web printed (it carries the token)")
        return await handler(request)


class TokenFilter(logging.Filter):
    """Redacts the access token from a log record: its message, arguments and string extras."""

    def __init__(self, token: str) -> None:
        super().__init__()
        self.token = token

    def redact(self, value: object) -> object:
        if isinstance(value, str):
            return _TOKEN_QUERY.sub(rf"\g<1>{REDACTED}", value).replace(self.token, REDACTED)
        if isinstance(value, dict):
            return {key: self.redact(item) for key, item in value.items()}
        if isinstance(value, tuple):
            return tuple(self.redact(item) for item in value)
        return value

    def filter(self, record: logging.LogRecord) -> bool:
        for name, value in list(vars(record).items()):
            if name not in ("name", "levelname", "pathname", "filename", "module", "funcName"):
                setattr(record, name, self.redact(value))
        return True


def serve(command: str, port: int, *, title: str, on_ready: Callable[[str], Any]) -> None:
    server = GuardedServer(command, port, title=title)
    on_ready(server.url)
    server.serve()
