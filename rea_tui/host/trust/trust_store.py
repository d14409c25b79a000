"""Workspace trust: a folder's own config files are read, listed, and used only once the analyst trusts it.

A cloned repository can carry `.rea-tui.json`, `.mcp.json`, `.cursor/mcp.json`,
`.vscode/mcp.json` or `.gemini/settings.json`, each naming commands to start
and URLs to send headers to. Until the analyst trusts the folder (by its real
path, `rea-tui trust` or the TUI's dialog), none of them starts a process,
connects, expands a variable or shadows a server of the analyst's own.

`trust_gate(folder)` is the one place that reads those files: it reads each
once, hashes exactly what it read, and hands that same text out only when the
trust store holds the folder with that hash (so a file that changed, or a new
file, asks again). The config loader (`rea_tui.host.config.config`) and the
discovery of other clients' configs (`rea_tui.host.config.discovery`) take the
folder's files from it and from nowhere else.

The store is `trusted-folders.json` in the user config directory (beside
rea-tui's own `config.json`), mode 0600, written atomically.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from rea_tui.host.config.client_configs import config_sources, read_folder_entries
from rea_tui.host.trust.safe_text import sanitize_line

# The folder's own config files (relative to the folder) and the client each belongs to, in the order read.
FOLDER_FILES: tuple[tuple[str, str], ...] = (
    (".rea-tui.json", "rea-tui"),
    (".mcp.json", "Claude Code"),
    (".cursor/mcp.json", "Cursor"),
    (".vscode/mcp.json", "VS Code"),
    (".gemini/settings.json", "Gemini CLI"),
)
STORE_NAME = "trusted-folders.json"
STORE_VERSION = 1
# A config file is a few kilobytes; a bigger one is not read (and so never trusted or used).
FILE_SIZE_LIMIT = 4 * 1024 * 1024
# How much of one value (a command, a URL) the listing shows on one line.
VALUE_LIMIT = 400

State = Literal["trusted", "untrusted", "changed", "new", "unreadable"]

# A value shown as it is; anything else (spaces, quotes, controls, non-ASCII) is shown JSON-quoted.
_PLAIN_VALUE = re.compile(r"[A-Za-z0-9_.:/@+=%?&#~${}\[\]-]+")
# rea-tui's own variables (`.rea-tui.json`); another client's file is read in its dialect.
_VARIABLE = re.compile(r"\$\{(?:env:|input:)?[A-Za-z0-9_.:-]+\}")


class TrustStoreError(Exception):
    """The trust store cannot be read or written; the message says which file and why."""


def store_path() -> Path:
    """`trusted-folders.json` in the user config directory (where rea-tui keeps `config.json`)."""
    from platformdirs import user_config_dir

    return Path(user_config_dir("rea-tui")) / STORE_NAME


def real_folder(path: Path | str) -> Path:
    """The folder's real path (symlinks resolved): the key trust is kept under."""
    return Path(path).expanduser().resolve()


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class FolderFile:
    """One of the folder's own config files, as read once (its text is what was hashed)."""

    name: str
    client: str
    path: Path
    text: str
    digest: str
    state: State
    problem: str = ""

    @property
    def trusted(self) -> bool:
        return self.state == "trusted"

    def reason(self) -> str:
        """Why it is not used (empty when it is)."""
        return {
            "trusted": "",
            "untrusted": "the folder is not trusted",
            "changed": "it changed since the folder was trusted",
            "new": "it is new since the folder was trusted",
            "unreadable": f"it cannot be read ({self.problem})",
        }[self.state]


@dataclass(frozen=True)
class TrustGate:
    """The folder's own config files and whether each may be used."""

    folder: Path
    files: tuple[FolderFile, ...]

    @property
    def untrusted(self) -> tuple[FolderFile, ...]:
        return tuple(f for f in self.files if not f.trusted)

    def file(self, path: Path) -> FolderFile | None:
        """The folder file at `path` (compared by real folder and name), if it is one."""
        key = _key(path)
        return next((f for f in self.files if _key(f.path) == key), None)

    def usable_file(self, name: str) -> FolderFile | None:
        """The folder file `name` (relative) when it exists and is trusted, else None."""
        return next((f for f in self.files if f.name == name and f.trusted), None)

    def hint(self) -> str:
        """One line for a listing or an error: what is not used and how to use it."""
        names = ", ".join(f"{f.name} ({f.reason()})" for f in self.untrusted)
        return f"not used: {names}; `rea-tui trust {trust_argument(self.folder)}` lists what they run and trusts them"


def trust_argument(folder: Path) -> str:
    """The folder as an argument of `rea-tui trust` in a message: display-safe and shell-quoted."""
    return shlex.quote(sanitize_line(folder))


def _key(path: Path) -> Path:
    return path.parent.resolve() / path.name


def _user_files() -> set[Path]:
    """The user's own config files (other clients' user configs, rea-tui's own): never a folder's."""
    found = {store_path().with_name("config.json").resolve()}
    found |= {p.resolve() for _, scope, p, _ in config_sources() if scope == "user"}
    return found


def _read(path: Path) -> tuple[bytes | None, str]:
    try:
        with path.open("rb") as handle:
            data = handle.read(FILE_SIZE_LIMIT + 1)
    except OSError as exc:
        return None, exc.strerror or str(exc)
    if len(data) > FILE_SIZE_LIMIT:
        return None, f"larger than {FILE_SIZE_LIMIT // (1024 * 1024)} MiB"
    return data, ""


def trust_gate(folder: Path | None = None, store: TrustStore | None = None) -> TrustGate:
    """Read the folder's own config files once and say which are trusted (by the hash of what was read)."""
    real = real_folder(folder if folder is not None else Path.cwd())
    recorded = (store or TrustStore()).recorded(real)
    user_files = _user_files()
    files: list[FolderFile] = []
    for name, client in FOLDER_FILES:
        path = real / name
        if not path.is_file() or path.resolve() in user_files:
            continue  # absent, or the user's own file (the folder is the home directory)
        data, problem = _read(path)
        text = ""
        if data is not None:
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                data, problem = None, "not UTF-8 text"
        if data is None:
            files.append(FolderFile(name, client, path, "", "", "unreadable", problem))
            continue
        hashed = digest(data)
        state: State
        if recorded is None:
            state = "untrusted"
        elif name not in recorded:
            state = "new"
        else:
            state = "trusted" if recorded[name] == hashed else "changed"
        files.append(FolderFile(name, client, path, text, hashed, state))
    return TrustGate(real, tuple(files))


# ------------------------------------------------------------------ the store


class TrustStore:
    """The trusted folders: real path -> when, and the hash of each of its config files then."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or store_path()

    def _load(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            # Unreadable means nothing is trusted (the safe reading), and saying so.
            raise TrustStoreError(f"cannot read the trust store {self.path}: {exc}") from None
        folders = data.get("folders") if isinstance(data, dict) else None
        return folders if isinstance(folders, dict) else {}

    def folders(self) -> dict[str, dict[str, Any]]:
        return {k: v for k, v in self._load().items() if isinstance(v, dict)}

    def recorded(self, folder: Path) -> dict[str, str] | None:
        """The hashes recorded for `folder` (its real path), or None when it is not trusted."""
        try:
            entry = self.folders().get(str(folder))
        except TrustStoreError:
            return None
        files = entry.get("files") if entry is not None else None
        if not isinstance(files, dict):
            return None
        return {str(k): str(v) for k, v in files.items()}

    def trust(self, folder: Path, files: Iterable[FolderFile]) -> None:
        """Trust `folder` with exactly these files' contents (the hashes of what was shown)."""
        folders = self.folders()
        folders[str(folder)] = {
            "trusted_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "files": {f.name: f.digest for f in files if f.digest},
        }
        self._save(folders)

    def revoke(self, folder: Path) -> bool:
        folders = self.folders()
        found = folders.pop(str(folder), None) is not None
        if found:
            self._save(folders)
        return found

    def _save(self, folders: Mapping[str, Any]) -> None:
        text = json.dumps({"version": STORE_VERSION, "folders": folders}, indent=2, sort_keys=True)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # mkstemp creates the file 0600; the rename makes the write atomic.
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".trusted-")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text + "\n")
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


# ------------------------------------------------------------------ what a folder would run


@dataclass(frozen=True)
class FolderServer:
    """One server entry of a folder file, as written (nothing expanded): what it would run or connect to."""

    file: FolderFile
    name: str
    transport: str  # stdio, http, sse, or "unknown" for an entry that is not an object
    command: tuple[str, ...] = ()
    cwd: str | None = None
    env_names: tuple[str, ...] = ()
    url: str = ""
    header_names: tuple[str, ...] = ()
    oauth: tuple[str, ...] = ()
    # The variables its values use, as written in its client's dialect (`${env:X}`, `$X`...).
    variables: tuple[str, ...] = field(default_factory=tuple)

    def lines(self, limit: int | None = VALUE_LIMIT) -> list[str]:
        """Display-safe lines (no control, escape, bidi or line break survives; an odd value is quoted, so a
        name cannot pass for a line of its own)."""

        def safe(value: object) -> str:
            text = str(value)
            plain = _PLAIN_VALUE.fullmatch(text) is not None
            return sanitize_line(text if plain else json.dumps(text, ensure_ascii=False), limit)

        def names(values: Iterable[str]) -> str:
            return ", ".join(safe(v) for v in values)

        shown = [f"{safe(self.name)}  ({safe(self.transport)})"]
        if self.command:
            # Every word JSON-quoted, so where one ends and the next begins is never in doubt.
            words = (sanitize_line(json.dumps(part, ensure_ascii=False), limit) for part in self.command)
            shown.append("  runs: " + " ".join(words))
            shown.append(f"  in: {safe(self.cwd) if self.cwd is not None else 'the folder rea-tui starts in'}")
        if self.env_names:
            shown.append("  env: " + names(self.env_names))
        if self.url:
            shown.append(f"  connects to: {safe(self.url)}")
        if self.header_names:
            shown.append("  headers: " + names(self.header_names))
        if self.oauth:
            shown.append("  oauth: " + names(self.oauth))
        if self.variables:
            shown.append("  expands: " + names(self.variables))
        return shown


def _variables(client: str, values: Iterable[object]) -> tuple[str, ...]:
    """The variables the values use, as `client` finds them (each once, in order)."""
    from rea_tui.host.config.client_variables import dialect_for

    uses = _VARIABLE.findall if client == "rea-tui" else dialect_for(client).uses
    found: dict[str, None] = {}
    for value in values:
        for written in uses(value if isinstance(value, str) else json.dumps(value)):
            found[written] = None
    return tuple(found)


_HTTP_TYPES = ("http", "streamable-http", "streamableHttp", "sse")
# OAuth options whose values are places rea-tui would contact (the rest are shown by name only).
_OAUTH_PLACES = ("issuer", "clientMetadataUrl")


def folder_servers(file: FolderFile) -> list[FolderServer]:
    """Every server entry of `file`, read as its client reads it and classified as the loader does."""
    try:
        entries = read_folder_entries(file.client, file.text, file.path.parent)
    except ValueError:
        return []
    servers: list[FolderServer] = []
    for name, entry in entries.items():
        if not isinstance(entry, dict):
            servers.append(FolderServer(file, str(name), "unknown"))
            continue
        env = _mapping(entry.get("env"))
        headers = _mapping(entry.get("headers"))
        oauth = _mapping(entry.get("oauth"))
        args = entry.get("args") if isinstance(entry.get("args"), list) else []
        assert isinstance(args, list)
        written = (entry.get("command"), *args, entry.get("cwd"), entry.get("url"), *env.values())
        written += (*headers.values(), *oauth.values(), entry.get("clientId"), entry.get("clientSecret"))
        variables = _variables(file.client, (v for v in written if v is not None))
        kind = entry.get("type")
        if kind in _HTTP_TYPES or (kind is None and "url" in entry):
            places = [f"{k}={v}" for k, v in oauth.items() if k in _OAUTH_PLACES]
            servers.append(
                FolderServer(
                    file,
                    str(name),
                    "sse" if kind == "sse" else "http",
                    url=str(entry.get("url", "")),
                    header_names=tuple(str(k) for k in headers),
                    oauth=tuple(places + [str(k) for k in oauth if k not in _OAUTH_PLACES]),
                    variables=variables,
                )
            )
            continue
        command, cwd = entry.get("command"), entry.get("cwd")
        servers.append(
            FolderServer(
                file,
                str(name),
                "stdio" if kind in (None, "stdio") else f"unsupported type {kind}",
                command=(str(command), *(str(a) for a in args)) if command is not None else (),
                cwd=str(cwd) if cwd is not None else None,
                env_names=tuple(str(k) for k in env),
                variables=variables,
            )
        )
    return servers


def _mapping(value: object) -> dict[str, Any]:
    return {str(k): v for k, v in value.items()} if isinstance(value, dict) else {}


def folder_listing(gate: TrustGate, only_untrusted: bool = False) -> list[str]:
    """What the folder would use, file by file: display-safe lines for the terminal and the dialog."""
    shown: list[str] = []
    for file in gate.untrusted if only_untrusted else gate.files:
        state = "trusted" if file.trusted else f"not used: {file.reason()}"
        shown.append(f"{sanitize_line(file.path)} ({file.client}; {state})")
        servers = folder_servers(file)
        for server in servers:
            shown += ["  " + line for line in server.lines()]
        if not servers:
            shown.append("  (no servers in it)")
    return shown
