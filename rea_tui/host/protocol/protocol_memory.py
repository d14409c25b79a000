"""Remembers which protocol generation each server spoke.

With `protocol: auto`, the SDK first probes `server/discover` and falls back
to the legacy `initialize` handshake, which costs a legacy server a second or
more on every start. Once a server has answered the legacy handshake, the next
start goes straight to it.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Literal

Era = Literal["legacy", "modern"]


def default_memory_path() -> Path:
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("rea-tui")) / "protocols.json"


class ProtocolMemory:
    """A small JSON file: server fingerprint -> the era it spoke last time."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_memory_path()

    def _load(self) -> dict[str, str]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def recall(self, fingerprint: str) -> Era | None:
        era = self._load().get(fingerprint)
        return era if era in ("legacy", "modern") else None  # type: ignore[return-value]

    def remember(self, fingerprint: str, era: Era) -> None:
        data = self._load()
        if data.get(fingerprint) == era:
            return
        data[fingerprint] = era
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # Write-then-rename so two rea-tui processes never leave a torn file.
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".protocols-")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=1, sort_keys=True)
            os.replace(tmp, self.path)
        except OSError:
            pass  # A cache that cannot be written only costs the probe next time.
