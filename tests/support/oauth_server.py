"""An MCP server behind OAuth, built on the SDK's server-side auth (a real authorization server).

`python -m tests.support.oauth_server --http 127.0.0.1:0 [--sse] [--scope S] [--token-ttl N]`
serves, on one origin: protected-resource metadata (RFC 9728), authorization
server metadata (RFC 8414), dynamic client registration, an authorization
endpoint that approves at once (it redirects straight back with a code, as
if the person had clicked "allow"), a token endpoint (authorization code with
PKCE, refresh), and the MCP endpoint (`/mcp`, or `/sse` with `--sse`) that
answers 401 without a valid token. The tool `whoami` returns the token's
client and scopes. It prints `oauth-server listening on URL` on stderr.

`--pre-registered ID:SECRET` also knows a client that was registered by hand,
and `--no-registration` turns dynamic registration off.
"""

from __future__ import annotations

import argparse
import secrets
import socket
import sys
import time
from typing import Any

import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken


class ApprovingProvider:
    """An in-memory authorization server that approves every authorization request."""

    def __init__(self, token_ttl: int, scope: list[str]) -> None:
        self.token_ttl = token_ttl
        self.scope = scope
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(16)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or self.scope,
            expires_at=time.time() + 300,
            client_id=client.client_id or "",
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client: OAuthClientInformationFull, code: str) -> AuthorizationCode | None:
        return self.codes.get(code)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = "at-" + secrets.token_urlsafe(24), "rt-" + secrets.token_urlsafe(24)
        expires = int(time.time()) + self.token_ttl
        self.access[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=expires, resource=resource
        )
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        return OAuthToken(access_token=access, expires_in=self.token_ttl, scope=" ".join(scopes), refresh_token=refresh)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        return self._issue(client.client_id or "", authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)
        return self._issue(client.client_id or "", scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found

    async def revoke_token(self, token: Any) -> None:
        self.access.pop(getattr(token, "token", ""), None)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", default="127.0.0.1:0")
    parser.add_argument("--sse", action="store_true", help="serve the legacy HTTP+SSE transport at /sse")
    parser.add_argument("--scope", default="mcp:read", help="the scope the MCP endpoint requires")
    parser.add_argument("--token-ttl", type=int, default=3600)
    parser.add_argument("--pre-registered", default=None, metavar="ID:SECRET")
    parser.add_argument("--no-registration", action="store_true")
    args = parser.parse_args()

    host, _, port = args.http.rpartition(":")
    sock = socket.socket()
    sock.bind((host, int(port)))
    sock.listen(128)
    base = f"http://{host}:{sock.getsockname()[1]}"
    path = "/sse" if args.sse else "/mcp"
    scopes = args.scope.split()
    provider = ApprovingProvider(args.token_ttl, scopes)
    if args.pre_registered:
        client_id, _, secret = args.pre_registered.partition(":")
        provider.clients[client_id] = OAuthClientInformationFull(
            client_id=client_id,
            client_secret=secret,
            redirect_uris=None,
            token_endpoint_auth_method="client_secret_basic",
            scope=" ".join(scopes),
        )
    server = MCPServer(
        "oauth-sample",
        auth_server_provider=provider,
        auth=AuthSettings(
            issuer_url=base,  # type: ignore[arg-type]
            resource_server_url=base + path,  # type: ignore[arg-type]
            validate_token_resource=False,
            required_scopes=scopes,
            client_registration_options=ClientRegistrationOptions(
                enabled=not args.no_registration, valid_scopes=scopes
            ),
        ),
    )

    @server.tool()
    def whoami() -> str:
        """The client and scopes of the token this call came with."""
        token = get_access_token()
        return f"client={token.client_id if token else None} scopes={' '.join(token.scopes) if token else ''}"

    if args.pre_registered:
        # A hand-registered client may use any loopback redirect (RFC 8252 §7.3).
        original = provider.clients[client_id]

        def any_loopback(redirect_uri: Any) -> Any:
            if redirect_uri is not None and str(redirect_uri).startswith("http://127.0.0.1:"):
                return redirect_uri
            return OAuthClientInformationFull.validate_redirect_uri(original, redirect_uri)

        object.__setattr__(original, "validate_redirect_uri", any_loopback)

    app = server.sse_app(host=host) if args.sse else server.streamable_http_app(host=host)
    print(f"oauth-server listening on {base}{path}", file=sys.stderr, flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])


if __name__ == "__main__":
    main()
