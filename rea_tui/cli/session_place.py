"""Where a warm session's socket lives, and who may talk to it.

The socket is made in a folder of the user's runtime directory
(`$XDG_RUNTIME_DIR`, which platformdirs accepts only as a 0700 folder the user
owns, else a `runtime-UID` folder of the temp dir, checked the same way),
in a `sessions` folder of mode 0700 owned by the user, with mode 0600. A peer
is let in only when the kernel says (SO_PEERCRED) it runs as the same uid.
Nothing listens on TCP.
"""

from __future__ import annotations

import os
import socket
import stat
import struct

# Not `typing.TYPE_CHECKING`: a relayed command imports this module, and typing and pathlib cost it more than the rest.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Final

SESSION_ENV: Final = "REA_TUI_SESSION"
IDLE_ENV: Final = "REA_TUI_SESSION_IDLE"
DEFAULT_IDLE_SECONDS: Final = 30 * 60.0
FOLDER_MODE: Final = 0o700
SOCKET_MODE: Final = 0o600
# struct ucred {pid_t pid; uid_t uid; gid_t gid;}
UCRED: Final = struct.Struct("3i")


class UnsafePlace(OSError):
    """The socket's folder or the socket itself is not the user's own and private."""


def sessions_folder() -> Path:
    """The private folder for session sockets, made (0700) if missing, checked if there."""
    import contextlib
    import warnings
    from pathlib import Path

    from platformdirs import PlatformDirs, RuntimeDirWarning

    with warnings.catch_warnings():
        # Falling back from a missing XDG_RUNTIME_DIR is expected on servers and in containers.
        warnings.simplefilter("ignore", RuntimeDirWarning)
        runtime = Path(PlatformDirs("rea-tui", ensure_exists=True).user_runtime_dir)
    folder = runtime / "sessions"
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=FOLDER_MODE)
    check_private_folder(folder)
    return folder


def check_private_folder(folder: str | Path) -> None:
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode):
        raise UnsafePlace(f"{folder} is not a folder")
    if info.st_uid != os.getuid():
        raise UnsafePlace(f"{folder} belongs to uid {info.st_uid}, not to this user")
    if stat.S_IMODE(info.st_mode) & 0o077:
        raise UnsafePlace(f"{folder} has mode {stat.S_IMODE(info.st_mode):o}; it must be 700")


def check_socket(path: str) -> None:
    """Before a client connects: the path is a socket of this user's, in a private folder of this user's."""
    check_private_folder(os.path.dirname(os.path.abspath(path)))
    info = os.lstat(path)
    if not stat.S_ISSOCK(info.st_mode):
        raise UnsafePlace(f"{path} is not a socket")
    if info.st_uid != os.getuid():
        raise UnsafePlace(f"{path} belongs to uid {info.st_uid}, not to this user")


def peer_uid(sock: socket.socket) -> int:
    """The uid the peer of a connected Unix socket ran as when it connected, as the kernel recorded it."""
    _pid, uid, _gid = UCRED.unpack(sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, UCRED.size))
    return int(uid)


def peer_allowed(sock: socket.socket, owner_uid: int) -> bool:
    """Only the session's own user may use it (root included: it is not another user's session)."""
    return peer_uid(sock) == owner_uid


def bind_private(path: Path) -> socket.socket:
    """A listening Unix socket at `path`, mode 0600 from its creation (the umask is set around the bind)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        sock.bind(str(path))
    finally:
        os.umask(old)
    os.chmod(path, SOCKET_MODE)
    sock.listen()
    return sock


def idle_seconds(given: float | None) -> float:
    """How long a session waits for a command before it ends: --idle, else $REA_TUI_SESSION_IDLE, else 30 min."""
    if given is not None:
        return given
    from_env = os.environ.get(IDLE_ENV)
    return float(from_env) if from_env else DEFAULT_IDLE_SECONDS
