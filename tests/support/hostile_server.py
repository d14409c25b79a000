"""A hostile MCP server: every string it sends comes from a list the test chose.

`python -m tests.support.hostile_server STRINGS.json` reads a JSON list of
strings (escape sequences, markup, bidi controls, huge values...) and speaks
the legacy handshake over stdio, putting them in every string field of every
MCP object rea-tui reads: server info and instructions, prompts and their
arguments, tools (names, descriptions, annotations, every schema keyword,
output schemas), resources and templates, rendered prompt messages (text,
links, embedded resources, media types), completion values, tool results
(content, structuredContent keys and values, isError), errors (message and
field diagnostics), log messages, an elicitation request (message and
schema) and stderr. Names stay usable: each carries its index, so the host
can send it back. `--modern` after the file: it answers 2026-07-28's
`server/discover` too.
"""

from __future__ import annotations

import json
import sys
from itertools import count
from typing import Any

PROTOCOL_FALLBACK = "2025-11-25"
# With `--modern` it also answers 2026-07-28's `server/discover` (its lists answer either way).
MODERN_VERSION = "2026-07-28"
NO_BRACES = str.maketrans("", "", "{},")


class Strings:
    """Hands out the chosen strings in turn, so every field gets one."""

    def __init__(self, strings: list[str]) -> None:
        self._strings = strings or [""]
        self._next = count()

    def __call__(self) -> str:
        return self._strings[next(self._next) % len(self._strings)]

    def name(self, index: int) -> str:
        # A name must be unique and non-empty: the index keeps it so whatever else it holds.
        return f"n{index}{self()}"


def schema(s: Strings) -> dict[str, Any]:
    """An input schema with the strings in every keyword a form shows."""
    return {
        "type": "object",
        "title": s(),
        "description": s(),
        "properties": {
            s.name(1): {"type": "string", "title": s(), "description": s(), "default": s(), "format": s()},
            s.name(2): {"type": "string", "enum": [s(), s()], "description": s()},
            s.name(3): {"type": "boolean", "title": s(), "default": True},
            s.name(4): {"type": [s(), "string"], "description": s()},
            s.name(5): {"oneOf": [{"const": s(), "title": s()}, {"const": "plain", "title": s()}]},
            s.name(6): {"type": "array", "items": {"type": "string", "enum": [s(), "x"]}, "title": s()},
        },
        "required": [],
    }


def catalog(s: Strings) -> dict[str, Any]:
    return {
        "prompts": [
            {
                "name": s.name(10),
                "title": s(),
                "description": s(),
                "arguments": [
                    {"name": s.name(11), "title": s(), "description": s(), "required": True},
                    {"name": s.name(12), "description": s()},
                ],
            }
        ],
        "tools": [
            {
                "name": s.name(20),
                "title": s(),
                "description": s(),
                "inputSchema": schema(s),
                # The result breaks it (an unknown key, a missing one): the validator's messages quote hostile text.
                "outputSchema": {
                    "type": "object",
                    "properties": {s.name(21): {"type": "string", "pattern": s()}},
                    "required": [s.name(21)],
                    "additionalProperties": False,
                },
                "annotations": {"title": s(), "readOnlyHint": True, "destructiveHint": False},
            },
            {
                "name": s.name(22),
                "description": s(),
                "inputSchema": {"type": "object", "properties": {}},
                "annotations": {"readOnlyHint": True},
            },
        ],
        "resources": [{"uri": f"hostile://r/{s()}", "name": s(), "description": s(), "mimeType": s()}],
        "resourceTemplates": [
            # A variable's braces are the template's syntax: everything else in its name is hostile.
            {"uriTemplate": "hostile://t/{" + s.name(30).translate(NO_BRACES) + "}", "name": s(), "mimeType": s()}
        ],
    }


class HostileServer:
    def __init__(self, strings: list[str], *, modern: bool = False) -> None:
        self.s = Strings(strings)
        self.modern = modern
        self.listing = catalog(self.s)
        self._ids = count(1)
        # Tool calls waiting for the client's answer to the elicitation they asked, by that request's id.
        self._waiting: dict[str, Any] = {}

    def send(self, message: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    def result(self, request_id: Any, value: dict[str, Any]) -> None:
        self.send({"jsonrpc": "2.0", "id": request_id, "result": value})

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def content(self) -> list[dict[str, Any]]:
        s = self.s
        return [
            {"type": "text", "text": s()},
            {"type": "resource_link", "uri": f"hostile://link/{s()}", "name": s(), "description": s()},
            {"type": "resource", "resource": {"uri": f"hostile://e/{s()}", "mimeType": s(), "text": s()}},
            {"type": "image", "mimeType": s(), "data": "aGk="},
            {"type": s(), "what": s()},
        ]

    def handle(self, message: dict[str, Any]) -> None:
        s = self.s
        method, request_id = message.get("method"), message.get("id")
        if method is None and str(request_id) in self._waiting:
            self.finish_call(self._waiting.pop(str(request_id)))
            return
        if method == "initialize":
            sys.stderr.write(f"hostile stderr {s()}\n")
            sys.stderr.flush()
            self.result(
                request_id,
                {
                    "protocolVersion": message.get("params", {}).get("protocolVersion", PROTOCOL_FALLBACK),
                    "capabilities": {
                        "prompts": {"listChanged": True},
                        "tools": {"listChanged": True},
                        "resources": {},
                        "completions": {},
                        "logging": {},
                    },
                    "serverInfo": {"name": f"hostile{s()}", "version": s(), "title": s()},
                    "instructions": s(),
                },
            )
        elif method == "server/discover" and self.modern:
            self.result(
                request_id,
                {
                    "supportedVersions": [MODERN_VERSION],
                    "capabilities": {"prompts": {}, "tools": {}, "resources": {}, "completions": {}},
                    "instructions": s(),
                    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": f"hostile{s()}", "version": s()}},
                },
            )
        elif method == "notifications/initialized":
            self.notify("notifications/message", {"level": "error", "logger": s(), "data": s()})
        elif method in ("prompts/list", "tools/list", "resources/list", "resources/templates/list"):
            key = {"prompts/list": "prompts", "tools/list": "tools", "resources/list": "resources"}.get(
                method, "resourceTemplates"
            )
            self.result(request_id, {key: self.listing[key]})
        elif method == "prompts/get":
            self.result(
                request_id,
                {
                    "description": s(),
                    "messages": [
                        {"role": "user", "content": {"type": "text", "text": f"{s()} use {self.tool_name()} {s()}"}},
                        *({"role": s(), "content": block} for block in self.content()),
                    ],
                },
            )
        elif method == "completion/complete":
            self.result(request_id, {"completion": {"values": [s(), s(), s()], "total": 3, "hasMore": False}})
        elif method == "tools/call":
            self.call(request_id, message.get("params", {}))
        elif method == "resources/read":
            uri = message.get("params", {}).get("uri", "")
            self.result(request_id, {"contents": [{"uri": uri, "mimeType": s(), "text": s()}]})
        elif method == "logging/setLevel" or method == "ping":
            self.result(request_id, {})
        elif request_id is not None and method is not None:
            self.send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": s()}})

    def tool_name(self) -> str:
        return str(self.listing["tools"][0]["name"])

    def call(self, request_id: Any, params: dict[str, Any]) -> None:
        s = self.s
        if params.get("name") == self.listing["tools"][1]["name"]:
            # The second tool fails: an error with field diagnostics, all of it hostile.
            data = {"errors": [{"field": s(), "message": s()}], "detail": s()}
            self.send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32602, "message": s(), "data": data}})
            return
        # The first asks the analyst something first (an elicitation form), then answers.
        ask = f"elicit-{next(self._ids)}"
        self._waiting[ask] = request_id
        form = {"type": "object", "properties": {s.name(40): {"type": "string", "title": s(), "description": s()}}}
        self.send(
            {
                "jsonrpc": "2.0",
                "id": ask,
                "method": "elicitation/create",
                "params": {"message": s(), "requestedSchema": form},
            }
        )

    def finish_call(self, request_id: Any) -> None:
        s = self.s
        self.notify("notifications/message", {"level": "warning", "logger": s(), "data": {s(): s()}})
        self.notify("notifications/progress", {"progressToken": request_id, "progress": 1, "total": 2, "message": s()})
        structured = {s(): s(), "nested": {s(): [s(), s()]}, "ask_user": s()}
        self.result(request_id, {"content": self.content(), "structuredContent": structured, "isError": False})


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as source:
        strings = json.load(source)
    server = HostileServer([str(item) for item in strings], modern="--modern" in sys.argv[2:])
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict):
            server.handle(message)


if __name__ == "__main__":
    main()
