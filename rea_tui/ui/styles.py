"""Where the .tcss stylesheets are: inside the wheel, or at the top of a source checkout."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent


def styles_dir() -> Path:
    for candidate in (_PACKAGE / "styles", _PACKAGE.parent / "styles"):
        if (candidate / "app.tcss").is_file():
            return candidate
    raise FileNotFoundError("rea-tui's styles/ folder is missing from this installation")


def stylesheet(name: str) -> Path:
    return styles_dir() / name
