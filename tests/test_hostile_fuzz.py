"""Fuzzing the trust boundary: hostile text in every string field of every MCP object rea-tui reads.

Hypothesis builds strings out of escape sequences (OSC title and clipboard,
CSI, 8-bit C1), control characters, bidi and zero-width characters, Rich
markup, a bracketed-paste end followed by a command, and oversized values.
`tests.support.hostile_server` puts them everywhere (see its docstring). Every
CLI command and every TUI screen is driven over them with the egress guard in
strict mode (`REA_TUI_STRICT_EGRESS=1`, set for the whole suite): a single
character that could act on a terminal, anywhere, fails the run; and nothing
may crash.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from rea_tui.host import ServerSpec
from rea_tui.host.protocol.models import parse_prompt, parse_resource, parse_resource_template, parse_tool
from tests.cli import Run, assert_terminal_safe, rea, rea_many
from tests.conftest import REPO
from tests.support.http_bridge import bridged
from tests.support.pilot import make_app, ready, wait_for
from tests.support.scenarios import SIZE

DANGEROUS = (
    "\x1b]0;owned title\x07",  # OSC 0: the terminal title
    "\x1b]52;c;cHduZWQ=\x1b\\",  # OSC 52 ended by ST: the clipboard
    "\x1b[2J\x1b[H",  # CSI: clear the screen
    "\x9b31m",  # 8-bit CSI
    "\x1b[201~\nrm -rf ~\n",  # ends a bracketed paste, then a command
    "\x07\x08\x7f\r",
    "\u202e",  # right-to-left override
    "\u2066\u2069",  # isolates
    "\u200b\u200d\ufeff",  # zero-width characters and a BOM
    "\u2028",
    "[red]x[/red]",
    "[link=http://evil.example]y[/link]",
    "[@click=app.quit]z[/]",
    "# heading\n<script>alert(1)</script>",
)
PIECE = st.one_of(
    st.sampled_from(DANGEROUS),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8),
    st.integers(min_value=10_000, max_value=30_000).map(lambda n: "W" * n),
)
HOSTILE = st.lists(PIECE, min_size=1, max_size=5).map("".join)
STRING_LISTS = st.lists(HOSTILE, min_size=1, max_size=10)
# Oversized values stay readable in a failure report when they are one repeated letter.
# NUL too: a name no command line can carry.
WORST = ["".join(DANGEROUS) + "\x00", "\u202egnp.exe", "[red]x[/red]\x1b[31m", "A" * 30_000]
# Each example starts real processes: a few examples, and no shrinking (a failure prints its example whole).
FUZZ_PHASES = (Phase.explicit, Phase.reuse, Phase.generate)
# What differs between two runs of one call: its duration, and the analyst's wait (there from 1 ms).
DURATION = re.compile(r'"durationMs": [0-9.]+|\n *"waitedMs": [0-9.]+,')
FUZZ = settings(max_examples=3, deadline=None, phases=FUZZ_PHASES, suppress_health_check=[HealthCheck.too_slow])


def hostile_command(strings: list[str], folder: Path) -> tuple[str, ...]:
    path = folder / "strings.json"
    path.write_text(json.dumps(strings), encoding="utf-8")
    return (sys.executable, "-m", "tests.support.hostile_server", str(path))


def checked(run: Run) -> Run:
    """Nothing unsafe on either stream, and no crash (a leak in strict mode would be a traceback)."""
    assert_terminal_safe(run)
    assert "Traceback" not in run.err, run.err[-3000:]
    assert run.code in (0, 1, 2, 4, 6), (run.args, run.code, run.err[-2000:])
    return run


@given(strings=STRING_LISTS)
@example(strings=WORST)
@FUZZ
def test_every_cli_command_keeps_hostile_text_off_the_terminal(strings: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        server = ("--stdio", shlex.join(hostile_command(strings, Path(folder))))
        listing = checked(rea("tools", "--json", *server)).json()
        prompts = checked(rea("prompts", "--json", *server)).json()["prompts"]
        resources = checked(rea("resources", "--json", *server)).json()
        # --json gives the names as the server sent them, which a command line may not carry (NUL):
        # the commands are given the names rea-tui shows, as an analyst would type them.
        tools = [parse_tool(t) for t in listing["tools"]]
        tool, failing = (t.name for t in tools if t is not None)
        prompt = parse_prompt(prompts[0])
        assert prompt is not None
        first, second = (a.name for a in prompt.arguments)
        parsed_template = parse_resource_template(resources["resourceTemplates"][0])
        resource = parse_resource(resources["resources"][0])
        assert parsed_template is not None and resource is not None
        template = parsed_template.uri_template
        # A template cut short where it is shown may have lost its variable: any name is then refused safely.
        found = re.search(r"\{([^}]+)\}", template)
        variable = found.group(1) if found else "x"
        runs = rea_many(
            ("servers", *server),
            ("prompts", *server),
            ("tools", *server),
            ("resources", *server),
            ("get", prompt.name, f"{first}=value", f"{second}=x", *server),
            ("complete", prompt.name, first, "", "--context", f"{second}=x", *server),
            ("complete", "--template", template, variable, "", *server),
            ("call", tool, "--yes", "--trace", *server),
            ("call", failing, "--yes", *server),
            ("call", tool, "--yes", "--json", *server),
            ("read", resource.uri, *server),
        )
        for run in runs:
            checked(run)


# With it, Python lists every module it imports on stderr: the lean path imports no MCP client.
IMPORT_TIMES = {"PYTHONPROFILEIMPORTTIME": "1"}
FULL_PATH = {"REA_TUI_FULL_PATH": "1"}


def over_http(command: tuple[str, ...], *args: str, env: dict[str, str] | None = None) -> Run:
    """One command against the hostile server bridged to streamable HTTP (a bridge is one session)."""
    with bridged("plain", command) as url:
        run = rea(*args, "--url", url, "--protocol", "legacy", env=env)
    return Run(run.args, run.code, run.out.replace(url, "<url>"), run.err.replace(url, "<url>"))


@given(strings=STRING_LISTS)
@example(strings=WORST)
@example(strings=["W" * 30_000 + "\x1b]0;owned title\x07"] * 2)  # a listing over the SDK's 1 MiB SSE event limit
@settings(max_examples=2, deadline=None, phases=FUZZ_PHASES, suppress_health_check=[HealthCheck.too_slow])
def test_the_lean_http_client_keeps_hostile_text_off_the_terminal(strings: list[str]) -> None:
    """`prompts`, `tools` and `call` over HTTP take the lean client: the same guard, the full path's output."""
    with tempfile.TemporaryDirectory() as folder:
        command = hostile_command(strings, Path(folder))
        traced = over_http(command, "tools", "--json", env=IMPORT_TIMES)
        # A listing the SDK refuses (an SSE event over 1 MiB) is left to it; any other is the lean client's.
        assert traced.code != 0 or "mcp.client.session" not in traced.err, "the lean client did not take it"
        listed = checked(over_http(command, "tools", "--json"))
        if listed.code != 0:
            return  # the refused listing was the whole answer: there is nothing to call
        tool, failing = (t.name for t in (parse_tool(raw) for raw in listed.json()["tools"]) if t is not None)
        for args in (
            ("prompts", "--json"),
            ("prompts",),
            ("tools",),
            ("call", tool, "--yes"),  # it asks a question (elicitation) during the call: declined
            ("call", failing, "--yes"),
        ):
            checked(over_http(command, *args))
        lean = checked(over_http(command, "call", tool, "--yes", "--json"))
        full = over_http(command, "call", tool, "--yes", "--json", env=FULL_PATH)
        assert (lean.code, lean.err) == (full.code, full.err)
        assert DURATION.sub("", lean.out) == DURATION.sub("", full.out)


@given(strings=STRING_LISTS)
@example(strings=WORST)
@FUZZ
def test_the_lean_stdio_lists_keep_hostile_text_off_the_terminal(strings: list[str]) -> None:
    """`prompts` and `tools` on a stdio server that spoke 2026-07-28 before: the same guard, the full path's output."""
    with tempfile.TemporaryDirectory() as folder:
        server = ("--", *hostile_command(strings, Path(folder)), "--modern")
        checked(rea("prompts", *server))  # the full path, which remembers the server speaks 2026-07-28
        assert "mcp.client.session" not in rea("tools", "--json", *server, env=IMPORT_TIMES).err
        for args in (("prompts", "--json"), ("prompts",), ("tools", "--json"), ("tools",)):
            lean = checked(rea(*args, *server))
            full = rea(*args, *server, env=FULL_PATH)
            assert (lean.code, lean.out, lean.err) == (full.code, full.out, full.err), args


def hostile_spec(strings: list[str], folder: Path) -> ServerSpec:
    command, *args = hostile_command(strings, folder)
    return ServerSpec(name="hostile", transport="stdio", command=command, args=tuple(args), cwd=str(REPO))


async def drive_every_screen(strings: list[str]) -> None:
    """Connect, fill and render the prompt, run both tools (answering the elicitation), visit every screen."""
    from textual.widgets import Button

    from rea_tui.ui.messages import NodeRef
    from rea_tui.ui.widgets.argument_form import ArgumentForm
    from rea_tui.ui.widgets.sidebar import ServerTree

    with tempfile.TemporaryDirectory() as folder:
        app = make_app([hostile_spec(strings, Path(folder))])
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot, app)
            assert app.session.state("hostile").status == "ready"
            hosted = app.session.hosted("hostile")
            assert hosted is not None
            prompt = hosted.catalogs.prompts.items[0]
            tree = app.main.query_one(ServerTree)
            tree.select_ref(NodeRef("prompt", "hostile", prompt.name))
            form = app.main.query_one(ArgumentForm)
            await wait_for(pilot, lambda: form.target is not None, "the prompt's form")
            for field in form.fields:
                field.input.focus()
                await wait_for(pilot, lambda f=field: f.dropdown.shown_for == f.value, "completions")
            await pilot.press("escape", "ctrl+r")
            await wait_for(pilot, lambda: app.session.recorder.path is not None, "rendering")
            await pilot.pause(0.3)
            for index, tool in enumerate(hosted.catalogs.tools.items):
                calls = len(app.session.ledger.entries)
                app.main.calls.open("hostile", tool.name)
                await wait_for(pilot, lambda: bool(app.screen.query("#review")), "the tool form")
                # By keyboard: a huge description may push the buttons out of view.
                await pilot.press("ctrl+r")
                await pilot.pause(0.5)
                if not app.screen.query("#run-once"):
                    # The form refused what the hostile schema asks for (it says why): nothing is sent.
                    assert type(app.screen).__name__ == "ToolFormScreen"
                    await pilot.press("escape")
                    assert len(app.session.ledger.entries) == calls
                    continue
                app.screen.query_one("#run-once", Button).press()
                if index == 0:
                    await wait_for(pilot, lambda: type(app.screen).__name__ == "ElicitationScreen", "the question")
                    await pilot.press("escape")
                await wait_for(
                    pilot,
                    lambda calls=calls: (
                        len(app.session.ledger.entries) > calls and app.session.ledger.entries[-1].finished
                    ),
                    "the call",
                )
                await pilot.pause(0.2)
            for key in ("ctrl+l", "ctrl+o", "ctrl+n"):
                await pilot.press(key)
                await pilot.pause(0.3)
                await pilot.press("escape")
                await pilot.pause(0.1)
            assert app.is_running


@given(strings=STRING_LISTS)
@example(strings=WORST)
@settings(max_examples=2, deadline=None, phases=FUZZ_PHASES, suppress_health_check=[HealthCheck.too_slow])
def test_every_screen_keeps_hostile_text_off_the_terminal(strings: list[str]) -> None:
    import asyncio

    asyncio.run(drive_every_screen(strings))


# How long the relay holds the SDK's opening back: the hostile server answers at once, so this is time enough.
PREVIEW_HOLD_SECONDS = 2.0


async def preview_hostile_lists(strings: list[str]) -> None:
    """A started server's early lists, shown while its session comes up (host/early_lists.py), then the session's."""
    from rea_tui.host import Session, start_server_process
    from rea_tui.ui.app import create_app
    from rea_tui.ui.settings import AppSettings

    with tempfile.TemporaryDirectory() as folder:
        server = (*hostile_command(strings, Path(folder)), "--modern")
        relay = ("-m", "tests.support.slow_opening", str(PREVIEW_HOLD_SECONDS), "--", *server)
        spec = ServerSpec(name="hostile", transport="stdio", command=sys.executable, args=relay, cwd=str(REPO))
        session = Session([spec], started={spec.name: start_server_process(spec)}, remember_protocols=False)
        app = create_app(session, settings=AppSettings())
        async with app.run_test(size=SIZE) as pilot:

            def previewed() -> bool:
                hosted = session.hosted("hostile")
                return hosted is not None and hosted.previewed

            await wait_for(pilot, previewed, "the early lists", PREVIEW_HOLD_SECONDS * 5)
            await pilot.pause(0.1)  # drawn: every frame passes the strict screen guard
            await ready(pilot, app)
            assert session.state("hostile").status == "ready"


@given(strings=STRING_LISTS)
@example(strings=WORST)
@settings(max_examples=2, deadline=None, phases=FUZZ_PHASES, suppress_health_check=[HealthCheck.too_slow])
def test_the_early_lists_of_a_hostile_server_are_drawn_safely(strings: list[str]) -> None:
    import asyncio

    asyncio.run(preview_hostile_lists(strings))


def test_the_fuzz_would_catch_a_leak() -> None:
    """The check above can fail: raw hostile text on a stream is flagged."""
    leaked = Run(("x",), 0, "title\x1b]0;owned\x07", "")
    try:
        assert_terminal_safe(leaked)
    except AssertionError:
        return
    raise AssertionError("assert_terminal_safe let an escape sequence through")


@given(ref=HOSTILE, tool=HOSTILE)
@example(ref=WORST[0], tool=WORST[2])
@settings(max_examples=50, deadline=None)
def test_a_ledger_line_is_one_plain_line_whatever_a_transcript_says(ref: str, tool: str) -> None:
    """A replayed transcript's entry ID and tool name (replay_plan.entry_from_record) are listed as they
    are read: the list counts one line per entry (EntryList), and the terminal gets no control character."""
    import unicodedata

    from rea_tui.host import EvidenceEntry
    from rea_tui.ui.widgets.evidence_pane import entry_line

    entry = EvidenceEntry(id="E1", ref=ref, server="s", tool=tool, arguments={}, started=0.0, approval="recorded")
    shown = entry_line(entry, ref_width=12).plain
    assert not [c for c in shown if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")], repr(shown)
