"""The TUI's `max_reply_size` setting (bytes): read from settings.json, a wrong type or a size under a byte keeps the 64 MiB default."""

from __future__ import annotations

import json
from pathlib import Path

from rea_tui.host import DEFAULT_MAX_REPLY_BYTES
from rea_tui.ui.settings import AppSettings


def test_the_settings_file_sets_the_reply_size_limit(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"max_reply_size": 8 * 1024 * 1024}), encoding="utf-8")
    assert AppSettings.load(path).max_reply_size == 8 * 1024 * 1024
    for wrong in ("8MiB", 0, -1):
        path.write_text(json.dumps({"max_reply_size": wrong}), encoding="utf-8")
        assert AppSettings.load(path).max_reply_size == DEFAULT_MAX_REPLY_BYTES == 64 * 1024 * 1024
