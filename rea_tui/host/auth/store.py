"""Where OAuth tokens and client registrations are kept between runs.

In the system keyring (`keyring`) when it has a usable backend, else in one
file per server under the user data directory (`~/.local/share/rea-tui/auth/`
on Linux), created 0600 in a 0700 folder. A record is keyed by the server's
URL and holds the token response, when it expires, and the client
registration. Nothing in it is ever logged or written to a transcript.
`PYTHON_KEYRING_BACKEND=keyring.backends.fail.Keyring` forces the file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

KEYRING_SERVICE = "rea-tui"
# Beside a record kept in the keyring, an empty file says it is there (so a check needs no keyring import).
KEYRING_MARKER_SUFFIX = ".keyring"
# An empty file saying the keyring was asked once and held no record for that server: records saved
# before the markers existed have none, so the keyring itself is asked the first time (~0.5 s to import).
KEYRING_CHECKED_SUFFIX = ".keyring-checked"


def record_name(key: str) -> str:
    """The file name (without suffix) of a server's record: no URL in it."""
    return hashlib.sha256(key.encode()).hexdigest()[:24]


def auth_dir() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("rea-tui")) / "auth"


def _usable_keyring() -> Any | None:
    """The keyring backend if it can store secrets, else None (no backend, or the `fail` one)."""
    try:
        import keyring
        from keyring.backends import fail
    except ImportError:  # pragma: no cover - keyring is a dependency
        return None
    try:
        backend = keyring.get_keyring()
    except Exception:
        return None
    if isinstance(backend, fail.Keyring) or getattr(backend, "priority", 0) <= 0:
        return None
    if type(backend).__name__ == "ChainerBackend" and not getattr(backend, "backends", None):
        return None
    return backend


def has_stored_sign_in(url: str) -> bool:
    """Whether a record for `url` may be kept, so a connection would send its token; no keyring import after the first.

    A 0600 file or a keyring marker says yes. Without either, the keyring is asked once for that
    URL (a record from before the markers has none): a record there gets its marker, none gets a
    stamp that spares the next run the question; a keyring that cannot answer counts as a yes.
    A keyring switched on later can only hold records saved with their markers.
    """
    folder, name = auth_dir(), record_name(url)
    if (folder / f"{name}.json").exists() or (folder / f"{name}{KEYRING_MARKER_SUFFIX}").exists():
        return True
    if (folder / f"{name}{KEYRING_CHECKED_SUFFIX}").exists():
        return False
    store = TokenStore(folder)
    held = store.keyring_holds(url)
    if held is not False:
        return True
    store.mark_checked(url)
    return False


@dataclass
class AuthRecord:
    """What is kept for one server."""

    tokens: dict[str, Any] | None = None
    expires_at: float | None = None
    client_info: dict[str, Any] | None = None
    issuer: str | None = None
    # The scope a server asked for in its last challenge, requested again at the next sign-in.
    wanted_scope: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}

    @classmethod
    def from_json(cls, data: Any) -> AuthRecord:
        if not isinstance(data, dict):
            return cls()
        known = {k: data[k] for k in ("tokens", "expires_at", "client_info", "issuer", "wanted_scope") if k in data}
        return cls(**known)


class TokenStore:
    """Auth records by server URL, in the keyring or in 0600 files."""

    def __init__(self, folder: Path | None = None, *, use_keyring: bool = True) -> None:
        self.folder = folder or auth_dir()
        self._keyring = _usable_keyring() if use_keyring else None

    def describe(self) -> str:
        if self._keyring is not None:
            return f"system keyring ({type(self._keyring).__module__}.{type(self._keyring).__name__})"
        return f"0600 files in {self.folder}"

    def _path(self, key: str) -> Path:
        return self.folder / (record_name(key) + ".json")

    def _marker(self, key: str) -> Path:
        return self.folder / (record_name(key) + KEYRING_MARKER_SUFFIX)

    def keyring_holds(self, key: str) -> bool | None:
        """Whether the keyring has a record for `key` (marking it if so); None when the keyring cannot say."""
        if self._keyring is None:
            return False
        try:
            held = self._keyring.get_password(KEYRING_SERVICE, key) is not None
        except Exception:
            return None  # a locked or broken keyring: whatever it holds stays possible
        if held:
            self._write_file(self._marker(key), "")
        return held

    def mark_checked(self, key: str) -> None:
        """Remember that the keyring held no record for `key` (an unwritable folder just means asking again)."""
        with contextlib.suppress(OSError):
            self._write_file(self.folder / (record_name(key) + KEYRING_CHECKED_SUFFIX), "")

    def load(self, key: str) -> AuthRecord:
        text: str | None = None
        if self._keyring is not None:
            try:
                text = self._keyring.get_password(KEYRING_SERVICE, key)
            except Exception:
                text = None
        if text is None:
            try:
                text = self._path(key).read_text(encoding="utf-8")
            except OSError:
                return AuthRecord()
        try:
            return AuthRecord.from_json(json.loads(text))
        except ValueError:
            return AuthRecord()

    def save(self, key: str, record: AuthRecord) -> None:
        text = json.dumps({"server": key, **record.to_json()}, sort_keys=True)
        if self._keyring is not None:
            try:
                self._keyring.set_password(KEYRING_SERVICE, key, text)
                self._path(key).unlink(missing_ok=True)
                self._write_file(self._marker(key), "")
                return
            except Exception:
                pass  # A keyring that refuses (size limits, a locked collection) falls back to the file.
        self._write_file(self._path(key), text)

    def delete(self, key: str) -> bool:
        """Forget a server's tokens and registration; True if anything was kept."""
        found = False
        if self._keyring is not None:
            try:
                if self._keyring.get_password(KEYRING_SERVICE, key) is not None:
                    self._keyring.delete_password(KEYRING_SERVICE, key)
                    found = True
            except Exception:
                pass
        self._marker(key).unlink(missing_ok=True)
        path = self._path(key)
        if path.exists():
            path.unlink()
            found = True
        return found

    def _write_file(self, path: Path, text: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(path.parent, 0o700)
        # mkstemp creates the file 0600; the rename makes the write atomic.
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".auth-")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.chmod(tmp, 0o600)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


class ServerTokenStorage:
    """The SDK's `TokenStorage` for one server, backed by a `TokenStore` record."""

    def __init__(self, store: TokenStore, key: str) -> None:
        self.store = store
        self.key = key

    def record(self) -> AuthRecord:
        return self.store.load(self.key)

    def update(self, **changes: Any) -> None:
        record = self.record()
        for name, value in changes.items():
            setattr(record, name, value)
        self.store.save(self.key, record)

    async def get_tokens(self) -> OAuthToken | None:
        from mcp.shared.auth import OAuthToken
        from pydantic import ValidationError

        tokens = self.record().tokens
        try:
            return OAuthToken.model_validate(tokens) if tokens else None
        except ValidationError:
            return None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        expires_at = time.time() + tokens.expires_in if tokens.expires_in else None
        self.update(tokens=tokens.model_dump(mode="json", exclude_none=True), expires_at=expires_at, wanted_scope=None)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        from mcp.shared.auth import OAuthClientInformationFull
        from pydantic import ValidationError

        info = self.record().client_info
        try:
            return OAuthClientInformationFull.model_validate(info) if info else None
        except ValidationError:
            return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.update(client_info=client_info.model_dump(mode="json", exclude_none=True))


@dataclass(frozen=True)
class KeptSignIns:
    """What the store holds, found without a server's name: the URLs of the records kept in files (each
    record names its server), and the record names (hashes of URLs) of those kept in the keyring."""

    file_urls: tuple[str, ...]
    keyring_records: frozenset[str]

    def holds(self, url: str) -> bool:
        return url in self.file_urls or record_name(url) in self.keyring_records

    def unnamed(self, urls: Iterable[str]) -> int:
        """How many keyring records belong to none of `urls` (their server cannot be named)."""
        return len(self.keyring_records - {record_name(url) for url in urls})


def kept_sign_ins(folder: Path | None = None) -> KeptSignIns:
    """Every record kept, as far as it can be listed: the keyring cannot be listed, only its markers."""
    folder = folder or auth_dir()
    urls: list[str] = []
    in_keyring: set[str] = set()
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return KeptSignIns((), frozenset())
    for path in entries:
        if path.name.endswith(KEYRING_MARKER_SUFFIX):
            in_keyring.add(path.name.removesuffix(KEYRING_MARKER_SUFFIX))
            continue
        if path.suffix != ".json" or path.name.startswith("."):
            continue
        try:
            server = json.loads(path.read_text(encoding="utf-8")).get("server")
        except (OSError, ValueError, AttributeError):
            continue
        # Only a record whose name is its own URL's: a file copied or edited by hand names no server.
        if isinstance(server, str) and record_name(server) == path.stem:
            urls.append(server)
    return KeptSignIns(tuple(urls), frozenset(in_keyring))


class StagedTokenStorage(ServerTokenStorage):
    """A sign-in's working copy of a server's record: read from the store once, written back only by `commit`.

    `auth login` works on one, so a sign-in that fails (refused, timed out, a scope the
    authorization server will not grant) leaves the stored token and registration as they were.
    """

    def __init__(self, store: TokenStore, key: str) -> None:
        super().__init__(store, key)
        self._record = store.load(key)

    def record(self) -> AuthRecord:
        return AuthRecord(**self._record.__dict__)

    def update(self, **changes: Any) -> None:
        for name, value in changes.items():
            setattr(self._record, name, value)

    def commit(self) -> None:
        self.store.save(self.key, self._record)
