"""`rea-tui audit`: exit codes, the --json shape, the --markdown report, partial reports, ctrl+c."""

from __future__ import annotations

import os
import pty
import re
import select
import shlex
import signal
import subprocess
import time
from pathlib import Path

from tests.cli import (
    PYTHON,
    REPO,
    UNSAFE_CHARACTER,
    assert_terminal_safe,
    raw,
    rea,
    rea_command,
    rea_many,
    snake_case_keys,
)

AUDIT_SERVER = ("--protocol", "legacy", "--stdio", f"{shlex.quote(PYTHON)} -m tests.support.audit_server")
HANGING = ("--protocol", "legacy", "--stdio", f"{shlex.quote(PYTHON)} -m tests.support.audit_server --hang-all")

REPORT_KEYS = {
    "reportVersion",
    "server",
    "profile",
    "status",
    "partial",
    "stopReason",
    "started",
    "durationS",
    "requests",
    "reconnects",
    "limits",
    "summary",
    "notes",
    "targets",
    "findings",
}


def test_the_default_server_passes_the_rea_profile() -> None:
    text, data = rea_many(["audit", "--profile", "rea"], ["audit", "--profile", "rea", "--json"])
    text.expect(0)
    assert_terminal_safe(text)
    assert "profile rea" in text.out and "findings: 0 errors" in text.out
    assert text.out.rstrip().endswith("audit complete: no errors")
    assert "investigate_feature" in text.out and "p95 ms" in text.out
    report = data.expect(0).json()
    assert set(report) == REPORT_KEYS
    assert report["status"] == "complete" and report["summary"]["error"] == 0
    assert report["limits"] == {"maxRequests": 50, "budgetS": 60.0, "timeoutS": 30.0}
    assert not snake_case_keys(report, skip=("arguments", "context", "request", "reply"))
    stats = report["targets"][0]["arguments"][0]
    assert set(stats) == {
        "name",
        "requests",
        "values",
        "total",
        "hasMore",
        "p50Ms",
        "p95Ms",
        "contextSensitive",
        "context",
        "capped",
        "stopped",
    }


def test_an_error_finding_exits_7_and_cites_the_request_and_reply(tmp_path: Path) -> None:
    markdown = tmp_path / "audit.md"
    run = rea(
        "audit",
        "--profile",
        "rea",
        "--prompt",
        "rules",
        "--timeout",
        "1",
        "--json",
        "--markdown",
        str(markdown),
        *AUDIT_SERVER,
    ).expect(7)
    report = run.json()
    assert report["summary"]["error"] > 0 and report["status"] == "complete"
    assert [t["name"] for t in report["targets"]] == ["rules"]
    finding = next(f for f in report["findings"] if f["check"] == "mcp.max-values")
    assert finding["severity"] == "error" and finding["target"] == {"kind": "prompt", "name": "rules"}
    assert finding["argument"] == "too_many" and finding["occurrences"] >= 1
    (exchange,) = finding["exchanges"]
    assert exchange["outcome"] == "result" and exchange["latencyMs"] > 0
    assert exchange["request"]["method"] == "completion/complete"
    assert exchange["request"]["params"]["argument"]["name"] == "too_many"
    assert exchange["reply"]["id"] == exchange["request"]["id"]
    assert len(exchange["reply"]["result"]["completion"]["values"]) > 100
    text = markdown.read_text(encoding="utf-8")
    assert text.startswith("# Completion audit of audit-server 1")
    assert "### 1. error: " in text and "```json" in text and "mcp\\.max\\-values" not in text
    assert "| too_many |" in text  # an intraword underscore is inert Markdown, so it is left as written
    assert "wrote" in run.err


def test_hostile_server_text_never_reaches_the_terminal_or_the_report(tmp_path: Path) -> None:
    markdown = tmp_path / "hostile.md"
    run = rea("audit", "--markdown", str(markdown), *raw("hostile"))
    assert run.code in (0, 7), run.err
    assert_terminal_safe(run)
    assert "prompt odd" in run.out and "[red]" in run.out  # shown as plain text, escapes removed
    text = markdown.read_text(encoding="utf-8")
    assert not UNSAFE_CHARACTER.findall(text.replace("\n", ""))
    # Outside code fences server text is escaped Markdown; inside them, JSON with escapes spelled out.
    prose = re.sub(r"^```json\n.*?^```$", "", text, flags=re.MULTILINE | re.DOTALL)
    assert "```" not in prose
    assert "\\[red\\]" in prose and "[red]" not in prose.replace("\\[red\\]", "")
    assert "\\u001b[31mred" in text


def test_budget_exhaustion_gives_a_partial_report() -> None:
    hang, short = rea_many(
        ["audit", "--timeout", "1", "--budget", "2", "--json", *HANGING],
        ["audit", "--profile", "rea", "--budget", "0.2"],
    )
    report = hang.expect(7).json()  # the hangs it saw are errors
    assert report["status"] == "partial" and report["partial"] and report["stopReason"] == "budget"
    assert report["durationS"] < 2.5
    assert {f["check"] for f in report["findings"]} == {"transport.timeout"}
    assert report["findings"][0]["exchanges"][0]["reply"] is None
    # Out of time with nothing wrong found yet: exit 5 (timeout), and the report says it is partial.
    short.expect(5)
    assert "PARTIAL REPORT (the time budget ran out)" in short.out
    assert "audit partial: no errors" in short.out


def test_usage_errors_exit_2_and_an_unreachable_server_3(tmp_path: Path) -> None:
    runs = rea_many(
        ["audit", "--prompt", "no_such_prompt", *AUDIT_SERVER],
        ["audit", "--budget", "0", *AUDIT_SERVER],
        ["audit", "--max-requests", "many", *AUDIT_SERVER],
        ["audit", "--profile", "strict", *AUDIT_SERVER],
        ["audit", "--markdown", str(tmp_path / "missing" / "a.md"), *AUDIT_SERVER],
        ["audit", "--url", "http://127.0.0.1:9/mcp", "--timeout", "3"],
    )
    for run in runs[:5]:
        run.expect(2)
        assert run.out == "" and "Traceback" not in run.err
    assert "no prompt or template no_such_prompt" in runs[0].err and "rules" in runs[0].err
    assert "must be more than 0" in runs[1].err
    assert "does not exist" in runs[4].err
    runs[5].expect(3)


def test_help_documents_the_exit_codes() -> None:
    run = rea("audit", "--help").expect(0)
    assert "7 an error-severity finding" in run.out and "--max-requests" in run.out and "--budget" in run.out
    assert "7 audit found an error" in rea("--help").expect(0).out


def test_ctrl_c_prints_what_was_found_so_far() -> None:
    """On a terminal the progress bar runs on stderr; ctrl+c stops the audit and the partial report follows."""
    leader, follower = pty.openpty()
    environ = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    process = subprocess.Popen(
        [*rea_command(), "audit", "--timeout", "20", "--budget", "60", *HANGING],
        cwd=REPO,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=follower,
        env=environ,
    )
    os.close(follower)
    seen = b""
    try:
        deadline = time.monotonic() + 30
        while b"requests" not in seen and time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 0.5)
            if ready:
                seen += os.read(leader, 4096)
        assert b"requests" in seen, seen  # the progress bar
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(leader)
    assert process.returncode == 130
    text = out.decode()
    assert "PARTIAL REPORT (interrupted)" in text and "audit partial: no errors" in text
    assert "(not reached)" in text
