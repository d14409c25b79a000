"""Exit codes: 2 usage, 3 server unavailable or exited, 4 protocol error, 5 timeout."""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

from tests.cli import PYTHON, SAMPLE, SAMPLE_STDIO, raw, rea, rea_many

# A legacy stdio server whose prompts/get fails with field diagnostics.
DIAGNOSTICS_SERVER = textwrap.dedent(
    """
    import json, sys

    def send(message):
        sys.stdout.write(json.dumps(message) + "\\n")
        sys.stdout.flush()

    for line in sys.stdin:
        message = json.loads(line)
        method, request_id = message.get("method"), message.get("id")
        if request_id is None:
            continue
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": request_id, "result": {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"prompts": {}},
                "serverInfo": {"name": "diagnostics", "version": "1"}}})
        elif method == "prompts/list":
            send({"jsonrpc": "2.0", "id": request_id, "result": {"prompts": [{"name": "investigate"}]}})
        elif method == "prompts/get":
            send({"jsonrpc": "2.0", "id": request_id, "error": {
                "code": -32602, "message": "Invalid params for prompt",
                "data": {"errors": [
                    {"field": "binary", "message": "no such document"},
                    {"field": "limit", "message": "must be an integer"}]}}})
        else:
            send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "Method not found"}})
    """
)


def test_usage_errors_exit_2() -> None:
    # These fail before any server starts.
    fast = [
        rea("prompts", "--bogus", *SAMPLE),
        rea("complete", "investigate", *SAMPLE),  # missing ARGUMENT
        rea("complete", "investigate", "procedure", "--context", "document", *SAMPLE),
        rea("prompts", "--url", "http://127.0.0.1:9/mcp", "--stdio", SAMPLE_STDIO),
        rea("prompts", "--header", "Authorization: x", "--stdio", SAMPLE_STDIO),
        rea("prompts", "--stdio", SAMPLE_STDIO, *SAMPLE),
        rea("prompts", "--url", "http://127.0.0.1:9/mcp", "--header", "no colon here"),
        rea("nonsense-command"),
    ]
    for run in fast:
        run.expect(2)
        assert run.out == ""
        assert "Traceback" not in run.err
    assert "unrecognized arguments: --bogus" in fast[0].err
    assert "--context 'document' must look like name=value" in fast[2].err
    assert "either --url or --stdio" in fast[3].err
    assert "--header needs --url" in fast[4].err
    assert "not both" in fast[5].err

    bad_pair, bad_json, not_object = rea_many(
        ("get", "investigate", "feature", *SAMPLE),
        ("call", "echo", "--args", "{bad", "--yes", "--trace", *SAMPLE),
        ("call", "echo", "--args", "[1, 2]", "--yes", *SAMPLE),
    )
    bad_pair.expect(2)
    assert "'feature' must look like name=value" in bad_pair.err
    bad_json.expect(2)
    assert "--args is not valid JSON" in bad_json.err
    assert "tools/call" not in bad_json.trace_methods()
    not_object.expect(2)
    assert "--args must be a JSON object" in not_object.err


def test_server_unavailable_or_exited_exits_3() -> None:
    missing, exits, closed_port = rea_many(
        ("prompts", "--", "/nonexistent/rea-test-server", "--flag"),
        ("prompts", *raw("exit")),
        ("prompts", "--json", "--url", "http://127.0.0.1:9/mcp"),
    )
    missing.expect(3)
    assert "cannot start" in missing.err and "/nonexistent/rea-test-server" in missing.err
    exits.expect(3)
    assert "exit code 4" in exits.err
    # The tail of the server's stderr explains why it exited.
    assert "raw-server: configuration missing, giving up" in exits.err
    closed_port.expect(3)
    assert "127.0.0.1:9" in closed_port.err
    # With --json the failure is a JSON object on stdout too, with the exit code.
    failure = closed_port.json()
    assert "127.0.0.1:9" in failure["error"]["message"]
    assert failure["rea"] == {"exitCode": 3, "kind": "ServerUnavailable"}


def test_protocol_errors_exit_4_with_code_and_message(tmp_path: Path) -> None:
    script = tmp_path / "diagnostics_server.py"
    script.write_text(DIAGNOSTICS_SERVER, encoding="utf-8")
    unknown_prompt, no_completions, diagnostics = rea_many(
        ("get", "no_such_prompt", *SAMPLE),
        ("complete", "odd", "thing", "a", *raw("nocomplete")),
        ("get", "investigate", "binary=x", "--protocol", "legacy", "--", PYTHON, str(script)),
    )
    unknown_prompt.expect(4)
    assert "error -32" in unknown_prompt.err
    no_completions.expect(4)
    assert "completions capability" in no_completions.err
    diagnostics.expect(4)
    assert "error -32602: Invalid params for prompt" in diagnostics.err
    assert "binary: no such document" in diagnostics.err
    assert "limit: must be an integer" in diagnostics.err


def test_lint_warnings_are_printed_and_exit_0() -> None:
    human, machine = rea_many(
        ("complete", "odd", "thing", "a", *raw("lint")),
        ("complete", "--json", "odd", "thing", "a", *raw("lint")),
    )
    human.expect(0)
    warnings = [line for line in human.out.splitlines() if line.startswith("warning: ")]
    assert any("non-string values" in w for w in warnings)
    assert any("duplicate" in w for w in warnings)
    assert any("at most 100" in w for w in warnings)
    assert any("total 50" in w for w in warnings)
    reply = machine.expect(0).json()
    assert len(reply["rea"]["warnings"]) == len(warnings)
    # As the server sent it, non-strings and duplicates included; what is wrong with it is under `rea`.
    page = reply["completion"]
    assert page["total"] == 50 and page["hasMore"] is False
    assert not all(isinstance(v, str) for v in page["values"])


def test_timeouts_exit_5() -> None:
    started = time.monotonic()
    slow, hang = rea_many(
        ("call", "slow_task", "seconds=5", "--timeout", "0.5", "--yes", *SAMPLE),
        ("prompts", "--timeout", "0.5", *raw("hang")),
    )
    assert time.monotonic() - started < 15
    slow.expect(5)
    assert "timed out" in slow.out
    assert "tools/call timed out after 0.5 s" in slow.out
    hang.expect(5)
    assert "prompts/list timed out after 0.5 s" in hang.err


def test_server_options_before_the_command_are_honoured() -> None:
    """`rea-tui --timeout 0.5 call ...` (the issue's own example): options given before the
    command must not be reset by the subcommand's defaults."""
    slow, listed = rea_many(
        ("--timeout", "0.5", "call", "slow_task", "seconds=3", "--yes", *SAMPLE),
        ("--json", "--stdio", SAMPLE_STDIO, "servers", "--no-connect"),
    )
    slow.expect(5)  # exit 0 and "slept 3.0 s" when --timeout was dropped
    [row] = listed.expect(0).json()["servers"]
    assert row["rea"]["target"].endswith("-m tests.support.sample_server")
