"""`rea-tui run FILE`: command lines in one session, and results printed once."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

from rea_tui.host import plan_replay, read_transcript
from tests.cli import PYTHON, REPO, SAMPLE, Run, rea_command

STATEFUL = ("--stdio", f"{shlex.quote(PYTHON)} -m tests.support.stateful_server")
SCRIPT = """\
# the stateful server keeps what `start` opened for the rest of the run
rea-tui call start --yes
call count --yes --json   # a comment after a command
call no_such_tool --yes
call count --yes --json
"""


def rea(*args: str, stdin: str | None = None) -> Run:
    env = {**os.environ}
    env.pop("REA_TUI_SESSION", None)
    done = subprocess.run(
        [*rea_command(), *args],
        cwd=REPO,
        env=env,
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return Run(args, done.returncode, done.stdout, done.stderr)


def transcript_of(run: Run) -> Path:
    found = re.search(r"^transcript: (.+)$", run.err, re.M)
    assert found, run.err
    return Path(found.group(1))


def test_a_script_runs_in_one_session_and_stops_at_the_first_failure(tmp_path: Path) -> None:
    script = tmp_path / "trace.rea"
    script.write_text(SCRIPT, encoding="utf-8")
    stopped = rea("run", str(script), *STATEFUL).expect(1)
    assert '"result": 1' in stopped.out  # `count` saw the session `start` opened: one server process
    assert stopped.err.count("$ call count") == 1
    assert "line 4 failed (exit code 1); stopped" in stopped.err
    plan = plan_replay(read_transcript(transcript_of(stopped)))
    assert [call.tool for call in plan.calls] == ["start", "count", "no_such_tool"]

    going = rea("run", str(script), "--keep-going", *STATEFUL).expect(1)
    assert going.err.count("$ call count") == 2
    assert "line 4 failed (exit code 1)\n" in going.err
    assert [c.tool for c in plan_replay(read_transcript(transcript_of(going))).calls][-1] == "count"


def test_a_script_from_stdin_gets_no_answers_from_it() -> None:
    # Read from stdin, the script leaves no terminal to answer on: a call without --yes is not sent.
    done = rea("run", "-", *STATEFUL, stdin="call start --yes\ncall count\n").expect(1)
    assert "not sent (approve with --yes or answer y)" in done.err
    assert "line 2 failed (exit code 1); stopped" in done.err


def test_a_line_that_cannot_be_split_stops_the_script_before_it_starts(tmp_path: Path) -> None:
    script = tmp_path / "bad.rea"
    script.write_text("call start --yes\ncall step session='unclosed\n", encoding="utf-8")
    refused = rea("run", str(script), *STATEFUL).expect(2)
    assert "line 2: No closing quotation" in refused.err
    assert "$ call start" not in refused.err
    nested = tmp_path / "nested.rea"
    nested.write_text("run other.rea\n", encoding="utf-8")
    assert "cannot run inside a run" in rea("run", str(nested), *STATEFUL).expect(2).err


def test_a_result_is_printed_once() -> None:
    # structured_info answers with the same object as text (JSON) and as structuredContent.
    done = rea("call", "structured_info", "name=abcdef", "--yes", *SAMPLE).expect(0)
    assert done.out.count('"size": 6') == 1
    assert "structuredContent:" not in done.out
