"""Entry point for `rea-tui` and `python -m rea_tui`."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from rea_tui.cli import run

    return run(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    raise SystemExit(main())
