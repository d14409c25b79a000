"""`--timeout` bounds a task's whole wait, not only each poll; `--task-timeout` sets that bound apart.

`tests.support.raw_server endlesstask` runs its tool only as a task that stays "working" until it is
cancelled and never answers `tasks/result`: without a bound on the wait, `rea-tui call` polled it forever.
"""

from __future__ import annotations

from tests.cli import raw, rea

ENDLESS = raw("endlesstask")


def test_timeout_bounds_a_task_that_never_ends_and_cancels_it() -> None:
    run = rea("call", "probe", "x=1", "--yes", "--timeout", "3", "--trace", *ENDLESS, timeout=120).expect(5)
    assert "the task endless-1 did not end within 3 s and was cancelled" in run.out + run.err
    assert "--task-timeout" in run.out + run.err
    requests = run.trace_methods()
    assert "tasks/get" in requests and requests[-1] == "tasks/cancel"


def test_task_timeout_is_the_bound_when_given() -> None:
    run = rea(
        "call", "probe", "x=1", "--yes", "--timeout", "60", "--task-timeout", "2", "--json", *ENDLESS, timeout=120
    )
    run.expect(5)
    assert "did not end within 2 s" in run.out
    assert "--task-timeout" in rea("call", "--help").out
