"""The `rea-tui` command line: the TUI, its headless twin commands, and the bundled server.

Every host action the TUI offers has a command here built on the same
`rea_tui.host` call, for scripts, tests and people checking a server by hand.
Heavy modules (`mcp`, `textual`) are imported only by the commands that need
them, so `rea-tui --help` stays fast. Layout: `main` (parse and dispatch),
`parser`, `commands/` (the dispatch table, one module per command),
`command` (what a command is), `connect` (one server per command),
`output` (the one writer), `exit_codes`.
"""

from __future__ import annotations

# Not `typing.TYPE_CHECKING`: a command relayed to a warm session imports this package, and typing costs it most.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from rea_tui.cli.main import run
    from rea_tui.cli.parser import build_parser

__all__ = ["build_parser", "run"]


def __getattr__(name: str) -> Any:
    # Loaded on first use: a command relayed to a warm session (`session_client`) imports none of this.
    if name == "run":
        from rea_tui.cli.main import run

        return run
    if name == "build_parser":
        from rea_tui.cli.parser import build_parser

        return build_parser
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
