"""Hostile servers: nothing they send reaches the terminal as a control sequence."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.cli import PYTHON, assert_terminal_safe, raw, rea_many, sample_entry, write_config

HOSTILE_PROMPT = "hostile[red]prompt[/red]\x1b[2J"

# A legacy stdio server that puts escape sequences where the host might not look:
# server-to-client method names and request ids, capability names, error data.
SNEAKY_SERVER = textwrap.dedent(
    r"""
    import json, sys

    ESC = "\x1b]52;c;cHduZWQ=\x07\x1b[2J\x9b31m\x07"

    def send(message):
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        message = json.loads(line)
        method, request_id = message.get("method"), message.get("id")
        if request_id is None:
            continue
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": request_id, "result": {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"prompts": {}, "tools": {}, "x" + ESC: {}},
                "serverInfo": {"name": "sneaky" + ESC, "version": "1" + ESC}}})
        elif method == "prompts/list":
            send({"jsonrpc": "2.0", "method": "notifications/" + ESC, "params": {}})
            send({"jsonrpc": "2.0", "id": "srv" + ESC, "method": "ping" + ESC})
            send({"jsonrpc": "2.0", "id": request_id, "result": {"prompts": [{"name": "p" + ESC}]}})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": request_id, "result": {"tools": []}})
        elif method == "prompts/get":
            send({"jsonrpc": "2.0", "id": request_id, "error": {
                "code": -32602, "message": "bad" + ESC,
                "data": {"errors": [{"field": "f" + ESC, "message": "m" + ESC}]}}})
        else:
            send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "no" + ESC}})
    """
)


def test_raw_hostile_server_human_and_json() -> None:
    server = raw("hostile")
    runs = rea_many(
        ("servers", "--trace", *server),
        ("prompts", "--trace", *server),
        ("prompts", "--json", *server),
        ("tools", *server),
        ("complete", "odd\x1b[31mred", "thing", "v", "--trace", *server),
        ("get", "odd", "thing=x", "--trace", *server),
        ("call", "probe", "x=1", "--yes", "--trace", *server),
        ("call", "--json", "probe", "x=1", "--yes", *server),
    )
    for run in runs:
        run.expect(0)
        assert_terminal_safe(run)
    servers, prompts, _, tools, complete, get, call, _ = runs
    # The text is still shown, just without the escapes.
    assert "raw-hostile" in servers.out
    assert "odd" in prompts.out and "[red]x[/red]" in prompts.out
    assert "probe" in tools.out
    assert "v" in complete.out
    assert "probe" in get.out.split("steps:", 1)[1]
    assert "probe result" in call.out


def test_hostile_sample_server_human_and_json(tmp_path: Path) -> None:
    config = write_config(
        tmp_path / "hostile.json", {"mcpServers": {"hostile": sample_entry(env={"SAMPLE_HOSTILE": "1"})}}
    )
    server = ("--config", str(config))
    runs = rea_many(
        ("prompts", "--trace", *server),
        ("prompts", "--json", *server),
        ("complete", "investigate", "feature", "", *server),
        ("get", HOSTILE_PROMPT, "target=x", *server),
        ("call", "echo", "text=hi", "--yes", *server),
        ("call", "--json", "echo", "text=hi", "--yes", *server),
        ("read", "sample://readme", *server),
    )
    for run in runs:
        run.expect(0)
        assert_terminal_safe(run)
    prompts, prompts_json, complete, *_ = runs
    assert "hostile[red]prompt[/red]" in prompts.out
    assert any(p["name"] == HOSTILE_PROMPT for p in prompts_json.json()["prompts"])
    assert "feat" in complete.out


def test_sneaky_server_trace_capabilities_and_errors(tmp_path: Path) -> None:
    script = tmp_path / "sneaky_server.py"
    script.write_text(SNEAKY_SERVER, encoding="utf-8")
    server = ("--protocol", "legacy", "--", PYTHON, str(script))
    servers, prompts, get = rea_many(("servers", *server), ("prompts", "--trace", *server), ("get", "p", *server))
    servers.expect(0)
    prompts.expect(0)
    get.expect(4)
    assert "f: m" in get.err
    for run in (servers, get):
        assert_terminal_safe(run)
    # The traffic table shows server-chosen method names and request ids.
    assert_terminal_safe(prompts)
