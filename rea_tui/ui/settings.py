"""What the app shows and how it runs, as one settings object (instead of flags threaded through widgets).

Loaded from `settings.json` in the user config directory, or from the file
named by `REA_TUI_SETTINGS`; the test suite points that at a file of its own
(no timings, no machine details, no blinking cursor), so snapshots are the
same on every machine. A missing file means the defaults; a file with an
unknown key or a bad value is refused with a message that names them (a
value silently replaced by its default would leave the analyst guessing).
Checked by hand rather than with pydantic: the file is read before the first
frame, which the pydantic import would delay.
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
# Fewer than one frame a second is not a display; more than this is more than any terminal shows.
FPS_RANGE = (1, 1000)


class SettingsError(ValueError):
    """The settings file cannot be used as it is; the message names the file, the key and the value."""


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
        """The settings in `path` (or `$REA_TUI_SETTINGS`, or the user's file); defaults for what is missing.

        Raises `SettingsError` for a file that is not a JSON object, an unknown key or a bad value.
        """
        if path is None:
            named = os.environ.get(SETTINGS_ENV)
            path = Path(named) if named else user_settings_path()
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return cls()
        except (OSError, UnicodeDecodeError) as error:
            raise SettingsError(f"settings file {path}: cannot be read ({error})") from None
        try:
            data: Any = json.loads(text)
        except ValueError as error:
            raise SettingsError(f"settings file {path}: not JSON ({error})") from None
        if not isinstance(data, dict):
            raise SettingsError(f"settings file {path}: must be a JSON object of settings")
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise SettingsError(
                f"settings file {path}: unknown setting {', '.join(map(repr, unknown))} (known: {', '.join(known)})"
            )
        problems = [problem for name, value in data.items() if (problem := value_problem(name, value))]
        if problems:
            raise SettingsError(f"settings file {path}: " + "; ".join(problems))
        return replace(cls(), **data)


def value_problem(name: str, value: Any) -> str | None:
    """What is wrong with `value` for the setting `name`, or None."""
    default = getattr(DEFAULT_SETTINGS, name)
    if isinstance(default, bool):
        return None if isinstance(value, bool) else f"{name}: {json.dumps(value)} is not true or false"
    # bool is an int to Python, not to a reader of the file.
    if not isinstance(value, int) or isinstance(value, bool):
        return f"{name}: {json.dumps(value)} is not a whole number"
    if name == "fps" and not FPS_RANGE[0] <= value <= FPS_RANGE[1]:
        return f"fps: {value} is not a frame rate from {FPS_RANGE[0]} to {FPS_RANGE[1]}"
    if name == "max_reply_size" and value < 1:
        return f"max_reply_size: {value} is not a size in bytes (1 or more)"
    return None


def user_settings_path() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("rea-tui")) / "settings.json"


DEFAULT_SETTINGS = AppSettings()


def settings_of(node: DOMNode) -> AppSettings:
    """The settings of the app `node` runs in (defaults when the app is not rea-tui's, as in screen tests)."""
    settings = getattr(node.app, "settings", None)
    return settings if isinstance(settings, AppSettings) else DEFAULT_SETTINGS
