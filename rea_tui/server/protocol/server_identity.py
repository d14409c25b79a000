"""Who the server is and what it declares, as plain data (no SDK import).

Both the early stdio answers (`early_handshake`, `early_lists`, sent before
the SDK is loaded) and the SDK-backed server (`rea_server`) read these, so the
two cannot disagree about the name, the instructions or the protocol versions. The
capability dicts are what the SDK derives from the registered handlers; the
stdio front compares its early reply with the SDK's own reply for the same
request and logs any difference, and a test asserts there is none.
"""

from __future__ import annotations

from typing import Any, Final

SERVER_NAME: Final = "rea-reference-server"
SERVER_VERSION: Final = "0.1.0"
SERVER_TITLE: Final = "REA reference server"
SERVER_DESCRIPTION: Final = "Guided reverse-engineering prompts and session-aware completion over real binaries."

INSTRUCTIONS: Final = (
    "Reference REA server. Guided prompts render optional tool starting points; completion offers "
    "identifiers from the live session only (an empty list does not mean the target has no procedures). "
    "Name-taking tools answer with {reason, ask_user, candidates, scoped_by, argument} when a name is "
    "missing, unknown or ambiguous: ask the user and call again with the value pinned."
)

HANDSHAKE_PROTOCOL_VERSIONS: Final[tuple[str, ...]] = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""Versions the `initialize` handshake negotiates (the SDK's list; a test keeps them equal)."""

LATEST_HANDSHAKE_VERSION: Final = HANDSHAKE_PROTOCOL_VERSIONS[-1]

MODERN_PROTOCOL_VERSIONS: Final[tuple[str, ...]] = ("2026-07-28",)
"""Versions served through the per-request envelope and `server/discover`."""

PROTOCOL_VERSION_META_KEY: Final = "io.modelcontextprotocol/protocolVersion"
SERVER_INFO_META_KEY: Final = "io.modelcontextprotocol/serverInfo"
CLIENT_INFO_META_KEY: Final = "io.modelcontextprotocol/clientInfo"
CLIENT_CAPABILITIES_META_KEY: Final = "io.modelcontextprotocol/clientCapabilities"

LEGACY_CAPABILITIES: Final[dict[str, Any]] = {
    "completions": {},
    # `logging/setLevel` and `resources/subscribe` (on rea://session): see `client_notices`.
    "logging": {},
    "prompts": {"listChanged": True},
    "resources": {"listChanged": False, "subscribe": True},
    "tools": {"listChanged": True},
}

MODERN_CAPABILITIES: Final[dict[str, Any]] = {
    "completions": {},
    "prompts": {"listChanged": True},
    # On 2026-07-28 resource changes travel on `subscriptions/listen` streams.
    "resources": {"listChanged": True, "subscribe": True},
    "tools": {"listChanged": True},
}


def server_info() -> dict[str, str]:
    """The `serverInfo` object, in the key order the SDK writes it."""
    return {
        "description": SERVER_DESCRIPTION,
        "name": SERVER_NAME,
        "title": SERVER_TITLE,
        "version": SERVER_VERSION,
    }
