"""The lists read while the SDK loads (early_lists): shown before the session is ready, never instead of it.

The bundled server runs behind a relay that holds the SDK session's opening
request back (tests/support/slow_opening.py), so the connection is still
coming up, every time, when the early lists arrive.
"""

from __future__ import annotations

import asyncio
import json
import sys

from rea_tui.host import ListsPreviewed, Session, start_server_process
from rea_tui.host.config.config import ServerSpec
from rea_tui.host.hosted import HostedServer
from rea_tui.host.protocol.events import HostEvent
from tests.support.scenarios import SERVER
from tests.support.slow_opening import HOLD_SECONDS, slow_reference_spec

LIST_METHODS = ("prompts/list", "tools/list", "resources/list", "resources/templates/list")


def slow_spec(*, garbage: bool = False) -> ServerSpec:
    return slow_reference_spec(SERVER, garbage=garbage)


def started_session(spec: ServerSpec) -> Session:
    """A session whose server was started before it, as the TUI's start does (that is what asks for a preview)."""
    return Session([spec], timeout=30.0, started={spec.name: start_server_process(spec)}, remember_protocols=False)


async def until_previewed(session: Session, name: str) -> tuple[asyncio.Task[HostedServer], HostedServer]:
    previewed = asyncio.Event()

    def seen(event: HostEvent) -> None:
        if isinstance(event, ListsPreviewed):
            previewed.set()

    session.events.subscribe(seen)
    connecting = asyncio.create_task(session.connect(name))
    await asyncio.wait_for(previewed.wait(), HOLD_SECONDS + 10)
    hosted = session.hosted(name)
    assert hosted is not None
    return connecting, hosted


def wire_meta(hosted: HostedServer, method: str, *, early: bool) -> list[dict[str, object]]:
    found = []
    for entry in hosted.connection.traffic.entries():
        if entry.direction == "out" and entry.method == method:
            message = json.loads(entry.payload)
            if isinstance(message["id"], str) == early and message["id"] != "listen-1":
                found.append(message["params"]["_meta"])
    return found


async def test_the_lists_show_while_the_session_comes_up_and_the_session_asks_again() -> None:
    session = started_session(slow_spec())
    try:
        connecting, hosted = await until_previewed(session, SERVER)
        assert hosted.status == "connecting" and hosted.previewed
        assert session.browsable(SERVER) is hosted and session.ready(SERVER) is None
        early = {
            "prompts": [p.name for p in hosted.catalogs.prompts.items],
            "tools": [t.name for t in hosted.catalogs.tools.items],
        }
        assert "investigate_feature" in early["prompts"] and "open_binary" in early["tools"]
        assert hosted.completions.supported  # the early discover's capabilities
        await connecting
        assert hosted.ready and not hosted.previewed and hosted.connection.early is None
        assert [p.name for p in hosted.catalogs.prompts.items] == early["prompts"]
        assert [t.name for t in hosted.catalogs.tools.items] == early["tools"]
        for method in ("server/discover", *LIST_METHODS):
            # Asked early with the `_meta` the SDK's session stamps, and asked again by the session.
            ours, sdks = wire_meta(hosted, method, early=True), wire_meta(hosted, method, early=False)
            assert ours and sdks, method
            assert ours[0] == sdks[0], method
    finally:
        await session.close()


async def test_a_request_made_while_connecting_waits_for_the_session() -> None:
    session = started_session(slow_spec())
    try:
        connecting, hosted = await until_previewed(session, SERVER)
        assert not connecting.done()
        workflow = await session.render_prompt(SERVER, "investigate_feature", {"feature": "offline search"})
        assert hosted.ready
        assert workflow.steps
        page = await hosted.completions.complete(
            _prompt_ref("investigate_feature"), "procedure", "", {"feature": "offline search"}
        )
        assert page.values
    finally:
        await session.close()


def _prompt_ref(name: str) -> object:
    from rea_tui.host import CompletionRef

    return CompletionRef("prompt", name)


async def test_what_the_server_wrote_before_the_session_reaches_it_in_order() -> None:
    session = started_session(slow_spec(garbage=True))
    reported: list[str] = []
    session.events.subscribe(lambda event: reported.append(getattr(event, "message", "")))
    try:
        connecting, hosted = await until_previewed(session, SERVER)
        await connecting
        arrived = [e for e in hosted.connection.traffic.entries() if e.direction == "in"]
        garbage = next(i for i, e in enumerate(arrived) if e.kind == "garbage")
        sessions = [i for i, e in enumerate(arrived) if e.kind == "response" and not e.id.startswith("rea-early-")]
        assert garbage < sessions[0], [(e.kind, e.id) for e in arrived[:8]]
        assert any("not JSON" in message for message in reported)
        # The replies to the host's own requests were not handed to the session (it would have failed).
        assert hosted.ready
    finally:
        await session.close()


async def test_a_legacy_server_gets_no_early_lists_and_connects_as_before() -> None:
    spec = ServerSpec(
        name="garbage", transport="stdio", command=sys.executable, args=("-m", "tests.support.raw_server", "lint")
    )
    session = started_session(spec)
    try:
        hosted = await session.connect("garbage")
        assert hosted.ready and hosted.connection.early is None
        early = [e for e in hosted.connection.traffic.entries() if e.direction == "out" and '"rea-early-' in e.payload]
        assert [e.method for e in early] == ["server/discover"]
        assert hosted.catalogs.prompts.loaded
    finally:
        await session.close()
