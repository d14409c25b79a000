"""The OAuth options of one server's config entry.

A server entry may carry a pre-registered client and how to use it, either at
its top level (`clientId`, `clientSecret`, as several MCP clients write them)
or in an `oauth` object:

```json
"remote": {
  "url": "https://mcp.example.com/mcp",
  "oauth": {
    "clientId": "rea-tui", "clientSecret": "${env:CLIENT_SECRET}",
    "scope": "mcp:read", "grantType": "client_credentials",
    "tokenEndpointAuthMethod": "client_secret_basic",
    "clientMetadataUrl": "https://example.com/rea-tui.json", "callbackPort": 8765
  }
}
```

Nothing here is needed for the common case: a server that asks for
authorization is discovered, registered with and signed in to on its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

GrantType = Literal["authorization_code", "client_credentials"]
AUTH_METHODS = ("none", "client_secret_basic", "client_secret_post")

# Config keys (camelCase as in the file) and the setting each fills.
_KEYS = {
    "clientId": "client_id",
    "clientSecret": "client_secret",
    "scope": "scope",
    "grantType": "grant_type",
    "tokenEndpointAuthMethod": "token_endpoint_auth_method",
    "clientMetadataUrl": "client_metadata_url",
    "callbackPort": "callback_port",
    "issuer": "issuer",
}


class OAuthSettingsError(ValueError):
    """An `oauth` option is wrong; the message says which."""


@dataclass(frozen=True)
class OAuthSettings:
    client_id: str | None = None
    client_secret: str | None = None
    scope: str | None = None
    grant_type: GrantType = "authorization_code"
    token_endpoint_auth_method: str | None = None
    client_metadata_url: str | None = None
    callback_port: int = 0
    issuer: str | None = None

    @property
    def pre_registered(self) -> bool:
        return self.client_id is not None

    @classmethod
    def from_mapping(cls, raw: Mapping[str, str]) -> OAuthSettings:
        """From the flat camelCase mapping `oauth_entry` returns (values already expanded)."""
        values: dict[str, Any] = {_KEYS[k]: v for k, v in raw.items() if k in _KEYS}
        grant = values.get("grant_type", "authorization_code")
        if grant not in ("authorization_code", "client_credentials"):
            raise OAuthSettingsError(f"oauth.grantType must be authorization_code or client_credentials, not {grant!r}")
        method = values.get("token_endpoint_auth_method")
        if method is not None and method not in AUTH_METHODS:
            raise OAuthSettingsError(f"oauth.tokenEndpointAuthMethod must be one of {', '.join(AUTH_METHODS)}")
        if grant == "client_credentials" and not (values.get("client_id") and values.get("client_secret")):
            raise OAuthSettingsError("oauth.grantType client_credentials needs clientId and clientSecret")
        url = values.get("client_metadata_url")
        if url is not None and not url.startswith("https://"):
            raise OAuthSettingsError("oauth.clientMetadataUrl must be an https URL")
        port = values.get("callback_port", "0")
        try:
            values["callback_port"] = int(port)
        except ValueError:
            raise OAuthSettingsError(f"oauth.callbackPort must be a port number, not {port!r}") from None
        if not 0 <= values["callback_port"] <= 65535:
            raise OAuthSettingsError("oauth.callbackPort must be between 0 and 65535")
        return cls(**values)


def oauth_entry(entry: Mapping[str, Any]) -> dict[str, str]:
    """The OAuth options of a config entry as a flat camelCase mapping of strings (not yet expanded)."""
    found: dict[str, str] = {}
    nested = entry.get("oauth")
    if nested is not None and not isinstance(nested, dict):
        raise OAuthSettingsError("oauth must be an object")
    for source in (entry, nested or {}):
        for key in _KEYS:
            value = source.get(key)
            if value is None or (source is entry and key not in ("clientId", "clientSecret")):
                continue
            if not isinstance(value, str | int) or isinstance(value, bool):
                raise OAuthSettingsError(f"oauth.{key} must be a string")
            found[key] = str(value)
    unknown = sorted(set(nested or {}) - set(_KEYS))
    if unknown:
        raise OAuthSettingsError(f"unknown oauth option {unknown[0]!r} (known: {', '.join(_KEYS)})")
    return found
