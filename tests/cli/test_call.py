"""`rea-tui call`: approval, evidence, arguments, elicitation and narrowing questions."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.cli import PYTHON, REPO, SAMPLE, Run, rea_command, rea_many

# A small real server whose tool answers with a progressive-narrowing reply.
NARROWING_SERVER = textwrap.dedent(
    '''
    from typing import Any

    from mcp.server.mcpserver import MCPServer
    from mcp_types import ToolAnnotations

    server = MCPServer("narrowing-server", version="1.0.0")
    PROCEDURES = {1: "render_page", 2: "render_text", 3: "helper_main"}


    @server.tool(annotations=ToolAnnotations(readOnlyHint=True))
    def find_procedure(procedure: str) -> dict[str, Any]:
        """Resolve a procedure by name."""
        exact = [(i, n) for i, n in PROCEDURES.items() if n == procedure]
        if exact:
            return {"found": exact[0][1], "id": exact[0][0]}
        matches = [(i, n) for i, n in PROCEDURES.items() if procedure in n]
        return {
            "reason": "ambiguous" if matches else "not_found",
            "ask_user": f"Which procedure did you mean by {procedure!r}?",
            "candidates": [{"id": i, "name": n} for i, n in (matches or PROCEDURES.items())],
            "scoped_by": {},
        }


    server.run("stdio")
    '''
)


def test_without_yes_and_no_terminal_nothing_is_sent() -> None:
    human, machine = rea_many(
        ("call", "echo", "text=hi", "--trace", *SAMPLE),
        ("call", "--json", "echo", "text=hi", "--trace", *SAMPLE),
    )
    for run in (human, machine):
        run.expect(1)
        assert "not sent" in run.err
        sent = run.trace_methods()
        assert "tools/list" in sent, "the call was prepared against the live tool list"
        assert "tools/call" not in sent, "a tool call went out without approval"
    # The human form shows what would have been sent: annotations and the exact arguments.
    assert "tool:      echo" in human.out
    assert "readOnlyHint=true" in human.out
    assert "(declared by the server, not verified)" in human.out
    assert json.loads(human.out.split("arguments:", 1)[1]) == {"text": "hi"}
    assert "E1" not in human.out + machine.out


def test_yes_runs_and_prints_the_evidence_entry() -> None:
    human, machine = rea_many(
        ("call", "echo", "text=hello", "--yes", "--trace", *SAMPLE),
        ("call", "--json", "echo", "text=hello", "--yes", *SAMPLE),
    )
    human.expect(0)
    assert human.trace_methods().count("tools/call") == 1
    assert "H1  echo  ok" in human.out
    assert "\nhello\n" in human.out
    assert "schema: valid against the output schema" in human.out

    # The result as the server sent it, rea-tui's evidence entry under `rea`.
    result = machine.expect(0).json()
    assert result["content"] == [{"type": "text", "text": "hello"}]
    assert result["structuredContent"] == {"result": "hello"}
    assert result["isError"] is False
    rea = result["rea"]
    assert (rea["evidence"], rea["tool"], rea["outcome"], rea["approval"]) == ("E1", "echo", "ok", "--yes")
    assert rea["arguments"] == {"text": "hello"}
    assert rea["exitCode"] == 0
    assert isinstance(rea["durationMs"], int | float)
    # Nothing invented: every other key is one the server sent (2026-07-28 adds resultType and _meta).
    assert set(result) - {"content", "structuredContent", "isError", "rea"} <= {"resultType", "_meta"}
    assert "title" not in result and "description" not in result


def test_args_json_and_schema_coercion() -> None:
    from_json, override, coerced = rea_many(
        ("call", "--json", "echo", "--args", '{"text": "from json"}', "--yes", *SAMPLE),
        ("call", "--json", "echo", "text=from pair", "--args", '{"text": "from json"}', "--yes", *SAMPLE),
        ("call", "--json", "slow_task", "seconds=0.1", "steps=1", "--yes", *SAMPLE),
    )
    assert from_json.expect(0).json()["structuredContent"] == {"result": "from json"}
    assert override.expect(0).json()["rea"]["arguments"] == {"text": "from pair"}
    result = coerced.expect(0).json()
    # "0.1" became a number and "1" an integer, as the input schema asks.
    assert result["rea"]["arguments"] == {"seconds": 0.1, "steps": 1}
    assert isinstance(result["rea"]["arguments"]["steps"], int)
    assert result["rea"]["outcome"] == "ok"
    assert result["content"][0]["text"] == "slept 0.1 s"


def test_arguments_the_schema_rejects_are_usage_errors_and_not_sent() -> None:
    missing, not_a_number, not_an_integer = rea_many(
        ("call", "echo", "--yes", "--trace", *SAMPLE),
        ("call", "slow_task", "seconds=abc", "--yes", "--trace", *SAMPLE),
        ("call", "slow_task", "steps=1.5", "--yes", "--trace", *SAMPLE),
    )
    missing.expect(2)
    assert "text" in missing.err and "required" in missing.err
    not_a_number.expect(2)
    assert "seconds" in not_a_number.err and "not a number" in not_a_number.err
    not_an_integer.expect(2)
    assert "steps" in not_an_integer.err
    for run in (missing, not_a_number, not_an_integer):
        assert "tools/call" not in run.trace_methods()


def test_name_value_pairs_may_follow_options() -> None:
    """`call TOOL [name=value ...] [--args JSON]` and `get PROMPT [name=value ...]`: people also
    write the pairs after an option (`call echo --yes text=hi`); argparse must not reject them."""
    call, get = rea_many(
        ("call", "--json", "echo", "--yes", "text=after an option", *SAMPLE),
        ("get", "investigate", "--json", "feature=x", *SAMPLE),
    )
    assert call.expect(0).json()["rea"]["arguments"] == {"text": "after an option"}
    assert get.expect(0).json()["rea"]["arguments"] == {"feature": "x"}


def test_elicitation_answered_from_the_command_line_or_declined() -> None:
    answered, declined = rea_many(
        ("call", "confirm_run", "--yes", "--elicit", "reason=x", "--elicit", "count=2", *SAMPLE),
        ("call", "confirm_run", "--yes", *SAMPLE),
    )
    answered.expect(0)
    assert "confirmed: x x2" in answered.out
    assert "Please confirm the run" in answered.err
    declined.expect(0)
    assert "not confirmed (decline)" in declined.out
    assert "declined" in declined.err


def test_tool_error_and_server_exit_during_call() -> None:
    unknown, crash = rea_many(("call", "--json", "no_such_tool", "--yes", *SAMPLE), ("call", "crash", "--yes", *SAMPLE))
    result = unknown.expect(1).json()
    assert result["isError"] is True
    assert result["rea"]["outcome"] == "tool_error"
    crash.expect(3)
    assert "server exited" in crash.out
    assert "exit code 3" in crash.out
    assert "sample-server: crashing on purpose with code 3" in crash.out + crash.err


def test_narrowing_question_exits_6_and_pick_answers_it(tmp_path: Path) -> None:
    script = tmp_path / "narrowing_server.py"
    script.write_text(NARROWING_SERVER, encoding="utf-8")
    server = ("--", PYTHON, str(script))
    asked, picked_json, wrong = rea_many(
        ("call", "find_procedure", "procedure=render", "--yes", *server),
        ("call", "--json", "find_procedure", "procedure=render", "--yes", "--pick", "2", *server),
        ("call", "find_procedure", "procedure=render", "--yes", "--pick", "nothing_like_it", *server),
    )
    asked.expect(6)
    assert "question (ambiguous, round 1): Which procedure did you mean by 'render'?" in asked.out
    assert "  - render_page (id 1)" in asked.out
    assert "  - render_text (id 2)" in asked.out
    assert "--pick" in asked.out

    second = picked_json.expect(0).json()
    [first] = second["rea"]["earlier"]
    assert first["rea"]["narrowing"]["reason"] == "ambiguous"
    assert [c["name"] for c in first["rea"]["narrowing"]["candidates"]] == ["render_page", "render_text"]
    assert second["rea"]["follows"] == "E1"
    # --pick 2 named the candidate by id; its name is what the string argument gets.
    assert second["rea"]["arguments"] == {"procedure": "render_text"}
    assert second["structuredContent"] == {"found": "render_text", "id": 2}

    wrong.expect(2)
    assert "names no candidate" in wrong.err


def _interactive(answer: bytes, *args: str) -> Run:
    """Run `rea-tui ARGS` with a pseudo-terminal on stdin that types `answer`."""
    master, slave = os.openpty()
    try:
        process = subprocess.Popen(
            [*rea_command(), *args],
            cwd=REPO,
            stdin=slave,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=os.environ.copy(),
        )
        os.close(slave)
        slave = -1
        os.write(master, answer)
        out, err = process.communicate(timeout=60)
    finally:
        if slave != -1:
            os.close(slave)
        os.close(master)
    return Run(tuple(args), process.returncode, out.decode(errors="replace"), err.decode(errors="replace"))


def test_interactive_yes_and_no_on_a_terminal() -> None:
    with ThreadPoolExecutor(max_workers=2) as pool:
        answers = [
            pool.submit(_interactive, answer, "call", "echo", "text=typed", "--trace", *SAMPLE)
            for answer in (b"y\n", b"n\n")
        ]
        yes, no = (future.result() for future in answers)
    yes.expect(0)
    assert "Run this call? [y/N]" in yes.err
    assert "H1  echo  ok" in yes.out
    assert yes.trace_methods().count("tools/call") == 1
    no.expect(1)
    assert "tools/call" not in no.trace_methods()


def test_interactive_approval_with_json_keeps_stdout_json_and_shows_the_call() -> None:
    """With `--json` and a terminal, the question must not corrupt stdout, and the analyst
    must still see the declared annotations and exact arguments before answering."""
    run = _interactive(b"y\n", "call", "--json", "echo", "text=typed", *SAMPLE)
    run.expect(0)
    assert run.json()["rea"]["approval"] == "interactive yes"
    assert "readOnlyHint=true" in run.err
    assert '"text": "typed"' in run.err
