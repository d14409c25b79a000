"""A completion server that breaks one audit rule per argument, written without the SDK.

`python -m tests.support.audit_server [--hang-all] [--no-completions]` speaks
the legacy handshake over stdio. Its prompt `rules` has one argument per
rule of `rea_tui.host.audit.rules`, named after the way it misbehaves; every
other argument follows MCP and the REA contract exactly (NFKC
case-insensitive prefix matches in code-point order, total and hasMore
right, over-long values rejected with -32602 and field diagnostics). A few
more prompts break the prompt-level rules, one each.

- `--hang-all`: never answers completion/complete.
- `--no-completions`: does not declare the completions capability.
- `--crash-prompt`: also lists the prompt `crashes` (first), on any request about which the server exits.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from typing import Any

MAX_VALUE_CHARS = 4096
POOL = ["alpha", "alphabet", "apex", "beta", "bravo", "Charlie", "chi", "cyan", "delta", "dune", "éclair", "Éire"]
LOWERCASE_POOL = [v for v in POOL if v == v.lower() and v.isascii()]
MANY = [f"m{i:03d}" for i in range(150)]
LONG_VALUE = "l" + "o" * 4999

# Argument of the `rules` prompt -> how it breaks the rules ("good" breaks none).
RULE_ARGUMENTS = [
    "good",
    "too_many",
    "non_string",
    "duplicates",
    "bad_total",
    "bad_has_more",
    "bad_shape",
    "no_total",
    "not_prefix",
    "unsorted",
    "case_sensitive",
    "no_nfkc",
    "folded_spelling",
    "nondeterministic",
    "narrowing_leak",
    "total_grows",
    "kept_dropped",
    "long_value",
    "error_reply",
    "over_long_accepted",
    "over_long_no_diagnostics",
    "hang",
    "exits",
    "stalls",
]

PROMPTS: list[dict[str, Any]] = [
    {"name": "rules", "description": "One argument per rule.", "arguments": [{"name": a} for a in RULE_ARGUMENTS]},
    {"name": "render_fails", "arguments": [{"name": "target", "required": True}]},
    {"name": "dangling_step"},
    {"name": "no_steps"},
    {"name": "unknown_offered", "arguments": [{"name": "good"}]},
    {"name": "placeholder_rejected", "arguments": [{"name": "thing", "required": True}]},
]
PROMPT_ARGUMENTS = {p["name"]: [a["name"] for a in p.get("arguments", [])] for p in PROMPTS}
TEMPLATE = "audit://things/{good}"
KNOWN_VALUES = set(POOL) | set(MANY) | {LONG_VALUE}

seen: dict[str, int] = {}
stalled = False


def fold(value: str) -> str:
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", value).casefold())


def nfkc(value: str) -> str:
    return unicodedata.normalize("NFKC", value)


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


def invalid(request_id: Any, field: str, message: str) -> None:
    error(request_id, -32602, f"Invalid params: {field}: {message}", {"errors": [{"field": field, "message": message}]})


def pool_of(argument: str) -> list[str]:
    if argument == "thing":
        return []
    if argument == "too_many":
        return MANY
    if argument == "folded_spelling":
        return LOWERCASE_POOL
    if argument == "long_value":
        return [*POOL, LONG_VALUE]
    return POOL


def matches(argument: str, prefix: str) -> list[str]:
    pool = pool_of(argument)
    if argument == "not_prefix":
        found = [v for v in pool if fold(prefix) in fold(v)]
    elif argument == "case_sensitive":
        found = [v for v in pool if nfkc(v).startswith(nfkc(prefix))]
    elif argument == "no_nfkc":
        found = [v for v in pool if v.casefold().startswith(prefix.casefold())]
    else:
        found = [v for v in pool if fold(v).startswith(fold(prefix))]
    return sorted(set(found))


def completion(argument: str, prefix: str, context: dict[str, str]) -> dict[str, Any]:
    found = matches(argument, prefix)
    limit = 120 if argument == "too_many" else 100
    values: list[Any] = found[:limit]
    total: Any = len(found)
    has_more = total > len(values)
    if argument == "non_string" and values:
        values.append(7)
        total += 1
    elif argument == "duplicates" and values:
        values.insert(1, values[0])
        total += 1
    elif argument == "bad_total" and values:
        total = len(values) - 1
    elif argument == "bad_has_more":
        has_more = True
    elif argument == "bad_shape":
        total = str(total)
    elif argument == "unsorted":
        values.reverse()
    elif argument == "folded_spelling":
        # Echoes the prefix's spelling instead of keeping the value's own.
        values = sorted(prefix + v[len(prefix) :] for v in values)
    elif argument == "nondeterministic":
        key = json.dumps([argument, prefix, context], sort_keys=True)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1 and values:
            values, has_more = values[:-1], True
    elif argument == "narrowing_leak" and len(prefix) >= 2:
        values = sorted([*values, fold(prefix) + "_leak"])
        total += 1
    elif argument == "total_grows":
        total += 10 * len(prefix)
        has_more = total > len(values)
    elif argument == "kept_dropped" and len(prefix) >= 2 and values:
        values = values[:-1]
        total, has_more = len(values), False
    body: dict[str, Any] = {"values": values, "hasMore": has_more}
    if argument != "no_total":
        body["total"] = total
    return {"completion": body}


CRASHING_PROMPT = {"name": "crashes", "arguments": [{"name": "first"}, {"name": "second"}, {"name": "third"}]}


def crash_on(name: object) -> None:
    if name == CRASHING_PROMPT["name"]:
        sys.stderr.write("audit-server: exiting on a request about the crashing prompt\n")
        sys.stderr.flush()
        raise SystemExit(3)


def complete(request_id: Any, params: dict[str, Any]) -> None:
    global stalled
    ref = params.get("ref") or {}
    crash_on(ref.get("name"))
    argument = (params.get("argument") or {}).get("name", "")
    value = (params.get("argument") or {}).get("value", "")
    context = ((params.get("context") or {}).get("arguments")) or {}
    if ref.get("type") == "ref/prompt":
        if ref.get("name") not in PROMPT_ARGUMENTS:
            invalid(request_id, "ref.name", "unknown prompt")
            return
        known = PROMPT_ARGUMENTS[ref["name"]]
    elif ref.get("uri") == TEMPLATE:
        known = ["good"]
    else:
        invalid(request_id, "ref.uri", "unknown resource template")
        return
    if argument == "hang":
        return
    if argument not in known:
        if ref.get("name") == "unknown_offered":
            result(request_id, {"completion": {"values": ["alpha"], "total": 1, "hasMore": False}})
        else:
            invalid(request_id, "argument.name", "no such argument")
        return
    if len(value) > MAX_VALUE_CHARS:
        if argument == "exits":
            sys.stderr.write("audit-server: exiting on an over-long value\n")
            sys.stderr.flush()
            raise SystemExit(3)
        if argument == "over_long_no_diagnostics":
            error(request_id, -32602, "value too long")
            return
        if argument != "over_long_accepted":
            invalid(request_id, "argument.value", f"longer than {MAX_VALUE_CHARS} characters")
            stalled = argument == "stalls"
            return
    if argument == "error_reply" and any(v not in KNOWN_VALUES for v in context.values()):
        error(request_id, -32603, "Internal error: the provider failed")
        return
    result(request_id, completion(argument, value, context))


PROMPT_TEXT = {
    "rules": "Steps:\n\n1. `probe_tool`: probe the thing.\n",
    "dangling_step": "Steps:\n\n1. `probe_tool`: probe.\n2. `missing_tool`: a tool the server does not have.\n",
    "no_steps": "Think it over.",
    "unknown_offered": "Use probe_tool.",
}


def get_prompt(request_id: Any, params: dict[str, Any]) -> None:
    name = params.get("name")
    arguments = params.get("arguments") or {}
    if name == "render_fails":
        error(request_id, -32603, "Internal error: rendering failed")
    elif name == "placeholder_rejected":
        invalid(request_id, "arguments.thing", f"no thing named {arguments.get('thing')!r}")
    elif name in PROMPT_TEXT:
        text = PROMPT_TEXT[name]
        result(request_id, {"messages": [{"role": "user", "content": {"type": "text", "text": text}}]})
    else:
        invalid(request_id, "name", "unknown prompt")


def main() -> None:
    hang_all = "--hang-all" in sys.argv
    completions = "--no-completions" not in sys.argv
    if "--crash-prompt" in sys.argv:
        PROMPTS.insert(0, CRASHING_PROMPT)
        PROMPT_ARGUMENTS[CRASHING_PROMPT["name"]] = [a["name"] for a in CRASHING_PROMPT["arguments"]]
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        method, request_id = message.get("method"), message.get("id")
        params = message.get("params") or {}
        if request_id is None or stalled:
            continue
        if method == "initialize":
            capabilities: dict[str, Any] = {"prompts": {}, "tools": {}, "resources": {}}
            if completions:
                capabilities["completions"] = {}
            result(
                request_id,
                {
                    "protocolVersion": params["protocolVersion"],
                    "capabilities": capabilities,
                    "serverInfo": {"name": "audit-server", "version": "1"},
                },
            )
        elif method == "prompts/list":
            result(request_id, {"prompts": PROMPTS})
        elif method == "prompts/get":
            crash_on(params.get("name"))
            get_prompt(request_id, params)
        elif method == "tools/list":
            result(
                request_id,
                {"tools": [{"name": "probe_tool", "description": "Probe.", "inputSchema": {"type": "object"}}]},
            )
        elif method == "resources/list":
            result(request_id, {"resources": []})
        elif method == "resources/templates/list":
            result(request_id, {"resourceTemplates": [{"uriTemplate": TEMPLATE, "name": "things"}]})
        elif method == "completion/complete":
            if not hang_all:
                complete(request_id, params)
        elif method == "ping":
            result(request_id, {})
        else:
            error(request_id, -32601, f"Method not found: {method}")


if __name__ == "__main__":
    main()
