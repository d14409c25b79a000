"""A malformed notification is reported in one line, never as a traceback: the raw server's `badprogress`
mode sends a notifications/progress whose progress is a string, and one with no params, before it answers."""

from __future__ import annotations

from tests.cli import assert_terminal_safe, raw, rea


def test_a_malformed_progress_notification_is_one_warning_line_each() -> None:
    run = rea(*raw("badprogress"), "call", "probe", "--yes").expect(0)
    assert_terminal_safe(run)
    assert "Traceback" not in run.err and "pydantic" not in run.err, run.err
    warnings = [line for line in run.err.splitlines() if "malformed" in line]
    assert len(warnings) == 2, run.err
    assert all(line.startswith("rea-tui: warning: ") and "notifications/progress" in line for line in warnings)
    assert "params.progress: Input should be a valid number" in warnings[0] and "(got 'lots')" in warnings[0]
    assert "params: Field required" in warnings[1]
    assert "done" in run.out.splitlines()  # the call itself went on
