"""A server is ready once its lists are in; the target it names in `rea://session` is read after (TargetRead).

The bundled server answers the handshake and its lists before its SDK has
loaded, but `resources/read` only after: with the SDK import held (the import
gate), the session is ready and the target is still being read.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from rea_tui.host import HostEvent, ServerSpec, Session, TargetRead
from tests.conftest import REPO
from tests.support.import_gate import GATE_ENVIRONMENT, SUPPORT

WAIT_SECONDS = 30.0


async def test_the_server_is_ready_before_its_target_is_read(tmp_path: Path) -> None:
    gate = tmp_path / "sdk-gate"
    spec = ServerSpec(
        name="rea",
        transport="stdio",
        command=sys.executable,
        args=("-m", "rea_tui.server", "--synthetic", "100"),
        cwd=str(REPO),
        env={"PYTHONPATH": f"{SUPPORT / 'gate_sdk'}:{REPO}", GATE_ENVIRONMENT: str(gate)},
        protocol="legacy",
    )
    session = Session([spec], timeout=WAIT_SECONDS, remember_protocols=False)
    events: list[HostEvent] = []
    session.events.subscribe(events.append)
    try:
        hosted = await asyncio.wait_for(session.connect("rea"), WAIT_SECONDS)
        assert not gate.exists(), "connected while the server's SDK is still held"
        assert session.state("rea").status == "ready" and len(hosted.catalogs.prompts.items) == 6
        assert session.reading_target("rea") and hosted.target_state is None
        assert not [e for e in events if isinstance(e, TargetRead)]
        gate.touch()
        async with asyncio.timeout(WAIT_SECONDS):
            while not any(isinstance(e, TargetRead) for e in events):
                await asyncio.sleep(0.02)
        assert not session.reading_target("rea")
        # What rea://session said once the SDK answered: the target opening, or open already.
        assert hosted.target_state in ("opening", "ready"), hosted.target_state
    finally:
        gate.touch()
        await session.close()
