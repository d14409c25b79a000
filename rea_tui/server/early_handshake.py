"""The reply to a connection's opening request, computed without the SDK.

Loading the MCP SDK takes about 0.4 s of CPU (its pydantic models for two
protocol generations), longer than a host should wait for `initialize`. The
opening request's reply depends only on the server's identity, so the stdio
front answers it from `server_identity` at once and replays the request into
the SDK when it has loaded; the SDK's own reply is then compared and dropped.

Only well-formed opening requests are answered early; anything unusual is left
to the SDK, which answers it (or rejects it) itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rea_tui.server.server_identity import (
    HANDSHAKE_PROTOCOL_VERSIONS,
    INSTRUCTIONS,
    LATEST_HANDSHAKE_VERSION,
    LEGACY_CAPABILITIES,
    MODERN_CAPABILITIES,
    MODERN_PROTOCOL_VERSIONS,
    PROTOCOL_VERSION_META_KEY,
    SERVER_DESCRIPTION,
    SERVER_INFO_META_KEY,
    SERVER_NAME,
    SERVER_TITLE,
    SERVER_VERSION,
    server_info,
)


def _is_request_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _initialize_result(params: Mapping[str, Any]) -> dict[str, Any] | None:
    requested = params.get("protocolVersion")
    capabilities = params.get("capabilities")
    client = params.get("clientInfo")
    if not isinstance(requested, str) or not isinstance(capabilities, dict) or not isinstance(client, dict):
        return None
    if not all(isinstance(value, dict) for value in capabilities.values()):
        return None
    if not isinstance(client.get("name"), str) or not isinstance(client.get("version"), str):
        return None
    negotiated = requested if requested in HANDSHAKE_PROTOCOL_VERSIONS else LATEST_HANDSHAKE_VERSION
    return {
        "capabilities": LEGACY_CAPABILITIES,
        "instructions": INSTRUCTIONS,
        "protocolVersion": negotiated,
        "serverInfo": server_info(),
    }


def _discover_result(params: Mapping[str, Any]) -> dict[str, Any] | None:
    meta = params.get("_meta")
    if not isinstance(meta, dict) or meta.get(PROTOCOL_VERSION_META_KEY) not in MODERN_PROTOCOL_VERSIONS:
        return None
    return {
        "cacheScope": "private",
        "capabilities": MODERN_CAPABILITIES,
        "instructions": INSTRUCTIONS,
        "resultType": "complete",
        "supportedVersions": list(MODERN_PROTOCOL_VERSIONS),
        "ttlMs": 0,
        "_meta": {
            SERVER_INFO_META_KEY: {
                "name": SERVER_NAME,
                "title": SERVER_TITLE,
                "version": SERVER_VERSION,
                "description": SERVER_DESCRIPTION,
            }
        },
    }


def early_reply(message: Any) -> dict[str, Any] | None:
    """The JSON-RPC response to an opening `initialize` or `server/discover`, or None to leave it to the SDK."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or not _is_request_id(message.get("id")):
        return None
    params = message.get("params")
    if not isinstance(params, dict):
        return None
    method = message.get("method")
    if method == "initialize":
        result = _initialize_result(params)
    elif method == "server/discover":
        result = _discover_result(params)
    else:
        return None
    if result is None:
        return None
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}
