"""Entry point for `rea-tui` and `python -m rea_tui`."""

from __future__ import annotations

import os
import sys

# Commands that never go to a warm session: the session's own, and the bundled server.
NEVER_RELAYED = ("session", "server")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # In a warm session (`rea-tui session start`), a command line goes to its host before anything big is imported.
    if os.environ.get("REA_TUI_SESSION") and argv and argv[0] not in NEVER_RELAYED:
        from rea_tui.cli.session_client import relay

        code = relay(argv)
        if code is not None:
            return code
    from rea_tui.cli import run

    return run(argv)


if __name__ == "__main__":
    raise SystemExit(main())
