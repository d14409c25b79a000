"""A keyring backend that keeps passwords in one JSON file, for tests of what rea-tui finds in a usable keyring.

Selected with `PYTHON_KEYRING_BACKEND=tests.support.file_keyring.FileKeyring`; the file is
`$REA_TEST_KEYRING_FILE`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from keyring.backend import KeyringBackend

FILE_ENV = "REA_TEST_KEYRING_FILE"


class FileKeyring(KeyringBackend):
    """Passwords by (service, username) in a JSON file."""

    priority = 1  # type: ignore[assignment]  # usable: above the `fail` backend's 0

    def _path(self) -> Path:
        return Path(os.environ[FILE_ENV])

    def _all(self) -> dict[str, str]:
        path = self._path()
        return json.loads(path.read_text()) if path.exists() else {}

    def get_password(self, service: str, username: str) -> str | None:
        return self._all().get(f"{service}\n{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        kept = self._all()
        kept[f"{service}\n{username}"] = password
        self._path().write_text(json.dumps(kept))

    def delete_password(self, service: str, username: str) -> None:
        kept = self._all()
        kept.pop(f"{service}\n{username}", None)
        self._path().write_text(json.dumps(kept))
