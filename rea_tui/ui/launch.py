"""Start the TUI (kept apart from app.py so `rea-tui --help` never imports Textual)."""

from __future__ import annotations

from collections.abc import Sequence

from rea_tui.host.config import ServerSpec


def run_tui(specs: Sequence[ServerSpec], *, timeout: float = 30.0) -> int:
    from rea_tui.ui.app import create_app

    app = create_app(specs, timeout=timeout)
    result = app.run()
    return int(result or 0)
