"""`--json` is MCP: each command's result as the server sent it, rea-tui's own facts under one `rea` key.

Checked field by field against the SDK's result models (the Inspector CLI's
`--format json` prints the SDK client's result objects as they are): the JSON
minus `rea` validates as the model and dumps back to itself, so a flattened,
renamed, dropped or invented field fails. The exit code in the JSON is the
process's; a usage error prints a JSON error object too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp.types as mcp_types
from pydantic import BaseModel

from tests.cli import SAMPLE, Run, raw, rea, rea_many
from tests.cli.test_run_script import rea as rea_plain
from tests.support.npm_servers import everything_command

STARTUP = "demo://resource/static/document/startup.md"


def everything() -> tuple[str, ...]:
    return ("--", *everything_command())


def as_sent(data: dict[str, Any], model: type[BaseModel]) -> dict[str, Any]:
    """`data` without `rea`, asserted to be exactly an SDK `model` (validates, and dumps back to itself)."""
    sent = {key: value for key, value in data.items() if key != "rea"}
    dumped = model.model_validate(sent).model_dump(by_alias=True, exclude_unset=True, mode="json")
    assert dumped == sent, f"{model.__name__}: not the result as sent\n{dumped}\n!=\n{sent}"
    return sent


def test_every_command_prints_the_result_as_the_sdk_models_it() -> None:
    tools, prompts, resources, get, read, complete, call = rea_many(
        ("tools", "--json", *everything()),
        ("prompts", "--json", *everything()),
        ("resources", "--json", *everything()),
        ("get", "--json", "args-prompt", "city=Oslo", *everything()),
        ("read", "--json", STARTUP, *everything()),
        ("complete", "--json", "completable-prompt", "department", "E", *everything()),
        ("call", "--json", "get-structured-content", "location=Chicago", "--yes", *everything()),
    )
    assert {t["name"] for t in as_sent(tools.expect(0).json(), mcp_types.ListToolsResult)["tools"]} >= {"echo"}
    assert "rea" not in tools.json()
    assert {p["name"] for p in as_sent(prompts.expect(0).json(), mcp_types.ListPromptsResult)["prompts"]} >= {
        "args-prompt"
    }
    # `resources` is both lists: each part is its result as sent.
    listed = resources.expect(0).json()
    assert set(listed) == {"resources", "resourceTemplates"}
    as_sent({"resources": listed["resources"]}, mcp_types.ListResourcesResult)
    as_sent({"resourceTemplates": listed["resourceTemplates"]}, mcp_types.ListResourceTemplatesResult)

    rendered = get.expect(0).json()
    assert "Oslo" in as_sent(rendered, mcp_types.GetPromptResult)["messages"][0]["content"]["text"]
    assert rendered["rea"]["prompt"] == "args-prompt" and rendered["rea"]["arguments"] == {"city": "Oslo"}
    assert as_sent(read.expect(0).json(), mcp_types.ReadResourceResult)["contents"][0]["uri"] == STARTUP

    page = complete.expect(0).json()
    sent = as_sent(page, mcp_types.CompleteResult)
    # Nested as sent, not flattened; rea-tui's facts only under `rea`.
    assert set(sent["completion"]) >= {"values", "hasMore"} and "values" not in sent
    assert sent["completion"]["values"] == ["Engineering"]
    assert set(page["rea"]) == {"argument", "value", "latencyMs", "warnings", "notes"}
    assert page["rea"]["argument"] == "department" and page["rea"]["value"] == "E"

    result = call.expect(0).json()
    assert as_sent(result, mcp_types.CallToolResult)["structuredContent"]["conditions"]
    assert result["rea"]["exitCode"] == 0 and result["rea"]["outcome"] == "ok"


def test_complete_keeps_the_servers_meta() -> None:
    """The bundled server's `rea/discovery` (how far discovery went) stays in `_meta` as sent."""
    page = rea("complete", "--json", "investigate_feature", "procedure", "_init").expect(0).json()
    sent = as_sent(page, mcp_types.CompleteResult)
    discovery = sent["_meta"]["rea/discovery"]
    assert discovery["complete"] is True and discovery["addresses"] > 0
    assert sent["completion"]["values"] == ["_init@libpython3.11.so.1.0", "_init@python3.11"]
    assert page["rea"]["notes"] == []


def test_the_json_exit_code_is_the_process_exit_code() -> None:
    """`--elicit-accept` on a form whose required field has no default: the answer is refused (declined), exit 2,
    and the JSON printed says 2 and why, not the call's 0."""
    refused, declined = rea_many(
        ("call", "trigger-elicitation-request", "--yes", "--elicit-accept", "--json", *everything()),
        ("call", "trigger-elicitation-request", "--yes", "--elicit-decline", "--json", *everything()),
    )
    data = refused.expect(2).json()
    as_sent(data, mcp_types.CallToolResult)
    assert data["rea"]["exitCode"] == 2
    assert data["rea"]["outcome"] == "ok"  # the tool itself answered
    assert data["rea"]["elicitationRefused"] == ["name: required"]
    assert "was refused" in refused.err
    plain = declined.expect(0).json()
    assert plain["rea"]["exitCode"] == 0 and "elicitationRefused" not in plain["rea"]


def usage_error(run: Run) -> str:
    """The JSON error object of a usage error (exit 2), its message; the human message is on stderr as well."""
    data = run.expect(2).json()
    assert set(data) == {"error", "rea"}
    assert data["rea"] == {"exitCode": 2, "kind": "UsageError"}
    message: str = data["error"]["message"]
    assert message in run.err
    return message


def test_a_usage_error_with_json_prints_a_json_error() -> None:
    missing, unknown, bad_pair = rea_many(
        ("complete", "--json"),
        ("tools", "--json", "--no-such-option", *SAMPLE),
        ("call", "echo", "--json", "--elicit", "oops", "--yes", *SAMPLE),
    )
    assert "required: PROMPT|URI_TEMPLATE, argument" in usage_error(missing)
    assert "usage: rea-tui complete" in missing.err
    assert "unrecognized arguments: --no-such-option" in usage_error(unknown)
    assert "must look like name=value" in usage_error(bad_pair)
    # Without --json, stdout stays empty as before.
    assert rea("complete").expect(2).out == ""


def test_a_failure_without_its_own_json_prints_one() -> None:
    """A command that fails before it has a result (here: a capability the server lacks) still prints JSON."""
    failed = rea("complete", "--json", "odd", "thing", "a", *raw("nocomplete")).expect(4).json()
    assert failed["rea"] == {"exitCode": 4, "kind": "Protocol"}
    assert "completions capability" in failed["error"]["message"]


def test_usage_errors_in_a_script_print_json_per_line(tmp_path: Path) -> None:
    """In a session (`rea-tui run`) each line's usage error is its own JSON object, after a line that printed JSON."""
    script = tmp_path / "lines.rea"
    script.write_text("tools --json\ncomplete --json\ncall echo --json --elicit oops --yes\n", encoding="utf-8")
    run = rea_plain("run", str(script), "--keep-going", *SAMPLE).expect(2)
    documents = [doc for doc in run.out.split("\n}\n") if doc.strip()]
    assert len(documents) == 3, run.out
    assert '"tools"' in documents[0]
    assert '"kind": "UsageError"' in documents[1] and "required: PROMPT|URI_TEMPLATE" in documents[1]
    assert '"kind": "UsageError"' in documents[2] and "must look like name=value" in documents[2]
