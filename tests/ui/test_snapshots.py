"""Snapshot tests of the whole app against the real reference server (`--synthetic 2000 --seed 0`).

Each test drives the app into one state with a scenario from `tests.support.scenarios`
(the same ones `screenshots/make.py` uses) and compares the screen with the SVG
under `__snapshots__/test_snapshots/`. The app runs with the test settings (no times,
latencies, durations or machine details), and the transcript gets a fixed name so its file name
(otherwise a timestamp and a pid) is the same on every run.

Update after a deliberate change with `pytest tests/ui/test_snapshots.py --snapshot-update`,
then look at every changed SVG before committing it.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Static

from rea_tui.host.config.config import ServerSpec
from rea_tui.ui.app import ReaApp
from tests.support import scenarios
from tests.support.pilot import make_app, snapshot_settings
from tests.support.scenarios import NARROW, SIZE, failing_spec, reference_spec


def stable_app(tmp_path: Path, spec: ServerSpec | None = None) -> ReaApp:
    return make_app(
        [spec or reference_spec(open_first=True)], settings=snapshot_settings(), transcript=tmp_path / "session.jsonl"
    )


def test_prompt_list(snap_compare: Any, tmp_path: Path) -> None:
    """The prompts in the sidebar, investigate_feature's arguments in the form."""
    assert snap_compare(stable_app(tmp_path), terminal_size=SIZE, run_before=scenarios.prompt_list)


def test_dropdown_has_more(snap_compare: Any, tmp_path: Path) -> None:
    """Procedure's dropdown with document=Notes: 100 of 1,694 - keep typing to narrow."""
    assert snap_compare(stable_app(tmp_path), terminal_size=SIZE, run_before=scenarios.dropdown_has_more)


def test_dropdown_empty(snap_compare: Any, tmp_path: Path) -> None:
    """Feature's dropdown: no suggestions, and empty does not mean none."""
    assert snap_compare(stable_app(tmp_path), terminal_size=SIZE, run_before=scenarios.dropdown_empty)


def test_field_diagnostics(snap_compare: Any, tmp_path: Path) -> None:
    """The server's -32602 message under the procedure field it names."""
    assert snap_compare(stable_app(tmp_path), terminal_size=SIZE, run_before=scenarios.field_diagnostics)


def test_workflow_with_steps(snap_compare: Any, tmp_path: Path) -> None:
    """Investigate_feature rendered, with its five steps."""
    assert snap_compare(stable_app(tmp_path), terminal_size=SIZE, run_before=scenarios.workflow_with_steps)


def test_evidence_pane(snap_compare: Any, tmp_path: Path) -> None:
    """A completed inspect_procedure call selected in the evidence pane."""
    assert snap_compare(stable_app(tmp_path), terminal_size=SIZE, run_before=scenarios.evidence_pane)


def test_protocol_log(snap_compare: Any, tmp_path: Path) -> None:
    """Ctrl+l: the completion traffic, the last response pretty-printed."""
    assert snap_compare(stable_app(tmp_path), terminal_size=SIZE, run_before=scenarios.protocol_log)


def test_completion_inspector(snap_compare: Any, tmp_path: Path) -> None:
    """Ctrl+o: every completion request with its context, total and hasMore."""
    assert snap_compare(stable_app(tmp_path), terminal_size=SIZE, run_before=scenarios.completion_inspector)


def test_approval_dialog(snap_compare: Any, tmp_path: Path) -> None:
    """The exact JSON arguments, the declared annotations, allow-for-session offered."""
    assert snap_compare(stable_app(tmp_path), terminal_size=SIZE, run_before=scenarios.approval_dialog)


def test_evidence_detail(snap_compare: Any, tmp_path: Path) -> None:
    """StructuredContent as a tree (f7), one node opened."""
    assert snap_compare(stable_app(tmp_path), terminal_size=SIZE, run_before=scenarios.evidence_detail)


def test_narrowing_picker(snap_compare: Any, tmp_path: Path) -> None:
    """Round 2: which document has openDocument, scoped by procedure."""
    assert snap_compare(stable_app(tmp_path), terminal_size=SIZE, run_before=scenarios.narrowing_picker)


def test_notes(snap_compare: Any, tmp_path: Path) -> None:
    """An observation and an inference citing E-0001 and an unknown, in three lists."""
    assert snap_compare(stable_app(tmp_path), terminal_size=SIZE, run_before=scenarios.notes)


def test_evidence_listing(snap_compare: Any, tmp_path: Path) -> None:
    """F8: a disassembly as a listing over the whole screen, jump targets named."""
    assert snap_compare(stable_app(tmp_path), terminal_size=SIZE, run_before=scenarios.evidence_listing)


def test_evidence_tables(snap_compare: Any, tmp_path: Path) -> None:
    """A page of procedures as a table, under the server's evidence IDs."""
    assert snap_compare(stable_app(tmp_path), terminal_size=SIZE, run_before=scenarios.evidence_tables)


def test_narrowing_filter(snap_compare: Any, tmp_path: Path) -> None:
    """The picker's filter asked the server again: which document has openDoc."""
    assert snap_compare(stable_app(tmp_path), terminal_size=SIZE, run_before=scenarios.narrowing_filter)


def test_server_failed(snap_compare: Any, tmp_path: Path) -> None:
    """A server that exits at start: its stderr tail and f5 to retry."""
    app = stable_app(tmp_path, failing_spec())
    assert snap_compare(app, terminal_size=SIZE, run_before=scenarios.server_failed)


def test_narrow_layout(snap_compare: Any, tmp_path: Path) -> None:
    """100 columns: one pane at a time, chosen with tabs (the workflow here)."""
    assert snap_compare(stable_app(tmp_path), terminal_size=NARROW, run_before=scenarios.narrow_layout)


def test_every_scenario_has_a_snapshot() -> None:
    tested = {name.removeprefix("test_") for name in globals() if name.startswith("test_")}
    assert set(scenarios.SCENARIOS) <= tested


async def test_the_test_settings_show_nothing_machine_or_time_specific() -> None:
    """The test settings are what snapshots and screenshots use; two things could still change from run to run.

    The evidence pane's subtitle names the transcript file (a timestamp and the pid), and the protocol
    log's first rows are connection events whose text (and so their size column) carries the
    interpreter's path and the server's pid.
    """
    app = make_app([reference_spec()], settings=snapshot_settings())
    async with app.run_test(size=SIZE) as pilot:
        await scenarios.connected(pilot)
        problems: list[str] = []
        subtitle = str(app.main.query_one("#evidence").border_subtitle)
        if re.search(r"\d{8}-\d{6}-\d+", subtitle):
            problems.append(f"evidence pane subtitle {subtitle!r}")
        await pilot.press("ctrl+l")
        screen = await scenarios.screen_named(pilot, "ProtocolLogScreen")
        table = screen.query_one("#traffic-table", DataTable)
        for row in range(table.row_count):
            table.move_cursor(row=row)
            await pilot.pause()
            detail = str(screen.query_one("#traffic-detail-text", Static).render())
            if sys.executable in detail or re.search(r"\bpid \d+", detail):
                problems.append(f"protocol log row {row}: {detail.splitlines()[-1][:100]!r}")
        assert not problems, problems


# The investigation's screen at three sizes: the form folded to a line, the workflow above, the evidence below
# with its rows whole (no key column cut, no listing line wrapped; a wider table scrolls sideways).
WORK_SIZES = {"120x40": (120, 40), "160x48": SIZE, "200x60": (200, 60)}


@pytest.mark.parametrize("size", list(WORK_SIZES))
def test_trace_references(snap_compare: Any, tmp_path: Path, size: str) -> None:
    """A string's row led to find_references: the procedure that loads it, as a table."""
    app = stable_app(tmp_path)
    assert snap_compare(app, terminal_size=WORK_SIZES[size], run_before=scenarios.trace_references)


@pytest.mark.parametrize("size", list(WORK_SIZES))
def test_trace_listing(snap_compare: Any, tmp_path: Path, size: str) -> None:
    """The references table's row led to inspect_procedure: the listing, the breadcrumb above it."""
    app = stable_app(tmp_path)
    assert snap_compare(app, terminal_size=WORK_SIZES[size], run_before=scenarios.trace_listing)
