"""Any request through the SDK's public `send_request`, and its result as the server's JSON.

rea-tui sends every method (with any params) as one request type and asks
for the result as a plain dict, so the SDK does what its public path does
(stamping for the negotiated generation, the result's schema check for that
version) and the host still gets the server's own JSON to parse leniently.
Imported only once the SDK is loaded.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from pydantic import TypeAdapter


class RawRequest(types.Request[dict[str, Any] | None, str]):
    """A request for `method` with whatever params the host built."""

    method: str
    params: dict[str, Any] | None = None


RAW_RESULT: TypeAdapter[dict[str, Any]] = TypeAdapter(dict[str, Any])
