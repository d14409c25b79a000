"""The reply to a connection's opening request, computed without the SDK, and the request checks it rests on.

Loading the MCP SDK takes about 0.4 s of CPU (its pydantic models for two
protocol generations), longer than a host should wait for `initialize`. The
opening request's reply depends only on the server's identity, so the stdio
front answers it from `server_identity` at once and replays the request into
the SDK when it has loaded; the SDK's own reply is then compared and dropped.

Only requests the SDK is sure to accept are answered early: the checks here
admit a narrow, common subset of what the SDK validates (the client
identities and capabilities real clients send), and anything else is left to
the SDK, which answers it (or rejects it) itself. The lists are answered on
the same terms (`early_answers`, with `early_lists`' results).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from rea_tui.server.protocol.server_identity import (
    CLIENT_CAPABILITIES_META_KEY,
    CLIENT_INFO_META_KEY,
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

_ENVELOPE_KEYS: Final = frozenset({PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY})
_IMPLEMENTATION_TEXTS: Final = frozenset({"name", "version", "title", "description", "websiteUrl"})
_INITIALIZE_KEYS: Final = frozenset({"protocolVersion", "capabilities", "clientInfo"})
# Capabilities whose members are flags (an empty object each), and the members they may have.
_FLAG_CAPABILITIES: Final = {"elicitation": frozenset({"form", "url"}), "sampling": frozenset({"context", "tools"})}
_MAP_CAPABILITIES: Final = frozenset({"experimental", "extensions"})


def is_request_id(value: Any) -> bool:
    """A JSON-RPC id the SDK reads as the same id: a string, or an integer (not a boolean)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _implementation(value: Any) -> bool:
    """A client identity: `name` and `version`, and nothing but the optional texts beside them."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("name"), str)
        and isinstance(value.get("version"), str)
        and all(key in _IMPLEMENTATION_TEXTS and isinstance(text, str) for key, text in value.items())
    )


def _capabilities(value: Any) -> bool:
    """Client capabilities in the shapes real clients send (roots, sampling, elicitation, experimental,
    extensions); anything else, `tasks` included, is for the SDK to judge."""
    if not isinstance(value, dict):
        return False
    for name, capability in value.items():
        if not isinstance(capability, dict):
            return False
        if name == "roots":
            if not all(key == "listChanged" and isinstance(flag, bool) for key, flag in capability.items()):
                return False
        elif name in _FLAG_CAPABILITIES:
            if not all(key in _FLAG_CAPABILITIES[name] and member == {} for key, member in capability.items()):
                return False
        elif name in _MAP_CAPABILITIES:
            if not all(isinstance(entry, dict) for entry in capability.values()):
                return False
        else:
            return False
    return True


def modern_version(params: Mapping[str, Any]) -> str | None:
    """The 2026-07-28 version a request's `_meta` envelope carries, if the SDK is sure to accept it:
    a version it serves, the client's capabilities, and its identity if given; None otherwise."""
    meta = params.get("_meta")
    if not isinstance(meta, dict) or not _ENVELOPE_KEYS.issuperset(meta):
        return None
    version = meta.get(PROTOCOL_VERSION_META_KEY)
    if version not in MODERN_PROTOCOL_VERSIONS or not _capabilities(meta.get(CLIENT_CAPABILITIES_META_KEY)):
        return None
    if CLIENT_INFO_META_KEY in meta and not _implementation(meta[CLIENT_INFO_META_KEY]):
        return None
    return str(version)


def negotiated_version(params: Mapping[str, Any]) -> str | None:
    """The version an `initialize` with these params settles on, as the SDK negotiates it; None unless
    the SDK is sure to accept the params."""
    requested = params.get("protocolVersion")
    if not _INITIALIZE_KEYS.issuperset(params) or not isinstance(requested, str):
        return None
    if not _capabilities(params.get("capabilities")) or not _implementation(params.get("clientInfo")):
        return None
    return requested if requested in HANDSHAKE_PROTOCOL_VERSIONS else LATEST_HANDSHAKE_VERSION


def initialize_result(negotiated: str) -> dict[str, Any]:
    return {
        "capabilities": LEGACY_CAPABILITIES,
        "instructions": INSTRUCTIONS,
        "protocolVersion": negotiated,
        "serverInfo": server_info(),
    }


def server_info_stamp() -> dict[str, str]:
    """The `_meta` entry the SDK stamps on every 2026-07-28 result, in its key order."""
    return {"name": SERVER_NAME, "title": SERVER_TITLE, "version": SERVER_VERSION, "description": SERVER_DESCRIPTION}


def discover_result() -> dict[str, Any]:
    return {
        "cacheScope": "private",
        "capabilities": MODERN_CAPABILITIES,
        "instructions": INSTRUCTIONS,
        "resultType": "complete",
        "supportedVersions": list(MODERN_PROTOCOL_VERSIONS),
        "ttlMs": 0,
        "_meta": {SERVER_INFO_META_KEY: server_info_stamp()},
    }


def response(request_id: str | int, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}
