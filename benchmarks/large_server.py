"""A stdio MCP server with very long lists, for `scale.py`: written without the SDK, so it starts at once.

    python benchmarks/large_server.py [--tools 5000] [--prompts 2000] [--page 500]

It speaks the legacy handshake (`initialize`; `server/discover` is "method
not found", so a client falls back), lists TOOLS tools and PROMPTS prompts
in pages of PAGE (following `nextCursor`), one resource, and answers
`tools/call` with a line of text. Names are `tool_00001`... and
`prompt_00001`..., with titles and descriptions so the labels are realistic.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

PROTOCOL_VERSION = "2025-11-25"
METHOD_NOT_FOUND = -32601
NAME_DIGITS = 5


def tool(number: int) -> dict[str, Any]:
    name = f"tool_{number:0{NAME_DIGITS}d}"
    return {
        "name": name,
        "title": f"Tool number {number}",
        "description": f"Inspect item {number} of the synthetic catalogue and report what it holds.",
        "inputSchema": {
            "type": "object",
            "properties": {"target": {"type": "string", "description": "What to inspect"}},
            "required": ["target"],
        },
        "annotations": {"readOnlyHint": number % 2 == 0},
    }


def prompt(number: int) -> dict[str, Any]:
    return {
        "name": f"prompt_{number:0{NAME_DIGITS}d}",
        "title": f"Guided prompt {number}",
        "description": f"Walk through investigation {number} step by step.",
        "arguments": [
            {"name": "target", "description": "What to investigate", "required": True},
            {"name": "notes", "description": "Anything known already", "required": False},
        ],
    }


class LargeServer:
    def __init__(self, tools: int, prompts: int, page: int) -> None:
        self.tools = [tool(n) for n in range(1, tools + 1)]
        self.prompts = [prompt(n) for n in range(1, prompts + 1)]
        self.page = page

    def paged(self, items: list[dict[str, Any]], key: str, params: dict[str, Any]) -> dict[str, Any]:
        start = int(params.get("cursor") or 0)
        result: dict[str, Any] = {key: items[start : start + self.page]}
        if start + self.page < len(items):
            result["nextCursor"] = str(start + self.page)
        return result

    def answer(self, method: str, params: dict[str, Any]) -> dict[str, Any] | None:
        if method == "initialize":
            return {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {"tools": {}, "prompts": {}, "resources": {}},
                "serverInfo": {"name": "large-server", "version": "1.0.0"},
            }
        if method == "tools/list":
            return self.paged(self.tools, "tools", params)
        if method == "prompts/list":
            return self.paged(self.prompts, "prompts", params)
        if method == "resources/list":
            return {"resources": [{"uri": "large://readme", "name": "readme", "mimeType": "text/plain"}]}
        if method == "resources/templates/list":
            return {"resourceTemplates": []}
        if method == "tools/call":
            return {"content": [{"type": "text", "text": f"{params.get('name')} looked at {params.get('arguments')}"}]}
        if method == "ping":
            return {}
        return None

    def serve(self) -> None:
        for line in sys.stdin:
            if not line.strip():
                continue
            message = json.loads(line)
            if "id" not in message or "method" not in message:
                continue  # notifications and replies need no answer
            result = self.answer(message["method"], message.get("params") or {})
            reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
            if result is None:
                reply["error"] = {"code": METHOD_NOT_FOUND, "message": f"unknown method {message['method']}"}
            else:
                reply["result"] = result
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tools", type=int, default=5000)
    parser.add_argument("--prompts", type=int, default=2000)
    parser.add_argument("--page", type=int, default=500, help="items per list page")
    args = parser.parse_args()
    LargeServer(args.tools, args.prompts, args.page).serve()


if __name__ == "__main__":
    main()
