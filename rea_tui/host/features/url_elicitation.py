"""URL elicitation required (JSON-RPC error -32042, MCP 2025-11-25).

A server may refuse a request until the user has visited some URLs (a sign-in
at a third party, a payment page): it answers with error -32042 and the URL
elicitations in `error.data.elicitations`. rea-tui shows each one in the
same consent dialog as a URL elicitation request (nothing is opened without
the analyst), and when every one was accepted, sends the request again.
"""

from __future__ import annotations

from typing import Any

from rea_tui.host.features.interaction import ElicitationRequest
from rea_tui.host.protocol.errors import ProtocolError

URL_ELICITATION_REQUIRED = -32042
# How many times one call is sent again after the analyst visited the URLs it asked for.
MAX_URL_ROUNDS = 3
# More elicitations than this in one error are not shown (a hostile server could send thousands).
MAX_ELICITATIONS = 10


def required_url_elicitations(error: ProtocolError, server: str) -> list[ElicitationRequest]:
    """The URL elicitations an error -32042 carries (those with a URL), in order."""
    if error.code != URL_ELICITATION_REQUIRED or not isinstance(error.data, dict):
        return []
    items: Any = error.data.get("elicitations")
    found: list[ElicitationRequest] = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("url"), str) or not item["url"]:
            continue
        message = item.get("message")
        elicitation_id = item.get("elicitationId")
        found.append(
            ElicitationRequest(
                server=server,
                message=message if isinstance(message, str) else "",
                mode="url",
                url=item["url"],
                elicitation_id=elicitation_id if isinstance(elicitation_id, str) else None,
            )
        )
    return found[:MAX_ELICITATIONS]
