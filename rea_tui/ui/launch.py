"""Start the TUI (kept apart from app.py so `rea-tui --help` never imports Textual)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rea_tui.host.config import ServerSpec


def run_tui(specs: Sequence[ServerSpec], *, timeout: float = 30.0) -> int:
    from rea_tui.ui.app import create_app

    app = create_app(specs, timeout=timeout)
    result = app.run()
    return int(result or 0)


def run_replay(transcript: Path, specs: Sequence[ServerSpec], *, offline: bool, timeout: float = 30.0) -> int:
    from rea_tui.host.replay import plan_replay
    from rea_tui.host.transcript import read_transcript
    from rea_tui.ui.app import create_app

    plan = plan_replay(read_transcript(transcript))
    app = create_app(specs, timeout=timeout, replay=plan, offline=offline)
    result = app.run()
    return int(result or 0)
