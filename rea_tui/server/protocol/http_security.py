"""Who may talk to the HTTP server: loopback by default, a bearer token for anything else.

`--http` binds loopback addresses only (127.0.0.0/8, ::1, localhost), and on
loopback the Host/Origin check against DNS rebinding is always on. Binding
any other address needs `--allow-remote`, which in turn needs a bearer token
(`--token` or `REA_SERVER_TOKEN`); every HTTP request must then carry
`Authorization: Bearer <token>` or gets 401. A token given on loopback is
enforced there too. No SDK or Starlette import: the checks run before the
server loads.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final

LOOPBACK_NAMES: Final = frozenset({"localhost"})
TOKEN_ENVIRONMENT: Final = "REA_SERVER_TOKEN"

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
AsgiApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_UNAUTHORIZED: Final = 401


def is_loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_NAMES:
        return True
    import ipaddress  # only --http needs it; keeps the stdio start cheap

    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # another host name: it may resolve to anything


def refusal(host: str, allow_remote: bool, token: str | None) -> str | None:
    """Why `--http HOST` must not start with these options, or None when it may."""
    if allow_remote and not token:
        return (
            f"--allow-remote needs a bearer token: pass --token TOKEN or set {TOKEN_ENVIRONMENT}; "
            "clients then send 'Authorization: Bearer TOKEN'"
        )
    if not is_loopback(host) and not allow_remote:
        return (
            f"--http {host} would accept connections from other machines; the reference server binds "
            "loopback only (127.0.0.1, ::1, localhost). To serve other machines pass --allow-remote "
            f"with a bearer token (--token TOKEN or {TOKEN_ENVIRONMENT})"
        )
    return None


def allowed_hosts(host: str) -> tuple[list[str], list[str]]:
    """`(Host patterns, Origin patterns)` accepted on a loopback bind."""
    shown = f"[{host}]" if ":" in host else host
    names = dict.fromkeys(["127.0.0.1", "localhost", "[::1]", shown])
    return [f"{n}:*" for n in names], [f"http://{n}:*" for n in names]


class BearerTokenGate:
    """ASGI middleware: HTTP requests without the exact bearer token get 401 and reach nothing."""

    def __init__(self, app: AsgiApp, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = b""
            for name, value in scope.get("headers", []):
                if name.lower() == b"authorization":
                    given = value
            if not hmac.compare_digest(given, self._expected):
                body = b'{"error": "unauthorized: send Authorization: Bearer <token>"}'
                await send(
                    {
                        "type": "http.response.start",
                        "status": _UNAUTHORIZED,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b'Bearer realm="rea-server"'),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
