"""What the app shows and how it runs, as one settings object (instead of flags threaded through widgets).

Loaded from `settings.json` in the user config directory, or from the file
named by `REA_TUI_SETTINGS`; the test suite points that at a file of its own
(no timings, no machine details, no blinking cursor), so snapshots are the
same on every machine.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rea_tui.host import DEFAULT_MAX_REPLY_BYTES

if TYPE_CHECKING:
    from textual.dom import DOMNode

SETTINGS_ENV = "REA_TUI_SETTINGS"
# Textual repaints at most this often. At 60 fps its refresh timer adds up to two frames (17-33 ms)
# between a completion reply and its paint after an idle pause; at 240 fps that wait is 4-8 ms, and
# the timer only runs while something needs repainting, so an idle app costs no more.
DEFAULT_FPS = 240


@dataclass(frozen=True)
class AppSettings:
    # Latencies, durations and clock times (off: snapshots that do not depend on the machine's speed).
    show_timings: bool = True
    # Transcript file names, process ids, paths (off: snapshots that do not depend on the machine).
    show_machine_details: bool = True
    cursor_blink: bool = True
    fps: int = DEFAULT_FPS
    # The largest HTTP reply (and server-sent event) read, in bytes after decompression (`--max-reply-size`).
    max_reply_size: int = DEFAULT_MAX_REPLY_BYTES

    @classmethod
    def load(cls, path: Path | None = None) -> AppSettings:
        """The settings in `path` (or `$REA_TUI_SETTINGS`, or the user's file); defaults for what is missing."""
        if path is None:
            named = os.environ.get(SETTINGS_ENV)
            path = Path(named) if named else user_settings_path()
        try:
            data: Any = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls()
        if not isinstance(data, dict):
            return cls()
        defaults = cls()
        # A value of the wrong type keeps the default (a typo in a file must not break the app).
        values: dict[str, Any] = {
            f.name: data[f.name]
            for f in fields(cls)
            if f.name in data and type(data[f.name]) is type(getattr(defaults, f.name))
        }
        if values.get("max_reply_size", 1) < 1:
            del values["max_reply_size"]  # no reply fits in less than a byte: the default stays
        return replace(defaults, **values)


def user_settings_path() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("rea-tui")) / "settings.json"


DEFAULT_SETTINGS = AppSettings()


def settings_of(node: DOMNode) -> AppSettings:
    """The settings of the app `node` runs in (defaults when the app is not rea-tui's, as in screen tests)."""
    settings = getattr(node.app, "settings", None)
    return settings if isinstance(settings, AppSettings) else DEFAULT_SETTINGS
