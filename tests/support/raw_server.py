"""A deliberately badly behaved MCP server, written without the SDK.

`python -m tests.support.raw_server MODE` speaks the legacy handshake over
stdio and then misbehaves the way MODE says, so tests can show that rea-tui
reports the problem and keeps working:

- lint:     completion replies that break the spec (too many values,
            duplicates, non-strings, a wrong total or hasMore)
- garbage:  non-JSON lines and JSON that is not JSON-RPC between replies
- huge:     a 5 MB prompt and tool result
- hang:     never answers prompts/list or tools/call
- exit:     writes to stderr and exits with code 4 before answering
- hostile:  escape sequences and Rich markup in every string it sends
- nocomplete: does not declare the completions capability
- urlelicit: each tools/call first asks the client to open the URL given as the next argument
            (URL-mode elicitation; @PATH: the URL in that file), then answers with the action the client chose
- storm:    right after the handshake, 2,000 prompts/list_changed notifications
- garbageflood: right after the handshake, 5,000 lines that are not JSON
- deep:     tools/call is answered with a message nested 100,000 levels deep, ping still works
- askmany:  each tools/call asks 100 elicitation questions at once, then answers with how many it got
- askflood: like askmany with the count given as the next argument (10,000 by default)
- askfloodstart: sends askflood's elicitation requests as soon as the session is initialized, with no call
- badprogress: each tools/call first sends a notifications/progress whose progress is not a number
            and a notifications/progress with no params, then answers
- echolog:  sends $API_TOKEN in log messages (as text and nested in data) and to stderr
- echosecret: writes $API_TOKEN to stderr and into its error messages, then exits when a tool is called
- endlesstask: declares tasks; its tool runs only as a task, which stays "working" until cancelled
            (tasks/result is never answered)
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from typing import Any

ESC = "\x1b[31mred\x1b[0m\x1b]8;;http://evil.example\x07link\x1b]8;;\x07\x1b]52;c;cHduZWQ=\x07\x07"
MARKUP = "[red]x[/red][link=http://evil.example]y[/link]"
STORM_NOTIFICATIONS = 2_000
GARBAGE_LINES = 5_000
DEPTH = 100_000
MANY_QUESTIONS = 100
FLOOD_QUESTIONS = 10_000
ENDLESS_TASK = "endless-1"


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def result(request_id: Any, value: dict[str, Any]) -> None:
    send({"jsonrpc": "2.0", "id": request_id, "result": value})


def error(request_id: Any, code: int, message: str, data: Any = None) -> None:
    payload: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        payload["data"] = data
    send({"jsonrpc": "2.0", "id": request_id, "error": payload})


def ask_many(questions: int) -> None:
    """`questions` elicitation requests at once (ids many-0, many-1, ...)."""
    for number in range(questions):
        send(
            {
                "jsonrpc": "2.0",
                "id": f"many-{number}",
                "method": "elicitation/create",
                "params": {"message": f"question {number}", "requestedSchema": {"type": "object", "properties": {}}},
            }
        )


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "lint"
    if mode == "exit":
        sys.stderr.write("raw-server: configuration missing, giving up\n" * 3)
        sys.stderr.flush()
        raise SystemExit(4)
    hostile = mode == "hostile"
    name = f"odd{ESC}{MARKUP}" if hostile else "odd"
    url_to_open = sys.argv[2] if len(sys.argv) > 2 else "https://example.org/"
    if mode == "urlelicit" and url_to_open.startswith("@"):
        # A URL longer than one command-line argument may be (128 KiB on Linux) comes from a file.
        with open(url_to_open[1:], encoding="utf-8") as source:
            url_to_open = source.read()
    questions = MANY_QUESTIONS
    if mode in ("askflood", "askfloodstart"):
        questions = int(sys.argv[2]) if len(sys.argv) > 2 else FLOOD_QUESTIONS
    pending_calls: dict[str, Any] = {}
    answered: set[str] = set()
    many_call: list[Any] = []
    actions: Counter[str] = Counter()
    secret = os.environ.get("API_TOKEN", "")
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        method = message.get("method")
        request_id = message.get("id")
        if method == "notifications/initialized":
            if mode == "askfloodstart":
                ask_many(questions)
            if mode == "storm":
                for _ in range(STORM_NOTIFICATIONS):
                    send({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"})
            elif mode == "garbageflood":
                sys.stdout.write("not json at all\n" * GARBAGE_LINES)
                sys.stdout.flush()
            elif mode in ("echosecret", "echolog"):
                sys.stderr.write(f"raw-server: using token {secret}\n")
                sys.stderr.flush()
            if mode == "echolog":
                for data in (f"using token {secret}", {"request": {"headers": {"Authorization": f"Bearer {secret}"}}}):
                    send(
                        {
                            "jsonrpc": "2.0",
                            "method": "notifications/message",
                            "params": {"level": "warning", "logger": f"auth {secret}", "data": data},
                        }
                    )
        if request_id is None:
            continue
        if method is None and str(request_id).startswith("many-"):
            answered.add(str(request_id))
            actions[str((message.get("result") or {}).get("action", "error"))] += 1
            if len(answered) == questions:
                text = f"{len(answered)} answers"
                if mode == "askflood":
                    text += ": " + ", ".join(f"{count} {action}" for action, count in sorted(actions.items()))
                if many_call:
                    result(many_call.pop(), {"content": [{"type": "text", "text": text}]})
            continue
        if method is None and str(request_id) in pending_calls:
            # The client's answer to our URL elicitation: the call it was for can now finish.
            action = (message.get("result") or {}).get("action", "error")
            result(
                pending_calls.pop(str(request_id)),
                {"content": [{"type": "text", "text": f"the client chose {action}"}]},
            )
            continue
        if mode == "garbage":
            sys.stdout.write("this is not json\n")
            sys.stdout.write('{"hello": "json but not json-rpc"}\n')
            sys.stdout.flush()
        if method == "initialize":
            capabilities: dict[str, Any] = {"prompts": {}, "tools": {}}
            if mode == "endlesstask":
                capabilities["tasks"] = {"requests": {"tools": {"call": {}}}, "cancel": {}, "list": {}}
            if mode != "nocomplete":
                capabilities["completions"] = {}
            if mode == "echolog":
                capabilities["logging"] = {}
            result(
                request_id,
                {
                    "protocolVersion": message["params"]["protocolVersion"],
                    "capabilities": capabilities,
                    "serverInfo": {"name": f"raw-{mode}{ESC if hostile else ''}", "version": "0"},
                },
            )
        elif method == "prompts/list":
            if mode == "hang":
                continue
            result(
                request_id,
                {
                    "prompts": [
                        {
                            "name": name,
                            "description": f"desc {ESC} {MARKUP}" if hostile else "An odd prompt.",
                            "arguments": [
                                {"name": "thing", "description": MARKUP if hostile else "", "required": True}
                            ],
                        },
                        {"name": 42},
                        "not a prompt",
                    ]
                },
            )
        elif method == "prompts/get":
            text = "x" * 5_000_000 if mode == "huge" else f"Use the probe tool. {ESC if hostile else ''}"
            result(request_id, {"messages": [{"role": "user", "content": {"type": "text", "text": text}}]})
        elif method == "completion/complete":
            value = message["params"]["argument"]["value"]
            if mode == "lint":
                values: list[Any] = [f"{value}{i}" for i in range(120)] + [f"{value}1", 7, None]
                result(request_id, {"completion": {"values": values, "total": 50, "hasMore": False}})
            elif mode == "hostile":
                result(request_id, {"completion": {"values": [f"v{ESC}", MARKUP], "total": 2, "hasMore": False}})
            else:
                result(request_id, {"completion": {"values": "not a list"}})
        elif method == "tools/list":
            result(
                request_id,
                {
                    "tools": [
                        {
                            "name": "probe",
                            "description": f"Probe {ESC}" if hostile else "Probe.",
                            "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}},
                            **({"execution": {"taskSupport": "required"}} if mode == "endlesstask" else {}),
                        }
                    ]
                },
            )
        elif mode == "endlesstask" and method in ("tools/call", "tasks/get", "tasks/cancel"):
            status = "cancelled" if method == "tasks/cancel" else "working"
            task = {
                "taskId": ENDLESS_TASK,
                "status": status,
                "createdAt": "2026-01-01T00:00:00Z",
                "lastUpdatedAt": "2026-01-01T00:00:00Z",
                "ttl": 60_000,
                "pollInterval": 100,
            }
            sys.stderr.write(f"raw-server: {method}\n")
            sys.stderr.flush()
            result(request_id, {"task": task} if method == "tools/call" else task)
        elif method == "tasks/result":
            continue  # the endless task never has one
        elif method == "tools/call" and mode == "deep":
            sys.stdout.write(
                '{"jsonrpc": "2.0", "id": '
                + json.dumps(request_id)
                + ', "result": '
                + "[" * DEPTH
                + "]" * DEPTH
                + "}\n"
            )
            sys.stdout.flush()
        elif method == "tools/call" and mode in ("askmany", "askflood"):
            many_call.append(request_id)
            ask_many(questions)
        elif method == "tools/call" and mode == "badprogress":
            token = ((message.get("params") or {}).get("_meta") or {}).get("progressToken", request_id)
            send(
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/progress",
                    "params": {"progressToken": token, "progress": "lots"},
                }
            )
            send({"jsonrpc": "2.0", "method": "notifications/progress"})
            result(request_id, {"content": [{"type": "text", "text": "done"}]})
        elif method == "tools/call" and mode == "echosecret":
            error(request_id, -32603, f"token {secret} was refused")
        elif method == "tools/call" and mode == "urlelicit":
            ask = f"open-{request_id}"
            pending_calls[ask] = request_id
            send(
                {
                    "jsonrpc": "2.0",
                    "id": ask,
                    "method": "elicitation/create",
                    "params": {"mode": "url", "message": "Sign in here", "url": url_to_open, "elicitationId": ask},
                }
            )
        elif method == "tools/call":
            if mode == "hang":
                continue
            text = "y" * 5_000_000 if mode == "huge" else f"probe result {ESC if hostile else ''}{MARKUP}"
            result(request_id, {"content": [{"type": "text", "text": text}]})
        elif method == "ping" or (method == "logging/setLevel" and mode == "echolog"):
            result(request_id, {})
        else:
            error(request_id, -32601, f"Method not found: {method}")


if __name__ == "__main__":
    main()
