"""Start the TUI (kept apart from app.py so `rea-tui --help` never imports Textual)."""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Sequence
from pathlib import Path

from rea_tui.host.config import ServerSpec


def start_early(specs: Sequence[ServerSpec]) -> dict[str, subprocess.Popen[bytes]]:
    """Start the stdio servers now, so they boot while Textual loads and paints the first frame."""
    from rea_tui.host.errors import ServerUnavailable
    from rea_tui.host.transport import start_server_process

    started: dict[str, subprocess.Popen[bytes]] = {}
    for spec in specs:
        if spec.transport == "stdio":
            # A command that cannot start is reported by the app when it connects.
            with contextlib.suppress(ServerUnavailable):
                started[spec.name] = start_server_process(spec)
    return started


def run_tui(specs: Sequence[ServerSpec], *, timeout: float = 30.0) -> int:
    started = start_early(specs)
    from rea_tui.ui.app import create_app

    app = create_app(specs, timeout=timeout, started=started)
    result = app.run()
    return int(result or 0)


def run_replay(transcript: Path, specs: Sequence[ServerSpec], *, offline: bool, timeout: float = 30.0) -> int:
    from rea_tui.host.replay import plan_replay
    from rea_tui.host.transcript import read_transcript
    from rea_tui.ui.app import create_app

    started = start_early(specs)
    plan = plan_replay(read_transcript(transcript))
    app = create_app(specs, timeout=timeout, replay=plan, offline=offline, started=started)
    result = app.run()
    return int(result or 0)
