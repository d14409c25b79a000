"""Small things an analyst reads: an empty result says so, a total is shown whole, the palette lists each
command once."""

from __future__ import annotations

from collections import Counter
from typing import Any

from textual.app import App
from textual.screen import Screen

from rea_tui.host import CompletionLog, CompletionRef
from rea_tui.host.evidence.evidence_views import result_views
from rea_tui.ui.screens.completion_inspector import CompletionInspectorScreen
from rea_tui.ui.widgets.evidence_pane import EvidenceDetail
from tests.conftest import sample_spec
from tests.support.pilot import make_app, screen_text, wait_for
from tests.support.scenarios import SIZE, connected, reference_spec, run_tool
from tests.ui.test_loop import detail_text

NO_MATCH = "zzqqxxjj"


async def test_an_empty_result_says_there_is_nothing() -> None:
    app = make_app([reference_spec()], transcript=None)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        entry = await run_tool(pilot, "search_strings", {"query": NO_MATCH})
        assert entry.outcome == "ok" and entry.structured["strings"] == []
        detail = app.main.query_one(EvidenceDetail)
        await wait_for(pilot, lambda: detail.entry is entry, "the entry shown")
        await pilot.pause()
        shown = detail_text(app)
        assert f"no strings containing '{NO_MATCH}'" in shown
        assert "strings [0]" not in shown and "[0]" not in screen_text(app)


def test_every_shape_sent_empty_reads_as_none() -> None:
    cases = {
        "documents": ({"documents": []}, "no documents"),
        "procedures": ({"procedures": [], "document": {"name": "Notes"}}, "no procedures in Notes"),
        "strings": ({"strings": [], "query": "x", "total": 0}, "no strings containing 'x'"),
        "references": (
            {"references": [], "query": {"kind": "string", "string": {"text": "x"}}},
            "no code that refers to string 'x'",
        ),
        "callers": ({"callers": [], "procedure": {"names": ["f"], "address": "0x10"}}, "no callers of f at 0x10"),
        "callees": ({"callees": [], "procedure": {"names": ["f"], "address": "0x10"}}, "no calls from f at 0x10"),
        "sections": ({"layout": {"sections": []}}, "no sections"),
    }
    for key, (data, title) in cases.items():
        views = result_views(data)
        assert [(v.title, getattr(v, "rows", None)) for v in views] == [(title, ())], key
    # Past the end of a list that has rows: the note says where the list ends.
    (past,) = result_views({"strings": [], "query": "x", "total": 877, "offset": 900})
    assert (past.title, past.note) == ("no strings containing 'x'", "none of 877")
    # What is not one of these shapes still gives no view (the JSON tree shows it).
    assert result_views({"things": []}) == [] and result_views({"strings": "none"}) == []


class InspectorHarness(App[None]):
    def __init__(self, log: CompletionLog) -> None:
        super().__init__()
        self.log_ = log

    def on_mount(self) -> None:
        screen: Screen[Any] = CompletionInspectorScreen(self.log_)
        self.push_screen(screen)


async def test_the_completion_inspector_shows_a_large_total_whole() -> None:
    log = CompletionLog()
    record = log.open(CompletionRef("prompt", "investigate_feature"), "procedure", "Py", {})
    record.outcome, record.count, record.total, record.has_more = "shown", 100, 212_507, True
    log.changed(record)
    app = InspectorHarness(log)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, CompletionInspectorScreen), "the inspector")
        await pilot.pause(0.2)
        row = next(line for line in screen_text(app).splitlines() if "procedure" in line and "Py" in line)
        assert "212,507" in row, row


async def test_the_palette_lists_each_command_once() -> None:
    app = make_app([sample_spec()], transcript=None)
    async with app.run_test(size=SIZE):
        titles = [command.title.split(" (")[0] for command in app.get_system_commands(app.screen)]
        assert [title for title, count in Counter(titles).items() if count > 1] == []
        assert titles.count("Screenshot") == 1 and titles.count("Quit") == 1
