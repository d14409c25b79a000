"""In the TUI, a malformed notification is one line (a toast, and an event in the traffic log), and nothing
reaches the terminal: the raw server's `badprogress` mode sends two malformed notifications/progress."""

from __future__ import annotations

import pytest

from tests.conftest import raw_spec
from tests.support.pilot import make_app, ready, wait_for
from tests.support.scenarios import SIZE


async def test_a_malformed_progress_notification_is_a_toast_and_a_traffic_line(
    capfd: pytest.CaptureFixture[str],
) -> None:
    app = make_app([raw_spec("badprogress")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        entry = await app.session.call_tool("raw-badprogress", "probe", {}, approval="test")
        assert entry.text() == "done"
        hosted = app.session.hosted("raw-badprogress")
        assert hosted is not None
        events = [e for e in hosted.connection.traffic.entries() if e.method == "message/invalid"]

        # This server's prompt list is malformed too: toasts of one server's output problems are throttled,
        # so the progress notifications may come in the next toast as a count.
        def told() -> bool:
            return any(
                "malformed notifications/progress" in str(n.message) or "more like this" in str(n.message)
                for n in app._notifications
            )

        await wait_for(pilot, told, "the toast")
    assert len(events) == 2
    assert "notifications/progress" in events[0].payload and "(got 'lots')" in events[0].payload
    assert all("\n" not in e.payload for e in events)
    captured = capfd.readouterr()
    assert "Traceback" not in captured.err + captured.out
