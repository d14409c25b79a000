"""The TUI's settings file: read as written, and refused with a message naming the key and the value
when a value is wrong (never silently replaced by its default)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rea_tui.host import DEFAULT_MAX_REPLY_BYTES
from rea_tui.ui.settings import AppSettings, SettingsError


def write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_the_settings_file_sets_what_it_names_and_leaves_the_rest(tmp_path: Path) -> None:
    path = write(tmp_path / "settings.json", {"max_reply_size": 8 * 1024 * 1024, "fps": 60})
    settings = AppSettings.load(path)
    assert (settings.max_reply_size, settings.fps, settings.show_timings) == (8 * 1024 * 1024, 60, True)
    assert AppSettings.load(tmp_path / "missing.json").max_reply_size == DEFAULT_MAX_REPLY_BYTES == 64 * 1024 * 1024


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"fps": 0}, "fps: 0 is not a frame rate from 1 to 1000"),
        ({"show_timings": "false"}, 'show_timings: "false" is not true or false'),
        ({"max_reply_size": "8MiB"}, 'max_reply_size: "8MiB" is not a whole number'),
        ({"max_reply_size": 0}, "max_reply_size: 0 is not a size in bytes"),
        ({"fps": True}, "fps: true is not a whole number"),
        ({"fps": 60.5}, "fps: 60.5 is not a whole number"),
        ({"show_timing": False}, "unknown setting 'show_timing'"),
        ([1, 2], "must be a JSON object"),
    ],
)
def test_a_wrong_value_is_refused_by_name(tmp_path: Path, data: object, message: str) -> None:
    path = write(tmp_path / "settings.json", data)
    with pytest.raises(SettingsError) as refused:
        AppSettings.load(path)
    assert message in str(refused.value) and str(path) in str(refused.value)


def test_rea_tui_does_not_start_on_a_wrong_settings_file(tmp_path: Path) -> None:
    path = write(tmp_path / "settings.json", {"fps": 0, "show_timings": "false"})
    env = {**os.environ, "REA_TUI_SETTINGS": str(path)}
    result = subprocess.run(
        [sys.executable, "-m", "rea_tui"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2, result.stderr
    assert "fps: 0 is not a frame rate" in result.stderr
    assert 'show_timings: "false" is not true or false' in result.stderr
